/* emit_internal.h: the code generator's working state, shared by its files (private to
 * backend/emit*.c; the interface is emit.h).
 *
 *   emit.c        the driver: cores and phases from the Mapping, the Config, freeing
 *   emit_plan.c   storage copies per core, their boxes and layouts, output buffers, the
 *                 memory plan (alloc.h) and the static data images
 *   emit_prim.c   the primitive of every compute block (Axon / Soma slots)
 *   emit_route.c  the router: P09 send and receive for every transfer between cores
 *   emit_move.c   the inserted P06 that moves a received copy out of the receive area
 *   emit_spread.c a received copy whose transfers the Mapping spreads over several phases:
 *                 its rows part by part, each moved out of the receive area
 *   emit_route_chain.c  one run sent to several cores in a phase: a relaying chain
 *   emit_io.c     the dynamic blocks and sockets of the model's inputs and outputs
 *   emit_p81.c    P81's channel-major input (planes)
 *   emit_sockrun.c a socket whose values lie in memory in another order (a block a pixel)
 *   emit_gather.c the inputs of a CADD of several different inputs, copied back to back (P06)
 *   emit_tee.c    a result into a second storage on its core: a shared area, or a P06
 *   emit_rearr.c  rearrangements realised without a move (a flatten into CVMs: the weights)
 *   emit_sendbuf.c a result sent to copies of another precision: a P06 into a send area
 *   emit_p08.c    a CLIF's P08: its neurons' state area, its input and output layouts
 *   emit_narrow.c an Axon's int32 result narrowed into an 8-bit map on its core (a P06)
 *   emit_slot.c   the Soma slots: what takes each (a compute block or an inserted P06)
 *   emit_lanes.c  a rearrangement between lanes: the router's 1-byte packets
 *   emit_merge.c  a copy gathered on its core from column slices, over the receive area:
 *                 the slices merged into the data banks (P06 with ciso)
 *   emit_merge_wrap.c a copy of model input column slices around one received slice, over
 *                 the receive area: the inputs written around it, one P06 with ciso
 *   emit_merge_tail.c a merge's local slice in its copy's last words, where the memory plan
 *                 does not fit otherwise
 *   emit_early.c  a received copy only a gather reads, gathered from the receive area as
 *                 soon as it lands
 *   emit_chmerge.c a copy from channel slices arriving in several phases, over the receive
 *                 area: each phase's slices joined into the data banks (P06 with ciso)
 *   emit_packed.c a copy the router assembles byte by byte for OUTPUTs only, in the least
 *                 pitch a dynamic block reads
 *   emit_pin.c    the receive areas a relaying chain's runs land in, at one address on
 *                 every core of the chain (the emitter's passes, emit.c)
 */
#ifndef TASKIR_BACKEND_EMIT_INTERNAL_H
#define TASKIR_BACKEND_EMIT_INTERNAL_H

#include "backend/alloc.h"
#include "backend/emit.h"
#include "backend/emit_layout.h"
#include "taskir/uses.h"

#include <stdint.h>
#include <stdlib.h>

#define EMIT_NONE UINT32_MAX

/* A box of a feature map in canonical coordinates: y, x, channel (f or r, the storage's
 * two views) or of a static tensor: f, r, ky, kx. */
typedef struct EBox {
    int64_t lo[4], n[4];
} EBox;

/* One header's worth of a transfer a core sends in a phase: words [src, src + words) to core
 * dst_core, in runs of run words whose first words land stride words apart from dst_addr
 * (run == stride: one contiguous run). */
typedef struct ESend {
    uint32_t dst_core;
    int64_t src, words, dst_addr;   /* words; bytes when single */
    int64_t run, stride;
    int32_t block;          /* the storage block received, for the block ids */
    bool relay;             /* the first core of a relaying chain (emit_route_chain.c) */
    bool single;            /* a run of bytes, sent as 1-byte packets (SINGLE_NEURON): the
                               core's sends of that phase all go so (emit_route.c) */
    bool spilled;           /* moved here from the phase before (emit_route_spill.c) */
} ESend;

/* What takes a Soma slot: a compute block, or one of the inserted P06s (docs/backend.md
 * "Inserted primitives"), each kind planned by its own file. */
typedef enum ESlotKind {
    SLOT_FREE = 0,
    SLOT_BLOCK,                     /* the compute block the Mapping places there */
    SLOT_MOVE,                      /* a received copy moved out of the receive area */
    SLOT_PART,                      /* a spread copy's part moved (emit_spread.c) */
    SLOT_DUP,                       /* a box repeated for a CADD adding it to itself */
    SLOT_NARROW,                    /* an Axon's int32 result narrowed (emit_narrow.c) */
    SLOT_TEE,                       /* a result re-pitched into a second storage
                                       (emit_tee.c) */
    SLOT_GATHER,                    /* a CADD's input gathered (emit_gather.c) */
    SLOT_SENDBUF,                   /* a result rewritten into a send area (emit_sendbuf.c) */
    SLOT_MERGE,                     /* column slices merged into a copy (emit_merge.c) */
    SLOT_WIDEN,                     /* a view widened for its OUTPUTs (emit_widen.c) */
    SLOT_STAGE,                     /* model inputs narrowed into a map (emit_stage.c) */
} ESlotKind;

/* One Soma slot of a core's phase: what takes it (kind) and the block it serves: the
 * compute block (SLOT_BLOCK), the storage block of the copy moved (SLOT_MOVE, SLOT_PART),
 * the CADD (SLOT_DUP, SLOT_GATHER), the writer (SLOT_NARROW, SLOT_TEE, SLOT_SENDBUF), the view
 * widened (SLOT_WIDEN), the map staged (SLOT_STAGE). */
typedef struct ESlotUse {
    ESlotKind kind;
    uint32_t block;                 /* block position */
} ESlotUse;

typedef struct EPhase {
    ESlotUse soma[2];               /* Soma1, Soma2: the one table of who takes the Soma
                                       slots (emit_slot.c) */
    ESend *sends;
    size_t n_sends, cap_sends;
    int32_t recv_marks;             /* transfers (end marks) arriving */
    int64_t recv_lo;                /* the first word received into (emit_route_chain.c) */
    int32_t recv_block;             /* a block received (for receive_block) */
    int64_t recv_base;              /* word of the receive area's unit 0 (0: 0x8400) */
    uint32_t chain_next;            /* the core the relaying chains it is in forward to
                                       (EMIT_NONE: none), when chained */
    bool chained;
    bool spill_chained;             /* chained by runs spilled here whole from the phase
                                       before (emit_spill_chain.c) */
    int64_t relayed;                /* packets it forwards (CXY 1) */
    ESend *chain_rest;              /* the sends of the relaying chains it starts in the
                                       phase but their first (the one in sends, relay): to
                                       their other cores, in chain order (emit_route_chain.c),
                                       moved with the run when it spills */
    size_t n_chain_rest, cap_chain_rest;
} EPhase;

/* A later part of a request of a core (emit_recvpart.c): from word off of request req on (to
 * the next part's off, or the area's end), nothing reads or writes its words before the
 * router of phase first; the part at off 0 is the area's first. */
typedef struct EReqPart {
    uint32_t req;
    int64_t off;
    int32_t first;
} EReqPart;

typedef struct ECore {
    MapXY chip, core;
    int32_t step_group, phase_group;
    int32_t n_phases;
    char name[80];                  /* "chip (0,0) core (1,2)" */
    EPhase *ph;
    Taskir__Asm__StaticPrimList **lists; /* one per phase, NULL until used */
    AllocReq *reqs;
    int32_t *addr;
    size_t n_reqs, cap_reqs;
    EReqPart *rparts;               /* requests planned in parts, by request and word
                                       (emit_recvpart.c; none before that try) */
    size_t n_rparts, cap_rparts;
    int32_t *at;                    /* per request: its fixed address, 0 for none (emit_pin.c);
                                       NULL: none fixed */
} ECore;

/* A storage block's copy on one core. */
typedef struct ECopy {
    uint32_t block;                 /* position in g->blocks */
    uint32_t core;
    EBox box;
    EmitFeat feat;                  /* feature maps (not static images) */
    bool is_static, received;
    bool planes;                    /* P81's channel-major input (emit_p81.c) */
    bool view;                      /* holds its writer's map as the writer lays it out (a
                                       vector only CVMs read, emit_rearr.c) */
    uint32_t req;                   /* its area in the core's requests (EMIT_NONE: an alias) */
    uint32_t alias_of;              /* the compute block whose output buffer holds it (the
                                       rows it writes there), EMIT_NONE when it has its own */
    int64_t alias_off;              /* its first word's offset in that buffer */
    int64_t req_off;                /* its first word's offset in its request: a part of the
                                       area a CADD gathers its inputs into (emit_early.c) */
    int32_t first, last;            /* its lifetime */
    uint32_t land;                  /* a received copy that lives past the phase it arrives
                                       in: its landing area in the receive area (the router
                                       writes there; an inserted P06 in Soma slot
                                       move_slot of phase move_phase moves it to req:
                                       Soma2 of its last arrival phase, else a later one
                                       emit_late_move finds), else EMIT_NONE */
    int32_t move_phase, move_slot;
    bool movable;                   /* it may be moved so, landing over [land_first,
                                       move_phase], when that Soma2 is free (emit_plan.c) */
    int32_t land_first;
    int64_t land_pitch;             /* words a pixel in its landing area: a relaying chain's
                                       pitch (emit_pin.c), the P06 re-pitching; 0: its own */
    uint32_t dup_of;                /* another copy on its core holding its values (index in
                                       copies), whose area it shares: no transfer into it
                                       (emit_dup.c); EMIT_NONE otherwise */
    bool spread;                    /* a transfer into it arrives in several phases: its
                                       parts land phase by phase (EPart, emit_spread.c) and
                                       req is its area in the data banks */
    int64_t unit;                   /* a spread copy of one pixel cut into runs of its words:
                                       the words a part's unit (EPart.q0, nq count them;
                                       emit_spreadunit.c); 0: parts of whole pixels */
    uint32_t *image;                /* static: the data image (owned until moved out); P81's
                                       planes with stored padding: their zeros (emit_p81.c) */
    PrecisionId image_prec;         /* the precision the image holds: the block's, or a P07
                                       table's 8-bit output's (emit_plan.c) */
    size_t n_image;
} ECopy;

/* A compute block's output area when it writes no storage on its own core. */
typedef struct EOut {
    uint32_t core;
    EmitFeat feat;
    EBox box;                       /* its output cluster, canonical */
    uint32_t req;
    bool used;
    bool gather;                    /* its core's copy of what it writes is not whole rows of
                                       it: the router moves the buffer there (a self send) */
    bool aliased;                   /* a copy on its core lives inside its buffer */
    bool over;                      /* its buffer takes the words of the copy it reads
                                       (req is the copy's; emit_soma_over.c) */
    int64_t off;                    /* the first word of its map in area req: a copy on its
                                       core holding its rows after another writer's
                                       (emit_sendbuf_rows_source), else 0 */
} EOut;

/* A CADD that adds one box of one storage block n times (the mapper's x + x): P02 reads its
 * n inputs back to back, so an inserted P06 repeats the box n times into an area of its
 * own, in a free Soma slot before the CADD's phase (emit_plan.c, emit_prim.c), re-pitched to
 * the group unit P02 reads (taskir/layout.h). */
typedef struct EDup {
    uint32_t cadd;                  /* the CADD's block position */
    uint32_t copy;                  /* the copy it reads (index in copies) */
    EBox box;                       /* the box read, storage coordinates */
    EmitFeat feat;                  /* one repetition of the box in the area's layout */
    int32_t n;                      /* times */
    int32_t phase, slot;            /* the P06's phase and slot (PIIndex SOMA1 / SOMA2) */
    uint32_t req;                   /* the repeated area */
} EDup;

/* A result written into a second storage block stored on its writer's core: its primitive
 * writes one area (the first copy's), which the second copy shares when it holds the same
 * layout, else an inserted P06 re-pitches into it (emit_tee.c). */
typedef struct ETee {
    uint32_t writer;                /* the compute block's position */
    uint32_t from, to;              /* the copies (indices in copies) */
    bool move;                      /* a P06 re-pitches from into to (other pitches) */
    int64_t off, words;             /* where in to's area it writes (a box of to's pixels
                                       that other blocks write around: a part) */
    int32_t phase, slot;            /* that P06's phase and slot (PIIndex SOMA1 / SOMA2) */
    int32_t failed;                 /* 0, or why there is neither: TEE_LAYOUT (other
                                       layouts), TEE_REMOTE (read on another core),
                                       TEE_SLOT (no free Soma slot for the P06) */
} ETee;
enum { TEE_LAYOUT = 1, TEE_REMOTE = 2, TEE_SLOT = 3 };

/* One input of a CADD of several different inputs: P02 reads its n inputs back to back, so
 * an inserted P06 copies input i's box into part i of an area of the CADD's own, in a free
 * Soma slot before the CADD's phase (emit_gather.c). */
