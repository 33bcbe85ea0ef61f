/* run.c: the executor's cores and phase loop (run.h, docs/backend.md "Running a program
 * set"). Every core with a program gets its memory; the static blocks and the input dynamic
 * blocks are written; then, step by step and phase by phase, every core runs its Axon and
 * Soma1, the router moves the phase's packets, every core runs its Soma2; the output dynamic
 * blocks are read back at the end (or after the phases they list). Cores run in the order of
 * their global coordinates, so a run is deterministic. */
#include "backend/run_internal.h"

#include "backend/progset_check.h"

#include <stdlib.h>
#include <string.h>


typedef struct RunCoreX {
    RunCore c;
    int64_t steps;
} RunCoreX;

static int core_cmp(const void *a, const void *b)
{
    const RunCore *x = a, *y = b;
    if (x->gy != y->gy)
        return (x->gy > y->gy) - (x->gy < y->gy);
    return (x->gx > y->gx) - (x->gx < y->gx);
}

RunCore *run_core_at(const Run *r, int64_t gx, int64_t gy)
{
    size_t lo = 0, hi = r->n_cores;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const RunCore *c = &r->cores[mid];
        if (c->gy < gy || (c->gy == gy && c->gx < gx))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->n_cores && r->cores[lo].gx == gx && r->cores[lo].gy == gy ? &r->cores[lo]
                                                                             : NULL;
}

void run_where(const RunCore *c, int phase, char *buf, size_t len)
{
    if (phase < 0)
        snprintf(buf, len, "chip (%d,%d) core (%d,%d)", c->chip_x, c->chip_y, c->x, c->y);
    else
        snprintf(buf, len, "chip (%d,%d) core (%d,%d) phase %d", c->chip_x, c->chip_y, c->x,
                 c->y, phase);
}

static const Taskir__Asm__StaticPrimList *phase_list(const RunCore *c, int phase)
{
    return phase >= 0 && (size_t)phase < c->cc->n_static_prim_list
               ? c->cc->static_prim_list[phase] : NULL;
}

const Taskir__Asm__P09 *run_router_prim(const RunCore *c, int phase)
{
    const Taskir__Asm__StaticPrimList *l = phase_list(c, phase);
    return l && l->router ? l->router->p09 : NULL;
}

/* The cores of the set, sorted, each with its memory and its step count. */
static Status make_cores(Run *r, const RunOptions *opt, int64_t **steps, Diag *d)
{
    const Taskir__Asm__BehaviorConfig *bc = r->set->config->behavior_config;
    size_t n = 0, max = opt && opt->max_cores ? opt->max_cores : RUN_MAX_CORES;
    for (size_t i = 0; bc && i < bc->n_step_config; i++)
        for (size_t j = 0; j < bc->step_config[i]->n_phase_group_config; j++)
            n += bc->step_config[i]->phase_group_config[j]->n_core_config;
    if (n > max)
        return diag_add(d, ST_LOGIC, "prog.limit.cores", NULL, "%zu cores have a program, more "
                        "than a run may hold (%zu, %zu KiB each)", n, max,
                        sizeof(CoreMem) / 1024);
    RunCoreX *x = calloc(n + 1, sizeof *x);
    if (!x)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    size_t k = 0;
    for (size_t i = 0; bc && i < bc->n_step_config; i++) {
        const Taskir__Asm__StepConfig *sc = bc->step_config[i];
        for (size_t j = 0; j < sc->n_phase_group_config; j++)
            for (size_t m = 0; m < sc->phase_group_config[j]->n_core_config; m++) {
                const Taskir__Asm__CoreConfig *cc = sc->phase_group_config[j]->core_config[m];
                RunCore *c = &x[k].c;
                x[k++].steps = sc->has_step_exe_number ? sc->step_exe_number : 1;
                c->chip_x = sc->chip_x;
                c->chip_y = sc->chip_y;
                c->x = cc->core_x;
                c->y = cc->core_y;
                c->gx = sc->chip_x * PROG_CHIP_W + cc->core_x;
                c->gy = sc->chip_y * PROG_CHIP_H + cc->core_y;
                c->cc = cc;
            }
    }
    qsort(x, n, sizeof *x, core_cmp);   /* RunCore is RunCoreX's first member */
    r->cores = calloc(n + 1, sizeof *r->cores);
    *steps = calloc(n + 1, sizeof **steps);
    Status st = r->cores && *steps ? ST_OK : diag_add(d, ST_RUNTIME, "oom", NULL,
                                                      "out of memory");
    for (size_t i = 0; !st && i < n; i++) {
        r->cores[i] = x[i].c;
        (*steps)[i] = x[i].steps;
        r->n_cores = i + 1;
        if (!(r->cores[i].mem = core_mem_new()))
            st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory for the memory of %zu "
                          "cores", n);
    }
    free(x);
    return st;
}

