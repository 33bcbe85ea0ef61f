/* exec_soma.c: the executor's Soma primitives (exec.h): the dispatch on the P-code and what
 * the families share (exec_soma.h): areas, lanes, the shift, parameter checks.
 * docs/backend.md, "The executor: Soma primitives".
 */
#include "backend/exec_soma.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Status soma_bad(const SomaCtx *c, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return diag_add(c->d, ST_LOGIC, c->rule, NULL, "%s: %s", c->name, what);
}

Status soma_range(const SomaCtx *c, const char *param, int64_t v, int64_t lo, int64_t hi)
{
    if (v >= lo && v <= hi)
        return ST_OK;
    return soma_bad(c, "%s is %" PRId64 ", not in %" PRId64 "..%" PRId64, param, v, lo, hi);
}

Status soma_limits(const SomaCtx *c, const SomaLimit *l, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        Status st = soma_range(c, l[i].param, l[i].v, l[i].lo, l[i].hi);
        if (st)
            return st;
    }
    return ST_OK;
}

Status soma_prec(const SomaCtx *c, const char *param, int ir, int *hw)
{
    *hw = asm_hw_prec(ir);
    if (*hw == ASM_HW_INT32 || *hw == ASM_HW_INT8 || *hw == ASM_HW_UINT8)
        return ST_OK;
    return soma_bad(c, "%s is %d; the Soma reads and writes INT_32 (4), INT_8 (0) or UINT_8 (1)",
                    param, ir);
}

Status soma_precs(const SomaCtx *c, const char *pa, int a, const char *pb, int b, int *ha,
                  int *hb)
{
    Status st = soma_prec(c, pa, a, ha);
    return st ? st : soma_prec(c, pb, b, hb);
}

int64_t soma_row_words(int hw, int64_t n)
{
    int64_t per = asm_hw_per_word(hw) * 4;   /* elements in 16 bytes */
    return (n + per - 1) / per * 4;
}

int32_t soma_get(const uint32_t *w, int hw, int64_t i)
{
    if (hw == ASM_HW_INT32)
        return (int32_t)(w[i] >= 0x80000000u ? (int64_t)w[i] - 0x100000000 : (int64_t)w[i]);
    uint32_t b = (w[i / 4] >> (8 * (i % 4))) & 0xFFu;
    if (hw == ASM_HW_INT8 && b >= 128)
        return (int32_t)b - 256;
    return (int32_t)b;
}

void soma_set(uint32_t *w, int hw, int64_t i, int32_t v)
{
    if (hw == ASM_HW_INT32) {
        w[i] = (uint32_t)v;
        return;
    }
    unsigned sh = (unsigned)(8 * (i % 4));
    w[i / 4] = (w[i / 4] & ~(UINT32_C(0xFF) << sh)) | (((uint32_t)v & 0xFFu) << sh);
}

void soma_bounds(int hw, int32_t *lo, int32_t *hi)
{
    switch (hw) {
    case ASM_HW_INT8: *lo = -128; *hi = 127; break;
    case ASM_HW_UINT8: *lo = 0; *hi = 255; break;
    default: *lo = INT32_MIN; *hi = INT32_MAX; break;
    }
}

int64_t soma_shift(int64_t v, int k)
{
    int64_t q = (int64_t)1 << (2 * k);
    int64_t r = v / q;
    return (v % q != 0 && v < 0) ? r - 1 : r;
}

int32_t soma_narrow(int64_t v, int x1, int out, int k)
{
    int32_t lo, hi;
    soma_bounds(out, &lo, &hi);
    return asm_clip(x1 < out ? soma_shift(v, k) : v, lo, hi);
}

/* Whether an area starting at base is the Router's stream (MEM3); a stream must start at
 * the register's first word. */
static Status area_stream(const SomaCtx *c, const char *param, int64_t base, bool *stream)
{
    *stream = core_mem_bank(base) == 3;
    if (*stream && base != ASM_MEM3_BASE)
        return soma_bad(c, "%s_base_addr is 0x%" PRIX64 ": an area in MEM3 is the Router's "
                        "stream and starts at 0x9000", param, (uint64_t)base);
    return ST_OK;
}

/* The checks an area shares: a memory area inside MEM0..MEM2 (the stream register MEM3 is
 * no memory); memory or stream, long enough. */
static Status area_check(const SomaCtx *c, const char *param, int64_t base, int64_t len,
                         int64_t need, bool stream)
{
    if (!stream && (!core_mem_range_ok(base, len) || len > ASM_MEM3_BASE - base))
        return soma_bad(c, "%s area 0x%" PRIX64 " + %" PRId64 " words is not inside the "
                        "core's memory (0x0000..0x8FFF)", param, (uint64_t)base, len);
    if (stream && need > ASM_CORE_WORDS)
        return soma_bad(c, "%s streams %" PRId64 " words through the Router's register, more "
                        "than a core's %d", param, need, (int)ASM_CORE_WORDS);
    if (len < need)
        return soma_bad(c, "%s_addr_length is %" PRId64 " words, but the primitive uses %"
                        PRId64, param, len, need);
    return ST_OK;
}

