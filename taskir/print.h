/* print.h: deterministic printers of a graph for taskir-dump: readable text, JSON (valid,
 * jq-friendly, written with json-c), Graphviz DOT, and a summary (blocks per type, weight
 * bytes, MACs per compute block and in total, precisions). Output depends only on the graph:
 * blocks and edges in graph order, fixed number formats, no addresses. */
#ifndef TASKIR_PRINT_H
#define TASKIR_PRINT_H

#include "taskir/graph.h"

#include <stdio.h>

typedef enum { PF_TEXT, PF_JSON, PF_DOT } PrintFormat;

/* Prints the whole graph. */
Status print_graph(const Graph *g, PrintFormat f, FILE *out, Diag *d);
/* Prints one block and the edges that touch it; a missing id is a logic error [dump.block]. */
Status print_block(const Graph *g, int32_t id, PrintFormat f, FILE *out, Diag *d);
/* Prints the summary (PF_TEXT or PF_JSON; PF_DOT is a usage error of the caller). */
Status print_summary(const Graph *g, PrintFormat f, FILE *out, Diag *d);

#endif
