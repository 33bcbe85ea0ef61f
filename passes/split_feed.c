/* split_feed.c: re-feeding a region of a cluster and re-routing a cut block's output
 * (split.h). An edge without rearrangement copies a box onto an equal box, so the part of
 * it inside a region is the same sub-box at both ends: one new edge. An edge with
 * rearrangement steps is read element by element (edge_map.h), the part kept is restricted
 * and the encoder (encode.h) writes it back as edges. */
#include "passes/split.h"
#include "taskir/blockbox.h"
#include "taskir/diag_block.h"
#include "taskir/edge_map.h"
#include "taskir/rearrange.h"

#include <stdlib.h>
#include <string.h>

void split_iface_box(const Iface *f, const int32_t cd[TIR_CDIMS], SplitBox *out)
{
    for (int i = 0; i < TIR_CDIMS; i++) {
        out->pos[i] = f->has_pos && cd[i] > 0 ? f->pos.d[i] : 0;
        out->size[i] = cd[i] > 0 ? (f->has_size ? f->size.d[i] : cd[i]) : 0;
    }
}

bool split_box_whole(const SplitBox *b, const int32_t cd[TIR_CDIMS])
{
    for (int i = 0; i < TIR_CDIMS; i++)
        if (cd[i] > 0 && (b->pos[i] != 0 || b->size[i] != cd[i]))
            return false;
    return true;
}

/* The intersection of a and b, in *out; false when it is empty. */
static bool meet(const SplitBox *a, const SplitBox *b, SplitBox *out)
{
    for (int i = 0; i < TIR_CDIMS; i++) {
        if (a->size[i] <= 0 || b->size[i] <= 0) {
            out->pos[i] = out->size[i] = 0;
            continue;
        }
        int32_t lo = a->pos[i] > b->pos[i] ? a->pos[i] : b->pos[i];
        int32_t ha = a->pos[i] + a->size[i], hb = b->pos[i] + b->size[i];
        int32_t hi = ha < hb ? ha : hb;
        if (lo >= hi)
            return false;
        out->pos[i] = lo;
        out->size[i] = hi - lo;
    }
    return true;
}

static int64_t box_volume(const SplitBox *b)
{
    int64_t v = 1;
    for (int i = 0; i < TIR_CDIMS; i++)
        if (b->size[i] > 0)
            v *= b->size[i];
    return v;
}

static Status oom(const SplitCtx *s)
{
    return diag_add(s->d, ST_RUNTIME, "oom", NULL, "out of memory");
}

static bool plain(const Edge *e)
{
    for (uint32_t i = 0; i < e->n_re; i++)
        if (e->re[i].type != RT_IDENTITY)
            return false;
    return true;
}

/* The element map of e over its destination box (malloc'd, n elements). */
static Status edge_map(const SplitCtx *s, const Edge *e, const EdgeEnds *en, int32_t **out,
                       int64_t *n)
{
    SplitBox db;
    memcpy(db.size, en->dst_box, sizeof db.size);
    *n = box_volume(&db);
    if (!(*out = malloc((size_t)(*n ? *n : 1) * sizeof **out)))
        return oom(s);
    Status st = edge_element_map(s->g, s->u, e, *out, *n, s->d);
    if (st != ST_OK) {
        free(*out);
        *out = NULL;
    }
    return st;
}

/* e's element map (edge_map): the one s->map keeps when it is e's, else made and kept there
 * in place of the last; without s->map made anew into *own, which the caller frees. */
static Status last_map(const SplitCtx *s, const Edge *e, const EdgeEnds *en,
                       const int32_t **m, int32_t **own)
{
    SplitEdgeMap *k = s->map;
    *own = NULL;
    if (k && k->set && k->edge_id == e->id) {
        *m = k->m;
        return ST_OK;
    }
    int32_t *made;
    int64_t n;
    Status st = edge_map(s, e, en, &made, &n);
    if (st != ST_OK)
        return st;
    if (!k) {
        *m = *own = made;
        return ST_OK;
    }
    free(k->m);
    *k = (SplitEdgeMap){.set = true, .edge_id = e->id, .m = made, .n = n};
    *m = made;
    return ST_OK;
}

