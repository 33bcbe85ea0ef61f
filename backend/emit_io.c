/* emit_io.c: the data blocks of the Config and the sockets of the program set (docs/backend.md,
 * "The code generator", "Inputs, outputs and data"):
 *   - a StaticBlock per static copy (weights, biases, tables) with its image in data/ID.bin,
 *     id "b<block>.<chip x>.<chip y>.<core x>.<core y>", and per CLIF's state area
 *     (emit_p08.c) "s<block>...";
 *   - a DynamicBlock INPUT_DATA per copy of a storage block an INPUT feeds, OUTPUT_DATA per
 *     copy an OUTPUT reads: the piece's origin (begin_position) in the socket's coordinates
 *     and extents (shape: ny, nx, and nf for the channels), its words (start_addr,
 *     length) in the copy's layout (storage_order X_Y_F, channels padded: ALIGN_16 for 8-bit,
 *     ALIGN_32 for int32, ALIGN_OUTPUT for ternary's 64), and socket_size, the pieces of the
 *     socket;
 *   - a ProgSocket per INPUT and OUTPUT block (sockets.json).
 * The edge between a socket and its storage must join boxes of the same extents (y, x,
 * channels): a dynamic block places a piece of the socket as it is; some of a copy's columns
 * over several rows take a block a row. A copy laid out as P81's
 * planes (emit_p81.c) takes its whole socket in storage order F_X_Y, ALIGN_16.
 */
#include "backend/emit_internal.h"

#include "taskir/diag_block.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SET(m, f, v) ((m)->has_##f = 1, (m)->f = (v))

/* At most this many rows a piece of a socket is cut into (a dynamic block a row). */
enum { MAX_ROW_BLOCKS = 1 << 16 };

/* A StaticBlock "<kind><block id>.<chip x>.<chip y>.<core x>.<core y>" on core c at word
 * addr, its image (n words) moved into the program set's data. */
static Status add_static(Emit *e, Taskir__Asm__DataConfig *dc, ProgSet *out, const ECore *c,
                         char kind, int32_t block, PrecisionId prec, int64_t addr,
                         uint32_t **image, size_t n)
{
    Taskir__Asm__StaticBlock *sb =
        emit_msg(e, sizeof *sb, (void (*)(void *))taskir__asm__static_block__init);
    if (!sb)
        return ST_RUNTIME;
    dc->static_blocks[dc->n_static_blocks++] = sb;
    char id[96];
    snprintf(id, sizeof id, "%c%d.%d.%d.%d.%d", kind, block, c->chip.x, c->chip.y, c->core.x,
             c->core.y);
    sb->id = emit_strdup(e, id);
    SET(sb, precision, pr_info(prec)->wire);
    SET(sb, chip_idx, c->chip.x);
    SET(sb, chip_idy, c->chip.y);
    SET(sb, core_idx, c->core.x);
    SET(sb, core_idy, c->core.y);
    SET(sb, start_addr, (int32_t)addr);
    out->data[out->n_data].w = *image;
    out->data[out->n_data++].n = n;
    *image = NULL;
    return ST_OK;
}

/* The static block added last written again before phase `first` of every step of a
 * pipeline of stages (zeros under what comes then); in one stage once, before the run. */
static Status every_step(Emit *e, Taskir__Asm__DataConfig *dc, int32_t first)
{
    if (e->stages <= 1)
        return ST_OK;
    Taskir__Asm__StaticBlock *sb = dc->static_blocks[dc->n_static_blocks - 1];
    sb->phases = malloc(sizeof *sb->phases);
    if (!sb->phases)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    sb->n_phases = 1;
    sb->phases[0] = first;
    return ST_OK;
}

