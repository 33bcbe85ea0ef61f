/* exec_axon.c: the executor's Axon primitives (exec.h): the dispatch on pic, and the helpers
 * every primitive family shares (exec_axon_internal.h): checked parameters, shape dims and
 * memory areas, decoding an operand area, the bias, writing the int32 output area.
 * The layouts and the arithmetic are those of docs/backend.md, "The executor: Axon
 * primitives".
 */
#include "backend/exec_axon_internal.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

Status axon_fail(const AxonCtx *c, const char *fmt, ...)
{
    char named[192];   /* "P41: " before the format; names hold no '%' */
    snprintf(named, sizeof named, "%s: %s", c->name, fmt);
    va_list ap;
    va_start(ap, fmt);
    Status st = diag_vadd(c->d, ST_LOGIC, c->rule, NULL, false, 0, false, 0, named, ap);
    va_end(ap);
    return st;
}

const Taskir__Shape *axon_shape(const AxonCtx *c)
{
    static const Taskir__Shape none = TASKIR__SHAPE__INIT;
    return c->a->shape ? c->a->shape : &none;
}

Status axon_dim(const AxonCtx *c, const char *field, int32_t v, bool required, int64_t *out)
{
    if (v < 0 || v > AXON_DIM_MAX)
        return axon_fail(c, "shape %s is %d, not in 0..%d", field, (int)v, AXON_DIM_MAX);
    if (v == 0 && required)
        return axon_fail(c, "shape %s is absent (0); the primitive needs 1..%d", field,
                         AXON_DIM_MAX);
    *out = v ? v : 1;
    return ST_OK;
}

Status axon_step(const AxonCtx *c, const char *field, int32_t v, int64_t *out)
{
    if (v < 0 || v > AXON_WIN_MAX)
        return axon_fail(c, "%s is %d, not in 1..%d (0 or absent: 1)", field, (int)v,
                         AXON_WIN_MAX);
    *out = v ? v : 1;
    return ST_OK;
}

Status axon_pads(const AxonCtx *c, const int32_t pads[4], int64_t out[4])
{
    static const char *const names[4] = {"pad_top", "pad_down", "pad_left", "pad_right"};
    for (int i = 0; i < 4; i++) {
        if (pads[i] < 0 || pads[i] > AXON_WIN_MAX)
            return axon_fail(c, "%s is %d, not in 0..%d", names[i], (int)pads[i], AXON_WIN_MAX);
        out[i] = pads[i];
    }
    return ST_OK;
}

Status axon_prec(const AxonCtx *c, const char *field, int ir, unsigned allowed, int *hw)
{
    static const char *const hw_names[4] = {"INT_32", "INT_8", "UINT_8", "TERNARY"};
    int p = asm_hw_prec(ir);
    if (p < 0 || !(allowed & (1u << p))) {
        char list[48] = "";
        size_t n = 0;
        for (int k = 0; k < 4; k++)
            if (allowed & (1u << k))
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "",
                                      hw_names[k]);
        if (p < 0)
            return axon_fail(c, "%s is %d, a precision the chip has no code for; it takes %s",
                             field, ir, list);
        return axon_fail(c, "%s is %s; it takes %s", field, hw_names[p], list);
    }
    *hw = p;
    return ST_OK;
}

Status axon_window(const AxonCtx *c, char axis, int64_t in, int64_t k, int64_t stride,
                   int64_t dil, int64_t pad_lo, int64_t pad_hi, int32_t given, int64_t *out)
{
    int64_t span = (k - 1) * dil + 1, padded = in + pad_lo + pad_hi;
    if (span > padded)
        return axon_fail(c, "the window along %c (kernel %lld, dilation %lld: %lld wide) is "
                         "wider than the padded input (%lld + %lld + %lld)", axis,
                         (long long)k, (long long)dil, (long long)span, (long long)in,
                         (long long)pad_lo, (long long)pad_hi);
    *out = (padded - span) / stride + 1;
    if (given && given != *out)
        return axon_fail(c, "shape n%c is %d, but the input %lld, kernel %lld, stride %lld, "
                         "dilation %lld and pads %lld/%lld give %lld", axis, (int)given,
                         (long long)in, (long long)k, (long long)stride, (long long)dil,
                         (long long)pad_lo, (long long)pad_hi, (long long)*out);
    return ST_OK;
}

