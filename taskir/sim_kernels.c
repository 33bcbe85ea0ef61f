/* sim_kernels.c: the twelve compute kernels of the simulator (docs/semantics.md, "Compute
 * blocks"), dispatched through a table expanded from blocktypes.def.
 *
 * Arithmetic: sums and products are computed modulo 2^32 in uint32_t, which is exactly the
 * int32 wrap of the exact (64-bit) result and vectorizes well; then each result is clamped to
 * the block's precision range ("wrap, then saturate"). CCMPB/CCMPS clip instead, CLUT looks
 * up, CLIF integrates in int64. The conversion of a uint32_t above INT32_MAX to int32_t is
 * implementation-defined in C; u2i() spells out the two's-complement reading, which GCC
 * compiles to nothing. Right shifts of negative values go through asr32/asr64, which are
 * arithmetic shifts written without implementation-defined behaviour.
 *
 * Layouts (from the block's shape through the type table): inputs [y][x][f], conv inputs
 * [iy][ix][r], conv weights [f][r][ky][kx], CVM weights [f][r], vectors [f].
 */
#include "sim_internal.h"
#include "taskir/bigmem.h"
#include "taskir/diag_block.h"
#include "taskir/sim_dot8.h"
#include "taskir/sim_parallel.h"

#include "taskir/parallel.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The hot loops (the int32 convolution and vector-matrix product, the int8 path's input
 * conversion, the elementwise products, window max / min) are compiled for several
 * instruction sets and the best one for the CPU is picked at load time (GCC function
 * multiversioning, which needs the ifunc support of glibc on x86-64); the baseline x86-64
 * has no 32-bit vector multiply, min or max. Elsewhere: one version. Under ThreadSanitizer
 * (-Db_sanitize=thread) one version too: the ifunc resolvers run while the program is being
 * relocated, before the sanitizer's runtime is set up, and its instrumentation of them
 * crashes every program at start. The int8 path's dot products choose theirs at run time
 * (sim_dot8_vnni), so they are checked there as elsewhere; every version computes the same
 * integers. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__GLIBC__) && \
    !defined(__SANITIZE_THREAD__)
#define SIM_HOT __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SIM_HOT
#endif

typedef struct SimKernel {
    SimKernelFn run;
    Status (*check)(const SimBlock *sb, Diag *d); /* plan-time checks; NULL: none */
    int64_t (*scratch)(const SimBlock *sb);       /* words of run->wscratch; NULL: 0 */
    int64_t (*per_out)(const SimBlock *sb);       /* operations per result; NULL: inputs */
    int64_t (*pack)(const SimBlock *sb);          /* words of sb->pack; NULL: 0 */
    int64_t (*wt)(const SimBlock *sb);            /* words of run->wtscratch; NULL: 0 */
} SimKernel;

static inline int32_t u2i(uint32_t u)
{
    return u <= INT32_MAX ? (int32_t)u : -(int32_t)(~u) - 1;
}

static inline int32_t asr32(int32_t x, int s)
{
    return x >= 0 ? x >> s : ~(~x >> s);
}

static inline int64_t asr64(int64_t x, int s)
{
    return x >= 0 ? x >> s : ~(~x >> s);
}

/* The precision's range within int32. */
static void prec_range(const Block *b, int32_t *lo, int32_t *hi)
{
    const PrecisionInfo *pi = pr_info(blk_prec(b));
    *lo = pi && pi->lo > INT32_MIN ? (int32_t)pi->lo : INT32_MIN;
    *hi = pi && pi->hi < INT32_MAX ? (int32_t)pi->hi : INT32_MAX;
}

/* Turns wrapped uint32 accumulators into int32 results clamped to [lo, hi]: nf of them at
 * out + p * step for each p < np. Without a clamp there is nothing to do: int32_t is two's
 * complement, so the bits stored as uint32_t already read as the wrapped int32. */
static void finish_span(int32_t *out, int64_t np, int64_t step, int64_t nf, int32_t lo,
                        int32_t hi)
{
    if (lo == INT32_MIN && hi == INT32_MAX)
        return;
    for (int64_t p = 0; p < np; p++) {
        int32_t *o = out + p * step;
        for (int64_t f = 0; f < nf; f++) {
            int32_t v = u2i((uint32_t)o[f]);
            o[f] = v < lo ? lo : v > hi ? hi : v;
        }
    }
}

/* finish_span for n results in a row, clamped to the block's precision. */
static void finish(const Block *b, int32_t *out, int64_t n)
{
    int32_t lo, hi;
    prec_range(b, &lo, &hi);
    finish_span(out, 1, n, n, lo, hi);
}

/* Sets nf channels at out + p * step for each p < np to the bias of channels f0 ... f0 +
 * nf - 1: the bias cluster's [f] or CONSTANT_B. */
static void fill_bias_span(const SimBlock *sb, uint32_t *out, int64_t np, int64_t step,
                           int64_t f0, int64_t nf)
{
    if (sb->bias >= 0) {
        const int32_t *bv = sb->in[sb->bias].data + f0;
        for (int64_t p = 0; p < np; p++)
            for (int64_t f = 0; f < nf; f++)
                out[p * step + f] = (uint32_t)bv[f];
    } else {
        uint32_t c = (uint32_t)blk_attr(sb->b, AT_CONSTANT_B);
        for (int64_t p = 0; p < np; p++)
            for (int64_t f = 0; f < nf; f++)
                out[p * step + f] = c;
    }
}

/* Fills out ([p][f], p < np) with the bias. */
static void fill_bias(const SimBlock *sb, uint32_t *out, int64_t np, int64_t nf)
{
    fill_bias_span(sb, out, np, nf, 0, nf);
}

static void shape_of(const SimBlock *sb, int64_t s[TIR_NDIMS])
{
    int32_t e[TIR_NDIMS];
    blk_eff_shape(sb->b, e);
    for (int i = 0; i < TIR_NDIMS; i++)
        s[i] = e[i] > 0 ? e[i] : 1;
}

/* ---- window geometry (CC, CC2D, CADD, CAVG, CVVH, CCMPB, CCMPS) ---- */

typedef struct Win {
    int64_t Y, X, F, R, KY, KX, IY, IX;
    int64_t sy, sx, dy, dx, pu, pl;
} Win;

static void win_of(const SimBlock *sb, Win *w)
{
    int64_t s[TIR_NDIMS];
    shape_of(sb, s);
    const Block *b = sb->b;
    bool dil = bt_info(b->type)->flags & BF_DILATE;
    *w = (Win){s[D_Y], s[D_X], s[D_F], s[D_R], s[D_KY], s[D_KX], s[D_IY], s[D_IX],
               blk_attr(b, AT_STRIDE_Y), blk_attr(b, AT_STRIDE_X),
               dil ? blk_attr(b, AT_DILATION_Y) : 1, dil ? blk_attr(b, AT_DILATION_X) : 1,
               blk_attr(b, AT_PAD_UP), blk_attr(b, AT_PAD_LEFT)};
}

static Status check_window(const SimBlock *sb, Diag *d)
{
    Win w;
    win_of(sb, &w);
    if (w.sy < 1 || w.sx < 1 || w.dy < 1 || w.dx < 1 || w.pu < 0 || w.pl < 0 ||
        blk_attr(sb->b, AT_PAD_DOWN) < 0 || blk_attr(sb->b, AT_PAD_RIGHT) < 0)
        return diag_block(d, ST_LOGIC, "sim.window", sb->b, "stride and dilation must be >= 1 "
                          "and padding >= 0");
    return ST_OK;
}

/* The outputs o in [*lo, *hi) whose tap o*s + off falls inside [0, n). */
static void tap_range(int64_t off, int64_t s, int64_t n, int64_t nout, int64_t *lo,
                      int64_t *hi)
{
    int64_t a = off >= 0 ? 0 : (-off + s - 1) / s;
    int64_t b = n - 1 - off < 0 ? 0 : (n - 1 - off) / s + 1;
    if (b > nout)
        b = nout;
    if (a > b)
        a = b;
    *lo = a;
    *hi = b;
}

/* ---- elementwise: CVVH, CAX, CVS ---- */

/* o[f] = bias + a[f] * b[f] for f < n, modulo 2^32: bias is bv[f] (the bias cluster from
 * channel 0) or, when bv is NULL, c. One pass over the output, compiled for the vector
 * instruction sets (SIM_HOT: a 32-bit vector multiply). */
SIM_HOT static void mul_bias(uint32_t *restrict o, const int32_t *a, const int32_t *b,
                             const int32_t *bv, uint32_t c, int64_t n)
{
    if (bv)
        for (int64_t f = 0; f < n; f++)
            o[f] = (uint32_t)bv[f] + (uint32_t)a[f] * (uint32_t)b[f];
    else
        for (int64_t f = 0; f < n; f++)
            o[f] = c + (uint32_t)a[f] * (uint32_t)b[f];
}

