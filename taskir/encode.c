/* encode.c: turns an element map into edges (encode.h; docs/lowering.md, "Feeding a storage
 * block"). It needs only the Graph: the lowering and the rewriting passes both call it.
 *
 * Input: a box of a storage block's input cluster and, for each of its elements in C order,
 * the producer and the flat offset in the producer's output cluster that feeds it. Output:
 * interfaces and edges, each edge reading a box of one producer and rearranging it so that
 * its C order is the element order of a box of the destination.
 *
 * 1. Partition: the destination box is split into sub-boxes fed by a single producer (a
 *    concatenation, a grouped convolution's channel groups): first along an axis the
 *    producer depends on alone, else slice by slice.
 * 2. Each sub-box becomes one edge. The encoder looks for the structured chain
 *        source sub-box -> REFLECT -> PERMUTE -> SCALE (down) -> SCALE (up)
 *    that gives exactly the map: the destination order is C order over some shape b whose
 *    axes each follow one source axis (innermost first, each axis found as the shortest
 *    period after which only it has changed), and along each axis the source coordinate is
 *    lo + g*floor(o/n) or its mirror image: a slice (g = 1, n = 1), a strided slice (g),
 *    nearest-neighbour upsampling, repeat and broadcasting (n), a reversed slice (mirror).
 *    Transposes, flattens and layout changes come out as PERMUTE, slices as interface boxes.
 *    Upsampling alone (SCALE up, nothing else) is written as edges between equal boxes, one
 *    per index of the upsampled axes, up to FANOUT_MAX_EDGES.
 * 3. When no such chain exists: a SHUFFLE gather over the bounding box when it has the
 *    destination's volume; else, when the bounding box is a line, SCALE up (if needed) +
 *    SHUFFLE + an AFFINE cut to the destination volume; else the bounding box is first
 *    staged through an identity CADD into a line (SI -> CADD), the one case that adds
 *    compute blocks.
 */
#include "taskir/encode.h"
#include "taskir/canon.h"

#include <stdarg.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- messages and blocks ---- */