typedef struct EGather {
    uint32_t cadd;                  /* the CADD's block position */
    int32_t i, n;                   /* this input, of n */
    uint32_t copy;                  /* the copy it reads (index in copies) */
    EBox box;                       /* the box read, storage coordinates */
    int32_t phase, slot;            /* the P06's phase and slot (PIIndex SOMA1 / SOMA2) */
    uint32_t req;                   /* the gathered area (all n inputs) */
    EmitFeat feat;                  /* one part of it: the box in the area's precision (the
                                       inputs', or INT_32 when they differ) and pitch (the
                                       one the CADD reads, layout_output_unit) */
} EGather;

/* A send area: writer's output buffer rewritten by an inserted P06 in the precision (and
 * pitch) of the copies it sends to, before the router (emit_sendbuf.c). */
typedef struct ESendBuf {
    uint32_t writer;                /* the compute block's position */
    uint32_t store;                 /* a storage block it sends to (for the pitch, messages) */
    EmitFeat feat;                  /* the area: the writer's output box in that precision */
    uint32_t req;                   /* its area on the writer's core */
    int32_t phase, slot;            /* the P06's phase and slot (PIIndex SOMA1 / SOMA2) */
    int32_t first, last;            /* the phases that send from it, in the order of time
                                       from the writer on: a phase whose router comes before
                                       the writer's slot counts as the next step's (the
                                       phase + the core's phases, send_time) */
    int32_t reps;                   /* the buffer's pixels it holds, one copy after the other
                                       (a value its router sends to several places of a copy
                                       on its own core: emit_sendbuf_reps) */
    uint32_t copy;                  /* EMIT_NONE: a rewrite of the writer's buffer; else the
                                       copy (index in copies) on the writer's core it writes
                                       and sends from, which the area holds a second copy of
                                       (emit_senddup.c) */
    bool sliced;                    /* a column slice of the buffer laid out compact, its rows
                                       one after the other, for one edge (emit_sliceout.c) */
    int32_t edge;                   /* sliced: the edge it holds the slice of */
    int32_t send;                   /* sliced: the phase that sends it (as the Mapping gives) */
    EBox slice;                     /* sliced: the edge's box in the writer's coordinates,
                                       or split: the columns of the part holding it */
    bool split;                     /* sliced: one of the two parts a P26 splits the buffer's
                                       rows into holds it (emit_sliceout.c) */
    uint32_t ciso;                  /* split: the area of the right part when this one holds
                                       the left and writes the P26, else EMIT_NONE */
    bool guest;                     /* a second copy of the buffer held as a repeat of
                                       another's area (req, phase and slot that one's, whose
                                       P06 writes it): no P06 of its own (emit_sendbuf.c) */
    int64_t off;                    /* guest: where its repeat begins in the area, words */
    int32_t more;                   /* the repeats its P06 writes for guests, after its reps */
    bool compact;                   /* the buffer's pixels cut to their first packets (the
                                       channels a run a pixel sends), one after the other,
                                       for one phase's sends (emit_sendbuf.c scan_heads) */
} ESendBuf;
/* A copy laid out band by band and slice by slice for the 1 x 1 Soma writer it feeds
 * (emit_bandslice.c): its index, that writer's position, the width of the column slices it
 * is assembled from (0: any boxes of whole pixels, which the writers' routers land in
 * their final order), the width of the slices the writer's result goes out in (win / 2, or
 * the widest of its out-edges), for win 0 the width of the first slice (lead: as wide or
 * narrower, the others then start lead + k out; the last may be narrower too) and the bands
 * (first row, rows), in order. */
enum { BANDSLICE_MAX = 32 };
typedef struct EBandSlice {
    uint32_t copy, writer;
    int64_t win, out, lead;
    int nb;
    int64_t y0[BANDSLICE_MAX], rows[BANDSLICE_MAX];
} EBandSlice;
/* What the spread copies of one core receive in one phase, one move's worth (ECopy.spread,
 * emit_spread.c): one or two runs, run i the pixels [q0[i], q0[i] + nq[i]) of copy copy[i]
 * (in its [y][x] order: (y - box.lo[0]) * box.n[1] + x - box.lo[1]), two runs of one copy
 * apart or of two copies. They arrive in phase `phase` into a landing area of their own in
 * the receive area (land, alive in that phase: the first run, then the second), and a Soma2
 * of that phase, after the router, moves them into their copies' areas: a P06 for one run,
 * a P26 splitting the landing area into the two runs' places for two. A phase may hold a
 * second part on the core (a third copy's runs), moved in Soma1 of the next phase; a copy
 * has one part a phase at most (emit_part_at). */
typedef struct EPart {
    uint32_t core;
    int32_t phase;
    uint32_t copy[2];               /* each run's copy (index in copies) */
    int64_t q0[2], nq[2];           /* the runs, first to last; nq[1] 0: one run */
    uint32_t land;                  /* its request */
    int32_t move_phase, move_slot;  /* its move: Soma2 of its phase, else Soma1 of the next
                                       (before that phase's router lands more) */
    int64_t pitch;                  /* words a pixel in the landing area when it lands in its
                                       relay's pitch (emit_landpitch.c), else 0: the copy's */
} EPart;

/* A copy gathered on its core from the column slices its writers write, too large for the
 * receive area (emit_merge.c): each slice lies compact (a local writer's output buffer, or a
 * remote writer's transfer in a landing area of the receive area), and P06s in free Soma
 * slots merge them row by row into the copy's area in the data banks. */
enum { MERGE_MAX = 4, MERGE_BANDS = 16 };
typedef struct EMergePiece {
    uint32_t writer;                /* the compute block's position */
    int32_t edge;                   /* the id of its edge into the copy's block */
    EBox box;                       /* its columns of the copy (all its rows and channels) */
    EmitFeat feat;                  /* the slice, compact: box.n[0] rows of box.n[1] pixels */
    bool remote;                    /* its writer is on another core (else: its output
                                       buffer holds the slice) */
    int nph;                        /* remote: the phases its transfer lands in, ascending */
    int32_t ph[MERGE_BANDS];
    uint32_t land;                  /* remote, in one phase: its landing area (request) */
    int64_t ready;                  /* when it is in place (emit_slot_when's unit; not for a
                                       slice landing in bands) */
} EMergePiece;
typedef struct EMerge {
    uint32_t copy;                  /* index in copies */
    int n;                          /* slices, left to right */
    EMergePiece piece[MERGE_MAX];
    int32_t phase[MERGE_MAX - 1], slot[MERGE_MAX - 1]; /* merge a joins slice a + 1 to the
                                       columns so far: its Soma slot (PIIndex) */
    uint32_t acc[MERGE_MAX];        /* acc[a]: the area merge a - 1 writes, 0 < a < n - 1
                                       (the last writes the copy) */
    int spread;                     /* the slice the Mapping spreads over phases (n 2), -1 */
    int nb;                         /* its bands: rows [band_row0, + band_rows) landing in
                                       band_land in band_phase, merged in its Soma2; 0 when
                                       no slice is spread (the merges above) */
    int32_t band_phase[MERGE_BANDS];
    int64_t band_row0[MERGE_BANDS], band_rows[MERGE_BANDS];
    uint32_t band_land[MERGE_BANDS];
    bool wrap;                      /* model input slices around one received slice, merged
                                       by one P06 in (phase[0], slot[0]) (emit_merge_wrap.c):
                                       the received slice is piece[wrap_r], the input slices'
                                       rows lie in wrap_area but for row 0's left part */
    int wrap_r;
    uint32_t wrap_area;
} EMerge;

/* A copy assembled on its core from channel slices of whole rows (of a copy of one row: of
 * runs of its columns) that each arrive whole in one phase, over the receive area
 * (emit_chmerge.c): what lands in a phase (step) lands in a landing area of its own, and a
 * P06 in Soma2 of that phase joins it to the channels of its band (the rows, or columns, its
 * slices share) so far, in the band's part of the copy's area, which grows in place from the
 * band's end down to its start. */
enum { CHM_BANDS = 8, CHM_STEPS = 32 };
typedef struct EChStep {
    int32_t phase;
    int band;
    int64_t c0, nc;                 /* the channels landing (storage coordinates) */
    bool before;                    /* they join before the band's channels so far */
    EmitFeat feat;                  /* the landing area: the band's pixels, these channels */
    uint32_t land;                  /* its request */
    int64_t a0, an;                 /* the band's channels after the step */
    EmitFeat acc;                   /* the band's pixels, those channels */
} EChStep;
typedef struct EChMerge {
    uint32_t copy;                  /* index in copies */
    int bd;                         /* the dim its bands cut: 0 rows; 1 columns (a copy of
                                       one row, whose pixels in a run of columns follow each
                                       other as a band's rows do) */
    int nb;                         /* bands, in order along bd: y0 .. y0 + ny */
    int64_t y0[CHM_BANDS], ny[CHM_BANDS];
    int n;                          /* steps, by phase */
    EChStep step[CHM_STEPS];
} EChMerge;

/* A static image of no storage block: the state words of a CLIF's neurons (emit_p08.c),
 * loaded before the run as a StaticBlock "s<block>.<chip x>.<chip y>.<core x>.<core y>". */
typedef struct EState {
    uint32_t block;                 /* the compute block's position */
    uint32_t core;
    uint32_t req;                   /* its area in the core's requests */
    uint32_t *image;                /* owned until moved out (emit_io.c) */
    size_t n;                       /* words */
} EState;

/* A primitive's operand area (emit_prim.c hands it to the files that write a primitive). */
typedef struct EArea {
    int64_t addr, words;
    int32_t block;                  /* the storage block's id (a buffer: the compute block's) */
    EmitFeat feat;
} EArea;

/* An 8-bit view only OUTPUTs read, widened for them by an inserted P06 (emit_widen.c). */
typedef struct EWiden {
    uint32_t copy;                  /* the view's copy (index in copies) */
    EmitFeat feat;                  /* its int32 area: the view's pixels and pitch */
    int32_t phase, slot;            /* the P06's phase and slot (PIIndex SOMA1 / SOMA2) */
    uint32_t req;                   /* the int32 area */
} EWiden;

/* An 8-bit map model inputs write into lanes that are no word's first: written one value a
 * word into an int32 area, which an inserted P06 narrows into the map (emit_stage.c). */
typedef struct EStage {
    uint32_t copy;                  /* the map's copy (index in copies) */
    EmitFeat feat;                  /* the int32 area: the map's pixels, channels padded to 4 */
    int32_t phase, slot;            /* the P06's phase and slot (PIIndex SOMA1 / SOMA2) */
    uint32_t req;                   /* the int32 area */
} EStage;

/* An Axon primitive's result that goes into an 8-bit map on its core: the primitive writes
 * int32 words into an area of its own, and an inserted P06 narrows them into the map
 * (emit_narrow.c). */
typedef struct ENarrow {
    uint32_t writer;                /* the compute block's position */
    uint32_t copy;                  /* the 8-bit copy it writes (index in copies) */
    EBox box;                       /* the box it writes, storage coordinates */
    EmitFeat feat;                  /* the int32 area: the box in the pitch the writer writes */
    int32_t phase, slot;            /* the P06's phase and slot (PIIndex SOMA1 / SOMA2); phase
                                       -1: no free slot (refused with emit.slot) */
    uint32_t req;                   /* the int32 area */
    int64_t lo, hi;                 /* the writer's values (exact.h); outside the map's
                                       precision: refused with emit.prec */
    int32_t last;                   /* the area lives in phases phase..last: past phase while
                                       the router sends from it (emit_narrow_send.c) */
} ENarrow;

/* One core's part of a run a relaying chain carries, which a pass refused (emit_pin.c): the
 * run lands off words into area req of core k. The areas of one run's ties go where the run
 * lands at one address on every core of it. */
typedef struct EPinTie {
    uint32_t run, k, req;
    int64_t off;
} EPinTie;

/* A received copy (storage block position pos on core k) to land in a wider pitch (words a
 * pixel) than its own, a relaying chain's (emit_pin.c). */
typedef struct EPinPitch {
    uint32_t k, pos;
    int64_t pitch;
} EPinPitch;

/* A writer (block position w) whose router sends words of its buffer in one phase to two
 * storage blocks' copies at two row strides: the copies of storage block position s take
 * theirs from a send area holding a second copy of the buffer, or of the copy on its core it
 * sends from (emit_senddup.c). */
typedef struct EPinDup {
    uint32_t w, s;
} EPinDup;

/* A writer (block position w) whose int32 area, which a P06 re-pitches into a map on its
 * core (ENarrow), the router sends storage block position s's copies from: a relaying chain
 * could not carry them beside a copy of another layout (emit_narrow_send.c). */
typedef struct EPinRaw {
    uint32_t w, s;
} EPinRaw;

/* A spread copy (storage block position pos on core k) whose part of phase p a relaying
 * chain refused: the next pass ends it where its writer's runs to other cores begin
 * (emit_spreadcap.c). */
typedef struct EPinCap {
    uint32_t k, pos;
    int32_t p;
} EPinCap;