/* The bias arguments of mul_bias for block sb. */
static const int32_t *bias_of(const SimBlock *sb, uint32_t *c)
{
    *c = sb->bias >= 0 ? 0 : (uint32_t)blk_attr(sb->b, AT_CONSTANT_B);
    return sb->bias >= 0 ? sb->in[sb->bias].data : NULL;
}

/* CVVH (P03): a_pad[oy*sy][ox*sx][f] * b_pad[oy*sy][ox*sx][f] + bias; zero padding, no
 * kernel (docs/semantics.md). With stride 1 and no padding, the elementwise product. Outputs
 * whose input lies in the padding get the bias alone. */
/* What a kernel split by output rows (or pixels) over the threads needs. */
typedef struct RowsCtx {
    const SimBlock *sb;
    Win w;
    int32_t lo, hi;     /* the precision's range */
} RowsCtx;

/* Runs fn(ctx, lo, hi) of sb over its output rows, or its pixels (result elements / F), on
 * the run's threads. */
static Status run_rows(const SimRun *run, const SimBlock *sb, SimRangeFn fn, bool pixels)
{
    RowsCtx c = {sb, {0}, 0, 0};
    win_of(sb, &c.w);
    prec_range(sb->b, &c.lo, &c.hi);
    sim_parallel(run, pixels ? sb->result_vol / c.w.F : c.w.Y, sim_kernel_work(sb), fn, &c);
    return ST_OK;
}

/* Output rows [y0, y1) of a CVVH, clamped. */
static void cvvh_rows(void *p, int64_t y0, int64_t y1)
{
    const RowsCtx *m = p;
    const SimBlock *sb = m->sb;
    const Win w = m->w;
    int64_t F = w.F;
    uint32_t *o = (uint32_t *)sb->result, c;
    const int32_t *a = sb->in[0].data, *b = sb->in[1].data, *bv = bias_of(sb, &c);
    int64_t lo, hi;
    tap_range(-w.pl, w.sx, w.IX, w.X, &lo, &hi);
    for (int64_t oy = y0; oy < y1; oy++) {
        uint32_t *row = o + oy * w.X * F;
        int64_t iy = oy * w.sy - w.pu;
        if (iy < 0 || iy >= w.IY) {
            fill_bias_span(sb, row, w.X, F, 0, F);
            continue;
        }
        fill_bias_span(sb, row, lo, F, 0, F);
        fill_bias_span(sb, row + hi * F, w.X - hi, F, 0, F);
        for (int64_t ox = lo; ox < hi; ox++) {
            int64_t at = (iy * w.IX + ox * w.sx - w.pl) * F;
            mul_bias(row + ox * F, a + at, b + at, bv, c, F);
        }
    }
    finish_span(sb->result + y0 * w.X * F, 1, 0, (y1 - y0) * w.X * F, m->lo, m->hi);
}

static Status run_CVVH(SimRun *run, SimBlock *sb, Diag *d)
{
    (void)d;
    return run_rows(run, sb, cvvh_rows, false);
}

/* Pixels [p0, p1) of a CAX (w.F channels each), clamped. */
static void cax_pixels(void *p, int64_t p0, int64_t p1)
{
    const RowsCtx *m = p;
    const SimBlock *sb = m->sb;
    int64_t nf = m->w.F;
    uint32_t *o = (uint32_t *)sb->result, c;
    const int32_t *x = sb->in[0].data, *al = sb->in[1].data, *bv = bias_of(sb, &c);
    for (int64_t q = p0; q < p1; q++)
        mul_bias(o + q * nf, x + q * nf, al, bv, c, nf);
    finish_span(sb->result + p0 * nf, 1, 0, (p1 - p0) * nf, m->lo, m->hi);
}

static Status run_CAX(SimRun *run, SimBlock *sb, Diag *d)
{
    (void)d;
    return run_rows(run, sb, cax_pixels, true);
}

static Status run_CVS(SimRun *run, SimBlock *sb, Diag *d)
{
    (void)run, (void)d;
    int64_t s[TIR_NDIMS];
    shape_of(sb, s);
    int64_t nf = s[D_F], np = sb->result_vol / nf;
    uint32_t *o = (uint32_t *)sb->result;
    const int32_t *x = sb->in[0].data;
    uint32_t a = (uint32_t)blk_attr(sb->b, AT_CONSTANT_A);
    fill_bias(sb, o, np, nf);
    for (int64_t i = 0; i < sb->result_vol; i++)
        o[i] += (uint32_t)x[i] * a;
    finish(sb->b, sb->result, sb->result_vol);
    return ST_OK;
}

/* ---- CC, CC2D: convolution with zero padding, stride and dilation ----
 *
 * The weights are first transposed to wt[ky][kx][r][f] so that the innermost loop runs over
 * contiguous output channels. For each output row, the taps (ky, kx) that fall into padding
 * are skipped by computing, per tap, the range of output columns whose input column is
 * inside the image: the interior has no bounds test at all. Output channels are processed in
 * blocks of CONV_FB accumulators that stay in registers across the r loop. */

#define CONV_FB 16

typedef struct ConvCtx {
    const SimBlock *sb;
    Win w;
    const uint32_t *wt;
} ConvCtx;

/* acc[0..CONV_FB) += sum_r ip[r] * wr[r*F + 0..CONV_FB). With GCC's vector extension the 16
 * accumulators are one vector value, so the compiler keeps them in registers whatever its
 * optimization level (its auto-vectorizer turns the plain loop below into scalar code at
 * -O3); memcpy gives unaligned loads and stores without aliasing questions. */
#if defined(__GNUC__)
typedef uint32_t SimVec __attribute__((vector_size(CONV_FB * sizeof(uint32_t))));

static inline void conv_block(uint32_t *restrict acc, const int32_t *restrict ip,
                              const uint32_t *restrict wr, int64_t R, int64_t F)
{
    SimVec t, w;
    memcpy(&t, acc, sizeof t);
    for (int64_t r = 0; r < R; r++) {
        memcpy(&w, wr + r * F, sizeof w);
        t += (uint32_t)ip[r] * w;
    }
    memcpy(acc, &t, sizeof t);
}
#else
static inline void conv_block(uint32_t *restrict acc, const int32_t *restrict ip,
                              const uint32_t *restrict wr, int64_t R, int64_t F)
{
    uint32_t t[CONV_FB];
    for (int l = 0; l < CONV_FB; l++)
        t[l] = acc[l];
    for (int64_t r = 0; r < R; r++) {
        uint32_t v = (uint32_t)ip[r];
        const uint32_t *wv = wr + r * F;
        for (int l = 0; l < CONV_FB; l++)
            t[l] += v * wv[l];
    }
    for (int l = 0; l < CONV_FB; l++)
        acc[l] = t[l];
}
#endif

/* One tap k = ky * KX + kx of an output row: the output columns [lo, hi) of row, which read
 * input row iy at columns ox * sx + off. */
typedef void (*ConvTapFn)(const void *ctx, uint32_t *row, int64_t iy, int64_t k, int64_t off,
                          int64_t lo, int64_t hi);

/* Calls tap for each output row in [y0, y1) of sb's result and each of its taps that reads
 * inside the image (padding is skipped). */
static void conv_walk(const SimBlock *sb, const Win *w, int64_t y0, int64_t y1, ConvTapFn tap,
                      const void *ctx)
{
    for (int64_t oy = y0; oy < y1; oy++) {
        uint32_t *row = (uint32_t *)sb->result + oy * w->X * w->F;
        for (int64_t ky = 0; ky < w->KY; ky++) {
            int64_t iy = oy * w->sy + ky * w->dy - w->pu;
            if (iy < 0 || iy >= w->IY)
                continue;
            for (int64_t kx = 0; kx < w->KX; kx++) {
                int64_t lo, hi, off = kx * w->dx - w->pl;
                tap_range(off, w->sx, w->IX, w->X, &lo, &hi);
                if (lo < hi)
                    tap(ctx, row, iy, ky * w->KX + kx, off, lo, hi);
            }
        }
    }
}

SIM_HOT static void conv_tap(const void *p, uint32_t *row, int64_t iy, int64_t k, int64_t off,
                             int64_t lo, int64_t hi)
{
    const ConvCtx *c = p;
    const Win *w = &c->w;
    const int32_t *in = c->sb->in[0].data;
    int64_t F = w->F, R = w->R, FB = F - F % CONV_FB;
    const uint32_t *wk = c->wt + k * R * F;
    for (int64_t ox = lo; ox < hi; ox++) {
        const int32_t *ip = in + (iy * w->IX + ox * w->sx + off) * R;
        uint32_t *acc = row + ox * F;
        for (int64_t f0 = 0; f0 < FB; f0 += CONV_FB)
            conv_block(acc + f0, ip, wk + f0, R, F);
        for (int64_t r = 0; r < R && FB < F; r++) {
            uint32_t v = (uint32_t)ip[r];
            const uint32_t *wv = wk + r * F;
            for (int64_t f = FB; f < F; f++)
                acc[f] += v * wv[f];
        }
    }
}