Status axon_elem_extent(const AxonCtx *c, char axis, int32_t n_in, int32_t n_out,
                        int64_t stride, int64_t *in, int64_t *out)
{
    char fin[4] = {'n', 'i', axis, 0}, fout[3] = {'n', axis, 0};
    int64_t i, o;
    Status st = axon_dim(c, fin, n_in, false, &i);
    if (st == ST_OK)
        st = axon_dim(c, fout, n_out, false, &o);
    if (st != ST_OK)
        return st;
    if (n_in == 0)
        i = o;   /* the input extent taken from the output's */
    *in = i;
    *out = (i - 1) / stride + 1;
    if (n_out && *out != o)
        return axon_fail(c, "shape %s is %d, but %s %lld and stride %lld give %lld", fout,
                         (int)n_out, fin, (long long)i, (long long)stride, (long long)*out);
    return ST_OK;
}

int64_t axon_round_up(int64_t x, int64_t q)
{
    return (x + q - 1) / q * q;
}

int64_t axon_mul(int64_t a, int64_t b)
{
    const int64_t cap = INT64_MAX / 4;
    if (a == 0 || b == 0)
        return 0;
    if (a > cap / b)
        return cap;
    return a * b;
}

Status axon_area(const AxonCtx *c, const char *what, bool has_base, int32_t base,
                 bool has_len, int32_t len, int64_t words, AxonArea *out)
{
    if (!has_base)
        return axon_fail(c, "%s_base_addr is absent; the %s area takes %lld words", what,
                         what, (long long)words);
    if (has_len && len < words)
        return axon_fail(c, "%s_addr_length is %d words, but the primitive uses %lld", what,
                         (int)len, (long long)words);
    if (!core_mem_range_ok(base, words))
        return axon_fail(c, "%s area 0x%X + %lld words is not inside the core's memory "
                         "(0x0000..0x%04X)", what, (unsigned)base, (long long)words,
                         ASM_CORE_WORDS - 1);
    out->base = base;
    out->words = words;
    return ST_OK;
}

void axon_load(const CoreMem *m, int64_t base, int p, int64_t n, int32_t *v)
{
    const uint32_t *w = m->w + base;
    switch (p) {
    case ASM_HW_INT32:
        for (int64_t i = 0; i < n; i++)
            v[i] = (int32_t)w[i];
        break;
    case ASM_HW_INT8:
        for (int64_t i = 0; i < n; i++)
            v[i] = core_mem_get_i8(m, base, i);
        break;
    case ASM_HW_UINT8:
        for (int64_t i = 0; i < n; i++)
            v[i] = core_mem_get_u8(m, base, i);
        break;
    default: /* ASM_HW_TERNARY */
        for (int64_t i = 0; i < n; i++) {
            int32_t t = (int32_t)((w[i / 16] >> (2 * (i % 16))) & 3u);
            v[i] = t >= 2 ? t - 4 : t;
        }
        break;
    }
}

Status axon_alloc(AxonCtx *c, int64_t n, int32_t **v)
{
    *v = NULL;
    if (c->n_bufs == (int)(sizeof c->bufs / sizeof c->bufs[0]) ||
        !(*v = malloc((size_t)(n > 0 ? n : 1) * sizeof **v)))
        return diag_add(c->d, ST_RUNTIME, "oom", NULL, "%s: out of memory for %lld values",
                        c->name, (long long)n);
    c->bufs[c->n_bufs++] = *v;
    return ST_OK;
}

Status axon_read(AxonCtx *c, const AxonArea *area, int p, int64_t n, int32_t **v)
{
    Status st = axon_alloc(c, n, v);
    if (st == ST_OK)
        axon_load(c->m, area->base, p, n, *v);
    return st;
}

Status axon_bias(AxonCtx *c, int bias_type, int32_t constant_b, int64_t nf, int32_t **out)
{
    const Taskir__Asm__AxonPrim *a = c->a;
    bool vec = bias_type == TASKIR__BIAS_TYPE__VECTOR;
    AxonArea area;
    *out = NULL;
    if (!vec && bias_type != TASKIR__BIAS_TYPE__CONSTANT)
        return axon_fail(c, "bias_type is %d, neither VECTOR (1) nor CONSTANT (2)", bias_type);
    Status st = vec ? axon_area(c, "bias", a->has_bias_base_addr, a->bias_base_addr,
                                a->has_bias_addr_length, a->bias_addr_length, nf, &area)
                    : ST_OK;
    if (st != ST_OK)
        return st;
    if (vec)
        return axon_read(c, &area, ASM_HW_INT32, nf, out);
    if ((st = axon_alloc(c, nf, out)) == ST_OK)
        for (int64_t f = 0; f < nf; f++)
            (*out)[f] = constant_b;
    return st;
}

