/* print_summary.c: what a graph costs, in a few lines (text) or one JSON object.
 *
 *   blocks     how many, and how many of each type (types in table order, used ones only)
 *   edges      how many, and how many carry at least one rearrangement
 *   weight bytes   the data tensors of storage blocks: every value counts ceil(bits / 8)
 *              bytes of the tensor's precision (its own, else its block's), so INT_8 and
 *              UINT_4 take 1 byte, INT_9 and INT_16 2, INT_28 and INT_32 4, TERNARY 1.
 *              Values are the values the tensor holds, whatever its dims say.
 *   macs       multiply-accumulates of one run of each compute block (blk_macs), in graph
 *              order, and their total; sums saturate at INT64_MAX
 *   precisions how many blocks have each (effective) precision, in table order
 *
 * JSON: {"blocks", "blocks_per_type": {"CC": 1, ...}, "edges", "rearranging_edges",
 *        "weight_bytes", "compute_blocks": [{"id", "type", "name", "macs"}], "total_macs",
 *        "precisions": {"INT_8": 5, ...}} */
#include "taskir/print_internal.h"

#include <json-c/json.h>
#include <string.h>

typedef struct Summary {
    uint32_t per_type[BT_COUNT];
    uint32_t per_prec[PR_COUNT];
    uint32_t rearranging;
    int64_t weight_bytes;
    int64_t total_macs;
} Summary;

static int64_t add_sat(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b; /* both are >= 0 */
}

static int64_t mul_sat(int64_t a, int64_t b)
{
    return b && a > INT64_MAX / b ? INT64_MAX : a * b; /* both are >= 0 */
}

static void summarize(const Graph *g, Summary *s)
{
    memset(s, 0, sizeof *s);
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        const Block *b = g->blocks[i];
        const BlockTypeInfo *ti = bt_info(b->type);
        s->per_type[b->type]++;
        s->per_prec[blk_prec(b)]++;
        if (ti->kind == BK_STORAGE && b->data) {
            const Tensor *t = b->data;
            int64_t bytes = (pr_info(print_data_prec(b, t))->bits + 7) / 8;
            int64_t n = (int64_t)t->n_i32 + t->n_u32 + t->n_f32;
            s->weight_bytes = add_sat(s->weight_bytes, mul_sat(n, bytes));
        }
        if (ti->kind == BK_COMPUTE)
            s->total_macs = add_sat(s->total_macs, blk_macs(b));
    }
    for (uint32_t i = 0; i < g->n_edges; i++)
        if (g->edges[i]->n_re)
            s->rearranging++;
}

Status print_summary_text(const Graph *g, FILE *out, Diag *d)
{
    Summary s;
    summarize(g, &s);
    fprintf(out, "blocks %u\n", (unsigned)g->n_blocks);
    for (int t = 0; t < BT_COUNT; t++)
        if (s.per_type[t])
            fprintf(out, "  %s %u\n", bt_info(t)->name, (unsigned)s.per_type[t]);
    fprintf(out, "edges %u (%u rearranging)\n", (unsigned)g->n_edges, (unsigned)s.rearranging);
    fprintf(out, "weight bytes %lld (storage data, ceil(bits/8) bytes a value)\n",
            (long long)s.weight_bytes);
    fputs("macs\n", out);
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        const Block *b = g->blocks[i];
        if (bt_info(b->type)->kind != BK_COMPUTE)
            continue;
        fprintf(out, "  %d %s", (int)b->id, bt_info(b->type)->name);
        if (b->name) {
            fputc(' ', out);
            print_quoted(out, b->name);
        }
        fprintf(out, " %lld\n", (long long)blk_macs(b));
    }
    fprintf(out, "total macs %lld\n", (long long)s.total_macs);
    fputs("precisions\n", out);
    for (int p = 0; p < PR_COUNT; p++)
        if (s.per_prec[p])
            fprintf(out, "  %s %u\n", pr_info(p)->name, (unsigned)s.per_prec[p]);
    return print_check_stream(out, d);
}

static void json_field(FILE *out, const char *key, int64_t v)
{
    fprintf(out, "  \"%s\": %lld,\n", key, (long long)v);
}

/* Written by hand around json-c objects so that the compute block list streams (one object
 * at a time in memory); the layout matches json-c's pretty printing. */
Status print_summary_json(const Graph *g, FILE *out, Diag *d)
{
    Summary s;
    summarize(g, &s);
    PrintJson J = {false};
    fputs("{\n", out);
    json_field(out, "blocks", g->n_blocks);
    json_object *pt = pj_obj(&J);
    for (int t = 0; t < BT_COUNT; t++)
        if (s.per_type[t])
            pj_set(&J, pt, bt_info(t)->name, pj_int(&J, s.per_type[t]));
    fputs("  \"blocks_per_type\": ", out);
    pj_emit(&J, pt, out, 2);
    fputs(",\n", out);
    json_field(out, "edges", g->n_edges);
    json_field(out, "rearranging_edges", s.rearranging);
    json_field(out, "weight_bytes", s.weight_bytes);
    fputs("  \"compute_blocks\": [", out);
    bool first = true;
    for (uint32_t i = 0; i < g->n_blocks && !J.oom; i++) {
        const Block *b = g->blocks[i];
        if (bt_info(b->type)->kind != BK_COMPUTE)
            continue;
        json_object *o = pj_obj(&J);
        pj_set(&J, o, "id", pj_int(&J, b->id));
        pj_set(&J, o, "type", pj_str(&J, bt_info(b->type)->name));
        pj_set_str(&J, o, "name", b->name);
        pj_set(&J, o, "macs", pj_int(&J, blk_macs(b)));
        fputs(first ? "\n    " : ",\n    ", out);
        first = false;
        pj_emit(&J, o, out, 4);
    }
    fputs(first ? "],\n" : "\n  ],\n", out);
    json_field(out, "total_macs", s.total_macs);
    json_object *pp = pj_obj(&J);
    for (int p = 0; p < PR_COUNT; p++)
        if (s.per_prec[p])
            pj_set(&J, pp, pr_info(p)->name, pj_int(&J, s.per_prec[p]));
    fputs("  \"precisions\": ", out);
    pj_emit(&J, pp, out, 2);
    fputs("\n}\n", out);
    if (J.oom)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory building the JSON output");
    return print_check_stream(out, d);
}
