/* emit_prim.c: the primitive of every compute block (docs/backend.md, "The code generator",
 * "Primitives"): its P-code from the chip description, its parameters from the block's
 * shape and attributes, its operand areas from the memory plan (the copies of its input
 * storage on its core, the storage or buffer it writes), in the slot the Mapping gives it.
 *
 * Operand areas are the words of the operand's box: a feature operand starts at the pixel
 * (y, x) of the box's origin in the copy and must span the copy's whole rows of channels
 * (the primitives read whole pixels with the copy's pitch) and, when it has more than one
 * row, the copy's whole width; anything else is a logic error [emit.layout] naming the block.
 */
#include "backend/emit_internal.h"

#include "backend/core_mem.h"
#include "taskir/diag_block.h"
#include "taskir/exact.h"
#include "taskir/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SET(m, f, v) ((m)->has_##f = 1, (m)->f = (v))
/* The bias fields every biased Axon primitive shares (b, cb in scope). */
#define SET_BIAS(p)                                   \
    do {                                              \
        SET(p, bias_type, bias_type(b));              \
        if (b->bias_type != BIAS_VECTOR)              \
            SET(p, constant_b, cb);                   \
    } while (0)
/* p: a new parameter message of type T for field f of primitive a (leaves the switch case
 * when out of memory). */
#define PARAMS(a, f, T, init)                                         \
    T *p = emit_msg(e, sizeof *p, (void (*)(void *))init);            \
    (a)->f = p;                                                       \
    if (!p)                                                           \
        break
/* The window fields (strides and pads; sx .. prr in scope). */
#define SET_WINDOW(p)                                 \
    do {                                              \
        SET(p, stride_x, sx);                         \
        SET(p, stride_y, sy);                         \
        SET(p, pad_top, pu);                          \
        SET(p, pad_down, pd);                         \
        SET(p, pad_left, pl);                         \
        SET(p, pad_right, prr);                       \
    } while (0)

/* The fields P41 and P81 share (two message types with the same fields; x1, x2, b, pad and
 * the window in scope). */
#define SET_CONV(p)                                           \
    do {                                                      \
        SET(p, x1_precision, pr_info(x1.prec)->wire);         \
        SET(p, x2_precision, pr_info(x2.prec)->wire);         \
        SET(p, bias_type, bias_type(b));                      \
        SET(p, has_pad, pad);                                 \
        SET_WINDOW(p);                                        \
        SET(p, dilate_x, blk_attr(b, AT_DILATION_X));         \
        SET(p, dilate_y, blk_attr(b, AT_DILATION_Y));         \
    } while (0)


/* One operand: its area and the block id naming it. */
typedef struct EOperand {
    int64_t addr, words;
    int32_t block;          /* the storage block's id (or the compute block's, for a buffer) */
    PrecisionId prec;
    EmitFeat feat;          /* feature operands */
    bool view;              /* a view of a map read as a vector (emit_rearr.c) */
    bool planes;            /* P81's channel-major input (emit_p81.c) */
} EOperand;

static void block_id(char *buf, size_t n, int32_t id)
{
    snprintf(buf, n, "b%d", id);
}

/* The feature area of box b inside copy (layout f, box cb, at base). */
static Status feat_area(Emit *e, const Block *blk, const EmitFeat *f, const EBox *cb,
                        int64_t base, const EBox *b, EOperand *op, const char *what)
{
    bool rows = b->n[0] == 1 || (b->lo[1] == cb->lo[1] && b->n[1] == cb->n[1]);
    if (b->lo[2] != cb->lo[2] || b->n[2] != cb->n[2] || !rows || b->lo[0] < cb->lo[0] ||
        b->lo[1] < cb->lo[1] || b->lo[0] + b->n[0] > cb->lo[0] + cb->n[0] ||
        b->lo[1] + b->n[1] > cb->lo[1] + cb->n[1])
        return diag_block(e->d, ST_LOGIC, "emit.layout", blk,
                          "its %s (rows %lld+%lld, columns %lld+%lld, channels %lld+%lld) is "
                          "not whole rows of the area that holds it (columns %lld+%lld, "
                          "channels %lld+%lld): a move (P06) would have to gather it",
                          what, (long long)b->lo[0], (long long)b->n[0], (long long)b->lo[1],
                          (long long)b->n[1], (long long)b->lo[2], (long long)b->n[2],
                          (long long)cb->lo[1], (long long)cb->n[1], (long long)cb->lo[2],
                          (long long)cb->n[2]);
    op->addr = emit_feat_addr(f, cb, base, b->lo[0], b->lo[1]);
    op->words = b->n[0] * b->n[1] * emit_feat_pixel_words(f);
    op->feat = *f;
    op->prec = f->prec;
    return ST_OK;
}

/* The whole area of a copy that is a view of its writer's map (emit_rearr.c) or P81's
 * planes (emit_p81.c). */
static void view_area(Emit *e, const ECopy *cp, EOperand *op)
{
    op->addr = emit_copy_addr(e, cp);
    op->words = cp->feat.words;
    op->feat = cp->feat;
    op->prec = cp->feat.prec;
    op->block = e->g->blocks[cp->block]->id;
    op->view = cp->view;
    op->planes = cp->planes;
}

