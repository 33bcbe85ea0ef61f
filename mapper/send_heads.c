/* send_heads.c: the router headers a core's sends of one phase take (docs/mapper.md,
 * "Transfers", "Headers of column slices"; docs/backend.md, "Sends spilled into later
 * phases").
 *
 * A P09 holds 128 headers, a header a run of words that follow each other in the sender's
 * memory, and a disabled header over each gap between two runs. A column slice of a
 * writer's map (a layer cut along x) is a run a row: a writer whose rows go in slices of 2
 * pixels to 9 cores sends 9 runs a row (test_diff_ops/cvm_precision_case_1__p_24_: 53 rows,
 * 477 headers in one phase). The code generator spills the runs one table does not hold
 * into the phases after, only while no reader needs them; the schedule (schedule.c,
 * plan_parts) therefore sends a transfer whose runs would overfill its sender's table of a
 * phase in a later phase of the writer's stage, where the table has room, and its reader
 * runs after it. It does so only for a writer whose column slices take more runs in all
 * than three tables hold (map_heads_ruled): the spill takes fewer (test_diff_ops/
 * broadcast_div_case_1_variant_1-4's 318 on core (12,9), laid out by emit_bandslice.c);
 * a writer of many transfers of one run each is left alone too, as the code generator
 * sends a run to several cores under one header (a relaying chain) where the count would
 * take a header for each (cvm_precision_case_1__p_24_'s CCMPB op/abs/x0: 462 transfers of
 * one row each into nine copies, pushed apart phase by phase so that their relaying chains
 * no longer fit), and every other Mapping stays as it was.
 */
#include "mapper/send_heads.h"

#include "taskir/lanes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int64_t map_xfer_runs(const MapPlan *p, const MClash *c, uint32_t xi)
{
    const MXfer *x = &p->xfers[xi];
    const Block *w = p->g->blocks[p->tasks[x->src_task].pos];
    const MBox *b = &c->box[xi];
    int64_t wx = w->shape.d[D_X] > 0 ? w->shape.d[D_X] : 1;
    int64_t wf = w->shape.d[D_F] > 0 ? w->shape.d[D_F] : 1;
    int64_t rows = b->hi[D_Y] - b->lo[D_Y];
    bool slice = b->lo[D_X] > 0 || b->hi[D_X] < wx;
    bool whole_px = b->lo[D_F] <= 0 && b->hi[D_F] >= wf;
    return rows > 1 && slice && whole_px ? rows : 1;
}

int64_t map_writer_runs(const MapPlan *p, const MClash *c, uint32_t t)
{
    int64_t n = 0;
    for (uint32_t i = c->start[t]; i < c->start[t + 1]; i++) {
        int64_t r = map_xfer_runs(p, c, c->list[i]);
        n += r > 1 ? r : 0;
    }
    return n;
}

bool map_heads_ruled(const MapPlan *p, const MClash *c, uint32_t t)
{
    return map_writer_runs(p, c, t) > 3 * (LANES_HEADS - LANES_CUT_HEADS);
}

int64_t map_part_heads(int64_t runs, int64_t take, int64_t total)
{
    if (runs <= 1)
        return 1;
    if (total <= 0 || take >= total || take > INT64_MAX / runs)
        return 2 * runs; /* all of them (no more) */
    return 2 * ((runs * take + total - 1) / total + 1);
}

bool map_heads_full(const MSendHeads *h, uint32_t v, uint32_t l, int64_t heads)
{
    if (v >= h->cap_v || l >= h->M)
        return false;
    int64_t had = h->n[(size_t)v * h->M + l];
    return had > 0 && had + heads > LANES_HEADS - LANES_CUT_HEADS;
}

bool map_heads_add(MSendHeads *h, uint32_t v, uint32_t l, int64_t heads)
{
    if (l >= h->M || v == UINT32_MAX)
        return true;
    if (v >= h->cap_v) {
        uint32_t cap = h->cap_v ? h->cap_v : 64;
        while (cap <= v) {
            if (cap > UINT32_MAX / 2)
                return false;
            cap *= 2;
        }
        if ((size_t)cap > SIZE_MAX / sizeof *h->n / h->M)
            return false;
        int32_t *n = realloc(h->n, (size_t)cap * h->M * sizeof *n);
        if (!n)
            return false;
        memset(n + (size_t)h->cap_v * h->M, 0, (size_t)(cap - h->cap_v) * h->M * sizeof *n);
        h->n = n;
        h->cap_v = cap;
    }
    int32_t *at = &h->n[(size_t)v * h->M + l];
    *at = heads > INT32_MAX - *at ? INT32_MAX : *at + (int32_t)heads;
    return true;
}

void map_heads_finish(MSendHeads *h)
{
    free(h->n);
    *h = (MSendHeads){0};
}
