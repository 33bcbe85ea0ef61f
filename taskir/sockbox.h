/* sockbox.h: the boxes of a model input's socket that dynamic blocks place in a map's lanes
 * (docs/backend.md "Inputs, outputs and data", "Rearrangements"). A dynamic block lays a box
 * of the socket out as [y][x][f] (X_Y_F) or [f][y][x] (F_X_Y), without alignment, from a
 * word's first lane; so each pixel of a map whose lanes hold socket values in another order
 * is cut, lane by lane, into the longest such boxes, each cut back to a prefix that ends on a
 * word's last lane unless it ends the pixel's values. The code generator cuts its dynamic
 * blocks so (backend/emit_sockrun.c); whether an INPUT's edge can be placed so in its map's
 * own layout is also what decides that the map is staged in int32 words instead (layout.h,
 * layout_staged), which the mapper counts: one test, asked by both.
 */
#ifndef TASKIR_SOCKBOX_H
#define TASKIR_SOCKBOX_H

#include "taskir/graph.h"
#include "taskir/uses.h"

#include <stdbool.h>
#include <stdint.h>

/* At most this many dynamic blocks a copy is cut into. */
enum { SOCKBOX_MAX_PIECES = 1 << 16 };

/* A piece of a pixel's lanes: the socket box at b of extents n (y, x, f), laid out from a
 * word's first lane in order fxy ([f][y][x], F_X_Y) or not ([y][x][f], X_Y_F). */
typedef struct SockPiece {
    int64_t b[3], n[3];
    bool fxy;
    int64_t at, lanes; /* its first lane in the pixel, its lanes */
} SockPiece;

/* Whether socket block io has an r dim besides f (its dynamic blocks are boxes of y x (f r)). */
bool sockbox_fr(const Block *io);
/* The socket's extents y, x, f: with an r dim besides f, f * r (the same C order). */
void sockbox_dims(const Block *io, int64_t s[3]);
/* The pieces of a pixel's lanes (sock[0 .. pitch): the flat socket value each holds, -1
 * none) into *out (room for pitch), *np of them, per lanes a word. For an input (writing)
 * the lanes holding values must be a run from lane 0 (a dynamic block writes whole words,
 * and lanes it does not write would keep what was there); an output (reading) reads any
 * lanes. false when there are no such pieces. */
bool sockbox_pixel(const int64_t *sock, int64_t pitch, const int64_t s[3], int per,
                   bool reading, SockPiece *out, int64_t *np);
/* Whether the dynamic blocks of INPUT edge ed place its values in 8-bit storage block s laid
 * out in its own pitch of unit lanes (4 a word), as one copy of all of s, in at most
 * SOCKBOX_MAX_PIECES blocks. An edge whose steps or ends the element map refuses counts as
 * placed (the code generator refuses it on its own). */
bool sockbox_edge_fits(const Graph *g, const GraphUses *u, const Edge *ed, uint32_t s, int unit);

#endif