static Status enc_fail(const EncCtx *L, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static Status enc_fail(const EncCtx *L, const char *rule, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return diag_add(L->d, ST_LOGIC, rule, L->where, "%s", what);
}

static Status enc_oom(const EncCtx *L)
{
    return diag_add(L->d, ST_RUNTIME, "oom", L->where, "out of memory");
}

Block *enc_block(Graph *g, BlockType t, const char *base, const char *suffix,
                 const int32_t shape[TIR_NDIMS], int prec)
{
    char name[512];
    if (!base || !*base)
        base = "graph";
    if (suffix && *suffix)
        snprintf(name, sizeof name, "%s/%s", base, suffix);
    else
        snprintf(name, sizeof name, "%s", base);
    Block *b = graph_add_block(g, t, GRAPH_AUTO_ID, name);
    if (!b)
        return NULL;
    if (shape) {
        for (int i = 0; i < TIR_NDIMS; i++)
            b->shape.d[i] = shape[i];
        b->has_shape = true;
    }
    if (prec >= 0) {
        b->prec = (PrecisionId)prec;
        b->has_prec = true;
    }
    /* Producers always have their output cluster, consumed or not. */
    BlockKind k = bt_info(t)->kind;
    if ((k == BK_COMPUTE || t == BT_INPUT) && !blk_add_output(g, b))
        return NULL;
    return b;
}

/* ---- edges, interfaces, steps ---- */

/* The edge from box spos/ssize of the producer's output cluster to box dpos/dsize of input
 * cluster in_idx of dst (graph_connect_box). */
static Edge *add_edge(const EncCtx *L, const EncSrc *s, const int32_t *spos, const int32_t *ssize,
                      Block *dst, uint32_t in_idx, const int32_t *dpos, const int32_t *dsize)
{
    return graph_connect_box(L->g, s->b, 0, spos, ssize, dst, in_idx, dpos, dsize);
}

/* Adds a step with up to three parameter tensors (NULL ends the list). */
static bool add_step(const EncCtx *L, Edge *e, RearrangeType t, const int32_t *m0, uint32_t n0,
                     const int32_t *m1, uint32_t n1, const int32_t *m2, uint32_t n2)
{
    const int32_t *m[3] = {m0, m1, m2};
    uint32_t n[3] = {n0, n1, n2};
    uint32_t nm = m2 ? 3 : m1 ? 2 : m0 ? 1 : 0;
    Rearrange *r = edge_add_rearrange(L->g, e, t, nm);
    if (!r)
        return false;
    for (uint32_t i = 0; i < nm; i++) {
        int32_t dims[1] = {(int32_t)n[i]};
        if (!tensor_set_i32(L->g, &r->mats[i], dims, 1, m[i], n[i]))
            return false;
    }
    return true;
}

/* Do two boxes (cluster dims, 0 = unused) have equal extents, 0 reading as 1? */
static bool same_box(const int32_t *a, const int32_t *b)
{
    for (int i = 0; i < TIR_CDIMS; i++)
        if ((a[i] ? a[i] : 1) != (b[i] ? b[i] : 1))
            return false;
    return true;
}

/* The step an edge from output cluster 0 of sb (box src) to input cluster di of db (box dst)
 * needs when the two boxes hold the same elements in the same C order. The boxes are
 * compared as they are written (canon_box: a block without y and x, say an INPUT or an SI
 * over f alone, has no such axes there): none when they are equal dim by dim; when they
 * differ only in unit axes present at one end (f=32 -> y=1 x=1 f=32), IDENTITY if the
 * source has fewer axes, else RESHAPE;
 * otherwise a RESHAPE (in C order). The existing tools compare the two boxes exactly unless
 * the edge has a step, and their RESHAPE only flattens, so the unit-axis case is spelled out
 * this way (docs/formats.md, "Writing conventions"). */
static bool box_step(const EncCtx *L, Edge *e, const Block *sb, const int32_t *src, const Block *db,
                     uint32_t di, const int32_t *dst)
{
    int32_t s[TIR_CDIMS], d[TIR_CDIMS];
    memcpy(s, src, sizeof s);
    memcpy(d, dst, sizeof d);
    canon_box(sb, false, 0, s);
    canon_box(db, true, di, d);
    int ns = 0, nd = 0;
    bool equal = true;
    for (int i = 0; i < TIR_CDIMS; i++) {
        ns += s[i] > 0;
        nd += d[i] > 0;
        equal = equal && s[i] == d[i];
    }
    if (equal)
        return true;
    RearrangeType t = same_box(s, d) && ns < nd ? RT_IDENTITY : RT_RESHAPE;
    return add_step(L, e, t, NULL, 0, NULL, 0, NULL, 0);
}

/* ---- one producer, one destination box ---- */

typedef struct Enc {
    const EncSrc *s;
    const int32_t *off;      /* per element */
    int64_t K;               /* elements */
    int m;                   /* used axes of the producer's cluster */
    int ax[TIR_CDIMS];       /* cluster dim of each used axis */
    int64_t sa[TIR_CDIMS];   /* their extents */
    int64_t st[TIR_CDIMS];   /* their C-order strides */
} Enc;

static void enc_init(Enc *E, const EncSrc *s, const int32_t *off, int64_t K)
{
    memset(E, 0, sizeof *E);
    E->s = s;
    E->off = off;
    E->K = K;
    for (int i = 0; i < TIR_CDIMS; i++)
        if (s->cd[i] > 0) {
            E->ax[E->m] = i;
            E->sa[E->m++] = s->cd[i];
        }
    int64_t k = 1;
    for (int a = E->m - 1; a >= 0; a--) {
        E->st[a] = k;
        k *= E->sa[a];
    }
}

static inline int64_t uc(const Enc *E, int64_t j, int a)
{
    return ((int64_t)E->off[j] / E->st[a]) % E->sa[a];
}

/* u(k*S, a) == u((k % Lb)*S, a) for all k < Kp: axis a follows only the position in the
 * block. */
static bool ax_periodic(const Enc *E, int64_t S, int64_t Kp, int64_t Lb, int a)
{
    for (int64_t k = Lb; k < Kp; k++)
        if (uc(E, k * S, a) != uc(E, (k % Lb) * S, a))
            return false;
    return true;
}

/* u(k*S, a) == u((k - k % Lb)*S, a): axis a is constant within each block. */
static bool ax_blockconst(const Enc *E, int64_t S, int64_t Kp, int64_t Lb, int a)
{
    for (int64_t k = 0; k < Kp; k++)
        if (k % Lb && uc(E, k * S, a) != uc(E, (k - k % Lb) * S, a))
            return false;
    return true;
}

typedef struct Chain {
    int32_t lo[TIR_CDIMS], ext[TIR_CDIMS];   /* per source axis: the sub-box */
    bool refl[TIR_CDIMS];                    /* per source axis */
    int p[TIR_CDIMS];                        /* B axis i <- source axis p[i] */
    int32_t down[TIR_CDIMS], up[TIR_CDIMS];  /* per B axis */
    int64_t b[TIR_CDIMS];                    /* per B axis: its extent */
    int32_t *gather[TIR_CDIMS];              /* per B axis: source coordinate (relative to
                                              * lo) of each B index, when the axis is not an
                                              * arithmetic progression; malloc'd */
} Chain;

static void chain_free(Chain *c)
{
    for (int i = 0; i < TIR_CDIMS; i++) {
        free(c->gather[i]);
        c->gather[i] = NULL;
    }
}

/* Along B axis bi (extent Lb, stride S) the source axis a takes lo + g*floor(o/n) or its mirror
 * image (a slice, a strided slice, an upsampling, a reversal), else any values (a gather
 * along the axis); fills the chain's entries for it. */
static bool axis_fn(const Enc *E, int64_t S, int64_t Lb, int a, int bi, Chain *c)
{
    c->p[bi] = a;
    c->b[bi] = Lb;
    c->down[bi] = c->up[bi] = 1;
    int64_t v0 = uc(E, 0, a), n = 1;
    while (n < Lb && uc(E, n * S, a) == v0)
        n++;
    bool ap = Lb % n == 0;
    int64_t runs = ap ? Lb / n : 0, d = 0, prev = v0;
    for (int64_t r = 0; ap && r < runs; r++) {
        int64_t vr = uc(E, r * n * S, a);
        for (int64_t t = 1; ap && t < n; t++)
            ap = uc(E, (r * n + t) * S, a) == vr;
        if (r == 1)
            d = vr - v0;
        if (r >= 1 && vr - prev != d)
            ap = false;
        prev = vr;
    }
    if (ap) {
        int64_t g = runs >= 2 ? (d < 0 ? -d : d) : 1;
        c->refl[a] = runs >= 2 && d < 0;
        c->lo[a] = (int32_t)(c->refl[a] ? v0 - (runs - 1) * g : v0);
        c->ext[a] = (int32_t)((runs - 1) * g + 1);
        c->down[bi] = (int32_t)g;
        c->up[bi] = (int32_t)n;
        return true;
    }
    int64_t mn = INT64_MAX, mx = -1;
    for (int64_t o = 0; o < Lb; o++) {
        int64_t v = uc(E, o * S, a);
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
    }
    if (!(c->gather[bi] = malloc((size_t)Lb * sizeof *c->gather[bi])))
        return false;
    for (int64_t o = 0; o < Lb; o++)
        c->gather[bi][o] = (int32_t)(uc(E, o * S, a) - mn);
    c->refl[a] = false;
    c->lo[a] = (int32_t)mn;
    c->ext[a] = (int32_t)(mx - mn + 1);
    return true;
}

/* The divisors of n in increasing order (at most cap of them); returns the count. */
static int divisors(int64_t n, int64_t *out, int cap)
{
    int lo = 0, hi = 0;
    int64_t big[2048];
    for (int64_t i = 1; i * i <= n && lo < cap && hi < 2048; i++)
        if (n % i == 0) {
            out[lo++] = i;
            if (i != n / i)
                big[hi++] = n / i;
        }
    for (int i = hi - 1; i >= 0 && lo < cap; i--)
        out[lo++] = big[i];
    return lo;
}

static bool detect(const Enc *E, Chain *c)
{
    memset(c, 0, sizeof *c);
    if (E->m == 0)
        return false;
    bool assigned[TIR_CDIMS] = {false};
    int lev_ax[TIR_CDIMS];
    int64_t lev_L[TIR_CDIMS], S = 1;
    static const int cap = 4096;
    int64_t *divs = malloc(cap * sizeof *divs);
    if (!divs)
        return false;
    bool ok = true;
    for (int lev = 0; lev < E->m && ok; lev++) {
        int64_t Kp = E->K / S;
        int sel = -1;
        int64_t Lsel = 0;
        if (lev == E->m - 1) {
            for (int a = 0; a < E->m; a++)
                if (!assigned[a])
                    sel = a;
            Lsel = Kp;
        } else {
            /* A run of equal positions: a broadcast, carried by an axis that never changes
             * (extent 1 in the source), over the whole run. */
            int64_t run = Kp;
            for (int64_t k = 1; k < Kp && run == Kp; k++)
                for (int a = 0; a < E->m; a++)
                    if (!assigned[a] && uc(E, k * S, a) != uc(E, 0, a)) {
                        run = k;
                        break;
                    }
            for (int a = E->m - 1; a >= 0 && run >= 2 && Kp % run == 0 && sel < 0; a--) {
                if (assigned[a] || !ax_periodic(E, S, Kp, run, a))
                    continue;
                bool good = true;
                for (int b = 0; b < E->m && good; b++)
                    if (!assigned[b] && b != a)
                        good = ax_blockconst(E, S, Kp, run, b);
                if (good) {
                    sel = a;
                    Lsel = run;
                }
            }
            int nd = sel < 0 ? divisors(Kp, divs, cap) : 0;
            for (int di = 0; di < nd && sel < 0; di++) {
                int64_t Lb = divs[di];
                if (Lb < 2)
                    continue;
                int nvar = 0, va = -1;
                for (int a = 0; a < E->m; a++) {
                    if (assigned[a])
                        continue;
                    for (int64_t k = 1; k < Lb; k++)
                        if (uc(E, k * S, a) != uc(E, 0, a)) {
                            nvar++;
                            va = a;
                            break;
                        }
                }
                if (nvar >= 2)
                    break;
                for (int a = 0; a < E->m && sel < 0; a++) {
                    if (assigned[a] || (nvar == 1 && a != va))
                        continue;
                    bool good = ax_periodic(E, S, Kp, Lb, a);
                    for (int b = 0; b < E->m && good; b++)
                        if (!assigned[b] && b != a)
                            good = ax_blockconst(E, S, Kp, Lb, b);
                    if (good) {
                        sel = a;
                        Lsel = Lb;
                    }
                }
            }
            /* An axis that never changes takes extent 1. */
            for (int a = E->m - 1; a >= 0 && sel < 0; a--)
                if (!assigned[a] && ax_periodic(E, S, Kp, 1, a)) {
                    sel = a;
                    Lsel = 1;
                }
        }
        if (sel < 0) {
            ok = false;
            break;
        }
        lev_ax[lev] = sel;
        lev_L[lev] = Lsel;
        assigned[sel] = true;
        S *= Lsel;
    }
    free(divs);
    if (!ok || S != E->K)
        return false;
    S = 1;
    for (int lev = 0; lev < E->m; lev++) {
        if (!axis_fn(E, S, lev_L[lev], lev_ax[lev], E->m - 1 - lev, c)) {
            chain_free(c);
            return false;
        }
        S *= lev_L[lev];
    }
    return true;
}

static Status oom_if(const EncCtx *L, bool ok)
{
    return ok ? ST_OK : enc_oom(L);
}

/* Most edges one upsampling is written as instead of a SCALE step (below). */
#define FANOUT_MAX_EDGES 4096

/* A chain that is nearest-neighbour upsampling alone (no reflection, permutation, stride or
 * gather), whose destination box has the source's axes: the number of edges it fans out to
 * (one per index of the upsampled axes), or 0 when it is not such a chain or needs more than
 * FANOUT_MAX_EDGES. The existing tools' checker refuses a step that changes an edge's
 * volume (their SCALE is not implemented), so such an upsampling is written as edges, each
 * carrying one source box to an equal destination box (docs/formats.md, "Writing
 * conventions"). */
static int64_t fanout_edges(const Enc *E, const Chain *c, const Block *dst, uint32_t in_idx,
                            const int32_t *dsize)
{
    int32_t dcd[TIR_CDIMS];
    if (!blk_cluster_dims(dst, true, in_idx, dcd))
        return 0;
    int64_t n = 1;
    bool up = false;
    for (int a = 0; a < E->m; a++) {
        if (c->p[a] != a || c->refl[a] || c->down[a] != 1 || c->gather[a] ||
            dcd[E->ax[a]] <= 0 || dsize[E->ax[a]] != c->b[a] ||
            c->b[a] != (int64_t)c->ext[a] * c->up[a])
            return 0;
        if (c->up[a] > 1) {
            up = true;
            n *= c->b[a];
            if (n > FANOUT_MAX_EDGES)
                return 0;
        }
    }
    int used = 0;
    for (int i = 0; i < TIR_CDIMS; i++)
        used += dcd[i] > 0;
    return up && used == E->m ? n : 0;
}

/* Writes such an upsampling as its n edges: for each index o of the upsampled axes (C
 * order), source index lo + o / up, size 1 along them, whole along the others. */
static Status emit_fanout(const EncCtx *L, const Enc *E, const Chain *c, int64_t n, Block *dst,
                          uint32_t in_idx, const int32_t *dpos, const int32_t *dsize)
{
    for (int64_t k = 0; k < n; k++) {
        int32_t spos[TIR_CDIMS] = {0}, ssize[TIR_CDIMS] = {0}, dp[TIR_CDIMS], ds[TIR_CDIMS];
        memcpy(dp, dpos, sizeof dp);
        memcpy(ds, dsize, sizeof ds);
        int64_t r = k;
        for (int a = E->m - 1; a >= 0; a--) {
            int ax = E->ax[a];
            spos[ax] = c->lo[a];
            ssize[ax] = c->ext[a];
            if (c->up[a] > 1) {
                int32_t o = (int32_t)(r % c->b[a]);
                r /= c->b[a];
                spos[ax] += o / c->up[a];
                ssize[ax] = 1;
                dp[ax] += o;
                ds[ax] = 1;
            }
        }
        Edge *e = add_edge(L, E->s, spos, ssize, dst, in_idx, dp, ds);
        if (!e || !box_step(L, e, E->s->b, ssize, dst, in_idx, ds))
            return enc_oom(L);
    }
    return ST_OK;
}

/* Emits the edge of a detected chain: the sub-box, then REFLECT, PERMUTE, SCALE down, SCALE
 * up (upsampling factors, and room for the gathered axes), one SHUFFLE along each gathered
 * axis, and an AFFINE cut when a gathered axis came out longer than wanted. */
static Status emit_chain(const EncCtx *L, const Enc *E, const Chain *c, Block *dst,
                         uint32_t in_idx, const int32_t *dpos, const int32_t *dsize)
{
    int64_t nf = fanout_edges(E, c, dst, in_idx, dsize);
    if (nf)
        return emit_fanout(L, E, c, nf, dst, in_idx, dpos, dsize);
    int32_t spos[TIR_CDIMS] = {0}, ssize[TIR_CDIMS] = {0};
    for (int a = 0; a < E->m; a++) {
        spos[E->ax[a]] = c->lo[a];
        ssize[E->ax[a]] = c->ext[a];
    }
    /* per B axis: extent after SCALE down, the SCALE up factor, the extent after it */
    int64_t t[TIR_CDIMS], ext2[TIR_CDIMS];
    bool ident = true, down = false, up = false, cut = false, any = false;
    for (int i = 0; i < E->m; i++) {
        int64_t e1 = ((int64_t)c->ext[c->p[i]] + c->down[i] - 1) / c->down[i];
        if (c->gather[i])
            t[i] = c->b[i] > e1 ? (c->b[i] + e1 - 1) / e1 : 1;
        else
            t[i] = c->up[i];
        ext2[i] = e1 * t[i];
        if (ext2[i] > ((int64_t)1 << 28))
            return enc_fail(L, "lower.limit", "a data movement needs an axis of %lld elements, "
                           "more than the rearrangement limit of 2^28", (long long)ext2[i]);
        ident = ident && c->p[i] == i;
        down = down || c->down[i] > 1;
        up = up || t[i] > 1;
        cut = cut || ext2[i] != c->b[i];
    }
    Edge *e = add_edge(L, E->s, spos, ssize, dst, in_idx, dpos, dsize);
    if (!e)
        return enc_oom(L);
    int32_t v[TIR_CDIMS];
    uint32_t n = 0;
    for (int a = 0; a < E->m; a++)
        if (c->refl[a])
            v[n++] = a;
    if (n) {
        if (!add_step(L, e, RT_REFLECT, v, n, NULL, 0, NULL, 0))
            return enc_oom(L);
        any = true;
    }
    if (!ident) {
        for (int i = 0; i < E->m; i++)
            v[i] = c->p[i];
        if (!add_step(L, e, RT_PERMUTE, v, (uint32_t)E->m, NULL, 0, NULL, 0))
            return enc_oom(L);
        any = true;
    }
    if (down) {
        for (int i = 0; i < E->m; i++)
            v[i] = c->down[i] > 1 ? -c->down[i] : 1;
        if (!add_step(L, e, RT_SCALE, v, (uint32_t)E->m, NULL, 0, NULL, 0))
            return enc_oom(L);
        any = true;
    }
    if (up) {
        for (int i = 0; i < E->m; i++)
            v[i] = (int32_t)t[i];
        if (!add_step(L, e, RT_SCALE, v, (uint32_t)E->m, NULL, 0, NULL, 0))
            return enc_oom(L);
        any = true;
    }
    for (int i = 0; i < E->m; i++) {
        if (!c->gather[i])
            continue;
        int32_t *idx = calloc((size_t)ext2[i], sizeof *idx);
        if (!idx)
            return enc_oom(L);
        for (int64_t o = 0; o < c->b[i]; o++)
            idx[o] = (int32_t)(c->gather[i][o] * t[i]);
        int32_t ax[1] = {i};
        bool ok = add_step(L, e, RT_SHUFFLE, idx, (uint32_t)ext2[i], ax, 1, NULL, 0);
        free(idx);
        if (!ok)
            return enc_oom(L);
        any = true;
    }
    if (cut) {
        int k = E->m;
        int32_t M[TIR_CDIMS * (TIR_CDIMS + 1)] = {0}, den[1] = {1}, out[TIR_CDIMS];
        for (int i = 0; i < k; i++) {
            M[i * (k + 1) + i] = 1;
            out[i] = (int32_t)c->b[i];
        }
        if (!add_step(L, e, RT_AFFINE, M, (uint32_t)(k * (k + 1)), den, 1, out, (uint32_t)k))
            return enc_oom(L);
        any = true;
    }
    return oom_if(L, any || box_step(L, e, E->s->b, ssize, dst, in_idx, dsize));
}

/* The bounding box of the elements, per source axis. */
static void bbox(const Enc *E, int64_t *mn, int64_t *ext)
{
    int64_t mx[TIR_CDIMS];
    for (int a = 0; a < E->m; a++) {
        mn[a] = INT64_MAX;
        mx[a] = -1;
    }
    for (int64_t j = 0; j < E->K; j++)
        for (int a = 0; a < E->m; a++) {
            int64_t u = uc(E, j, a);
            if (u < mn[a])
                mn[a] = u;
            if (u > mx[a])
                mx[a] = u;
        }
    for (int a = 0; a < E->m; a++)
        ext[a] = mx[a] - mn[a] + 1;
}

/* Flat index of element j inside the bounding box (C order). */
static int64_t in_box(const Enc *E, int64_t j, const int64_t *mn, const int64_t *ext)
{
    int64_t f = 0;
    for (int a = 0; a < E->m; a++)
        f = f * ext[a] + (uc(E, j, a) - mn[a]);
    return f;
}

static Status emit_shuffle(const EncCtx *L, const Enc *E, const int64_t *mn, const int64_t *ext,
                           Block *dst, uint32_t in_idx, const int32_t *dpos,
                           const int32_t *dsize)
{
    int32_t spos[TIR_CDIMS] = {0}, ssize[TIR_CDIMS] = {0};
    for (int a = 0; a < E->m; a++) {
        spos[E->ax[a]] = (int32_t)mn[a];
        ssize[E->ax[a]] = (int32_t)ext[a];
    }
    int32_t *idx = malloc((size_t)E->K * sizeof *idx);
    if (!idx)
        return enc_oom(L);
    for (int64_t j = 0; j < E->K; j++)
        idx[j] = (int32_t)in_box(E, j, mn, ext);
    Edge *e = add_edge(L, E->s, spos, ssize, dst, in_idx, dpos, dsize);
    bool ok = e && add_step(L, e, RT_SHUFFLE, idx, (uint32_t)E->K, NULL, 0, NULL, 0);
    free(idx);
    return oom_if(L, ok);
}

/* The bounding box is a line along axis la (every other extent 1): gather along it, with
 * SCALE up first when the destination holds more elements, and an AFFINE cut when the
 * gathered line is longer than the destination. */
static Status emit_line(const EncCtx *L, const Enc *E, const int64_t *mn, const int64_t *ext,
                        int la, Block *dst, uint32_t in_idx, const int32_t *dpos,
                        const int32_t *dsize)
{
    int64_t len = ext[la], K = E->K, t = K > len ? (K + len - 1) / len : 1;
    int64_t tot = len * t;
    if (tot > ((int64_t)1 << 28))
        return enc_fail(L, "lower.limit", "a data movement of %lld elements exceeds the "
                       "rearrangement limit of 2^28", (long long)tot);
    int32_t spos[TIR_CDIMS] = {0}, ssize[TIR_CDIMS] = {0};
    for (int a = 0; a < E->m; a++) {
        spos[E->ax[a]] = (int32_t)mn[a];
        ssize[E->ax[a]] = (int32_t)ext[a];
    }
    Edge *e = add_edge(L, E->s, spos, ssize, dst, in_idx, dpos, dsize);
    if (!e)
        return enc_oom(L);
    int32_t v[TIR_CDIMS];
    if (t > 1) {
        for (int a = 0; a < E->m; a++)
            v[a] = a == la ? (int32_t)t : 1;
        if (!add_step(L, e, RT_SCALE, v, (uint32_t)E->m, NULL, 0, NULL, 0))
            return enc_oom(L);
    }
    int32_t *idx = calloc((size_t)tot, sizeof *idx);
    if (!idx)
        return enc_oom(L);
    for (int64_t j = 0; j < K; j++)
        idx[j] = (int32_t)((uc(E, j, la) - mn[la]) * t);
    bool ok = add_step(L, e, RT_SHUFFLE, idx, (uint32_t)tot, NULL, 0, NULL, 0);
    free(idx);
    if (!ok)
        return enc_oom(L);
    if (tot != K) {
        int k = E->m;
        int32_t M[TIR_CDIMS * (TIR_CDIMS + 1)] = {0}, den[1] = {1}, out[TIR_CDIMS];
        for (int a = 0; a < k; a++) {
            M[a * (k + 1) + a] = 1;
            out[a] = a == la ? (int32_t)K : 1;
        }
        if (!add_step(L, e, RT_AFFINE, M, (uint32_t)(k * (k + 1)), den, 1, out, (uint32_t)k))
            return enc_oom(L);
    }
    return ST_OK;
}

static Status encode_leaf(const EncCtx *L, const EncSrc *s, const int32_t *off, int64_t K,
                          Block *dst, uint32_t in_idx, const int32_t *dpos,
                          const int32_t *dsize)
{
    Enc E;
    enc_init(&E, s, off, K);
    Chain c;
    if (detect(&E, &c)) {
        Status st = emit_chain(L, &E, &c, dst, in_idx, dpos, dsize);
        chain_free(&c);
        return st;
    }
    int64_t mn[TIR_CDIMS], ext[TIR_CDIMS], vol = 1;
    bbox(&E, mn, ext);
    int nlong = 0, la = E.m - 1;
    for (int a = 0; a < E.m; a++) {
        vol *= ext[a];
        if (ext[a] > 1) {
            nlong++;
            la = a;
        }
    }
    if (vol == K)
        return emit_shuffle(L, &E, mn, ext, dst, in_idx, dpos, dsize);
    if (nlong <= 1)
        return emit_line(L, &E, mn, ext, la, dst, in_idx, dpos, dsize);
    /* Stage the bounding box through an identity CADD laid out as a line. */
    if (vol > ENC_MAX_DIM)
        return enc_fail(L, "lower.limit", "a data movement reads a box of %lld elements, more "
                       "than the 2^24 one staging block holds", (long long)vol);
    int32_t line[TIR_NDIMS] = {1, 1, (int32_t)vol};
    Block *si = enc_block(L->g, BT_SI, L->name, "stage/in", line, PR_INT_32);
    if (!si)
        return enc_oom(L);
    int32_t spos[TIR_CDIMS] = {0}, ssize[TIR_CDIMS] = {0}, wpos[TIR_CDIMS] = {0};
    for (int a = 0; a < E.m; a++) {
        spos[E.ax[a]] = (int32_t)mn[a];
        ssize[E.ax[a]] = (int32_t)ext[a];
    }
    Edge *e = add_edge(L, s, spos, ssize, si, 0, wpos, line);
    if (!e || !box_step(L, e, s->b, ssize, si, 0, line))
        return enc_oom(L);
    int32_t yxf[3] = {1, 1, (int32_t)vol};
    int32_t cshape[TIR_NDIMS] = {yxf[0], yxf[1], yxf[2]};
    Block *id = enc_block(L->g, BT_CADD, L->name, "stage", cshape, PR_INT_32);
    if (!id || !graph_connect(L->g, si, 0, id, 0))
        return enc_oom(L);
    EncSrc ls = {id, {0}};
    blk_cluster_dims(id, false, 0, ls.cd);
    int32_t *loff = malloc((size_t)K * sizeof *loff);
    if (!loff)
        return enc_oom(L);
    for (int64_t j = 0; j < K; j++)
        loff[j] = (int32_t)in_box(&E, j, mn, ext);
    Enc F;
    enc_init(&F, &ls, loff, K);
    int64_t fmn[TIR_CDIMS], fext[TIR_CDIMS];
    bbox(&F, fmn, fext);
    Status st = emit_line(L, &F, fmn, fext, F.m - 1, dst, in_idx, dpos, dsize);
    free(loff);
    return st;
}

/* ---- partition into single-producer boxes ---- */

typedef struct Part {
    const EncCtx *L;
    Block *dst;
    uint32_t in_idx;
    int q;                       /* used dims of the destination cluster */
    int cdi[TIR_CDIMS];          /* their cluster dims */
    int32_t P[TIR_CDIMS];        /* box origin per used dim */
    int64_t BS[TIR_CDIMS];       /* C strides over the box */
    const EncSrc *srcs;
    const int32_t *esrc, *eoff;
    int32_t *buf;                /* scratch for a leaf's offsets */
    long leaves;
} Part;

/* Calls fn(p, element index, arg) over the sub-box in C order; stops when fn returns false. */
static bool walk(const Part *p, const int64_t *lo, const int64_t *ext,
                 bool (*fn)(const Part *, int64_t, void *), void *arg)
{
    int64_t idx[TIR_CDIMS] = {0}, e = 0, n = 1;
    for (int i = 0; i < p->q; i++) {
        e += lo[i] * p->BS[i];
        n *= ext[i];
    }
    for (int64_t k = 0; k < n; k++) {
        if (!fn(p, e, arg))
            return false;
        for (int i = p->q - 1; i >= 0; i--) {
            if (++idx[i] < ext[i]) {
                e += p->BS[i];
                break;
            }
            e -= p->BS[i] * (idx[i] - 1);
            idx[i] = 0;
        }
    }
    return true;
}

static bool same_src(const Part *p, int64_t e, void *arg)
{
    return p->esrc[e] == *(int32_t *)arg;
}

typedef struct Gather {
    int32_t *out;
    int64_t n;
} Gather;

static bool gather(const Part *p, int64_t e, void *arg)
{
    Gather *g = arg;
    g->out[g->n++] = p->eoff[e];
    return true;
}

static Status leaf(Part *p, const int64_t *lo, const int64_t *ext)
{
    if (++p->leaves > ENC_MAX_LEAVES)
        return enc_fail(p->L, "lower.limit", "a value reaches a storage block in more than %d "
                       "pieces", ENC_MAX_LEAVES);
    int64_t e0 = 0;
    for (int i = 0; i < p->q; i++)
        e0 += lo[i] * p->BS[i];
    Gather g = {p->buf, 0};
    walk(p, lo, ext, gather, &g);
    int32_t dpos[TIR_CDIMS] = {0}, dsize[TIR_CDIMS] = {0};
    for (int i = 0; i < p->q; i++) {
        dpos[p->cdi[i]] = p->P[i] + (int32_t)lo[i];
        dsize[p->cdi[i]] = (int32_t)ext[i];
    }
    return encode_leaf(p->L, &p->srcs[p->esrc[e0]], g.out, g.n, p->dst, p->in_idx, dpos,
                       dsize);
}

/* The producer of the box element at lo (its first element when lo is a box origin). */
static int32_t src_at(const Part *p, const int64_t *lo)
{
    int64_t e = 0;
    for (int i = 0; i < p->q; i++)
        e += lo[i] * p->BS[i];
    return p->esrc[e];
}

/* Copies the box (lo, ext) into (slo, sext) with extent 1 along axis a. */
static void slice_box(const int64_t *lo, const int64_t *ext, int a, int64_t *slo, int64_t *sext)
{
    memcpy(slo, lo, TIR_CDIMS * sizeof *slo);
    memcpy(sext, ext, TIR_CDIMS * sizeof *sext);
    sext[a] = 1;
}

static Status part(Part *p, int64_t *lo, int64_t *ext)
{
    int32_t s0 = src_at(p, lo);
    if (walk(p, lo, ext, same_src, &s0))
        return leaf(p, lo, ext);
    /* An axis along which the producer alone changes: runs of one producer. */
    for (int a = 0; a < p->q; a++) {
        if (ext[a] < 2)
            continue;
        int64_t slo[TIR_CDIMS], sext[TIR_CDIMS];
        slice_box(lo, ext, a, slo, sext);
        bool ok = true;
        for (int64_t c = 0; c < ext[a] && ok; c++) {
            slo[a] = lo[a] + c;
            int32_t sc = src_at(p, slo);
            ok = walk(p, slo, sext, same_src, &sc);
        }
        if (!ok)
            continue;
        for (int64_t c = 0; c < ext[a];) {
            slo[a] = lo[a] + c;
            int32_t sc = src_at(p, slo);
            int64_t c1 = c + 1;
            for (; c1 < ext[a]; c1++) {
                slo[a] = lo[a] + c1;
                if (src_at(p, slo) != sc)
                    break;
            }
            slo[a] = lo[a] + c;
            sext[a] = c1 - c;
            Status st = leaf(p, slo, sext);
            if (st != ST_OK)
                return st;
            c = c1;
        }
        return ST_OK;
    }
    /* Otherwise slice along the outermost axis of extent > 1. */
    for (int a = 0; a < p->q; a++) {
        if (ext[a] < 2)
            continue;
        int64_t slo[TIR_CDIMS], sext[TIR_CDIMS];
        slice_box(lo, ext, a, slo, sext);
        for (int64_t c = 0; c < ext[a]; c++) {
            slo[a] = lo[a] + c;
            Status st = part(p, slo, sext);
            if (st != ST_OK)
                return st;
        }
        return ST_OK;
    }
    return leaf(p, lo, ext);
}

Status enc_whole(const EncCtx *L, const EncSrc *s, Block *dst, uint32_t in_idx,
                       const int32_t *pos, const int32_t *size)
{
    int32_t cd[TIR_CDIMS], dpos[TIR_CDIMS] = {0}, dsize[TIR_CDIMS] = {0};
    int32_t spos[TIR_CDIMS] = {0};
    blk_cluster_dims(dst, true, in_idx, cd);
    for (int i = 0; i < TIR_CDIMS; i++)
        if (cd[i] > 0) {
            dpos[i] = pos ? pos[i] : 0;
            dsize[i] = size ? size[i] : cd[i];
        }
    Edge *e = add_edge(L, s, spos, s->cd, dst, in_idx, dpos, dsize);
    if (!e)
        return enc_oom(L);
    return oom_if(L, box_step(L, e, s->b, s->cd, dst, in_idx, dsize));
}

Status enc_map(const EncCtx *L, Block *dst, uint32_t in_idx, const int32_t pos[TIR_CDIMS],
               const int32_t size[TIR_CDIMS], const EncSrc *srcs, const int32_t *esrc,
               const int32_t *eoff, int64_t n)
{
    int32_t cd[TIR_CDIMS];
    blk_cluster_dims(dst, true, in_idx, cd);
    Part p;
    memset(&p, 0, sizeof p);
    p.L = L;
    p.dst = dst;
    p.in_idx = in_idx;
    p.srcs = srcs;
    p.esrc = esrc;
    p.eoff = eoff;
    int64_t ext[TIR_CDIMS], lo[TIR_CDIMS] = {0}, vol = 1;
    for (int i = 0; i < TIR_CDIMS; i++)
        if (cd[i] > 0) {
            p.cdi[p.q] = i;
            p.P[p.q] = pos ? pos[i] : 0;
            ext[p.q] = size ? size[i] : cd[i];
            vol *= ext[p.q++];
        }
    if (vol != n)
        return diag_add(L->d, ST_RUNTIME, "lower.internal", NULL,
                        "feeding block %d: the box holds %lld elements, the value %lld",
                        (int)dst->id, (long long)vol, (long long)n);
    int64_t k = 1;
    for (int i = p.q - 1; i >= 0; i--) {
        p.BS[i] = k;
        k *= ext[i];
    }
    p.buf = malloc((size_t)(n ? n : 1) * sizeof *p.buf);
    if (!p.buf)
        return enc_oom(L);
    Status st = part(&p, lo, ext);
    free(p.buf);
    return st;
}
