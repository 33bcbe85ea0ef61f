/* emit_plan.c: what every core holds and where (docs/backend.md, "The code generator",
 * "Memory plan"):
 *   - one copy of a storage block per MEMORY coordinate of the Mapping, over the box its
 *     users on that core read and write (the bounding box of their interfaces), alive over
 *     the coordinate's [phase, end_phase];
 *   - an output buffer for a compute block that writes no storage on its own core (its
 *     result only leaves by the router), alive from its phase to its last send;
 *   - the static data images of weights, biases and tables (emit_layout.h);
 *   - the memory plan of each core (alloc.h): static areas MEM1 first, data MEM0 first,
 *     received copies in the receive area; one that lives past the phase it arrives in
 *     only there, then in the data banks (a P06 in Soma2 of that phase moves it,
 *     emit_move.c), when that Soma2 is free.
 */
#include "backend/emit_internal.h"

#include "taskir/diag_block.h"
#include "taskir/lanes.h"
#include "taskir/layout.h"
#include "taskir/layout_buf.h"
#include "taskir/premove.h"
#include "taskir/rearrange.h"

#include <stdlib.h>
#include <string.h>


/* Storage types whose content is a static tensor [f][r][ky][kx] (weights and biases). */
static bool tensor_type(BlockType t)
{
    return t == BT_SW || t == BT_SWFC || t == BT_SB || t == BT_SW2D;
}

bool emit_iface_box(const Emit *e, uint32_t pos, bool input, int32_t edge_id, EBox *out)
{
    const Block *b = e->g->blocks[pos];
    const IfaceUse *u = uses_find(&e->uses, pos, input, edge_id);
    int32_t cd[TIR_CDIMS];
    if (!u || !blk_cluster_dims(b, input, u->cluster, cd))
        return false;
    const Cluster *c = input ? &b->in[u->cluster] : &b->out[u->cluster];
    const Iface *f = &c->ifaces[u->iface];
    int64_t lo[TIR_CDIMS], n[TIR_CDIMS];
    for (int i = 0; i < TIR_CDIMS; i++) {
        int64_t whole = cd[i] > 0 ? cd[i] : 1;
        lo[i] = f->has_pos && f->pos.d[i] > 0 ? f->pos.d[i] : 0;
        n[i] = f->has_size && f->size.d[i] > 0 ? f->size.d[i] : whole - lo[i];
    }
    if (tensor_type(b->type)) {
        for (int i = 0; i < 4; i++) {
            out->lo[i] = lo[2 + i];
            out->n[i] = n[2 + i];
        }
    } else {
        int ch = cd[D_F] > 0 ? D_F : D_R;
        out->lo[0] = lo[D_Y];
        out->n[0] = n[D_Y];
        out->lo[1] = lo[D_X];
        out->n[1] = n[D_X];
        out->lo[2] = lo[ch];
        out->n[2] = n[ch];
        out->lo[3] = 0;
        out->n[3] = 1;
    }
    return true;
}

bool emit_keeps_order(const Emit *e, const Edge *ed)
{
    return ra_edge_keeps_order(e->g, &e->uses, ed);
}

int64_t emit_copy_addr(const Emit *e, const ECopy *cp)
{
    const ECore *c = &e->cores[cp->core];
    if (cp->alias_of == EMIT_NONE)
        return c->addr[cp->req] + cp->req_off;
    const EOut *o = &e->outs[cp->alias_of];
    return c->addr[o->req] + cp->alias_off * emit_feat_pixel_words(&o->feat);
}

int64_t emit_copy_dest_addr(const Emit *e, const ECopy *cp)
{
    return cp->land == EMIT_NONE ? emit_copy_addr(e, cp) : e->cores[cp->core].addr[cp->land];
}

int64_t emit_feat_addr(const EmitFeat *f, const EBox *b, int64_t base, int64_t y, int64_t x)
{
    return base + emit_feat_offset(f, y - b->lo[0], x - b->lo[1]);
}

static void box_union(EBox *acc, bool *have, const EBox *b)
{
    if (!*have) {
        *acc = *b;
        *have = true;
        return;
    }
    for (int i = 0; i < 4; i++) {
        int64_t lo = acc->lo[i] < b->lo[i] ? acc->lo[i] : b->lo[i];
        int64_t hi1 = acc->lo[i] + acc->n[i], hi2 = b->lo[i] + b->n[i];
        acc->lo[i] = lo;
        acc->n[i] = (hi1 > hi2 ? hi1 : hi2) - lo;
    }
}

/* The block at the other end of edge position ep. */
static long other_end(const Emit *e, uint32_t ep, bool src)
{
    const Edge *ed = e->g->edges[ep];
    return graph_block_pos(e->g, src ? ed->src : ed->dst);
}

const MapDict *emit_edge_dict(const Emit *e, int32_t edge_id)
{
    long pos = graph_edge_pos(e->g, edge_id);
    uint32_t i = pos >= 0 ? e->dict_of_edge[pos] : EMIT_NONE;
    return i == EMIT_NONE ? NULL : &e->m->edges[i];
}

bool emit_same_place(const ECore *k, const MapCoord *c)
{
    return k->chip.x == c->chip.x && k->chip.y == c->chip.y && k->core.x == c->core.x &&
           k->core.y == c->core.y;
}

/* Whether compute block w writes its whole result through edge eid (its interface there
 * covers its output cluster): then its primitive can write straight into the storage, and
 * other edges of its result are sent from there. */
static bool writes_all_here(const Emit *e, uint32_t w, int32_t eid)
{
    return e->g->blocks[w]->n_out == 1 && emit_whole_iface(e, w, false, eid);
}

bool emit_writes_pieces(const Emit *e, uint32_t w, uint32_t s, EBox *box)
{
    const BlockUses *bu = &e->uses.blocks[w];
    int32_t cd[TIR_CDIMS];
    if (e->g->blocks[w]->n_out != 1 || bu->n_out_edges < 2 ||
        !blk_cluster_dims(e->g->blocks[w], false, 0, cd))
        return false;
    int64_t px = 0;
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const Edge *ed = e->g->edges[bu->out_edges[j]];
        EBox src, dst;
        if (ed->n_re || graph_block_pos(e->g, ed->dst) != (long)s ||
            !emit_iface_box(e, w, false, ed->id, &src) ||
            !emit_iface_box(e, s, true, ed->id, &dst) || memcmp(&src, &dst, sizeof src) != 0)
            return false;
        px += src.n[0] * src.n[1] * src.n[2];
    }
    EBox all = {{0}, {cd[D_Y] > 0 ? cd[D_Y] : 1, cd[D_X] > 0 ? cd[D_X] : 1,
                      cd[D_F] > 0 ? cd[D_F] : 1, 1}};
    if (px != all.n[0] * all.n[1] * all.n[2])
        return false;
    *box = all;
    return true;
}

/* Whether copy cp (box cbox, its writer's edge eid landing on box b of the storage) can live
 * inside writer w's output buffer: the edge carries whole rows of w's result (all its
 * columns and channels, or one row) as they are, and the copy is that box. Sets alias_of and
 * alias_off (in pixels until the buffer's layout is known: emit_plan fixes it up). */
static bool alias_rows(const Emit *e, ECopy *cp, uint32_t w, int32_t eid, const EBox *b,
                       const EBox *cbox)
{
    const Edge *ed = graph_edge(e->g, eid);
    const Block *wb = e->g->blocks[w];
    int32_t cd[TIR_CDIMS];
    EBox wbox;
    if (!ed || ed->n_re || wb->n_out != 1 || !blk_cluster_dims(wb, false, 0, cd) ||
        !emit_iface_box(e, w, false, eid, &wbox) || memcmp(b, cbox, sizeof *b) != 0)
        return false;
    int64_t X = cd[D_X] > 0 ? cd[D_X] : 1, C = cd[D_F] > 0 ? cd[D_F] : 1;
    bool rows = wbox.n[0] == 1 || (wbox.lo[1] == 0 && wbox.n[1] == X);
    if (!rows || wbox.lo[2] != 0 || wbox.n[2] != C)
        return false;
    cp->alias_of = w;
    cp->alias_off = wbox.lo[0] * X + wbox.lo[1]; /* pixels */
    return true;
}

