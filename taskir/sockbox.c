/* sockbox.c: the boxes of a socket that dynamic blocks place in a map's lanes (sockbox.h). */
#include "taskir/sockbox.h"

#include "taskir/edge_map.h"
#include "taskir/rearrange.h"

#include <stdlib.h>

bool sockbox_fr(const Block *io)
{
    int32_t cd[TIR_CDIMS] = {0};
    blk_cluster_dims(io, io->type != BT_INPUT, 0, cd);
    return cd[D_F] > 0 && cd[D_R] > 1;
}

void sockbox_dims(const Block *io, int64_t s[3])
{
    int32_t cd[TIR_CDIMS] = {0};
    blk_cluster_dims(io, io->type != BT_INPUT, 0, cd);
    s[0] = cd[D_Y] > 0 ? cd[D_Y] : 1;
    s[1] = cd[D_X] > 0 ? cd[D_X] : 1;
    s[2] = cd[D_F] > 0 ? cd[D_F] : cd[D_R] > 0 ? cd[D_R] : 1;
    if (sockbox_fr(io))
        s[2] *= cd[D_R];
}

/* Whether lanes sock[at ..] hold the k values v, v + step, v + 2 step, ... */
static bool along(const int64_t *sock, int64_t at, int64_t k, int64_t v, int64_t step)
{
    for (int64_t i = 0; i < k; i++)
        if (sock[at + i] != v + i * step)
            return false;
    return true;
}

/* The largest piece in order fxy whose lanes are sock[0 ..] (k lanes hold values), then the
 * longest of its prefixes that are boxes too and end on a word's last lane, or at k (per:
 * lanes a word). false when there is none. */
static bool piece_at(const int64_t *sock, int64_t k, const int64_t s[3], bool fxy, int per,
                     SockPiece *p)
{
    const int64_t stride[3] = {s[1] * s[2], s[2], 1};
    const int ax[3] = {fxy ? 1 : 2, fxy ? 0 : 1, fxy ? 2 : 0}; /* inner to outer */
    int64_t v = sock[0];
    const int64_t c[3] = {v / stride[0], v / s[2] % s[1], v % s[2]};
    int64_t n[3] = {1, 1, 1};
    while (n[0] < k && c[ax[0]] + n[0] < s[ax[0]] && sock[n[0]] == v + n[0] * stride[ax[0]])
        n[0]++;
    while ((n[1] + 1) * n[0] <= k && c[ax[1]] + n[1] < s[ax[1]] &&
           along(sock, n[1] * n[0], n[0], v + n[1] * stride[ax[1]], stride[ax[0]]))
        n[1]++;
    int64_t slab = n[0] * n[1];
    for (bool ok = true; ok && (n[2] + 1) * slab <= k && c[ax[2]] + n[2] < s[ax[2]];) {
        for (int64_t r = 0; ok && r < n[1]; r++)
            ok = along(sock, n[2] * slab + r * n[0], n[0],
                       v + n[2] * stride[ax[2]] + r * stride[ax[1]], stride[ax[0]]);
        n[2] += ok;
    }
    /* the prefixes, longest first: whole slabs, rows of the first slab, lanes of its row */
    int64_t m[3] = {n[0], n[1], n[2]};
    for (int level = 2; level >= 0; level--) {
        for (int64_t t = m[level]; t >= 1; t--) {
            int64_t e[3] = {level > 0 ? n[0] : t, level > 1 ? n[1] : level == 1 ? t : 1,
                            level == 2 ? t : 1};
            int64_t lanes = e[0] * e[1] * e[2];
            if (lanes != k && lanes % per)
                continue;
            for (int i = 0; i < 3; i++) {
                p->b[i] = c[i];
                p->n[i] = 1;
            }
            for (int i = 0; i < 3; i++)
                p->n[ax[i]] = e[i];
            p->fxy = fxy;
            p->lanes = lanes;
            return true;
        }
    }
    return false;
}