static Status static_blocks(Emit *e, Taskir__Asm__DataConfig *dc, ProgSet *out)
{
    size_t n = e->n_states + e->n_stagings;
    for (uint32_t i = 0; i < e->n_copies; i++)
        n += e->copies[i].image != NULL;
    out->data = calloc(n ? n : 1, sizeof *out->data);
    dc->static_blocks = calloc(n ? n : 1, sizeof *dc->static_blocks);
    if (!out->data || !dc->static_blocks)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    Status st = ST_OK;
    for (uint32_t i = 0; i < e->n_copies && st == ST_OK; i++) {
        ECopy *cp = &e->copies[i];
        const Block *b = e->g->blocks[cp->block];
        bool zeros = cp->planes && cp->image;
        if (cp->image)
            st = add_static(e, dc, out, &e->cores[cp->core], 'b', b->id,
                            cp->feat.words ? cp->image_prec : blk_prec(b), /* a map widened */
                            emit_copy_addr(e, cp), &cp->image, cp->n_image);
        if (zeros && st == ST_OK) /* P81's stored padding (emit_p81.c): as the rows come */
            st = every_step(e, dc, cp->first);
    }
    for (size_t i = 0; i < e->n_stagings && st == ST_OK; i++) { /* staged maps' zeros */
        const EStage *sg = &e->stagings[i];
        const ECopy *cp = &e->copies[sg->copy];
        size_t nz;
        uint32_t *zeros = emit_stage_zeros(sg, &nz);
        if (!zeros)
            return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
        st = add_static(e, dc, out, &e->cores[cp->core], 'z', e->g->blocks[cp->block]->id,
                        PR_INT_32, e->cores[cp->core].addr[sg->req], &zeros, nz);
        free(zeros); /* NULL once moved */
        if (st == ST_OK) /* before the inputs */
            st = every_step(e, dc, cp->first);
    }
    for (size_t i = 0; i < e->n_states && st == ST_OK; i++) { /* CLIFs' states (emit_p08.c) */
        EState *sv = &e->states[i];
        const ECore *c = &e->cores[sv->core];
        st = add_static(e, dc, out, c, 's', e->g->blocks[sv->block]->id, PR_INT_32,
                        c->addr[sv->req], &sv->image, sv->n);
    }
    if (st != ST_OK)
        return st;
    return e->d->oom ? ST_RUNTIME : ST_OK;
}

Taskir__Shape *emit_yxf(Emit *e, int64_t y, int64_t x, int64_t f)
{
    Taskir__Shape *s = emit_msg(e, sizeof *s, (void (*)(void *))taskir__shape__init);
    if (s) {
        SET(s, ny, (int32_t)y);
        SET(s, nx, (int32_t)x);
        SET(s, nf, (int32_t)f);
    }
    return s;
}

Taskir__Asm__DynamicBlock *emit_dynamic_new(Emit *e, Taskir__Asm__DataConfig *dc,
                                             const Block *io, const ECopy *cp, int piece)
{
    const ECore *c = &e->cores[cp->core];
    Taskir__Asm__DynamicBlock *db =
        emit_msg(e, sizeof *db, (void (*)(void *))taskir__asm__dynamic_block__init);
    bool ok = false;
    if (db)
        EMIT_APPEND(dc->dynamic_blocks, dc->n_dynamic_blocks, db, ok);
    if (!ok) {
        free(db);
        diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
        return NULL;
    }
    bool in = io->type == BT_INPUT;
    char id[96];
    snprintf(id, sizeof id, "%s%d.%d", in ? "in" : "out", io->socket_id, piece);
    db->id = emit_strdup(e, id);
    SET(db, io_type, in ? TASKIR__ASM__IOTYPE__INPUT_DATA : TASKIR__ASM__IOTYPE__OUTPUT_DATA);
    SET(db, socket_id, io->socket_id);
    SET(db, chip_idx, c->chip.x);
    SET(db, chip_idy, c->chip.y);
    SET(db, core_idx, c->core.x);
    SET(db, core_idy, c->core.y);
    SET(db, step_group, c->step_group);
    SET(db, phase_group, c->phase_group);
    SET(db, precision, pr_info(cp->feat.prec)->wire);
    if (e->stages > 1 || !in) {
        /* a pipeline of stages runs one step per stage: the sample comes again before its
         * copy's first phase of every step (so stage k has it in step k, as from a stream of
         * that sample), and the result is read after its copy's last phase (the last step's
         * reading stands: the last stage's is the first whole one). A result is read after
         * its copy's last phase in one stage too: after it the copy's words may hold another
         * area's (tests/asm/emit_lay/output_early.map.txtpb) */
        db->phases = malloc(sizeof *db->phases);
        if (!db->phases) {
            diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
            return NULL;
        }
        db->n_phases = 1;
        db->phases[0] = in ? cp->first : cp->last;
    }
    return db;
}