/* The pitch unit of compute block pos's output buffer and its precision (*prec):
 * taskir/layout_buf.h, which the mapper counts the buffer by. */
static int out_unit(const Emit *e, uint32_t pos, PrecisionId *prec)
{
    return layout_buffer_unit(e->g, &e->uses, pos, prec);
}

static bool own_row(const Emit *e, uint32_t pos, int unit, int own)
{
    return layout_own_row(e->g, &e->uses, pos, unit, own);
}

/* Whether compute block w's router moves the bytes of an edge other than eid into a storage
 * block held on core k (taskir/lanes.h lanes_moved): its primitive then writes a buffer,
 * which the router gathers into each of its copies on k (emit_route.c), none written
 * straight (rank_0's `clip`, one value into a map of 20 and into an OUTPUT's map of 1). */
static bool gathers_lanes(const Emit *e, uint32_t w, int32_t eid, uint32_t k)
{
    const BlockUses *bu = &e->uses.blocks[w];
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const Edge *ed = e->g->edges[bu->out_edges[j]];
        long s = graph_block_pos(e->g, ed->dst);
        if (ed->id == eid || s < 0 || !lanes_moved(e->g, &e->uses, ed))
            continue;
        for (uint32_t i = 0; i < e->m->n_nodes; i++) {
            const MapDict *dict = &e->m->nodes[i];
            for (uint32_t c = 0; dict->task_id == e->g->blocks[s]->id && c < dict->n_coords; c++)
                if (emit_same_place(&e->cores[k], &dict->coords[c]))
                    return true;
        }
    }
    return false;
}

/* The box of copy cp: what its users on its core read and write; without users there, what
 * its writers write (from other cores or off chip); else the whole block. Whether it is
 * received by the router. */
static bool copy_box(const Emit *e, ECopy *cp)
{
    uint32_t pos = cp->block;
    const BlockUses *bu = &e->uses.blocks[pos];
    EBox box, all;
    bool have = false, have_all = false;
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        long t = other_end(e, bu->out_edges[j], false);
        const Edge *ed = e->g->edges[bu->out_edges[j]];
        EBox b;
        if (t < 0 || !emit_iface_box(e, pos, false, ed->id, &b))
            return false;
        if (e->core_of[t] == cp->core || e->g->blocks[t]->type == BT_OUTPUT)
            box_union(&box, &have, &b);
    }
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        long w = other_end(e, bu->in_edges[j], true);
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        EBox b;
        if (w < 0 || !emit_iface_box(e, pos, true, ed->id, &b))
            return false;
        box_union(&all, &have_all, &b);
        if (e->core_of[w] == cp->core)
            box_union(&box, &have, &b);
        const MapDict *dict = emit_edge_dict(e, ed->id);
        if (e->g->blocks[w]->type != BT_INPUT && dict)
            for (uint32_t c = 0; c < dict->n_coords; c++)
                if (dict->coords[c].pi_index == MAP_PI_ROUTER_RECIEVE &&
                    emit_same_place(&e->cores[cp->core], &dict->coords[c]))
                    cp->received = true;
    }
    if (!have && have_all) {
        box = all;
        have = true;
    }
    /* a writer on this core whose box is not whole rows of the copy writes a buffer, and
     * the router moves it into the copy (emit_route.c): the copy is received then */
    for (uint32_t j = 0; have && j < bu->n_in_edges; j++) {
        long w = other_end(e, bu->in_edges[j], true);
        int32_t eid = e->g->edges[bu->in_edges[j]]->id;
        EBox b;
        if (w < 0 || e->core_of[w] != cp->core || !emit_iface_box(e, pos, true, eid, &b))
            continue;
        int64_t q0, npx;
        if (emit_writes_run(e, (uint32_t)w, pos, &box, &q0, &npx))
            continue; /* a run of its pixels, written straight (emit_runwrite.c) */
        bool rows = b.n[0] == 1 || (b.lo[1] == box.lo[1] && b.n[1] == box.n[1]);
        bool whole = rows && b.lo[2] == box.lo[2] && b.n[2] == box.n[2];
        EmitFeat vf; /* a rearrangement no primitive writes: the router moves its bytes
                        (emit_lanes.c), unless the copy is a view of the writer's map */
        if (!emit_lanes_straight(e, e->g->edges[bu->in_edges[j]], (uint32_t)w, &b) &&
            !emit_rearr_view(e, pos, cp->core, &vf))
            whole = false;
        EBox all;
        /* a writer whose router moves bytes to its core writes a buffer: the copy lives in
         * it when it has the buffer's layout, else it is gathered from it */
        bool buf = whole && gathers_lanes(e, (uint32_t)w, eid, cp->core);
        PrecisionId bprec;
        if (buf && (out_unit(e, (uint32_t)w, &bprec) != emit_storage_unit(e, pos) ||
                    bprec != blk_prec(e->g->blocks[pos])))
            whole = false;
        /* a P07's rows of another pitch: its router re-pitches them (own_row); an Axon's
           int32 rows a P06 re-pitches in the Soma after it (emit_narrow.c) */
        PrecisionId cprec = blk_prec(e->g->blocks[pos]), wprec;
        if (whole && !buf && e->g->blocks[w]->type == BT_CLUT &&
            out_unit(e, (uint32_t)w, &wprec) > 0 && wprec == cprec &&
            own_row(e, (uint32_t)w, emit_storage_unit(e, pos),
                    layout_output_unit(e->g, &e->uses, (uint32_t)w, cprec)))
            whole = false;
        /* a map in the Soma's rows gathered from pieces: its router sends the piece's rows
           from a send area a P06 re-pitches them into (emit_sendbuf.c) */
        if (whole && !buf && layout_soma_rows(e->g, &e->uses, pos))
            whole = false;
        if (whole && !buf && (writes_all_here(e, (uint32_t)w, eid) ||
                              emit_writes_pieces(e, (uint32_t)w, pos, &all)))
            continue; /* the primitive writes straight into the copy */
        if (whole && bu->n_in_edges == 1 && alias_rows(e, cp, (uint32_t)w, eid, &b, &box)) {
            e->outs[w].aliased = true; /* the copy is rows of the writer's buffer */
            continue;
        }
        e->outs[w].gather = true;
        cp->received = true;
    }
    if (!have) {
        int32_t cd[TIR_CDIMS];
        const Block *b = e->g->blocks[pos];
        if (!blk_cluster_dims(b, false, 0, cd))
            return false;
        EBox w = {{0}, {1, 1, 1, 1}};
        if (tensor_type(b->type)) {
            for (int i = 0; i < 4; i++)
                w.n[i] = cd[2 + i] > 0 ? cd[2 + i] : 1;
        } else {
            w.n[0] = cd[D_Y] > 0 ? cd[D_Y] : 1;
            w.n[1] = cd[D_X] > 0 ? cd[D_X] : 1;
            w.n[2] = cd[D_F] > 0 ? cd[D_F] : cd[D_R] > 0 ? cd[D_R] : 1;
        }
        box = w;
    }
    cp->box = box;
    return true;
}

/* The first compute block reading storage pos on core k, and the role of the cluster it
 * reads it through ("weight", "bias", "lut", ...); NULL when none. */
static const char *reader_role(const Emit *e, uint32_t pos, uint32_t k, long *reader)
{
    const BlockUses *bu = &e->uses.blocks[pos];
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        long t = other_end(e, bu->out_edges[j], false);
        if (t < 0 || e->core_of[t] != k)
            continue;
        const IfaceUse *u = uses_find(&e->uses, (uint32_t)t, true, e->g->edges[bu->out_edges[j]]->id);
        const ClusterSpec *cs = u ? blk_in_spec(e->g->blocks[t], u->cluster) : NULL;
        if (cs) {
            *reader = t;
            return cs->role;
        }
    }
    return NULL;
}

/* A feature map's values written in its layout (a static map: a table, an alpha): the box
 * of a tensor of full extents X (x) and C (channels), in C order. */