/* The operand of input cluster idx of compute block pos (on core k). */
static Status input_operand(Emit *e, uint32_t pos, uint32_t idx, EOperand *op)
{
    const Block *b = e->g->blocks[pos];
    uint32_t k = e->core_of[pos];
    if (idx >= b->n_in || b->in[idx].n_ifaces != 1)
        return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                          "its input cluster %u is fed by %u interfaces; the code generator "
                          "takes one storage block per operand", idx,
                          idx < b->n_in ? b->in[idx].n_ifaces : 0);
    int32_t eid = b->in[idx].ifaces[0].edge_id;
    const Edge *ed = graph_edge(e->g, eid);
    long s = ed ? graph_block_pos(e->g, ed->src) : -1;
    if (s < 0)
        return diag_block(e->d, ST_RUNTIME, "emit.internal", b, "edge %d has no source", eid);
    if (!emit_keeps_order(e, ed))
            return diag_edge(e->d, ST_LOGIC, "emit.rearrange", eid,
                             "block %d reads block %d through a rearrangement; the code "
                             "generator realises rearrangements on the writing side only",
                             b->id, e->g->blocks[s]->id);
    ECopy *cp = emit_copy_on(e, (uint32_t)s, k);
    if (!cp)
        return diag_block(e->d, ST_LOGIC, "emit.place", b,
                          "reads block %d, which the Mapping does not store on its core %s",
                          e->g->blocks[s]->id, e->cores[k].name);
    if (cp->planes) {
        view_area(e, cp, op);
        return ST_OK;
    }
    if (cp->view) {
        if (e->n_copy[s] != 1)
            return diag_block(e->d, ST_LOGIC, "emit.rearrange", b,
                              "reads block %d, a view of a map, which the Mapping stores on "
                              "%u cores: the code generator keeps it on its writer's core",
                              e->g->blocks[s]->id, e->n_copy[s]);
        view_area(e, cp, op);
        return ST_OK;
    }
    int64_t base = emit_copy_addr(e, cp);
    op->block = e->g->blocks[s]->id;
    op->prec = blk_prec(e->g->blocks[s]);
    EBox box;
    if (!emit_iface_box(e, (uint32_t)s, false, eid, &box))
        return diag_block(e->d, ST_RUNTIME, "emit.internal", b, "edge %d: no box", eid);
    if (cp->image && !cp->feat.words) { /* a static tensor image: read whole */
        if (memcmp(&box, &cp->box, sizeof box) != 0)
            return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                              "reads part of block %d's copy on its core; the code generator "
                              "lays out the part it reads only", op->block);
        op->addr = base;
        op->words = (int64_t)cp->n_image;
        op->prec = cp->image_prec;
        return ST_OK;
    }
    char what[48];
    snprintf(what, sizeof what, "input %u (block %d)", idx, op->block);
    return feat_area(e, b, &cp->feat, &cp->box, base, &box, op, what);
}

/* The output area of compute block pos: the copy on its core of the storage it writes (the
 * first out edge with one), else its output buffer. */
static Status output_operand(Emit *e, uint32_t pos, EOperand *op)
{
    const Block *b = e->g->blocks[pos];
    uint32_t k = e->core_of[pos];
    const ECore *c = &e->cores[k];
    if (e->outs[pos].used) {
        const EOut *o = &e->outs[pos];
        op->addr = c->addr[o->req];
        op->words = o->feat.words;
        op->feat = o->feat;
        op->prec = o->feat.prec;
        op->block = b->id;
        return ST_OK;
    }
    long first = -1;
    ELocalOuts it = emit_local_outs(pos, k);
    while (emit_local_outs_next(e, &it)) { /* one area: one storage on its core */
        uint32_t s = it.s;
        if (first >= 0 && s != first && !emit_tee_of(e, pos, s) &&
            !emit_dup_shares(e, s, (uint32_t)first, k))
            return emit_tee_refuse(e, pos, s, (uint32_t)first);
        first = s;
    }
    it = emit_local_outs(pos, k);
    for (ECopy *cp; (cp = emit_local_outs_next(e, &it));) {
        const Edge *ed = it.ed;
        uint32_t s = it.s;
        EBox box;
        if (!emit_iface_box(e, s, true, ed->id, &box))
            return diag_block(e->d, ST_RUNTIME, "emit.internal", b, "edge %d: no box", ed->id);
        emit_writes_pieces(e, pos, s, &box); /* its edges' boxes together */
        op->block = e->g->blocks[s]->id;
        if (emit_tee_of(e, pos, s))
            continue; /* it shares the area the result goes to, or a P06 fills it (emit_tee.c) */
        if (ed->n_re && cp->view) { /* the CVMs reading it take the rearrangement */
            view_area(e, cp, op);
            return ST_OK;
        }
        int64_t q0, npx;
        if (emit_writes_run(e, pos, s, &cp->box, &q0, &npx)) {
            /* its pixels as a run of the copy's (emit_runwrite.c) */
            int64_t pw = emit_feat_pixel_words(&cp->feat);
            op->addr = emit_copy_addr(e, cp) + q0 * pw;
            op->words = npx * pw;
            op->feat = cp->feat;
            op->prec = cp->feat.prec;
            return ST_OK;
        }
        if (ed->n_re) { /* a rearrangement that keeps the C order and the pixels: a flat
                           box, or all of its result viewed with other rows (6 x 6 as 36 x 1) */
            if (!emit_lanes_straight(e, ed, pos, &box))
                return diag_edge(e->d, ST_LOGIC, "emit.rearrange", ed->id,
                                 "block %d writes block %d through a rearrangement that moves "
                                 "values between pixels; the code generator does not realise "
                                 "it yet (it needs P06 moves)", b->id, op->block);
        }
        char what[48];
        snprintf(what, sizeof what, "output into block %d", op->block);
        return feat_area(e, b, &cp->feat, &cp->box, emit_copy_addr(e, cp), &box, op, what);
    }
    return diag_block(e->d, ST_LOGIC, "emit.place", b, "writes nothing on its core %s",
                      c->name);
}

