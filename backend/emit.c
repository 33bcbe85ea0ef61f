/* emit.c: the code generator's driver (emit.h, docs/backend.md "The code generator"): the
 * cores and phases of the Mapping, then the plan (emit_plan.c), the primitives
 * (emit_prim.c), the moves out of the receive area (emit_move.c), the router
 * (emit_route.c), the inputs and outputs (emit_io.c), and the Config that holds them: one
 * StepConfig per chip and step group, one PhaseGroupConfig per phase group, one CoreConfig
 * per core with a StaticPrimList for every phase of its group. */
#include "backend/emit_internal.h"

#include "taskir/exact.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void *emit_msg(Emit *e, size_t size, void (*init)(void *))
{
    void *p = malloc(size);
    if (!p) {
        diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory writing the programs");
        return NULL;
    }
    init(p);
    return p;
}

char *emit_strdup(Emit *e, const char *s)
{
    size_t n = strlen(s);
    char *p = malloc(n + 1);
    if (!p) {
        diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory writing the programs");
        return NULL;
    }
    memcpy(p, s, n + 1);
    return p;
}

void *emit_grow(Emit *e, void *arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return arr;
    size_t nc = !*cap ? 16 : *cap <= SIZE_MAX / 2 ? 2 * *cap : 0; /* 0: past size_t */
    void *na = nc && nc <= SIZE_MAX / elem ? realloc(arr, nc * elem) : NULL;
    if (!na) {
        diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory writing the programs");
        return NULL;
    }
    *cap = nc;
    return na;
}

uint32_t emit_request(Emit *e, uint32_t k, int64_t words, int32_t align, int32_t first,
                      int32_t last, AllocKind kind, int32_t tag)
{
    ECore *c = &e->cores[k];
    AllocReq *nr = emit_grow(e, c->reqs, &c->cap_reqs, c->n_reqs, sizeof *c->reqs);
    if (!nr)
        return EMIT_NONE;
    c->reqs = nr;
    c->reqs[c->n_reqs] = (AllocReq){words, align, first, last, kind, tag, false, false, 0, false, false, 0};
    return (uint32_t)c->n_reqs++;
}

void emit_request_drop(Emit *e, uint32_t k, uint32_t req)
{
    e->cores[k].reqs[req].words = 0;
}

ECopy *emit_copy_on(const Emit *e, uint32_t pos, uint32_t k)
{
    for (uint32_t i = 0; i < e->n_copy[pos]; i++)
        if (e->copies[e->first_copy[pos] + i].core == k)
            return &e->copies[e->first_copy[pos] + i];
    return NULL;
}

Taskir__Asm__StaticPrimList *emit_slot_list(Emit *e, uint32_t k, int32_t p)
{
    ECore *c = &e->cores[k];
    if (p < 0 || p >= c->n_phases)
        return NULL;
    if (!c->lists[p])
        c->lists[p] = emit_msg(e, sizeof *c->lists[p],
                               (void (*)(void *))taskir__asm__static_prim_list__init);
    return c->lists[p];
}