static uint32_t *feat_image(const EmitFeat *f, const Tensor *t, const EBox *box, int64_t X,
                            int64_t C, size_t *n)
{
    uint32_t *w = calloc((size_t)f->words ? (size_t)f->words : 1, sizeof *w);
    if (!w)
        return NULL;
    *n = (size_t)f->words;
    int64_t vol = (int64_t)t->n_i32 + t->n_u32;
    for (int64_t y = 0; y < box->n[0]; y++)
        for (int64_t x = 0; x < box->n[1]; x++)
            for (int64_t c = 0; c < box->n[2]; c++) {
                int64_t flat = ((box->lo[0] + y) * X + box->lo[1] + x) * C + box->lo[2] + c;
                if (flat >= vol)
                    continue;
                int32_t v = t->i32 ? t->i32[flat] : (int32_t)t->u32[flat];
                int64_t off = emit_feat_offset(f, y, x);
                if (f->per_word == 1)
                    w[off + c] = (uint32_t)v;
                else if (f->per_word == 4)
                    emit_put_i8(w + off, c, v);
                else
                    w[off + c / 16] |= (uint32_t)(v & 3) << (2 * (c % 16));
            }
    return w;
}

/* The precision of the storage compute block w writes (its first out edge's), else its
 * own. */
static PrecisionId written_prec(const Emit *e, uint32_t w)
{
    const BlockUses *bu = &e->uses.blocks[w];
    long s = bu->n_out_edges ? other_end(e, bu->out_edges[0], false) : -1;
    return blk_prec(e->g->blocks[s >= 0 ? (uint32_t)s : w]);
}

/* The image of a static tensor copy (weights, bias) for the primitive that reads it. */
static Status tensor_image(Emit *e, ECopy *cp, const char *role, long reader)
{
    const Block *b = e->g->blocks[cp->block];
    const Tensor *t = b->data;
    EmitSrc s = {.t = t->i32, .dims = {1, 1, 1, 1}};
    int64_t vol = 1;
    for (uint32_t i = 0; i < t->n_dims && i < 4; i++) {
        s.dims[i] = t->dims[i];
        vol *= t->dims[i];
    }
    bool inside = true;
    for (int i = 0; i < 4; i++) {
        s.o[i] = cp->box.lo[i];
        s.n[i] = cp->box.n[i];
        inside &= s.o[i] >= 0 && s.n[i] >= 1 && s.o[i] + s.n[i] <= s.dims[i];
    }
    if (!t->i32 || t->n_dims > 4 || vol != (int64_t)t->n_i32 || !inside)
        return diag_block(e->d, ST_LOGIC, "emit.data", b,
                          "its data tensor (%u dims, %u int32 values) is not the %s tensor the "
                          "code generator lays out", t->n_dims, t->n_i32, bt_info(b->type)->name);
    BlockType rt = reader >= 0 ? e->g->blocks[reader]->type : BT_TASK_NULL;
    PrecisionId outp = rt == BT_CLUT ? written_prec(e, (uint32_t)reader) : PR_INT_32;
    const PrecisionInfo *out = pr_info(outp);
    int64_t entries = rt == BT_CLUT && role && strcmp(role, "lut") == 0
                          ? layout_lut_entries(blk_attr(e->g->blocks[reader], AT_LUT_DW)) : 0;
    if (entries > s.n[0] && s.n[1] * s.n[2] * s.n[3] == 1) {
        /* a table of another size than P07 reads: at both ends of its entries (layout.h),
         * in the precision of the map the CLUT writes, clipped to it */
        if (out->bits == 8)
            cp->image_prec = outp;
        cp->image = emit_image_lut(&s, entries, out->bits, (int32_t)out->lo, (int32_t)out->hi,
                                   &cp->n_image);
    } else if (rt == BT_CLUT && role && strcmp(role, "lut") == 0 && out->bits == 8) {
        /* P07 reads its table in the precision of the map it writes: the entries clipped to
         * it, as that map holds the entry read, 4 a word (an 8-bit table too: one entry a
         * word, as a bias is written, was 4 times the words P07 reads) */
        cp->image_prec = outp;
        cp->image = emit_image_bytes_clip(&s, (s.n[0] + 15) / 16 * 16, (int32_t)out->lo,
                                          (int32_t)out->hi, &cp->n_image);
    } else if (role && strcmp(role, "alpha") == 0 && pr_info(blk_prec(b))->bits == 8)
        /* P43's alpha: 8-bit lanes, in whole groups of 32 channels as P43 reads them */
        cp->image = emit_image_bytes(&s, (s.n[0] + 31) / 32 * 32, &cp->n_image);
    else if (b->type == BT_SB || (role && strcmp(role, "bias") == 0))
        cp->image = emit_image_bias(&s, &cp->n_image);
    else if (b->type == BT_SWFC && rt == BT_CVM && emit_rearr_input(e, (uint32_t)reader) >= 0) {
        /* the CVM reads a view of a map: a weight row for each lane of it (emit_rearr.c) */
        int64_t *rows = NULL, n = 0;
        Status st = s.o[1] == 0 && s.n[1] == s.dims[1]
                        ? emit_rearr_rows(e, (uint32_t)emit_rearr_input(e, (uint32_t)reader),
                                          &rows, &n)
                        : diag_block(e->d, ST_LOGIC, "emit.rearrange", b,
                                     "part of its rows meet a vector that is a view of a map");
        if (st != ST_OK)
            return st;
        cp->image = emit_image_fc_w(&s, rows, n, &cp->n_image);
        free(rows);
    } else if (b->type == BT_SWFC)
        cp->image = emit_image_fc_w(&s, NULL, 0, &cp->n_image);
    else if (b->type == BT_SW && rt == BT_CC)
        cp->image = emit_image_conv_w(&s, &cp->n_image);
    else if (b->type == BT_SW2D && rt == BT_CC2D) {
        /* P81's kernel widened to its stored left padding, its taps spread out when it
         * runs undilated */
        const Block *rb = e->g->blocks[reader];
        int32_t pad[4], lead = 0, dx = 1;
        if (!emit_p81_pad(rb, pad, &lead, &dx))
            lead = 0, dx = 1;
        int32_t step = dx == 1 && blk_attr(rb, AT_DILATION_X) > 1 ? blk_attr(rb, AT_DILATION_X)
                                                                   : 1;
        cp->image = emit_image_conv2d_w(&s, lead, step, &cp->n_image);
    }
    else
        return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                          "the code generator has no layout for %s weights read by %s",
                          bt_info(b->type)->name, reader >= 0 ? bt_info(rt)->name : "nothing");
    if (!cp->image)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory laying out block %d",
                        b->id);
    return ST_OK;
}

int emit_storage_unit(const Emit *e, uint32_t pos)
{
    return layout_storage_unit(e->g, &e->uses, pos);
}

/* The phases a received copy cp arrives in by the router from other cores: the first phase
 * the Mapping gives each edge into it there (emit_route.c sends a transfer whole in it),
 * [*lo, *hi]. false when a writer on its own core writes part of it too (straight into it,
 * or gathered by the router: a move of the whole copy would overwrite that part) or nothing
 * arrives. */
static bool arrivals(const Emit *e, const ECopy *cp, int32_t *lo, int32_t *hi)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    *lo = INT32_MAX;
    *hi = INT32_MIN;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        long w = other_end(e, bu->in_edges[j], true);
        if (w >= 0 && e->core_of[w] == cp->core)
            return false;
        const MapDict *dict = emit_edge_dict(e, e->g->edges[bu->in_edges[j]]->id);
        for (uint32_t c = 0; dict && c + 1 < dict->n_coords; c++) {
            const MapCoord *cs = &dict->coords[c], *cr = &dict->coords[c + 1];
            if (cs->pi_index != MAP_PI_ROUTER_SEND || cr->pi_index != MAP_PI_ROUTER_RECIEVE ||
                !emit_same_place(&e->cores[cp->core], cr))
                continue;
            *lo = cs->phase < *lo ? cs->phase : *lo;
            *hi = cs->phase > *hi ? cs->phase : *hi;
            break; /* the first pair to this core carries it all */
        }
    }
    return *lo <= *hi;
}

