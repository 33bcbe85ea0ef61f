/* print.c: the print.h entry points; they pick the block and dispatch on the format. The
 * formats themselves live in print_text.c, print_json.c, print_dot.c and print_summary.c. */
#include "taskir/print_internal.h"

Status print_graph(const Graph *g, PrintFormat f, FILE *out, Diag *d)
{
    switch (f) {
    case PF_TEXT:
        return print_text_graph(g, out, d);
    case PF_JSON:
    case PF_JSON_FULL:
        return print_json_graph(g, out, f == PF_JSON_FULL, d);
    case PF_DOT:
        return print_dot_graph(g, out, d);
    }
    return diag_add(d, ST_USAGE, "usage.format", NULL, "unknown output format %d", (int)f);
}

Status print_block(const Graph *g, int32_t id, PrintFormat f, FILE *out, Diag *d)
{
    const Block *b = graph_block(g, id);
    if (!b)
        return diag_add(d, ST_LOGIC, "dump.block", NULL, "no block has id %d", (int)id);
    switch (f) {
    case PF_TEXT:
        return print_text_block(g, b, out, d);
    case PF_JSON:
    case PF_JSON_FULL:
        return print_json_block(g, b, out, f == PF_JSON_FULL, d);
    case PF_DOT:
        return print_dot_block(g, b, out, d);
    }
    return diag_add(d, ST_USAGE, "usage.format", NULL, "unknown output format %d", (int)f);
}

Status print_summary(const Graph *g, PrintFormat f, FILE *out, Diag *d)
{
    switch (f) {
    case PF_TEXT:
        return print_summary_text(g, out, d);
    case PF_JSON:
    case PF_JSON_FULL:
        return print_summary_json(g, out, d);
    case PF_DOT:
        break;
    }
    return diag_add(d, ST_USAGE, "usage.format", NULL,
                    "the summary is printed as text or JSON, not DOT");
}