static void conv_rows(void *p, int64_t y0, int64_t y1)
{
    const ConvCtx *c = p;
    conv_walk(c->sb, &c->w, y0, y1, conv_tap, c);
}

/* a * b for sizes (>= 0), INT64_MAX when it overflows; 0 when either is not positive. */
static int64_t mul_sat(int64_t a, int64_t b)
{
    if (a <= 0 || b <= 0)
        return 0;
    return a > INT64_MAX / b ? INT64_MAX : a * b;
}

/* ---- the int8 path of CC, CC2D and CVM (sim_dot8.h) ----
 *
 * When the CPU has the int8 dot-product instruction and every input and weight value is an
 * int8, the block runs on it; the results are the same bits as the int32 path's. The
 * weights are packed in blocks of SIM_DOT8_BLOCK output channels (the cache holds one
 * block's weights while every pixel passes): block b (channels f0 = b * SIM_DOT8_BLOCK up to
 * f0 + nf, nf <= SIM_DOT8_BLOCK, fb = nf rounded up to SIM_DOT8_LANES) holds
 * wq[k][q][fb][4] (tap k = ky * KX + kx, q < nq = ceil(R / 4)) from byte f0 * KK * nq * 4,
 * its correction per tap corr[k][fb] from word f0 * KK of corr, and per tap row the sum of
 * that row's corrections rowcorr[ky][fb] from word f0 * KY of rowcorr. The input becomes
 * bytes plus 128, xq[iy][ix][4 nq] (in the kernel scratch). A CVM is the 1 x 1 convolution of
 * one pixel. Constant weights (from storage blocks without inputs) are packed at the first
 * step only; others at every step. */

#define DOT8_BLOCK (4 * SIM_DOT8_LANES)

typedef struct Conv8 {
    int64_t nq, fp, w_words, corr_words, rowcorr_words, x_words;
} Conv8;

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t round_lanes(int64_t n)
{
    return (n + SIM_DOT8_LANES - 1) / SIM_DOT8_LANES * SIM_DOT8_LANES;
}

static void conv8_of(const Win *w, Conv8 *c)
{
    c->nq = (w->R + 3) / 4;
    c->fp = round_lanes(w->F);
    c->w_words = mul_sat(mul_sat(w->KY * w->KX, c->nq), c->fp);
    c->corr_words = mul_sat(w->KY * w->KX, c->fp);
    c->rowcorr_words = mul_sat(w->KY, c->fp);
    c->x_words = mul_sat(w->IY * w->IX, c->nq);
}

/* A CVM as a convolution: one pixel, one tap. */
static void win_of_cvm(const SimBlock *sb, Win *w)
{
    int64_t s[TIR_NDIMS];
    shape_of(sb, s);
    *w = (Win){1, 1, s[D_F], s[D_R], 1, 1, 1, 1, 1, 1, 1, 1, 0, 0};
}

static void win8_of(const SimBlock *sb, Win *w)
{
    if (sb->b->type == BT_CVM)
        win_of_cvm(sb, w);
    else
        win_of(sb, w);
}

/* a + b + c for sizes, INT64_MAX when it overflows */
static int64_t add3_sat(int64_t a, int64_t b, int64_t c)
{
    if (a >= INT64_MAX / 4 || b >= INT64_MAX / 4 || c >= INT64_MAX / 4)
        return INT64_MAX;
    return a + b + c;
}

/* The words of channel block b's packed weights. */
static int64_t unit_words8(const Win *w, const Conv8 *c, int64_t b)
{
    return w->KY * w->KX * c->nq * round_lanes(min64(DOT8_BLOCK, w->F - b * DOT8_BLOCK));
}

/* The last channel block. */
static int64_t last_unit8(const Win *w)
{
    return w->F > 0 ? (w->F - 1) / DOT8_BLOCK : 0;
}

/* Packed weights (not in place, or the tail of SimPack.narrow), then the corrections. */
static int64_t pack_words8(const SimBlock *sb)
{
    Win w;
    win8_of(sb, &w);
    Conv8 c;
    conv8_of(&w, &c);
    const SimPack *pk = &sb->pack;
    int64_t wq = !pk->in_place ? c.w_words : pk->tail ? unit_words8(&w, &c, last_unit8(&w)) : 0;
    return add3_sat(wq, c.corr_words, c.rowcorr_words);
}

/* The convolution's scratch: the int8 input. */
static int64_t scratch_CC(const SimBlock *sb)
{
    Win w;
    win_of(sb, &w);
    Conv8 c;
    conv8_of(&w, &c);
    return c.x_words;
}

/* The int32 path's transposed weights. */
static int64_t wt_CC(const SimBlock *sb)
{
    return sb->in[1].vol;
}

static int64_t scratch_CVM(const SimBlock *sb)
{
    Win w;
    win_of_cvm(sb, &w);
    Conv8 c;
    conv8_of(&w, &c);
    return c.x_words;
}

/* Packs the weights W[f][r][k] of channel block f0 (channels f0 .. f0 + nf - 1) into the
 * layout above: its weights at wb, its corrections in corr (corr_words, then rowcorr); the
 * result is at most 255 exactly when every weight is an int8 (the packed
 * values are meaningless otherwise). A single tap goes through sim_pack8 (sim_dot8.h).
 * Otherwise four weights (r = 4q ... 4q + 3 of one channel and tap) make one 32-bit store.
 * Sixteen channels at a time, taken innermost: their 16 stores fill one cache line of the
 * packed block, and their 16 rows are read along r (for each q, the 4 KK values of every
 * tap) as 16 streams the cache holds. */
static uint32_t pack_block8(const void *Wv, bool narrow, const Win *w, const Conv8 *c,
                            uint32_t *wb, uint32_t *corr, int64_t f0)
{
    const int32_t *W = Wv;
    const int8_t *W8 = Wv;
    int64_t KK = w->KY * w->KX, nq = c->nq, R = w->R, row = R * KK;
    uint32_t *rowcorr = corr + c->corr_words;
    uint32_t bits = 0;
    int64_t nf = min64(DOT8_BLOCK, w->F - f0), fb = round_lanes(nf);
    uint32_t *cb = corr + f0 * KK, *rb = rowcorr + f0 * w->KY;
    memset(wb, 0, (size_t)(KK * nq * fb) * sizeof *wb);
    memset(cb, 0, (size_t)(KK * fb) * sizeof *cb);
    memset(rb, 0, (size_t)(w->KY * fb) * sizeof *rb);
    if (KK == 1) { /* a 1 x 1 tap or a CVM: each row's values contiguous */
        SimPack8Fn pack8 = sim_pack8_vnni();
        if (narrow)
            sim_pack8_i8(wb, fb, W8 + f0 * row, row, R, nf, cb);
        else
            bits = (pack8 ? pack8 : sim_pack8_c)(wb, fb, W + f0 * row, row, R, nf, cb);
        for (int64_t f = 0; f < nf; f++)
            rb[f] = cb[f] *= 128u;
        return bits;
    }
    for (int64_t fs = 0; fs < nf; fs += SIM_DOT8_LANES) {
        int64_t ns = min64(SIM_DOT8_LANES, nf - fs);
        int64_t Ws = (f0 + fs) * row;
        for (int64_t q = 0; q < nq; q++) {
            int64_t nj = min64(4, R - 4 * q);
            for (int64_t k = 0; k < KK; k++) {
                uint32_t *out = wb + (k * nq + q) * fb + fs, *ck = cb + k * fb + fs;
                for (int64_t f = 0; f < ns; f++) {
                    int64_t wf = Ws + f * row + 4 * q * KK + k;
                    uint8_t g[4] = {0, 0, 0, 0};
                    uint32_t sum = 0;
                    for (int64_t j = 0; j < nj; j++) {
                        uint32_t u = narrow ? (uint32_t)(int32_t)W8[wf + j * KK]
                                            : (uint32_t)W[wf + j * KK];
                        bits |= u + 128u;
                        sum += u;
                        g[j] = (uint8_t)u;
                    }
                    memcpy(&out[f], g, sizeof g);
                    ck[f] += sum * 128u;
                }
            }
        }
    }
    for (int64_t k = 0; k < KK; k++)
        for (int64_t f = 0; f < fb; f++)
            rb[(k / w->KX) * fb + f] += cb[k * fb + f];
    return bits;
}

/* The bytes between the packed weights of channel blocks b and b + 1: packed one after
 * another in sb->pack.data, or in place each at the start of its own rows of the weights
 * (of int32 values, or of int8 ones: SimPack.narrow). */