/* Whether a CADD on cp's core adds a box of cp to itself as P02 (not P83 scaling it where
 * it lies, layout_repeat_scales): its inserted P06 (make_dups)
 * copies the box out of the copy, in Soma2 of the copy's arrival phase at the earliest, so a
 * move would only take that slot. */
static bool repeated_here(const Emit *e, const ECopy *cp)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        long t = other_end(e, bu->out_edges[j], false), src = -1;
        if (t >= 0 && e->core_of[t] == cp->core &&
            layout_repeats(e->g, &e->uses, (uint32_t)t, &src) && src == (long)cp->block &&
            !layout_repeat_scales(e->g, &e->uses, (uint32_t)t))
            return true;
    }
    return false;
}

/* Makes copy cp's layout or image and requests its area. */
static Status plan_copy(Emit *e, ECopy *cp, int32_t first, int32_t last)
{
    const Block *b = e->g->blocks[cp->block];
    const BlockUses *bu = &e->uses.blocks[cp->block];
    if (!copy_box(e, cp))
        return diag_block(e->d, ST_RUNTIME, "emit.internal", b, "an interface box is missing");
    cp->is_static = b->data && bu->n_in_edges == 0;
    cp->image_prec = blk_prec(b);
    int32_t align = 8;
    int64_t words;
    if (cp->is_static && tensor_type(b->type)) {
        long reader = -1;
        const char *role = reader_role(e, cp->block, cp->core, &reader);
        Status st = tensor_image(e, cp, role, reader);
        if (st != ST_OK)
            return st;
        words = (int64_t)cp->n_image;
    } else {
        cp->view = emit_rearr_view(e, cp->block, cp->core, &cp->feat);
        cp->planes = !cp->view && emit_p81_planes(e, cp->block, &cp->box, &cp->feat);
        Status zs = emit_p81_zeros(e, cp); /* stored padding: zeros under the rows */
        if (zs != ST_OK)
            return zs;
        if (!cp->view && !cp->planes &&
            !emit_p08_feat(e, cp->block, cp->core, &cp->box, &cp->feat) &&
            !emit_rearr_held_wide(e, cp->block, &cp->box, &cp->feat) &&
            !emit_feat(blk_prec(b), cp->box.n[0], cp->box.n[1], cp->box.n[2],
                       emit_storage_unit(e, cp->block), &cp->feat))
            return diag_block(e->d, ST_LOGIC, "emit.prec", b,
                              "holds %s values, which the chip has no memory layout for "
                              "(INT_8, UINT_8, TERNARY and INT_32 only)",
                              pr_info(blk_prec(b))->name);
        EmitFeat packed; /* assembled byte by byte for OUTPUTs only (emit_packed.c) */
        if (!cp->view && !cp->planes && emit_packed_feat(e, cp, &cp->feat, &packed))
            cp->feat = packed;
        if (cp->is_static) {
            int32_t cd[TIR_CDIMS];
            if (!blk_cluster_dims(b, false, 0, cd))
                return diag_block(e->d, ST_RUNTIME, "emit.internal", b, "no output cluster");
            int64_t X = cd[D_X] > 0 ? cd[D_X] : 1;
            int64_t C = cd[D_F] > 0 ? cd[D_F] : cd[D_R] > 0 ? cd[D_R] : 1;
            cp->image = feat_image(&cp->feat, b->data, &cp->box, X, C, &cp->n_image);
            if (!cp->image)
                return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
        }
        words = cp->feat.words;
        align = cp->feat.align;
    }
    if (words == 0)
        words = 1;
    cp->first = first;
    cp->last = last;
    if (cp->alias_of != EMIT_NONE) {
        cp->req = EMIT_NONE; /* lives in its writer's buffer (make_outs) */
        return ST_OK;
    }
    uint32_t dup = cp->received ? emit_dup_first(e, cp) : EMIT_NONE;
    if (dup != EMIT_NONE) { /* its values on its core already: their area, over both lives */
        ECopy *f = &e->copies[dup];
        AllocReq *r = &e->cores[cp->core].reqs[f->req];
        f->first = r->first = first < r->first ? first : r->first;
        f->last = r->last = last > r->last ? last : r->last;
        cp->dup_of = dup;
        cp->req = f->req;
        cp->received = false;
        return ST_OK;
    }
    AllocKind kind = cp->is_static ? ALLOC_STATIC : cp->received ? ALLOC_RECV : ALLOC_DATA;
    if (kind == ALLOC_RECV && align < 2)
        align = 2; /* the router's destinations count 8-byte units */
    int32_t lo, hi;
    if (kind == ALLOC_RECV && emit_spread_of(e, cp)) {
        /* its transfers arrive over several phases: each phase's rows land in the receive
         * area and move on to its area in the data banks (emit_spread.c) */
        cp->spread = true;
        kind = ALLOC_DATA;
    } else if (kind == ALLOC_RECV && arrivals(e, cp, &lo, &hi) && (hi < last || first < lo) &&
               lo >= first && !repeated_here(e, cp)) {
        /* it lives on past its arrival (after it, or before it: data of the step before, a
         * stage's input landing in the step's last phases and read in the next step's
         * first): moved out of the receive area when Soma2 of its last arrival phase is
         * still free once the P06s that must have a slot have theirs (plan_moves) */
        cp->movable = true;
        cp->land_first = lo;
        cp->move_phase = hi;
        cp->move_slot = MAP_PI_SOMA2;
    }
    cp->req = emit_request(e, cp->core, words, align, first, last, kind, b->id);
    if (cp->req == EMIT_NONE)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    return ST_OK;
}

/* Whether copy i stays in the receive area for a gather's P06 to read it there
 * (emit_gathered_early), rather than move out in the first pass of moves: not when a relaying
 * chain's pitch is recorded for it (emit_pin.c), which its landing area takes. */
static bool gathered_there(Emit *e, uint32_t i)
{
    const ECopy *cp = &e->copies[i];
    return emit_gathered_early(e, i) && !emit_pin_pitch_of(e, cp->core, cp->block);
}

/* The received copies that live on past the phases they arrive in (plan_copy): the receive
 * area holds each in those phases and a P06 in Soma2 of the last one moves it to the data
 * banks (emit_move.c), where its area lives the copy's whole life, as the mapper counts it (a
 * stage's input, sent late in one step, is read early in the next). Planned after the P06s
 * that must have a slot (spread parts, narrows, repeated boxes, gathers: the mapper kept
 * their slots free, docs/mapper.md), and only where that Soma2 is still free. late: the
 * second pass, after the gathers that read a copy straight from the receive area
 * (emit_early.c): a copy whose Soma2 was taken moves at a later free Soma slot where nothing
 * reads it before (emit_latemove.c); else it stays in the receive area its whole life. */
static Status plan_moves(Emit *e, bool late)
{
    for (uint32_t i = 0; i < e->n_copies; i++) {
        ECopy *cp = &e->copies[i];
        int32_t p = cp->move_phase, sl = MAP_PI_SOMA2;
        if (!cp->movable || cp->land != EMIT_NONE || cp->req == EMIT_NONE ||
            e->cores[cp->core].reqs[cp->req].kind != ALLOC_RECV ||
            (!late && (emit_soma_taken(e, cp->core, p, sl) || gathered_there(e, i))) ||
            (late && !emit_late_move(e, cp, &p, &sl)))
            continue;
        cp->move_phase = p;
        cp->move_slot = sl;
        ECore *c = &e->cores[cp->core];
        AllocReq r = c->reqs[cp->req];
        /* a relaying chain's pitch, wider than its own (emit_pin.c): whole pixels of it */
        int64_t pitch = emit_pin_pitch_of(e, cp->core, cp->block);
        if (pitch > emit_feat_pixel_words(&cp->feat) && pitch % 4 == 0 &&
            r.words == cp->feat.words && !cp->planes && !cp->view && !cp->spread &&
            cp->alias_of == EMIT_NONE && !emit_merge_of(e, cp)) {
            cp->land_pitch = pitch;
            r.words = cp->feat.ny * cp->feat.nx * pitch;
        }
        cp->land = emit_request(e, cp->core, r.words, r.align, cp->land_first, cp->move_phase,
                                ALLOC_RECV, r.tag);
        if (cp->land == EMIT_NONE)
            return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
        c->reqs[cp->req].kind = ALLOC_DATA;
        Status st = emit_slot_take(e, cp->core, p, sl, SLOT_MOVE, cp->block);
        if (st != ST_OK)
            return st;
    }
    return ST_OK;
}