/* Some of the channels of each pixel of copy cp (a concatenation's part: the others come
 * from other blocks), box in storage coordinates: a block a pixel, its values from the word
 * of their first lane, without alignment (the rest of its last word written 0, before any
 * primitive or router writes the other parts' lanes; a part that starts inside a word
 * would overwrite another's). */
static Status channel_blocks(Emit *e, Taskir__Asm__DataConfig *dc, const Block *io,
                             const ECopy *cp, const EBox *box, const EBox *ebox,
                             const EBox *sbox, int *piece)
{
    const EmitFeat *f = &cp->feat;
    int64_t lane = box->lo[2] - cp->box.lo[2];
    if (lane % f->per_word || box->n[0] * box->n[1] > MAX_ROW_BLOCKS)
        return diag_block(e->d, ST_LOGIC, "emit.layout", io,
                          "channels %lld..%lld of block %d's copy on %s, %lld a pixel in "
                          "memory: a dynamic block a pixel, from a word's first lane, at most "
                          "%d of them", (long long)box->lo[2],
                          (long long)(box->lo[2] + box->n[2] - 1), e->g->blocks[cp->block]->id,
                          e->cores[cp->core].name, (long long)f->c, MAX_ROW_BLOCKS);
    for (int64_t y = box->lo[0]; y < box->lo[0] + box->n[0]; y++)
        for (int64_t x = box->lo[1]; x < box->lo[1] + box->n[1]; x++) {
            Taskir__Asm__DynamicBlock *db = emit_dynamic_new(e, dc, io, cp, (*piece)++);
            if (!db)
                return ST_RUNTIME;
            db->begin_position = emit_yxf(e, y - ebox->lo[0] + sbox->lo[0],
                                          x - ebox->lo[1] + sbox->lo[1],
                                          box->lo[2] - ebox->lo[2] + sbox->lo[2]);
            db->shape = emit_yxf(e, 1, 1, box->n[2]);
            SET(db, start_addr, (int32_t)(emit_feat_addr(f, &cp->box, emit_copy_addr(e, cp),
                                                         y, x) + lane / f->per_word));
            SET(db, length, (int32_t)((box->n[2] + f->per_word - 1) / f->per_word));
            SET(db, storage_order, TASKIR__ASM__STORAGE_ORDER__X_Y_F);
        }
    return e->d->oom ? ST_RUNTIME : ST_OK;
}

/* The alignment that rounds n channels up to pitch c: *code, or none (*none: the channels
 * are the pitch); false when no alignment of a dynamic block gives c. */
static bool align_of(int64_t n, int64_t c, Taskir__Asm__AlignNumber *code, bool *none)
{
    static const struct { int32_t elems; Taskir__Asm__AlignNumber code; } aligns[] = {
        {8, TASKIR__ASM__ALIGN_NUMBER__ALIGN_8},
        {16, TASKIR__ASM__ALIGN_NUMBER__ALIGN_16},
        {32, TASKIR__ASM__ALIGN_NUMBER__ALIGN_32},
    };
    *none = n == c;
    for (size_t i = 0; !*none && i < sizeof aligns / sizeof aligns[0]; i++)
        if ((n + aligns[i].elems - 1) / aligns[i].elems * aligns[i].elems == c) {
            *code = aligns[i].code;
            return true;
        }
    return *none;
}

/* A dynamic block for the part `box` (storage coordinates) of copy cp of the storage an edge
 * joins to socket block io; the edge's box is ebox at the storage and sbox at the socket.
 * Some of the copy's columns over several rows are not one run of memory: a block a row
 * then (*piece counts the blocks). */