static int64_t unit_bytes8(const SimBlock *sb, const Win *w, const Conv8 *c)
{
    int64_t KK = w->KY * w->KX;
    const SimPack *pk = &sb->pack;
    return DOT8_BLOCK * (!pk->in_place ? 4 * KK * c->nq : pk->narrow ? w->R * KK : 4 * w->R * KK);
}

/* Where channel block b's packed weights are: see unit_bytes8; the tail of SimPack.narrow
 * after the corrections in sb->pack.data. */
static unsigned char *unit_at8(const SimBlock *sb, const Win *w, const Conv8 *c, int64_t b)
{
    const SimPack *pk = &sb->pack;
    if (!pk->in_place)
        return (unsigned char *)pk->data + b * unit_bytes8(sb, w, c);
    if (pk->tail && b == last_unit8(w))
        return (unsigned char *)(pk->data + c->corr_words + c->rowcorr_words);
    return pk->over + b * unit_bytes8(sb, w, c);
}

/* Packs channel block b of sb's weights (sb->in[1].data): into sb->pack.data, or in place
 * (SimPack.in_place) over the first bytes of the block's own rows (SimPack.over), through a
 * copy, so that the blocks pack in any order and on any thread. The result as pack_block8's;
 * in place the rows stay as they were when it is above 255, and it is UINT32_MAX when the
 * copy cannot be allocated. */
static uint32_t pack_unit8(const SimBlock *sb, const Win *w, const Conv8 *c, int64_t b)
{
    int64_t f0 = b * DOT8_BLOCK, words = unit_words8(w, c, b);
    const SimPack *pk = &sb->pack;
    if (!pk->in_place)
        return pack_block8(sb->in[1].data, false, w, c, (uint32_t *)unit_at8(sb, w, c, b),
                           pk->data + c->w_words, f0);
    uint32_t *tmp = malloc((size_t)words * sizeof *tmp);
    if (!tmp)
        return UINT32_MAX;
    uint32_t bits = pack_block8(pk->over, pk->narrow, w, c, tmp, pk->data, f0);
    if (bits <= 255u)
        memcpy(unit_at8(sb, w, c, b), tmp, (size_t)words * 4);
    free(tmp);
    return bits;
}

typedef struct Pack8Ctx {
    const SimBlock *sb;
    const Win *w;
    const Conv8 *c;
    atomic_uint bits;   /* the OR of the channel blocks' results */
} Pack8Ctx;

/* Channel blocks [lo, hi). */
static void pack_units8(void *p, int64_t lo, int64_t hi)
{
    Pack8Ctx *x = p;
    uint32_t bits = 0;
    for (int64_t b = lo; b < hi; b++)
        bits |= pack_unit8(x->sb, x->w, x->c, b);
    atomic_fetch_or_explicit(&x->bits, bits, memory_order_relaxed);
}

/* Packs every channel block of sb's weights (on the run's threads), not in place; false
 * when a weight is not an int8. */
static bool pack_weights8(const SimRun *run, const SimBlock *sb, const Win *w, const Conv8 *c)
{
    Pack8Ctx x = {sb, w, c, 0};
    int64_t nb = (w->F + DOT8_BLOCK - 1) / DOT8_BLOCK;
    sim_parallel(run, nb, mul_sat(mul_sat(w->F, w->R), w->KY * w->KX), pack_units8, &x);
    return atomic_load_explicit(&x.bits, memory_order_relaxed) <= 255u;
}

/* xq from pixels [p0, p1) of the input in ([p][r]); the OR of every value plus 128, which
 * stays below 256 exactly when each value is an int8 (one test for the whole input). */
SIM_HOT static uint32_t pack_pixels8(const int32_t *in, int64_t p0, int64_t p1, int64_t R,
                                     int64_t nq, uint8_t *xq)
{
    uint32_t bits = 0;
    for (int64_t p = p0; p < p1; p++) {
        const int32_t *ip = in + p * R;
        uint8_t *xp = xq + p * nq * 4;
        for (int64_t r = 0; r < R; r++) {
            uint32_t u = (uint32_t)ip[r] + 128u;
            bits |= u;
            xp[r] = (uint8_t)u;
        }
        for (int64_t r = R; r < nq * 4; r++)
            xp[r] = 128;
    }
    return bits;
}

typedef struct In8Ctx {
    const int32_t *in;
    int64_t R, nq;
    uint8_t *xq;
    atomic_uint bits;
} In8Ctx;

static void pixels8_units(void *p, int64_t lo, int64_t hi)
{
    In8Ctx *x = p;
    atomic_fetch_or_explicit(&x->bits, pack_pixels8(x->in, lo, hi, x->R, x->nq, x->xq),
                             memory_order_relaxed);
}

/* xq from the input in ([p][r], np pixels), on the run's threads; false when a value is not
 * an int8. */
static bool pack_input8(const SimRun *run, const int32_t *in, int64_t np, int64_t R,
                        int64_t nq, uint8_t *xq)
{
    In8Ctx x = {in, R, nq, xq, 0};
    sim_parallel(run, np, mul_sat(np, R), pixels8_units, &x);
    return atomic_load_explicit(&x.bits, memory_order_relaxed) <= 255u;
}

/* Where the int8 input of np pixels goes in run->wscratch: at its start on one thread; with
 * threads, so that the pixel where pack_input8 hands the second half of the threads their
 * parts starts on wscratch_mid (rounded down to a cache line), whatever the layer's size:
 * each thread then writes the same bytes of the scratch at every layer (sim_share.h). */
static uint8_t *input8_at(const SimRun *run, int64_t np, int64_t R, int64_t nq)
{
    uint8_t *base = (uint8_t *)run->wscratch;
    uint32_t nt = sim_parallel_threads(run, mul_sat(np, R));
    if (!run->wscratch_mid || nt < 2)
        return base;
    int64_t split = tir_part_at(np, nt, nt / 2) * nq * 4; /* <= half of the input's bytes */
    return base + run->wscratch_mid - split / 64 * 64;
}

/* The rows of output a work unit takes at most: its output and input bytes stay in the cache
 * (about half of a 1 MiB level 2) while every tap row passes. */
#define DOT8_CHUNK_BYTES ((int64_t)512 * 1024)

typedef struct Conv8Ctx {
    const SimBlock *sb;
    Win w;
    Conv8 c;
    const int8_t *wq, *wlast; /* channel block b's packed weights: wq + b * unit_bytes; the
                               * last one's at wlast */
    const uint32_t *corr, *rowcorr;
    const uint8_t *xq;
    SimDot8Fn dot;
    int64_t unit_bytes; /* unit_bytes8 */
    int64_t chunks, nb; /* chunks of output rows (chunk k: rows Y k / chunks up to the next
                         * chunk's), channel blocks */
    int32_t lo, hi;     /* the precision's range */
} Conv8Ctx;

/* Output rows [y0, y1) of channel block b (channels f0 .. f0 + nf - 1): the bias, the taps,
 * the clamp. For each tap row ky the rows in turn: with dilation 1 along x, the columns
 * whose taps all fall inside the image take the row's KX taps in one call (their weights and
 * their input bytes are contiguous), the others one call per tap inside the image. */
static void conv8_chunk(const Conv8Ctx *c, int64_t b, int64_t y0, int64_t y1)
{
    const Win *w = &c->w;
    int64_t X = w->X, F = w->F, KX = w->KX, nq = c->c.nq, px = nq * 4;
    int64_t f0 = b * DOT8_BLOCK, nf = min64(DOT8_BLOCK, F - f0), fb = round_lanes(nf);
    const int8_t *wb = b == c->nb - 1 ? c->wlast : c->wq + b * c->unit_bytes;
    const uint32_t *cb = c->corr + f0 * w->KY * KX, *rb = c->rowcorr + f0 * w->KY;
    uint32_t *out = (uint32_t *)c->sb->result + y0 * X * F + f0;
    int64_t clo = 0, chi = 0;
    if (w->dx == 1) {
        int64_t a0, b0, a1, b1;
        tap_range(-w->pl, w->sx, w->IX, X, &a0, &b0);
        tap_range(KX - 1 - w->pl, w->sx, w->IX, X, &a1, &b1);
        clo = max64(a0, a1);
        chi = max64(clo, min64(b0, b1));
    }
    fill_bias_span(c->sb, out, (y1 - y0) * X, F, f0, nf);
    for (int64_t ky = 0; ky < w->KY; ky++) {
        int64_t ylo, yhi;
        tap_range(ky * w->dy - w->pu, w->sy, w->IY, w->Y, &ylo, &yhi);
        for (int64_t oy = max64(ylo, y0); oy < min64(yhi, y1); oy++) {
            int64_t iy = oy * w->sy + ky * w->dy - w->pu;
            uint32_t *row = out + (oy - y0) * X * F;
            const uint8_t *xrow = c->xq + iy * w->IX * px;
            if (clo < chi)
                c->dot(row + clo * F, F, xrow + (clo * w->sx - w->pl) * px, w->sx * px,
                       chi - clo, wb + ky * KX * nq * fb * 4, rb + ky * fb, KX * nq, nf);
            for (int64_t kx = 0; kx < KX; kx++) {
                int64_t k = ky * KX + kx, off = kx * w->dx - w->pl, tlo, thi;
                tap_range(off, w->sx, w->IX, X, &tlo, &thi);
                int64_t part[2][2] = {{tlo, thi}, {0, 0}}; /* the columns not folded */
                if (clo < chi) {
                    part[0][1] = min64(thi, clo);
                    part[1][0] = max64(tlo, chi);
                    part[1][1] = thi;
                }
                for (int i = 0; i < 2; i++)
                    if (part[i][0] < part[i][1])
                        c->dot(row + part[i][0] * F, F, xrow + (part[i][0] * w->sx + off) * px,
                               w->sx * px, part[i][1] - part[i][0], wb + k * nq * fb * 4,
                               cb + k * fb, nq, nf);
            }
        }
    }
    finish_span((int32_t *)out, (y1 - y0) * X, F, nf, c->lo, c->hi);
}

