/* emit_gather.c: a CADD of several different inputs (docs/backend.md, "Inserted primitives";
 * resnet_block's elementwise add). P02 reads its n inputs back to back, [n][y][x][c], in one
 * area: the code generator requests an area of n times the box on the CADD's core and, for
 * each input, inserts a P06 that copies the input's box from its copy into part i, in the
 * latest free Soma slot before the CADD's phase in which the copy holds its data
 * (emit_move_slot: for a stage's input, after it arrives in the step before). The inputs
 * must have the same extents (each read as whole rows of its copy, a static map too). The
 * area holds them in their precision, or in INT_32 when they differ (a P06 widens 8-bit
 * values as they are), in the pitch the CADD reads and writes (layout_output_unit: its
 * input 0's), each P06 re-pitching its input (the lanes past the input's pitch 0).
 */
#include "backend/emit_internal.h"

#include "taskir/layout.h"

/* The copy on core k and the box input cluster i of CADD b reads, or NULL. */
static ECopy *input_copy(const Emit *e, const Block *b, uint32_t i, uint32_t k, EBox *box)
{
    if (i >= b->n_in || b->in[i].n_ifaces != 1)
        return NULL;
    const Edge *ed = graph_edge(e->g, b->in[i].ifaces[0].edge_id);
    long s = ed ? graph_block_pos(e->g, ed->src) : -1;
    if (s < 0 || ed->n_re || !emit_iface_box(e, (uint32_t)s, false, ed->id, box))
        return NULL;
    ECopy *cp = emit_copy_on(e, (uint32_t)s, k);
    return cp && (!cp->image || cp->feat.words) && !cp->planes && !cp->view ? cp : NULL;
}

/* The area CADD pos gathers its n inputs in, part by part (*feat one part, the box of input
 * 0's storage block box): the inputs' precision, INT_32 when they differ (8-bit values
 * widened as they are), in the pitch the CADD reads and writes; prec the precisions' first,
 * or -1 to take them from the storage blocks. false when there is none (a ternary input, or
 * no layout). */
static bool area_feat(const Emit *e, uint32_t pos, const EBox *box, int prec, EmitFeat *feat)
{
    const Block *b = e->g->blocks[pos];
    PrecisionId p = PR_INT_32;
    for (uint32_t i = 0; i < blk_n_variadic(b) && i < b->n_in; i++) {
        const Edge *ed = b->in[i].n_ifaces == 1 ? graph_edge(e->g, b->in[i].ifaces[0].edge_id)
                                                : NULL;
        long s = ed ? graph_block_pos(e->g, ed->src) : -1;
        if (s < 0)
            return false;
        PrecisionId q = blk_prec(e->g->blocks[s]);
        if (q == PR_TERNARY)
            return false;
        p = i == 0 ? q : q != p ? PR_INT_32 : p;
    }
    if (prec >= 0)
        p = (PrecisionId)prec;
    return emit_feat(p, box->n[0], box->n[1], box->n[2],
                     layout_output_unit(e->g, &e->uses, pos, p), feat);
}

/* Whether the Mapping stores storage block pos in one place only. */
static bool one_copy(const Emit *e, uint32_t pos)
{
    int32_t id = e->g->blocks[pos]->id;
    for (uint32_t i = 0; i < e->m->n_nodes; i++)
        if (e->m->nodes[i].task_id == id)
            return e->m->nodes[i].n_coords == 1;
    return false;
}

bool emit_gather_place(const Emit *e, ECopy *cp, EmitFeat *feat)
{
    uint32_t s = cp->block;
    const Block *sb = e->g->blocks[s];
    const BlockUses *bu = &e->uses.blocks[s];
    if (cp->received || cp->alias_of != EMIT_NONE || bu->n_out_edges != 1)
        return false;
    const Edge *out = e->g->edges[bu->out_edges[0]];
    long r = graph_block_pos(e->g, out->dst);
    long src = -1;
    if (r < 0 || e->g->blocks[r]->type != BT_CADD || blk_n_variadic(e->g->blocks[r]) < 2 ||
        e->core_of[r] != cp->core || layout_repeats(e->g, &e->uses, (uint32_t)r, &src) ||
        out->n_re || !emit_whole_iface(e, s, false, out->id))
        return false;
    const Block *b = e->g->blocks[r];
    int32_t part = -1;
    for (uint32_t i = 0; i < blk_n_variadic(b) && i < b->n_in; i++)
        if (b->in[i].n_ifaces == 1 && b->in[i].ifaces[0].edge_id == out->id)
            part = (int32_t)i;
    bool input = bu->n_in_edges > 0, stat = sb->data && !bu->n_in_edges;
    for (uint32_t j = 0; j < bu->n_in_edges && input; j++) { /* a model input's, whole */
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        input = w >= 0 && e->g->blocks[w]->type == BT_INPUT && !ed->n_re &&
                emit_whole_iface(e, s, true, ed->id);
    }
    EmitFeat f;
    if (part < 0 || (!input && !stat) || !one_copy(e, s) ||
        !area_feat(e, (uint32_t)r, &cp->box, -1, &f))
        return false;
    /* a dynamic block writes the input in the area's pitch: its channels rounded up to an
     * alignment (8, 16 or 32 elements), or none */
    bool aligned = f.c == f.nc;
    for (int64_t a = 8; a <= 32 && !aligned; a *= 2)
        aligned = (f.nc + a - 1) / a * a == f.c;
    if (input && !aligned)
        return false;
    cp->gather = (uint32_t)r;
    cp->gather_part = part;
    *feat = f;
    return true;
}