/* A spread copy (storage block position pos on core k) whose pixels from q on a relaying
 * chain refused in phase p where they landed behind others of its part (the second copy of
 * a part of two, or pixels of another edge before them in one run): the next pass lands them
 * first (emit_partfirst.c). */
typedef struct EPinFirst {
    uint32_t k, pos;
    int32_t p;
    int64_t q;
} EPinFirst;

/* How a kind of pin records adds passes to the emitter's EMIT_PASSES (emit.c), at most its
 * row's `most` (EMIT_PIN_KINDS). */
typedef enum EPinMore {
    EPIN_MORE_NONE,   /* none: the passes that records of it follow count in EMIT_PASSES */
    EPIN_MORE_RECORD, /* one a record */
    EPIN_MORE_PASS,   /* one a pass that recorded some */
    EPIN_MORE_ONCE    /* `most` once any is recorded */
} EPinMore;

/* The kinds of pin records, one row each: the kind, its record's type, how it adds passes
 * and the most it adds. Ties (each run's together: EPins.runs counts the runs), the copies
 * to land in a chain's pitch, the buffers to send twice (a pass each, so that the graphs
 * with none take no longer; a pass records every one it meets, emit_route.c
 * emit_router_prims), the copies to send from their writer's int32 area, the spread parts
 * to cut where other cores' runs begin (a pass each pass that recorded some) and the parts'
 * runs to land first (for them and the runs their new order lets the passes reach). */
#define EMIT_PIN_KINDS(X)                                                                     \
    X(TIE, EPinTie, EPIN_MORE_NONE, 0)                                                        \
    X(PITCH, EPinPitch, EPIN_MORE_NONE, 0)                                                    \
    X(DUP, EPinDup, EPIN_MORE_RECORD, 8)                                                      \
    X(RAW, EPinRaw, EPIN_MORE_NONE, 0)                                                        \
    X(CAP, EPinCap, EPIN_MORE_PASS, 16)                                                       \
    X(FIRST, EPinFirst, EPIN_MORE_ONCE, 16)

typedef enum EPinKind {
#define EMIT_PIN_KIND_(kind, type, more, most) EPIN_##kind,
    EMIT_PIN_KINDS(EMIT_PIN_KIND_)
#undef EMIT_PIN_KIND_
    EPIN_KINDS
} EPinKind;

/* The records of one kind (emit_pins.c): n of them, room for cap; passes: the emitter's
 * passes that appended some. */
typedef struct EPinList {
    void *recs;
    size_t n, cap;
    uint32_t passes;
} EPinList;

/* The records the emitter's passes refused runs with so far (emit.c), a list a kind; runs:
 * the relaying chains' runs the ties group (each run's ties share EPinTie.run). */
typedef struct EPins {
    EPinList of[EPIN_KINDS];
    uint32_t runs;
} EPins;

/* The first n entries of a list of the plan (copies, parts, ...) by core (emit_bycore.c):
 * core k's chained in list order from head[k] to tail[k] (EMIT_NONE: none) through next[]
 * (room for cap); n_cores: the cores when made. */
typedef struct EByCore {
    uint32_t *head, *tail, *next;
    size_t n, cap;
    uint32_t n_cores;
} EByCore;

typedef struct Emit {
    const Mapping *m;
    const Graph *g;
    const Chip *chip;
    GraphUses uses;
    Diag *d;
    struct ExactInfo *exact;        /* the interval analysis of g, made when a primitive's
                                       clip first asks (emit_prim.c), else NULL */
    ECore *cores;
    uint32_t n_cores;
    size_t cap_cores;
    uint32_t *core_slots;           /* the cores by place (emit_cores.c): n_core_slots slots,
                                       a core's index or EMIT_NONE; its first n_slotted cores */
    size_t n_core_slots;
    uint32_t n_slotted;
    uint32_t *core_of;              /* per block position: the core of its first coordinate */
    int32_t *phase_of;              /* per block position: compute blocks' phase */
    int32_t *slot_of;               /* per block position: PIIndex of compute blocks */
    ECopy *copies;
    uint32_t n_copies;
    size_t cap_copies;
    uint32_t *first_copy;           /* per block position: index of its first copy */
    uint32_t *n_copy;               /* per block position: copies */
    EOut *outs;                     /* per block position */
    uint32_t *dict_of_edge;         /* per edge position: its edge dict (EMIT_NONE: none) */
    EDup *dups;
    size_t n_dups, cap_dups;
    ETee *tees;
    size_t n_tees, cap_tees;
    EGather *gathers;
    size_t n_gathers, cap_gathers;
    ESendBuf *sendbufs;
    size_t n_sendbufs, cap_sendbufs;
    EBandSlice *bandslices;         /* emit_bandslice.c */
    size_t n_bandslices, cap_bandslices;
    EPart *parts;
    size_t n_parts, cap_parts;
    ENarrow *narrows;
    size_t n_narrows, cap_narrows;
    int32_t stages;                 /* the pipeline's stages: phase groups, the largest + 1
                                       (docs/backend.md, "Stages") */
    EState *states;                 /* CLIFs' neuron states (emit_p08.c) */
    size_t n_states, cap_states;
    EMerge *merges;                 /* copies merged from column slices (emit_merge.c) */
    size_t n_merges, cap_merges;
    EWiden *widens;                 /* views widened for their OUTPUTs (emit_widen.c) */
    size_t n_widens, cap_widens;
    EStage *stagings;               /* maps inputs write staged in int32 (emit_stage.c) */
    size_t n_stagings, cap_stagings;
    EChMerge *chmerges;             /* copies merged from channel slices (emit_chmerge.c) */
    size_t n_chmerges, cap_chmerges;
    EPins *pins;                    /* the runs earlier passes refused, this pass's appended
                                       (emit_pin.c) */
    EByCore copy_idx, part_idx;     /* copies, parts, output buffers (by block position) and */
    EByCore out_idx, sendbuf_idx;   /* send areas by core (emit_bycore.c) */
} Emit;

/* The EDup of CADD block pos, or NULL. */
const EDup *emit_dup_of(const Emit *e, uint32_t pos);

/* The core with these coordinates (added when new; emit_cores.c); EMIT_NONE when out of
 * memory. */
uint32_t emit_core(Emit *e, const MapCoord *c);
/* The largest phase count of any core (emit_cores.c): the phases a walk over every core's
 * phases goes through. */
int32_t emit_max_phases(const Emit *e);
/* The copy of storage block pos on core k, or NULL. */
ECopy *emit_copy_on(const Emit *e, uint32_t pos, uint32_t k);
/* Adds an area request to core k; its index, EMIT_NONE when out of memory. */
uint32_t emit_request(Emit *e, uint32_t k, int64_t words, int32_t align, int32_t first,
                      int32_t last, AllocKind kind, int32_t tag);
/* Drops request req of core k: it takes no words and gets no address (a tee's own area,
 * which shares another's, emit_tee.c). */
void emit_request_drop(Emit *e, uint32_t k, uint32_t req);
/* Whether the interface of edge eid on block pos (input or output side) is its whole cluster
 * (emit_rearr.c). */
bool emit_whole_iface(const Emit *e, uint32_t pos, bool input, int32_t eid);
/* The canonical box of the interface (of edge edge_id) of block pos: input or output side. */
bool emit_iface_box(const Emit *e, uint32_t pos, bool input, int32_t edge_id, EBox *out);
/* Whether compute block w writes its whole result into storage s by several edges, each a
 * box of it placed at the same coordinates of s, as they are (no steps): *box its result's
 * box, in s's coordinates. Its primitive then writes straight into s's copy on its core
 * (emit_plan.c). */
bool emit_writes_pieces(const Emit *e, uint32_t w, uint32_t s, EBox *box);
/* Whether compute block w (a P05 / P25) writes its whole result into storage s through
 * edges that each carry a run of its pixels (one row, or whole rows), in C order, as a run
 * of the pixels of s's copy of box cbox, all at one offset, the channels as they are:
 * *q0 the copy's pixel (in cbox's C order) that w's pixel 0 lands on, *npx w's pixels. Its
 * primitive then writes straight there (emit_runwrite.c). */
bool emit_writes_run(const Emit *e, uint32_t w, uint32_t s, const EBox *cbox, int64_t *q0,
                     int64_t *npx);
/* Whether edge ed's rearrangement steps (if any) keep the C order of the values: IDENTITY,
 * RESHAPE / PERMUTE that keep the order of the axes longer than 1, and a SHUFFLE whose index
 * is the identity (emit_plan.c). */
bool emit_keeps_order(const Emit *e, const Edge *ed);
/* The first phase core k receives edge le's data in (INT32_MAX: never; emit_route.c). */
int32_t emit_first_receive(Emit *e, const Edge *le, uint32_t k);
/* Whether edge ed carries writer w's box wbox into dbox (storage coordinates) through steps
 * that keep the C order, the pixels' count and the channels but not the extents (92 x 1
 * pixels as 1 x 92), with wbox's pixels following each other in w's output (one row, or
 * whole rows of it): the same bytes in the same order, which a transfer sends as runs of
 * 8-byte packets, pixel i of wbox into pixel i of dbox in C order (emit_route.c). */
bool emit_flat_pixels(const Emit *e, const Edge *ed, uint32_t w, const EBox *wbox,
                      const EBox *dbox);
/* Whether boxes a and b meet (y, x, channel), *out their common box (emit_route.c). */
bool emit_box_meet(const EBox *a, const EBox *b, EBox *out);
/* The word address of copy cp (its own area's, or its place in its writer's buffer). */
int64_t emit_copy_addr(const Emit *e, const ECopy *cp);
/* The word address the router writes copy cp to: its landing area in the receive area when
 * it is moved out (ECopy.land), else emit_copy_addr. */
int64_t emit_copy_dest_addr(const Emit *e, const ECopy *cp);
/* The pitch unit of storage block pos: what the primitives that write and read it need
 * (layout_storage_unit, taskir/layout.h: the table the mapper counts with too). */
int emit_storage_unit(const Emit *e, uint32_t pos);
/* The word address of canonical point (y, x) of a feature copy / buffer with box b. */
int64_t emit_feat_addr(const EmitFeat *f, const EBox *b, int64_t base, int64_t y, int64_t x);

/* Whether storage block s's copy of box box is laid out as P81's planes (emit_p81.c): only
 * INPUTs write it and only CC2Ds read it, each all of it, all with the same padding; *feat
 * the planes, their stored padding included (feat.ny, feat.nx the padded rows and columns). */
bool emit_p81_planes(const Emit *e, uint32_t s, const EBox *box, EmitFeat *feat);
/* The padding CC2D block b reads from memory: top, down, the stored left (whole words,
 * layout_p81_left), right; *lead the columns of zero weights its kernel is widened by, *dx
 * the dilation P81 runs it at (layout_p81_dilation: 1 when its taps are spread out with
 * zero columns between them); false when its left padding cannot be stored so. */
bool emit_p81_pad(const Block *b, int32_t pad[4], int32_t *lead, int32_t *dx);
/* A copy of planes with stored padding: its image of zeros (cp->image), loaded before its
 * dynamic blocks write the rows. */
Status emit_p81_zeros(Emit *e, ECopy *cp);
/* Whether the planes of storage block s that edge ed feeds are written a row at a time
 * (stored padding, or an edge with steps) by emit_p81_dynamic, rather than by one F_X_Y
 * block of the whole socket (emit_io.c). */
bool emit_p81_rows(const Emit *e, uint32_t s, const Edge *ed);
/* The dynamic blocks of INPUT pos feeding the planes of storage block s through edge ed: a
 * block a row of each plane, each a run of the socket's values along one axis. */
Status emit_p81_dynamic(Emit *e, Taskir__Asm__DataConfig *dc, uint32_t pos, const Edge *ed,
                        uint32_t s, int *piece);
/* Whether storage block s's copy on core is a view of its writer's map (emit_rearr.c): one
 * compute block on that core writes all of s through an edge whose steps move values, and
 * only CVMs there (s in 8 bits) or OUTPUTs read it, whole; or an INPUT writes all of it so,
 * whose dynamic blocks could not place it, and only OUTPUTs read it (every copy then holds
 * the socket as it is); *feat the writer's map's layout. */
bool emit_rearr_view(const Emit *e, uint32_t s, uint32_t core, EmitFeat *feat);
/* Whether storage block s, which one INPUT writes through steps and only OUTPUTs read
 * (lanes_wide_input, taskir/lanes.h), is held one value a word: the socket's dynamic blocks
 * cannot place it in its own layout (a value in several lanes, or in a lane that is no
 * word's first), so its copy of box box is laid out as *feat, INT_32 words, the channels
 * unpadded, which dynamic blocks write and read each from a word of its own (emit_rearr.c). */
bool emit_rearr_held_wide(const Emit *e, uint32_t s, const EBox *box, EmitFeat *feat);
/* Whether received copy cp, laid out as own in its pitch (layout_storage_unit), is held in
 * a smaller one, *feat: every value lands by a 1-byte packet, only OUTPUTs read it, and own
 * is over the receive area; the least pitch a dynamic block reads (emit_packed.c). */