/* The first output row of chunk k of chunks (k = chunks: Y). */
static int64_t chunk_row(int64_t Y, int64_t chunks, int64_t k)
{
    return Y * k / chunks; /* Y, k <= 2^31 */
}

/* Work units u: chunk u / nb of output rows, channel block u % nb. */
static void conv8_units(void *p, int64_t lo, int64_t hi)
{
    const Conv8Ctx *c = p;
    for (int64_t u = lo; u < hi; u++) {
        int64_t k = u / c->nb;
        conv8_chunk(c, u % c->nb, chunk_row(c->w.Y, c->chunks, k),
                    chunk_row(c->w.Y, c->chunks, k + 1));
    }
}

int64_t sim_dot8_busiest(int64_t Y, int64_t F, int64_t chunks, uint32_t nt)
{
    int64_t nb = (F + DOT8_BLOCK - 1) / DOT8_BLOCK, units = chunks * nb, most = 0;
    if ((uint64_t)units < nt)
        nt = (uint32_t)units;
    for (uint32_t i = 0; i < nt; i++) {
        int64_t share = 0;
        for (int64_t u = tir_part_at(units, nt, i); u < tir_part_at(units, nt, i + 1); u++) {
            int64_t k = u / nb, f0 = u % nb * DOT8_BLOCK;
            share += (chunk_row(Y, chunks, k + 1) - chunk_row(Y, chunks, k)) *
                     min64(DOT8_BLOCK, F - f0);
        }
        most = max64(most, share);
    }
    return most;
}

int64_t sim_dot8_chunks(int64_t Y, int64_t F, int64_t rows, uint32_t nt)
{
    int64_t fewest = (Y + rows - 1) / rows;
    int64_t even = min64(Y, (fewest + nt - 1) / nt * nt);
    return sim_dot8_busiest(Y, F, even, nt) <= sim_dot8_busiest(Y, F, fewest, nt) ? even
                                                                                   : fewest;
}

/* Puts back the int32 weights of channel block b that pack_unit8 packed in place: rows f0 ..
 * f0 + nf - 1 of Wall from the packed bytes (copied out first, as they overlap the first rows
 * when Wall is the tensor they were packed over). False when the copy cannot be
 * allocated. */
static bool unpack_unit8(const SimBlock *sb, const Win *w, const Conv8 *c, int64_t b,
                         int32_t *Wall)
{
    int64_t KK = w->KY * w->KX, nq = c->nq, R = w->R, row = R * KK;
    int64_t f0 = b * DOT8_BLOCK, nf = min64(DOT8_BLOCK, w->F - f0), fb = round_lanes(nf);
    int32_t *W = Wall + f0 * row;
    size_t bytes = (size_t)(KK * nq * fb) * 4;
    int8_t *pk = malloc(bytes);
    if (!pk)
        return false;
    memcpy(pk, unit_at8(sb, w, c, b), bytes);
    for (int64_t f = 0; f < nf; f++)
        for (int64_t q = 0; q < nq; q++)
            for (int64_t k = 0; k < KK; k++)
                for (int64_t j = 0; j < 4 && 4 * q + j < R; j++)
                    W[f * row + (4 * q + j) * KK + k] = pk[((k * nq + q) * fb + f) * 4 + j];
    free(pk);
    return true;
}

/* Before the int32 path runs a block whose weights are packed in place (an input not int8):
 * the weights put back (int32 values over the tensor they were packed over; packed over
 * int8 ones, into memory of the run's own, which the weights cluster then reads), and the
 * block on the int32 path for the rest of the run (its packed weights' room is too small to
 * pack them elsewhere). False when out of memory. */
static bool leave_in_place8(SimBlock *sb)
{
    Win w;
    Conv8 c;
    win8_of(sb, &w);
    conv8_of(&w, &c);
    size_t vol = sb->in[1].vol > 0 ? (size_t)sb->in[1].vol : 1;
    int32_t *W = !sb->pack.narrow ? (int32_t *)(void *)sb->pack.over
                 : vol <= SIZE_MAX / sizeof *W ? tir_big_calloc(vol * sizeof *W) : NULL;
    if (sb->pack.narrow)
        sb->pack.wide = W;
    bool ok = W != NULL;
    for (int64_t b = 0; ok && b * DOT8_BLOCK < w.F; b++)
        ok &= unpack_unit8(sb, &w, &c, b, W);
    if (ok)
        sb->in[1].data = W;
    sb->pack.in_place = sb->pack.narrow = sb->pack.tail = false;
    sb->pack.data = NULL;
    return ok;
}

/* Runs sb (CC, CC2D, CVM) on the int8 path when it applies (see above), bias and clamp
 * included: 1; 0 when it does not apply (the int32 path runs it), -1 when out of memory. */
static int run_dot8(SimRun *run, SimBlock *sb)
{
    SimPack *pk = &sb->pack;
    SimDot8Fn dot = sim_dot8_vnni();
    if (!pk->data || !dot || (pk->in_place && !pk->packed))
        return 0; /* in place: always packed while planning */
    Conv8Ctx c = {sb, {0}, {0}, NULL, NULL, NULL, NULL, NULL, dot, 0, 0, 0, 0, 0};
    win8_of(sb, &c.w);
    conv8_of(&c.w, &c.c);
    if (!pk->packed) {
        pk->usable = pack_weights8(run, sb, &c.w, &c.c);
        pk->packed = pk->constant;
    }
    uint8_t *xq = input8_at(run, c.w.IY * c.w.IX, c.w.R, c.c.nq);
    if (!pk->usable || !pack_input8(run, sb->in[0].data, c.w.IY * c.w.IX, c.w.R, c.c.nq, xq))
        return pk->in_place && !leave_in_place8(sb) ? -1 : 0;
    c.wq = (const int8_t *)unit_at8(sb, &c.w, &c.c, 0);
    c.wlast = (const int8_t *)unit_at8(sb, &c.w, &c.c, last_unit8(&c.w));
    c.unit_bytes = unit_bytes8(sb, &c.w, &c.c);
    c.corr = pk->data + (pk->in_place ? 0 : c.c.w_words);
    c.rowcorr = c.corr + c.c.corr_words;
    c.xq = xq;
    c.nb = (c.w.F + DOT8_BLOCK - 1) / DOT8_BLOCK;
    int64_t row_bytes = c.w.X * DOT8_BLOCK * 4 + c.w.sy * c.w.IX * c.c.nq * 4;
    int64_t rows = max64(1, min64(c.w.Y, DOT8_CHUNK_BYTES / row_bytes));
    c.chunks = sim_dot8_chunks(c.w.Y, c.w.F, rows,
                               sim_parallel_threads(run, sim_kernel_work(sb)));
    prec_range(sb->b, &c.lo, &c.hi);
    sim_parallel(run, c.chunks * c.nb, sim_kernel_work(sb), conv8_units, &c);
    return 1;
}

/* run_dot8's outcome as a kernel's status: ST_OK when it ran the block (*ran). */
static Status dot8_status(SimRun *run, SimBlock *sb, bool *ran, Diag *d)
{
    int r = run_dot8(run, sb);
    *ran = r > 0;
    return r < 0 ? diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory running the block")
                 : ST_OK;
}

