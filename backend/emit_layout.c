/* emit_layout.c: feature-map layouts and the static data images (emit_layout.h). */
#include "backend/emit_layout.h"

#include <stdlib.h>

static int64_t round_up(int64_t v, int64_t m)
{
    return (v + m - 1) / m * m;
}

bool emit_feat(PrecisionId p, int64_t ny, int64_t nx, int64_t nc, int unit, EmitFeat *out)
{
    int per_word;
    switch (p) {
    case PR_INT_8:
    case PR_UINT_8: per_word = 4; break;
    case PR_TERNARY: per_word = 16; break;
    case PR_INT_32: per_word = 1; break;
    default: return false;
    }
    const int64_t cap = (int64_t)1 << 30;
    if (unit < per_word || unit % per_word || ny < 1 || nx < 1 || nc < 1 || ny > cap ||
        nx > cap || nc > cap)
        return false;
    int64_t c = round_up(nc, unit);
    int64_t px = c / per_word;
    if (ny > cap / nx || ny * nx > cap / px)
        return false;
    /* a pixel starts a whole number of units after the one before: the map is aligned as
     * every pixel is, to the largest power of two dividing the unit's words (a P07 row of
     * 96 int8 channels, 24 words: 8), at least 16 bytes */
    int32_t uw = unit / per_word, pow2 = uw & -uw;
    int32_t align = pow2 < 4 ? 4 : pow2;
    *out = (EmitFeat){p, per_word, ny, nx, nc, c, ny * nx * px, align};
    return true;
}

bool emit_feat_planes(PrecisionId p, int64_t nc, int64_t ny, int64_t nx, EmitFeat *out)
{
    const int64_t cap = (int64_t)1 << 30;
    if ((p != PR_INT_8 && p != PR_UINT_8) || nc < 1 || ny < 1 || nx < 1 || nc > cap ||
        ny > cap || nx > cap)
        return false;
    int64_t row = round_up(nx, 16) / 4; /* words */
    if (nc > cap / ny || nc * ny > cap / row)
        return false;
    *out = (EmitFeat){p, 4, ny, nx, nc, nc, nc * ny * row, 4};
    return true;
}

int64_t emit_feat_pixel_words(const EmitFeat *m)
{
    return m->c / m->per_word;
}

int64_t emit_feat_offset(const EmitFeat *m, int64_t y, int64_t x)
{
    return (y * m->nx + x) * emit_feat_pixel_words(m);
}

void emit_put_i8(uint32_t *w, int64_t i, int32_t v)
{
    unsigned sh = (unsigned)(8 * (i % 4));
    w[i / 4] = (w[i / 4] & ~(UINT32_C(0xFF) << sh)) | ((uint32_t)(v & 0xFF) << sh);
}

/* The source value at box coordinates (a, b, c, d). */
static int32_t src_at(const EmitSrc *s, int64_t a, int64_t b, int64_t c, int64_t d)
{
    int64_t i = (((s->o[0] + a) * s->dims[1] + s->o[1] + b) * s->dims[2] + s->o[2] + c) *
                    s->dims[3] +
                s->o[3] + d;
    return s->t[i];
}

/* n_bytes of zeroed words, or NULL. */
static uint32_t *words_for_bytes(int64_t n_bytes, size_t *n_words)
{
    if (n_bytes < 0 || n_bytes > ((int64_t)1 << 34))
        return NULL;
    int64_t n = (n_bytes + 3) / 4;
    *n_words = (size_t)n;
    return calloc(n ? (size_t)n : 1, sizeof(uint32_t));
}

uint32_t *emit_image_conv_w(const EmitSrc *s, size_t *n_words)
{
    int64_t nf = s->n[0], nr = s->n[1], ky = s->n[2], kx = s->n[3];
    int64_t groups = (nf + 31) / 32;
    if (groups > (1 << 20) || ky > 4096 || kx > 4096 || nr > (1 << 20) ||
        groups * ky * kx > ((int64_t)1 << 34) / (nr * 32))
        return NULL;
    uint32_t *w = words_for_bytes(groups * ky * kx * nr * 32, n_words);
    if (!w)
        return NULL;
    /* in the image's order, a word at a time: filter f of group g = f / 32 at byte
     * (((g * ky + i) * kx + j) * nr + r) * 32 + f % 32, 4 filters a word (the words zero) */
    uint32_t *at = w;
    for (int64_t g = 0; g < groups; g++)
        for (int64_t i = 0; i < ky; i++)
            for (int64_t j = 0; j < kx; j++)
                for (int64_t r = 0; r < nr; r++, at += 8)
                    for (int64_t q = 0; q < 32 && g * 32 + q < nf; q++)
                        at[q / 4] |= (uint32_t)(src_at(s, g * 32 + q, r, i, j) & 0xFF)
                                     << (8 * (q % 4));
    return w;
}