bool emit_packed_feat(const Emit *e, const ECopy *cp, const EmitFeat *own, EmitFeat *feat);
/* Whether view s, laid out as f by a compute block in 8 bits, is read by OUTPUTs only, which
 * cannot read it so (a value in a lane that is no word's first) but can read it widened to
 * one lane a word (*wide: INT_32, f's pixels and pitch; emit_widen.c). */
bool emit_rearr_wide(const Emit *e, uint32_t s, const EmitFeat *f, EmitFeat *wide);
/* For a view s: the weight row each lane of its area meets (*rows, malloc'd, *n lanes: the
 * vector element the lane holds, -1 for a padding lane); a logic error [emit.rearrange]
 * when the vector takes a value of the map more than once. */
Status emit_rearr_rows(Emit *e, uint32_t s, int64_t **rows, int64_t *n);
/* The same for use number `layer` of each value (0 the first, in the vector's element order;
 * a lane whose value has no such use -1); *more: whether some value has a further use. An
 * OUTPUT reading the view places each layer with blocks of its own (emit_sockrun.c). */
Status emit_rearr_layer(Emit *e, uint32_t s, int64_t layer, int64_t **rows, int64_t *n,
                        bool *more);
/* The view CVM block cvm reads as its vector, or -1. */
long emit_rearr_input(const Emit *e, uint32_t cvm);

/* A shape message y, x, f (emit_io.c). */
Taskir__Shape *emit_yxf(Emit *e, int64_t y, int64_t x, int64_t f);
/* A new dynamic block of socket io (piece number piece) on copy cp's core, in its precision,
 * appended to dc; NULL when out of memory (emit_io.c). */
Taskir__Asm__DynamicBlock *emit_dynamic_new(Emit *e, Taskir__Asm__DataConfig *dc,
                                             const Block *io, const ECopy *cp, int piece);
/* The dynamic blocks of INPUT pos whose edge ed reaches storage s with its values in another
 * order, or of OUTPUT pos reading s so: boxes of the socket, from each pixel's lanes
 * (emit_sockrun.c); *piece counts them. */
Status emit_socket_steps(Emit *e, Taskir__Asm__DataConfig *dc, uint32_t pos, const Edge *ed,
                         uint32_t s, int *piece);
/* Whether socket block io has an r dim besides f (its dynamic blocks are boxes of y x (f r),
 * emit_sockrun.c). */
bool emit_socket_fr(const Block *io);
/* Whether dynamic blocks of socket io place (an INPUT) or read (an OUTPUT) the lanes of a
 * map laid out as f whose lane l holds socket value sock[l] (-1: none), emit_sockrun.c. */
bool emit_lanes_fit(const Block *io, const EmitFeat *f, const int64_t *sock);
/* The dynamic blocks of OUTPUT pos reading copy cp, a view of its writer's map, whole, in
 * C order, into box sbox of its socket (NULL: all of it; a part an output store's cut with
 * its writer makes, passes/split_feed.c). */
Status emit_socket_view(Emit *e, Taskir__Asm__DataConfig *dc, uint32_t pos, const ECopy *cp,
                        const EBox *sbox, int *piece);

/* The tees (emit_tee.c): planned after the copies and output buffers, before the
 * narrowings; the slots of their P06s (the re-pitching ones) after the narrowings, their
 * P06s written after the primitives; emit_tee_of: whether writer pos's result reaches
 * storage s by its copy sharing the area the primitive writes, or by a P06. */
Status emit_tees(Emit *e);
Status emit_tee_slots(Emit *e);
/* Moves the re-pitching tee whose P06 takes Soma slot (phase, slot) of core k into the latest
 * earlier free slot of its window, when it has one, so that a P06 with no other slot (a
 * gather's) takes this one; whether it did. */
bool emit_tee_yield(Emit *e, uint32_t k, int32_t phase, int32_t slot);
Status emit_tee_prims(Emit *e);
bool emit_tee_of(const Emit *e, uint32_t pos, uint32_t s);

/* emit_dup.c: the copy planned before received copy cp (index in copies) that holds its
 * values on its core already, which cp may share the area of (no transfer into cp), or
 * EMIT_NONE. */
uint32_t emit_dup_first(const Emit *e, const ECopy *cp);
/* Whether the copies of storage blocks s and s2 on core k share one area, one holding the
 * other's values (emit_dup_first). */
bool emit_dup_shares(const Emit *e, uint32_t s, uint32_t s2, uint32_t k);
/* The refusal of writer pos writing storage s besides first on its core (no tee). */
Status emit_tee_refuse(Emit *e, uint32_t pos, uint32_t s, uint32_t first);
/* The gathers (emit_gather.c): planned after the tees; emit_gather_of: the first input's
 * entry of CADD pos (the n inputs follow it), or NULL; emit_gather_operand: writes the P06s
 * and gives the area P02 reads. */
Status emit_gathers(Emit *e);
const EGather *emit_gather_of(const Emit *e, uint32_t pos);
/* Whether the gather P06 in Soma slot (p, sl) of copy cp's core reads cp (a gather's slot
 * may hold another CADD's input: emit_latemove.c, emit_route_spill.c ask). */
bool emit_gathers_copy(const Emit *e, const ECopy *cp, int32_t p, int32_t sl);
/* Why the gather of CADD pos failed: GATHER_LAYOUT (input *input is not a map on the core
 * with input 0's extents, in a precision a P06 moves into the area's), GATHER_SLOT (no free Soma slot for its P06);
 * 0 when it did not. */
enum { GATHER_LAYOUT = 1, GATHER_SLOT = 2 };
int32_t emit_gather_failed(const Emit *e, uint32_t pos, int32_t *input);
/* Moves the gather P06 that takes Soma slot (phase, slot) of core k into the latest free
 * slot of an earlier phase after its input is in place (emit_move_slot; its part then alive
 * from there), so that a P06 with no other slot (a send area's split between a writer and
 * its router, emit_sliceout.c) takes this one; whether it did. */
bool emit_gather_yield(Emit *e, uint32_t k, int32_t phase, int32_t slot);
/* EGather.phase of an input that found no free Soma slot for its P06: it may still lie in
 * its part (emit_gather_pending); -1 is one that lies there. */
enum { GATHER_PENDING = -2 };
/* Drops the entries [start, start + n) of the gather of CADD pos (freeing their slots and
 * their area) and records why it failed (input, why: GATHER_*), for emit_prim.c to refuse
 * the CADD with (emit_gather.c). */
Status emit_gather_fail(Emit *e, size_t start, size_t n, uint32_t pos, int32_t input,
                        int32_t why);
/* The narrowings (emit_narrow.c): planned after the copies and output buffers, before the
 * tees; emit_narrow_of: the one of writer pos, or NULL; emit_narrow_p06: writes its P06 into the map's area
 * (o_addr, o_words) and gives the int32 area the primitive writes (or refuses the writer
 * when it found no slot: emit.slot). */
Status emit_narrows(Emit *e);
const ENarrow *emit_narrow_of(const Emit *e, uint32_t pos);
Status emit_narrow_p06(Emit *e, const ENarrow *n, int64_t o_addr, int64_t o_words,
                       int64_t *addr, int64_t *words);
/* The Soma slots (emit_slot.c): every compute block's is recorded when the cores are
 * collected (emit_slot_blocks), every inserted P06's when its kind plans it
 * (emit_slot_take: a logic error naming core k, phase p and what takes it when the slot is
 * taken, an internal one when p is outside the core's phases); emit_slot_free gives back one
 * a plan dropped. emit_slot_use: what takes Soma slot (p, slot: PIIndex SOMA1 / SOMA2) of
 * core k (SLOT_FREE outside its phases); emit_soma_taken: whether something does;
 * emit_slot_what: a phrase naming it for messages ("the P06 gathering an input of block
 * 12"). */
/* The order of slot `slot` (a PIIndex) in phase p among all phases' slots: its Axon, Soma1,
 * router, Soma2 (emit_slot.c). */
int64_t emit_slot_when(int32_t p, int32_t slot);
/* emit_slot_latest: the latest free Soma slot of core k in phases hi down to lo whose time
 * (emit_slot_when) lies strictly between after and before, a phase past the core's last
 * standing for that phase of the next step (p mod its phases, the phase given so: a send
 * area written for a router that sends in the next step); emit_slot_earliest: the earliest
 * free one in phases lo up to hi after time after; into *phase, *slot; whether there is one. */
bool emit_slot_latest(const Emit *e, uint32_t k, int32_t hi, int32_t lo, int64_t after,
                      int64_t before, int32_t *phase, int32_t *slot);
bool emit_slot_earliest(const Emit *e, uint32_t k, int32_t lo, int32_t hi, int64_t after,
                        int32_t *phase, int32_t *slot);
void emit_slot_blocks(Emit *e);
Status emit_slot_take(Emit *e, uint32_t k, int32_t p, int32_t slot, ESlotKind kind,
                      uint32_t block);
void emit_slot_free(Emit *e, uint32_t k, int32_t p, int32_t slot);
ESlotUse emit_slot_use(const Emit *e, uint32_t k, int32_t p, int32_t slot);
bool emit_soma_taken(const Emit *e, uint32_t k, int32_t p, int32_t slot);
void emit_slot_what(const Emit *e, ESlotUse u, char *buf, size_t size);
/* Moves the inserted P06 in Soma2 of core k's phase p, its primitive and its entry in the
 * table, to Soma2 of phase p + 1 (a copy's move or gather following runs spilled there,
 * emit_route_spill.c): false, and nothing moved, when there is none or that slot is taken. */
bool emit_soma2_next(Emit *e, uint32_t k, int32_t p);
/* Where an inserted P06 moving copy cp's data for a block of phase pc goes: the latest free
 * Soma slot of its core before pc in which the copy holds its data (Soma2 of the copy's first
 * phase, or of the last phase a transfer into it lands in, at the earliest: after that
 * phase's Axon and router). Data that lands in phase pc or later comes in the step before (a
 * stage's input, docs/backend.md "Stages"): then the slot is the latest from that arrival to
 * the end of the step (wrap), and the moved data lives the whole step. */
typedef struct EMoveSlot {
    int32_t phase, slot;            /* the slot (PIIndex SOMA1 / SOMA2); phase -1: none free */
    int32_t from;                   /* the earliest phase searched */
    int64_t ready;                  /* when the data is in place (phase * 8 + PIIndex) */
    bool wrap;                      /* the data comes in the step before */
    int32_t first, last;            /* the lifetime of the area the P06 writes */
} EMoveSlot;
bool emit_move_slot(Emit *e, const ECopy *cp, int32_t pc, EMoveSlot *s);  /* emit_plan.c */
/* Whether the data copy cp holds for its reader in phase pc all comes in the step before: the
 * last transfer into it lands in phase pc or after it, counted round the step from its
 * writer's phase (EMoveSlot.wrap; emit_plan.c). */
bool emit_wraps_whole(const Emit *e, const ECopy *cp, int32_t pc);
/* A movable copy cp whose Soma2 of its last arrival phase is taken: the earliest free Soma
 * slot after that phase's router, in that step, where a P06 may move it out of the receive
 * area since nothing on its core reads it from its arrival to there (emit_latemove.c); into
 * *phase, *slot; whether there is one. */
bool emit_late_move(Emit *e, const ECopy *cp, int32_t *phase, int32_t *slot);
/* The received copies that stay in the receive area over the whole step, arriving after
 * their last reader on their core (a stage's input): each one's area lives to that reader's
 * phase and again from its arrival on (alloc.h again; emit_latemove.c). */
void emit_stay_again(Emit *e);
/* A new SomaPrim P06 in Soma slot (phase, slot) of core (its x1_block "b<block>"); NULL when
 * out of memory (emit_prim.c). */
Taskir__Asm__P06 *emit_p06_slot(Emit *e, uint32_t core, int32_t phase, int32_t slot,
                                int32_t block);
/* Sets P06 p to copy rows rows of c elements of precision prec, from word x1 (x1_words) to
 * word o (o_words), as they are (no shift, no ciso). */
void emit_p06_rows(Taskir__Asm__P06 *p, PrecisionId prec, int64_t c, int64_t rows, int64_t x1,
                   int64_t x1_words, int64_t o, int64_t o_words);

/* The merges (emit_merge.c): planned after the gathers, before the moves out of the receive
 * area; emit_merge_of: copy cp's, or NULL; emit_merge_slice: when edge eid brings a remote
 * slice of merged copy cp, 1 and a stand-in copy of what lands in phase (*slice: cp with
 * the slice's box and layout, or its band's rows when the slice lands in bands) and the word
 * its origin lands at (*base), for the router's runs; -1 when nothing of it lands in that
 * phase; 0 when eid brings no such slice; emit_merge_banded: whether edge eid's slice lands
 * in bands, one a phase (every send-receive pair of the edge carries its own);
 * emit_merge_prims: their P06s, after the memory plan. */
