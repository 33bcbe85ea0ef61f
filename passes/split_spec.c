/* split_spec.c: the explicit cuts of PassOptions.split_spec (split.h, docs/passes.md
 * "split"): "NAME:AXIS=N[,AXIS=N...][;NAME:...]", NAME a compute block's provenance name or
 * its id, AXIS one of y x f r, N the number of pieces. Several axes cut the pieces of the
 * previous axis again ("conv1/y0/f1"). */
#include "passes/split.h"
#include "taskir/diag_block.h"

#include <stdlib.h>
#include <string.h>

static Status bad(Diag *d, const char *item, const char *what)
{
    return diag_add(d, ST_LOGIC, "pass.split.spec", "split spec",
                    "'%s': %s (the form is NAME:AXIS=N[,AXIS=N...][;NAME:...], AXIS one of "
                    "y x f r)", item, what);
}

static Block *find_block(const Graph *g, const char *name)
{
    char *end;
    long id = strtol(name, &end, 10);
    if (*name && !*end && id >= INT32_MIN && id <= INT32_MAX)
        return graph_block(g, (int32_t)id);
    for (uint32_t i = 0; i < g->n_blocks; i++)
        if (g->blocks[i]->name && !strcmp(g->blocks[i]->name, name))
            return g->blocks[i];
    return NULL;
}

/* Cuts the blocks ids[0..n) along ax into parts pieces each; ids becomes their pieces. */
static Status cut_all(Graph *g, const Chip *c, SplitSlices *slices, int32_t **ids,
                      uint32_t *n, SplitAxis ax, uint32_t parts, const char *item, Diag *d)
{
    int32_t *out = malloc(((size_t)*n * parts + 1) * sizeof *out);
    int32_t *bounds = malloc(((size_t)parts + 1) * sizeof *bounds);
    if (!out || !bounds) {
        free(out), free(bounds);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    Status st = ST_OK;
    for (uint32_t i = 0; i < *n && st == ST_OK; i++) {
        Block *b = graph_block(g, (*ids)[i]);
        int32_t ext = split_extent(b, ax);
        if (!split_can(b, ax) || (int64_t)parts > ext) {
            st = diag_block(d, ST_LOGIC, "pass.split.spec", b,
                            "'%s': cannot be cut into %u pieces along %c (%s)", item, parts,
                            split_axis_names[ax],
                            split_can(b, ax) ? "fewer elements than pieces"
                                             : "its type or shape does not split so");
            break;
        }
        SplitBatch sb;
        st = split_begin(g, &sb, d);
        sb.slices = slices;
        sb.chip = c;
        if (st == ST_OK) {
            /* along r in whole packets of the map read, as fit mode cuts (split_unit_of) */
            split_cut_bounds(c, b, ax, parts,
                             ax == SPLIT_R ? split_unit_of(c, g, &sb.u, b, ax)
                                           : split_unit(c, blk_prec(b), ax), bounds);
            st = split_block(g, &sb, b, ax, bounds, parts, out + (size_t)i * parts, d);
            Status cs = split_commit(g, &sb, d);
            if (st == ST_OK)
                st = cs;
        }
    }
    free(bounds);
    free(*ids);
    *ids = out;
    *n *= parts;
    return st;
}

static Status apply_one(Graph *g, const Chip *c, SplitSlices *slices, char *item, Diag *d)
{
    char *colon = strchr(item, ':');
    if (!colon)
        return bad(d, item, "no ':' after the block name");
    *colon = 0;
    Block *b = find_block(g, item);
    *colon = ':';
    if (!b)
        return bad(d, item, "no block has this name or id");
    if (bt_info(b->type)->kind != BK_COMPUTE)
        return bad(d, item, "the block is not a compute block");
    int32_t *ids = malloc(sizeof *ids);
    if (!ids)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    ids[0] = b->id;
    uint32_t n = 1;
    Status st = ST_OK;
    for (char *p = colon + 1; st == ST_OK;) {
        const char *ax = strchr("yxfr", *p);
        char *end;
        long parts = *p && ax && p[1] == '=' ? strtol(p + 2, &end, 10) : 0;
        if (!*p || !ax || p[1] != '=' || end == p + 2 || (*end && *end != ','))
            st = bad(d, item, "each cut is AXIS=N");
        else if (parts < 2 || parts > (1 << 16) || (uint64_t)n * (uint64_t)parts > (1u << 20))
            st = bad(d, item, "N must be 2 .. 65536 (and all the cuts at most 2^20 pieces)");
        else
            st = cut_all(g, c, slices, &ids, &n, (SplitAxis)(ax - "yxfr"), (uint32_t)parts, item, d);
        if (st != ST_OK || !*end)
            break;
        p = end + 1;
    }
    free(ids);
    return st;
}

Status split_apply_spec(Graph *g, const Chip *c, const char *spec, SplitSlices *slices,
                        Diag *d)
{
    char *copy = strdup(spec);
    if (!copy)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    Status st = ST_OK;
    for (char *save = NULL, *item = strtok_r(copy, ";", &save); item && st == ST_OK;
         item = strtok_r(NULL, ";", &save))
        st = apply_one(g, c, slices, item, d);
    free(copy);
    return st;
}