void split_box_index(const SplitBox *outer, const SplitBox *in, int64_t *idx)
{
    int32_t c[TIR_CDIMS];
    memcpy(c, in->pos, sizeof c);
    int64_t n = box_volume(in);
    for (int64_t j = 0; j < n; j++) {
        int64_t o = 0;
        for (int i = 0; i < TIR_CDIMS; i++)
            if (outer->size[i] > 0)
                o = o * outer->size[i] + (c[i] - outer->pos[i]);
        idx[j] = o;
        for (int i = TIR_CDIMS - 1; i >= 0; i--) {
            if (in->size[i] <= 0)
                continue;
            if (++c[i] < in->pos[i] + in->size[i])
                break;
            c[i] = in->pos[i];
        }
    }
}

static Status zero_fill(const SplitCtx *s, const Edge *e)
{
    return diag_edge(s->d, ST_LOGIC, "pass.split.edge", e->id,
                     "its rearrangement fills in zeros; a cut through it is not supported");
}

Status split_feed_region(const SplitCtx *s, const Block *from, uint32_t from_idx,
                         const SplitBox *r, Block *to, uint32_t to_idx)
{
    const Cluster *cl = &from->in[from_idx];
    for (uint32_t k = 0; k < cl->n_ifaces; k++) {
        const Edge *e = graph_edge(s->g, cl->ifaces[k].edge_id);
        EdgeEnds en;
        char why[256];
        if (!e || !edge_ends(s->g, s->u, e, &en, why, sizeof why))
            return diag_block(s->d, ST_LOGIC, "pass.split.edge", from, "%s", why);
        SplitBox db, in;
        memcpy(db.pos, en.dst_pos, sizeof db.pos);
        memcpy(db.size, en.dst_box, sizeof db.size);
        if (!meet(&db, r, &in))
            continue;
        int32_t dpos[TIR_CDIMS];
        for (int i = 0; i < TIR_CDIMS; i++)
            dpos[i] = in.size[i] > 0 ? in.pos[i] - r->pos[i] : 0;
        Block *src = graph_block(s->g, e->src);
        if (plain(e)) {
            int32_t spos[TIR_CDIMS], ssize[TIR_CDIMS];
            for (int i = 0; i < TIR_CDIMS; i++) {
                bool cut = in.size[i] > 0; /* a dim both ends use, or the source's alone */
                spos[i] = en.src_pos[i] + (cut ? in.pos[i] - db.pos[i] : 0);
                ssize[i] = cut ? in.size[i] : en.src_box[i];
            }
            if (!graph_connect_box(s->g, src, en.src_cluster, spos, ssize, to, to_idx, dpos,
                                   in.size))
                return oom(s);
            continue;
        }
        int32_t *own = NULL;
        const int32_t *m;
        Status st = last_map(s, e, &en, &m, &own);
        if (st != ST_OK)
            return st;
        int64_t kn = box_volume(&in);
        int64_t *idx = malloc((size_t)kn * sizeof *idx);
        int32_t *esrc = calloc((size_t)kn, sizeof *esrc), *eoff = malloc((size_t)kn * sizeof *eoff);
        if (!idx || !esrc || !eoff) {
            free(own), free(idx), free(esrc), free(eoff);
            return oom(s);
        }
        split_box_index(&db, &in, idx);
        for (int64_t j = 0; j < kn && st == ST_OK; j++)
            if ((eoff[j] = m[idx[j]]) < 0)
                st = zero_fill(s, e);
        if (st == ST_OK) {
            EncSrc es = {.b = src};
            memcpy(es.cd, en.src_cdims, sizeof es.cd);
            char where[160];
            blk_describe(to, where, sizeof where);
            EncCtx ec = {.g = s->g, .d = s->d, .where = where, .name = to->name};
            st = enc_map(&ec, to, to_idx, dpos, in.size, &es, esrc, eoff, kn);
        }
        free(own), free(idx), free(esrc), free(eoff);
        if (st != ST_OK)
            return st;
    }
    return ST_OK;
}

/* The piece whose box holds cluster coordinates c (the boxes tile the output). */
static uint32_t piece_of(const SplitBox *out, uint32_t n, const int32_t *c)
{
    for (uint32_t i = 0; i < n; i++) {
        bool in = true;
        for (int k = 0; k < TIR_CDIMS && in; k++)
            if (out[i].size[k] > 0)
                in = c[k] >= out[i].pos[k] && c[k] < out[i].pos[k] + out[i].size[k];
        if (in)
            return i;
    }
    return 0;
}