Status emit_merges(Emit *e);
/* emit_merge.c's tests, shared with emit_chmerge.c: whether an inserted P06 of another kind
 * reads or writes copy ci; whether every compute block reading copy cp on its core runs
 * after time t (emit_slot_when's unit); a P06 in Soma slot (p, slot) of cp's core joining
 * rows rows of ci words from x1 and cc words from ciso side by side into rows of ci + cc
 * words at o, INT_32 words as they are. */
bool emit_moved_otherwise(const Emit *e, uint32_t ci);
bool emit_read_after(const Emit *e, const ECopy *cp, int64_t t);
/* The first block reading block s's values on core k before the router of phase p (in an
 * earlier phase, or in p in a slot before Soma2), -1 when none (emit_route.c). */
long emit_reader_before(const Emit *e, uint32_t s, uint32_t k, int32_t p);
/* The first block reading block s's values on core k after the router of phase `from` and
 * before the router of phase p (-1: none; emit_reader_before is from = -1). */
long emit_reader_between(const Emit *e, uint32_t s, uint32_t k, int32_t from, int32_t p);
Status emit_join_rows(Emit *e, const ECopy *cp, int32_t p, int32_t slot, int64_t rows,
                      int64_t x1, int64_t ci, int64_t ciso, int64_t cc, int64_t o);
/* The channel merges (emit_chmerge.c): planned after the column merges, before the moves
 * out of the receive area; emit_chmerge_of: copy cp's, or NULL; emit_chmerge_land: when edge
 * eid brings channels of chmerged copy cp, 1 and a stand-in copy of the landing area of
 * phase (*slice: its band's rows, its step's channels and layout) and its word (*base); -1
 * when nothing of it lands in that phase; 0 when cp is merged so from no slices;
 * emit_chmerge_at: where the channels of box b (cp's storage coordinates, within one band)
 * lie for a router of phase p (after the Soma2 of the phases before): *feat, *box (the
 * area's pixels and channels), *base (its origin's word), *row (words a row); false when
 * they are not all there; emit_chmerge_prims: their P06s, after the memory plan. */
Status emit_chmerges(Emit *e);
const EChMerge *emit_chmerge_of(const Emit *e, const ECopy *cp);
int emit_chmerge_land(const Emit *e, const ECopy *cp, int32_t eid, int32_t phase,
                      ECopy *slice, int64_t *base);
bool emit_chmerge_at(const Emit *e, const ECopy *cp, const EBox *b, int32_t p,
                     const EmitFeat **feat, EBox *box, int64_t *base, int64_t *row);
Status emit_chmerge_prims(Emit *e);
/* The widenings (emit_widen.c): planned after the merges, before the moves out of the
 * receive area (a free Soma slot after the view's writer and its narrowing, or emit.slot);
 * emit_widen_of: copy ci's, or NULL; emit_widen_prims: their P06s, after the memory plan. */
Status emit_widens(Emit *e);
const EWiden *emit_widen_of(const Emit *e, uint32_t ci);
Status emit_widen_prims(Emit *e);
/* The staged maps (emit_stage.c): planned after the narrowings, before the tees' slots (the
 * earliest free Soma slot from the copy's first phase before its first use, or emit.slot);
 * emit_stage_of: copy ci's, or NULL; emit_stage_copy: the copy as the dynamic blocks write
 * it (its int32 area); emit_stage_zeros: the zeros the area starts from (malloc'd, *n
 * words; NULL when out of memory); emit_stage_prims: their P06s, after the memory plan. */
Status emit_stagings(Emit *e);
const EStage *emit_stage_of(const Emit *e, uint32_t ci);
ECopy emit_stage_copy(const Emit *e, const EStage *sg);
uint32_t *emit_stage_zeros(const EStage *sg, size_t *n);
Status emit_stage_prims(Emit *e);
const EMerge *emit_merge_of(const Emit *e, const ECopy *cp);
int emit_merge_slice(const Emit *e, const ECopy *cp, int32_t eid, int32_t phase, ECopy *slice,
                     int64_t *base);
bool emit_merge_banded(const Emit *e, const ECopy *cp, int32_t eid);
Status emit_merge_prims(Emit *e);
/* emit_merge.c's arrivals of edge eid's transfer on core k: the phases of its landings,
 * ascending, into ph (at most max), their count; *relay: whether core k sends it on. */
int emit_merge_arrivals(const Emit *e, int32_t eid, uint32_t k, int32_t *ph, int max,
                        bool *relay);
/* Adds edge ed's box in copy cp's block (written by block w) to m as a column slice of cp
 * (emit_merge.c): the new piece (writer, edge, box; no landing area, the rest zero) when all
 * of the box lies in cp over all cp's rows and channels; NULL with *skip when it misses cp;
 * NULL when it is no such slice (or has no box) or m holds MERGE_MAX already. */
EMergePiece *emit_merge_add(const Emit *e, const ECopy *cp, const Edge *ed, uint32_t w,
                           EMerge *m, bool *skip);
/* A copy over the receive area whose column slices are model input slices written by
 * dynamic blocks and one slice from another core (emit_merge_wrap.c): emit_merge_wrap plans
 * it into m (*kept) when it can be; emit_merge_wrap_addr: where a dynamic block writes row
 * box (storage coordinates, one row of an input slice) of such a copy cp (false: cp is not
 * merged so); emit_merge_wrap_prim: its P06, after the memory plan. */
Status emit_merge_wrap(Emit *e, uint32_t ci, EMerge *m, bool *kept);
bool emit_merge_wrap_addr(const Emit *e, const ECopy *cp, const EBox *box, int64_t *addr);
Status emit_merge_wrap_prim(Emit *e, const EMerge *m);

/* The early gathers (emit_early.c): after the moves out of the receive area, a received copy
 * that stays there and that only the P06 gathering it for a CADD reads: that P06 moved to
 * the earliest free Soma slot after the copy lands, the copy's area there shortened to end
 * with it. */
Status emit_early_gathers(Emit *e);
/* The gather entry reading copy ci when it is the only reader of the copy's block on its core
 * (compute blocks, inserted P06s, OUTPUTs; a spread copy's relays are not asked); else NULL
 * (emit_early.c). */
EGather *emit_sole_gather(Emit *e, uint32_t ci);
/* A spread stage's input only its gather reads, gathered right after its last part moves, or
 * early in the next step, and its area shortened so (emit_wrapgather.c); before
 * emit_early_gathers, which may then take the slot it leaves. */
Status emit_wrap_gathers(Emit *e);
/* The words of core k's receive area that copies waiting there for their gather hold in
 * phase p past the earliest free Soma slot after they land, which the cut of the spread
 * copies counts as free, as the mapper does (emit_recvwait.c). */
int64_t emit_recv_waiting(const Emit *e, uint32_t k, int32_t p);
/* Whether copy ci is one emit_early_gathers gathers straight from the receive area: a
 * received copy that only the P06 gathering it for a CADD reads, that P06 with a slot; the
 * first pass of moves out of the receive area leaves it there (emit_plan.c), as the mapper
 * plans it (mapper/gather_wait.h). */
bool emit_gathered_early(Emit *e, uint32_t ci);
/* Whether copy cp is written by blocks on its core whose router moves their boxes into it
 * (EOut.gather: boxes that are not whole rows of it, emit_route.c's gather; one at least)
 * and otherwise by transfers from other cores only: it lands in its core's receive area,
 * from the router of phase *first to that of phase *last (an own writer's phase, the next
 * after a Soma2; a transfer's last receive phase). Such a writer sends its other boxes from
 * its own buffer, never from the copy (emit_early.c). */
bool emit_router_landed(const Emit *e, const ECopy *cp, int32_t *first, int32_t *last);
/* Whether the last reader of copy ci's area is the P06 gathering it for a CADD, its only
 * reader, in Soma1 of the area's last phase (emit_early.c): the area ends with that Soma1. */
bool emit_gather_ends_soma1(Emit *e, uint32_t ci);
/* On a core whose memory plan does not fit otherwise, after gathering in place: a copy on
 * core k that only the P06 gathering it for a CADD reads (data of this step, nothing sent
 * from it later), in the data banks (not received, not static) or in the receive area over
 * its whole life, has its area end with that P06 (emit_early.c); whether any did. */
bool emit_gathered_ends(Emit *e, uint32_t k);
/* Whether a ROUTER_SEND of writer w's results leaves copy cp's core after phase p (a copy
 * its writer writes straight into is where its other edges are sent from, emit_plan.c;
 * emit_early.c). */
bool emit_sends_after(const Emit *e, const ECopy *cp, uint32_t w, int32_t p);
/* Gathering in place (emit_early.c), on a core whose memory plan does not fit otherwise: a
 * copy only the P06 gathering it reads, in the layout of its part, lies in that part of the
 * gathered area (ECopy.req_off), and its P06 is dropped (EGather.phase -1); whether any
 * copy on core k did. */
bool emit_in_place(Emit *e, uint32_t k);
/* On a core whose memory plan fits none of the ways above: the output buffer of a CCMPB /
 * CCMPS of a 1 x 1 window on core k takes the words of the copy it reads when that copy dies
 * with it (its one reader, in an area of its own; emit_soma_over.c); whether any did. */
bool emit_soma_over(Emit *e, uint32_t k);
/* emit_recvpart.c, on a core whose memory plan fits none of the ways above: each received
 * copy on core k that stays in the receive area in an area of its own, whose transfers land
 * whole rows of it in one run of its words each and not all in one phase, gets its area
 * planned in parts (ECore.rparts), one a phase of arrival; *any: whether one did. Out of
 * memory: ST_RUNTIME. */
Status emit_recv_parts(Emit *e, uint32_t k, bool *any);
/* emit_merge_tail.c, on a core whose memory plan fits none of the ways above: a local
 * writer's slice of a merge on core k lies in the last words of the copy the merge writes
 * (the copy's request chained to the slice's buffer), where nothing but the merge reads
 * that buffer; whether any did. */
bool emit_merge_tails(Emit *e, uint32_t k);
/* The parts of core c's requests (c->rparts) into the requests place_core keeps, kept[0..n)
 * (at[i]: 1 + the index of request i's there, 0 for none; lead: emit_twin_leads; room for
 * n + c->n_rparts): each request's later parts appended as a chain after it (AllocReq.next),
 * each alive from the router of its phase, and the request cut to its first part; an area
 * twins share is not cut. The new count. */
size_t emit_recv_parts_apply(const ECore *c, const uint32_t *lead, const size_t *at,
                             AllocReq *kept, size_t n);
/* The requests of core k that copies of twin storage blocks share (emit_twin.c): lead[i]
 * (room for the core's n_reqs) the request whose area request i takes, i itself for most;
 * false when out of memory. */
bool emit_twin_leads(const Emit *e, uint32_t k, uint32_t *lead);
/* Area r, the one twins share (a lead's, emit_twin_leads) on a core of n_phases phases,
 * grown to hold twin t too: the larger words and alignment, alive over both lifetimes (from
 * the router of the first's phase when both begin so, to Soma1 of the last's when both end
 * so; areas whose lives meet again to the step's end). The plan places it so (place_core),
 * and emit_pin.c fixes its address so. */
void emit_twin_join(AllocReq *r, const AllocReq *t, int32_t n_phases);
/* Whether a twin of copy cp (the same values landing in the same phases on its core) stays
 * in the receive area, sharing its words there: moving cp out later would free none
 * (emit_latemove.c). */
bool emit_twin_stays(const Emit *e, const ECopy *cp);
/* Drops every send of a core's phase that another of that phase repeats word for word to the
 * same core and address (the copies of twins sharing one area receive it once), with its end
 * mark at the receiver (emit_twin.c). */
Status emit_twin_sends(Emit *e);
/* After the moves out of the receive area (emit_plan.c), the inputs of a gather that found
 * no free Soma slot (GATHER_PENDING) lie in their parts when they can (as emit_in_place: the
 * copy only its gather reads, in its part's layout, written there by its writer or by the
 * P06s moving it out of the receive area); a gather one of whose inputs cannot is refused
 * (emit_gather_fail: emit.slot). */
Status emit_gather_pending(Emit *e);
/* Whether the input gather entry g reads may lie in its part as emit_gather_pending lays it
 * (only g reads its copy, in its part's layout, written there by its writer or by the P06s
 * moving it out of the receive area: a spread copy's parts, emit_spread.c; moving: a
 * received copy that is to be moved so), asked again by emit_gather_pending; a gather short
 * of Soma slots gives such inputs none (emit_gather.c). */
bool emit_gather_may_lie(Emit *e, const EGather *g, bool moving);
/* A gather short of Soma slots (emit_gather.c): its entries g[0..n) (CADD in phase pc) that
 * land whole in one phase, two by two, as the two runs of one spread part (emit_gather_pair.c;
 * each then lies in its part, moved there by the part's P26). */
Status emit_gather_pairs(Emit *e, const EGather *g, uint32_t n, int32_t pc);

/* The send areas (emit_sendbuf.c): planned after the gathers, before the memory plan;
 * their P06s written with the routes. emit_sendbuf_of: writer w's area in precision prec, or
 * NULL. */