Status soma_in(const SomaCtx *c, const char *param, int64_t base, int64_t len, int64_t need,
               SomaIn *in)
{
    bool stream;
    Status st = area_stream(c, param, base, &stream);
    if (st || (st = area_check(c, param, base, len, need, stream)))
        return st;
    if (stream) {
        size_t have = c->from_router ? c->from_router->n : 0;
        if ((uint64_t)need > have)
            return soma_bad(c, "%s reads %" PRId64 " words from the Router's stream, which "
                            "holds %zu", param, need, have);
        in->w = c->from_router ? c->from_router->w : NULL;
        in->n = need;
        return ST_OK;
    }
    in->w = c->m->w + base;
    in->n = need;
    return ST_OK;
}

Status soma_out(const SomaCtx *c, const char *param, int64_t base, int64_t len, int64_t need,
                SomaOut *o)
{
    *o = (SomaOut){NULL, need, base, false};
    Status st = area_stream(c, param, base, &o->stream);
    if (st)
        return st;
    if (o->stream && !c->to_router)
        return soma_bad(c, "%s streams to the Router (0x9000), but the phase has no Router "
                        "stream", param);
    if ((st = area_check(c, param, base, len, need, o->stream)))
        return st;
    o->w = calloc(need > 0 ? (size_t)need : 1, sizeof *o->w);
    if (!o->w)
        return diag_add(c->d, ST_RUNTIME, "oom", NULL, "%s: out of memory", c->name);
    return ST_OK;
}

Status soma_commit(const SomaCtx *c, SomaOut *o)
{
    Status st = ST_OK;
    if (o->stream) {
        if (exec_stream_push(c->to_router, o->w, (size_t)o->n))
            st = diag_add(c->d, ST_RUNTIME, "oom", NULL, "%s: out of memory", c->name);
    } else if (o->n > 0) {
        memcpy(c->m->w + o->base, o->w, (size_t)o->n * sizeof *o->w);
    }
    soma_out_free(o);
    return st;
}

void soma_out_free(SomaOut *o)
{
    free(o->w);
    o->w = NULL;
}

/* The Soma primitives: P-code, rule id, name, the field of SomaPrim with its parameters. */
static const struct SomaKind {
    int pic;
    const char *rule, *name, *field;
} soma_kinds[] = {
    {0x05, "prog.prim.p05", "P05", "px5"},
    {0x25, "prog.prim.p25", "P25", "px5"},
    {0x06, "prog.prim.p06", "P06", "p06"},
    {0x26, "prog.prim.p26", "P26", "p26"},
    {0x07, "prog.prim.p07", "P07", "p07"},
    {0x08, "prog.prim.p08", "P08", "p08"},
};

/* pic 0x05 with pic_mode 1 is the min mode, as the existing tools write P25; so is pic 0x25. */
Status exec_soma(CoreMem *m, const Taskir__Asm__SomaPrim *s, ExecStream *to_router,
                 const ExecStream *from_router, Diag *d)
{
    SomaCtx c = {m, to_router, from_router, d, "prog.prim.soma", "Soma"};
    bool min = s->pic == 0x25 || (s->pic == 0x05 && s->px5 && s->px5->pic_mode == 1);
    int pic = min ? 0x25 : s->pic;
    const struct SomaKind *k = NULL;
    for (size_t i = 0; i < sizeof soma_kinds / sizeof soma_kinds[0]; i++)
        if (soma_kinds[i].pic == pic)
            k = &soma_kinds[i];
    if (!k)
        return soma_bad(&c, "pic is 0x%X, not a Soma primitive (0x05, 0x25, 0x06, 0x26, 0x07, "
                        "0x08)", (unsigned)s->pic);
    c.rule = k->rule, c.name = k->name;
    const void *par = pic == 0x05 || pic == 0x25 ? (const void *)s->px5
                    : pic == 0x06 ? (const void *)s->p06 : pic == 0x26 ? (const void *)s->p26
                    : pic == 0x07 ? (const void *)s->p07 : (const void *)s->p08;
    if (!par)
        return soma_bad(&c, "the primitive has no %s parameters", k->field);
    switch (pic) {
    case 0x05:
    case 0x25: {
        Status st = soma_range(&c, "pic_mode", s->px5->pic_mode, 0, 1);
        return st ? st : soma_px5(&c, s->px5, min);
    }
    case 0x06: return soma_p06(&c, s->p06);
    case 0x26: return soma_p26(&c, s->p26);
    case 0x07: return soma_p07(&c, s->p07);
    default: return soma_p08(&c, s->p08);
    }
}
