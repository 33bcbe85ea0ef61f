/* lanes.h: which edges move values between pixels or between the lanes of a pixel, so that
 * no primitive writes their result straight and the code generator's router moves the bytes
 * (docs/backend.md "Rearrangements", "Bytes between lanes"): one fact, which the mapper's
 * schedule (mapper/schedule.c: a reader on the writer's core runs after that router) and
 * the code generator (backend/emit_plan.c, emit_lanes.c) both ask here.
 */
#ifndef TASKIR_LANES_H
#define TASKIR_LANES_H

#include "taskir/graph.h"
#include "taskir/uses.h"

#include <stdbool.h>
#include <stdint.h>

/* Whether edge ed, from a compute block into a storage block whose readers are not all
 * CVMs or OUTPUTs (which may read it as a view of the writer's map, backend/emit_rearr.c),
 * has steps that change the C order of its values (ra_edge_keeps_order, taskir/rearrange.h), or its pixels' count or channels: the
 * router then moves its bytes on the writer's core (a self send), so a reader there runs
 * after the router of the writer's phase. */
bool lanes_moved(const Graph *g, const GraphUses *u, const Edge *ed);

/* Whether storage block s may be held one value a word (docs/backend.md "Rearrangements",
 * "Rearrangements"): an 8-bit SI without data that one INPUT writes, by edges of which one
 * at least has steps, and that only OUTPUTs read, when no view of the socket held as it is
 * fits in its own layout (one value a word, the socket takes more bytes than the map's own
 * layout, or the one edge reads a box of it: a view is then the code generator's choice,
 * backend/emit_rearr.c, counted as the map's own bytes), and the dynamic blocks of one of
 * its edges cannot place the socket in its own layout (sockbox_edge_fits). The code generator
 * holds it so, unpadded in INT_32 words, when the INPUT's dynamic blocks cannot place the
 * socket in its own layout (a value in several lanes, a lane that is no word's first) and
 * no view of the socket holds it; the mapper counts the larger of the two layouts
 * (bbox_storage_bytes, taskir/blockbox.c). */
bool lanes_wide_input(const Graph *g, const GraphUses *u, uint32_t s);
/* The bytes of storage block s held one value a word (lanes_wide_input): its values times
 * 4; 0 when it is not, -1 on overflow. */
int64_t lanes_wide_bytes(const Graph *g, const GraphUses *u, uint32_t s);

/* Whether edge ed's bytes go as runs of bytes (1-byte packets) from a compute block into a
 * storage block (backend/emit_route.c, emit_lanes.c): lanes_moved, or channels that do not
 * start on an 8-byte unit (2 int32, 8 int8 channels) of the writer's or the storage's
 * pixels, or that end off one short of the storage's last channel (3 channels of a CADD's
 * int32 result into a map of 6). */
bool lanes_bytes(const Graph *g, const GraphUses *u, const Edge *ed);

/* Whether edge ed, from a compute block into a storage block without steps, goes as runs
 * of pixels the router cannot join into few headers: some of the storage's channels, each
 * pixel's fewer bytes than the writer's pixel holds (a run and a gap a pixel: an 8-channel
 * half of a concatenation from 16-byte pixels), or all of them from a pixel of more
 * channels when the writer's map sent in slices of that many channels takes more runs than
 * one header table holds (test_diff_ops/cvm_precision_case_0__p_24_: a CLUT's 86 pixels of
 * 93 int8 channels in slices of 32 to three cores, 258 runs; fewer go in one phase as they
 * always have, their Mappings unchanged), or values of the writer's result that
 * another of its edges into that block takes too (an upsampling cut into an edge a pixel:
 * each source pixel into four; the router sends its area's words once a phase). The code
 * generator sends what its header table does not hold, and a run overlapping the one
 * before, in the phases after (backend/emit_route_spill.c), which lanes_phases counts as it
 * does byte moves. */
bool lanes_pixel_runs(const Graph *g, const GraphUses *u, const Edge *ed);

/* The router's headers (backend/emit_route.c): a MULTI_USE header sends runs of `run` units
 * that follow each other in the sender's memory and land `stride` units apart (run ==
 * stride: one contiguous run of `units`). Whether run [src, src + units) landing at dst
 * continues header h (the same receiver), and if so h takes it: it follows h's source; it
 * lands right after h's one run, or is as long as h's runs and lands one stride after the
 * last; the header stays within 4096 packets, runs of 128 packets at most and gaps of fewer
 * than 4096 packets (per: units a packet). */
typedef struct LanesHead {
    int64_t src, units, dst, run, stride;
} LanesHead;
bool lanes_head_join(LanesHead *h, int64_t src, int64_t units, int64_t dst, int64_t per);

/* The headers a P09 holds (the header table, 1 KiB of two-word headers) and the packets a
 * header or a disabled header skipping a gap carries at most. */
enum { LANES_HEADS = 128, LANES_HEAD_PACKETS = 4096 };

/* The router phases the byte moves into edge ed's storage take (lanes_bytes: its edges that
 * go as bytes, and lanes_pixel_runs: runs of pixels with gaps or sent to several places, one
 * after another as if one core sent them all; backend/emit_lanes.c,
 * emit_route_spill.c): their values (a lanes move) or pixels' channels (off the units) in
 * 1-byte packets from the writer's map (its pitch) to the storage's (its pitch), in the
 * order of the writer's memory, joined into headers as lanes_head_join does; a phase sends those whose
 * first byte lands within 4 KiB of the first byte landing in it (a header's 12-bit
 * destination_addr from the raised receive base) while LANES_HEADS hold them and the
 * disabled headers skipping the gaps between them and none overlapping the one kept before it
 * (the router sends its area's bytes once a phase: a value that lands in several places goes
 * to one of them a phase), the others wait for the next. 1 when one
 * phase holds them or when they cannot be counted (the code generator refuses what does not
 * fit). The mapper schedules the copy's readers after the router of the last of them
 * (mapper/schedule.c). */
int32_t lanes_phases(const Graph *g, const GraphUses *u, const Edge *ed);

/* The headers a phase's part of a transfer cut inside its runs may take beyond its runs' own
 * (a header more at either end, the disabled one skipping the gap before it, one spare). */
enum { LANES_CUT_HEADS = 4 };

/* The headers edge ed's moves take (lanes_bytes, lanes_pixel_runs; ed's alone, as
 * lanes_phases joins them, landing at a pitch of whole 16-byte rows as a part of a copy
 * arriving in parts does, backend/emit_spread.c; the disabled headers skipping the gaps
 * between them included); 0 when ed is no such edge or they cannot be counted. */
int64_t lanes_heads(const Graph *g, const GraphUses *u, const Edge *ed);

/* How much of a transfer of `total` (bytes, pixels: any unit spread evenly over its runs)
 * whose moves take `heads` headers (lanes_heads) one phase's part may take when it arrives
 * in parts, one part a phase, which the code generator cannot spill into later phases
 * (backend/emit_spread.c): its share of the LANES_HEADS - LANES_CUT_HEADS headers a part may
 * take, at least 1; 0 (no cap) when all its headers fit that many
 * (test_diff_chain/yolo_head: head_rs's 14 of 18 int32 channels a pixel, a 56-byte run and
 * a gap: 2 headers a pixel, 62 pixels a phase). */
int64_t lanes_part_cap(int64_t heads, int64_t total);

#endif