Status emit_sendbufs(Emit *e);
Status emit_sendbuf_prims(Emit *e);
ESendBuf *emit_sendbuf_of(const Emit *e, uint32_t w, PrecisionId prec);
/* What writer w's send areas are written from (emit_sendbuf.c): its output buffer, or, when
 * it has none, the view on its core that holds its whole map as it lays it out
 * (emit_rearr.c); false when neither. */
bool emit_sendbuf_source(const Emit *e, uint32_t w, EOut *src);
/* emit_sendbuf_source, or else a copy on w's core (of its own area, not a view) that holds
 * w's whole result as whole rows of it, in w's order (a map whose rows w writes after
 * another writer's: src->off the first word of w's rows): the source a P06 re-pitching w's
 * map into a send area of another pitch reads (emit_sendbuf.c scan_heads). */
bool emit_sendbuf_rows_source(const Emit *e, uint32_t w, EOut *src);
/* Writer w's compact send area that sends in phase p (scan_heads), or NULL. */
const ESendBuf *emit_sendbuf_compact(const Emit *e, uint32_t w, int32_t p);
/* Writer w's send area in its own precision and pitch c that sends in phase p (a re-pitched
 * copy of its buffer for the copies of that pitch, when its router would send boxes of the
 * buffer that meet in one phase into copies of two pitches), or NULL. */
/* A send area of the buffer's own pitch is a second copy of it for the copies of storage
 * block position s only (emit_senddup.c). */
const ESendBuf *emit_sendbuf_pitch(const Emit *e, uint32_t w, int64_t c, int32_t p, uint32_t s);
/* The repeat of its send area each out-edge of writer w reads from when its router gathers
 * it onto its own core: the router reads its area once, in order, so edges into one storage
 * block whose boxes of w's result overlap (an upsampling by edges: a pixel to 9 places of
 * one copy) read different repeats, the least no earlier such edge reads (in w's out-edge
 * order). rep[j] for w's out-edge j; the repeats into *n. false when out of memory. */
bool emit_sendbuf_reps(const Emit *e, uint32_t w, int32_t *rep, int32_t *n);
/* Out-edge j of writer w (into *ed) when it goes to a storage block (its position into *s,
 * else EMIT_NONE) that the Mapping gives a dict (*dict) and it has a box in w's output
 * coordinates (*box) (emit_sendbuf.c). */
bool emit_sendbuf_edge(const Emit *e, uint32_t w, uint32_t j, const Edge **ed, uint32_t *s,
                       const MapDict **dict, EBox *box);
/* A walk over the transfers of writer w's out-edges into storage blocks (emit_sendbuf.c):
 * each (send, receive) pair of their dicts sent from w's core (any: from any core), its edge
 * (ed, s, dict, box as emit_sendbuf_edge gives them), its coordinates (cs, cr) and the copy
 * on the receiving core (dcp, NULL: none). Start from (ESendWalk){.w = w}. */
typedef struct ESendWalk {
    uint32_t w, j, c;
    const Edge *ed;
    uint32_t s;
    const MapDict *dict;
    EBox box;
    const MapCoord *cs, *cr;
    const ECopy *dcp;
} ESendWalk;
bool emit_sendbuf_walk(Emit *e, ESendWalk *it, bool any);
/* Notes that writer w sends, in phase p (its send time, emit_send_time), to a copy of
 * storage s in its own precision but pitch c, from a send area in that pitch a P06
 * re-pitches its buffer into (emit_sendbuf.c). */
Status emit_sendbuf_need_pitch(Emit *e, uint32_t w, uint32_t s, int64_t c, int32_t p);
/* Writer w's lanes moves (emit_lanes.c) whose edges take more headers in a phase than a
 * router holds go from a send area in their copies' pitch (emit_lanearea.c). */
Status emit_lanearea_scan(Emit *e, uint32_t w);

/* Spread copies (emit_spread.c): whether a transfer into received copy cp arrives on its
 * core in several phases (the Mapping spreads it); the parts of every spread copy, planned
 * after the copies (their landing areas share the receive area with the other arrivals of
 * their phases); the part of its core holding a run of spread copy cp in phase p, or NULL;
 * the last phase a part holding pixels of box b (storage coordinates) moves into cp's area
 * in (-1: b holds none of cp's pixels; INT32_MAX: some pixel of b arrives in no part), after
 * which a relay may forward them from that area. */
bool emit_spread_of(const Emit *e, const ECopy *cp);
Status emit_spreads(Emit *e);
/* Whether movable copy cp may be a run of a part of its arrival phase (emit_spread.c);
 * slices: also when its transfers are channel or column slices of its rows (emit_slices.c),
 * which land in their places of the run as in the copy. */
bool emit_joins_part(const Emit *e, const ECopy *cp, bool slices);
/* The phases the transfers of edge dict dict land in on core k (its ROUTER_SEND /
 * ROUTER_RECIEVE pairs there, in the Mapping's order) into ph (room for n_coords); their
 * count (emit_spread.c). */
uint32_t emit_arrival_phases(const Emit *e, const MapDict *dict, uint32_t k, int32_t *ph);
/* The rows compute block pos writes straight into spread copy cp on its core (whole rows at
 * its start or end, other writers filling the rest) as a part of the copy's area of their
 * own, alive in [first, last] (the block's sends from them), the rest as it was; false when
 * they are not such rows (emit_keeprows.c). */
bool emit_keep_rows(Emit *e, ECopy *cp, uint32_t pos, int32_t first, int32_t last);
/* The words of core k's receive area requested for phase p so far but request skip's
 * (EMIT_NONE: none), a copy that may move out in Soma2 of its arrival phase (ECopy.movable,
 * not yet moved) counted in its arrival phases only, where the mapper counts it
 * (emit_spread.c). */
int64_t emit_recv_live(const Emit *e, uint32_t k, int32_t p, uint32_t skip);
/* emit_slices.c: a spread copy assembled from channel or column slices. What edge ed brings
 * of copy cp: 0 whole rows of it (all its columns and channels), whole pixels of a copy of
 * one row (a run of them, or some columns of one of its rows), or nothing, 1 some channels
 * of whole rows, 2 some columns (all their channels) of several rows, -1 anything else.
 * Whether the slices from other cores of the same rows are of one kind, tile the copy's
 * channels (columns) and arrive in the same phases (and no slice crosses other rows).
 * Whether ed is such a slice after the first (the lowest channels or columns) of its rows:
 * the parts are cut by the first. */
int emit_slice_kind(const Emit *e, const ECopy *cp, const Edge *ed);
bool emit_slices_ok(const Emit *e, const ECopy *cp);
bool emit_slice_follower(const Emit *e, const ECopy *cp, const Edge *ed);
const EPart *emit_part_at(const Emit *e, const ECopy *cp, int32_t p);
int32_t emit_spread_moved(const Emit *e, const ECopy *cp, const EBox *b);
/* emit_spreadunit.c, a spread copy of one pixel in runs of its words (ECopy.unit): the words
 * of one unit of spread copy cp's parts (a unit, else a pixel); the units [*lo, *hi) that
 * box b's channels meet (false: b misses the copy); the box of part's channels among units
 * [q0, q0 + nq) into out, and their count (0 or 1); whether cp (one pixel, one edge bringing
 * all of it, not yet cut so) should be cut into units: the words its pixel cut puts in some
 * phase (words[p]) are over the room of that phase's receive area. */
int64_t emit_spread_unit(const ECopy *cp);
bool emit_unit_range(const ECopy *cp, const EBox *b, int64_t *lo, int64_t *hi);
int emit_unit_box(const ECopy *cp, int64_t q0, int64_t nq, const EBox *part, EBox *out);
bool emit_unit_wanted(const Emit *e, const ECopy *cp, const int64_t *words);
/* emit_spreadcap.c: the pixels of edge ed into spread copy cp to land in phase p (not the
 * edge's last there) from pixel q on, px at most: when an earlier pass's relaying chain
 * refused cp's part of p (EPinCap), fewer when the same writer sends, in p, a pixel of
 * [q + 1, q + px) to a copy of another box of its result on another core (a part planned
 * already): the part then ends before the first such pixel, as the mapper cuts it
 * (mapper/xfer_cap.c). */
int64_t emit_spread_cap(const Emit *e, const ECopy *cp, const Edge *ed, int32_t p, int64_t q,
                        int64_t px);
/* A part of a spread copy counted at its sender: core sk's phase p, columns [clo, chi) of
 * writer w's rows, the headers it takes there (emit_spreadheads.c). */
typedef struct ESpreadHead {
    uint32_t sk;
    int32_t p;
    long w;
    int64_t clo, chi, heads;
} ESpreadHead;
typedef struct ESpreadHeads {
    ESpreadHead *v;
    size_t n, cap;
} ESpreadHeads;
/* Pixels px of spread copy cp's part in phase p from edge ed, cut so that its rows' headers
 * at a sender on another core whose rows are wider (a run and a gap a row), with those of
 * the parts counted so far in h (NULL: none), stay within LANES_HEADS - LANES_CUT_HEADS;
 * not cut when its columns touch those of a part counted there (emit_spreadheads.c). */
int64_t emit_spread_heads_cap(const Emit *e, const ESpreadHeads *h, const ECopy *cp,
                              const Edge *ed, int32_t p, int64_t px);
/* Counts that part's px pixels in h (ST_RUNTIME: out of memory). */
Status emit_spread_heads_add(Emit *e, ESpreadHeads *h, const ECopy *cp, const Edge *ed,
                             int32_t p, int64_t px);
/* Whether spread copy a waits for another (done[i]: copy i planned) before its parts are cut:
 * a has a part to cut (EPinCap), and the other is on another core, of another box of the
 * result of a writer of a, landing in a phase (not the last) in which that writer's edge
 * into a lands on a's core too (emit_spreads plans those first, keeping each core's order).
 * reader: a's time cut (emit_spread.c); ph, tmp: room for the phases of any edge dict. */
bool emit_spread_waits(const Emit *e, const ECopy *a, int32_t reader, const uint8_t *done,
                       int32_t *ph, int32_t *tmp);
/* Records, after a relaying chain refused phase p, the spread copy send s reaches there
 * (EPinCap), for the next pass; ST_RUNTIME when out of memory. */
Status emit_spread_cap_hint(Emit *e, int32_t p, const ESend *s);
/* emit_partfirst.c: after a relaying chain refused phase p, records the spread copy send s
 * lands in, and its first pixel there, when it lands behind other pixels of its part: in the
 * second run of a part of two copies, or past the start of a part of one run (EPinFirst),
 * for the next pass; ST_RUNTIME when out of memory. emit_part_first: the pixel from which an
 * earlier pass recorded spread copy position pos on core k to land first in its part of
 * phase p, -1 when none. */
Status emit_part_first_hint(Emit *e, int32_t p, const ESend *s);
int64_t emit_part_first(const Emit *e, uint32_t k, uint32_t pos, int32_t p);
/* Parts landing in their relay's pitch (emit_landpitch.c): after emit_spreads, each part of
 * one run whose phase's arrivals all come from one relay holding a copy in a wider pitch
 * lands at that pitch where the receive area has room (EPart.pitch, its landing area
 * grown); emit_part_landed: the copy as the router lands it (cp, or tmp re-pitched);
 * emit_part_pitch: words a pixel of run r in the landing area; emit_part_repitch: the part's
 * P06 from the landing area into the copy. */
Status emit_part_pitches(Emit *e);
/* The pitch (words a pixel) of the one relay that sends every arrival into spread copy cp
 * in phase p, its pixels whole (all of cp's channels, 8-byte packets), wider than cp's,
 * when a run a pixel would fill cp's pixels; else 0. */
int64_t emit_land_pitch(Emit *e, const ECopy *cp, int32_t p);
const ECopy *emit_part_landed(const EPart *pt, const ECopy *cp, ECopy *tmp);
int64_t emit_part_pitch(const Emit *e, const EPart *pt, int r);
Status emit_part_repitch(Emit *e, const EPart *pt);
/* The MapDict of edge id (NULL when none routes it), and whether coordinate c names core
 * k's place (emit_plan.c). */
const MapDict *emit_edge_dict(const Emit *e, int32_t edge_id);
bool emit_same_place(const ECore *k, const MapCoord *c);

/* P08 (emit_p08.c): emit_p08_feat: whether storage block s's copy on core (box box) takes a
 * layout of P08's, *feat: a model input only CLIFs read (int32 words, one a channel), or the
 * spikes of CLIFs on that core that only OUTPUTs read (8 bits, rows of the CLIF input's
 * lanes); emit_p08_plan: the state area of every CLIF (after the copies, before the memory
 * plan is placed); emit_p08: CLIF pos's P08 in Soma primitive s, reading x1, writing o. */
bool emit_p08_feat(const Emit *e, uint32_t s, uint32_t core, const EBox *box, EmitFeat *feat);
Status emit_p08_plan(Emit *e);
Status emit_p08(Emit *e, uint32_t pos, Taskir__Asm__SomaPrim *s, const EArea *x1,
                const EArea *o);