Taskir__Asm__P06 *emit_p06_slot(Emit *e, uint32_t core, int32_t phase, int32_t slot,
                                int32_t block)
{
    Taskir__Asm__StaticPrimList *l = emit_slot_list(e, core, phase);
    if (!l)
        return NULL;
    Taskir__Asm__SomaPrim **sp = slot == MAP_PI_SOMA1 ? &l->soma1 : &l->soma2;
    Taskir__Asm__SomaPrim *s =
        emit_msg(e, sizeof *s, (void (*)(void *))taskir__asm__soma_prim__init);
    Taskir__Asm__P06 *p = s ? emit_msg(e, sizeof *p, (void (*)(void *))taskir__asm__p06__init)
                            : NULL;
    if (!p) {
        free(s);
        return NULL;
    }
    *sp = s;
    s->p06 = p;
    SET(s, pic, 0x06);
    char id[32];
    snprintf(id, sizeof id, "b%d", block);
    s->x1_block = emit_strdup(e, id);
    return p;
}

void emit_p06_rows(Taskir__Asm__P06 *p, PrecisionId prec, int64_t c, int64_t rows, int64_t x1,
                   int64_t x1_words, int64_t o, int64_t o_words)
{
    int32_t wire = pr_info(prec)->wire;
    SET(p, x1_precision, wire);
    SET(p, out_precision, wire);
    SET(p, length_in, (int32_t)c);
    SET(p, num_in, (int32_t)rows);
    SET(p, length_out, (int32_t)c);
    SET(p, num_out, (int32_t)rows);
    SET(p, bit_shift_num, 0);
    SET(p, x1_base_addr, (int32_t)x1);
    SET(p, x1_addr_length, (int32_t)x1_words);
    SET(p, o_base_addr, (int32_t)o);
    SET(p, o_addr_length, (int32_t)o_words);
}

/* The inserted P06 of dup (emit_plan.c, make_dups) in its Soma slot, and the repeated area
 * it writes as the CADD's operand: rows of the box's pixels, each in the group unit P02 reads
 * (the P06 re-pitches: length_out the area's pitch, layout.h); out row
 * i is in row i mod (the box's pixels) (real_length_in_en), so the box comes n times. */
static Status dup_operand(Emit *e, const EDup *dup, EOperand *op)
{
    const ECopy *cp = &e->copies[dup->copy];
    const ECore *c = &e->cores[cp->core];
    const Block *b = e->g->blocks[dup->cadd];
    EOperand in = {0};
    Status st = feat_area(e, b, &cp->feat, &cp->box, emit_copy_addr(e, cp), &dup->box, &in,
                          "repeated input");
    if (st != ST_OK)
        return st;
    Taskir__Asm__P06 *p = emit_p06_slot(e, cp->core, dup->phase, dup->slot,
                                        e->g->blocks[cp->block]->id);
    if (!p)
        return ST_RUNTIME;
    int32_t pix = (int32_t)(dup->box.n[0] * dup->box.n[1]);
    int32_t wire = pr_info(cp->feat.prec)->wire;
    SET(p, x1_precision, wire);
    SET(p, out_precision, wire);
    SET(p, length_in, (int32_t)cp->feat.c);
    SET(p, num_in, pix * dup->n); /* rows i < num_in, each x1 row i mod real_num_in */
    SET(p, length_out, (int32_t)dup->feat.c); /* re-pitched to the group unit */
    SET(p, num_out, pix * dup->n);
    SET(p, real_length_in_en, 1);
    SET(p, real_num_in, pix);
    SET(p, bit_shift_num, 0);
    SET(p, x1_base_addr, (int32_t)in.addr);
    SET(p, x1_addr_length, (int32_t)in.words);
    op->addr = c->addr[dup->req];
    op->words = dup->feat.words * dup->n;
    SET(p, o_base_addr, (int32_t)op->addr);
    SET(p, o_addr_length, (int32_t)op->words);
    op->feat = dup->feat;
    op->prec = cp->feat.prec;
    op->block = e->g->blocks[cp->block]->id;
    return e->d->oom ? ST_RUNTIME : ST_OK;
}

/* The inserted P06s of the gather of a CADD (emit_gather.c; g its first input's entry, the
 * others following it), each copying its input's box into its part of the gathered area,
 * and that area as the CADD's operand. */
static Status gather_operand(Emit *e, const EGather *g, EOperand *op)
{
    const Block *b = e->g->blocks[g->cadd];
    const ECore *c = &e->cores[e->core_of[g->cadd]];
    int64_t base = c->addr[g->req], words = 0;
    for (int32_t i = 0; i < g->n; i++) {
        const EGather *gi = g + i;
        const ECopy *cp = &e->copies[gi->copy];
        EOperand in = {0};
        char what[48];
        snprintf(what, sizeof what, "input %d", i);
        Status st = feat_area(e, b, &cp->feat, &cp->box, emit_copy_addr(e, cp), &gi->box, &in,
                              what);
        if (st != ST_OK)
            return st;
        words = g->feat.words;
        if (i == 0)
            op->block = e->g->blocks[cp->block]->id;
        if (gi->phase < 0) /* it lies in part i already (emit_early.c): no P06 */
            continue;
        Taskir__Asm__P06 *p = emit_p06_slot(e, cp->core, gi->phase, gi->slot,
                                            e->g->blocks[cp->block]->id);
        if (!p)
            return ST_RUNTIME;
        /* into part i in the area's precision and pitch (emit_gather.c): widened, re-pitched */
        emit_p06_rows(p, cp->feat.prec, cp->feat.c, gi->box.n[0] * gi->box.n[1], in.addr,
                      in.words, base + i * words, words);
        p->out_precision = pr_info(g->feat.prec)->wire;
        p->length_out = (int32_t)g->feat.c;
    }
    op->feat = g->feat;
    op->prec = g->feat.prec;
    op->addr = base;
    op->words = words * g->n;
    return e->d->oom ? ST_RUNTIME : ST_OK;
}

