/* emit_sockrun.c: a model input or output whose values lie in memory in another order than
 * the socket's (docs/backend.md, "Inputs, outputs and data"): a transposing edge between the
 * socket and its storage, or an output read from a view of its writer's map (emit_rearr.c).
 * No move reorders values across lanes, but a dynamic block places any box of the socket:
 * so each pixel of the copy gets a block of its own when its channels are one run along one
 * axis of the socket (shape n x 1 x 1, 1 x n x 1 or 1 x 1 x n, X_Y_F without alignment: n
 * values in a row from the pixel's first word). An OUTPUT that takes a value of a view several
 * times (a SHUFFLE repeating an index) gets the blocks of each further use after those of the
 * first (emit_rearr_layer). Anything else is refused [emit.rearrange].
 */
#include "backend/emit_internal.h"

#include "taskir/diag_block.h"
#include "taskir/edge_map.h"
#include "taskir/rearrange.h"

#include <stdlib.h>

#define SET(m, f, v) ((m)->has_##f = 1, (m)->f = (v))

/* At most this many pixels a socket is cut into. */
enum { MAX_RUNS = 1 << 16 };

/* The socket's extents y, x, f. */
static void socket_dims(const Block *io, int64_t s[3])
{
    int32_t cd[TIR_CDIMS] = {0};
    blk_cluster_dims(io, io->type != BT_INPUT, 0, cd);
    s[0] = cd[D_Y] > 0 ? cd[D_Y] : 1;
    s[1] = cd[D_X] > 0 ? cd[D_X] : 1;
    s[2] = cd[D_F] > 0 ? cd[D_F] : cd[D_R] > 0 ? cd[D_R] : 1;
}

/* The run of pixel p's lanes (sock[p * pitch ..], -1: no socket value): its first socket
 * value *at, its length *n (0: none) and the socket axis it goes along (0 y, 1 x, 2 f);
 * false when the lanes holding values are not one run from lane 0 along one axis. */
static bool pixel_run(const int64_t *sock, int64_t pitch, const int64_t s[3], int64_t *at,
                      int64_t *n, int *axis)
{
    int64_t k = 0;
    while (k < pitch && sock[k] >= 0)
        k++;
    for (int64_t l = k; l < pitch; l++)
        if (sock[l] >= 0)
            return false;
    *at = sock[0];
    *n = k;
    *axis = 2;
    if (k < 2)
        return true;
    const int64_t stride[3] = {s[1] * s[2], s[2], 1};
    int64_t coord[3] = {sock[0] / stride[0], sock[0] / s[2] % s[1], sock[0] % s[2]};
    for (*axis = 0; *axis < 3 && sock[1] - sock[0] != stride[*axis]; (*axis)++)
        ;
    if (*axis == 3 || coord[*axis] + k > s[*axis])
        return false;
    for (int64_t l = 1; l < k; l++)
        if (sock[l] - sock[l - 1] != stride[*axis])
            return false;
    return true;
}

/* One dynamic block a pixel of copy cp, whose lane l holds socket value sock[l]. */
static Status runs(Emit *e, Taskir__Asm__DataConfig *dc, const Block *io, const ECopy *cp,
                   const int64_t *sock, int *piece)
{
    int64_t s[3];
    socket_dims(io, s);
    const EmitFeat *f = &cp->feat;
    int64_t pix = f->ny * f->nx, pw = emit_feat_pixel_words(f);
    if (pix > MAX_RUNS)
        return diag_block(e->d, ST_LOGIC, "emit.rearrange", io,
                          "its values lie in another order in memory, a dynamic block a pixel: "
                          "%lld pixels are more than %d", (long long)pix, MAX_RUNS);
    for (int64_t p = 0; p < pix; p++) {
        int64_t at, n;
        int axis;
        if (!pixel_run(sock + p * f->c, f->c, s, &at, &n, &axis))
            return diag_block(e->d, ST_LOGIC, "emit.rearrange", io,
                              "its values lie in memory in another order, and the channels of "
                              "pixel %lld of block %d's copy are no run along one of its axes "
                              "(a dynamic block a run)", (long long)p,
                              e->g->blocks[cp->block]->id);
        if (n == 0)
            continue;
        Taskir__Asm__DynamicBlock *db = emit_dynamic_new(e, dc, io, cp, (*piece)++);
        if (!db)
            return ST_RUNTIME;
        db->begin_position = emit_yxf(e, at / (s[1] * s[2]), at / s[2] % s[1], at % s[2]);
        db->shape = emit_yxf(e, axis == 0 ? n : 1, axis == 1 ? n : 1, axis == 2 ? n : 1);
        SET(db, start_addr, (int32_t)(emit_copy_addr(e, cp) + p * pw));
        SET(db, length, (int32_t)((n + f->per_word - 1) / f->per_word));
        SET(db, storage_order, TASKIR__ASM__STORAGE_ORDER__X_Y_F);
    }
    return e->d->oom ? ST_RUNTIME : ST_OK;
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

Status emit_socket_steps(Emit *e, Taskir__Asm__DataConfig *dc, uint32_t pos, const Edge *ed,
                         uint32_t s, int *piece)
{
    const Block *io = e->g->blocks[pos];
    EBox box;
    if (io->type != BT_INPUT || !emit_iface_box(e, s, true, ed->id, &box))
        return diag_edge(e->d, ST_LOGIC, "emit.rearrange", ed->id,
                         "the socket's values reach block %d in another order; the code "
                         "generator places a model input so, not an output",
                         e->g->blocks[s]->id);
    int64_t vol = box.n[0] * box.n[1] * box.n[2];
    if (vol < 1 || vol > RA_MAX_ELEMS)
        return diag_edge(e->d, ST_LOGIC, "emit.rearrange", ed->id, "too many values");
    int32_t *map = malloc((size_t)vol * sizeof *map);
    if (!map)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    Status st = edge_element_map(e->g, &e->uses, ed, map, vol, e->d);
    for (uint32_t c = 0; c < e->n_copy[s] && st == ST_OK; c++) {
        const ECopy *cp = &e->copies[e->first_copy[s] + c];
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

Status emit_socket_view(Emit *e, Taskir__Asm__DataConfig *dc, uint32_t pos, const ECopy *cp,
                        int *piece)
{
    bool more = true; /* a value the OUTPUT takes several times: a block for each use */
    Status st = ST_OK;
    for (int64_t layer = 0; more && st == ST_OK; layer++) {
        int64_t *rows = NULL, n = 0;
        st = emit_rearr_layer(e, cp->block, layer, &rows, &n, &more);
        if (st != ST_OK)
            return st;
        if (n != cp->feat.ny * cp->feat.nx * cp->feat.c)
            st = diag_block(e->d, ST_RUNTIME, "emit.internal", e->g->blocks[pos],
                            "a view of %lld lanes", (long long)n);
        else /* the OUTPUT reads it whole */
            st = runs(e, dc, e->g->blocks[pos], cp, rows, piece);
        free(rows);
    }
    return st;
}