/* Re-routes one rearranged edge out of b through its element map. */
static Status route_mapped(const SplitCtx *s, const Edge *e, const EdgeEnds *en,
                           Block *const *pieces, const SplitBox *out, uint32_t n)
{
    int32_t *m;
    int64_t cnt;
    Status st = edge_map(s, e, en, &m, &cnt);
    if (st != ST_OK)
        return st;
    int32_t *esrc = malloc((size_t)(cnt ? cnt : 1) * sizeof *esrc);
    EncSrc *srcs = calloc(n, sizeof *srcs);
    if (!esrc || !srcs) {
        free(m), free(esrc), free(srcs);
        return oom(s);
    }
    for (uint32_t i = 0; i < n; i++) {
        srcs[i].b = pieces[i];
        memcpy(srcs[i].cd, out[i].size, sizeof srcs[i].cd);
    }
    const int32_t *cd = en->src_cdims;
    for (int64_t j = 0; j < cnt && st == ST_OK; j++) {
        if (m[j] < 0) {
            st = zero_fill(s, e);
            break;
        }
        int32_t c[TIR_CDIMS] = {0};
        int64_t o = m[j];
        for (int k = TIR_CDIMS - 1; k >= 0; k--)
            if (cd[k] > 0) {
                c[k] = (int32_t)(o % cd[k]);
                o /= cd[k];
            }
        uint32_t p = piece_of(out, n, c);
        for (int k = 0; k < TIR_CDIMS; k++)
            c[k] -= out[p].pos[k];
        esrc[j] = (int32_t)p;
        m[j] = (int32_t)cluster_offset(out[p].size, c);
    }
    if (st == ST_OK) {
        char where[160];
        blk_describe(en->dst, where, sizeof where);
        EncCtx ec = {.g = s->g, .d = s->d, .where = where, .name = en->dst->name};
        st = enc_map(&ec, graph_block(s->g, en->dst->id), en->dst_cluster, en->dst_pos,
                     en->dst_box, srcs, esrc, m, cnt);
    }
    free(m), free(esrc), free(srcs);
    return st;
}

/* Are the two clusters' used dims the same, with the same extents (loose: but for dims of
 * extent 1 that one of them does not use)? */
static bool same_dims(const int32_t *a, const int32_t *b, bool loose)
{
    for (int i = 0; i < TIR_CDIMS; i++)
        if ((a[i] > 0) != (b[i] > 0) ? !loose || (a[i] > 1 || b[i] > 1)
                                     : a[i] > 0 && a[i] != b[i])
            return false;
    return true;
}

/* Does edge o (ends eo) copy each element of its source box to the same place in C order of
 * its destination box: no steps but IDENTITY, or steps that amount to none (a RESHAPE in C
 * order between boxes of the same extents, as a lowering writes before an OUTPUT)? */
static bool keeps_order(const SplitCtx *s, const Edge *o, const EdgeEnds *eo)
{
    if (plain(o))
        return true;
    int32_t *m = NULL;
    int64_t n = 0;
    if (edge_map(s, o, eo, &m, &n) != ST_OK)
        return false;
    bool same = true;
    for (int64_t i = 0; i < n && same; i++)
        same = m[i] == i;
    free(m);
    return same;
}

/* Of e (ends en) through steps into all of storage S, cut with its writer into the n pieces
 * of boxes out: the box of S each piece's values fill (parts[i]; none: sizes 0), when each
 * fills one exactly (a transposition of the pieces' boxes, say) and no value is a zero the
 * steps fill in; *m: e's element map over S (malloc'd). False (and *m NULL) otherwise. */