static Taskir__Shape *shape_of(Emit *e, const Block *b)
{
    Taskir__Shape *s = emit_msg(e, sizeof *s, (void (*)(void *))taskir__shape__init);
    if (!s)
        return NULL;
    int32_t d[TIR_NDIMS];
    blk_eff_shape(b, d);
    const char *u = bt_info(b->type)->dims;
    if (u[D_Y] != '-') SET(s, ny, d[D_Y]);
    if (u[D_X] != '-') SET(s, nx, d[D_X]);
    if (u[D_F] != '-') SET(s, nf, d[D_F]);
    if (u[D_R] != '-') SET(s, nr, d[D_R]);
    if (u[D_KY] != '-') SET(s, nky, d[D_KY]);
    if (u[D_KX] != '-') SET(s, nkx, d[D_KX]);
    if (u[D_IY] != '-') SET(s, niy, d[D_IY]);
    if (u[D_IX] != '-') SET(s, nix, d[D_IX]);
    return s;
}

static int32_t bias_type(const Block *b)
{
    return b->bias_type == BIAS_VECTOR ? TASKIR__BIAS_TYPE__VECTOR
                                       : TASKIR__BIAS_TYPE__CONSTANT;
}

/* The pic of P-code pcode: its decimal digits read as hexadecimal (P41 -> 0x41). */
static int32_t pic_of(int pcode)
{
    return (pcode / 10) * 16 + pcode % 10;
}

/* Whether CCMPB / CCMPS block pos never meets its precision's clip: every window extreme
 * (shifted: the interval analysis, taskir/exact.h, made once) taken up to its CMP floor
 * (down to its ceiling) lies inside it, and the CMP too. The graph's value is then the
 * chip's in a wider area, whichever of the clip and the CMP comes first. */
static bool clip_moot(Emit *e, uint32_t pos, const PrecisionInfo *bp)
{
    const Block *b = e->g->blocks[pos];
    if (b->type != BT_CCMPB && b->type != BT_CCMPS)
        return false;
    if (!e->exact) {
        ExactInfo *x = calloc(1, sizeof *x);
        if (!x || exact_analyse(e->g, x, e->d) != ST_OK) {
            free(x);
            return false;
        }
        e->exact = x;
    }
    int64_t cmp = blk_attr(b, AT_CMP);
    if (pos >= e->exact->n_blocks || !e->exact->blocks[pos].visited)
        return false;
    ExactRange r = e->exact->blocks[pos].acc;
    bool big = b->type == BT_CCMPB;
    r.lo = big ? (r.lo > cmp ? r.lo : cmp) : (r.lo < cmp ? r.lo : cmp);
    r.hi = big ? (r.hi > cmp ? r.hi : cmp) : (r.hi < cmp ? r.hi : cmp);
    return exact_inside(r, bp->lo, bp->hi) && cmp >= bp->lo && cmp <= bp->hi;
}

/* The graph clips a compute block's result to the block's precision; a primitive clips to
 * its output area's precision only: a block whose range is narrower (a CCMPB of TERNARY
 * writing an int8 map) is refused, unless it never meets that clip (clip_moot: a CCMPB of
 * INT_8 writing an int32 map, its values inside -128 .. 127, test_diff_ops'
 * div_32_by_relu_32_'s div/bit24/rem). */
static Status clip_check(Emit *e, uint32_t pos, const EOperand *o, int pcode)
{
    const Block *b = e->g->blocks[pos];
    const PrecisionInfo *bp = pr_info(blk_prec(b)), *op = pr_info(o->prec);
    if ((bp->lo <= op->lo && bp->hi >= op->hi) || clip_moot(e, pos, bp))
        return ST_OK;
    return diag_block(e->d, ST_LOGIC, "emit.prec", b,
                      "clips its result to %s (%lld .. %lld), but P%02d writes %s values into "
                      "block %d and clips to that range only", bp->name, (long long)bp->lo,
                      (long long)bp->hi, pcode, op->name, o->block);
}