static Status run_CC(SimRun *run, SimBlock *sb, Diag *d)
{
    ConvCtx c = {sb, {0}, run->wtscratch};
    win_of(sb, &c.w);
    const Win *w = &c.w;
    bool ran;
    Status st = dot8_status(run, sb, &ran, d);
    if (st || ran)
        return st;
    /* wt[ky][kx][r][f] = W[f][r][ky][kx] */
    const int32_t *W = sb->in[1].data;
    uint32_t *wt = run->wtscratch;
    for (int64_t f = 0; f < w->F; f++)
        for (int64_t r = 0; r < w->R; r++)
            for (int64_t k = 0; k < w->KY * w->KX; k++)
                wt[(k * w->R + r) * w->F + f] = (uint32_t)W[((f * w->R) + r) * w->KY * w->KX + k];
    fill_bias(sb, (uint32_t *)sb->result, w->Y * w->X, w->F);
    sim_parallel(run, w->Y, sim_kernel_work(sb), conv_rows, &c);
    finish(sb->b, sb->result, sb->result_vol);
    return ST_OK;
}

/* ---- CVM: out[f] = bias[f] + sum_r W[f][r] * x[r] ---- */

typedef struct CvmCtx {
    const SimBlock *sb;
    int64_t R;
} CvmCtx;

SIM_HOT static void cvm_range(void *p, int64_t f0, int64_t f1)
{
    const CvmCtx *c = p;
    const int32_t *x = c->sb->in[0].data, *w = c->sb->in[1].data;
    uint32_t *o = (uint32_t *)c->sb->result;
    int64_t R = c->R;
    for (int64_t f = f0; f < f1; f++) {
        const int32_t *wf = w + f * R;
        uint32_t acc = o[f];
        int64_t r = 0;
#if defined(__GNUC__)
        /* a dot product in CONV_FB lanes, then the lanes summed (order is irrelevant
         * modulo 2^32) */
        SimVec va = {0}, a, b;
        for (; r + CONV_FB <= R; r += CONV_FB) {
            memcpy(&a, wf + r, sizeof a);
            memcpy(&b, x + r, sizeof b);
            va += a * b;
        }
        for (int l = 0; l < CONV_FB; l++)
            acc += va[l];
#endif
        for (; r < R; r++)
            acc += (uint32_t)wf[r] * (uint32_t)x[r];
        o[f] = acc;
    }
}

static Status run_CVM(SimRun *run, SimBlock *sb, Diag *d)
{
    bool ran;
    Status st = dot8_status(run, sb, &ran, d);
    if (st || ran)
        return st;
    int64_t s[TIR_NDIMS];
    shape_of(sb, s);
    fill_bias(sb, (uint32_t *)sb->result, 1, s[D_F]);
    CvmCtx c = {sb, s[D_R]};
    sim_parallel(run, s[D_F], s[D_F] * s[D_R], cvm_range, &c);
    finish(sb->b, sb->result, sb->result_vol);
    return ST_OK;
}

/* ---- CADD, CAVG (P02): window sum over every input + bias ---- */

/* bias[f] + sum over the n_var inputs and the ky x kx window of in_pad[oy*sy+ky][ox*sx+kx][f]
 * (zero padding). CAVG has one input; CADD's window is 1 x 1 unless its shape gives one, and
 * with stride 1 and no padding it is the plain sum of its inputs. */
/* Output rows [y0, y1) of a CADD or CAVG: the bias, the sums, the clamp. */
static void sum_rows(void *p, int64_t y0, int64_t y1)
{
    const RowsCtx *c = p;
    const SimBlock *sb = c->sb;
    const Win w = c->w;
    int64_t F = w.F;
    uint32_t *o = (uint32_t *)sb->result;
    fill_bias_span(sb, o + y0 * w.X * F, (y1 - y0) * w.X, F, 0, F);
    for (uint32_t v = 0; v < sb->n_var; v++) {
        const int32_t *in = sb->in[v].data;
        for (int64_t oy = y0; oy < y1; oy++)
            for (int64_t ky = 0; ky < w.KY; ky++) {
                int64_t iy = oy * w.sy + ky - w.pu;
                if (iy < 0 || iy >= w.IY)
                    continue;
                for (int64_t kx = 0; kx < w.KX; kx++) {
                    int64_t lo, hi, off = kx - w.pl;
                    tap_range(off, w.sx, w.IX, w.X, &lo, &hi);
                    for (int64_t ox = lo; ox < hi; ox++) {
                        const int32_t *ip = in + (iy * w.IX + ox * w.sx + off) * F;
                        uint32_t *acc = o + (oy * w.X + ox) * F;
                        for (int64_t f = 0; f < F; f++)
                            acc[f] += (uint32_t)ip[f];
                    }
                }
            }
    }
    finish_span(sb->result + y0 * w.X * F, 1, 0, (y1 - y0) * w.X * F, c->lo, c->hi);
}

static Status run_window_sum(SimRun *run, SimBlock *sb, Diag *d)
{
    (void)d;
    return run_rows(run, sb, sum_rows, false);
}

/* ---- CCMPB, CCMPS: window max / min, arithmetic shift, clip ---- */

/* The clip bounds: [CMP, hi] for CCMPB, [lo, CMP] for CCMPS; hi / lo from the precision,
 * and at most 127 / at least -128 in the 1-D form (a block with only f). */
static void cmp_bounds(const Block *b, bool big, int32_t *lo, int32_t *hi)
{
    prec_range(b, lo, hi);
    bool one_d = !b->shape.d[D_Y] && !b->shape.d[D_X] && !b->shape.d[D_IY] &&
                 !b->shape.d[D_IX];
    if (one_d) {
        if (*hi > 127)
            *hi = 127;
        if (*lo < -128)
            *lo = -128;
    }
    int32_t cmp = blk_attr(b, AT_CMP);
    if (big)
        *lo = cmp;
    else
        *hi = cmp;
}

typedef struct CmpCtx {
    const SimBlock *sb;
    Win w;
    bool big;
    int sh;
    int32_t lo, hi;     /* the clip bounds */
} CmpCtx;

/* Output rows [y0, y1) of a CCMPB (big) or CCMPS. */
SIM_HOT static void cmp_rows(void *p, int64_t y0, int64_t y1)
{
    const CmpCtx *c = p;
    const Win w = c->w;
    const int32_t *in = c->sb->in[0].data;
    int32_t *o = c->sb->result;
    int64_t F = w.F;
    bool big = c->big;
    int sh = c->sh;
    int32_t lo = c->lo, hi = c->hi;
    int32_t init = big ? INT32_MIN : INT32_MAX;
    for (int64_t oy = y0; oy < y1; oy++) {
        /* Taps of this row inside the image; padding counts as a zero value. */
        int64_t kylo = 0, kyhi = 0;
        tap_range(oy * w.sy - w.pu, 1, w.IY, w.KY, &kylo, &kyhi);
        for (int64_t ox = 0; ox < w.X; ox++) {
            int64_t kxlo = 0, kxhi = 0;
            tap_range(ox * w.sx - w.pl, 1, w.IX, w.KX, &kxlo, &kxhi);
            bool pad = kylo > 0 || kyhi < w.KY || kxlo > 0 || kxhi < w.KX;
            int32_t *acc = o + (oy * w.X + ox) * F;
            for (int64_t f = 0; f < F; f++)
                acc[f] = pad ? 0 : init;
            for (int64_t ky = kylo; ky < kyhi; ky++) {
                int64_t iy = oy * w.sy + ky - w.pu;
                for (int64_t kx = kxlo; kx < kxhi; kx++) {
                    const int32_t *ip = in + (iy * w.IX + ox * w.sx + kx - w.pl) * F;
                    if (big)
                        for (int64_t f = 0; f < F; f++)
                            acc[f] = ip[f] > acc[f] ? ip[f] : acc[f];
                    else
                        for (int64_t f = 0; f < F; f++)
                            acc[f] = ip[f] < acc[f] ? ip[f] : acc[f];
                }
            }
            for (int64_t f = 0; f < F; f++) {
                int32_t v = asr32(acc[f], sh);
                if (big) {
                    v = v < lo ? lo : v;
                    v = v > hi ? hi : v;
                } else {
                    v = v > hi ? hi : v;
                    v = v < lo ? lo : v;
                }
                acc[f] = v;
            }
        }
    }
}

/* A CCMPB (big) or CCMPS, its output rows split over the run's threads. */
static Status run_cmp(const SimRun *run, const SimBlock *sb, bool big)
{
    CmpCtx c = {sb, {0}, big, blk_attr(sb->b, AT_BIT_SHIFT_NUM), 0, 0};
    win_of(sb, &c.w);
    cmp_bounds(sb->b, big, &c.lo, &c.hi);
    sim_parallel(run, c.w.Y, sim_kernel_work(sb), cmp_rows, &c);
    return ST_OK;
}

static Status check_shift(const SimBlock *sb, Diag *d)
{
    int32_t s = blk_attr(sb->b, AT_BIT_SHIFT_NUM);
    if (s < 0 || s > 31)
        return diag_block(d, ST_LOGIC, "sim.shift", sb->b, "BIT_SHIFT_NUM is %d, not in 0..31",
                          (int)s);
    return ST_OK;
}