/* The largest |v[i]| (0 for n 0). */
static int64_t max_abs(const int32_t *v, int64_t n)
{
    int64_t mx = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t a = v[i] < 0 ? -(int64_t)v[i] : v[i];
        mx = a > mx ? a : mx;
    }
    return mx;
}

bool axon_may_saturate(const int32_t *b, int64_t n0, const int32_t *x, int64_t nx,
                       const int32_t *w, int64_t nw, int64_t terms)
{
    int64_t prod = axon_mul(max_abs(x, nx), w ? max_abs(w, nw) : 1);
    return max_abs(b, n0) + axon_mul(prod, terms) > INT32_MAX;
}

Status axon_count(const AxonCtx *c, const char *field, int32_t v, int64_t f, int64_t fp)
{
    if (v != 0 && (v < f || v > fp))
        return axon_fail(c, "%s is %d, not in %lld..%lld (the channels, padded or not) or 0",
                         field, (int)v, (long long)f, (long long)fp);
    return ST_OK;
}

void axon_store(CoreMem *m, const AxonArea *out, const int32_t *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        m->w[out->base + i] = (uint32_t)v[i];
}

Status axon_output(const AxonCtx *c, int64_t words, AxonArea *out)
{
    const Taskir__Asm__AxonPrim *a = c->a;
    return axon_area(c, "o", a->has_o_base_addr, a->o_base_addr, a->has_o_addr_length,
                     a->o_addr_length, words, out);
}

/* One row per Axon primitive: its code, the name its findings carry, where its parameters
 * sit in AxonPrim, and its family's function. */
static const struct {
    int pic;
    const char *name;
    size_t params;
    Status (*run)(AxonCtx *c);
} axon_prims[] = {
    {0x02, "P02", offsetof(Taskir__Asm__AxonPrim, p02), exec_axon_p02},
    {0x03, "P03", offsetof(Taskir__Asm__AxonPrim, p03), exec_axon_p03},
    {0x04, "P04", offsetof(Taskir__Asm__AxonPrim, p04), exec_axon_p04},
    {0x41, "P41", offsetof(Taskir__Asm__AxonPrim, p41), exec_axon_p41},
    {0x43, "P43", offsetof(Taskir__Asm__AxonPrim, p43), exec_axon_p43},
    {0x81, "P81", offsetof(Taskir__Asm__AxonPrim, p81), exec_axon_p81},
    {0x83, "P83", offsetof(Taskir__Asm__AxonPrim, p83), exec_axon_p83},
};

Status exec_axon(CoreMem *m, const Taskir__Asm__AxonPrim *a, Diag *d)
{
    for (size_t k = 0; k < sizeof axon_prims / sizeof axon_prims[0]; k++) {
        if (!a->has_pic || a->pic != axon_prims[k].pic)
            continue;
        AxonCtx c = {.m = m, .a = a, .d = d};
        snprintf(c.name, sizeof c.name, "%s", axon_prims[k].name);
        snprintf(c.rule, sizeof c.rule, "prog.prim.p%02x", (unsigned)axon_prims[k].pic);
        const void *params = *(const void *const *)((const char *)a + axon_prims[k].params);
        if (!params)
            return axon_fail(&c, "the primitive has no p%02x parameters", (unsigned)a->pic);
        Status st = axon_prims[k].run(&c);
        for (int i = 0; i < c.n_bufs; i++)
            free(c.bufs[i]);
        return st;
    }
    if (!a->has_pic)
        return diag_add(d, ST_LOGIC, "prog.prim.axon", NULL, "Axon: the primitive has no pic");
    return diag_add(d, ST_LOGIC, "prog.prim.axon", NULL,
                    "Axon: pic is 0x%02x, not an Axon primitive (0x02, 0x03, 0x04, 0x41, 0x43, "
                    "0x81, 0x83)", (unsigned)a->pic);
}