/* Adds copies for every MEMORY coordinate (one per core). */
static Status make_copies(Emit *e)
{
    for (uint32_t i = 0; i < e->m->n_nodes; i++) {
        const MapDict *dict = &e->m->nodes[i];
        long pos = graph_block_pos(e->g, dict->task_id);
        if (pos < 0 || bt_info(e->g->blocks[pos]->type)->kind != BK_STORAGE)
            continue;
        e->first_copy[pos] = e->n_copies;
        for (uint32_t j = 0; j < dict->n_coords; j++) {
            const MapCoord *c = &dict->coords[j];
            uint32_t k = emit_core(e, c);
            if (k == EMIT_NONE || emit_copy_on(e, (uint32_t)pos, k))
                continue;
            ECopy *ncp = emit_grow(e, e->copies, &e->cap_copies, e->n_copies,
                                   sizeof *e->copies);
            if (!ncp)
                return ST_RUNTIME;
            e->copies = ncp;
            ECopy *cp = &e->copies[e->n_copies++];
            memset(cp, 0, sizeof *cp);
            cp->alias_of = EMIT_NONE;
            cp->land = EMIT_NONE;
            cp->dup_of = EMIT_NONE;
            cp->block = (uint32_t)pos;
            cp->core = k;
            e->n_copy[pos]++;
            int32_t last = c->has_end_phase && c->end_phase > c->phase ? c->end_phase : c->phase;
            Status st = plan_copy(e, cp, c->phase, last);
            if (st != ST_OK)
                return st;
        }
    }
    return ST_OK;
}

/* The last phase a ROUTER_SEND coordinate of an out edge of pos sends from core k; *wrap:
 * whether one sends before from (in the next step: a transfer the Mapping spreads past the
 * end of the step, emit_spread.c). */
static int32_t last_send(const Emit *e, uint32_t pos, uint32_t k, int32_t from, bool *wrap)
{
    const BlockUses *bu = &e->uses.blocks[pos];
    int32_t last = from;
    *wrap = false;
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const MapDict *dict = emit_edge_dict(e, e->g->edges[bu->out_edges[j]]->id);
        for (uint32_t c = 0; dict && c < dict->n_coords; c++) {
            const MapCoord *mc = &dict->coords[c];
            if (mc->pi_index != MAP_PI_ROUTER_SEND || !emit_same_place(&e->cores[k], mc))
                continue;
            last = mc->phase > last ? mc->phase : last;
            *wrap |= mc->phase < from;
        }
    }
    return last;
}

/* Compute block pos on core k writes straight into its copies there and the router sends
 * its result from them (emit_route.c's writer_loc): each such copy, written by pos alone,
 * lives to the last phase pos sends in from k (the whole step when that wraps past the
 * step's end), as the output buffer the mapper counts over those phases would
 * (map_buffer_life; the Mapping's lifetime of the copy ends with its readers); of a spread
 * copy other writers fill too, pos's rows only (emit_keeprows.c). */
static void sends_from_copies(Emit *e, uint32_t pos, uint32_t k)
{
    bool wrap;
    int32_t last = last_send(e, pos, k, e->phase_of[pos], &wrap);
    if (!wrap && last <= e->phase_of[pos])
        return;
    ELocalOuts it = emit_local_outs(pos, k);
    for (ECopy *cp; (cp = emit_local_outs_next(e, &it));) {
        if ((cp->received && !cp->spread) || cp->is_static || cp->alias_of != EMIT_NONE ||
            cp->req == EMIT_NONE)
            continue;
        if (e->uses.blocks[it.s].n_in_edges != 1 || cp->received) {
            /* other writers' rows too: its own rows only (a spread copy) */
            AllocReq *r = &e->cores[k].reqs[cp->req];
            if (wrap)
                emit_keep_rows(e, cp, pos, 0, e->cores[k].n_phases - 1);
            else if (last > r->last)
                emit_keep_rows(e, cp, pos, r->first, last);
            continue;
        }
        AllocReq *r = &e->cores[k].reqs[cp->req];
        if (wrap) {
            cp->first = r->first = 0;
            cp->last = r->last = e->cores[k].n_phases - 1;
        } else if (last > cp->last) {
            cp->last = last;
            r->last = last > r->last ? last : r->last;
        }
    }
}

/* Compute block pos on core k writes a buffer its router gathers from into its copies there
 * (EOut.gather: one of them takes another pitch): a copy there that pos alone writes, all of
 * its result as it is, in the buffer's very layout, lives in the buffer instead (alias_of)
 * and takes no transfer; the router would send the same words to its own core twice in the
 * phase otherwise (batch_stats' CLUT `ratio/hi`: one copy in its rows of 8 int32 channels,
 * one re-pitched to 32). */
static void own_in_buffer(Emit *e, uint32_t pos, uint32_t k)
{
    const EOut *o = &e->outs[pos];
    ELocalOuts it = emit_local_outs(pos, k);
    for (ECopy *cp; (cp = emit_local_outs_next(e, &it));) {
        const Edge *ed = it.ed;
        if (cp->received || cp->is_static || cp->view || cp->planes ||
            cp->alias_of != EMIT_NONE || cp->dup_of != EMIT_NONE || cp->req == EMIT_NONE ||
            cp->req_off || ed->n_re || e->uses.blocks[it.s].n_in_edges != 1 ||
            !emit_whole_iface(e, pos, false, ed->id) ||
            !emit_whole_iface(e, it.s, true, ed->id) ||
            memcmp(&cp->box, &o->box, sizeof cp->box) || cp->feat.prec != o->feat.prec ||
            cp->feat.per_word != o->feat.per_word || cp->feat.c != o->feat.c ||
            cp->feat.words != o->feat.words)
            continue;
        emit_request_drop(e, k, cp->req);
        cp->req = EMIT_NONE;
        cp->alias_of = pos;
        cp->alias_off = 0;
        e->outs[pos].aliased = true;
    }
}

/* Output buffers of the compute blocks that write no storage on their own core. */
static Status make_outs(Emit *e)
{
    for (uint32_t pos = 0; pos < e->g->n_blocks; pos++) {
        const Block *b = e->g->blocks[pos];
        uint32_t k = e->core_of[pos];
        if (bt_info(b->type)->kind != BK_COMPUTE || k == EMIT_NONE)
            continue;
        const BlockUses *bu = &e->uses.blocks[pos];
        ELocalOuts it = emit_local_outs(pos, k);
        bool local = emit_local_outs_next(e, &it) != NULL;
        if ((local && !e->outs[pos].gather && !e->outs[pos].aliased) || bu->n_out_edges == 0) {
            sends_from_copies(e, pos, k);
            continue;
        }
        PrecisionId prec;
        int unit = out_unit(e, pos, &prec);
        EOut *o = &e->outs[pos];
        int32_t cd[TIR_CDIMS];
        if (!blk_cluster_dims(b, false, 0, cd))
            return diag_block(e->d, ST_RUNTIME, "emit.internal", b, "no output cluster");
        o->box = (EBox){{0}, {cd[D_Y] > 0 ? cd[D_Y] : 1, cd[D_X] > 0 ? cd[D_X] : 1,
                              cd[D_F] > 0 ? cd[D_F] : 1, 1}};
        if (!emit_feat(prec, o->box.n[0], o->box.n[1], o->box.n[2], unit, &o->feat))
            return diag_block(e->d, ST_LOGIC, "emit.prec", b,
                              "writes %s values, which the chip has no memory layout for",
                              pr_info(prec)->name);
        o->core = k;
        o->used = true;
        bool wrap;
        int32_t last = last_send(e, pos, k, e->phase_of[pos], &wrap);
        if (o->gather && e->slot_of[pos] == 5 && last < e->phase_of[pos] + 1)
            last = e->phase_of[pos] + 1; /* a Soma2's part moves in the next phase */
        int32_t first = e->phase_of[pos];
        if (wrap) { /* it sends on in the next step, before it runs again: the whole step */
            first = 0;
            last = e->cores[k].n_phases - 1;
        }
        if (o->gather)
            own_in_buffer(e, pos, k);
        for (uint32_t i = 0; i < e->n_copies; i++) { /* the copies living in it */
            ECopy *cp = &e->copies[i];
            if (cp->alias_of != pos)
                continue;
            if (cp->feat.c != o->feat.c || cp->feat.prec != o->feat.prec)
                return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                                  "writes block %d's rows in pixels of %lld channels where "
                                  "that block holds %lld", e->g->blocks[cp->block]->id,
                                  (long long)o->feat.c, (long long)cp->feat.c);
            first = cp->first < first ? cp->first : first;
            last = cp->last > last ? cp->last : last;
        }
        o->req = emit_request(e, k, o->feat.words, o->feat.align, first, last, ALLOC_DATA,
                              b->id);
        if (o->req == EMIT_NONE)
            return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    return ST_OK;
}

