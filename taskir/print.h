/* print.h: deterministic printers of a graph for taskir-dump: readable text, JSON (valid,
 * jq-friendly, written with json-c), Graphviz DOT, and a summary (blocks per type, weight
 * bytes, MACs per compute block and in total, precisions). Output depends only on the graph:
 * blocks and edges in graph order, fixed number formats, no addresses. */
#ifndef TASKIR_PRINT_H
#define TASKIR_PRINT_H

#include "taskir/graph.h"

#include <stdio.h>

/* PF_JSON_FULL is PF_JSON with every value of every block's data tensor; PF_JSON abridges
 * them (the first PRINT_DATA_FIRST values, the count and a checksum) and says so. */
typedef enum { PF_TEXT, PF_JSON, PF_DOT, PF_JSON_FULL } PrintFormat;

/* Prints the whole graph. */
Status print_graph(const Graph *g, PrintFormat f, FILE *out, Diag *d);
/* Prints one block and the edges that touch it; a missing id is a logic error [dump.block]. */
Status print_block(const Graph *g, int32_t id, PrintFormat f, FILE *out, Diag *d);
/* Prints the summary (PF_TEXT or PF_JSON; PF_DOT is a usage error of the caller). */
Status print_summary(const Graph *g, PrintFormat f, FILE *out, Diag *d);

/* Prints what the loader and verifier found about file as JSON (taskir-dump --verify
 * --format json):
 *   {"file", "ok" (no finding), "blocks", "edges" (counts[0], counts[1]; null when counts is
 *    NULL: the file did not load), "findings": [{"rule", "block" (id or null), "edge" (id or
 *    null), "where" (or null), "message"}], "not_shown" (findings past the Diag's limit)}
 * in the order they were found. Runtime errors [oom, io.write] go to d. */
Status print_findings_json(const char *file, const Diag *findings, const uint32_t *counts,
                           FILE *out, Diag *d);

#endif
