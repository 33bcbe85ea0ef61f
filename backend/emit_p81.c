/* emit_p81.c: the channel-major input of P81 (CC2D; docs/backend.md "Layouts", CHIP.md §1).
 * P81 reads its input plane by plane, [r][py][pxw]: each channel's rows of px = ix + pads
 * bytes padded to a multiple of 16, the padding rows and columns stored. No move turns a
 * pixel-major map into that (a P06 keeps each value's lane), but a model input can be placed
 * so: a storage block is laid out as planes when only INPUTs write it (each all of it) and
 * only CC2Ds read it, each all of it, all with the same padding.
 *
 * Without padding, and with an edge from the socket without steps, a dynamic block in storage
 * order F_X_Y ([f][y][x'], x' rounded up to 16 by ALIGN_16) is exactly the planes (emit_io.c).
 * Otherwise every row of every plane gets a dynamic block of its own (emit_p81_dynamic): the
 * socket's values that row holds (a run along one of the socket's axes, through the edge's
 * steps: mobilenet's depthwise groups each take a row of the socket as their plane), placed
 * from the row's first stored column, and a static block of zeros loaded before them gives the
 * padding rows and columns. A dynamic block writes whole words from a word's first byte, so
 * the stored left padding is a whole number of words: the kernel is widened by leading
 * columns of zero weights to match (layout_p81_left, taskir/layout.h, which the mapper counts
 * the planes with too); an odd left padding with an even dilation takes no such columns, so
 * the kernel's taps are spread out first, zero columns between them, and P81 runs it
 * undilated (layout_p81_dilation).
 */
#include "backend/emit_internal.h"

#include "taskir/diag_block.h"
#include "taskir/edge_map.h"
#include "taskir/layout.h"
#include "taskir/rearrange.h"

#include <stdlib.h>
#include <string.h>

#define SET(m, f, v) ((m)->has_##f = 1, (m)->f = (v))

/* At most this many rows (a dynamic block each) a copy of planes is written in. */
enum { MAX_ROWS = 1 << 16 };

bool emit_p81_pad(const Block *b, int32_t pad[4], int32_t *lead, int32_t *dx)
{
    int32_t left = layout_p81_left(blk_attr(b, AT_PAD_LEFT), blk_attr(b, AT_DILATION_X), lead);
    *dx = layout_p81_dilation(blk_attr(b, AT_PAD_LEFT), blk_attr(b, AT_DILATION_X));
    pad[0] = blk_attr(b, AT_PAD_UP);
    pad[1] = blk_attr(b, AT_PAD_DOWN);
    pad[2] = left;
    pad[3] = blk_attr(b, AT_PAD_RIGHT);
    return left >= 0 && pad[0] >= 0 && pad[1] >= 0 && pad[3] >= 0;
}

/* The stored padding of storage block s's planes: the one every CC2D reading it reads (false
 * when they differ, or one cannot be stored). */
static bool planes_pad(const Emit *e, uint32_t s, int32_t pad[4])
{
    const BlockUses *bu = &e->uses.blocks[s];
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        long r = graph_block_pos(e->g, e->g->edges[bu->out_edges[j]]->dst);
        int32_t p[4], lead, dx;
        if (r < 0 || !emit_p81_pad(e->g->blocks[r], p, &lead, &dx) ||
            (j > 0 && memcmp(p, pad, sizeof p) != 0))
            return false;
        memcpy(pad, p, sizeof p);
    }
    return bu->n_out_edges > 0;
}

bool emit_p81_planes(const Emit *e, uint32_t s, const EBox *box, EmitFeat *feat)
{
    const Block *b = e->g->blocks[s];
    const BlockUses *bu = &e->uses.blocks[s];
    PrecisionId p = blk_prec(b);
    int32_t pad[4];
    if (bt_info(b->type)->kind != BK_STORAGE || b->data || bu->n_in_edges == 0 ||
        bu->n_out_edges == 0 || (p != PR_INT_8 && p != PR_UINT_8))
        return false;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = e->g->edges[bu->in_edges[j]];
        long w = graph_block_pos(e->g, ed->src);
        if (w < 0 || e->g->blocks[w]->type != BT_INPUT || !emit_whole_iface(e, s, true, ed->id))
            return false;
    }
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const Edge *ed = e->g->edges[bu->out_edges[j]];
        long r = graph_block_pos(e->g, ed->dst);
        const IfaceUse *u = r >= 0 ? uses_find(&e->uses, (uint32_t)r, true, ed->id) : NULL;
        if (!u || u->cluster != 0 || e->g->blocks[r]->type != BT_CC2D || ed->n_re ||
            !emit_whole_iface(e, s, false, ed->id))
            return false;
    }
    if (!planes_pad(e, s, pad))
        return false;
    return emit_feat_planes(p, box->n[2], box->n[0] + pad[0] + pad[1],
                            box->n[1] + pad[2] + pad[3], feat);
}

/* Whether storage block s's planes hold stored padding. */
static bool padded(const Emit *e, uint32_t s)
{
    int32_t pad[4];
    return planes_pad(e, s, pad) && (pad[0] || pad[1] || pad[2] || pad[3]);
}

Status emit_p81_zeros(Emit *e, ECopy *cp)
{
    if (!cp->planes || !padded(e, cp->block))
        return ST_OK;
    cp->n_image = (size_t)cp->feat.words;
    cp->image = calloc(cp->n_image ? cp->n_image : 1, sizeof *cp->image);
    return cp->image ? ST_OK : diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
}