static Status axon_prim(Emit *e, uint32_t pos, int pcode, Taskir__Asm__AxonPrim **out)
{
    const Block *b = e->g->blocks[pos];
    Taskir__Asm__AxonPrim *a =
        emit_msg(e, sizeof *a, (void (*)(void *))taskir__asm__axon_prim__init);
    if (!a)
        return ST_RUNTIME;
    *out = a;
    /* a CADD adding one box to itself n times that P83 scales by n where it lies */
    bool scale = b->type == BT_CADD && layout_repeat_scales(e->g, &e->uses, pos);
    if (scale)
        pcode = 83;
    SET(a, pic, pic_of(pcode));
    const EDup *dup = NULL;
    const EGather *gather = NULL;
    if (b->type == BT_CADD && blk_n_variadic(b) != 1 && !scale) {
        dup = emit_dup_of(e, pos);
        gather = dup ? NULL : emit_gather_of(e, pos);
        int32_t input = 0, why = dup || gather ? 0 : emit_gather_failed(e, pos, &input);
        if (why == GATHER_SLOT)
            return diag_block(e->d, ST_LOGIC, "emit.slot", b,
                              "adds %u inputs: P02 reads them back to back in one area, and the "
                              "P06 copying input %d there needs a free Soma slot of core %s "
                              "before phase %d, once it arrives, and there is none",
                              blk_n_variadic(b), input, e->cores[e->core_of[pos]].name,
                              e->phase_of[pos]);
        if (why == GATHER_LAYOUT)
            return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                              "adds %u inputs: P02 reads them back to back in one area, and "
                              "input %d is not a map on its core with input 0's extents in a "
                              "precision a P06 moves into the area's (8-bit or INT_32)",
                              blk_n_variadic(b), input);
        if (!dup && !gather)
            return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                              "adds %u inputs: P02 reads them back to back in one area, which "
                              "the code generator gathers only for one box added to itself "
                              "(P06 moves)", blk_n_variadic(b));
    }
    EOperand x1 = {0}, x2 = {0}, bias = {0}, o = {0};
    bool has_x2 = b->type == BT_CC || b->type == BT_CC2D || b->type == BT_CVM ||
                  b->type == BT_CAX || b->type == BT_CVVH;
    Status st = dup      ? dup_operand(e, dup, &x1)
                : gather ? gather_operand(e, gather, &x1)
                         : input_operand(e, pos, 0, &x1);
    if (st == ST_OK && has_x2)
        st = input_operand(e, pos, 1, &x2);
    if (st == ST_OK && b->bias_type == BIAS_VECTOR)
        st = input_operand(e, pos, b->n_in - 1, &bias);
    if (st == ST_OK)
        st = output_operand(e, pos, &o);
    if (st == ST_OK)
        st = clip_check(e, pos, &o, pcode);
    if (st != ST_OK)
        return st;
    const ENarrow *nar = emit_narrow_of(e, pos);
    if (nar) { /* it writes int32 rows of its own, which a P06 narrows or re-pitches */
        if ((st = emit_narrow_p06(e, nar, o.addr, o.words, &o.addr, &o.words)) != ST_OK)
            return st;
        o.feat = nar->feat;
        o.prec = PR_INT_32;
    }
    if (o.prec != PR_INT_32) /* every Axon primitive writes int32 words */
        return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                          "writes its result into block %d's %s map: P%02d writes int32 "
                          "values, which a move (P06) would have to narrow", o.block,
                          pr_info(o.prec)->name, pcode);
    char id[32];
    block_id(id, sizeof id, x1.block);
    a->x1_block = emit_strdup(e, id);
    SET(a, x1_base_addr, (int32_t)x1.addr);
    SET(a, x1_addr_length, (int32_t)x1.words);
    if (has_x2) {
        block_id(id, sizeof id, x2.block);
        a->x2_block = emit_strdup(e, id);
        SET(a, x2_base_addr, (int32_t)x2.addr);
        SET(a, x2_addr_length, (int32_t)x2.words);
    }
    if (b->bias_type == BIAS_VECTOR) {
        block_id(id, sizeof id, bias.block);
        a->bias_block = emit_strdup(e, id);
        SET(a, bias_base_addr, (int32_t)bias.addr);
        SET(a, bias_addr_length, (int32_t)bias.words);
    }
    block_id(id, sizeof id, o.block);
    a->output_block = malloc(sizeof *a->output_block);
    if (a->output_block) {
        a->output_block[0] = emit_strdup(e, id);
        a->n_output_block = a->output_block[0] ? 1 : 0;
    }
    SET(a, o_base_addr, (int32_t)o.addr);
    SET(a, o_addr_length, (int32_t)o.words);
    a->shape = shape_of(e, b);
    if (!a->shape)
        return ST_RUNTIME;
    /* P41 / P04 read their input with its channels padded to 16 (8-bit): the copy's pitch
     * must be that; P02 / P03 / P43 / P83 work on whole 32-byte groups: they get the input's
     * pitch as their channel count, and write that pitch */
    if (x1.view) { /* P04 reads every lane of the view; its weights meet them (emit_rearr.c) */
        SET(a->shape, nr, (int32_t)(x1.feat.words * x1.feat.per_word));
    } else if (b->type == BT_CC || b->type == BT_CVM) {
        int64_t unit = x1.prec == PR_TERNARY ? 64 : 16;
        if (x1.feat.c != (a->shape->nr + unit - 1) / unit * unit)
            return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                              "reads pixels of %lld channels in memory where P%02d reads %d "
                              "channels padded to %lld", (long long)x1.feat.c, pcode,
                              a->shape->nr, (long long)unit);
    } else if (x1.feat.c && b->type != BT_CC2D) {
        if (dup || gather) { /* P02's vector sum: n inputs back to back, nkx = n_branch = n */
            int32_t n = dup ? dup->n : gather->n;
            const EBox *vb = dup ? &dup->box : &gather->box;
            SET(a->shape, nkx, n);
            SET(a->shape, nky, 1);
            SET(a->shape, n_branch, n);
            SET(a->shape, niy, (int32_t)vb->n[0]);
            SET(a->shape, nix, (int32_t)vb->n[1]);
        }
        if (o.feat.c != x1.feat.c)
            return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                              "reads pixels of %lld channels and writes pixels of %lld: P%02d "
                              "writes the channel groups it reads", (long long)x1.feat.c,
                              (long long)o.feat.c, pcode);
        SET(a->shape, nf, (int32_t)x1.feat.c);
    }
    int32_t cb = blk_attr(b, AT_CONSTANT_B);
    int32_t sx = blk_attr(b, AT_STRIDE_X), sy = blk_attr(b, AT_STRIDE_Y);
    int32_t pu = blk_attr(b, AT_PAD_UP), pd = blk_attr(b, AT_PAD_DOWN);
    int32_t pl = blk_attr(b, AT_PAD_LEFT), prr = blk_attr(b, AT_PAD_RIGHT);
    bool pad = pu || pd || pl || prr;
    switch (b->type) {
    case BT_CC: {
        PARAMS(a, p41, Taskir__Asm__P41, taskir__asm__p41__init);
        SET_CONV(p);
        break;
    }
    case BT_CC2D: {
        PARAMS(a, p81, Taskir__Asm__P81, taskir__asm__p81__init);
        int32_t p81pad[4], lead, dx;
        if (!x1.planes)
            return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                              "reads block %d, which is not laid out channel-major as P81 "
                              "reads it: only a model input that only INPUTs write and only "
                              "CC2Ds of the same padding read is", x1.block);
        if (!emit_p81_pad(b, p81pad, &lead, &dx))
            return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                              "pads %d columns on the left with a dilation of %d: P81 reads "
                              "the padding from memory, stored as whole words, which no "
                              "kernel widened by zero columns reaches",
                              pl, blk_attr(b, AT_DILATION_X));
        SET_CONV(p);
        /* the left padding stored as whole words, the kernel widened by as many zero
         * columns (emit_p81.c): the same products, the same output columns; a dilated
         * kernel whose taps are spread out (dx 1) runs undilated over its zero columns */
        SET(p, pad_left, p81pad[2]);
        int32_t step = dx == 1 ? blk_attr(b, AT_DILATION_X) : 1;
        SET(a->shape, nkx, lead + (a->shape->nkx - 1) * (step > 1 ? step : 1) + 1);
        SET(p, dilate_x, dx);
        break;
    }
    case BT_CVM: {
        PARAMS(a, p04, Taskir__Asm__P04, taskir__asm__p04__init);
        SET(p, x1_precision, pr_info(x1.prec)->wire);
        SET(p, x2_precision, pr_info(x2.prec)->wire);
        SET_BIAS(p);
        break;
    }
    case BT_CADD:
        if (scale) { /* n * x, the input's box read where it lies */
            PARAMS(a, p83, Taskir__Asm__P83, taskir__asm__p83__init);
            SET(p, tensor_en, true);
            SET(p, x1_precision, pr_info(x1.prec)->wire);
            SET_BIAS(p);
            SET(p, constant_a, (int32_t)blk_n_variadic(b));
            a->shape->has_nkx = a->shape->has_nky = a->shape->has_n_branch = 0;
            break;
        }
        /* fall through */
    case BT_CAVG: {
        PARAMS(a, p02, Taskir__Asm__P02, taskir__asm__p02__init);
        SET(p, avg_pooling_en, b->type == BT_CAVG);
        SET(p, x1_precision, pr_info(x1.prec)->wire);
        SET_BIAS(p);
        SET(p, has_pad, pad);
        SET_WINDOW(p);
        Status wst = emit_p02_window(e, b, a->shape, p);
        if (wst != ST_OK)
            return wst;
        break;
    }
    case BT_CVVH: {
        /* P03 reads x2 in x1's precision (one x1_precision): x2's values must be x1's */
        const PrecisionInfo *p1 = pr_info(x1.prec), *p2 = pr_info(x2.prec);
        if (p2->lo < p1->lo || p2->hi > p1->hi)
            return diag_block(e->d, ST_LOGIC, "emit.prec", b,
                              "reads input2 in %s (%lld .. %lld), which P03 reads in "
                              "input1's %s (%lld .. %lld)",
                              p2->name, (long long)p2->lo, (long long)p2->hi, p1->name,
                              (long long)p1->lo, (long long)p1->hi);
        /* and in x1's pitch: nf channel groups a pixel of each */
        if (x2.feat.c != x1.feat.c)
            return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                              "reads input1 in pixels of %lld channels and input2 in pixels of "
                              "%lld: P03 reads both in input1's", (long long)x1.feat.c,
                              (long long)x2.feat.c);
        PARAMS(a, p03, Taskir__Asm__P03, taskir__asm__p03__init);
        SET(p, tensor_en, true);
        SET(p, x1_precision, pr_info(x1.prec)->wire);
        SET_BIAS(p);
        SET(p, stride_x, sx);
        SET(p, stride_y, sy);
        break;
    }
    case BT_CAX: {
        PARAMS(a, p43, Taskir__Asm__P43, taskir__asm__p43__init);
        SET(p, tensor_en, true);
        SET(p, x1_precision, pr_info(x1.prec)->wire);
        SET(p, x2_precision, pr_info(x2.prec)->wire);
        SET_BIAS(p);
        SET(p, x2_length, (int32_t)x1.feat.c); /* elements (channels), as P43 reads it */
        break;
    }
    case BT_CVS: {
        /* P83 reads each pixel in whole 32-byte groups of its channels */
        int64_t vb = emit_value_bytes(x1.prec), group = vb ? 32 / vb : 0;
        if (!group || x1.feat.c % group)
            return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                              "P83 reads pixels of whole 32-byte groups, and its input (block "
                              "%d) holds %lld %s channels a pixel", x1.block,
                              (long long)x1.feat.c, pr_info(x1.prec)->name);
        PARAMS(a, p83, Taskir__Asm__P83, taskir__asm__p83__init);
        SET(p, tensor_en, true);
        SET(p, x1_precision, pr_info(x1.prec)->wire);
        SET_BIAS(p);
        SET(p, constant_a, blk_attr(b, AT_CONSTANT_A));
        break;
    }
    default:
        return diag_block(e->d, ST_LOGIC, "emit.prim", b,
                          "the code generator does not write P%02d yet", pcode);
    }
    return e->d->oom ? ST_RUNTIME : ST_OK;
}