/* Records every coordinate's core and phase extent, and the compute blocks' places. */
static Status collect_cores(Emit *e)
{
    const Mapping *m = e->m;
    for (uint32_t pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < (pass ? m->n_edges : m->n_nodes); i++) {
            const MapDict *dict = pass ? &m->edges[i] : &m->nodes[i];
            long pos = pass ? -1 : graph_block_pos(e->g, dict->task_id);
            for (uint32_t j = 0; j < dict->n_coords; j++) {
                const MapCoord *c = &dict->coords[j];
                uint32_t k = emit_core(e, c);
                if (k == EMIT_NONE)
                    return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
                int32_t last = c->has_end_phase && c->end_phase > c->phase ? c->end_phase
                                                                           : c->phase;
                if (last + 1 > e->cores[k].n_phases)
                    e->cores[k].n_phases = last + 1;
                if (pos >= 0 && j == 0 && bt_info(e->g->blocks[pos]->type)->kind == BK_COMPUTE) {
                    e->core_of[pos] = k;
                    e->phase_of[pos] = c->phase;
                    e->slot_of[pos] = c->pi_index;
                }
            }
        }
    /* the mapper's stages are its phase groups (docs/mapper.md): one sample passes them in
     * as many steps */
    e->stages = 1;
    for (uint32_t k = 0; k < e->n_cores; k++)
        if (e->cores[k].phase_group >= e->stages)
            e->stages = e->cores[k].phase_group + 1;
    /* every core of a phase group runs as many phases as the group */
    for (uint32_t k = 0; k < e->n_cores; k++)
        for (uint32_t j = 0; j < e->n_cores; j++)
            if (e->cores[j].phase_group == e->cores[k].phase_group &&
                e->cores[j].step_group == e->cores[k].step_group &&
                e->cores[j].chip.x == e->cores[k].chip.x &&
                e->cores[j].chip.y == e->cores[k].chip.y &&
                e->cores[j].n_phases > e->cores[k].n_phases)
                e->cores[k].n_phases = e->cores[j].n_phases;
    for (uint32_t k = 0; k < e->n_cores; k++) {
        ECore *c = &e->cores[k];
        size_t n = c->n_phases ? (size_t)c->n_phases : 1;
        c->ph = calloc(n, sizeof *c->ph);
        c->lists = calloc(n, sizeof *c->lists);
        if (!c->ph || !c->lists)
            return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    emit_slot_blocks(e); /* the Soma slots the compute blocks take */
    return ST_OK;
}

/* The order of cores in the Config: chip (y, x), step group, phase group, core (y, x). */
typedef struct CoreKey {
    int32_t key[6];
    uint32_t k;
} CoreKey;

static int core_cmp(const void *a, const void *b)
{
    const CoreKey *x = a, *y = b;
    for (int i = 0; i < 6; i++)
        if (x->key[i] != y->key[i])
            return x->key[i] < y->key[i] ? -1 : 1;
    return 0;
}

static Taskir__Asm__CoreConfig *core_config(Emit *e, ECore *c)
{
    Taskir__Asm__CoreConfig *cc =
        emit_msg(e, sizeof *cc, (void (*)(void *))taskir__asm__core_config__init);
    if (!cc)
        return NULL;
    cc->has_core_x = cc->has_core_y = true;
    cc->core_x = c->core.x;
    cc->core_y = c->core.y;
    cc->static_prim_list = calloc((size_t)c->n_phases + 1, sizeof *cc->static_prim_list);
    if (!cc->static_prim_list) {
        free(cc);
        diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
        return NULL;
    }
    for (int32_t p = 0; p < c->n_phases; p++) {
        Taskir__Asm__StaticPrimList *l = emit_slot_list(e, (uint32_t)(c - e->cores), p);
        if (!l) {
            protobuf_c_message_free_unpacked(&cc->base, NULL);
            return NULL;
        }
        cc->static_prim_list[cc->n_static_prim_list++] = l;
        c->lists[p] = NULL; /* owned by cc now */
    }
    return cc;
}

/* The behavior_config: cores grouped by chip and step group, then phase group. */
static Status behavior(Emit *e, Taskir__Asm__Config *cfg)
{
    Taskir__Asm__BehaviorConfig *bc =
        emit_msg(e, sizeof *bc, (void (*)(void *))taskir__asm__behavior_config__init);
    if (!bc)
        return ST_RUNTIME;
    cfg->behavior_config = bc;
    CoreKey *ord = malloc((e->n_cores + 1) * sizeof *ord);
    if (!ord)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (uint32_t k = 0; k < e->n_cores; k++) {
        const ECore *c = &e->cores[k];
        ord[k] = (CoreKey){{c->chip.y, c->chip.x, c->step_group, c->phase_group, c->core.y,
                            c->core.x}, k};
    }
    qsort(ord, e->n_cores, sizeof *ord, core_cmp);
    Taskir__Asm__StepConfig *sc = NULL;
    Taskir__Asm__PhaseGroupConfig *pg = NULL;
    Status st = ST_OK;
    for (uint32_t i = 0; i < e->n_cores && st == ST_OK; i++) {
        ECore *c = &e->cores[ord[i].k];
        if (!sc || sc->chip_x != c->chip.x || sc->chip_y != c->chip.y ||
            sc->step_group_id != c->step_group) {
            sc = emit_msg(e, sizeof *sc, (void (*)(void *))taskir__asm__step_config__init);
            bool ok = false;
            if (sc)
                EMIT_APPEND(bc->step_config, bc->n_step_config, sc, ok);
            if (!ok) {
                free(sc);
                st = diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
                break;
            }
            sc->has_chip_x = sc->has_chip_y = sc->has_step_group_id = true;
            sc->chip_x = c->chip.x;
            sc->chip_y = c->chip.y;
            sc->step_group_id = c->step_group;
            if (e->stages > 1) { /* a sample passes stage k in step k */
                sc->has_step_exe_number = true;
                sc->step_exe_number = e->stages;
            }
            pg = NULL;
        }
        if (!pg || pg->phase_group_id != c->phase_group) {
            pg = emit_msg(e, sizeof *pg,
                          (void (*)(void *))taskir__asm__phase_group_config__init);
            bool ok = false;
            if (pg)
                EMIT_APPEND(sc->phase_group_config, sc->n_phase_group_config, pg, ok);
            if (!ok) {
                free(pg);
                st = diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
                break;
            }
            pg->has_phase_group_id = pg->has_phase_mode = true;
            pg->phase_group_id = c->phase_group;
            pg->phase_mode = TASKIR__ASM__PHASE_MODE__ADAPTED_CLOCK;
        }
        Taskir__Asm__CoreConfig *cc = core_config(e, c);
        bool ok = false;
        if (cc)
            EMIT_APPEND(pg->core_config, pg->n_core_config, cc, ok);
        if (!ok) {
            if (cc)
                protobuf_c_message_free_unpacked(&cc->base, NULL);
            st = diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
        }
    }
    free(ord);
    return st;
}

static void free_emit(Emit *e)
{
    if (e->exact)
        exact_finish(e->exact);
    free(e->exact);
    for (uint32_t k = 0; k < e->n_cores; k++) {
        ECore *c = &e->cores[k];
        for (int32_t p = 0; c->ph && p < c->n_phases; p++) {
            free(c->ph[p].sends);
            free(c->ph[p].chain_rest);
        }
        for (int32_t p = 0; c->lists && p < c->n_phases; p++)
            if (c->lists[p])
                protobuf_c_message_free_unpacked(&c->lists[p]->base, NULL);
        free(c->ph);
        free(c->lists);
        free(c->reqs);
        free(c->addr);
        free(c->rparts);
        free(c->at);
    }
    for (uint32_t i = 0; i < e->n_copies; i++)
        free(e->copies[i].image);
    free(e->cores);
    free(e->core_slots);
    free(e->copies);
    free(e->core_of);
    free(e->phase_of);
    free(e->slot_of);
    free(e->first_copy);
    free(e->n_copy);
    free(e->outs);
    free(e->dict_of_edge);
    free(e->dups);
    free(e->tees);
    free(e->gathers);
    free(e->sendbufs);
    free(e->bandslices);
    free(e->parts);
    for (size_t i = 0; i < e->n_states; i++)
        free(e->states[i].image);
    free(e->states);
    free(e->narrows);
    free(e->merges);
    free(e->chmerges);
    free(e->widens);
    free(e->stagings);
    emit_by_core_finish(&e->copy_idx);
    emit_by_core_finish(&e->part_idx);
    emit_by_core_finish(&e->out_idx);
    emit_by_core_finish(&e->sendbuf_idx);
    graph_uses_finish(&e->uses);
}

const EDup *emit_dup_of(const Emit *e, uint32_t pos)
{
    for (size_t i = 0; i < e->n_dups; i++)
        if (e->dups[i].cadd == pos)
            return &e->dups[i];
    return NULL;
}

Status emit_program(const Mapping *m, const Chip *chip, ProgSet *out, Diag *d)
{
    return emit_program_progress(m, chip, out, d, NULL);
}

enum { EMIT_STAGES = 8 }; /* the stages emit_program_progress reports */

/* One pass of the emitter, its findings into d; the runs of relaying chains it refuses
 * appended to pins, whose earlier runs it lays out first (emit_pin.c). */
static Status emit_pass(const Mapping *m, const Chip *chip, ProgSet *out, Diag *d,
                        const TirProgress *progress, EPins *pins)
{
    memset(out, 0, sizeof *out);
    Emit e = {.m = m, .g = m->graph, .chip = chip, .d = d, .pins = pins};
    uint32_t nb = m->graph->n_blocks ? m->graph->n_blocks : 1;
    e.core_of = malloc(nb * sizeof *e.core_of);
    e.phase_of = calloc(nb, sizeof *e.phase_of);
    e.slot_of = calloc(nb, sizeof *e.slot_of);
    e.first_copy = calloc(nb, sizeof *e.first_copy);
    e.n_copy = calloc(nb, sizeof *e.n_copy);
    e.outs = calloc(nb, sizeof *e.outs);
    uint32_t ne = m->graph->n_edges ? m->graph->n_edges : 1;
    e.dict_of_edge = malloc(ne * sizeof *e.dict_of_edge);
    Status st = ST_OK;
    if (!e.core_of || !e.phase_of || !e.slot_of || !e.first_copy || !e.n_copy || !e.outs ||
        !e.dict_of_edge || !graph_uses(e.g, &e.uses))
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (uint32_t i = 0; st == ST_OK && i < ne; i++)
        e.dict_of_edge[i] = EMIT_NONE;
    for (uint32_t i = 0; st == ST_OK && i < m->n_edges; i++) { /* the first dict of an edge */
        long pos = graph_edge_pos(e.g, m->edges[i].task_id);
        if (pos >= 0 && e.dict_of_edge[pos] == EMIT_NONE)
            e.dict_of_edge[pos] = i;
    }
    for (uint32_t i = 0; st == ST_OK && i < nb; i++)
        e.core_of[i] = EMIT_NONE;
    uint64_t stage = 0;
    if (st == ST_OK)
        st = collect_cores(&e);
    tir_progress(progress, "stage", ++stage, EMIT_STAGES);
    if (st == ST_OK)
        st = emit_plan(&e);
    tir_progress(progress, "stage", ++stage, EMIT_STAGES);
    Taskir__Asm__Config *cfg = NULL;
    if (st == ST_OK) {
        cfg = emit_msg(&e, sizeof *cfg, (void (*)(void *))taskir__asm__config__init);
        out->config = cfg;
        st = cfg ? ST_OK : ST_RUNTIME;
    }
    if (st == ST_OK)
        st = emit_prims(&e, cfg);
    tir_progress(progress, "stage", ++stage, EMIT_STAGES);
    if (st == ST_OK)
        st = emit_moves(&e);
    tir_progress(progress, "stage", ++stage, EMIT_STAGES);
    if (st == ST_OK)
        st = emit_merge_prims(&e);
    if (st == ST_OK)
        st = emit_chmerge_prims(&e);
    if (st == ST_OK)
        st = emit_widen_prims(&e);
    if (st == ST_OK)
        st = emit_stage_prims(&e);
    if (st == ST_OK)
        st = emit_routes(&e);
    tir_progress(progress, "stage", ++stage, EMIT_STAGES);
    if (st == ST_OK)
        st = emit_router_prims(&e);
    tir_progress(progress, "stage", ++stage, EMIT_STAGES);
    if (st == ST_OK)
        st = emit_io(&e, out);
    tir_progress(progress, "stage", ++stage, EMIT_STAGES);
    if (st == ST_OK)
        st = behavior(&e, cfg);
    tir_progress(progress, "stage", ++stage, EMIT_STAGES);
    if (st == ST_OK && d->worst > ST_OK)
        st = d->worst;
    free_emit(&e);
    if (st != ST_OK)
        progset_free(out);
    return st;
}

/* Records entry x of another Diag into d (format "%s": its text). */
static void readd(Diag *d, const DiagEntry *x, const char *fmt, ...)
{
    char *where = x->where ? strdup(x->where) : NULL;
    if (x->where && !where)
        d->oom = true;
    va_list ap;
    va_start(ap, fmt);
    diag_vadd(d, x->status, x->rule, where, x->has_block, x->block_id, x->has_edge,
              x->edge_id, fmt, ap);
    va_end(ap);
}

/* d's findings followed by from's. */
static void diag_append(Diag *d, const Diag *from)
{
    for (size_t i = 0; i < from->n; i++)
        readd(d, &from->entries[i], "%s",
              from->entries[i].what ? from->entries[i].what : "(message lost: out of memory)");
    d->dropped += from->dropped;
    d->oom |= from->oom;
    if (from->worst > d->worst)
        d->worst = from->worst;
}

/* Passes at most: a pass that a relaying chain stops, having recorded runs or pitches no
 * earlier pass did, is followed by one that lays their areas out so (emit_pin.c), within
 * EMIT_PASSES; the records of some kinds add passes past them (one a buffer to send twice,
 * emit_senddup.c; one a pass that recorded spread parts to cut, emit_spreadcap.c; some once
 * parts' runs are recorded to land first, emit_partfirst.c), each at most its row's
 * (EMIT_PIN_KINDS), so that the graphs with none take no longer. A relaying chain's runs are
 * laid out a group of tied runs a pass, so EMIT_PASSES is 16
 * (test_diff_ops/broadcast_div_case_1_variant_0-4 lays out groups in 12 of its passes before
 * its runs of phases 23 and 24 tie, 8 before session 18); a graph whose every pass records
 * nothing new stops as soon. */
enum { EMIT_PASSES = 16 };

Status emit_program_progress(const Mapping *m, const Chip *chip, ProgSet *out, Diag *d,
                             const TirProgress *progress)
{
    EPins pins = {0};
    Status st = ST_OK;
    for (size_t pass = 0; pass < EMIT_PASSES + emit_pins_most(); pass++) {
        Diag pd; /* the pass's findings: those of the last pass are told */
        diag_init(&pd, NULL);
        size_t was[EPIN_KINDS];
        emit_pins_count(&pins, was);
        st = emit_pass(m, chip, out, &pd, pass ? NULL : progress, &pins);
        bool grew = emit_pins_grew(&pins, was);
        bool again = st == ST_LOGIC && grew && pass + 1 < EMIT_PASSES + emit_pins_more(&pins);
        if (!again)
            diag_append(d, &pd);
        diag_finish(&pd);
        if (!again)
            break;
    }
    emit_pins_finish(&pins);
    if (st == ST_OK && d->worst > ST_OK) {
        st = d->worst;
        progset_free(out);
    }
    return st;
}