/* The last phase in which a transfer from another core into storage block pos lands on core
 * k for its reader in phase pc (the ROUTER_RECIEVE coordinates of the edges into it there,
 * but a model input's, which is written before the step); -1 when none does. An edge's
 * parts land in the phases after its writer's, in that order round the step: its last is
 * the latest counted from the writer's phase (phases 31, 0, 1 after a writer in phase 30
 * end with 1). An edge whose last part lands before pc, counted so, brings data of this
 * step: the last of those edges' last parts; else (every edge's data lands in the step
 * before, a part at pc or after it) the last of them all. */
static int32_t last_arrival(const Emit *e, uint32_t pos, uint32_t k, int32_t pc)
{
    int32_t last = -1, before = -1;
    const BlockUses *bu = &e->uses.blocks[pos];
    for (uint32_t i = 0; i < bu->n_in_edges; i++) { /* the edges into it, a dict each */
        const Edge *ed = e->g->edges[bu->in_edges[i]];
        const MapDict *dict = emit_edge_dict(e, ed->id);
        long src = dict ? graph_block_pos(e->g, ed->src) : -1;
        if (src < 0 || e->g->blocks[src]->type == BT_INPUT)
            continue;
        int32_t w = e->core_of[src] != EMIT_NONE ? e->phase_of[src] : 0, n = pc + 1, a = -1;
        for (uint32_t j = 0; j < dict->n_coords; j++)
            n = dict->coords[j].phase >= n ? dict->coords[j].phase + 1 : n;
        n = w >= n ? w + 1 : n;
        for (uint32_t j = 0; j < dict->n_coords; j++) { /* the latest from w round the step */
            const MapCoord *c = &dict->coords[j];
            if (c->pi_index == MAP_PI_ROUTER_RECIEVE && emit_same_place(&e->cores[k], c) &&
                (a < 0 || (c->phase - w + n) % n > (a - w + n) % n))
                a = c->phase;
        }
        if (a < 0)
            continue;
        last = a > last ? a : last;
        if ((a - w + n) % n < (pc - w + n) % n && a < pc && a > before)
            before = a;
    }
    return before >= 0 ? before : last;
}

bool emit_wraps_whole(const Emit *e, const ECopy *cp, int32_t pc)
{
    return last_arrival(e, cp->block, cp->core, pc) >= pc;
}

/* When copy cp's data is in place on its core, as phase * 8 + the slot's PIIndex (Axon 1,
 * Soma1 2, router 3 and 4, Soma2 5): a P06 may read it in a later Soma slot. *local: after
 * its writers on its core (after the router that moves a writer's buffer there,
 * docs/backend.md "Gathering on a core"; after the P06 of a tee re-pitching a writer's result
 * into it, emit_tee.c), from the start of its first phase for a model input
 * (-1: neither writes it); *arrive: the last phase a transfer into it lands in before its
 * reader's phase pc (last_arrival; -1: none). The result is the later of the two (after the router of *arrive), -1 for a static map
 * (loaded before the run), or the router of its first phase when nothing says. */
static int64_t copy_ready(Emit *e, const ECopy *cp, int32_t pc, int64_t *local,
                          int32_t *arrive)
{
    const BlockUses *bu = &e->uses.blocks[cp->block];
    *arrive = last_arrival(e, cp->block, cp->core, pc);
    *local = -1;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        long w = other_end(e, bu->in_edges[j], true);
        int64_t at;
        if (w >= 0 && e->g->blocks[w]->type == BT_INPUT)
            at = (int64_t)cp->first * 8;
        else if (w >= 0 && e->core_of[w] == cp->core && e->outs[w].gather)
            at = ((int64_t)e->phase_of[w] + (e->slot_of[w] == MAP_PI_SOMA2)) * 8 +
                 MAP_PI_ROUTER_SEND;
        else if (w >= 0 && e->core_of[w] == cp->core)
            at = (int64_t)e->phase_of[w] * 8 + e->slot_of[w];
        else
            continue; /* by the router: *arrive */
        *local = at > *local ? at : *local;
    }
    for (size_t i = 0; i < e->n_tees; i++) { /* a tee's P06 re-pitching a result into it */
        const ETee *t = &e->tees[i];
        int64_t at = (int64_t)t->phase * 8 + t->slot;
        if (&e->copies[t->to] == cp && t->move && !t->failed && t->phase >= 0 && at > *local)
            *local = at;
    }
    int64_t r = *arrive >= 0 ? (int64_t)*arrive * 8 + MAP_PI_ROUTER_RECIEVE : -1;
    if (cp->is_static) /* loaded before the run */
        return r;
    if (*arrive < 0 && *local < 0)
        return (int64_t)cp->first * 8 + MAP_PI_ROUTER_RECIEVE;
    return *local > r ? *local : r;
}

/* The latest free Soma slot of core k in phases hi down to lo after time ready (copy_ready's
 * unit) into s; whether there is one. */
static bool latest_free(const Emit *e, uint32_t k, int32_t hi, int32_t lo, int64_t ready,
                        EMoveSlot *s)
{
    for (int32_t p = hi; p >= lo; p--)
        for (int32_t sl = MAP_PI_SOMA2; sl >= MAP_PI_SOMA1; sl -= MAP_PI_SOMA2 - MAP_PI_SOMA1)
            if ((int64_t)p * 8 + sl > ready && !emit_soma_taken(e, k, p, sl)) {
                s->phase = p;
                s->slot = sl;
                return true;
            }
    return false;
}

bool emit_move_slot(Emit *e, const ECopy *cp, int32_t pc, EMoveSlot *s)
{
    uint32_t k = cp->core;
    int32_t arrive;
    int64_t local, ready = copy_ready(e, cp, pc, &local, &arrive);
    s->wrap = arrive >= pc; /* the data comes in the step before */
    s->ready = ready;
    s->from = s->wrap ? arrive : (int32_t)(ready / 8);
    s->phase = -1;
    s->slot = 0;
    /* before pc after the data is in place; for data that comes in the step before, before
     * pc after what its own core writes, else (nothing does) from its arrival to the end of
     * the step before */
    if (!latest_free(e, k, pc - 1, s->wrap ? 0 : s->from, s->wrap ? local : ready, s) &&
        s->wrap && local < 0)
        latest_free(e, k, e->cores[k].n_phases - 1, arrive, ready, s);
    s->first = s->wrap ? 0 : s->phase;
    s->last = s->wrap ? e->cores[k].n_phases - 1 : pc;
    return s->phase >= 0;
}

/* CADDs of one box of one storage block n times (x + x): an area for the box repeated and a
 * free Soma slot for the P06 that repeats it (emit_move_slot). */