/* Drops the entries of a gather from start and records why it failed (an entry with i = -1,
 * n = the reason, copy = the input), for emit_prim.c to refuse the CADD with, after the
 * memory plan (whose refusal comes first). */
static Status failed(Emit *e, size_t start, uint32_t pos, int32_t input, int32_t why)
{
    for (size_t g = start; g < e->n_gathers; g++)
        if (!e->gathers[g].placed)
            emit_slot_free(e, e->copies[e->gathers[g].copy].core, e->gathers[g].phase,
                           e->gathers[g].slot);
    e->n_gathers = start;
    EGather *ng = emit_grow(e, e->gathers, &e->cap_gathers, e->n_gathers, sizeof *e->gathers);
    if (!ng)
        return ST_RUNTIME;
    e->gathers = ng;
    e->gathers[e->n_gathers++] = (EGather){pos, -1, why, (uint32_t)input, {{0}, {0}}, -1, 0,
                                           EMIT_NONE, {0}, false};
    return ST_OK;
}

/* Plans the gather of CADD pos (n inputs, on core k, in phase pc). */
static Status plan_gather(Emit *e, uint32_t pos, uint32_t n, uint32_t k, int32_t pc)
{
    const Block *b = e->g->blocks[pos];
    EBox box0;
    ECopy *cp0 = input_copy(e, b, 0, k, &box0);
    size_t start = e->n_gathers;
    int32_t first = pc, last = pc;
    PrecisionId prec = cp0 ? cp0->feat.prec : PR_INT_32;
    for (uint32_t i = 0; i < n; i++) {
        EBox box;
        ECopy *cp = input_copy(e, b, i, k, &box);
        if (cp && cp->feat.prec != prec)
            prec = PR_INT_32; /* 8-bit values widened as they are */
        if (!cp || !cp0 || cp->feat.prec == PR_TERNARY || box.n[0] != box0.n[0] ||
            box.n[1] != box0.n[1] || box.n[2] != box0.n[2])
            return failed(e, start, pos, (int32_t)i, GATHER_LAYOUT);
    }
    EmitFeat feat;
    if (!area_feat(e, pos, &box0, (int)prec, &feat))
        return failed(e, start, pos, 0, GATHER_LAYOUT);
    for (uint32_t i = 0; i < n; i++) {
        EBox box;
        ECopy *cp = input_copy(e, b, i, k, &box);
        EMoveSlot ms = {-1, 0, 0, false, cp->first, pc};
        if (cp->gather == pos) { /* already in its part: no P06 (a static map's all along) */
            if (cp->is_static) {
                ms.first = 0;
                ms.last = e->cores[k].n_phases - 1;
            }
        } else if (!emit_move_slot(e, cp, pc, &ms))
            return failed(e, start, pos, (int32_t)i, GATHER_SLOT);
        EGather *ng = emit_grow(e, e->gathers, &e->cap_gathers, e->n_gathers,
                                sizeof *e->gathers);
        if (!ng)
            return ST_RUNTIME;
        e->gathers = ng;
        e->gathers[e->n_gathers++] = (EGather){pos, (int32_t)i, (int32_t)n,
                                               (uint32_t)(cp - e->copies), box, ms.phase,
                                               ms.slot, EMIT_NONE, feat, cp->gather == pos};
        Status st = cp->gather == pos ? ST_OK
                                      : emit_slot_take(e, k, ms.phase, ms.slot, SLOT_GATHER,
                                                       pos);
        if (st != ST_OK)
            return st;
        first = ms.first < first ? ms.first : first;
        last = ms.last > last ? ms.last : last;
    }
    uint32_t req = emit_request(e, k, feat.words * n, feat.align, first, last, ALLOC_DATA,
                                b->id);
    if (req == EMIT_NONE)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (size_t g = start; g < e->n_gathers; g++)
        e->gathers[g].req = req;
    return ST_OK;
}

Status emit_gathers(Emit *e)
{
    for (uint32_t pos = 0; pos < e->g->n_blocks; pos++) {
        const Block *b = e->g->blocks[pos];
        uint32_t k = e->core_of[pos];
        uint32_t n = b->type == BT_CADD ? blk_n_variadic(b) : 0;
        if (n < 2 || k == EMIT_NONE || emit_dup_of(e, pos))
            continue;
        Status st = plan_gather(e, pos, n, k, e->phase_of[pos]);
        if (st != ST_OK)
            return st;
    }
    return ST_OK;
}

int32_t emit_gather_failed(const Emit *e, uint32_t pos, int32_t *input)
{
    for (size_t i = 0; i < e->n_gathers; i++)
        if (e->gathers[i].cadd == pos && e->gathers[i].i < 0) {
            *input = (int32_t)e->gathers[i].copy;
            return e->gathers[i].n;
        }
    return 0;
}

const EGather *emit_gather_of(const Emit *e, uint32_t pos)
{
    for (size_t i = 0; i < e->n_gathers; i++)
        if (e->gathers[i].cadd == pos && e->gathers[i].i == 0)
            return &e->gathers[i];
    return NULL;
}
