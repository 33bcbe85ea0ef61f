/* emit_sockrun.c: a model input or output whose values lie in memory in another order than
 * the socket's (docs/backend.md, "Inputs, outputs and data"): a transposing edge between the
 * socket and its storage, or an output read from a view of its writer's map (emit_rearr.c).
 * No move reorders values across lanes, but a dynamic block places any box of the socket,
 * [y][x][f] (X_Y_F) or [f][y][x] (F_X_Y), without alignment, from a word's first lane: so
 * each pixel of the copy is cut into such boxes, lane by lane, each the longest that starts
 * where the one before ends (in either order), cut back to a prefix that ends on a word's
 * last lane unless it ends the pixel's values: a block per box. An input's values must be a
 * run from lane 0 (lanes a step fills with zero are not written). An OUTPUT that takes a
 * value of a view several times (a SHUFFLE repeating an index) gets the blocks of each
 * further use after those of the first (emit_rearr_layer). An input into a staged map
 * (emit_stage.c) is placed so in its int32 area, where every lane is a word's first. Anything
 * else is refused [emit.rearrange]. The cutting is taskir/sockbox.c, which the staging
 * decision asks too (layout_staged).
 */
#include "backend/emit_internal.h"

#include "taskir/diag_block.h"
#include "taskir/edge_map.h"
#include "taskir/rearrange.h"
#include "taskir/sockbox.h"

#include <stdlib.h>

#define SET(m, f, v) ((m)->has_##f = 1, (m)->f = (v))

bool emit_socket_fr(const Block *io)
{
    return sockbox_fr(io);
}

/* The dynamic blocks of copy cp, whose lane l holds socket value sock[l]: one a piece of each
 * pixel. */
static Status runs(Emit *e, Taskir__Asm__DataConfig *dc, const Block *io, const ECopy *cp,
                   const int64_t *sock, int *piece)
{
    int64_t s[3];
    sockbox_dims(io, s);
    const EmitFeat *f = &cp->feat;
    int64_t pix = f->ny * f->nx, pw = emit_feat_pixel_words(f), made = 0;
    SockPiece *pc = malloc((size_t)(f->c > 0 ? f->c : 1) * sizeof *pc);
    if (!pc)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    Status st = ST_OK;
    for (int64_t p = 0; p < pix && st == ST_OK; p++) {
        int64_t np;
        if (!sockbox_pixel(sock + p * f->c, f->c, s, f->per_word, io->type == BT_OUTPUT, pc,
                          &np)) {
            st = diag_block(e->d, ST_LOGIC, "emit.rearrange", io,
                            "its values lie in memory in another order, and the channels of "
                            "pixel %lld of block %d's copy are no boxes of it each from a "
                            "word's first lane (a dynamic block a box)", (long long)p,
                            e->g->blocks[cp->block]->id);
            break;
        }
        if ((made += np) > SOCKBOX_MAX_PIECES) {
            st = diag_block(e->d, ST_LOGIC, "emit.rearrange", io,
                            "its values lie in another order in memory, a dynamic block a "
                            "box: block %d's copy needs more than %d",
                            e->g->blocks[cp->block]->id, SOCKBOX_MAX_PIECES);
            break;
        }
        for (int64_t i = 0; i < np; i++) {
            Taskir__Asm__DynamicBlock *db = emit_dynamic_new(e, dc, io, cp, (*piece)++);
            if (!db) {
                st = ST_RUNTIME;
                break;
            }
            db->begin_position = emit_yxf(e, pc[i].b[0], pc[i].b[1], pc[i].b[2]);
            db->shape = emit_yxf(e, pc[i].n[0], pc[i].n[1], pc[i].n[2]);
            SET(db, start_addr,
                (int32_t)(emit_copy_addr(e, cp) + p * pw + pc[i].at / f->per_word));
            SET(db, length, (int32_t)((pc[i].lanes + f->per_word - 1) / f->per_word));
            SET(db, storage_order, pc[i].fxy ? TASKIR__ASM__STORAGE_ORDER__F_X_Y
                                             : TASKIR__ASM__STORAGE_ORDER__X_Y_F);
        }
    }
    free(pc);
    return e->d->oom ? ST_RUNTIME : st;
}

bool emit_lanes_fit(const Block *io, const EmitFeat *f, const int64_t *sock)
{
    int64_t s[3];
    sockbox_dims(io, s);
    SockPiece *pc = malloc((size_t)(f->c > 0 ? f->c : 1) * sizeof *pc);
    bool ok = pc != NULL;
    for (int64_t p = 0, made = 0, np = 0; ok && p < f->ny * f->nx; p++, made += np)
        ok = sockbox_pixel(sock + p * f->c, f->c, s, f->per_word, io->type == BT_OUTPUT, pc,
                          &np) &&
             made + np <= SOCKBOX_MAX_PIECES;
    free(pc);
    return ok;
}