static Status check_cmp(const SimBlock *sb, Diag *d)
{
    Status st = check_window(sb, d);
    return st ? st : check_shift(sb, d);
}

static Status run_CCMPB(SimRun *run, SimBlock *sb, Diag *d)
{
    (void)d;
    return run_cmp(run, sb, true);
}

static Status run_CCMPS(SimRun *run, SimBlock *sb, Diag *d)
{
    (void)d;
    return run_cmp(run, sb, false);
}

/* ---- CLUT: lut[x >> s] (negative indices count from the end of the table) ---- */

static Status check_CLUT(const SimBlock *sb, Diag *d)
{
    int32_t dw = blk_attr(sb->b, AT_LUT_DW);
    if (dw < 1 || dw > 30 || ((int64_t)1 << dw) != sb->in[1].vol)
        return diag_block(d, ST_LOGIC, "sim.lut", sb->b, "LUT_DW is %d but the table holds %"
                          PRId64 " entries", (int)dw, sb->in[1].vol);
    return check_shift(sb, d);
}

static Status run_CLUT(SimRun *run, SimBlock *sb, Diag *d)
{
    (void)run;
    const int32_t *x = sb->in[0].data, *lut = sb->in[1].data;
    int64_t n = sb->in[1].vol;
    int sh = blk_attr(sb->b, AT_BIT_SHIFT_NUM);
    int32_t lo, hi;
    prec_range(sb->b, &lo, &hi);
    for (int64_t i = 0; i < sb->result_vol; i++) {
        int64_t idx = asr32(x[i], sh);
        if (idx < 0)
            idx += n;
        if (idx < 0 || idx >= n)
            return diag_block(d, ST_LOGIC, "sim.lut", sb->b, "input %d at flat index %" PRId64
                              " gives table index %" PRId64 ", outside -%" PRId64 "..%" PRId64,
                              (int)x[i], i, (int64_t)asr32(x[i], sh), n, n - 1);
        int32_t v = lut[idx];
        sb->result[i] = v < lo ? lo : v > hi ? hi : v;
    }
    return ST_OK;
}

/* ---- CLIF: leaky integrate and fire, state carried between steps ---- */

#define LIF_MIN (-((int64_t)1 << 27))
#define LIF_MAX (((int64_t)1 << 27) - 1)

static Status check_CLIF(const SimBlock *sb, Diag *d)
{
    static const AttrId unsupported[] = {AT_VTH_ADPT_EN, AT_TW_EN, AT_REF_LEN, AT_RESET_MODE};
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
        if (blk_attr(sb->b, unsupported[i]) != at_info(unsupported[i])->dflt)
            return diag_block(d, ST_LOGIC, "sim.clif.unsupported", sb->b, "%s = %d is not "
                              "modelled by the simulator (only %d is)",
                              at_info(unsupported[i])->name,
                              (int)blk_attr(sb->b, unsupported[i]),
                              (int)at_info(unsupported[i])->dflt);
    return check_shift(sb, d);
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* floor(a / 256) for any int64 a. */
static int64_t floor_div256(int64_t a)
{
    return asr64(a, 8);
}

static Status run_CLIF(SimRun *run, SimBlock *sb, Diag *d)
{
    (void)run, (void)d;
    const Block *b = sb->b;
    int sh = blk_attr(b, AT_BIT_SHIFT_NUM);
    int64_t vth = blk_attr(b, AT_VTH0), vr = blk_attr(b, AT_VR);
    int64_t alpha = blk_attr(b, AT_VLEAKY_ALPHA), beta = blk_attr(b, AT_VLEAKY_BETA);
    bool adapt = blk_attr(b, AT_VLEAKY_ADPT_EN) != 0;
    for (int64_t i = 0; i < sb->result_vol; i++) {
        int64_t x = 0;
        for (uint32_t k = 0; k < sb->n_var; k++)
            x += sb->in[k].data[i];
        x = asr64(x, sh);
        int64_t v = clamp64(x + sb->state[i], LIF_MIN, LIF_MAX);
        bool spike = v > vth;
        if (spike)
            v = vr;
        v = adapt ? floor_div256(alpha * v) + beta : v + beta;
        sb->state[i] = (int32_t)clamp64(v, LIF_MIN, LIF_MAX);
        sb->result[i] = spike;
    }
    return ST_OK;
}

/* ---- work per result element ---- */

static int64_t per_conv(const SimBlock *sb)
{
    int64_t s[TIR_NDIMS];
    shape_of(sb, s);
    return mul_sat(mul_sat(s[D_R], s[D_KY]), s[D_KX]);
}

static int64_t per_window(const SimBlock *sb)
{
    int64_t s[TIR_NDIMS];
    shape_of(sb, s);
    return mul_sat(s[D_KY], s[D_KX]);
}

static int64_t per_sum(const SimBlock *sb)
{
    return mul_sat(per_window(sb), sb->n_var);
}

static int64_t per_cvm(const SimBlock *sb)
{
    int64_t s[TIR_NDIMS];
    shape_of(sb, s);
    return s[D_R];
}

/* ---- the table ---- */

static const SimKernel sim_k_CADD = {run_window_sum, check_window, NULL, per_sum, NULL, NULL};
static const SimKernel sim_k_CVVH = {run_CVVH, check_window, NULL, NULL, NULL, NULL};
static const SimKernel sim_k_CVM = {run_CVM, NULL, scratch_CVM, per_cvm, pack_words8,
                                     NULL};
static const SimKernel sim_k_CC = {run_CC, check_window, scratch_CC, per_conv, pack_words8,
                                    wt_CC};
static const SimKernel sim_k_CAX = {run_CAX, NULL, NULL, NULL, NULL, NULL};
static const SimKernel sim_k_CC2D = {run_CC, check_window, scratch_CC, per_conv,
                                      pack_words8, wt_CC};
static const SimKernel sim_k_CVS = {run_CVS, NULL, NULL, NULL, NULL, NULL};
static const SimKernel sim_k_CCMPB = {run_CCMPB, check_cmp, NULL, per_window, NULL, NULL};
static const SimKernel sim_k_CAVG = {run_window_sum, check_window, NULL, per_window, NULL, NULL};
static const SimKernel sim_k_CCMPS = {run_CCMPS, check_cmp, NULL, per_window, NULL, NULL};
static const SimKernel sim_k_CLUT = {run_CLUT, check_CLUT, NULL, NULL, NULL, NULL};
static const SimKernel sim_k_CLIF = {run_CLIF, check_CLIF, NULL, NULL, NULL, NULL};
/* Types without a kernel: storage, the I/O sockets and the placeholder. A new compute type
 * in blocktypes.def fails to compile here until it has a kernel above. */
static const SimKernel sim_k_none = {NULL, NULL, NULL, NULL, NULL, NULL};
#define sim_k_SI sim_k_none
#define sim_k_SW sim_k_none
#define sim_k_SIC2D sim_k_none
#define sim_k_SIFC sim_k_none
#define sim_k_SIC sim_k_none
#define sim_k_SB sim_k_none
#define sim_k_SWFC sim_k_none
#define sim_k_SW2D sim_k_none
#define sim_k_INPUT sim_k_none
#define sim_k_OUTPUT sim_k_none
#define sim_k_TASK_NULL sim_k_none

static const SimKernel *const sim_kernels[BT_COUNT] = {
#define X(name, wire, kind, pcode, dims, nvar, flags, ins, outs) &sim_k_##name,
#include "taskir/blocktypes.def"
#undef X
};

SimKernelFn sim_kernel(BlockType t)
{
    return (unsigned)t < BT_COUNT ? sim_kernels[t]->run : NULL;
}

int64_t sim_kernel_scratch(const SimBlock *sb)
{
    const SimKernel *k = sim_kernels[sb->b->type];
    return k->scratch ? k->scratch(sb) : 0;
}

int64_t sim_kernel_wt_words(const SimBlock *sb)
{
    const SimKernel *k = sim_kernels[sb->b->type];
    return k->wt ? k->wt(sb) : 0;
}

bool sim_packs_narrow(const SimOptions *opt)
{
    return opt->weights_in_place && !opt->keep_all && sim_dot8_vnni();
}

int64_t sim_kernel_pack_words(const SimBlock *sb)
{
    const SimKernel *k = sim_kernels[sb->b->type];
    return k->pack && sim_dot8_vnni() ? k->pack(sb) : 0;
}

/* Is every value of cluster c set only by storage blocks that nothing feeds (whose content
 * is their data tensor, or zero, for the whole run), or by nothing? */
static bool cluster_constant(const SimRun *run, const SimCluster *c)
{
    for (uint32_t i = 0; i < c->n_copies; i++) {
        const SimBlock *s = &run->blocks[graph_block_pos(run->g, c->copies[i].e->src)];
        if (bt_info(s->b->type)->kind != BK_STORAGE)
            return false;
        for (uint32_t j = 0; j < s->n_in; j++)
            if (s->in[j].n_copies)
                return false;
    }
    return true;
}

void sim_kernel_plan(const SimRun *run, SimBlock *sb)
{
    sb->pack.constant = cluster_constant(run, &sb->in[1]);
}

/* The block whose result sb's weights cluster aliases (sb->in[1].alias). */
static const SimBlock *weights_source(const SimRun *run, const SimBlock *sb)
{
    return &run->blocks[graph_block_pos(run->g, sb->in[1].copies[0].e->src)];
}

/* A data tensor's values as addresses, for finding tensors that share them (data views). */
typedef struct Span {
    uintptr_t lo, hi;
    uint32_t pos;
} Span;

static int span_cmp(const void *a, const void *b)
{
    const Span *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo ? 1 : x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Can sb's packed weights go over its weight tensor? readers[pos]: the copies reading block
 * pos's result, or UINT32_MAX when its data shares values with another tensor. *tail: the
 * tensor is held narrow and its last channel block's rows are too few bytes for its packed
 * weights (they go into SimPack.data). */
static bool weights_in_place_ok(const SimRun *run, const SimBlock *sb, const uint32_t *readers,
                                bool *tail)
{
    *tail = false;
    if (bt_info(sb->b->type)->kind != BK_COMPUTE || sim_kernel_pack_words(sb) <= 0 ||
        sb->n_in < 2 || !sb->in[1].alias)
        return false;
    const SimBlock *s = weights_source(run, sb);
    const Tensor *t = s->b->data;
    if (!(s->data_result || s->data_narrow) || readers[s->pos] != 1 ||
        (t->has_prec ? t->prec : blk_prec(s->b)) != PR_INT_8)
        return false;
    /* every channel block's packed weights (4 bytes a group of four values, the last block's
     * channels rounded up to SIM_DOT8_LANES) within its own rows: in int32 values always but
     * for the last block, in int8 ones when the reduction is whole groups of four */
    Win w;
    Conv8 c;
    win8_of(sb, &w);
    conv8_of(&w, &c);
    int64_t es = s->data_narrow ? 1 : 4, nf = w.F - last_unit8(&w) * DOT8_BLOCK;
    if (w.F <= 0 || (w.F > DOT8_BLOCK && 4 * c.nq * DOT8_BLOCK > es * DOT8_BLOCK * w.R))
        return false;
    bool fits = 4 * c.nq * round_lanes(nf) <= es * nf * w.R;
    *tail = !fits && s->data_narrow;
    return fits || s->data_narrow;
}

void sim_kernel_plan_in_place(SimRun *run)
{
    const Graph *g = run->g;
    if (!run->opt.weights_in_place || run->opt.keep_all || !sim_dot8_vnni())
        return;
    uint32_t *readers = calloc((size_t)g->n_blocks + 1, sizeof *readers);
    Span *sp = calloc((size_t)g->n_blocks + 1, sizeof *sp);
    uint32_t n = 0;
    if (!readers || !sp)
        goto out; /* nothing in place: the same results */
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        const SimBlock *sb = &run->blocks[i];
        for (uint32_t j = 0; j < sb->n_in; j++)
            for (uint32_t k = 0; k < sb->in[j].n_copies; k++) {
                uint32_t *r = &readers[graph_block_pos(g, sb->in[j].copies[k].e->src)];
                *r += *r < UINT32_MAX - 1;
            }
        const Tensor *t = sb->b->data;
        size_t es;
        const void *v = t ? tensor_i32_vals(t, &es) : NULL;
        if (v)
            sp[n++] = (Span){(uintptr_t)v, (uintptr_t)v + t->n_i32 * es, i};
    }
    qsort(sp, n, sizeof *sp, span_cmp);
    for (uint32_t i = 0, top = 0; i < n; i++) { /* top: the span reaching furthest so far */
        if (i && sp[i].lo < sp[top].hi)
            readers[sp[i].pos] = readers[sp[top].pos] = UINT32_MAX;
        if (!i || sp[i].hi > sp[top].hi)
            top = i;
    }
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        SimBlock *sb = &run->blocks[i];
        SimPack *pk = &sb->pack;
        if (!(pk->in_place = weights_in_place_ok(run, sb, readers, &pk->tail)))
            continue;
        SimBlock *s = &run->blocks[weights_source(run, sb)->pos];
        size_t es;
        pk->over = (unsigned char *)(uintptr_t)tensor_i32_vals(s->b->data, &es);
        pk->narrow = s->packed_over = s->data_narrow;
    }
out:
    free(readers);
    free(sp);
}