static bool mapped_parts(const SplitCtx *s, const Edge *e, const EdgeEnds *en,
                         const SplitBox *out, uint32_t n, SplitBox *parts, int32_t **m)
{
    int64_t cnt, *count = calloc(n ? n : 1, sizeof *count);
    Diag quiet; /* a map that cannot be made is no finding: the store is not cut */
    diag_init(&quiet, NULL);
    SplitCtx q = *s;
    q.d = &quiet;
    bool ok = count && edge_map(&q, e, en, m, &cnt) == ST_OK;
    diag_finish(&quiet);
    if (!ok) {
        free(count);
        *m = NULL;
        return false;
    }
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < TIR_CDIMS; k++)
            parts[i].pos[k] = INT32_MAX, parts[i].size[k] = 0; /* size: the highest + 1 */
    for (int64_t j = 0; j < cnt && ok; j++) {
        int32_t c[TIR_CDIMS] = {0}, d[TIR_CDIMS] = {0};
        int64_t o = (*m)[j], r = j;
        ok = o >= 0;
        for (int k = TIR_CDIMS - 1; k >= 0; k--) {
            if (en->src_cdims[k] > 0)
                c[k] = (int32_t)(o % en->src_cdims[k]), o /= en->src_cdims[k];
            if (en->dst_box[k] > 0)
                d[k] = (int32_t)(r % en->dst_box[k]), r /= en->dst_box[k];
        }
        uint32_t p = piece_of(out, n, c);
        count[p]++;
        for (int k = 0; k < TIR_CDIMS; k++) {
            if (en->dst_box[k] <= 0)
                continue;
            parts[p].pos[k] = d[k] < parts[p].pos[k] ? d[k] : parts[p].pos[k];
            parts[p].size[k] = d[k] + 1 > parts[p].size[k] ? d[k] + 1 : parts[p].size[k];
        }
    }
    for (uint32_t i = 0; i < n && ok; i++) {
        for (int k = 0; k < TIR_CDIMS; k++)
            if (count[i] && en->dst_box[k] > 0)
                parts[i].size[k] -= parts[i].pos[k];
            else
                parts[i].pos[k] = parts[i].size[k] = 0;
        ok = !count[i] || box_volume(&parts[i]) == count[i];
    }
    free(count);
    if (!ok) {
        free(*m);
        *m = NULL;
    }
    return ok;
}

/* Is the destination of edge e (ends en) of b a storage block of more than room bytes that
 * only OUTPUTs read (whole, it would sit with the first piece: mapper/problem.c), that holds
 * nothing but what e writes into the whole of it, e plain (between clusters of the same
 * dims) or through steps that put each piece's values in a box of it (mapped_parts: *m
 * then e's element map, and parts[] the boxes, else *m NULL), its edges to the OUTPUTs
 * keeping the order, its clusters of the same dims (but for dims of extent 1 at an
 * OUTPUT)? The pieces then write parts of it, one each (cut_store). */
static bool output_store(const SplitCtx *s, const Edge *e, const EdgeEnds *en, int64_t room,
                         const SplitBox *out, uint32_t n, SplitBox *parts, int32_t **m)
{
    const Block *S = graph_block(s->g, e->dst);
    SplitBox db;
    memcpy(db.pos, en->dst_pos, sizeof db.pos);
    memcpy(db.size, en->dst_box, sizeof db.size);
    int32_t oc[TIR_CDIMS];
    long pos = S ? graph_block_pos(s->g, S->id) : -1;
    if (!s->chip || pos < 0 || (uint32_t)pos >= s->u->n_blocks ||
        bt_info(S->type)->kind != BK_STORAGE || S->data || S->n_in != 1 ||
        S->in[0].n_ifaces != 1 || S->n_out != 1 || !S->out[0].n_ifaces ||
        !split_box_whole(&db, en->dst_cdims) ||
        (plain(e) && !same_dims(en->src_cdims, en->dst_cdims, false)) ||
        !blk_cluster_dims(S, false, 0, oc) || !same_dims(oc, en->dst_cdims, false) ||
        (plain(e) && bbox_storage_bytes(s->chip, s->g, s->u, (uint32_t)pos) <= room))
        return false;
    for (uint32_t j = 0; j < S->out[0].n_ifaces; j++) {
        const Edge *o = graph_edge(s->g, S->out[0].ifaces[j].edge_id);
        const Block *r = o ? graph_block(s->g, o->dst) : NULL;
        EdgeEnds eo;
        char why[8];
        if (!r || r->type != BT_OUTPUT || !edge_ends(s->g, s->u, o, &eo, why, sizeof why) ||
            !same_dims(eo.src_cdims, oc, false) ||
            !same_dims(eo.src_cdims, eo.dst_cdims, true) || !keeps_order(s, o, &eo))
            return false;
    }
    return plain(e) || mapped_parts(s, e, en, out, n, parts, m);
}