static Status dynamic(Emit *e, Taskir__Asm__DataConfig *dc, const Block *io, const ECopy *cp,
                      const EBox *box, const EBox *ebox, const EBox *sbox, int *piece)
{
    if (!cp->planes && box->n[2] != cp->box.n[2]) /* some of each pixel's channels */
        return channel_blocks(e, dc, io, cp, box, ebox, sbox, piece);
    if (!cp->planes && box->n[0] > 1 && box->n[1] != cp->box.n[1]) { /* rows not one run */
        if (box->n[0] > MAX_ROW_BLOCKS)
            return diag_block(e->d, ST_LOGIC, "emit.socket", io,
                              "a piece of %lld of the %lld columns of block %d's copy on core "
                              "%s, over %lld rows: a dynamic block a row, more than %d",
                              (long long)box->n[1], (long long)cp->box.n[1],
                              e->g->blocks[cp->block]->id, e->cores[cp->core].name,
                              (long long)box->n[0], MAX_ROW_BLOCKS);
        Status st = ST_OK;
        for (int64_t y = 0; y < box->n[0] && st == ST_OK; y++) {
            EBox row = *box;
            row.lo[0] += y;
            row.n[0] = 1;
            st = dynamic(e, dc, io, cp, &row, ebox, sbox, piece);
        }
        return st;
    }
    Taskir__Asm__AlignNumber code = 0;
    bool none, expressed = box->n[2] == cp->box.n[2] && align_of(box->n[2], cp->feat.c, &code,
                                                                 &none);
    if (!cp->planes && !expressed && io->type == BT_OUTPUT)
        /* an OUTPUT reads each pixel's channels where they are (an INPUT's map takes a pitch
         * an alignment gives: layout_storage_unit) */
        return channel_blocks(e, dc, io, cp, box, ebox, sbox, piece);
    Taskir__Asm__DynamicBlock *db = emit_dynamic_new(e, dc, io, cp, (*piece)++);
    if (!db)
        return ST_RUNTIME;
    /* in the socket's coordinates */
    db->begin_position = emit_yxf(e, box->lo[0] - ebox->lo[0] + sbox->lo[0],
                                  box->lo[1] - ebox->lo[1] + sbox->lo[1],
                                  box->lo[2] - ebox->lo[2] + sbox->lo[2]);
    db->shape = emit_yxf(e, box->n[0], box->n[1], box->n[2]);
    int64_t addr = emit_feat_addr(&cp->feat, &cp->box, emit_copy_addr(e, cp), box->lo[0],
                                  box->lo[1]);
    int64_t len = box->n[0] * cp->box.n[1] * emit_feat_pixel_words(&cp->feat);
    if (emit_merge_wrap_addr(e, cp, box, &addr)) /* a row around a received slice */
        len = box->n[1] * emit_feat_pixel_words(&cp->feat);
    SET(db, start_addr, (int32_t)addr);
    SET(db, length, (int32_t)len);
    if (cp->planes) { /* P81's planes: [f][y][x'], x' rounded up to 16 (emit_p81.c) */
        bool whole = true;
        for (int i = 0; i < 3; i++)
            whole &= box->lo[i] == cp->box.lo[i] && box->n[i] == cp->box.n[i];
        if (!whole)
            return diag_block(e->d, ST_LOGIC, "emit.layout", io,
                              "feeds part of a copy laid out channel-major for P81; a dynamic "
                              "block places the whole of such a copy only");
        SET(db, start_addr, (int32_t)emit_copy_addr(e, cp));
        SET(db, length, (int32_t)cp->feat.words);
        SET(db, storage_order, TASKIR__ASM__STORAGE_ORDER__F_X_Y);
        SET(db, align_number, TASKIR__ASM__ALIGN_NUMBER__ALIGN_16);
        return e->d->oom ? ST_RUNTIME : ST_OK;
    }
    SET(db, storage_order, TASKIR__ASM__STORAGE_ORDER__X_Y_F);
    /* the pitch: the channels rounded up to the alignment that gives the copy's pitch */
    if (expressed && !none)
        SET(db, align_number, code);
    if (!expressed)
        return diag_block(e->d, ST_LOGIC, "emit.layout", io,
                          "a piece of %lld of its %lld channels, %lld a pixel in memory: no "
                          "alignment of a dynamic block gives that pitch",
                          (long long)box->n[2], (long long)cp->box.n[2], (long long)cp->feat.c);
    return e->d->oom ? ST_RUNTIME : ST_OK;
}

/* The numpy dtype of a model tensor's element type. */
static const char *dtype_of(PrecisionId p)
{
    switch (p) {
    case PR_INT_8: return "int8";
    case PR_UINT_8: return "uint8";
    case PR_INT_16: return "int16";
    case PR_UINT_16: return "uint16";
    case PR_FLOAT_32: return "float32";
    default: return "int32";
    }
}