/* The Soma primitive of block pos. */
static Status soma_prim(Emit *e, uint32_t pos, int pcode, Taskir__Asm__SomaPrim **out)
{
    const Block *b = e->g->blocks[pos];
    Taskir__Asm__SomaPrim *s =
        emit_msg(e, sizeof *s, (void (*)(void *))taskir__asm__soma_prim__init);
    if (!s)
        return ST_RUNTIME;
    *out = s;
    SET(s, pic, pic_of(pcode));
    EOperand x1 = {0}, lut = {0}, o = {0};
    Status st = input_operand(e, pos, 0, &x1);
    if (st == ST_OK && b->type == BT_CLUT)
        st = input_operand(e, pos, 1, &lut);
    if (st == ST_OK)
        st = output_operand(e, pos, &o);
    if (st == ST_OK && b->type == BT_CLIF) /* P08: its state, layouts and checks */
        return emit_p08(e, pos, s, &(EArea){x1.addr, x1.words, x1.block, x1.feat},
                        &(EArea){o.addr, o.words, o.block, o.feat});
    if (st == ST_OK)
        st = clip_check(e, pos, &o, pcode);
    if (st != ST_OK)
        return st;
    char id[32];
    block_id(id, sizeof id, x1.block);
    s->x1_block = emit_strdup(e, id);
    block_id(id, sizeof id, o.block);
    s->output_block = malloc(sizeof *s->output_block);
    if (s->output_block) {
        s->output_block[0] = emit_strdup(e, id);
        s->n_output_block = s->output_block[0] ? 1 : 0;
    }
    int32_t d[TIR_NDIMS];
    blk_eff_shape(b, d);
    int32_t shift = blk_attr(b, AT_BIT_SHIFT_NUM);
    uint32_t steps = 0;
    if (shift && !chip_soma_shift(e->chip, shift, &steps))
        return diag_block(e->d, ST_LOGIC, "emit.shift", b,
                          "shifts by %d bits, which no Soma shift of %u-bit steps is; "
                          "taskir-map's chip-exact rewrite realises it another way",
                          shift, e->chip->soma_shift_bits);
    /* P05 / P25 shift only when they narrow (a lower hardware precision code in than out);
     * P07 always shifts its index */
    if (shift && b->type != BT_CLUT &&
        asm_hw_prec(pr_info(x1.prec)->wire) >= asm_hw_prec(pr_info(o.prec)->wire))
        return diag_block(e->d, ST_LOGIC, "emit.shift", b,
                          "shifts by %d bits from %s to %s, but the Soma shifts only when it "
                          "narrows (int32 to 8 bits)", shift, pr_info(x1.prec)->name,
                          pr_info(o.prec)->name);
    switch (b->type) {
    case BT_CCMPB:
    case BT_CCMPS: {
        PARAMS(s, px5, Taskir__Asm__PX5, taskir__asm__px5__init);
        int32_t pu = blk_attr(b, AT_PAD_UP), pd = blk_attr(b, AT_PAD_DOWN);
        int32_t pl = blk_attr(b, AT_PAD_LEFT), prr = blk_attr(b, AT_PAD_RIGHT);
        SET(p, x1_precision, pr_info(x1.prec)->wire);
        SET(p, out_precision, pr_info(o.prec)->wire);
        SET(p, has_pad, pu || pd || pl || prr);
        /* nif: the input pitch, the channels a pixel of the input area holds; nof: the
         * output's pitch, or the input's when that is smaller and P05's output row of it
         * (padded to 16 bytes) is the output's pitch: 8 int32 channels a pixel in, 16 int8
         * out (8 of them written, the rest 0) */
        int32_t nof = (int32_t)(o.feat.c < x1.feat.c ? o.feat.c : x1.feat.c);
        int64_t lane = 4 * (int64_t)o.feat.per_word; /* elements a 16-byte unit */
        int64_t row = (nof + lane - 1) / lane * 4;
        if (row != emit_feat_pixel_words(&o.feat))
            return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                              "writes %s pixels of %lld channels from pixels of %lld: P05 "
                              "writes at most the channels it reads",
                              pr_info(o.prec)->name, (long long)o.feat.c,
                              (long long)x1.feat.c);
        SET(p, nif, (int32_t)x1.feat.c);
        SET(p, nof, nof);
        SET(p, nix, d[D_IX]);
        SET(p, niy, d[D_IY]);
        SET(p, nkx, d[D_KX]);
        SET(p, nky, d[D_KY]);
        int32_t sx = blk_attr(b, AT_STRIDE_X), sy = blk_attr(b, AT_STRIDE_Y);
        SET_WINDOW(p);
        /* CMP, clipped to the output's range; an 8-bit output compares lane by lane with
         * the bytes of the packed word: four equal entries */
        const PrecisionInfo *op = pr_info(o.prec);
        int32_t cmp = asm_clip(blk_attr(b, AT_CMP), (int32_t)op->lo, (int32_t)op->hi);
        size_t n_cmp = o.prec == PR_INT_32 ? 1 : 4;
        p->compare_init = malloc(n_cmp * sizeof *p->compare_init);
        if (p->compare_init) {
            for (size_t i = 0; i < n_cmp; i++)
                p->compare_init[i] = cmp;
            p->n_compare_init = n_cmp;
        }
        SET(p, bit_shift_num, (int32_t)steps);
        SET(p, x1_base_addr, (int32_t)x1.addr);
        SET(p, x1_addr_length, (int32_t)x1.words);
        SET(p, o_base_addr, (int32_t)o.addr);
        SET(p, o_addr_length, (int32_t)o.words);
        SET(p, pic_mode, b->type == BT_CCMPS ? 1 : 0);
        break;
    }
    case BT_CLUT: {
        PARAMS(s, p07, Taskir__Asm__P07, taskir__asm__p07__init);
        int32_t dw = blk_attr(b, AT_LUT_DW);
        int64_t entries = layout_lut_entries(dw); /* the table widened to one P07 reads */
        int32_t code = entries == 16 ? 0 : entries == 256 ? 1 : entries == 4096 ? 2 : 3;
        if (!entries)
            return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                              "looks up a table of 2^%d entries: P07 reads 16, 256, 4096 or "
                              "65536", dw);
        block_id(id, sizeof id, lut.block);
        s->lut_block = emit_strdup(e, id);
        SET(p, x1_precision, pr_info(x1.prec)->wire);
        SET(p, x2_precision, pr_info(o.prec)->wire);
        if (lut.prec != o.prec) /* P07 reads its table in the output's precision */
            return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                              "reads a table of %s entries and writes %s values: P07 reads the "
                              "table in its output's precision, and the code generator does not "
                              "write the table's image in another precision yet",
                              pr_info(lut.prec)->name, pr_info(o.prec)->name);
        /* P07 writes a row as long as the one it reads, padded to 4 elements (index and
         * table int32) or 16 */
        int64_t pad = x1.prec == PR_INT_32 && o.prec == PR_INT_32 ? 4 : 16;
        /* a row a pixel; of one pixel, a row as long as the output's when that holds every
         * channel (batch_stats' `ratio/hi`: 32 int32 channels stored, 4 real, 8 written) */
        int64_t row = x1.feat.c;
        if (x1.feat.ny * x1.feat.nx == 1 && o.feat.c < row && o.feat.c >= x1.feat.nc &&
            o.feat.c % pad == 0)
            row = o.feat.c;
        if ((row + pad - 1) / pad * pad != o.feat.c)
            return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                              "reads pixels of %lld channels and writes pixels of %lld: P07 "
                              "writes a row as long as the one it reads, padded to %lld",
                              (long long)x1.feat.c, (long long)o.feat.c, (long long)pad);
        SET(p, neuron_real_num, (int32_t)row);
        SET(p, group_num, (int32_t)(x1.feat.ny * x1.feat.nx));
        SET(p, x1_base_addr, (int32_t)x1.addr);
        SET(p, x1_addr_length, (int32_t)x1.words);
        SET(p, lut_base_addr, (int32_t)lut.addr);
        SET(p, lut_addr_length, (int32_t)lut.words);
        SET(p, o_base_addr, (int32_t)o.addr);
        SET(p, o_addr_length, (int32_t)o.words);
        SET(p, lut_data_width, code);
        SET(p, bit_shift_num, (int32_t)steps);
        break;
    }
    default:
        return diag_block(e->d, ST_LOGIC, "emit.prim", b,
                          "the code generator does not write P%02d yet", pcode);
    }
    return e->d->oom ? ST_RUNTIME : ST_OK;
}