static Status make_dups(Emit *e)
{
    for (uint32_t pos = 0; pos < e->g->n_blocks; pos++) {
        const Block *b = e->g->blocks[pos];
        uint32_t k = e->core_of[pos];
        uint32_t n = b->type == BT_CADD ? blk_n_variadic(b) : 0;
        if (premove_count(e->g, &e->uses, pos) != 1 || k == EMIT_NONE)
            continue; /* one P06 repeats the box: the mapper keeps its slot */
        long src = -1;
        EBox box = {{0}, {0}};
        bool same = true;
        for (uint32_t i = 0; i < n && same; i++) {
            same = i < b->n_in && b->in[i].n_ifaces == 1;
            const Edge *ed = same ? graph_edge(e->g, b->in[i].ifaces[0].edge_id) : NULL;
            long s = ed ? graph_block_pos(e->g, ed->src) : -1;
            EBox bx;
            same = s >= 0 && !ed->n_re && emit_iface_box(e, (uint32_t)s, false, ed->id, &bx);
            if (same && i == 0) {
                src = s;
                box = bx;
            }
            same = same && s == src && memcmp(&bx, &box, sizeof bx) == 0;
        }
        ECopy *cp = same ? emit_copy_on(e, (uint32_t)src, k) : NULL;
        if (!cp || cp->image)
            continue; /* emit_prim.c refuses it */
        int32_t pc = e->phase_of[pos];
        EMoveSlot ms;
        if (!emit_move_slot(e, cp, pc, &ms) && ms.wrap)
            return diag_block(e->d, ST_LOGIC, "emit.slot", b,
                              "adds block %d to itself %u times: P02 reads the box repeated, "
                              "which a P06 in a free Soma slot of core %s from phase %d (its "
                              "last part arrives, for the next step) to the end of the step "
                              "must write, and there is none", e->g->blocks[src]->id, n,
                              e->cores[k].name, ms.from);
        if (ms.phase < 0)
            return diag_block(e->d, ST_LOGIC, "emit.slot", b,
                              "adds block %d to itself %u times: P02 reads the box repeated, "
                              "which a P06 in a free Soma slot of core %s before phase %d "
                              "must write, and there is none", e->g->blocks[src]->id, n,
                              e->cores[k].name, pc);
        EDup *nd = emit_grow(e, e->dups, &e->cap_dups, e->n_dups, sizeof *e->dups);
        if (!nd)
            return ST_RUNTIME;
        e->dups = nd;
        EDup *d = &e->dups[e->n_dups++];
        d->cadd = pos;
        d->copy = (uint32_t)(cp - e->copies);
        d->box = box;
        d->n = (int32_t)n;
        d->phase = ms.phase;
        d->slot = ms.slot;
        Status st = emit_slot_take(e, k, ms.phase, ms.slot, SLOT_DUP, pos);
        if (st != ST_OK)
            return st;
        PrecisionId p = cp->feat.prec;
        if (!emit_feat(p, box.n[0], box.n[1], box.n[2], layout_unit(p, LAYOUT_GROUP), &d->feat))
            return diag_block(e->d, ST_LOGIC, "emit.prec", b, "adds %s values, which the "
                              "chip has no memory layout for", pr_info(p)->name);
        d->req = emit_request(e, k, d->feat.words * n, d->feat.align, ms.first, ms.last,
                              ALLOC_DATA, b->id);
        if (d->req == EMIT_NONE)
            return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    return ST_OK;
}

/* Places core c's requests (alloc.h) into c->addr; a dropped one (0 words: a tee sharing
 * another's area, emit_tee.c) gets none and takes no words; one whose lead (emit_twin.c) is
 * another takes that one's address, whose area lives over both lifetimes (from the router
 * of its first phase when the areas that begin then do, to Soma1 of its last when those
 * that end then do). */
static Status place_core(ECore *c, const uint32_t *lead, Diag *d)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n_reqs; i++)
        n += c->reqs[i].words > 0 && lead[i] == i;
    if (n == c->n_reqs && !c->n_rparts)
        return alloc_core_at(c->reqs, c->n_reqs, c->at, c->addr, c->name, d);
    size_t room = n + c->n_rparts; /* the areas planned in parts: their later parts */
    AllocReq *kept = malloc((room ? room : 1) * sizeof *kept);
    int32_t *addr = malloc((room ? room : 1) * sizeof *addr);
    size_t *at = malloc((c->n_reqs ? c->n_reqs : 1) * sizeof *at); /* 1 + kept index */
    int32_t *fixed = c->at ? calloc(room ? room : 1, sizeof *fixed) : NULL; /* emit_pin.c */
    Status st = kept && addr && at && (fixed || !c->at)
                    ? ST_OK
                    : diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (size_t i = 0, j = 0; st == ST_OK && i < c->n_reqs; i++)
        at[i] = c->reqs[i].words > 0 && lead[i] == i ? ++j : 0;
    for (size_t i = 0, j = 0; st == ST_OK && i < c->n_reqs; i++)
        if (at[i]) {
            kept[j] = c->reqs[i];
            kept[j++].next = c->reqs[i].next ? at[c->reqs[i].next - 1] : 0; /* a chain's */
        }
    for (size_t i = 0; st == ST_OK && i < c->n_reqs; i++)
        if (lead[i] != i && c->reqs[i].words > 0) /* a twin: the lead's area lives on */
            emit_twin_join(&kept[at[lead[i]] - 1], &c->reqs[i], c->n_phases);
    for (size_t i = 0; st == ST_OK && fixed && i < c->n_reqs; i++)
        if (c->at[i] && c->reqs[i].words > 0 && !fixed[at[lead[i]] - 1]) /* a twin's: its lead's */
            fixed[at[lead[i]] - 1] = c->at[i];
    if (st == ST_OK) /* each part's address follows its area's first (emit_recvpart.c) */
        st = alloc_core_at(kept, emit_recv_parts_apply(c, lead, at, kept, n), fixed, addr,
                           c->name, d);
    for (size_t i = 0; st == ST_OK && i < c->n_reqs; i++)
        c->addr[i] = c->reqs[i].words <= 0 ? -1 : addr[at[lead[i]] - 1];
    free(fixed);
    free(kept);
    free(addr);
    free(at);
    return st;
}

/* Whether gather entry g's input is read by nothing after its CADD's Axon in phase pc: it
 * is copied into its part by a P06 of an earlier phase, or lies there (emit_early.c) with
 * data of this step (no static image) that nothing sends from its core from phase pc on. */
static bool gather_done(const Emit *e, const EGather *g, int32_t pc)
{
    if (g->phase >= 0)
        return g->phase < pc;
    const ECopy *cp = &e->copies[g->copy];
    if (cp->is_static || cp->image)
        return false;
    const BlockUses *bu = &e->uses.blocks[cp->block];
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        long w = graph_block_pos(e->g, e->g->edges[bu->in_edges[j]]->src);
        if (w < 0 || emit_sends_after(e, cp, (uint32_t)w, pc - 1))
            return false;
    }
    return true;
}

/* Whether area r lives the whole step: it may hold data of two steps (sent on, or filled,
 * over the step's end), in any half of a phase. */
static bool whole_step(const ECore *c, const AllocReq *r)
{
    return r->first == 0 && r->last == c->n_phases - 1;
}

/* The areas of core k whose first or last phase is shared by halves (alloc.h): a gathered
 * area whose inputs nothing reads after its CADD's Axon (gather_done) ends with that Axon;
 * the output buffer of a Soma block that no copy lives in begins with that Soma; a received
 * copy's landing area (or its own area, when it stays in the receive area; a box its own
 * core's router lands there too) begins with the router of its first arrival phase, as does
 * a spread copy's part's; a landing area moved out in Soma1 (emit_latemove.c, a part's
 * moved so, emit_spread.c) ends with that Soma1, as does a copy staying in the receive area
 * that a gather's P06 in Soma1 of its last phase reads last (emit_early.c); a send area
 * begins with its P06's Soma, and an Axon writer's input beside it may end with that Axon
 * (emit_sendhalf.c). An area of
 * each may take the same words in that phase (the one read by the Axon, the other written
 * after it). Asked again before each try of the plan, on the lifetimes as they are then. */