/* Piece i's edge into its part (box r of S, written through e's element map m over S:
 * each value from its place in the piece's box out). */
static Status feed_part(const SplitCtx *s, const EdgeEnds *en, const int32_t *m,
                        Block *piece, const SplitBox *out, Block *part, const SplitBox *r)
{
    SplitBox all = {{0}, {0}};
    memcpy(all.size, en->dst_box, sizeof all.size);
    int64_t kn = box_volume(r);
    int64_t *idx = malloc((size_t)kn * sizeof *idx);
    int32_t *esrc = calloc((size_t)kn, sizeof *esrc), *eoff = malloc((size_t)kn * sizeof *eoff);
    if (!idx || !esrc || !eoff) {
        free(idx), free(esrc), free(eoff);
        return oom(s);
    }
    split_box_index(&all, r, idx);
    for (int64_t j = 0; j < kn; j++) {
        int32_t c[TIR_CDIMS] = {0};
        int64_t o = m[idx[j]];
        for (int k = TIR_CDIMS - 1; k >= 0; k--)
            if (en->src_cdims[k] > 0)
                c[k] = (int32_t)(o % en->src_cdims[k]) - out->pos[k], o /= en->src_cdims[k];
        eoff[j] = (int32_t)cluster_offset(out->size, c);
    }
    EncSrc es = {.b = piece};
    memcpy(es.cd, out->size, sizeof es.cd);
    char where[160];
    blk_describe(part, where, sizeof where);
    EncCtx ec = {.g = s->g, .d = s->d, .where = where, .name = part->name};
    int32_t zero[TIR_CDIMS] = {0};
    Status st = enc_map(&ec, part, 0, zero, r->size, &es, esrc, eoff, kn);
    free(idx), free(esrc), free(eoff);
    return st;
}

/* The pieces of b write store S (output_store, through e with ends en) as parts of their
 * own, "<S>/<piece's suffix>": piece i its part out[i] into a block of that shape (through
 * steps, m e's element map: the box parts[i] of S into a block of its shape), which the
 * OUTPUTs read where they read S. So the part lives on the piece's core (the mapper puts a
 * storage block no compute block reads with its writer), not all of S with the first. */
static Status cut_store(const SplitCtx *s, const Edge *e, const EdgeEnds *en,
                        Block *const *pieces, const SplitBox *out, uint32_t n,
                        const SplitBox *parts, const int32_t *m)
{
    Block *S = graph_block(s->g, e->dst);
    SplitBox sb;
    memcpy(sb.pos, en->src_pos, sizeof sb.pos);
    memcpy(sb.size, en->src_box, sizeof sb.size);
    for (uint32_t i = 0; i < n; i++) {
        SplitBox in, r;
        if (m) {
            bool none = true; /* the piece's values fill no box of S */
            r = parts[i];
            for (int c = 0; c < TIR_CDIMS; c++)
                none &= r.size[c] <= 0;
            if (none)
                continue;
        } else if (!meet(&sb, &out[i], &in)) {
            continue;
        } else {
            for (int c = 0; c < TIR_CDIMS; c++) { /* in S: the same dims, e writes all of S */
                r.pos[c] = in.size[c] > 0 ? in.pos[c] - sb.pos[c] : 0;
                r.size[c] = in.size[c];
            }
        }
        const char *suf = pieces[i]->name ? strrchr(pieces[i]->name, '/') : NULL;
        Block *part = graph_clone_block(s->g, S, suf ? suf + 1 : "part");
        if (!part)
            return oom(s);
        split_storage_shape(S, &r, part->shape.d);
        part->has_shape = true;
        for (uint32_t c = 0; c < part->n_in; c++)
            part->in[c].has_shape = false;
        for (uint32_t c = 0; c < part->n_out; c++)
            part->out[c].has_shape = false;
        if (m) {
            Status st = feed_part(s, en, m, pieces[i], &out[i], part, &r);
            if (st != ST_OK)
                return st;
        } else {
            int32_t spos[TIR_CDIMS];
            for (int c = 0; c < TIR_CDIMS; c++)
                spos[c] = in.size[c] > 0 ? in.pos[c] - out[i].pos[c] : 0;
            if (!graph_connect_box(s->g, pieces[i], 0, spos, in.size, part, 0, NULL, NULL))
                return oom(s);
        }
        for (uint32_t j = 0; j < S->out[0].n_ifaces; j++) {
            const Edge *o = graph_edge(s->g, S->out[0].ifaces[j].edge_id);
            EdgeEnds eo;
            char why[8];
            SplitBox ob, mt;
            if (!edge_ends(s->g, s->u, o, &eo, why, sizeof why))
                continue; /* output_store read them all */
            memcpy(ob.pos, eo.src_pos, sizeof ob.pos);
            memcpy(ob.size, eo.src_box, sizeof ob.size);
            if (!meet(&ob, &r, &mt))
                continue;
            int32_t ppos[TIR_CDIMS], dpos[TIR_CDIMS], dsize[TIR_CDIMS];
            for (int c = 0; c < TIR_CDIMS; c++) { /* a dim of extent 1 on one side only: 0 */
                ppos[c] = mt.size[c] > 0 ? mt.pos[c] - r.pos[c] : 0;
                dpos[c] = eo.dst_pos[c] + (mt.size[c] > 0 ? mt.pos[c] - ob.pos[c] : 0);
                dsize[c] = mt.size[c] > 0 ? mt.size[c] : eo.dst_box[c];
            }
            if (!graph_connect_box(s->g, part, 0, ppos, mt.size, graph_block(s->g, o->dst),
                                   eo.dst_cluster, dpos, dsize))
                return oom(s);
        }
    }
    return ST_OK;
}