Status emit_plan(Emit *e);                  /* emit_plan.c */
Status emit_moves(Emit *e);                 /* emit_move.c: the P06 of received copies and
                                               of the parts of spread ones */
/* emit_split_words (emit_move.c): a P26 in Soma slot `slot` of phase p of core k splitting
 * rows INT_32 rows of words0 + words1 words from `from` into rows of words0 from to0 and of
 * words1 from to1 (block: the block it is written for). */
Status emit_split_words(Emit *e, uint32_t k, int32_t p, int32_t slot, int32_t block,
                        int64_t from, int64_t to0, int64_t words0, int64_t to1, int64_t words1,
                        int64_t rows);
Status emit_prims(Emit *e, Taskir__Asm__Config *cfg); /* emit_prim.c */
Status emit_routes(Emit *e);                /* emit_route.c */
/* The next (ROUTER_SEND, ROUTER_RECIEVE) pair of coordinates of edge dict `dict` from index
 * *i on (*i the send's), and their cores *sk, *rk; false when none is left, or out of memory
 * (*st ST_RUNTIME). */
bool emit_dict_pair(Emit *e, const MapDict *dict, uint32_t *i, uint32_t *sk, uint32_t *rk,
                    Status *st);
Status emit_router_prims(Emit *e);          /* emit_route.c, after the prims */
/* Appends run [src, src + words) -> dst to the sends of core sk in phase p, received by core
 * dk into storage block `block` (its id), as part of the last send when it continues it: the
 * source follows on, the run has the same length and lands one stride further (a MULTI_USE
 * header steps through such runs: destination_const + 1 packets a run, destination_offset
 * units between runs). single: the run is bytes, sent as 1-byte packets (src, words, dst in
 * bytes), else words in 8-byte packets (emit_route.c). */
Status emit_route_run(Emit *e, uint32_t sk, int32_t p, uint32_t dk, int64_t src, int64_t words,
                      int64_t dst, int32_t block, bool single);
/* Whether compute block w writes edge ed's box (box, in the storage's coordinates) straight:
 * no steps, or steps that keep the C order and the pixels (a flat box, or all of its result
 * with other rows, the same channels) (emit_lanes.c). */
bool emit_lanes_straight(const Emit *e, const Edge *ed, uint32_t w, const EBox *box);
/* The runs of bytes of the part `part` (storage coordinates) of edge ed, written by compute
 * block w through a rearrangement that moves values between pixels or lanes, sent by core sk
 * in phase p from w's output buffer, in 1-byte packets, into copy dcp on core dk (its origin
 * at word dbase); a logic error [emit.rearrange] when they cannot be (emit_lanes.c). */
Status emit_lane_runs(Emit *e, const Edge *ed, uint32_t w, uint32_t sk, int32_t p,
                      const ECopy *dcp, uint32_t dk, const EBox *part, int64_t dbase);
/* Whether edge ed (writer w, its box dbox in the storage) moves values between pixels or
 * lanes: its steps change the C order, or the extents of the box (a reshape on the way)
 * other than as emit_flat_pixels; the router then sends its bytes in 1-byte packets
 * (emit_route.c, emit_lanes.c). */
bool emit_moves_lanes(const Emit *e, const Edge *ed, uint32_t w, const EBox *dbox);
/* Bytes of one value of precision p in memory; 0 for values that share a byte (ternary). */
int64_t emit_value_bytes(PrecisionId p);
/* One run sent whole to several cores in a phase becomes one relaying chain (the chip's
 * multicast): emit_route_chain.c, before the P09s are written. */
Status emit_route_chains(Emit *e);
/* A walk over every core's sends of phase p (emit_phase_sends.c): made by emit_phase_sends,
 * then each emit_phase_sends_next gives the next send, in the order of the cores, then of
 * each core's sends; with rest, each core's chain_rest after its sends. */
typedef struct EPhaseSends {
    int32_t p;
    bool rest;
    uint32_t k;       /* the core of the send last given, */
    const EPhase *ph; /* its phase p (NULL: none yet, or the walk is done) */
    size_t i;         /* the index of the next of its sends (chain_rest's past n_sends) */
    uint32_t next;    /* the next core to walk */
} EPhaseSends;

EPhaseSends emit_phase_sends(int32_t p, bool rest);
/* The next send of the walk (it->k its sending core, it->ph that core's phase); NULL once
 * every core's are given. The walk may not outlive a change to the sends it walks. */
const ESend *emit_phase_sends_next(const Emit *e, EPhaseSends *it);

/* A walk over the copies, the parts of spread copies, the used output buffers (e->outs, by
 * block position) or the send areas (by their writer's core) on core k (emit_bycore.c), in
 * list order: made by emit_copies_on / emit_parts_on / emit_outs_on / emit_sendbufs_on, then
 * each emit_copies_next / emit_parts_next gives the next (NULL once done), or
 * emit_on_core_next its position (false once done). emit_index_copies / _parts / _outs /
 * _sendbufs index the list by core as it is, or extend its index by the entries added since
 * (ST_RUNTIME when out of memory): a walk visits core k's entries indexed, then those added
 * since (the core checked); emit_by_core_finish frees an index. */
typedef struct EOnCore {
    uint32_t k;
    uint32_t chain;      /* the next entry of k's chain (EMIT_NONE: the chain is done) */
    size_t i, end;       /* then the next entry past those indexed, and the list's end */
    const EByCore *x;    /* the index walked, or NULL: the whole list */
    uint32_t (*core_at)(const Emit *e, size_t i); /* entry i's core */
} EOnCore;

Status emit_index_copies(Emit *e);
Status emit_index_parts(Emit *e);
Status emit_index_outs(Emit *e);
Status emit_index_sendbufs(Emit *e);
void emit_by_core_finish(EByCore *x);
EOnCore emit_copies_on(const Emit *e, uint32_t k);
EOnCore emit_parts_on(const Emit *e, uint32_t k);
EOnCore emit_outs_on(const Emit *e, uint32_t k);
EOnCore emit_sendbufs_on(const Emit *e, uint32_t k);
bool emit_on_core_next(const Emit *e, EOnCore *it, size_t *pos);
ECopy *emit_copies_next(const Emit *e, EOnCore *it);
EPart *emit_parts_next(const Emit *e, EOnCore *it);

/* A walk over writer w's out-edges whose storage block has a copy on core k
 * (emit_local_outs.c), in w's edge order: made by emit_local_outs, then each
 * emit_local_outs_next gives the next such copy (an edge whose end is no block, or whose
 * block has no copy on k, passed over). */
typedef struct ELocalOuts {
    uint32_t w, k;
    uint32_t j;     /* the index in w's out_edges of the edge last given, */
    const Edge *ed; /* that edge */
    uint32_t s;     /* and its storage block (position in g->blocks) */
    uint32_t next;  /* the index of the next edge to look at */
} ELocalOuts;

ELocalOuts emit_local_outs(uint32_t w, uint32_t k);
/* The copy on it->k of the storage block of w's next such out-edge (it->j, it->ed, it->s
 * then name it); NULL once every edge is walked. */
ECopy *emit_local_outs_next(const Emit *e, ELocalOuts *it);

/* A walk over the compute blocks on core k that read storage block s (emit_local_readers.c),
 * in s's edge order: made by emit_local_readers, then each emit_local_readers_next gives the
 * next such reader (an edge whose end is no block, a block of another core or another kind
 * than compute, passed over). */
typedef struct ELocalReaders {
    uint32_t s, k;
    uint32_t j;          /* the index in s's out_edges of the edge last given, */
    const Edge *ed;      /* that edge, */
    uint32_t r;          /* its reader (position in g->blocks), */
    int32_t phase, slot; /* and the reader's phase and slot (PIIndex) */
    uint32_t next;       /* the index of the next edge to look at */
} ELocalReaders;

ELocalReaders emit_local_readers(uint32_t s, uint32_t k);
/* Whether there is a next such reader (it->j, it->ed, it->r, it->phase, it->slot then name
 * it); false once every edge is walked. */
bool emit_local_readers_next(const Emit *e, ELocalReaders *it);

/* Appends sends s[0..n) to ph's chain_rest; out of memory: ST_RUNTIME (recorded in e->d). */
Status emit_chain_rest_add(Emit *e, EPhase *ph, const ESend *s, size_t n);
/* Whether sends a and b carry the same run: the same words, in the same pattern. */
bool emit_same_run(const ESend *a, const ESend *b);
/* One run core k sends to several cores in a phase: its sends [i, i + m) of the phase. */
typedef struct EChainRun {
    uint32_t k;
    size_t i, m;
} EChainRun;
/* The relaying chains of phase p, all its runs[0..n) planned together (emit_chain_plan.c):
 * each run's sends in its chain's order, the first (to its first core) marked relay; every
 * core's next core, receive base and packets forwarded. */
Status emit_chain_plan(Emit *e, int32_t p, const EChainRun *runs, size_t n);
/* The area of core k's receive area that word w lands in in phase p: the lowest-numbered
 * request alive there that holds it and is not done with before the router; EMIT_NONE when
 * none (emit_pin.c). */
uint32_t emit_pin_area(const Emit *e, uint32_t k, int32_t p, int64_t w);
/* Records a run a relaying chain cannot carry as the copies lie (EPins.runs grows): its m
 * cores and the words it lands at on each, in phase p; a run already recorded, or one
 * landing outside the receive areas, is not. Out of memory: ST_RUNTIME. */
Status emit_pin_run(Emit *e, int32_t p, const uint32_t *cores, const int64_t *dst, size_t m);
/* Records that the copy of storage block position pos on core k, which a run lands in
 * whole, should land in pitch words a pixel, as the same words land on a relaying chain's
 * cores in the same phase (the router sends a run once a phase: emit_route.c). Recorded once
 * (EPIN_PITCH). Out of memory: ST_RUNTIME. */
Status emit_pin_pitch(Emit *e, uint32_t k, uint32_t pos, int64_t pitch);
/* The pitch recorded for the copy of block position pos on core k, 0: none. */
int64_t emit_pin_pitch_of(const Emit *e, uint32_t k, uint32_t pos);
/* Whether storage block position s's copies take writer w's words from its int32 area
 * (recorded by an earlier pass, emit_narrow_send.c). */
bool emit_narrow_send_of(const Emit *e, uint32_t w, uint32_t s);
/* Core k's run of phase p to cores a->dst_core and b->dst_core, which no tie of receive bases
 * puts at one offset on both, beside another run of it, a2 and b2 to the same two cores: when
 * each pair lands in one area of its core at two distances (copies of two layouts) and the
 * writer of one of the two storages (b's first) on core k narrows an int32 area of that
 * copy's pitch into a map of another, records that the storage's copies take its words from
 * that area in the next pass (EPIN_RAW; *noted); when neither writes so, that b's
 * storage's copies take them from a second copy of the buffer of the writer of both
 * (emit_senddup_note; *noted when it was not recorded yet). Out of memory: ST_RUNTIME. */
Status emit_narrow_send_note(Emit *e, uint32_t k, int32_t p, const ESend *a, const ESend *b,
                             const ESend *a2, const ESend *b2, bool *noted);
/* The last phase writer w's int32 area (narrowed in phase p) lives in: the last in which its
 * router sends to a storage recorded so (emit_narrow_send_of), within the step; else p. */
int32_t emit_narrow_send_last(Emit *e, uint32_t w, int32_t p);
/* The narrowing of writer w whose int32 area the router sends storage block position s's
 * copy of layout df from in phase p, or NULL. */
const ENarrow *emit_narrow_send_area(const Emit *e, uint32_t w, uint32_t s, int32_t p,
                                     const EmitFeat *df);
/* Two sends a and b of core k's router in one phase overlapping on its area (emit_route.c),
 * for which no pitch was recorded (emit_pin_pitch): when they are one writer's words to
 * copies of two storage blocks in runs of two lengths or strides, records that b's storage's
 * copies take them from a second copy of the writer's buffer (or of the copy it sends from)
 * in the next pass (EPIN_DUP; emit_senddup.c); a's instead when a second copy may serve a's
 * copy and not b's (b's on the writer's own core, or of another pitch than the buffer's). Out of memory: ST_RUNTIME. */
Status emit_senddup_hint(Emit *e, uint32_t k, const ESend *a, const ESend *b);
/* The same for sends a and b of one run that a relaying chain cannot carry, the copies laid
 * out differently (emit_narrow_send_note), whatever their lengths and strides. */
Status emit_senddup_note(Emit *e, uint32_t k, const ESend *a, const ESend *b);
/* The halves of core k's send areas and their writers' inputs (emit_sendhalf.c): a send area
 * begins with its P06's Soma in its first phase (alloc.h first_soma); an Axon writer's input
 * copy that nothing touches past that Axon in the writer's phase, when a send area of the
 * writer begins there, ends with it (last_axon). Asked by the memory plan's marking of the
 * phases' halves (emit_plan.c). */
void emit_send_halves(Emit *e, uint32_t k);
/* Whether the copies of storage block position s take writer w's words from a second copy
 * of its buffer (a send area of its own pitch): recorded by an earlier pass. */