static void free_cores(Run *r)
{
    for (size_t i = 0; i < r->n_cores; i++) {
        free(r->cores[i].mem);
        exec_stream_free(&r->cores[i].to_router);
        exec_stream_free(&r->cores[i].from_router);
    }
    free(r->cores);
    r->cores = NULL;
    r->n_cores = 0;
}

static bool lists(const int32_t *phases, size_t n, int phase)
{
    if (phase < 0)
        return n == 0;
    for (size_t i = 0; i < n; i++)
        if (phases[i] == phase)
            return true;
    return false;
}

/* The static blocks and input dynamic blocks due before phase (-1: before the run). */
static Status load_blocks(const Run *r, int phase, const int32_t *const *values, Diag *d)
{
    const ProgSet *s = r->set;
    const Taskir__Asm__DataConfig *dc = s->config->data_config;
    for (size_t i = 0; dc && i < dc->n_static_blocks; i++) {
        const Taskir__Asm__StaticBlock *b = dc->static_blocks[i];
        if (!lists(b->phases, b->n_phases, phase))
            continue;
        RunCore *c = run_core_at(r, (int64_t)b->chip_idx * PROG_CHIP_W + b->core_idx,
                                 (int64_t)b->chip_idy * PROG_CHIP_H + b->core_idy);
        if (c && s->data[i].n)  /* progset_check and read_data: the core, the range */
            memcpy(&c->mem->w[b->start_addr], s->data[i].w, s->data[i].n * sizeof(uint32_t));
    }
    for (size_t i = 0; dc && i < dc->n_dynamic_blocks; i++) {
        const Taskir__Asm__DynamicBlock *b = dc->dynamic_blocks[i];
        if (b->io_type != TASKIR__ASM__IOTYPE__INPUT_DATA || !lists(b->phases, b->n_phases, phase))
            continue;
        long k = prog_find_socket(s, 0, b->socket_id);
        Status st = run_io_write(r, b, &s->sockets[k], values[k], d);
        if (st)
            return st;
    }
    return ST_OK;
}

/* The output dynamic blocks due after phase (-1: after the run). */
static Status read_outputs(const Run *r, int phase, int32_t **values, uint8_t **covered,
                           Diag *d)
{
    const ProgSet *s = r->set;
    const Taskir__Asm__DataConfig *dc = s->config->data_config;
    for (size_t i = 0; dc && i < dc->n_dynamic_blocks; i++) {
        const Taskir__Asm__DynamicBlock *b = dc->dynamic_blocks[i];
        if (b->io_type != TASKIR__ASM__IOTYPE__OUTPUT_DATA ||
            !lists(b->phases, b->n_phases, phase))
            continue;
        long k = prog_find_socket(s, 1, b->socket_id);
        Status st = run_io_read(r, b, &s->sockets[k], values[k], covered[k], d);
        if (st)
            return st;
    }
    return ST_OK;
}

/* One primitive slot of core c: run it, naming where on an error. */
static Status run_slot(RunCore *c, int phase, const char *slot,
                       const Taskir__Asm__AxonPrim *a, const Taskir__Asm__SomaPrim *s, Diag *d)
{
    char where[160], at[200];
    run_where(c, phase, where, sizeof where);
    snprintf(at, sizeof at, "%s %s", where, slot);
    size_t from = d->n;
    Status st;
    if (a)
        st = exec_axon(c->mem, a, d);
    else if (strcmp(slot, "soma1") == 0)
        st = exec_soma(c->mem, s, &c->to_router, NULL, d);
    else
        st = exec_soma(c->mem, s, NULL, &c->from_router, d);
    diag_prefix_where(d, from, at);
    return st;
}

