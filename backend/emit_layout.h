/* emit_layout.h: how the code generator lays data out in a core's memory (docs/backend.md,
 * "The code generator", and CHIP.md §1): feature maps pixel by pixel (HWC) with the channels
 * of a pixel padded, and the static data images (weights, biases, tables) in the layouts the
 * primitives read. 8-bit values pack 4 to a word, little-endian (byte i of an area is bits
 * 8*(i%4).. of word i/4); ternary values 16 to a word, 2 bits each (code 3 = -1).
 *
 *   feature map              [y][x][c]: c, the pitch, is nc rounded up to the unit its
 *                            primitives take (layout_unit, taskir/layout.h: the table the
 *                            mapper counts with too)
 *   P41 weights (SW)         [ceil(f/32)][ky][kx][r][32] int8 (r unpadded: the input's
 *                            padded channels meet no weight)
 *   P81 weights (SW2D)       [ceil(f/32)][r][ky][kx][32] int8 (kx widened by leading zero
 *                            columns to a stored left padding of whole words)
 *   P81 input (planes)       [c][y][x'] int8, x' = x rounded up to 16 (the padding rows and
 *                            columns P81 reads stored)
 *   P04 weights (SWFC)       [ceil(f/32)][r][32] int8
 *   bias (SB)                [ceil(f/32)*32] int32
 *   P43 alpha / P03 operand  a feature map of one pixel
 *   P07 table (CLUT)         the entries in index order, one 8-bit value each (4 a word)
 * Padding (channels past nc, output channels past f, rows past r) is zero.
 */
#ifndef TASKIR_BACKEND_EMIT_LAYOUT_H
#define TASKIR_BACKEND_EMIT_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "taskir/types.h"

/* A feature map in memory. */
typedef struct EmitFeat {
    PrecisionId prec;
    int per_word;            /* values a word holds: 1, 4 or 16 */
    int64_t ny, nx, nc;      /* pixels and real channels */
    int64_t c;               /* channels stored a pixel (padded) */
    int64_t words;           /* the whole map */
    int32_t align;           /* address alignment in words: a power of two, at least 4 (16 B;
                                the power of two dividing the unit: 128 B for an Axon's) */
} EmitFeat;

/* The layout of an ny x nx map of nc channels of precision p, each pixel's channels rounded
 * up to a multiple of unit (layout_unit, taskir/layout.h). false when p has no layout (a precision the
 * chip does not encode: INT_16, INT_9, ...), unit is not one of p's, or the sizes overflow. */
bool emit_feat(PrecisionId p, int64_t ny, int64_t nx, int64_t nc, int unit, EmitFeat *out);
/* The planes of P81's input (CC2D): nc channels of ny rows of nx 8-bit values, each row padded
 * to 16 bytes, [c][y][x'] (c = nc, per_word 4; the pixel accessors do not apply); false
 * when p is not 8-bit or the sizes overflow. */
bool emit_feat_planes(PrecisionId p, int64_t nc, int64_t ny, int64_t nx, EmitFeat *out);
/* Words from the start of the map to the word holding pixel (y, x)'s channel 0. */
int64_t emit_feat_offset(const EmitFeat *m, int64_t y, int64_t x);
/* Words one pixel takes. */
int64_t emit_feat_pixel_words(const EmitFeat *m);

/* An 8-bit value v stored at byte i of words w (two's complement, little-endian lanes). */
void emit_put_i8(uint32_t *w, int64_t i, int32_t v);

/* A tensor window the images read: t[(((a*da)+b)*db+c)*dc+d] over a box of its dims
 * (origins o[4], extents n[4]); the tensor's own extents are dims[4]. */
typedef struct EmitSrc {
    const int32_t *t;
    int64_t dims[4];
    int64_t o[4], n[4];
} EmitSrc;

/* P41 weights from an SW box [f][r][ky][kx] (malloc'd words, *n_words of them); NULL when
 * out of memory or too large. */
uint32_t *emit_image_conv_w(const EmitSrc *s, size_t *n_words);
/* P81 weights from an SW2D box [f][r][ky][kx]: [ceil(f/32)][r][ky][lead + kx'][32] int8,
 * kx' = (kx - 1) * step + 1, the first lead columns of each kernel row zero (a kernel widened
 * to a stored left padding of whole words, layout_p81_left in taskir/layout.h) and tap j at
 * column lead + j * step, the step - 1 columns between taps zero (a dilated kernel run
 * undilated, layout_p81_dilation; step 1: the taps side by side). */
uint32_t *emit_image_conv2d_w(const EmitSrc *s, int64_t lead, int64_t step, size_t *n_words);
/* P04 weights from an SWFC box [f][r] (dims[2], dims[3] = 1). rows (n_rows of them), when
 * not NULL: weight row j of the image is the box's row rows[j], a zero row when it is -1
 * (a vector that is a view of a map, emit_rearr.c); NULL: the box's rows in order. */
uint32_t *emit_image_fc_w(const EmitSrc *s, const int64_t *rows, int64_t n_rows,
                          size_t *n_words);
/* A bias from an SB box [f]: int32, padded to a multiple of 32. */
uint32_t *emit_image_bias(const EmitSrc *s, size_t *n_words);
/* 8-bit values in order, 4 a word (a P07 table; a vector operand padded to 16). pad: values
 * the image holds (>= the box's count), zero past the data. */
uint32_t *emit_image_bytes(const EmitSrc *s, int64_t pad, size_t *n_words);
/* A P07 table of entries entries from the n = s->n[0] of the box (layout_lut_entries,
 * taskir/layout.h): entry e is the box's e for e < n, its e - (entries - n) for e >=
 * entries - n (a negative index reads from the end), else 0; each clipped to lo .. hi, 8-bit
 * (4 a word) when bits is 8, else int32 words. NULL when out of memory or n > entries / 2. */
uint32_t *emit_image_lut(const EmitSrc *s, int64_t entries, int bits, int32_t lo, int32_t hi,
                         size_t *n_words);
/* The same, each value clipped to lo .. hi first (a P07 table of int32 entries written in
 * its 8-bit output's precision: the output clips the entry it reads so). */
uint32_t *emit_image_bytes_clip(const EmitSrc *s, int64_t pad, int32_t lo, int32_t hi,
                                size_t *n_words);

#endif