/* sock[] for the lanes of copy cp (-1 everywhere), or NULL (out of memory recorded). */
static int64_t *lanes_of(Emit *e, const ECopy *cp, int64_t *n)
{
    *n = cp->feat.ny * cp->feat.nx * cp->feat.c;
    int64_t *sock = malloc((size_t)(*n ? *n : 1) * sizeof *sock);
    if (!sock) {
        diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
        return NULL;
    }
    for (int64_t l = 0; l < *n; l++)
        sock[l] = -1;
    return sock;
}

/* The volume of block b's cluster 0 (input or output side); 0 when it has none, above
 * RA_MAX_ELEMS when too large. */
static int64_t cluster_volume(const Block *b, bool input)
{
    int32_t cd[TIR_CDIMS];
    if (!blk_cluster_dims(b, input, 0, cd))
        return 0;
    int64_t v = 1;
    for (int i = 0; i < TIR_CDIMS && v <= RA_MAX_ELEMS; i++)
        v *= cd[i] > 0 ? cd[i] : 1;
    return v;
}

/* An OUTPUT pos reading storage s through edge ed in another order: each socket value is one
 * value of s (no zero a step fills in, none read twice), which the copy the output reads (the
 * first) holds; its lanes are cut into boxes of the socket as an input's are. */
static Status output_steps(Emit *e, Taskir__Asm__DataConfig *dc, uint32_t pos, const Edge *ed,
                           uint32_t s, int *piece)
{
    const Block *io = e->g->blocks[pos], *sb = e->g->blocks[s];
    const ECopy *cp = e->n_copy[s] ? &e->copies[e->first_copy[s]] : NULL;
    int32_t cd[TIR_CDIMS];
    int64_t vol = cluster_volume(io, true), svol = cluster_volume(sb, false);
    if (!cp || cp->planes || !emit_whole_iface(e, pos, true, ed->id) ||
        !blk_cluster_dims(sb, false, 0, cd) || vol < 1 || vol > RA_MAX_ELEMS || svol < 1 ||
        svol > RA_MAX_ELEMS)
        return diag_edge(e->d, ST_LOGIC, "emit.rearrange", ed->id,
                         "the socket's values come from block %d in another order, into part "
                         "of the socket, from a copy laid out for P81, or too many of them",
                         sb->id);
    int ch = cd[D_F] > 0 ? D_F : D_R;
    int64_t ny = cd[D_Y] > 0 ? cd[D_Y] : 1, nx = cd[D_X] > 0 ? cd[D_X] : 1;
    int64_t nc = cd[ch] > 0 ? cd[ch] : 1;
    if (ny * nx * nc != svol)
        return diag_edge(e->d, ST_LOGIC, "emit.rearrange", ed->id,
                         "block %d, read in another order, is no map of y, x and channels",
                         sb->id);
    int32_t *map = malloc((size_t)vol * sizeof *map);
    int64_t *inv = malloc((size_t)svol * sizeof *inv), n = 0;
    int64_t *sock = map && inv ? lanes_of(e, cp, &n) : NULL;
    Status st = sock ? edge_element_map(e->g, &e->uses, ed, map, vol, e->d)
                     : diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (int64_t i = 0; st == ST_OK && i < svol; i++)
        inv[i] = -1;
    for (int64_t i = 0; st == ST_OK && i < vol; i++) {
        if (map[i] < 0 || map[i] >= svol || inv[map[i]] >= 0)
            st = diag_edge(e->d, ST_LOGIC, "emit.rearrange", ed->id,
                           "socket value %lld is %s: a dynamic block reads each value of "
                           "memory as one socket value", (long long)i,
                           map[i] < 0 || map[i] >= svol ? "a zero a step fills in"
                                                        : "a value another one reads too");
        else
            inv[map[i]] = i;
    }
    const EBox *cb = &cp->box;
    int64_t held = 0;
    for (int64_t y = 0; st == ST_OK && y < cb->n[0]; y++)
        for (int64_t x = 0; x < cb->n[1]; x++)
            for (int64_t c = 0; c < cb->n[2]; c++) {
                int64_t v = inv[((cb->lo[0] + y) * nx + cb->lo[1] + x) * nc + cb->lo[2] + c];
                sock[(y * cb->n[1] + x) * cp->feat.c + c] = v;
                held += v >= 0;
            }
    if (st == ST_OK && held != vol)
        st = diag_edge(e->d, ST_LOGIC, "emit.rearrange", ed->id,
                       "the socket reads %lld values of block %d, of which its copy on %s "
                       "holds %lld", (long long)vol, sb->id, e->cores[cp->core].name,
                       (long long)held);
    if (st == ST_OK)
        st = runs(e, dc, io, cp, sock, piece);
    free(map);
    free(inv);
    free(sock);
    return st;
}