/* The constant operands of a run's blocks, packed at once: unit u of the list is channel
 * block u - first[k] of block k; the pool's threads take the next unit in turn
 * (tir_pool_items). */
typedef struct Prepack {
    SimBlock **blocks;
    int64_t *first;     /* n + 1 entries */
    atomic_uint *bits;  /* per block: the OR of its units' pack_unit8 results */
    uint32_t n;
} Prepack;

/* Units [lo, hi) of the list at p (a Prepack). */
static void prepack_units(void *p, int64_t lo, int64_t hi)
{
    Prepack *P = p;
    uint32_t k = 0, top = P->n; /* the block of unit lo: first[k] <= lo < first[k + 1] */
    while (k + 1 < top) {
        uint32_t mid = k + (top - k) / 2;
        if (P->first[mid] <= lo)
            k = mid;
        else
            top = mid;
    }
    for (int64_t u = lo; u < hi; u++) {
        while (u >= P->first[k + 1])
            k++;
        const SimBlock *sb = P->blocks[k];
        Win w;
        Conv8 c;
        win8_of(sb, &w);
        conv8_of(&w, &c);
        uint32_t bits = pack_unit8(sb, &w, &c, u - P->first[k]);
        atomic_fetch_or_explicit(&P->bits[k], bits, memory_order_relaxed);
    }
}

Status sim_kernel_prepack(SimRun *run, Diag *d)
{
    uint32_t n = 0;
    Status st = ST_OK;
    for (uint32_t i = 0; i < run->g->n_blocks; i++) {
        const SimBlock *sb = &run->blocks[i];
        n += sb->pack.data && sb->pack.constant && sb->in[1].alias;
    }
    if (!n)
        return ST_OK;
    Prepack P = {calloc(n, sizeof *P.blocks), calloc((size_t)n + 1, sizeof *P.first),
                 calloc(n, sizeof *P.bits), 0};
    if (!P.blocks || !P.first || !P.bits) {
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory planning the run");
        goto out;
    }
    int64_t work = 0;
    for (uint32_t i = 0; i < run->g->n_blocks; i++) {
        SimBlock *sb = &run->blocks[i];
        if (!(sb->pack.data && sb->pack.constant && sb->in[1].alias))
            continue;
        Win w;
        win8_of(sb, &w);
        P.blocks[P.n] = sb;
        P.first[P.n + 1] = P.first[P.n] + (w.F + DOT8_BLOCK - 1) / DOT8_BLOCK;
        work = add3_sat(work, mul_sat(mul_sat(w.F, w.R), w.KY * w.KX), 0);
        atomic_init(&P.bits[P.n], 0);
        P.n++;
    }
    if (work < ((int64_t)1 << 20))
        prepack_units(&P, 0, P.first[P.n]);
    else
        tir_pool_items(run->pool, P.first[P.n], prepack_units, &P); /* NULL: this thread */
    for (uint32_t k = 0; k < P.n; k++) {
        SimPack *pk = &P.blocks[k]->pack;
        uint32_t bits = atomic_load_explicit(&P.bits[k], memory_order_relaxed);
        pk->usable = bits <= 255u;
        pk->packed = true;
        if (pk->in_place && bits == UINT32_MAX && !st)
            st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory planning the run");
        else if (pk->in_place && bits > 255u && !st)
            st = diag_block(d, ST_LOGIC, "data.range", weights_source(run, P.blocks[k])->b,
                            "a weight is not an int8, and the int8 path packs the weights "
                            "over them (the graph is not verified)");
    }
out:
    free(P.blocks);
    free(P.first);
    free(P.bits);
    return st;
}

Status sim_kernel_check(const SimBlock *sb, Diag *d)
{
    const SimKernel *k = sim_kernels[sb->b->type];
    return k->check ? k->check(sb, d) : ST_OK;
}

int64_t sim_kernel_work(const SimBlock *sb)
{
    const SimKernel *k = sim_kernels[sb->b->type];
    int64_t per = k->per_out ? k->per_out(sb) : (int64_t)sb->n_var;
    return mul_sat(sb->result_vol, per > 0 ? per : 1);
}
