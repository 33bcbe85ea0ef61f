/* emit_window.c: a P02 window past the Axon's kernel fields (docs/backend.md,
 * "Primitives"). P02's nky and nkx hold 1..255 (the format's 8-bit fields, the executor's
 * AXON_WIN_MAX). A CAVG summing a whole map of more rows or columns (batch_stats'
 * image_sum: a window of 256 x 1 over 256 rows of one pixel) reads the same pixels in the
 * same order as a window of a x b over the map read as a rows of b pixels, a * b its pixels:
 * its memory holds them back to back ([y][x][channels] at one pitch), so the sums are the
 * same, added in the same order, into its one output pixel. Any other window past 255 is
 * refused [emit.layout].
 */
#include "backend/emit_internal.h"

#include "taskir/diag_block.h"

enum { WIN_MAX = 255 };

/* Field f of a Shape or parameter message: 1 when absent or 0 (as the executor reads it). */
#define ONE(m, f) ((m)->has_##f && (m)->f ? (int64_t)(m)->f : 1)
#define SET(m, f, v) ((m)->has_##f = 1, (m)->f = (v))

Status emit_p02_window(Emit *e, const Block *b, Taskir__Shape *s, Taskir__Asm__P02 *p)
{
    int64_t ky = ONE(s, nky), kx = ONE(s, nkx), iy = ONE(s, niy), ix = ONE(s, nix);
    if (ky <= WIN_MAX && kx <= WIN_MAX && ONE(p, stride_y) <= WIN_MAX &&
        ONE(p, stride_x) <= WIN_MAX)
        return ST_OK;
    bool whole = ONE(s, ny) == 1 && ONE(s, nx) == 1 && ky == iy && kx == ix && !p->pad_top &&
                 !p->pad_down && !p->pad_left && !p->pad_right;
    int64_t n = iy * ix;
    for (int64_t cols = (n + WIN_MAX - 1) / WIN_MAX; whole && cols <= WIN_MAX; cols++)
        if (n % cols == 0 && n / cols <= WIN_MAX) {
            SET(s, niy, (int32_t)(n / cols));
            SET(s, nky, (int32_t)(n / cols));
            SET(s, nix, (int32_t)cols);
            SET(s, nkx, (int32_t)cols);
            SET(p, stride_y, 1); /* one output pixel: any stride reads the same window */
            SET(p, stride_x, 1);
            return ST_OK;
        }
    return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                      "sums a window of %lld x %lld pixels (strides %lld, %lld): P02's kernel "
                      "and strides hold 1..%d, and no shape of at most %d x %d pixels reads "
                      "the same window (a whole map without padding)",
                      (long long)ky, (long long)kx, (long long)ONE(p, stride_y),
                      (long long)ONE(p, stride_x), WIN_MAX, WIN_MAX, WIN_MAX);
}
