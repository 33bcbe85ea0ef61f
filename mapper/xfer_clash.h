/* xfer_clash.h: the receive phases a transfer may not share with another transfer from the
 * same writer (mapper/xfer_clash.c; docs/mapper.md, "Transfers"). Internal to mapper/. */
#ifndef TASKIR_MAPPER_XFER_CLASH_H
#define TASKIR_MAPPER_XFER_CLASH_H

#include "mapper/plan.h"

/* The planned transfers between cores receiving in one local phase (xfer_chain.c). */
typedef struct MPhaseXfers {
    uint32_t *list;
    size_t n, cap;
    /* xfer_chain.c's index of list[0 .. n_idx), filled as asked: list positions by writer
     * (head_t, n_tasks) and by receiving vcore (head_v, cap_v), each
     * position's next of the same writer and of the same vcore (next, 2 a position) */
    uint32_t *head_t, *head_v, *next;
    size_t n_idx, cap_v, cap_next;
    /* chain_index.c: per node (writer t, then vcore v at n_tasks + v; n_tasks + cap_v of
     * them) its parent in the components the indexed positions join writers and cores into,
     * and at a root the positions the component holds; per position the mark of the last
     * walk that met it (cap_seen); per root, the count its positions were found to fit
     * relaying chains at (fit_n; 0: never) and whether they did (xfer_chain.c) */
    uint32_t *uf, *cnt, *seen, *fit_n;
    uint8_t *fit_ok;
    size_t cap_seen;
} MPhaseXfers;

struct MChainMemo; /* xfer_chain.c's answers, kept while their phase's list is unchanged */

/* The transfers between cores by writer, and each one's box of its writer's result. */
typedef struct MClash {
    uint32_t *start; /* n_tasks + 1: task t's transfers are list[start[t] .. start[t + 1]) */
    uint32_t *list;  /* transfer indices (XF_CORE only) */
    MBox *box;       /* per transfer: the part of its writer's output it carries */
    MBox *run_box;   /* per transfer: box, its channels to the writer's pixel end where the
                        code generator sends them so (map_run_box), for the chains' check */
    MPhaseXfers *at; /* per local phase: the planned transfers receiving in it */
    uint32_t n_at;
    bool oom;        /* map_xfer_chains ran out of memory (and answered false) */
    /* chain_index.c's walks: a mark per node (as MPhaseXfers.uf: cap_mark), the walk's
     * stamp, its queue */
    uint32_t *mark, *queue;
    size_t cap_mark, cap_queue;
    uint32_t stamp;
    struct MChainMemo *memo;
} MClash;

/* Fills c for p's transfers (p's problem built); ST_RUNTIME when out of memory (c then
 * empty). */
Status map_clash_init(MClash *c, const MapPlan *p);
/* The part of its writer's result box the code generator sends for transfer x: box, its
 * channels up to the writer's pixel end where the code generator sends a part that ends its
 * copy's channels so (mapper/run_box.c). */
void map_run_box(const MapPlan *p, const MXfer *x, const MBox *box, MBox *out);
/* The bytes transfer xi's parts take in the receive area as the schedule plans them: its
 * bytes, or, where its writer sends from a copy on its own core of a wider pitch (run_box.c)
 * and a run a pixel would fill the copy's pixels, the bytes of its pixels in that pitch: the
 * code generator lands a copy spread over phases so (backend/emit_landpitch.c), the router
 * sending the sender's pixels whole. */
int64_t map_land_bytes(const MapPlan *p, uint32_t xi);
/* Frees what c holds; c may be empty. */
void map_clash_finish(MClash *c);
/* Whether transfer xi into vcore v may not receive in global phase ph: a planned transfer
 * from the same writer into another core receives in ph, xi's part there is not all of it
 * (part) or the other arrives in parts (several phases, or a copy over the receive area),
 * and their boxes of the writer's result overlap but differ (or either goes as runs of
 * bytes and they meet, or both are cut to the header table: lanes_part_cap). */
bool map_xfer_clash(const MapPlan *p, const MClash *c, uint32_t xi, uint32_t v, int32_t ph,
                    bool part);
/* Whether planned transfer y receives some of its bytes in global phase ph. */
bool map_clash_in_phase(const MapPlan *p, const MXfer *y, int32_t ph);
/* Whether transfers xi and yi (of one writer) carry the same box of its result. */
bool map_clash_same_box(const MClash *c, uint32_t xi, uint32_t yi);
/* Whether transfer xi into vcore v may not receive in global phase ph because a planned
 * transfer of the same box of its writer's result into another storage block on v receives
 * in ph, the two not twins (mapper/xfer_twice.c; the schedule asks it beside
 * map_xfer_clash). */
bool map_xfer_twice(const MapPlan *p, const MClash *c, uint32_t xi, uint32_t v, int32_t ph);
/* Notes planned transfer xi (its receive phases fixed) in the local phases it receives in;
 * ST_RUNTIME when out of memory. */
Status map_clash_note(MClash *c, const MapPlan *p, uint32_t xi);
/* Whether transfer xi into vcore v may not receive its bytes [from, from + bytes) in global
 * phase ph because the relaying chains of its local phase, over all writers, fit without
 * them and not with them (xfer_chain.c). */
bool map_xfer_chains(const MapPlan *p, MClash *c, uint32_t xi, uint32_t v, int32_t ph,
                     int64_t from, int64_t bytes);
/* The last receive phase of the planned transfers between cores into the copy transfer xi
 * fills, -1 when none: a copy over the receive area moves each phase's part out of it as at
 * most two runs of pixels (backend/emit_spread.c), so its transfers arrive in the order they
 * are planned, none before the last phase of one planned before it (a transfer the clash
 * above delays would leave a hole between the runs of a later phase). */
int32_t map_copy_last_phase(const MapPlan *p, uint32_t xi);
/* Whether the copy transfer xi fills is larger than the receive area: the code generator
 * then moves every part of it out of the receive area in Soma2 of the phase it lands in, as
 * for a transfer over several phases (backend/emit_spread.c). */
bool map_xfer_over_recv(const MapPlan *p, uint32_t xi);

#endif