static Status socket_of(Emit *e, const Block *b, ProgSocket *k)
{
    memset(k, 0, sizeof *k);
    char unnamed[32]; /* a block without a name: input<K> / output<K>, K the socket id */
    snprintf(unnamed, sizeof unnamed, "%s%d", b->type == BT_OUTPUT ? "output" : "input",
             b->socket_id);
    k->name = emit_strdup(e, b->name && *b->name ? b->name : unnamed);
    k->is_output = b->type == BT_OUTPUT;
    k->socket_id = b->socket_id;
    k->precision = pr_info(blk_prec(b))->wire;
    int32_t d[TIR_NDIMS];
    blk_eff_shape(b, d);
    const char *u = bt_info(b->type)->dims;
    for (int i = 0; i < 4; i++)
        k->shape[i] = b->has_shape && b->shape.d[i] > 0 ? b->shape.d[i] : u[i] == '-' ? 0 : 0;

    if (b->has_model) {
        k->model_rank = b->model_ndim > 8 ? 8 : (int)b->model_ndim;
        for (int i = 0; i < k->model_rank; i++)
            k->model_dims[i] = b->model_dims[i];
        k->model_dtype = emit_strdup(e, dtype_of(b->has_model_prec ? b->model_prec : PR_INT_32));
    }
    return e->d->oom ? ST_RUNTIME : ST_OK;
}