Status emit_socket_steps(Emit *e, Taskir__Asm__DataConfig *dc, uint32_t pos, const Edge *ed,
                         uint32_t s, int *piece)
{
    const Block *io = e->g->blocks[pos];
    if (io->type == BT_OUTPUT)
        return output_steps(e, dc, pos, ed, s, piece);
    EBox box;
    if (!emit_iface_box(e, s, true, ed->id, &box))
        return diag_edge(e->d, ST_RUNTIME, "emit.internal", ed->id, "no box");
    int64_t vol = box.n[0] * box.n[1] * box.n[2];
    if (vol < 1 || vol > RA_MAX_ELEMS)
        return diag_edge(e->d, ST_LOGIC, "emit.rearrange", ed->id, "too many values");
    int32_t *map = malloc((size_t)vol * sizeof *map);
    if (!map)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    Status st = edge_element_map(e->g, &e->uses, ed, map, vol, e->d);
    for (uint32_t c = 0; c < e->n_copy[s] && st == ST_OK; c++) {
        const EStage *sg = emit_stage_of(e, e->first_copy[s] + c);
        ECopy staged = sg ? emit_stage_copy(e, sg) : e->copies[e->first_copy[s] + c];
        const ECopy *cp = &staged; /* a staged map: its int32 area, one value a word */
        int64_t n;
        int64_t *sock = cp->planes || cp->view ? NULL : lanes_of(e, cp, &n);
        if (!sock) {
            st = e->d->oom ? ST_RUNTIME
                           : diag_edge(e->d, ST_LOGIC, "emit.rearrange", ed->id,
                                       "reorders the socket into a copy laid out for P81 or "
                                       "as a view");
            break;
        }
        const EBox *cb = &cp->box;
        for (int64_t y = 0; y < cb->n[0]; y++)
            for (int64_t x = 0; x < cb->n[1]; x++)
                for (int64_t ch = 0; ch < cb->n[2]; ch++) {
                    int64_t yy = cb->lo[0] + y - box.lo[0], xx = cb->lo[1] + x - box.lo[1];
                    int64_t cc = cb->lo[2] + ch - box.lo[2];
                    if (yy < 0 || yy >= box.n[0] || xx < 0 || xx >= box.n[1] || cc < 0 ||
                        cc >= box.n[2])
                        continue;
                    sock[(y * cb->n[1] + x) * cp->feat.c + ch] =
                        map[(yy * box.n[1] + xx) * box.n[2] + cc];
                }
        st = runs(e, dc, io, cp, sock, piece);
        free(sock);
    }
    free(map);
    return st;
}

/* Value i of a view (C order) read in C order into box sbox of socket io (y, x, f): its
 * place in the socket; i itself when sbox is all of the socket (or io has dims f and r). */
static int64_t in_socket(const Block *io, const EBox *sbox, int64_t i)
{
    int64_t s[3];
    sockbox_dims(io, s);
    if (!sbox || sockbox_fr(io) || sbox->n[0] * sbox->n[1] * sbox->n[2] >= s[0] * s[1] * s[2])
        return i; /* all of the socket (in C order, in whatever extents; y x (f r)) */
    int64_t c = i % sbox->n[2], x = i / sbox->n[2] % sbox->n[1], y = i / sbox->n[2] / sbox->n[1];
    return ((sbox->lo[0] + y) * s[1] + sbox->lo[1] + x) * s[2] + sbox->lo[2] + c;
}

Status emit_socket_view(Emit *e, Taskir__Asm__DataConfig *dc, uint32_t pos, const ECopy *view,
                        const EBox *sbox, int *piece)
{
    /* a view widened for the OUTPUTs (emit_widen.c): read from its int32 area, the same
     * lanes one a word, to the end of the run */
    const EWiden *wd = emit_widen_of(e, (uint32_t)(view - e->copies));
    ECopy wide = *view;
    if (wd) {
        wide.feat = wd->feat;
        wide.req = wd->req;
        wide.alias_of = EMIT_NONE;
        wide.first = wd->phase;
        wide.last = e->cores[view->core].n_phases - 1;
    }
    const ECopy *cp = wd ? &wide : view;
    bool more = true; /* a value the OUTPUT takes several times: a block for each use */
    Status st = ST_OK;
    int64_t vol = cp->box.n[0] * cp->box.n[1] * cp->box.n[2], held = 0;
    for (int64_t layer = 0; more && st == ST_OK; layer++) {
        int64_t *rows = NULL, n = 0;
        st = emit_rearr_layer(e, cp->block, layer, &rows, &n, &more);
        if (st != ST_OK)
            return st;
        for (int64_t l = 0; l < n; l++) /* the OUTPUT reads it whole, into sbox */
            if (rows[l] >= 0 && rows[l] < vol) {
                held++;
                rows[l] = in_socket(e->g->blocks[pos], sbox, rows[l]);
            }
        if (n != cp->feat.ny * cp->feat.nx * cp->feat.c)
            st = diag_block(e->d, ST_RUNTIME, "emit.internal", e->g->blocks[pos],
                            "a view of %lld lanes", (long long)n);
        else
            st = runs(e, dc, e->g->blocks[pos], cp, rows, piece);
        free(rows);
    }
    if (st == ST_OK && held != vol) /* the OUTPUT reads it whole, each value from a lane */
        st = diag_block(e->d, ST_LOGIC, "emit.rearrange", e->g->blocks[pos],
                        "reads block %d, a view of its writer's map that holds %lld of its "
                        "%lld values (the others are zeros a step fills in)",
                        e->g->blocks[cp->block]->id, (long long)held, (long long)vol);
    return st;
}