bool emit_senddup_of(const Emit *e, uint32_t w, uint32_t s);
/* The send area holding a second copy of copy ci (on writer w's core, which w writes and
 * sends from) for storage block position s's copies, sending in phase p, or NULL. */
const ESendBuf *emit_senddup_copy(const Emit *e, uint32_t w, uint32_t ci, uint32_t s,
                                  int32_t p);
/* Notes the send areas of second copies of the copies writers send from (no output buffer)
 * that earlier passes recorded (emit_senddup_hint), each from its writer's first send to
 * that storage to its last in time order (emit_send_time). Out of memory: ST_RUNTIME. */
Status emit_senddup_copies(Emit *e);
/* The P06 copying send area sb's copy into it (sb->copy set, its slot found). */
Status emit_senddup_prim(Emit *e, const ESendBuf *sb);
/* Send areas laid out slice by slice (emit_sliceout.c): a writer whose router sends, in one
 * phase, column slices of its buffer to other cores in more runs (a run a row) than a header
 * table holds gets, for as many of those slices as free Soma slots between it and the router
 * allow, a compact copy of the slice (a P06 keeping each row's slice), which the router
 * sends in one run. emit_sliceout_plan: after the other send areas are placed;
 * emit_sliceout_of: the area holding edge eid's slice of writer w sent in phase p, or NULL;
 * emit_sliceout_prim: its P06. */
Status emit_sliceout_plan(Emit *e);
const ESendBuf *emit_sliceout_of(const Emit *e, uint32_t w, int32_t eid, int32_t p);
Status emit_sliceout_prim(Emit *e, const ESendBuf *sb);
/* Copies laid out band by band and slice by slice (emit_bandslice.c): emit_bandslice_plan,
 * after the other send areas; emit_bandslice_copy / _writer: the record of copy ci or of
 * writer w, or NULL; emit_bandslice_bands: its bands (first row, rows; at most max) in
 * order; emit_bandslice_at: the words from the area's start to column x of the band of
 * `rows` rows from y0 (copy or buffer coordinates, pw words a pixel); emit_bandslice_land:
 * the rows of box `part` of such a copy that its part pt brings (*piece), and the stand-in
 * copy and origin word (*stand, *dbase) that land them compact in pt's landing area after
 * the slices before them: 1, 0 when it brings none, -1 when they are not inside one
 * slice; emit_bandslice_next, for a copy of whole-row bands (win 0): from *it (0 first) on,
 * the next piece of box `part` (one row, inside one slice) that part pt brings, with its
 * stand-in copy and origin word in pt's landing area, in the writer's order (row by row,
 * slice by slice): false when none is left; emit_bandslice_slice: the first column (from
 * the copy's) and the width of the slice holding column dx. */
Status emit_bandslice_plan(Emit *e);
void emit_bandslice_slice(const Emit *e, const EBandSlice *bs, int64_t dx, int64_t *x0,
                          int64_t *w);
const EBandSlice *emit_bandslice_copy(const Emit *e, uint32_t ci);
const EBandSlice *emit_bandslice_writer(const Emit *e, uint32_t w);
int emit_bandslice_bands(const Emit *e, const EBandSlice *bs, int64_t *y0, int64_t *rows,
                         int max);
int64_t emit_bandslice_at(const Emit *e, const EBandSlice *bs, int64_t y0, int64_t rows,
                          int64_t x, int64_t pw);
int emit_bandslice_land(const Emit *e, const EPart *pt, const EBox *part, EBox *piece,
                        ECopy *stand, int64_t *dbase);
bool emit_bandslice_next(const Emit *e, const EPart *pt, const EBox *part, int64_t *it,
                         EBox *piece, ECopy *stand, int64_t *dbase);
/* The time order of a send by writer w's router in phase p: p, or p + the core's phases when
 * that router comes before w's slot in the step (it sends in the next step: a transfer the
 * Mapping spreads past the end of the step, or from a Soma2 in the last phase;
 * emit_sendbuf.c). */
int32_t emit_send_time(const Emit *e, uint32_t w, int32_t p);
/* cp as its landing area lays it out: cp itself, or *tmp, cp in its land_pitch. */
const ECopy *emit_copy_landed(const ECopy *cp, ECopy *tmp);
/* The fixed addresses of the areas the recorded runs land in (ECore.at), before the memory
 * plan: each set of areas the runs tie (a run lands at one address on each of its cores)
 * at the lowest place in the receive areas where each fits beside those fixed before it;
 * a set whose ties contradict each other, or that fits nowhere, stays free. */
Status emit_pin_place(Emit *e);
/* A core's sends of a phase past its P09's header table, carried on in the next phases where
 * both cores are free for them (emit_route_spill.c, after the chains). */
Status emit_route_spill(Emit *e);
/* Whether send s of core sk may move from phase p to p + 1 as its receiver sees it, and its
 * sender's area (emit_route_spill.c); with commit, the areas are kept alive until then and
 * the copy's P06 out of the receive area follows. in_chain: s is one core's part of a
 * relaying chain's run moved whole (emit_spill_chain.c checks the chain's cores in p + 1). */
bool emit_spill_movable(Emit *e, uint32_t sk, int32_t p, const ESend *s, bool commit,
                        bool in_chain);
/* Whether send s of core sk, moved into phase p from p - 1, may go on to p + 1 (asked, not
 * committed: emit_route_spill.c). */
bool emit_spill_goes_on(Emit *e, uint32_t sk, int32_t p, const ESend *s);
/* Whether word run s, sent as bytes (a phase that sends bytes), keeps to a header's ranges:
 * it lands within 4096 packets of its receiver's base (base: a word), has at most 4096
 * packets, and, cut in runs, at most 128 a run and a gap of fewer than 4096
 * (emit_spill_stuck.c). */
bool emit_spill_fits_bytes(const ESend *s, int64_t base);
/* Whether run of bytes s of core k's phase p, moved on, would be stuck: carried through the
 * phases after p in which core k sends a word run that may not move and leaves a byte
 * header's reach (those phases must send words; up to four), it may not go on from one of
 * them (*push: whether p + 1 is such a phase; -1 until asked, then set; emit_spill_stuck.c). */
bool emit_spill_stuck(Emit *e, uint32_t k, int32_t p, const ESend *s, int8_t *push);
/* The receive bases (words) of phase p raised so that the runs of bytes that may not go on
 * to p + 1 (or would be stuck there) reach, when every run landing below the raised base
 * may go on (emit_spill_stuck.c). raised[d]: bytes land on core d 4 KiB or more past the
 * receive area's start (base[d] then its first word); push: per core, as for
 * emit_spill_stuck. */
void emit_spill_raise(Emit *e, int32_t p, int64_t *base, const bool *raised, int8_t *push);
/* Whether the P06 gathering copy cp in Soma2 of phase p may go to Soma2 of p + 1, as the
 * copy's runs spilled there do (emit_gather_late.c): that slot is free and the CADD comes
 * later; with commit it goes there. */
bool emit_gather_later(Emit *e, const ECopy *cp, int32_t p, bool commit);
/* The header table's room a phase's spill keeps for its runs that may not move
 * (emit_headroom.c): the runs in the spill's order, each its first unit, the unit after its
 * last (in the phase's units) and whether it may not move. */
typedef struct EHeadRun {
    int64_t src, end;
    bool fixed;
} EHeadRun;
typedef struct EHeadroom {
    const EHeadRun *runs;
    size_t n;
    int64_t per, wb;                /* units a packet, a word */
    size_t *next;                   /* next[i]: the first fixed run from i on (n: none) */
    int64_t *tail;                  /* tail[f], f fixed: the headers f and the fixed runs after
                                       it take, every run between them that may move moved */
} EHeadroom;
/* Fills h for runs[0..n) (kept, not copied). Out of memory: ST_RUNTIME. */
Status emit_headroom_init(Emit *e, EHeadroom *h, const EHeadRun *runs, size_t n, int64_t per,
                          int64_t wb);
/* The headers the fixed runs from run i on take when the last run kept ends at unit end
 * (kept false: none is kept yet) and every run from i on that may move moves. */
int64_t emit_headroom(const EHeadroom *h, size_t i, int64_t end, bool kept);
void emit_headroom_free(EHeadroom *h);
/* Moves the relaying chain's run that core k starts with its send s (relay) in phase p
 * whole into phase p + 1 when every core of the chain is free for it then (emit_spill_chain.c):
 * the receivers' end marks, relays, next cores and receive bases there, the run's other
 * sends (EPhase.chain_rest) with it; *moved: whether it did (the caller moves s itself).
 * Without commit nothing moves: *moved says whether it would. Out of memory: ST_RUNTIME. */
Status emit_spill_chain(Emit *e, uint32_t k, int32_t p, const ESend *s, bool commit,
                        bool *moved);
/* Core k's runs of phase p (words) joined under fewer headers when they pass the header
 * table: a run takes in the runs after it in memory, and the words between, that land where
 * it carried on puts them on its cores or in words of their areas nothing else uses
 * (emit_spill_merge.c); the sends come out in the order of memory. Out of memory:
 * ST_RUNTIME. */
Status emit_spill_merge(Emit *e, uint32_t k, int32_t p);
/* Whether run s (words) spilled into phase q may land on its receiver, chained then, below its
 * receive base: *ok when the bases of the cores the chains of q tie to it, all lowered by one
 * amount, take it and keep every packet they receive within reach (emit_spill_lower.c); with
 * commit the bases are lowered. Out of memory: ST_RUNTIME. */
Status emit_spill_lower(Emit *e, int32_t q, const ESend *s, bool commit, bool *ok);
/* Whether the receive bases of phase q of core k and of every core the chains of q tie to it,
 * all lowered by d words, stay inside MEM2 and keep every packet they receive in q within
 * reach (*ok); with commit they are lowered. Out of memory: ST_RUNTIME. */
Status emit_chain_lower(Emit *e, int32_t q, uint32_t k, int64_t d, bool commit, bool *ok);
/* The word of unit 0 of core k's receive area in phase p. */
int64_t emit_recv_base(const Emit *e, uint32_t k, int32_t p);
/* P02's window s / p of block b within the kernel fields' 1..255: a whole map past them
 * read in another shape of the same pixels; else a logic error [emit.layout] (emit_window.c). */
Status emit_p02_window(Emit *e, const Block *b, Taskir__Shape *s, Taskir__Asm__P02 *p);
Status emit_io(Emit *e, ProgSet *out);      /* emit_io.c */

/* Appends the m records at recs (of kind's type) to e->pins's list of kind (emit_pins.c):
 * all of them, or none and ST_RUNTIME (out of memory, recorded in e->d). */
Status emit_pin_add(Emit *e, EPinKind kind, const void *recs, size_t m);
/* The records of kind recorded so far: 0 without pins (emit_pins.c). */
size_t emit_pins_n(const Emit *e, EPinKind kind);
/* Record i (< emit_pins_n) of kind, of that kind's type (emit_pins.c). */
const void *emit_pin_at(const Emit *e, EPinKind kind, size_t i);
/* The records of every kind in pins, into n[EPIN_KINDS] (emit_pins.c). */
void emit_pins_count(const EPins *pins, size_t *n);
/* After a pass that began with was[] (emit_pins_count): whether it recorded any, each kind
 * that grew counting the pass (EPinList.passes) (emit_pins.c). */
bool emit_pins_grew(EPins *pins, const size_t *was);
/* The passes the records so far add to EMIT_PASSES (EMIT_PIN_KINDS), and the most every
 * kind may add (emit_pins.c). */
size_t emit_pins_more(const EPins *pins);
size_t emit_pins_most(void);
/* Frees pins's lists (not pins). */
void emit_pins_finish(EPins *pins);

/* arr (capacity *cap elements of elem bytes) with room for element n: arr itself, or
 * reallocated to twice the capacity; NULL (arr untouched, out of memory recorded in e->d)
 * when it cannot, or when twice the capacity, or its bytes, would pass SIZE_MAX. */
void *emit_grow(Emit *e, void *arr, size_t *cap, size_t n, size_t elem);
/* Appends p (not NULL) to the repeated message field arr of n elements; ok: whether it did
 * (false when out of memory: arr untouched). */
#define EMIT_APPEND(arr, n, p, ok)                                                      \
    do {                                                                                \
        void *na_ = (n) < SIZE_MAX / sizeof *(arr) - 1                                  \
                        ? realloc((arr), ((n) + 1) * sizeof *(arr)) : NULL;             \
        (ok) = na_ != NULL;                                                             \
        if (na_) {                                                                      \
            (arr) = na_;                                                                \
            (arr)[(n)++] = (p);                                                         \
        }                                                                               \
    } while (0)
/* Allocation helpers that record out of memory in e->d: a zeroed protobuf-c message
 * initialised with init, or NULL. */
void *emit_msg(Emit *e, size_t size, void (*init)(void *));
char *emit_strdup(Emit *e, const char *s);

/* The StaticPrimList of core k, phase p (created on first use; NULL when out of memory). */
Taskir__Asm__StaticPrimList *emit_slot_list(Emit *e, uint32_t k, int32_t p);

#endif