Status emit_prims(Emit *e, Taskir__Asm__Config *cfg)
{
    (void)cfg;
    Status worst = ST_OK;
    for (uint32_t pos = 0; pos < e->g->n_blocks; pos++) {
        const Block *b = e->g->blocks[pos];
        uint32_t k = e->core_of[pos];
        if (bt_info(b->type)->kind != BK_COMPUTE || k == EMIT_NONE)
            continue;
        const ChipPrim *pr = chip_prim_for(e->chip, b->type);
        int32_t slot = e->slot_of[pos], ph = e->phase_of[pos];
        Taskir__Asm__StaticPrimList *l = emit_slot_list(e, k, ph);
        if (!l)
            return ST_RUNTIME;
        if (!pr || (pr->unit == UNIT_AXON) != (slot == MAP_PI_AXON) ||
            (slot != MAP_PI_AXON && slot != MAP_PI_SOMA1 && slot != MAP_PI_SOMA2)) {
            worst = diag_block(e->d, ST_LOGIC, "emit.slot", b,
                               "runs in slot %d, which is not its primitive's unit", slot);
            continue;
        }
        Status st;
        if (slot == MAP_PI_AXON) {
            if (l->axon)
                st = diag_block(e->d, ST_LOGIC, "emit.slot", b, "shares the Axon of phase %d",
                                ph);
            else
                st = axon_prim(e, pos, pr->pcode, &l->axon);
        } else {
            Taskir__Asm__SomaPrim **sp = slot == MAP_PI_SOMA1 ? &l->soma1 : &l->soma2;
            if (*sp)
                st = diag_block(e->d, ST_LOGIC, "emit.slot", b, "shares its Soma slot of phase %d",
                                ph);
            else
                st = soma_prim(e, pos, pr->pcode, sp);
        }
        if (st == ST_RUNTIME)
            return st;
        if (st > worst)
            worst = st;
    }
    Status st = worst == ST_OK ? emit_tee_prims(e) : ST_OK;
    return st > worst ? st : worst;
}