bool emit_p81_rows(const Emit *e, uint32_t s, const Edge *ed)
{
    return ed->n_re || padded(e, s);
}

/* The socket's extents y, x and f (f * r for a socket with an r dim besides f: a dynamic block
 * places a box of y x (f r), docs/backend.md "Dynamic blocks"). */
static void socket_dims(const Block *io, int64_t s[3])
{
    int32_t cd[TIR_CDIMS] = {0};
    blk_cluster_dims(io, false, 0, cd);
    s[0] = cd[D_Y] > 0 ? cd[D_Y] : 1;
    s[1] = cd[D_X] > 0 ? cd[D_X] : 1;
    s[2] = (cd[D_F] > 0 ? cd[D_F] : 1) * (cd[D_R] > 0 ? cd[D_R] : 1);
}

/* The dynamic block placing values v[0 .. n) of the socket (flat C-order offsets in it) at
 * word addr: they must be a run along one of the socket's axes. */
static Status row_block(Emit *e, Taskir__Asm__DataConfig *dc, const Block *io, const ECopy *cp,
                        const int64_t s[3], const int32_t *v, int64_t n, int64_t addr,
                        int *piece)
{
    const int64_t stride[3] = {s[1] * s[2], s[2], 1};
    int64_t c[3] = {v[0] / stride[0], v[0] / s[2] % s[1], v[0] % s[2]};
    int axis = 2;
    if (n > 1)
        for (axis = 0; axis < 3 && v[1] - v[0] != stride[axis]; axis++)
            ;
    bool run = axis < 3 && c[axis] + n <= s[axis];
    for (int64_t i = 1; run && i < n; i++)
        run = v[i] == v[0] + i * stride[axis];
    if (!run)
        return diag_block(e->d, ST_LOGIC, "emit.rearrange", io,
                          "a row of block %d's planes (P81's input) takes socket values that "
                          "are no run along one axis of the socket (a dynamic block a row)",
                          e->g->blocks[cp->block]->id);
    Taskir__Asm__DynamicBlock *db = emit_dynamic_new(e, dc, io, cp, (*piece)++);
    if (!db)
        return ST_RUNTIME;
    int64_t n3[3] = {1, 1, 1};
    n3[axis] = n;
    db->begin_position = emit_yxf(e, c[0], c[1], c[2]);
    db->shape = emit_yxf(e, n3[0], n3[1], n3[2]);
    SET(db, start_addr, (int32_t)addr);
    SET(db, length, (int32_t)((n + 3) / 4));
    SET(db, storage_order, TASKIR__ASM__STORAGE_ORDER__X_Y_F);
    return e->d->oom ? ST_RUNTIME : ST_OK;
}

Status emit_p81_dynamic(Emit *e, Taskir__Asm__DataConfig *dc, uint32_t pos, const Edge *ed,
                        uint32_t s, int *piece)
{
    const Block *io = e->g->blocks[pos];
    EBox box;
    int32_t pad[4];
    if (!emit_iface_box(e, s, true, ed->id, &box) || !planes_pad(e, s, pad))
        return diag_edge(e->d, ST_RUNTIME, "emit.internal", ed->id, "no box");
    int64_t vol = box.n[0] * box.n[1] * box.n[2], so[3];
    if (vol < 1 || vol > RA_MAX_ELEMS || box.n[0] > MAX_ROWS / box.n[2])
        return diag_edge(e->d, ST_LOGIC, "emit.rearrange", ed->id,
                         "too many values or rows for P81's planes of block %d",
                         e->g->blocks[s]->id);
    socket_dims(io, so);
    int32_t *map = malloc((size_t)vol * sizeof *map);
    int32_t *row = malloc((size_t)box.n[1] * sizeof *row);
    Status st = map && row ? edge_element_map(e->g, &e->uses, ed, map, vol, e->d)
                           : diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (uint32_t c = 0; c < e->n_copy[s] && st == ST_OK; c++) {
        const ECopy *cp = &e->copies[e->first_copy[s] + c];
        int64_t base = emit_copy_addr(e, cp), pxw = (cp->feat.nx + 15) / 16 * 16;
        if (memcmp(&box, &cp->box, sizeof box) != 0) {
            st = diag_edge(e->d, ST_LOGIC, "emit.layout", ed->id,
                           "feeds part of block %d's planes (P81's input) on core %s; a "
                           "dynamic block a row places the whole copy only",
                           e->g->blocks[s]->id, e->cores[cp->core].name);
            break;
        }
        for (int64_t j = 0; j < box.n[2] && st == ST_OK; j++)
            for (int64_t y = 0; y < box.n[0] && st == ST_OK; y++) {
                for (int64_t x = 0; x < box.n[1]; x++)
                    row[x] = map[(y * box.n[1] + x) * box.n[2] + j];
                for (int64_t x = 0; x < box.n[1] && st == ST_OK; x++)
                    if (row[x] < 0)
                        st = diag_edge(e->d, ST_LOGIC, "emit.rearrange", ed->id,
                                       "fills a zero into block %d's planes (P81's input): a "
                                       "dynamic block writes socket values only",
                                       e->g->blocks[s]->id);
                /* the row's first stored column: a whole word (layout_p81_left) */
                int64_t byte = (j * cp->feat.ny + pad[0] + y) * pxw + pad[2];
                if (st == ST_OK)
                    st = row_block(e, dc, io, cp, so, row, box.n[1], base + byte / 4, piece);
            }
    }
    free(map);
    free(row);
    return st;
}