bool sockbox_pixel(const int64_t *sock, int64_t pitch, const int64_t s[3], int per,
                   bool reading, SockPiece *out, int64_t *np)
{
    int64_t k = 0;
    while (k < pitch && sock[k] >= 0)
        k++;
    for (int64_t l = k; l < pitch && !reading; l++)
        if (sock[l] >= 0)
            return false;
    *np = 0;
    for (int64_t at = 0; at < pitch;) {
        if (sock[at] < 0) {
            at++;
            continue;
        }
        if (at % per)
            return false;
        for (k = at; k < pitch && sock[k] >= 0; k++)
            ;
        SockPiece a, b;
        bool ha = piece_at(sock + at, k - at, s, false, per, &a);
        bool hb = piece_at(sock + at, k - at, s, true, per, &b);
        if (!ha && !hb)
            return false;
        out[*np] = ha && (!hb || a.lanes >= b.lanes) ? a : b;
        out[*np].at = at;
        at += out[(*np)++].lanes;
    }
    return true;
}

bool sockbox_edge_fits(const Graph *g, const GraphUses *u, const Edge *ed, uint32_t s, int unit)
{
    const Block *sb = g->blocks[s], *io = graph_block(g, ed->src);
    const IfaceUse *iu = uses_find(u, s, true, ed->id);
    int32_t cd[TIR_CDIMS];
    if (!io || !iu || iu->cluster != 0 || unit < 1 || !blk_cluster_dims(sb, true, 0, cd))
        return true;
    const Iface *f = &sb->in[0].ifaces[iu->iface];
    const int dim[3] = {D_Y, D_X, cd[D_F] > 0 ? D_F : D_R};
    int64_t whole[3], lo[3], n[3];
    for (int i = 0; i < 3; i++) { /* the edge's box of s, as the code generator takes it */
        whole[i] = cd[dim[i]] > 0 ? cd[dim[i]] : 1;
        lo[i] = f->has_pos && f->pos.d[dim[i]] > 0 ? f->pos.d[dim[i]] : 0;
        n[i] = f->has_size && f->size.d[dim[i]] > 0 ? f->size.d[dim[i]] : whole[i] - lo[i];
        if (n[i] < 1 || n[i] > RA_MAX_ELEMS || lo[i] + n[i] > whole[i])
            return true;
    }
    int64_t pitch = (whole[2] + unit - 1) / unit * unit, vol = n[0] * n[1];
    int64_t pix = whole[0] * whole[1];
    if (vol > RA_MAX_ELEMS / n[2] || pix > RA_MAX_ELEMS / pitch)
        return true;
    vol *= n[2];
    int32_t *map = malloc((size_t)vol * sizeof *map);
    int64_t *sock = malloc((size_t)(pix * pitch) * sizeof *sock);
    SockPiece *pc = malloc((size_t)pitch * sizeof *pc);
    Diag quiet; /* a malformed edge is the code generator's to refuse */
    diag_init(&quiet, NULL);
    bool fits = !map || !sock || !pc || edge_element_map(g, u, ed, map, vol, &quiet) != ST_OK;
    if (!fits) {
        int64_t sd[3], made = 0, np = 0;
        sockbox_dims(io, sd);
        for (int64_t l = 0; l < pix * pitch; l++)
            sock[l] = -1;
        for (int64_t i = 0; i < vol; i++) {
            int64_t y = lo[0] + i / (n[1] * n[2]), x = lo[1] + i / n[2] % n[1];
            sock[(y * whole[1] + x) * pitch + lo[2] + i % n[2]] = map[i];
        }
        fits = true;
        for (int64_t p = 0; fits && p < pix; p++, made += np)
            fits = sockbox_pixel(sock + p * pitch, pitch, sd, 4, false, pc, &np) &&
                   made + np <= SOCKBOX_MAX_PIECES;
    }
    diag_finish(&quiet);
    free(map);
    free(sock);
    free(pc);
    return fits;
}