/* The dynamic blocks of socket block pos: one per copy of each storage it feeds / reads. */
static Status socket_blocks(Emit *e, Taskir__Asm__DataConfig *dc, uint32_t pos)
{
    const Block *io = e->g->blocks[pos];
    const BlockUses *bu = &e->uses.blocks[pos];
    bool in = io->type == BT_INPUT;
    uint32_t n = in ? bu->n_out_edges : bu->n_in_edges;
    int piece = 0;
    for (uint32_t j = 0; j < n; j++) {
        const Edge *ed = e->g->edges[in ? bu->out_edges[j] : bu->in_edges[j]];
        long s = graph_block_pos(e->g, in ? ed->dst : ed->src);
        if (s < 0 || bt_info(e->g->blocks[s]->type)->kind != BK_STORAGE)
            return diag_block(e->d, ST_LOGIC, "emit.socket", io,
                              "edge %d joins it to a block that is not storage", ed->id);
        EBox box, sbox; /* the edge's box at the storage, and at the socket */
        if (!emit_iface_box(e, (uint32_t)s, in, ed->id, &box) ||
            !emit_iface_box(e, pos, !in, ed->id, &sbox))
            return diag_edge(e->d, ST_RUNTIME, "emit.internal", ed->id, "no box");
        if (in && e->n_copy[s] && e->copies[e->first_copy[s]].planes &&
            emit_p81_rows(e, (uint32_t)s, ed)) { /* P81's planes a row at a time */
            Status st = emit_p81_dynamic(e, dc, pos, ed, (uint32_t)s, &piece);
            if (st != ST_OK)
                return st;
            continue;
        }
        bool same = sbox.n[0] == box.n[0] && sbox.n[1] == box.n[1] && sbox.n[2] == box.n[2];
        same &= !emit_socket_fr(io); /* y x f r: boxes of the socket as y x (f r) */
        if (in && e->n_copy[s] && e->copies[e->first_copy[s]].view) {
            /* the socket held as it is, which the OUTPUTs read through the edges' steps
             * (emit_rearr.c): every copy holds all of it, written for the first edge into
             * it (an INPUT may write boxes of a view by several) */
            bool again = false;
            for (uint32_t i = 0; i < j; i++)
                again |= e->g->edges[bu->out_edges[i]]->dst == ed->dst;
            EBox whole = {{0, 0, 0, 0}, {1, 1, 1, 1}}; /* all of the socket (an edge may
                                                         read a box of it: an upsampling) */
            int32_t cd[TIR_CDIMS];
            if (!blk_cluster_dims(io, false, 0, cd))
                return diag_block(e->d, ST_RUNTIME, "emit.internal", io, "no output cluster");
            for (int i = 0; i < 3; i++) {
                int d = i == 0 ? D_Y : i == 1 ? D_X : cd[D_F] > 0 ? D_F : D_R;
                whole.n[i] = cd[d] > 0 ? cd[d] : 1;
            }
            for (uint32_t c = 0; c < e->n_copy[s] && !again; c++) {
                ECopy v = e->copies[e->first_copy[s] + c];
                v.box = whole;
                Status st = dynamic(e, dc, io, &v, &whole, &whole, &whole, &piece);
                if (st != ST_OK)
                    return st;
            }
            continue;
        }
        if (in && (!emit_keeps_order(e, ed) || !same)) { /* a block a box (staged too) */
            Status st = emit_socket_steps(e, dc, pos, ed, (uint32_t)s, &piece);
            if (st != ST_OK)
                return st;
            continue;
        }
        bool view = e->n_copy[s] == 1 && e->copies[e->first_copy[s]].view;
        if (view && !emit_keeps_order(e, ed))
            return diag_edge(e->d, ST_LOGIC, "emit.rearrange", ed->id,
                             "the socket's values come from block %d, a view of its writer's "
                             "map, in another order; the code generator takes reshapes in C "
                             "order only", e->g->blocks[s]->id);
        if (view) { /* a view read whole, in C order: dynamic blocks of its pixels' boxes */
            Status st = emit_socket_view(e, dc, pos, &e->copies[e->first_copy[s]], &sbox,
                                         &piece);
            if (st != ST_OK)
                return st;
            continue;
        }
        if (!emit_keeps_order(e, ed) || !same) { /* another order: a block a box */
            Status st = emit_socket_steps(e, dc, pos, ed, (uint32_t)s, &piece);
            if (st != ST_OK)
                return st;
            continue;
        }
        for (uint32_t c = 0; c < e->n_copy[s]; c++) {
            const ECopy *cp = &e->copies[e->first_copy[s] + c];
            EBox part;
            bool meet = true;
            for (int i = 0; i < 3; i++) {
                int64_t lo = box.lo[i] > cp->box.lo[i] ? box.lo[i] : cp->box.lo[i];
                int64_t hi = box.lo[i] + box.n[i] < cp->box.lo[i] + cp->box.n[i]
                                 ? box.lo[i] + box.n[i]
                                 : cp->box.lo[i] + cp->box.n[i];
                meet &= hi > lo;
                part.lo[i] = lo;
                part.n[i] = hi - lo;
            }
            if (!meet || (!in && c > 0)) /* an output is read from one copy */
                continue;
            const EStage *sg = in ? emit_stage_of(e, e->first_copy[s] + c) : NULL;
            ECopy staged = sg ? emit_stage_copy(e, sg) : *cp; /* its int32 area */
            Status st = cp->view ? emit_socket_view(e, dc, pos, cp, &sbox, &piece)
                                 : dynamic(e, dc, io, &staged, &part, &box, &sbox, &piece);
            if (st != ST_OK)
                return st;
        }
    }
    return ST_OK;
}

Status emit_io(Emit *e, ProgSet *out)
{
    Taskir__Asm__DataConfig *dc =
        emit_msg(e, sizeof *dc, (void (*)(void *))taskir__asm__data_config__init);
    if (!dc)
        return ST_RUNTIME;
    out->config->data_config = dc;
    Status st = static_blocks(e, dc, out);
    uint32_t n_io = 0;
    for (uint32_t pos = 0; pos < e->g->n_blocks; pos++)
        n_io += bt_info(e->g->blocks[pos]->type)->kind == BK_IO;
    out->sockets = calloc(n_io ? n_io : 1, sizeof *out->sockets);
    if (!out->sockets)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (uint32_t pos = 0; pos < e->g->n_blocks && st == ST_OK; pos++) {
        const Block *b = e->g->blocks[pos];
        if (bt_info(b->type)->kind != BK_IO)
            continue;
        size_t first = dc->n_dynamic_blocks;
        st = socket_of(e, b, &out->sockets[out->n_sockets++]);
        if (st == ST_OK)
            st = socket_blocks(e, dc, pos);
        for (size_t i = first; i < dc->n_dynamic_blocks; i++)
            SET(dc->dynamic_blocks[i], socket_size, (int32_t)(dc->n_dynamic_blocks - first));
    }
    return st;
}