/* Phase p of step t on every core that has it. */
static Status run_phase(Run *r, const int64_t *steps, int64_t t, int p, Diag *d)
{
    Status st = ST_OK;
    for (size_t i = 0; i < r->n_cores; i++) {
        r->cores[i].to_router.n = 0;
        r->cores[i].from_router.n = 0;
        r->cores[i].marks = r->cores[i].relayed = 0;
        r->cores[i].active = t < steps[i];
    }
    for (size_t i = 0; !st && i < r->n_cores; i++) {
        const Taskir__Asm__StaticPrimList *l =
            r->cores[i].active ? phase_list(&r->cores[i], p) : NULL;
        if (l && l->axon)
            st = run_slot(&r->cores[i], p, "axon", l->axon, NULL, d);
        if (!st && l && l->soma1)
            st = run_slot(&r->cores[i], p, "soma1", NULL, l->soma1, d);
    }
    if (!st)
        st = run_router_phase(r, p, d);
    for (size_t i = 0; !st && i < r->n_cores; i++) {
        const Taskir__Asm__StaticPrimList *l =
            r->cores[i].active ? phase_list(&r->cores[i], p) : NULL;
        if (l && l->soma2)
            st = run_slot(&r->cores[i], p, "soma2", NULL, l->soma2, d);
    }
    return st;
}

static Status run_steps(Run *r, const int64_t *steps, const int32_t *const *in, int32_t **out,
                        uint8_t **covered, Diag *d)
{
    int64_t n_steps = 0;
    int n_phases = 0;
    for (size_t i = 0; i < r->n_cores; i++) {
        if (steps[i] > n_steps)
            n_steps = steps[i];
        if ((int)r->cores[i].cc->n_static_prim_list > n_phases)
            n_phases = (int)r->cores[i].cc->n_static_prim_list;
    }
    Status st = load_blocks(r, -1, in, d);
    for (int64_t t = 0; !st && t < n_steps; t++)
        for (int p = 0; !st && p < n_phases; p++) {
            st = load_blocks(r, p, in, d);
            if (!st)
                st = run_phase(r, steps, t, p, d);
            if (!st)
                st = read_outputs(r, p, out, covered, d);
        }
    if (!st)
        st = read_outputs(r, -1, out, covered, d);
    return st;
}

/* Every element of every output socket written by an output block. */
static Status check_covered(const ProgSet *s, uint8_t **covered, Diag *d)
{
    for (size_t k = 0; k < s->n_sockets; k++) {
        if (!s->sockets[k].is_output)
            continue;
        int64_t n = prog_socket_volume(&s->sockets[k]);
        for (int64_t i = 0; i < n; i++)
            if (!covered[k][i])
                return diag_add(d, ST_LOGIC, "prog.dyn.cover", NULL, "output socket %d ('%s'): "
                                "element %lld is read by no output dynamic block",
                                s->sockets[k].socket_id, s->sockets[k].name, (long long)i);
    }
    return ST_OK;
}

Status prog_run(const ProgSet *s, const RunOptions *opt, const int32_t *const *in,
                int32_t **out, Diag *d)
{
    Run r = {.set = s};
    int64_t *steps = NULL;
    uint8_t **covered = calloc(s->n_sockets + 1, sizeof *covered);
    Status st = covered ? ST_OK : diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (size_t k = 0; !st && k < s->n_sockets; k++) {
        if (!s->sockets[k].is_output)
            continue;
        size_t n = (size_t)prog_socket_volume(&s->sockets[k]);
        out[k] = calloc(n + 1, sizeof *out[k]);
        covered[k] = calloc(n + 1, 1);
        if (!out[k] || !covered[k])
            st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory for the outputs");
    }
    if (!st)
        st = make_cores(&r, opt, &steps, d);
    if (!st)
        st = run_steps(&r, steps, in, out, covered, d);
    if (!st)
        st = check_covered(s, covered, d);
    for (size_t k = 0; k < s->n_sockets; k++) {
        if (covered)
            free(covered[k]);
        if (st && s->sockets[k].is_output) {
            free(out[k]);
            out[k] = NULL;
        }
    }
    free(covered);
    free(steps);
    free_cores(&r);
    return st;
}
