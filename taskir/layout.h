/* layout.h: how a feature map lies in a core's memory: the one table of layout facts that
 * the mapper's memory and receive accounting (chip_cost.c and blockbox.c, which
 * mapper/problem.c and verify_map_chip.c read) and the code generator (backend/emit_plan.c,
 * backend/emit_layout.c) share, so that the mapper never accepts a plan whose memory the code
 * generator then cannot place (docs/backend.md "Layouts", docs/chip.md "Memory").
 *
 * A map is stored pixel by pixel, [y][x][c], the channels of a pixel rounded up to a
 * multiple of its pitch unit: the largest unit any primitive that writes or reads it takes
 * (docs/backend.md, the executor's layouts):
 *
 *   use            primitives                      bytes  8-bit  ternary  int32
 *   LAYOUT_SOMA    P05 P25 P06 P26 P07 P08           16     16      64       4
 *   LAYOUT_ROW16   P41 and P04 inputs                16     16      64       4
 *   LAYOUT_GROUP   P02 P03 P43 P83, in and out       32     32     128       8
 *   LAYOUT_AXON    P41 P04 P81 outputs (int32)      128    128     512      32
 *
 * A P02 / P03 / P43 / P83 writes the pitch it reads (the channels of its input's pixels), so
 * the map it writes takes its input's unit as well; a P07 (CLUT) writes each row as long as
 * the row it reads (its channels in its input's pitch), padded to 4 elements (input and
 * table int32) or 16, so the map it writes takes that row (an int32 table read from a P41's
 * int32 map writes 32 channels a pixel). A P05 / P25 writes at most the channels it reads,
 * in 16-byte rows, so the map it reads takes a pitch above the pitch of each map it writes
 * less one row's elements (int32 in, int8 out in 32-byte groups: 32 channels a pixel in). A CADD that adds one box of one map to
 * itself n times (the mapper's x + x) reads an area of its own that an inserted P06 fills
 * with the box n times, in the group unit (a P06 re-pitches as it copies).
 */
#ifndef TASKIR_LAYOUT_H
#define TASKIR_LAYOUT_H

#include "taskir/graph.h"
#include "taskir/uses.h"

#include <stdbool.h>
#include <stdint.h>

enum {
    LAYOUT_SOMA = 1u,
    LAYOUT_ROW16 = 2u,
    LAYOUT_GROUP = 4u,
    LAYOUT_AXON = 8u,
};

/* The uses (LAYOUT_* bits) of the primitive of block type t on the maps it reads (input) or
 * writes; 0 for a type that is no primitive (storage, sockets) or reads no pitched map (P81's
 * channel-major input). */
unsigned layout_use_of(BlockType t, bool input);
/* The pitch unit (channels a pixel is rounded up to) of precision p for the uses (LAYOUT_SOMA
 * when none); 0 when the chip has no layout for p (INT_16, INT_9, ...). */
int layout_unit(PrecisionId p, unsigned uses);
/* Keeps the answers of the pitch walk below (layout_storage_unit, layout_output_unit,
 * layout_repeat_scales and what asks them) in u between questions, until
 * graph_uses_finish: for a caller asking many while the blocks and edges u knows, their
 * attributes and interfaces, keep still (blocks and edges added after u was built are not
 * seen anyway: split_fit's rounds). Each question walks the maps around its block to a
 * depth; asked anew for every block, a map written by 500 CLUT pieces took minutes. false
 * when out of memory (the answers are then worked out anew each time, the same). */
bool layout_memo_begin(GraphUses *u);
/* The pitch unit of the storage block at position pos: what every compute block writing or
 * reading it takes (a P02 / P03 / P43 / P83 writer: also the pitch it reads; a P07 writer:
 * its rows), and for a map an INPUT writes a pitch its dynamic blocks' alignments give (int32
 * pixels of 1..3 channels: 8, not 4); 0 when its precision has no layout. */
int layout_storage_unit(const Graph *g, const GraphUses *u, uint32_t pos);
/* Whether storage block pos is an int32 map that only OUTPUTs read (no compute block),
 * gathered from pieces that two or more P02 / P03 / P43 / P83 (and nothing else) write,
 * each carrying rows wider than a 32-byte group (an 8-bit input's pitch: 32 int32 words a
 * pixel of 2 channels): it takes the Soma's 16-byte rows (4 int32 channels), not the rows
 * its writers carry, and each writer keeps its own rows in its buffer, re-pitched by a P06
 * into a send area of the map's pitch that its router sends from, to another core or to its
 * own (backend/emit_sendbuf.c, emit_plan.c; layout_send_bytes counts the area). */
bool layout_soma_rows(const Graph *g, const GraphUses *u, uint32_t pos);
/* The pitch compute block pos writes: P41 / P04 / P81 their int32 groups, P02 / P03 / P43 /
 * P83 the pitch they read, P07 its rows, a Soma primitive its 16-byte rows in precision p. */
