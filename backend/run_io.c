/* run_io.c: the dynamic blocks (run_internal.h; docs/backend.md "Dynamic blocks"): a piece
 * of a socket, begin_position + shape inside the socket's natural (y, x, f) shape, laid out
 * in a core's memory from start_addr in its precision (int32 one a word, int8 / uint8 four a
 * word, little-endian), storage order and alignment:
 *   X_Y_F (or none)  [y][x][f'], f' = f rounded up to the alignment
 *   F_X_Y            [f][y][x'], x' = x rounded up to the alignment
 *   NO_ORDER         [y][x][f], no padding
 * ALIGN_8 / 16 / 32 round to 8 / 16 / 32 elements, ALIGN_OUTPUT to 32; none: no rounding.
 * Padding elements are written as 0 and never read. */
#include "backend/run_internal.h"

#include "backend/progset_check.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct Layout {
    int64_t b[3], n[3];     /* begin and extent in y, x, f */
    int64_t s[3];           /* the socket's y, x, f */
    int hw;                 /* hardware precision code */
    int order;              /* X_Y_F, F_X_Y or NO_ORDER */
    int64_t pad;            /* f' (X_Y_F, NO_ORDER) or x' (F_X_Y) */
    int64_t elems, words;
    RunCore *core;
} Layout;

__attribute__((format(printf, 4, 5)))
static Status bad(Diag *d, const char *rule, const Taskir__Asm__DynamicBlock *b,
                  const char *fmt, ...)
{
    char where[200];
    snprintf(where, sizeof where, "dynamic block '%.64s' (%s socket %d)", b->id ? b->id : "",
             b->io_type == TASKIR__ASM__IOTYPE__OUTPUT_DATA ? "output" : "input", b->socket_id);
    va_list ap;
    va_start(ap, fmt);
    Status st = diag_vadd(d, ST_LOGIC, rule, strdup(where), false, 0, false, 0, fmt, ap);
    va_end(ap);
    return st;
}

static int64_t dim(int64_t v)
{
    return v > 0 ? v : 1;
}

static int64_t round_up(int64_t v, int64_t a)
{
    return (v + a - 1) / a * a;
}

static Status layout_of(const Taskir__Asm__DynamicBlock *b, const ProgSocket *s, Layout *L,
                        Diag *d);

static Status layout(const Run *r, const Taskir__Asm__DynamicBlock *b, const ProgSocket *s,
                     Layout *L, Diag *d)
{
    Status st = layout_of(b, s, L, d);
    if (!st)   /* progset_check: the core has a program */
        L->core = run_core_at(r, (int64_t)b->chip_idx * PROG_CHIP_W + b->core_idx,
                              (int64_t)b->chip_idy * PROG_CHIP_H + b->core_idy);
    return st;
}

int64_t run_io_words(const Taskir__Asm__DynamicBlock *b, const ProgSocket *s)
{
    Layout L = {0};
    Diag d;
    diag_init(&d, NULL);
    Status st = layout_of(b, s, &L, &d);
    diag_finish(&d);
    return st ? -1 : L.words;
}