Status split_route_output(const SplitCtx *s, const Block *b, Block *const *pieces,
                          const SplitBox *out, uint32_t n, int64_t room, int32_t *stores,
                          uint32_t *n_stores)
{
    const Cluster *cl = &b->out[0];
    *n_stores = 0;
    for (uint32_t k = 0; k < cl->n_ifaces; k++) {
        const Edge *e = graph_edge(s->g, cl->ifaces[k].edge_id);
        EdgeEnds en;
        char why[256];
        if (!e || !edge_ends(s->g, s->u, e, &en, why, sizeof why))
            return diag_block(s->d, ST_LOGIC, "pass.split.edge", b, "%s", why);
        Block *dst = graph_block(s->g, e->dst);
        SplitBox *parts = malloc((n ? n : 1) * sizeof *parts);
        int32_t *m = NULL;
        if (!parts)
            return oom(s);
        if (output_store(s, e, &en, room, out, n, parts, &m)) {
            Status st = cut_store(s, e, &en, pieces, out, n, parts, m);
            free(parts), free(m);
            if (st != ST_OK)
                return st;
            stores[(*n_stores)++] = e->dst;
            continue;
        }
        free(parts);
        if (!plain(e)) {
            Status st = route_mapped(s, e, &en, pieces, out, n);
            if (st != ST_OK)
                return st;
            continue;
        }
        SplitBox sb;
        memcpy(sb.pos, en.src_pos, sizeof sb.pos);
        memcpy(sb.size, en.src_box, sizeof sb.size);
        /* dst's cluster gets an interface a piece that meets the box: room for all at once */
        uint32_t meets = 0;
        for (uint32_t i = 0; i < n; i++) {
            SplitBox in;
            meets += meet(&sb, &out[i], &in);
        }
        if (!cluster_reserve_ifaces(s->g, &dst->in[en.dst_cluster], meets))
            return oom(s);
        for (uint32_t i = 0; i < n; i++) {
            SplitBox in;
            if (!meet(&sb, &out[i], &in))
                continue;
            int32_t spos[TIR_CDIMS], dpos[TIR_CDIMS], dsize[TIR_CDIMS];
            for (int c = 0; c < TIR_CDIMS; c++) {
                bool cut = in.size[c] > 0; /* a dim the pieces use; else the destination's */
                spos[c] = cut ? in.pos[c] - out[i].pos[c] : 0;
                dpos[c] = en.dst_pos[c] + (cut ? in.pos[c] - sb.pos[c] : 0);
                dsize[c] = cut ? in.size[c] : en.dst_box[c];
            }
            if (!graph_connect_box(s->g, pieces[i], 0, spos, in.size, dst, en.dst_cluster,
                                   dpos, dsize))
                return oom(s);
        }
    }
    return ST_OK;
}