int layout_output_unit(const Graph *g, const GraphUses *u, uint32_t pos, PrecisionId p);
/* The storage block a CADD at pos adds to itself (one box of it, every input), its position
 * into *src and the times n; 0 when pos is no such CADD. */
uint32_t layout_repeats(const Graph *g, const GraphUses *u, uint32_t pos, long *src);
/* Whether the CADD at pos that adds one box to itself n times (layout_repeats) runs as P83
 * scaling the box by n where it lies (constant_a n: n * x, which the chip computes exactly
 * where the graph's sum fits in int32, as P02's sum of the box repeated), rather than as
 * P02 reading the box repeated in an area of its own: when the CADD has no stride or padding,
 * the map is INT_8, UINT_8 or
 * INT_32 (P83 reads no ternary) and its pitch is whole 32-byte groups (P83 reads them). The
 * CADD then reads and writes the map's pitch, and needs no P06 and no area of its own. */
bool layout_repeat_scales(const Graph *g, const GraphUses *u, uint32_t pos);
/* Bytes of an ny x nx map of nc channels of precision p with pitch unit unit (-1 on overflow
 * or a precision without a layout). */
int64_t layout_map_bytes(PrecisionId p, int64_t ny, int64_t nx, int64_t nc, int unit);
/* Bytes of the area a CADD at pos that adds one box to itself reads (the box n times in the
 * group unit); 0 for any other block and for one that scales the box (layout_repeat_scales),
 * -1 on overflow. */
int64_t layout_repeat_bytes(const Graph *g, const GraphUses *u, uint32_t pos);
/* Bytes of the send areas of compute block pos (backend/emit_sendbuf.c): its output
 * buffer's pixels in the precision and pitch of each storage block it writes in another
 * precision than the buffer's (an Axon's int32 into an int8 map), one area a precision;
 * 0 when none, -1 on overflow. */
int64_t layout_send_bytes(const Graph *g, const GraphUses *u, uint32_t pos);

/* P81 (CC2D) reads its input's padding from memory: each plane's rows hold pad_left zero
 * columns, the row's values, pad_right zeros, padded to 16 bytes. What writes a row (a
 * dynamic block, a P06) starts at a word's first byte, so the stored left padding is a whole
 * number of words: pad_left + t * d columns, the kernel widened by t leading columns of zero
 * weights at the dilation d it runs at (the same products, in the same order, the same
 * output columns). d is dilate_x when some t < 4 makes it; else (an odd pad_left with an
 * even dilation) 1: the kernel's taps spread out with dilate_x - 1 zero columns between
 * them (layout_p81_dilation). Returns the stored left padding, t into *lead; -1 for a
 * negative pad. */
int32_t layout_p81_left(int32_t pad_left, int32_t dilate_x, int32_t *lead);
/* The dilation along x P81 runs a CC2D of pad_left and dilate_x at (layout_p81_left):
 * dilate_x, or 1 when its kernel is spread out. */
int32_t layout_p81_dilation(int32_t pad_left, int32_t dilate_x);

/* The entries of the table P07 reads for a CLUT of LUT_DW dw. The graph's table has n =
 * 2^dw entries, an index i in -n .. n - 1 reading entry i, or i + n when negative; P07 reads
 * N = 2^w entries, w one of 4, 8, 12, 16, an index clipped to -N/2 .. N/2 - 1 and a negative
 * one reading entry N + i. N = n when dw is one of those (the mapper's exactness analysis
 * keeps the index in P07's range), else the next above: every index of the graph's range
 * then lies in P07's, and an image of the table at both ends of the N entries
 * (emit_image_lut) reads what the graph does. 0 when there is none (dw below 1 or above 16). */
int64_t layout_lut_entries(int32_t dw);

/* Whether compute block pos is an Axon primitive (P41, P04, P81, P02, P03, P43, P83: int32
 * words out) that writes an 8-bit map (INT_8, UINT_8), or an int32 map of a larger pitch
 * than it writes (a CADD adding a box to itself, which reads and writes the group unit, into
 * a map a P05 reads with 32 channels a pixel): the code generator has it write its result as
 * int32 rows into an area of its own, which an inserted P06 in a Soma slot of its phase
 * (Soma1, else Soma2) narrows or re-pitches into the map (docs/backend.md "Inserted
 * primitives"). */
bool layout_narrows(const Graph *g, const GraphUses *u, uint32_t pos);
/* Bytes of the int32 area a block that narrows writes (its result in the pitch it writes,
 * layout_output_unit); 0 for any other block, -1 on overflow. */