/* The layout of b, checked. */
static Status layout_of(const Taskir__Asm__DynamicBlock *b, const ProgSocket *s, Layout *L,
                        Diag *d)
{
    static const char *const dn[3] = {"y", "x", "f"};
    const Taskir__Shape *sh = b->shape, *bp = b->begin_position;
    int64_t n[3] = {sh ? sh->ny : 0, sh ? sh->nx : 0, sh ? sh->nf : 0};
    int64_t at[3] = {bp ? bp->ny : 0, bp ? bp->nx : 0, bp ? bp->nf : 0};
    if (sh && sh->nr > 1)
        return bad(d, "prog.dyn.shape", b, "pieces with an r dim are not supported");
    for (int i = 0; i < 3; i++) {
        L->s[i] = dim(s->shape[i]) * (i == 2 ? dim(s->shape[3]) : 1); /* y x (f r) */
        L->n[i] = dim(n[i]);
        L->b[i] = at[i];
        if (at[i] < 0 || L->b[i] + L->n[i] > L->s[i])
            return bad(d, "prog.dyn.shape", b, "its %s range %lld..%lld leaves the socket's "
                       "0..%lld", dn[i], (long long)at[i], (long long)(at[i] + L->n[i] - 1),
                       (long long)(L->s[i] - 1));
    }
    int prec = b->has_precision ? (int)b->precision : s->precision;
    L->hw = asm_hw_prec(prec);
    if (L->hw != ASM_HW_INT32 && L->hw != ASM_HW_INT8 && L->hw != ASM_HW_UINT8)
        return bad(d, "prog.dyn.precision", b, "precision %d: a dynamic block holds INT_32, "
                   "INT_8 or UINT_8", prec);
    L->order = b->has_storage_order ? b->storage_order : TASKIR__ASM__STORAGE_ORDER__X_Y_F;
    if (L->order != TASKIR__ASM__STORAGE_ORDER__X_Y_F &&
        L->order != TASKIR__ASM__STORAGE_ORDER__F_X_Y &&
        L->order != TASKIR__ASM__STORAGE_ORDER__NO_ORDER)
        return bad(d, "prog.dyn.order", b, "storage order %d: a dynamic block is X_Y_F, F_X_Y "
                   "or NO_ORDER", L->order);
    int64_t align = 1;
    if (b->has_align_number && L->order != TASKIR__ASM__STORAGE_ORDER__NO_ORDER)
        align = b->align_number == TASKIR__ASM__ALIGN_NUMBER__ALIGN_8 ? 8
                : b->align_number == TASKIR__ASM__ALIGN_NUMBER__ALIGN_16 ? 16 : 32;
    bool fxy = L->order == TASKIR__ASM__STORAGE_ORDER__F_X_Y;
    L->pad = round_up(fxy ? L->n[1] : L->n[2], align);
    L->elems = L->n[0] * (fxy ? L->n[2] : L->n[1]) * L->pad;  /* <= 2^28 * 32 */
    int per = asm_hw_per_word(L->hw);
    L->words = (L->elems + per - 1) / per;
    if (!core_mem_range_ok(b->start_addr, L->words))
        return bad(d, "prog.dyn.addr", b, "%lld words from word 0x%x leave the core's memory",
                   (long long)L->words, (unsigned)b->start_addr);
    if (b->io_type == TASKIR__ASM__IOTYPE__OUTPUT_DATA && b->has_length && b->length > 0 &&
        b->length < L->words)
        return bad(d, "prog.dyn.length", b, "its layout takes %lld words, its length says %d",
                   (long long)L->words, b->length);
    return ST_OK;
}

/* Element (y, x, f) of the piece: its index in the socket and in the layout. */
static void index_of(const Layout *L, int64_t y, int64_t x, int64_t f, int64_t *sock,
                     int64_t *mem)
{
    *sock = ((L->b[0] + y) * L->s[1] + L->b[1] + x) * L->s[2] + L->b[2] + f;
    if (L->order == TASKIR__ASM__STORAGE_ORDER__F_X_Y)
        *mem = (f * L->n[0] + y) * L->pad + x;
    else
        *mem = (y * L->n[1] + x) * L->pad + f;
}

Status run_io_write(const Run *r, const Taskir__Asm__DynamicBlock *b, const ProgSocket *s,
                    const int32_t *values, Diag *d)
{
    Layout L;
    Status st = layout(r, b, s, &L, d);
    if (st)
        return st;
    CoreMem *m = L.core->mem;
    memset(&m->w[b->start_addr], 0, (size_t)L.words * sizeof(uint32_t));
    int32_t lo = L.hw == ASM_HW_INT8 ? -128 : L.hw == ASM_HW_UINT8 ? 0 : INT32_MIN;
    int32_t hi = L.hw == ASM_HW_INT8 ? 127 : L.hw == ASM_HW_UINT8 ? 255 : INT32_MAX;
    for (int64_t y = 0; y < L.n[0]; y++)
        for (int64_t x = 0; x < L.n[1]; x++)
            for (int64_t f = 0; f < L.n[2]; f++) {
                int64_t si, mi;
                index_of(&L, y, x, f, &si, &mi);
                int32_t v = values[si];
                if (v < lo || v > hi)
                    return bad(d, "prog.dyn.range", b, "value %d at socket index %lld does not "
                               "fit the block's precision [%d, %d]", (int)v, (long long)si,
                               (int)lo, (int)hi);
                if (L.hw == ASM_HW_INT32)
                    m->w[b->start_addr + mi] = (uint32_t)v;
                else
                    core_mem_set_u8(m, b->start_addr, mi, (uint8_t)v);
            }
    return ST_OK;
}

Status run_io_read(const Run *r, const Taskir__Asm__DynamicBlock *b, const ProgSocket *s,
                   int32_t *values, uint8_t *covered, Diag *d)
{
    Layout L;
    Status st = layout(r, b, s, &L, d);
    if (st)
        return st;
    const CoreMem *m = L.core->mem;
    for (int64_t y = 0; y < L.n[0]; y++)
        for (int64_t x = 0; x < L.n[1]; x++)
            for (int64_t f = 0; f < L.n[2]; f++) {
                int64_t si, mi;
                index_of(&L, y, x, f, &si, &mi);
                values[si] = L.hw == ASM_HW_INT32 ? (int32_t)m->w[b->start_addr + mi]
                             : L.hw == ASM_HW_INT8 ? core_mem_get_i8(m, b->start_addr, mi)
                                                   : core_mem_get_u8(m, b->start_addr, mi);
                covered[si] = 1;
            }
    return ST_OK;
}
