/* sim.c: planning and executing a simulation run (see sim.h, docs/semantics.md).
 *
 * Planning (sim_create) gives every cluster an int32 buffer in C order of its dims:
 *   - a storage block has one buffer, its content: the input cluster and the output cluster
 *     are two views of it (both are C-order enumerations of the same layout);
 *   - a compute block has one buffer per input cluster and its result (the output cluster);
 *   - INPUT owns the sample's values, OUTPUT reads its input cluster.
 * Each edge becomes a copy into the destination cluster: the source interface box, read in C
 * order, rearranged by the edge's steps, written in C order into the destination box. A
 * cluster fed by exactly one plain copy of a whole cluster into the whole cluster does not
 * get a buffer: it aliases the source buffer (the copy would be a memcpy of equal bytes).
 * Parts of a cluster no interface covers keep their initial value: the storage block's data
 * tensor, else zero. Blocks run in a topological order of the edges; storage blocks with a
 * data tensor and no inputs are filled once.
 */
#include "sim_internal.h"
#include "sim_share.h"
#include "taskir/bigmem.h"
#include "taskir/diag_block.h"
#include "taskir/parallel.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SIM_MAX_STEPS_PER_EDGE 64u
/* A region this large (elements) is a fresh mapping whose pages are put in place while
 * planning (on the run's threads), a 2 MiB page after the other from its first byte, rather
 * than by the first kernel to write each buffer: the system clears each 2 MiB page when it
 * first comes in, and inside the kernels that cost more and swung more (resnet50x10 on one
 * thread, four runs each in turn: plan + step 468 to 1210 ms before, 509 to 552 ms after;
 * resnet50: about 1 ms more). */
#define SIM_TOUCH_ELEMS ((int64_t)1 << 20)

/* ---- small helpers ---- */

static int64_t mul_sat(int64_t a, int64_t b)
{
    if (a <= 0 || b <= 0)
        return 0;
    return a > INT64_MAX / b ? INT64_MAX : a * b;
}