static void mark_phase_halves(Emit *e, uint32_t k)
{
    ECore *c = &e->cores[k];
    for (size_t i = 0; i < c->n_reqs; i++)
        c->reqs[i].last_axon = c->reqs[i].first_soma = c->reqs[i].last_soma1 =
            c->reqs[i].first_router = false;
    EOnCore on = emit_copies_on(e, k); /* a landing area: from the router on */
    for (const ECopy *cp; (cp = emit_copies_next(e, &on));) {
        uint32_t i = (uint32_t)(cp - e->copies);
        int32_t lo, hi;
        AllocReq *r = cp->land != EMIT_NONE ? &c->reqs[cp->land] : NULL;
        if (r && !whole_step(c, r)) {
            r->first_router = r->first == cp->land_first;
            r->last_soma1 = r->last == cp->move_phase && cp->move_slot == MAP_PI_SOMA1;
        }
        r = cp->received && !cp->spread && cp->land == EMIT_NONE &&
                    cp->req != EMIT_NONE && cp->req_off == 0 && !cp->view && !cp->planes &&
                    cp->alias_of == EMIT_NONE && !emit_merge_of(e, cp)
                ? &c->reqs[cp->req] : NULL; /* a copy that stays where it lands */
        if (r && r->kind == ALLOC_RECV && !whole_step(c, r)) {
            if (arrivals(e, cp, &lo, &hi) || emit_router_landed(e, cp, &lo, &hi))
                r->first_router = r->first == lo;
            r->last_soma1 = emit_gather_ends_soma1(e, i);
        }
    }
    on = emit_parts_on(e, k);
    for (const EPart *pt; (pt = emit_parts_next(e, &on));) { /* a part: from the router on */
        AllocReq *r = pt->land != EMIT_NONE ? &c->reqs[pt->land] : NULL;
        if (r && !whole_step(c, r)) {
            r->first_router = r->first == pt->phase;
            r->last_soma1 = r->last == pt->move_phase && pt->move_slot == MAP_PI_SOMA1;
        }
    }
    for (size_t i = 0; i < e->n_gathers;) {
        const EGather *g = &e->gathers[i];
        size_t j = i + 1;
        bool done = g->i == 0 && g->n > 0 && g->req != EMIT_NONE && e->core_of[g->cadd] == k;
        int32_t pc = done ? e->phase_of[g->cadd] : -1;
        for (size_t m = i; m < e->n_gathers && e->gathers[m].cadd == g->cadd &&
                           e->gathers[m].i >= 0 && e->gathers[m].req != EMIT_NONE; m++, j = m)
            done = done && gather_done(e, &e->gathers[m], pc); /* only k's CADDs asked */
        for (size_t m = i; done && m < j && j - i == (size_t)g->n &&
                           e->slot_of[g->cadd] == MAP_PI_AXON; m++) {
            AllocReq *r = &c->reqs[e->gathers[m].req]; /* each part */
            r->last_axon = r->last == pc && !whole_step(c, r);
        }
        i = j;
    }
    on = emit_outs_on(e, k);
    for (size_t pos; emit_on_core_next(e, &on, &pos);) {
        const EOut *o = &e->outs[pos];
        int32_t s = e->slot_of[pos];
        if (!o->used || o->core != k || o->aliased || o->over || o->req == EMIT_NONE ||
            (s != MAP_PI_SOMA1 && s != MAP_PI_SOMA2))
            continue;
        AllocReq *r = &c->reqs[o->req];
        r->first_soma = r->first == e->phase_of[pos] && !whole_step(c, r);
    }
    emit_send_halves(e, k);
}

Status emit_plan(Emit *e)
{
    Status st = make_copies(e);
    if (st == ST_OK) /* the copies are all made: the walks over a core's (emit_bycore.c) */
        st = emit_index_copies(e);
    if (st == ST_OK)
        st = emit_spreads(e);
    if (st == ST_OK)
        st = emit_part_pitches(e);
    if (st == ST_OK)
        st = make_outs(e);
    /* the tees share their first copy's area (no slot; before the narrowings, whose P06
     * precedes the readers of both); the P06s that must have a slot first: a narrowing (its
     * phase is fixed), a staged map (the earliest free), a tee re-pitching (the latest free before its reader), then a repeated
     * box or a gather (the latest free before its CADD);
     * then a received copy's move, where its slot is still free, the send areas, and the
     * moves that may go without a slot (a gather's P06 earlier, a late move) */
    if (st == ST_OK)
        st = emit_tees(e);
    if (st == ST_OK)
        st = emit_narrows(e);
    if (st == ST_OK)
        st = emit_stagings(e);
    if (st == ST_OK)
        st = emit_tee_slots(e);
    if (st == ST_OK)
        st = make_dups(e);
    if (st == ST_OK)
        st = emit_gathers(e);
    if (st == ST_OK)
        st = emit_merges(e);
    if (st == ST_OK)
        st = emit_chmerges(e);
    if (st == ST_OK)
        st = emit_widens(e);
    if (st == ST_OK)
        st = plan_moves(e, false);
    if (st == ST_OK)
        st = emit_gather_pending(e);
    /* a send area's P06 has the few slots between its writer and its router (often one),
     * which the moves below must leave it */
    if (st == ST_OK)
        st = emit_sendbufs(e);
    if (st == ST_OK) /* a spread stage's input: right after its last part moves */
        st = emit_wrap_gathers(e);
    if (st == ST_OK)
        st = emit_early_gathers(e);
    if (st == ST_OK) /* where Soma2 of the arrival phase was taken: a later slot */
        st = plan_moves(e, true);
    if (st == ST_OK) /* a stage's input that stays: not between its reader and arrival */
        emit_stay_again(e);
    if (st == ST_OK)
        st = emit_p08_plan(e);
    if (st == ST_OK) /* the areas relaying chains refused in an earlier pass, fixed first */
        st = emit_pin_place(e);
    if (st == ST_OK) /* and the parts, the output buffers and the send areas */
        st = emit_index_parts(e);
    if (st == ST_OK)
        st = emit_index_outs(e);
    if (st == ST_OK)
        st = emit_index_sendbufs(e);
    for (uint32_t k = 0; k < e->n_cores && st == ST_OK; k++) {
        ECore *c = &e->cores[k];
        c->addr = malloc((c->n_reqs ? c->n_reqs : 1) * sizeof *c->addr);
        uint32_t *lead = malloc((c->n_reqs ? c->n_reqs : 1) * sizeof *lead);
        if (!c->addr || !lead) {
            free(lead);
            return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
        }
        /* a plan that does not fit is tried again with the copies only a gather reads in
         * the gathered area, then with the areas of those it cannot hold ending at their
         * gathers (emit_early.c), then with the buffers of pixelwise P05s over the copies
         * they read (emit_soma_over.c), then with the received copies whose rows land in
         * several phases in parts (emit_recvpart.c), then with a merge's local slice in its
         * copy's tail (emit_merge_tail.c); the refusal names what fits none of the ways */
        for (int way = 0; way < 5; way++) {
            Diag quiet;
            diag_init(&quiet, NULL);
            mark_phase_halves(e, k);
            if (!emit_twin_leads(e, k, lead)) {
                free(lead);
                return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
            }
            st = place_core(c, lead, &quiet);
            diag_finish(&quiet);
            if (st != ST_LOGIC) {
                if (st != ST_OK) /* said again where it is heard, not lost with quiet */
                    st = place_core(c, lead, e->d);
                break;
            }
            if (way == 0)
                emit_in_place(e, k);
            else if (way == 1)
                emit_gathered_ends(e, k);
            else if (way == 2)
                emit_soma_over(e, k);
            else if (way == 4)
                emit_merge_tails(e, k);
            else {
                bool any;
                if (emit_recv_parts(e, k, &any) != ST_OK) {
                    free(lead);
                    return ST_RUNTIME;
                }
            }
        }
        if (st == ST_LOGIC) {
            mark_phase_halves(e, k);
            st = emit_twin_leads(e, k, lead) ? place_core(c, lead, e->d)
                                             : diag_add(e->d, ST_RUNTIME, "oom", NULL,
                                                        "out of memory");
        }
        free(lead);
    }
    return st;
}