int64_t layout_narrow_bytes(const Graph *g, const GraphUses *u, uint32_t pos);
/* Whether storage block s is staged (docs/backend.md "Inserted primitives"): an 8-bit map
 * that only INPUTs write, one of them into channels from a lane that is no word's first
 * (a concatenation after 47 channels, one value broadcast along the channels) through an
 * edge keeping the C order (ra_edge_keeps_order), or through steps whose values its dynamic
 * blocks cannot place in the map's own layout (sockbox_edge_fits, taskir/sockbox.h: a value
 * in several lanes, a lane that is no word's first), and that a compute block reads (P81's
 * planes excepted). A dynamic block writes
 * from a word's first lane only, so the code generator writes the inputs one value a word
 * into an int32 area of the map's pixels (its channels rounded up to 4), which an inserted
 * P06 narrows into the map in a Soma slot before its first reader; the mapper keeps that
 * slot free (mapper/schedule.c) and counts the area (layout_stage_bytes). */
bool layout_staged(const Graph *g, const GraphUses *u, uint32_t s);
/* Whether edge ed from an INPUT into 8-bit storage block s (no static data) is one whose
 * dynamic blocks cannot place its values in the map's own layout: keeping the C order into
 * channels from a lane that is no word's first, or in another order that
 * sockbox_edge_fits refuses (a value in several lanes, lanes that are no boxes of the socket
 * from a word's first). What layout_staged asks of every INPUT edge, and what the mapper's
 * input store (mapper/in_store.c) asks where a compute block writes s too. */
bool layout_input_unplaced(const Graph *g, const GraphUses *u, const Edge *ed, uint32_t s);
/* Bytes of the int32 areas of the staged maps compute block pos reads (layout_staged); -1
 * on overflow. */
int64_t layout_stage_bytes(const Graph *g, const GraphUses *u, uint32_t pos);
/* Whether the CADD at pos gathers n >= 2 different inputs (not one box added to itself,
 * layout_repeats) into one area that P02 reads back to back, [n][y][x][c] (backend/
 * emit_gather.c: a P06 an input copies it into its part), and the precision of that area
 * into *out: the inputs', or INT_32 when they differ (a P06 widens 8-bit values as they
 * are); false for any other block, and for inputs the code generator has no gather for (not
 * storage, ternary, a precision without a layout: it refuses them). */
bool layout_gather_prec(const Graph *g, const GraphUses *u, uint32_t pos, PrecisionId *out);
/* Bytes of the area a CADD at pos gathers its n different inputs into (layout_gather_prec):
 * n times its input box (input cluster 0's pixels and channels) in that precision and in the
 * pitch the CADD reads and writes (layout_output_unit); 0 for any other block, -1 on
 * overflow. The code generator requests this many bytes (emit_gather.c). */
int64_t layout_gather_bytes(const Graph *g, const GraphUses *u, uint32_t pos);
/* How many inputs of the CADD at pos may lie in their part of its gathered area (backend/
 * emit_early.c, gathering in place): an input storage block that this input cluster alone
 * reads, in the area's precision and pixels as long (its channels rounded up to its own
 * pitch as many as to the area's), through an edge without steps. The code
 * generator places it there when it is not received (model inputs, static maps, a writer on
 * the CADD's core): its part is then its storage, counted as such, and the working area
 * counts the other parts only (layout_work_bytes). Where the Mapping puts its writer on
 * another core, the copy is received and the part comes on top (an r cut's partial sums).
 * 0 for any other block. */
uint32_t layout_gather_in_place(const Graph *g, const GraphUses *u, uint32_t pos);
/* Whether input i of the CADD at pos is one of those (layout_gather_in_place): it may lie in
 * its part. The code generator lays such an input there also when its writer is on the
 * CADD's core and no Soma slot is left for the P06 copying it (backend/emit_gather.c; the
 * writer in the Soma2 just before the CADD's Axon), and the mapper keeps none for it then. */
bool layout_gather_lies(const Graph *g, const GraphUses *u, uint32_t pos, uint32_t i);
/* Bytes the gathered area of the CADD at pos needs beyond its inputs' storage: its parts
 * but those its inputs may lie in (layout_gather_in_place); 0 for any other block, -1 on
 * overflow. In layout_work_bytes: the parts of inputs in another precision or pitch (an int8
 * input widened into an int32 area) come on top of their storage wherever they lie. */
int64_t layout_gather_extra_bytes(const Graph *g, const GraphUses *u, uint32_t pos);
/* Bytes of the working areas of compute block pos in its phase, beside its output: the
 * repeated box of a CADD of one box (layout_repeat_bytes), the int32 area of a block that
 * narrows (layout_narrow_bytes) or its send areas (layout_send_bytes), the larger, the
 * int32 areas of the staged maps it reads (layout_stage_bytes) and the parts of a CADD's
 * gathered area its inputs cannot lie in (layout_gather_extra_bytes); -1 on overflow. The split's
 * fit mode (passes/split_need.c), the mapper (mapper/problem.c) and the verifier's
 * map.mem.core (verify_map_chip.c) count it. */
int64_t layout_work_bytes(const Graph *g, const GraphUses *u, uint32_t pos);

#endif