uint32_t *emit_image_conv2d_w(const EmitSrc *s, int64_t lead, int64_t step, size_t *n_words)
{
    if (step < 1 || step > 4096 || s->n[3] > 4096 || lead < 0 || lead > 4096)
        return NULL;
    int64_t nf = s->n[0], nr = s->n[1], ky = s->n[2], kx = lead + (s->n[3] - 1) * step + 1;
    int64_t groups = (nf + 31) / 32;
    if (groups > (1 << 20) || ky > 4096 || kx > 4096 || nr > (1 << 20) || s->n[3] < 1 ||
        groups * ky * kx > ((int64_t)1 << 34) / (nr * 32))
        return NULL;
    uint32_t *w = words_for_bytes(groups * nr * ky * kx * 32, n_words);
    if (!w)
        return NULL;
    for (int64_t f = 0; f < nf; f++)
        for (int64_t r = 0; r < nr; r++)
            for (int64_t i = 0; i < ky; i++)
                for (int64_t j = 0; j < s->n[3]; j++) {
                    int64_t col = lead + j * step;
                    int64_t byte = ((((f / 32) * nr + r) * ky + i) * kx + col) * 32 + f % 32;
                    emit_put_i8(w, byte, src_at(s, f, r, i, j));
                }
    return w;
}

uint32_t *emit_image_fc_w(const EmitSrc *s, const int64_t *rows, int64_t n_rows,
                          size_t *n_words)
{
    int64_t nf = s->n[0], nr = rows ? n_rows : s->n[1], groups = (nf + 31) / 32;
    if (groups > (1 << 24) || nr < 1 || nr > (1 << 24) ||
        groups * nr > ((int64_t)1 << 34) / 32)
        return NULL;
    uint32_t *w = words_for_bytes(groups * nr * 32, n_words);
    if (!w)
        return NULL;
    for (int64_t f = 0; f < nf; f++)
        for (int64_t r = 0; r < nr; r++) {
            int64_t from = rows ? rows[r] : r;
            if (from >= 0 && from < s->n[1])
                emit_put_i8(w, ((f / 32) * nr + r) * 32 + f % 32, src_at(s, f, from, 0, 0));
        }
    return w;
}

uint32_t *emit_image_bias(const EmitSrc *s, size_t *n_words)
{
    int64_t nf = s->n[0];
    if (nf > ((int64_t)1 << 30))
        return NULL;
    uint32_t *w = words_for_bytes(round_up(nf, 32) * 4, n_words);
    if (!w)
        return NULL;
    for (int64_t f = 0; f < nf; f++)
        w[f] = (uint32_t)src_at(s, f, 0, 0, 0);
    return w;
}

uint32_t *emit_image_bytes(const EmitSrc *s, int64_t pad, size_t *n_words)
{
    return emit_image_bytes_clip(s, pad, INT32_MIN, INT32_MAX, n_words);
}

uint32_t *emit_image_bytes_clip(const EmitSrc *s, int64_t pad, int32_t lo, int32_t hi,
                                size_t *n_words)
{
    int64_t n = s->n[0] * s->n[1] * s->n[2] * s->n[3];
    if (pad < n)
        pad = n;
    uint32_t *w = words_for_bytes(pad, n_words);
    if (!w)
        return NULL;
    int64_t k = 0;
    for (int64_t a = 0; a < s->n[0]; a++)
        for (int64_t b = 0; b < s->n[1]; b++)
            for (int64_t c = 0; c < s->n[2]; c++)
                for (int64_t d = 0; d < s->n[3]; d++)
                {
                    int32_t v = src_at(s, a, b, c, d);
                    emit_put_i8(w, k++, v < lo ? lo : v > hi ? hi : v);
                }
    return w;
}

uint32_t *emit_image_lut(const EmitSrc *s, int64_t entries, int bits, int32_t lo, int32_t hi,
                         size_t *n_words)
{
    int64_t n = s->n[0];
    if (n < 1 || entries > ((int64_t)1 << 16) || n > entries / 2)
        return NULL;
    uint32_t *w = words_for_bytes(entries * (bits == 8 ? 1 : 4), n_words);
    if (!w)
        return NULL;
    for (int64_t e = 0; e < entries; e++) {
        int64_t from = e < n ? e : e >= entries - n ? e - (entries - n) : -1;
        int32_t v = from < 0 ? 0 : src_at(s, from, 0, 0, 0);
        v = v < lo ? lo : v > hi ? hi : v;
        if (bits == 8)
            emit_put_i8(w, e, v);
        else
            w[e] = (uint32_t)v;
    }
    return w;
}