static int64_t add_sat(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static void *run_alloc(SimRun *run, int64_t n, size_t size)
{
    if (run->n_owned == run->cap_owned) {
        uint32_t cap = run->cap_owned ? run->cap_owned * 2 : 64;
        void **p = realloc(run->owned, cap * sizeof *p);
        if (!p)
            return NULL;
        run->owned = p;
        run->cap_owned = cap;
    }
    size_t count = n > 0 ? (size_t)n : 1;
    void *p = size && count > SIZE_MAX / size ? NULL : tir_big_calloc(count * size);
    if (p)
        run->owned[run->n_owned++] = p;
    return p;
}

/* Elements of a buffer in the run's region: n rounded up to whole 64-byte lines (every buffer
 * starts on a line). */
static int64_t region_elems(int64_t n)
{
    return n > INT64_MAX - 15 ? INT64_MAX : (n + 15) / 16 * 16;
}

/* The buffers of the run's region while planning: size_buffers lists them (what each is,
 * its size and life), sim_share_place places them, plan_buffers and sim_create take them in
 * the same order (buf_alloc). */
enum { BUF_IN, BUF_RESULT, BUF_STATE, BUF_PACK, BUF_SCRATCH };

typedef struct SimRegionPlan {
    SimLife *life;
    uint32_t *tag;              /* block position * 8 + BUF_* (+ cluster index for BUF_IN) */
    int64_t *off;
    bool *shared;
    uint32_t n, cap, next;
    bool broken;                /* a buffer was asked for out of the listed order */
    bool share;                 /* buffers may share memory (SimOptions.share_buffers) */
    uint32_t *last;             /* per block position: the last order index reading its
                                   result's buffer (SIM_SHARE_END: read after the step) */
    uint32_t *root;             /* per block position: the block whose buffer its result is */
} SimRegionPlan;

static void region_plan_free(SimRegionPlan *rp)
{
    if (!rp)
        return;
    free(rp->life);
    free(rp->tag);
    free(rp->off);
    free(rp->shared);
    free(rp->last);
    free(rp->root);
    free(rp);
}

/* Lists a buffer of the region; halves: a kernel's result, which the run's threads write in
 * parts of its rows (with two threads, about a half each: its split, sim_share.h), else one
 * the calling thread writes (the edge copies). false when memory runs out. */
static bool region_list(SimRegionPlan *rp, uint32_t tag, int64_t n, uint32_t first,
                        uint32_t last, bool halves)
{
    if (rp->n == rp->cap) {
        uint32_t cap = rp->cap ? rp->cap * 2 : 256;
        SimLife *l = realloc(rp->life, cap * sizeof *l);
        if (l)
            rp->life = l;
        uint32_t *t = realloc(rp->tag, cap * sizeof *t);
        if (t)
            rp->tag = t;
        if (!l || !t)
            return false;
        rp->cap = cap;
    }
    int64_t elems = region_elems(n > 0 ? n : 1);
    rp->life[rp->n] = (SimLife){elems, first, last, halves ? elems / 32 * 16 : elems};
    rp->tag[rp->n++] = tag;
    return true;
}

/* n zeroed elements of 4 bytes for buffer tag: its place in the run's region (*shared: whether
 * it shares memory with other buffers), or when the region does not list it there, a buffer
 * of its own. */
static void *buf_alloc(SimRun *run, int64_t n, uint32_t tag, bool *shared)
{
    SimRegionPlan *rp = run->rp;
    if (shared)
        *shared = false;
    if (run->region && rp && rp->off && !rp->broken && rp->next < rp->n &&
        rp->tag[rp->next] == tag &&
        rp->life[rp->next].elems == region_elems(n > 0 ? n : 1)) {
        uint32_t k = rp->next++;
        if (shared)
            *shared = rp->shared[k];
        return run->region + (size_t)rp->off[k] * 4;
    }
    if (rp)
        rp->broken = true; /* what follows cannot trust the list either */
    return run_alloc(run, n, 4);
}

static bool is_kind(const Block *b, BlockKind k)
{
    return bt_info(b->type) && bt_info(b->type)->kind == k;
}

/* The non-zero raw dims y x f r of an INPUT / OUTPUT block. */
static uint32_t io_shape(const Block *b, int64_t shape[NPY_MAX_DIMS])
{
    static const int dims[] = {D_Y, D_X, D_F, D_R};
    uint32_t n = 0;
    for (int i = 0; i < 4; i++)
        if (b->shape.d[dims[i]] > 0)
            shape[n++] = b->shape.d[dims[i]];
    return n;
}

/* The natural shape of a cluster layout: its dims that the block's shape gives, or that are
 * larger than 1. */
static uint32_t lay_shape(const Block *b, const ClusterSpec *spec, const int32_t lay[TIR_CDIMS],
                          int64_t shape[NPY_MAX_DIMS])
{
    uint32_t n = 0;
    for (int i = 0; i < TIR_CDIMS; i++) {
        if (lay[i] <= 0)
            continue;
        int bd = spec ? spec->dim[i] : D_NO;
        if (lay[i] > 1 || bd < 0 || b->shape.d[bd] > 0)
            shape[n++] = lay[i];
    }
    return n;
}

static int64_t vol_of(const int64_t *shape, uint32_t n)
{
    int64_t v = 1;
    for (uint32_t i = 0; i < n; i++)
        v = mul_sat(v, shape[i]);
    return v;
}

/* ---- planning ---- */

/* Sets up the clusters of one block and the size and shape of its result. */
static Status plan_block(SimRun *run, SimBlock *sb, Diag *d)
{
    const Block *b = sb->b;
    const BlockTypeInfo *ti = bt_info(b->type);
    if (!ti)
        return diag_block(d, ST_LOGIC, "sim.type", b, "unknown block type %d", (int)b->type);
    if (ti->kind == BK_NULL) {
        if (b->n_in || b->n_out)
            return diag_block(d, ST_LOGIC, "sim.type", b,
                              "a TASK_NULL block cannot take part in a simulation");
        return ST_OK;
    }
    sb->n_in = b->n_in;
    sb->n_out = b->n_out;
    sb->bias = -1;
    if (b->n_in && !(sb->in = run_alloc(run, b->n_in, sizeof *sb->in)))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory planning the run");
    if (b->n_out && !(sb->out = run_alloc(run, b->n_out, sizeof *sb->out)))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory planning the run");

    /* Every cluster must be one the type has, with the volume of its layout. */
    for (uint32_t pass = 0; pass < 2; pass++) {
        bool input = pass == 0;
        uint32_t n = input ? b->n_in : b->n_out;
        for (uint32_t i = 0; i < n; i++) {
            SimCluster *c = input ? &sb->in[i] : &sb->out[i];
            const ClusterSpec *spec = input ? blk_in_spec(b, i) : blk_out_spec(b, i);
            if (!spec)
                return diag_block(d, ST_LOGIC, "sim.cluster", b,
                                  "a %s block has no %s cluster %u", ti->name,
                                  input ? "input" : "output", i);
            if (!blk_cluster_dims(b, input, i, c->dims) || !blk_spec_dims(b, spec, c->lay))
                return diag_block(d, ST_LOGIC, "sim.cluster", b, "bad cluster %u", i);
            int64_t v = tir_volume(c->dims, TIR_CDIMS), lv = tir_volume(c->lay, TIR_CDIMS);
            bool neg = false;
            for (int k = 0; k < TIR_CDIMS; k++)
                neg |= c->dims[k] < 0 || c->lay[k] < 0;
            if (neg || v < 0 || lv < 0 || v > SIM_MAX_BUFFER_ELEMS)
                return diag_block(d, ST_LOGIC, "limit.sim", b,
                                  "%s cluster %u has a negative dim or more than %" PRId64
                                  " elements", input ? "input" : "output", i,
                                  (int64_t)SIM_MAX_BUFFER_ELEMS);
            if (v != lv)
                return diag_block(d, ST_LOGIC, "sim.cluster", b,
                                  "%s cluster %u ('%s') holds %" PRId64 " elements, the block's "
                                  "shape gives %" PRId64, input ? "input" : "output", i,
                                  spec->role, v, lv);
            c->vol = v;
        }
    }

    /* The result: its size and natural shape. */
    if (ti->kind == BK_IO) {
        sb->rndim = io_shape(b, sb->rshape);
        sb->result_vol = vol_of(sb->rshape, sb->rndim);
        bool input = b->type == BT_INPUT;
        if ((input ? b->n_out : b->n_in) != 1 || (input ? b->n_in : b->n_out) != 0)
            return diag_block(d, ST_LOGIC, "sim.io", b, "an %s block needs exactly one %s "
                              "cluster", ti->name, input ? "output" : "input");
        const SimCluster *c = input ? &sb->out[0] : &sb->in[0];
        if (c->vol != sb->result_vol)
            return diag_block(d, ST_LOGIC, "sim.io", b, "its cluster holds %" PRId64
                              " elements, its shape %" PRId64, c->vol, sb->result_vol);
        return ST_OK;
    }
    const ClusterSpec *ospec = blk_out_spec(b, 0);
    int32_t lay[TIR_CDIMS];
    if (!blk_spec_dims(b, ospec, lay))
        return diag_block(d, ST_LOGIC, "sim.cluster", b, "the type has no output layout");
    sb->rndim = lay_shape(b, ospec, lay, sb->rshape);
    sb->result_vol = tir_volume(lay, TIR_CDIMS);
    if (sb->result_vol < 0 || sb->result_vol > SIM_MAX_BUFFER_ELEMS)
        return diag_block(d, ST_LOGIC, "limit.sim", b, "the block holds more than %" PRId64
                          " elements", (int64_t)SIM_MAX_BUFFER_ELEMS);
    if (b->n_out > 1)
        return diag_block(d, ST_LOGIC, "sim.cluster", b, "a %s block has one output cluster, "
                          "not %u", ti->name, b->n_out);
    if (ti->kind == BK_STORAGE) {
        if (b->n_in > 1)
            return diag_block(d, ST_LOGIC, "sim.cluster", b, "a storage block has at most "
                              "one input cluster, not %u", b->n_in);
        return ST_OK;
    }
    /* Compute: the inputs the type needs, then the bias cluster. */
    sb->n_var = blk_n_variadic(b);
    bool has_bias = blk_has_bias_cluster(b);
    uint32_t want = sb->n_var + (uint32_t)ti->n_ins - 1 + (has_bias ? 1 : 0);
    if (sb->n_var < 1 || (ti->nvar > 1 && sb->n_var > (uint32_t)ti->nvar) || b->n_in != want)
        return diag_block(d, ST_LOGIC, "sim.cluster", b, "has %u input clusters, which do not "
                          "match the %s type%s", b->n_in, ti->name,
                          has_bias ? " with a bias cluster" : "");
    if (has_bias)
        sb->bias = (int)b->n_in - 1;
    return ST_OK;
}

/* Builds the copy of edge e into its destination cluster (slot), decoding its steps. */
static Status plan_copy(SimRun *run, const Edge *e, SimCopy *cp, const EdgeEnds *en, Diag *d)
{
    const SimBlock *sbs = &run->blocks[graph_block_pos(run->g, e->src)];
    cp->e = e;
    cp->src = &sbs->out[en->src_cluster];
    memcpy(cp->src_pos, en->src_pos, sizeof cp->src_pos);
    memcpy(cp->src_box, en->src_box, sizeof cp->src_box);
    memcpy(cp->dst_pos, en->dst_pos, sizeof cp->dst_pos);
    memcpy(cp->dst_box, en->dst_box, sizeof cp->dst_box);
    cp->src_whole = cp->dst_whole = true;
    for (int i = 0; i < TIR_CDIMS; i++) {
        cp->src_whole &= en->src_box[i] == en->src_cdims[i];
        cp->dst_whole &= en->dst_box[i] == en->dst_cdims[i];
    }
    RaShape cur, dst;
    ra_shape_of_box(en->src_box, &cur);
    ra_shape_of_box(en->dst_box, &dst);
    int64_t maxv = ra_volume(&cur);
    if (e->n_re > SIM_MAX_STEPS_PER_EDGE)
        return diag_edge(d, ST_LOGIC, "limit.sim", e->id, "%u rearrangement steps, more than "
                         "%u", e->n_re, SIM_MAX_STEPS_PER_EDGE);
    if (e->n_re && !(cp->steps = run_alloc(run, e->n_re, sizeof *cp->steps)))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory planning the run");
    for (uint32_t i = 0; i < e->n_re; i++) {
        char why[300];
        RaStep st;
        if (!ra_decode(&e->re[i], &cur, &st, why, sizeof why))
            return rearrange_check(run->g, &run->uses, e, d) ? ST_LOGIC
                                                  : diag_edge(d, ST_LOGIC, "rearrange.param",
                                                              e->id, "%s", why);
        if (st.type == RT_IDENTITY)
            continue;
        cp->steps[cp->n_steps++] = st;
        cur = st.out;
        if (ra_volume(&cur) > maxv)
            maxv = ra_volume(&cur);
    }
    if (ra_volume(&cur) != ra_volume(&dst))
        return diag_edge(d, ST_LOGIC, "rearrange.volume", e->id,
                         "%s %" PRId64 " elements, the destination box holds %" PRId64,
                         e->n_re ? "the rearranged source has" : "the source box has",
                         ra_volume(&cur), ra_volume(&dst));
    if ((cp->n_steps || (!cp->src_whole && !cp->dst_whole)) && maxv > run->scratch_vol)
        run->scratch_vol = maxv;
    return ST_OK;
}

/* Kahn's algorithm over the edges; ties in graph order. */
static Status plan_order(SimRun *run, Diag *d)
{
    const Graph *g = run->g;
    uint32_t nb = g->n_blocks, ne = g->n_edges;
    uint32_t *indeg = calloc((size_t)nb + 1, sizeof *indeg);
    uint32_t *start = calloc((size_t)nb + 1, sizeof *start);
    uint32_t *adj = calloc((size_t)ne + 1, sizeof *adj);
    run->order = run_alloc(run, nb, sizeof *run->order);
    Status st = ST_OK;
    if (!indeg || !start || !adj || !run->order) {
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory ordering the blocks");
        goto out;
    }
    for (uint32_t i = 0; i < ne; i++) {
        long s = graph_block_pos(g, g->edges[i]->src);
        start[s]++;
        indeg[graph_block_pos(g, g->edges[i]->dst)]++;
    }
    for (uint32_t i = 0, acc = 0; i <= nb; i++) { /* start[i]: first slot of block i's edges */
        uint32_t c = i < nb ? start[i] : 0;
        start[i] = acc;
        acc += c;
    }
    for (uint32_t i = 0; i < ne; i++) {
        long s = graph_block_pos(g, g->edges[i]->src);
        adj[start[s]++] = (uint32_t)graph_block_pos(g, g->edges[i]->dst);
    }
    for (uint32_t i = nb; i > 0; i--) /* restore the starts */
        start[i] = start[i - 1];
    start[0] = 0;
    uint32_t head = 0, tail = 0;
    for (uint32_t i = 0; i < nb; i++)
        if (!indeg[i])
            run->order[tail++] = i;
    while (head < tail) {
        uint32_t v = run->order[head++];
        for (uint32_t j = start[v]; j < start[v + 1]; j++)
            if (--indeg[adj[j]] == 0)
                run->order[tail++] = adj[j];
    }
    run->n_order = tail;
    if (tail < nb) {
        for (uint32_t i = 0; i < nb; i++)
            if (indeg[i]) {
                st = diag_block(d, ST_LOGIC, "sim.cycle", g->blocks[i],
                                "lies on a cycle of edges; a TaskGraph must be acyclic");
                break;
            }
    }
out:
    free(indeg);
    free(start);
    free(adj);
    return st;
}

/* Converts the block's data tensor into its result buffer. */
static Status load_data(SimBlock *sb, Diag *d)
{
    const Tensor *t = sb->b->data;
    uint64_t n = t->n_i32 ? t->n_i32 : t->n_u32 ? t->n_u32 : t->n_f32;
    if ((int64_t)n != sb->result_vol)
        return diag_block(d, ST_LOGIC, "sim.data", sb->b, "the data tensor has %" PRIu64
                          " values, the block holds %" PRId64, n, sb->result_vol);
    for (uint64_t i = 0; i < n; i++) {
        if (t->n_i32) {
            sb->result[i] = tensor_i32_at(t, i);
        } else if (t->n_u32) {
            if (t->u32[i] > INT32_MAX)
                return diag_block(d, ST_LOGIC, "sim.data", sb->b, "data value %" PRIu32
                                  " at %" PRIu64 " does not fit int32", t->u32[i], i);
            sb->result[i] = (int32_t)t->u32[i];
        } else {
            float f = t->f32[i];
            if (!(f >= -2147483648.0f && f < 2147483648.0f) || (float)(int64_t)f != f)
                return diag_block(d, ST_LOGIC, "sim.data", sb->b, "data value %g at %" PRIu64
                                  " is not an int32 integer", (double)f, i);
            sb->result[i] = (int32_t)f;
        }
    }
    return ST_OK;
}

/* Is sb a storage block holding an int32 data tensor (wide or narrow) of its volume, that no
 * edge writes? */
static bool data_alone(const SimBlock *sb)
{
    const Tensor *t = sb->b->data;
    if (bt_info(sb->b->type)->kind != BK_STORAGE || !t || !t->n_i32 ||
        (int64_t)t->n_i32 != sb->result_vol)
        return false;
    for (uint32_t i = 0; i < sb->n_in; i++)
        if (sb->in[i].n_copies)
            return false;
    return true;
}

/* Is sb such a block with its tensor held wide (Tensor.i32)? Its result is then the tensor's
 * own values, not a copy: nothing in a run writes the buffer of a block without incoming
 * copies, and the graph stays unchanged while the run exists (but for the weights
 * SimOptions.weights_in_place lets the int8 path pack over: sim_kernels.c). */
static bool data_in_place(const SimBlock *sb)
{
    return data_alone(sb) && !sb->b->data->i8;
}

/* Is sb such a block with its tensor held narrow (Tensor.i8, LoadOptions.narrow)? Its result
 * is then the values widened into memory of the run's own, outside the region (whether a
 * block packs its weights over them instead, SimBlock.packed_over, is decided after the
 * region is listed), or none when packed_over. */
static bool data_narrow(const SimBlock *sb)
{
    return data_alone(sb) && sb->b->data->i8;
}

/* Can cluster c use its single copy's source buffer directly? */
static bool can_alias(const SimCluster *c)
{
    return c->n_copies == 1 && c->copies[0].n_steps == 0 && c->copies[0].src_whole &&
           c->copies[0].dst_whole && c->copies[0].src->vol == c->vol;
}

/* Decides which clusters of sb alias their source. */
static void plan_aliases(SimBlock *sb)
{
    for (uint32_t i = 0; i < sb->n_in; i++)
        sb->in[i].alias = can_alias(&sb->in[i]);
}

/* The lives of the results' buffers (SimRegionPlan's root and last): a storage block or an
 * OUTPUT whose input cluster aliases a result has that result's buffer, which lives until the
 * last block reading it (a copy from it, or a cluster aliasing it) has run, or after the step
 * when an OUTPUT has it. Without sharing every buffer lives after the step. */
static void plan_lives(SimRun *run, SimRegionPlan *rp, bool share)
{
    const Graph *g = run->g;
    rp->share = share;
    for (uint32_t i = 0; i < run->n_order; i++) {
        uint32_t pos = run->order[i];
        const SimBlock *sb = &run->blocks[pos];
        rp->root[pos] = pos;
        rp->last[pos] = share ? i : SIM_SHARE_END;
        BlockKind kind = bt_info(sb->b->type)->kind;
        if (kind == BK_NULL)
            continue;
        if ((kind == BK_STORAGE || sb->b->type == BT_OUTPUT) && sb->n_in && sb->in[0].alias)
            rp->root[pos] = rp->root[graph_block_pos(g, sb->in[0].copies[0].e->src)];
        for (uint32_t j = 0; j < sb->n_in; j++)
            for (uint32_t k = 0; k < sb->in[j].n_copies; k++) {
                uint32_t r = rp->root[graph_block_pos(g, sb->in[j].copies[k].e->src)];
                if (rp->last[r] < i)
                    rp->last[r] = i;
            }
        if (sb->b->type == BT_OUTPUT)
            rp->last[rp->root[pos]] = SIM_SHARE_END;
    }
}

/* Does one of c's copies write all of it? */
static bool covered(const SimCluster *c)
{
    for (uint32_t k = 0; k < c->n_copies; k++)
        if (c->copies[k].dst_whole)
            return true;
    return false;
}

/* Adds the elements of the buffers sb (at order index i) will own to *total (no allocation
 * yet) and lists those plan_buffers takes from the region (a data tensor used in place takes
 * none) with their lives: an input cluster of a compute block lives while the block runs, a
 * compute result or the content of a storage block that edges write from the block to its
 * last reader; INPUT data (set before the step), storage content that is data or zero, CLIF
 * state and what OUTPUT blocks hold live for the whole run. false when memory runs out. */
static bool size_buffers(SimRun *run, SimBlock *sb, uint32_t i, int64_t *total)
{
    SimRegionPlan *rp = run->rp;
    BlockKind kind = bt_info(sb->b->type)->kind;
    uint32_t pos = sb->pos, end = SIM_SHARE_END;
    bool ok = true;
    if (kind == BK_NULL)
        return true;
    for (uint32_t j = 0; j < sb->n_in; j++) {
        SimCluster *c = &sb->in[j];
        if (!c->alias && (kind == BK_COMPUTE || kind == BK_IO)) {
            *total = add_sat(*total, c->vol);
            uint32_t last = kind == BK_IO ? end : i; /* an OUTPUT's: read after the step */
            ok &= region_list(rp, pos * 8 + BUF_IN, c->vol, rp->share ? i : 0,
                              rp->share ? last : end, false);
        }
    }
    bool own = !(kind == BK_STORAGE && sb->n_in && sb->in[0].alias) && sb->b->type != BT_OUTPUT;
    if (own)
        *total = add_sat(*total, sb->result_vol);
    if (own && !data_in_place(sb) && !data_narrow(sb)) {
        bool lives = kind == BK_COMPUTE || (kind == BK_STORAGE && !sb->b->data && sb->n_in &&
                                            sb->in[0].n_copies);
        lives &= rp->last[pos] != end;
        ok &= region_list(rp, pos * 8 + BUF_RESULT, sb->result_vol, lives ? i : 0,
                          lives ? rp->last[pos] : end, kind == BK_COMPUTE);
    }
    if (sb->b->type == BT_CLIF) {
        *total = add_sat(*total, sb->result_vol);
        ok &= region_list(rp, pos * 8 + BUF_STATE, sb->result_vol, 0, end, false);
    }
    return ok;
}

/* Gives every cluster of sb its buffer, in topological order (sources first). */
static Status plan_buffers(SimRun *run, SimBlock *sb, Diag *d)
{
    const Block *b = sb->b;
    BlockKind kind = bt_info(b->type)->kind;
    if (kind == BK_NULL)
        return ST_OK;
    for (uint32_t i = 0; i < sb->n_in; i++) {
        SimCluster *c = &sb->in[i];
        if (c->alias)
            c->data = c->copies[0].src->data;
        else if (kind == BK_COMPUTE || kind == BK_IO) {
            bool shared;
            if (!(c->data = buf_alloc(run, c->vol, sb->pos * 8 + BUF_IN, &shared)))
                goto oom;
            c->zero = shared && !covered(c);
        }
    }
    if (kind == BK_STORAGE && sb->n_in && sb->in[0].alias) {
        sb->result = sb->in[0].data;
    } else if (b->type == BT_OUTPUT) {
        sb->result = sb->in[0].data;
    } else if (data_in_place(sb) || sb->packed_over) {
        sb->result = sb->packed_over ? NULL : b->data->i32;
        if (sb->n_in)
            sb->in[0].data = sb->result;
    } else if (data_narrow(sb)) {
        if (!(sb->result = run_alloc(run, sb->result_vol, 4)))
            goto oom;
        if (sb->n_in)
            sb->in[0].data = sb->result;
        Status st = load_data(sb, d);
        if (st)
            return st;
    } else {
        bool shared;
        if (!(sb->result = buf_alloc(run, sb->result_vol, sb->pos * 8 + BUF_RESULT, &shared)))
            goto oom;
        if (kind == BK_STORAGE && sb->n_in) {
            sb->in[0].data = sb->result;
            sb->in[0].zero = shared && !covered(&sb->in[0]);
        }
        if (kind == BK_STORAGE && b->data) {
            Status st = load_data(sb, d);
            if (st)
                return st;
        }
    }
    for (uint32_t i = 0; i < sb->n_out; i++)
        sb->out[i].data = sb->result;
    if (b->type == BT_CLIF &&
        !(sb->state = buf_alloc(run, sb->result_vol, sb->pos * 8 + BUF_STATE, NULL)))
        goto oom;
    return ST_OK;
oom:
    return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory allocating the run");
}

typedef struct SockRef {
    int32_t socket;
    uint32_t pos;
} SockRef;

static int sock_cmp(const void *a, const void *b)
{
    const SockRef *x = a, *y = b;
    if (x->socket != y->socket)
        return x->socket < y->socket ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Two INPUT (or two OUTPUT) blocks with one socket id would make the inputs ambiguous and the
 * output files collide. */
static Status check_sockets(SimRun *run, const uint32_t *list, uint32_t n, Diag *d)
{
    if (n < 2)
        return ST_OK;
    SockRef *r = malloc((size_t)n * sizeof *r);
    if (!r)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (uint32_t i = 0; i < n; i++)
        r[i] = (SockRef){run->g->blocks[list[i]]->socket_id, list[i]};
    qsort(r, n, sizeof *r, sock_cmp);
    Status st = ST_OK;
    for (uint32_t i = 1; i < n && !st; i++)
        if (r[i].socket == r[i - 1].socket)
            st = diag_block(d, ST_LOGIC, "sim.socket", run->g->blocks[r[i].pos],
                            "has socket id %d, like block %d", (int)r[i].socket,
                            (int)run->g->blocks[r[i - 1].pos]->id);
    free(r);
    return st;
}

Status sim_create(const Graph *g, const SimOptions *opt, SimRun **out, Diag *d)
{
    *out = NULL;
    SimRun *run = calloc(1, sizeof *run);
    if (!run)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory creating the run");
    run->g = g;
    if (opt)
        run->opt = *opt;
    if (run->opt.steps == 0)
        run->opt.steps = 1;
    run->pool = run->opt.pool; /* NULL: every kernel in this thread */
    if (!run->pool && (run->pool = tir_pool_create(run->opt.threads)))
        run->own_pool = true;
    Status st = ST_OK;
    uint32_t nb = g->n_blocks;
    run->blocks = run_alloc(run, nb, sizeof *run->blocks);
    run->inputs = run_alloc(run, nb, sizeof *run->inputs);
    run->outputs = run_alloc(run, nb, sizeof *run->outputs);
    if (!run->blocks || !run->inputs || !run->outputs || !graph_uses(g, &run->uses)) {
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory creating the run");
        goto fail;
    }
    for (uint32_t i = 0; i < nb; i++) {
        SimBlock *sb = &run->blocks[i];
        sb->b = g->blocks[i];
        sb->pos = i;
        if (graph_block_pos(g, sb->b->id) != (long)i) {
            st = diag_block(d, ST_LOGIC, "sim.id", sb->b, "another block has the same id");
            goto fail;
        }
        if ((st = plan_block(run, sb, d)))
            goto fail;
        if (sb->b->type == BT_INPUT)
            run->inputs[run->n_inputs++] = i;
        if (sb->b->type == BT_OUTPUT)
            run->outputs[run->n_outputs++] = i;
    }
    if ((st = check_sockets(run, run->inputs, run->n_inputs, d)) ||
        (st = check_sockets(run, run->outputs, run->n_outputs, d)))
        goto fail;

    /* Edges: resolve the ends, count the copies of each cluster, then build them. */
    int64_t work = 0;
    for (uint32_t pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < g->n_edges; i++) {
            const Edge *e = g->edges[i];
            EdgeEnds en;
            char why[300];
            if (graph_edge_pos(g, e->id) != (long)i) {
                st = diag_edge(d, ST_LOGIC, "sim.id", e->id, "another edge has the same id");
                goto fail;
            }
            if (!edge_ends(g, &run->uses, e, &en, why, sizeof why)) {
                st = diag_edge(d, ST_LOGIC, "sim.edge", e->id, "%s", why);
                goto fail;
            }
            SimBlock *dst = &run->blocks[graph_block_pos(g, e->dst)];
            SimBlock *src = &run->blocks[graph_block_pos(g, e->src)];
            if (!src->out || !dst->in) { /* TASK_NULL ends have no clusters planned */
                st = diag_edge(d, ST_LOGIC, "sim.edge", e->id, "joins a block that cannot "
                               "take part in a simulation");
                goto fail;
            }
            SimCluster *c = &dst->in[en.dst_cluster];
            if (pass == 0) {
                c->n_copies++;
                continue;
            }
            SimCopy *cp = &c->copies[c->n_copies++];
            if ((st = plan_copy(run, e, cp, &en, d)))
                goto fail;
            work = add_sat(work, mul_sat(c->vol, 1 + (int64_t)cp->n_steps));
        }
        if (pass == 0) {
            for (uint32_t i = 0; i < nb; i++)
                for (uint32_t j = 0; j < run->blocks[i].n_in; j++) {
                    SimCluster *c = &run->blocks[i].in[j];
                    if (c->n_copies &&
                        !(c->copies = run_alloc(run, c->n_copies, sizeof *c->copies))) {
                        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
                        goto fail;
                    }
                    c->n_copies = 0;
                }
        }
    }
    if ((st = plan_order(run, d)))
        goto fail;
    /* Sizes and work first, so that the caps are checked before any large allocation. */
    SimRegionPlan *rp = run->rp = calloc(1, sizeof *run->rp);
    if (!rp || !(rp->last = calloc((size_t)nb + 1, sizeof *rp->last)) ||
        !(rp->root = calloc((size_t)nb + 1, sizeof *rp->root))) {
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory planning the run");
        goto fail;
    }
    for (uint32_t i = 0; i < run->n_order; i++)
        plan_aliases(&run->blocks[run->order[i]]);
    plan_lives(run, rp, run->opt.share_buffers && !run->opt.keep_all);
    int64_t total = 0, kscratch = 0, kwt = 0;
    bool listed = true;
    for (uint32_t i = 0; i < run->n_order; i++) {
        SimBlock *sb = &run->blocks[run->order[i]];
        if (is_kind(sb->b, BK_COMPUTE) && (st = sim_kernel_check(sb, d)))
            goto fail;
        listed &= size_buffers(run, sb, i, &total);
        if (is_kind(sb->b, BK_COMPUTE)) {
            work = add_sat(work, sim_kernel_work(sb));
            total = add_sat(total, sim_kernel_pack_words(sb));
        }
        int64_t ks = is_kind(sb->b, BK_COMPUTE) ? sim_kernel_scratch(sb) : 0;
        if (ks > kscratch)
            kscratch = ks;
        int64_t kt = is_kind(sb->b, BK_COMPUTE) ? sim_kernel_wt_words(sb) : 0;
        if (kt > kwt)
            kwt = kt;
    }
    if (work > SIM_MAX_STEP_WORK) {
        st = diag_add(d, ST_LOGIC, "limit.sim", NULL, "one time step needs about %" PRId64
                      " operations, more than the limit of %" PRId64, work,
                      (int64_t)SIM_MAX_STEP_WORK);
        goto fail;
    }
    total = add_sat(add_sat(add_sat(total, mul_sat(run->scratch_vol, 2)), kscratch), kwt);
    if (total > SIM_MAX_TOTAL_ELEMS) {
        st = diag_add(d, ST_LOGIC, "limit.sim", NULL, "the run would need %" PRId64
                      " elements of buffers, more than the limit of %" PRId64, total,
                      (int64_t)SIM_MAX_TOTAL_ELEMS);
        goto fail;
    }
    for (uint32_t i = 0; i < nb; i++) {
        run->blocks[i].data_result = data_in_place(&run->blocks[i]);
        run->blocks[i].data_narrow = data_narrow(&run->blocks[i]);
    }
    sim_kernel_plan_in_place(run);
    /* With threads, room for the int8 input on either side of the scratch's middle
     * (sim_kernels.c), within the cap: a run's limits do not depend on its threads. */
    int64_t more = add_sat(region_elems(kscratch), 16);
    if (run->pool && kscratch && add_sat(total, more) <= SIM_MAX_TOTAL_ELEMS) {
        run->wscratch_mid = region_elems(kscratch) * 4;
        kscratch = add_sat(kscratch, more);
    }
    /* One region for the buffers (total <= 2^30 elements, so its bytes fit a size_t), in
     * the order plan_buffers and the loops below take them; its pages are put in place now
     * (on all the threads) rather than by the first kernel to write each buffer. */
    for (uint32_t i = 0; i < run->n_order; i++) {
        const SimBlock *sb = &run->blocks[run->order[i]];
        int64_t n = is_kind(sb->b, BK_COMPUTE) ? sim_kernel_pack_words(sb) : 0;
        if (n > 0)
            listed &= region_list(rp, sb->pos * 8 + BUF_PACK, n, 0, SIM_SHARE_END, false);
    }
    for (int k = 0; k < 2 && run->scratch_vol; k++)
        listed &= region_list(rp, BUF_SCRATCH, run->scratch_vol, 0, SIM_SHARE_END, false);
    if (kscratch)
        listed &= region_list(rp, BUF_SCRATCH, kscratch, 0, SIM_SHARE_END, false);
    int64_t region = -1;
    if (listed && (rp->off = calloc((size_t)rp->n + 1, sizeof *rp->off)) &&
        (rp->shared = calloc((size_t)rp->n + 1, sizeof *rp->shared)))
        region = (run->pool ? sim_share_place_split : sim_share_place)(rp->life, rp->n, rp->off,
                                                                       rp->shared);
    if (region > 0 && (uint64_t)region <= SIZE_MAX / 4) {
        if (!(run->region = run_alloc(run, region, 4))) {
            st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory allocating the run");
            goto fail;
        }
        run->region_bytes = (size_t)region * 4;
        if (region >= SIM_TOUCH_ELEMS && run->pool) /* no thread started: the pool's */
            tir_pool_touch(run->pool, run->region, run->region_bytes);
        else if (region >= SIM_TOUCH_ELEMS)
            tir_parallel_touch(run->region, run->region_bytes, run->opt.threads);
    }
    for (uint32_t i = 0; i < run->n_order; i++)
        if ((st = plan_buffers(run, &run->blocks[run->order[i]], d)))
            goto fail;
    for (uint32_t i = 0; i < run->n_order; i++) {
        SimBlock *sb = &run->blocks[run->order[i]];
        int64_t n = is_kind(sb->b, BK_COMPUTE) ? sim_kernel_pack_words(sb) : 0;
        if (n > 0 && !(sb->pack.data = buf_alloc(run, n, sb->pos * 8 + BUF_PACK, NULL))) {
            st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory allocating the run");
            goto fail;
        }
        if (n > 0)
            sim_kernel_plan(run, sb);
    }
    if ((st = sim_kernel_prepack(run, d)))
        goto fail;
    if (run->scratch_vol &&
        (!(run->scratch[0] = buf_alloc(run, run->scratch_vol, BUF_SCRATCH, NULL)) ||
         !(run->scratch[1] = buf_alloc(run, run->scratch_vol, BUF_SCRATCH, NULL)))) {
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory allocating the run");
        goto fail;
    }
    run->wscratch_vol = kscratch;
    if ((kscratch && !(run->wscratch = buf_alloc(run, kscratch, BUF_SCRATCH, NULL))) ||
        (kwt && !(run->wtscratch = run_alloc(run, kwt, 4)))) {
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory allocating the run");
        goto fail;
    }
    graph_uses_finish(&run->uses);
    region_plan_free(run->rp);
    run->rp = NULL;
    sim_reset(run);
    *out = run;
    return ST_OK;
fail:
    sim_destroy(run);
    return st ? st : ST_RUNTIME;
}

void sim_destroy(SimRun *run)
{
    if (!run)
        return;
    for (uint32_t i = 0; run->blocks && i < run->g->n_blocks; i++)
        tir_big_free(run->blocks[i].pack.wide);
    for (uint32_t i = 0; i < run->n_owned; i++)
        tir_big_free(run->owned[i]);
    free(run->owned);
    region_plan_free(run->rp);
    if (run->own_pool)
        tir_pool_destroy(run->pool);
    graph_uses_finish(&run->uses);
    free(run);
}

/* ---- executing ---- */

/* Copies between a cluster buffer's box and a flat C-order array (to_flat: box -> flat).
 * Trailing dims the box covers whole are merged into one contiguous run. */
static void box_move(int32_t *cl, const int32_t cd[TIR_CDIMS], const int32_t pos[TIR_CDIMS],
                     const int32_t box[TIR_CDIMS], int32_t *flat, bool to_flat)
{
    int64_t ext[TIR_CDIMS], bx[TIR_CDIMS], ps[TIR_CDIMS], st[TIR_CDIMS];
    int k = 0;
    for (int i = 0; i < TIR_CDIMS; i++)
        if (cd[i] > 0) {
            ext[k] = cd[i];
            bx[k] = box[i];
            ps[k] = pos[i];
            k++;
        }
    if (k == 0) {
        if (to_flat)
            flat[0] = cl[0];
        else
            cl[0] = flat[0];
        return;
    }
    int64_t acc = 1;
    for (int i = k - 1; i >= 0; i--) {
        st[i] = acc;
        acc *= ext[i];
    }
    int m = k - 1;
    while (m > 0 && bx[m] == ext[m])
        m--;
    int64_t run = bx[m] * st[m];
    int64_t o[TIR_CDIMS] = {0};
    int64_t n = 1;
    for (int i = 0; i < m; i++)
        n *= bx[i];
    for (int64_t r = 0; r < n; r++) {
        int64_t off = ps[m] * st[m];
        for (int i = 0; i < m; i++)
            off += (ps[i] + o[i]) * st[i];
        if (to_flat)
            memcpy(flat + r * run, cl + off, (size_t)run * sizeof *cl);
        else
            memcpy(cl + off, flat + r * run, (size_t)run * sizeof *cl);
        for (int i = m - 1; i >= 0; i--) {
            if (++o[i] < bx[i])
                break;
            o[i] = 0;
        }
    }
}

static void do_copy(SimRun *run, SimCluster *c, const SimCopy *cp)
{
    const SimCluster *s = cp->src;
    if (!cp->n_steps) {
        if (cp->src_whole && cp->dst_whole)
            memcpy(c->data, s->data, (size_t)c->vol * sizeof *c->data);
        else if (cp->src_whole)
            box_move(c->data, c->dims, cp->dst_pos, cp->dst_box, s->data, false);
        else if (cp->dst_whole)
            box_move(s->data, s->dims, cp->src_pos, cp->src_box, c->data, true);
        else {
            box_move(s->data, s->dims, cp->src_pos, cp->src_box, run->scratch[0], true);
            box_move(c->data, c->dims, cp->dst_pos, cp->dst_box, run->scratch[0], false);
        }
        return;
    }
    const int32_t *cur = s->data;
    int next = 0;
    if (!cp->src_whole) {
        box_move(s->data, s->dims, cp->src_pos, cp->src_box, run->scratch[0], true);
        cur = run->scratch[0];
        next = 1;
    }
    for (uint32_t j = 0; j < cp->n_steps; j++) {
        int32_t *o = j + 1 == cp->n_steps && cp->dst_whole ? c->data : run->scratch[next];
        sim_rearrange_apply(&cp->steps[j], cur, o);
        cur = o;
        next ^= 1;
    }
    if (!cp->dst_whole)
        box_move(c->data, c->dims, cp->dst_pos, cp->dst_box, (int32_t *)cur, false);
}

/* One time step; reports block done0 + i + 1 of total after the i-th block to p. */
static Status step(SimRun *run, const TirProgress *p, uint64_t done0, uint64_t total, Diag *d)
{
    for (uint32_t i = 0; i < run->n_order; i++) {
        SimBlock *sb = &run->blocks[run->order[i]];
        for (uint32_t j = 0; j < sb->n_in; j++) {
            SimCluster *c = &sb->in[j];
            if (c->alias)
                continue;
            if (c->zero)
                memset(c->data, 0, (size_t)c->vol * sizeof *c->data);
            for (uint32_t k = 0; k < c->n_copies; k++)
                do_copy(run, c, &c->copies[k]);
        }
        SimKernelFn fn = run->chip ? sim_chip_kernel(sb->b->type) : NULL;
        fn = fn ? fn : sim_kernel(sb->b->type);
        if (fn) {
            Status st = fn(run, sb, d);
            if (st)
                return st;
        }
        tir_progress(p, "block", done0 + i + 1, total);
    }
    return ST_OK;
}

Status sim_step(SimRun *run, Diag *d)
{
    return step(run, NULL, 0, 0, d);
}

void sim_reset(SimRun *run)
{
    for (uint32_t i = 0; i < run->g->n_blocks; i++) {
        SimBlock *sb = &run->blocks[i];
        if (!sb->state)
            continue;
        int32_t v = blk_attr(sb->b, AT_VINIT);
        for (int64_t j = 0; j < sb->result_vol; j++)
            sb->state[j] = v;
    }
}

/* ---- inputs and outputs ---- */

uint32_t sim_n_inputs(const SimRun *run)
{
    return run->n_inputs;
}

uint32_t sim_n_outputs(const SimRun *run)
{
    return run->n_outputs;
}

const Block *sim_input_block(const SimRun *run, uint32_t k)
{
    return k < run->n_inputs ? run->g->blocks[run->inputs[k]] : NULL;
}

const Block *sim_output_block(const SimRun *run, uint32_t k)
{
    return k < run->n_outputs ? run->g->blocks[run->outputs[k]] : NULL;
}

uint32_t sim_input_shape(const SimRun *run, uint32_t k, int64_t shape[NPY_MAX_DIMS])
{
    const SimBlock *sb = &run->blocks[run->inputs[k]];
    memcpy(shape, sb->rshape, sizeof sb->rshape);
    return sb->rndim;
}

uint32_t sim_output_shape(const SimRun *run, uint32_t k, int64_t shape[NPY_MAX_DIMS])
{
    const SimBlock *sb = &run->blocks[run->outputs[k]];
    memcpy(shape, sb->rshape, sizeof sb->rshape);
    return sb->rndim;
}

Status sim_find_input(const SimRun *run, const char *name, uint32_t *k, Diag *d)
{
    char *end;
    long sock = strtol(name, &end, 10);
    bool numeric = *name && *end == 0;
    if (numeric)
        for (uint32_t i = 0; i < run->n_inputs; i++)
            if (sim_input_block(run, i)->socket_id == sock) {
                *k = i;
                return ST_OK;
            }
    int found = -1;
    for (uint32_t i = 0; i < run->n_inputs; i++) {
        const Block *b = sim_input_block(run, i);
        if (b->name && strcmp(b->name, name) == 0) {
            if (found >= 0)
                return diag_block(d, ST_LOGIC, "sim.input.name", b, "has the name '%s' like "
                                  "block %d; name the input by its socket id", name,
                                  (int)sim_input_block(run, (uint32_t)found)->id);
            found = (int)i;
        }
    }
    if (found < 0) {
        char list[400] = "";
        size_t n = 0;
        for (uint32_t i = 0; i < run->n_inputs && n < sizeof list; i++) {
            const Block *b = sim_input_block(run, i);
            int w = snprintf(list + n, sizeof list - n, "%s%d%s%s%s", i ? ", " : "",
                             (int)b->socket_id, b->name ? " '" : "", b->name ? b->name : "",
                             b->name ? "'" : "");
            if (w > 0)
                n += (size_t)w;
        }
        return diag_add(d, ST_LOGIC, "sim.input.unknown", NULL, "no INPUT block has socket "
                        "id or name '%s' (inputs: %s)", name, run->n_inputs ? list : "none");
    }
    *k = (uint32_t)found;
    return ST_OK;
}

static Status check_range(const Block *b, const int32_t *v, int64_t n, Diag *d)
{
    int64_t lo, hi;
    blk_input_range(b, &lo, &hi);
    if (lo <= INT32_MIN && hi >= INT32_MAX)
        return ST_OK;
    for (int64_t i = 0; i < n; i++)
        if (v[i] < lo || v[i] > hi)
            return diag_block(d, ST_LOGIC, "sim.input.range", b, "value %d at flat index %"
                              PRId64 " is outside %s [%" PRId64 ", %" PRId64 "]", (int)v[i], i,
                              b->has_model_range ? "the model's range" : pr_info(b->prec)->name,
                              lo, hi);
    return ST_OK;
}

Status sim_set_input(SimRun *run, uint32_t k, const int32_t *values, int64_t count, Diag *d)
{
    SimBlock *sb = &run->blocks[run->inputs[k]];
    if (count != sb->result_vol)
        return diag_block(d, ST_LOGIC, "sim.input.shape", sb->b, "got %" PRId64 " values, "
                          "the input holds %" PRId64, count, sb->result_vol);
    Status st = check_range(sb->b, values, count, d);
    if (st)
        return st;
    memcpy(sb->result, values, (size_t)count * sizeof *values);
    return ST_OK;
}

const int32_t *sim_output(const SimRun *run, uint32_t k, int64_t *count)
{
    const SimBlock *sb = &run->blocks[run->outputs[k]];
    *count = sb->result_vol;
    return sb->result;
}

const int32_t *sim_block_result(const SimRun *run, uint32_t pos, int64_t shape[NPY_MAX_DIMS],
                                uint32_t *ndim, int64_t *count)
{
    const SimBlock *sb = &run->blocks[pos];
    memcpy(shape, sb->rshape, sizeof sb->rshape);
    *ndim = sb->rndim;
    *count = sb->result ? sb->result_vol : 0;
    return sb->result;
}

/* ---- whole arrays ---- */

void sim_result_free(SimResult *res)
{
    if (!res)
        return;
    for (uint32_t i = 0; i < res->n_outputs; i++)
        free(res->outputs[i].data);
    for (uint32_t i = 0; i < res->n_blocks; i++)
        free(res->blocks[i].data);
    free(res->outputs);
    free(res->blocks);
    memset(res, 0, sizeof *res);
}

static void shape_text(const int64_t *s, uint32_t n, char *buf, size_t len)
{
    size_t k = (size_t)snprintf(buf, len, "(");
    for (uint32_t i = 0; i < n && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%" PRId64, i ? ", " : "", s[i]);
    if (k < len)
        snprintf(buf + k, len - k, n == 1 ? ",)" : ")");
}

typedef struct InSlot {
    const NpyArray *a;
    int64_t batch;      /* leading batch extent, or -1 */
    bool timed;         /* has a time dim */
} InSlot;

/* Is shape (ndim dims) the block's model tensor's, or that shape without leading 1s (which
 * hold no data: an ONNX input is the model tensor (1, ONNX shape), the 1 being the lowering's
 * batch)? */
static bool model_shape_is(const Block *b, const int64_t *shape, uint32_t ndim)
{
    if (!b->has_model || b->model_ndim < ndim)
        return false;
    uint32_t lead = b->model_ndim - ndim;
    for (uint32_t i = 0; i < lead; i++)
        if (b->model_dims[i] != 1)
            return false;
    for (uint32_t i = 0; i < ndim; i++)
        if (b->model_dims[lead + i] != shape[i])
            return false;
    return true;
}

/* Classifies array a for INPUT k: which leading dims it has. */

static Status classify(SimRun *run, uint32_t k, const NpyArray *a, InSlot *slot, Diag *d)
{
    const Block *b = sim_input_block(run, k);
    if (a->dtype == NPY_F32 || !a->i32)
        return diag_block(d, ST_LOGIC, "sim.input.dtype", b, "got a %s array, expected int8, "
                          "uint8, int16, uint16, int32 or int64", npy_dtype_name(a->dtype));
    int64_t s[NPY_MAX_DIMS];
    uint32_t n = sim_input_shape(run, k, s);
    uint32_t T = run->opt.steps;
    slot->a = a;
    slot->batch = -1;
    slot->timed = false;
    bool tail = a->ndim >= n;
    for (uint32_t i = 0; tail && i < n; i++)
        tail = a->shape[a->ndim - n + i] == s[i];
    uint32_t extra = tail ? a->ndim - n : 99;
    if (extra == 0)
        return ST_OK;
    int64_t per = 1;
    for (uint32_t i = 0; i < n; i++)
        per *= s[i];
    if (extra != 1 && T == 1 && per > 0 && model_shape_is(b, a->shape, a->ndim) &&
        a->count % per == 0) {
        slot->batch = a->count / per; /* the model's shape: whole samples in C order */
        return ST_OK;
    }
    if (extra == 1 && T == 1) {
        slot->batch = a->shape[0];
        return ST_OK;
    }
    if (extra == 1 && T > 1 && a->shape[0] == T) {
        slot->timed = true;
        return ST_OK;
    }
    if (extra == 2 && T > 1 && a->shape[1] == T) {
        slot->batch = a->shape[0];
        slot->timed = true;
        return ST_OK;
    }
    char want[160], got[160];
    shape_text(s, n, want, sizeof want);
    shape_text(a->shape, a->ndim, got, sizeof got);
    if (T > 1)
        return diag_block(d, ST_LOGIC, "sim.input.shape", b, "got shape %s, expected %s, "
                          "[%u]+%s (one slice per step) or [N,%u]+%s", got, want, T, want, T,
                          want);
    return diag_block(d, ST_LOGIC, "sim.input.shape", b, "got shape %s, expected %s or "
                      "[N]+%s (a batch)", got, want, want);
}

static Status alloc_tensor(SimTensor *t, const SimBlock *sb, int64_t N, uint32_t T, Diag *d)
{
    t->block_id = sb->b->id;
    t->socket_id = sb->b->socket_id;
    t->ndim = 0;
    if (N >= 0)
        t->shape[t->ndim++] = N;
    if (T > 1)
        t->shape[t->ndim++] = T;
    for (uint32_t i = 0; i < sb->rndim && t->ndim < NPY_MAX_DIMS; i++)
        t->shape[t->ndim++] = sb->rshape[i];
    t->count = mul_sat(mul_sat(N >= 0 ? N : 1, T), sb->result ? sb->result_vol : 0);
    if (!sb->result)
        t->count = 0, t->ndim = 1, t->shape[0] = 0;
    t->data = malloc(t->count ? (size_t)t->count * sizeof *t->data : 1);
    if (!t->data)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory for the results");
    t->dtype = NPY_I32;
    return ST_OK;
}

/* An OUTPUT's result in its model tensor's shape and element type (sim.h, sim_run). */
static void model_output(SimTensor *t, const Block *b, uint32_t T)
{
    if (!b->has_model)
        return;
    if (b->has_model_prec)
        t->dtype = b->model_prec == PR_INT_8 ? NPY_I8 : b->model_prec == PR_UINT_8 ? NPY_U8
                   : b->model_prec == PR_INT_16 ? NPY_I16 : NPY_I32;
    if (T == 1 && b->model_ndim <= NPY_MAX_DIMS && blk_model_volume(b) == t->count) {
        t->ndim = b->model_ndim;
        for (uint32_t i = 0; i < b->model_ndim; i++)
            t->shape[i] = b->model_dims[i];
    }
}

Status sim_run(SimRun *run, const SimInput *inputs, uint32_t n_inputs, SimResult *res,
               Diag *d)
{
    return sim_run_progress(run, inputs, n_inputs, res, NULL, d);
}

Status sim_run_progress(SimRun *run, const SimInput *inputs, uint32_t n_inputs,
                        SimResult *res, const TirProgress *progress, Diag *d)
{
    memset(res, 0, sizeof *res);
    uint32_t T = run->opt.steps;
    InSlot *slots = calloc((size_t)run->n_inputs + 1, sizeof *slots);
    if (!slots)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    Status st = ST_OK;
    for (uint32_t i = 0; i < n_inputs; i++) {
        uint32_t k;
        if ((st = sim_find_input(run, inputs[i].name, &k, d)))
            goto out;
        if (slots[k].a) {
            st = diag_block(d, ST_LOGIC, "sim.input.duplicate", sim_input_block(run, k),
                            "is given twice (as '%s')", inputs[i].name);
            goto out;
        }
        if ((st = classify(run, k, inputs[i].array, &slots[k], d)))
            goto out;
    }
    int64_t N = -1;
    const Block *nb = NULL;
    for (uint32_t k = 0; k < run->n_inputs; k++) {
        const Block *b = sim_input_block(run, k);
        if (!slots[k].a) {
            int64_t s[NPY_MAX_DIMS];
            char want[160];
            shape_text(s, sim_input_shape(run, k, s), want, sizeof want);
            st = diag_block(d, ST_LOGIC, "sim.input.missing", b, "no value given (socket %d, "
                            "shape %s); pass --input %d=FILE.npy", (int)b->socket_id, want,
                            (int)b->socket_id);
            goto out;
        }
        if (slots[k].batch >= 0) {
            if (N >= 0 && slots[k].batch != N) {
                st = diag_block(d, ST_LOGIC, "sim.input.batch", b, "has a batch of %" PRId64
                                ", block %d one of %" PRId64, slots[k].batch, (int)nb->id, N);
                goto out;
            }
            N = slots[k].batch;
            nb = b;
        }
        if ((st = check_range(b, slots[k].a->i32, slots[k].a->count, d)))
            goto out;
    }
    /* Results: check the cap before allocating. */
    int64_t samples = N >= 0 ? N : 1, per = 0;
    for (uint32_t k = 0; k < run->n_outputs; k++)
        per = add_sat(per, run->blocks[run->outputs[k]].result_vol);
    if (run->opt.keep_all)
        for (uint32_t i = 0; i < run->g->n_blocks; i++)
            per = add_sat(per, run->blocks[i].result ? run->blocks[i].result_vol : 0);
    if (mul_sat(mul_sat(samples, T), per) > SIM_MAX_TOTAL_ELEMS) {
        st = diag_add(d, ST_LOGIC, "limit.sim", NULL, "the results would hold more than %"
                      PRId64 " elements", (int64_t)SIM_MAX_TOTAL_ELEMS);
        goto out;
    }
    res->n_outputs = run->n_outputs;
    res->batch = N >= 0 ? (uint32_t)N : 0;
    res->steps = T;
    if (!(res->outputs = calloc((size_t)run->n_outputs + 1, sizeof *res->outputs))) {
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
        goto out;
    }
    for (uint32_t k = 0; k < run->n_outputs; k++) {
        const SimBlock *sb = &run->blocks[run->outputs[k]];
        if ((st = alloc_tensor(&res->outputs[k], sb, N, T, d)))
            goto out;
        model_output(&res->outputs[k], sb->b, T);
    }
    if (run->opt.keep_all) {
        res->n_blocks = run->g->n_blocks;
        if (!(res->blocks = calloc((size_t)res->n_blocks + 1, sizeof *res->blocks))) {
            st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
            goto out;
        }
        for (uint32_t i = 0; i < res->n_blocks; i++)
            if ((st = alloc_tensor(&res->blocks[i], &run->blocks[i], N, T, d)))
                goto out;
    }
    for (int64_t n = 0; n < samples; n++) {
        sim_reset(run);
        for (uint32_t t = 0; t < T; t++) {
            for (uint32_t k = 0; k < run->n_inputs; k++) {
                SimBlock *sb = &run->blocks[run->inputs[k]];
                int64_t v = sb->result_vol, off = 0;
                if (slots[k].batch >= 0)
                    off += n * v * (slots[k].timed ? T : 1);
                if (slots[k].timed)
                    off += (int64_t)t * v;
                memcpy(sb->result, slots[k].a->i32 + off, (size_t)v * sizeof *sb->result);
            }
            int64_t slot = n * T + t;
            uint64_t total = (uint64_t)samples * T * run->n_order;
            if ((st = step(run, progress, (uint64_t)slot * run->n_order, total, d)))
                goto out;
            for (uint32_t k = 0; k < run->n_outputs; k++) {
                const SimBlock *sb = &run->blocks[run->outputs[k]];
                memcpy(res->outputs[k].data + slot * sb->result_vol, sb->result,
                       (size_t)sb->result_vol * sizeof *sb->result);
            }
            for (uint32_t i = 0; i < res->n_blocks; i++) {
                const SimBlock *sb = &run->blocks[i];
                if (sb->result)
                    memcpy(res->blocks[i].data + slot * sb->result_vol, sb->result,
                           (size_t)sb->result_vol * sizeof *sb->result);
            }
        }
    }
out:
    free(slots);
    if (st)
        sim_result_free(res);
    return st;
}
