/* progset_check.c: the checks of a loaded program set (progset_check.h). */
#include "backend/progset_check.h"

#include "backend/core_mem.h"

#include <stdlib.h>
#include <string.h>

int64_t prog_socket_volume(const ProgSocket *k)
{
    int64_t v = 1;
    for (int i = 0; i < 4; i++)
        if (k->shape[i] > 0) {
            if (v > PROG_MAX_SOCKET_ELEMS)
                return PROG_MAX_SOCKET_ELEMS + 1;
            v *= k->shape[i];
        }
    return v;
}

long prog_find_socket(const ProgSet *s, int is_output, int socket_id)
{
    for (size_t i = 0; i < s->n_sockets; i++)
        if (s->sockets[i].is_output == is_output && s->sockets[i].socket_id == socket_id)
            return (long)i;
    return -1;
}

/* A programmed core's global coordinates, packed as one key; -1 out of range. */
static int64_t core_key(int64_t chip_x, int64_t chip_y, int64_t x, int64_t y)
{
    if (chip_x < 0 || chip_x >= PROG_MAX_CHIPS || chip_y < 0 || chip_y >= PROG_MAX_CHIPS ||
        x < 0 || x >= PROG_CHIP_W || y < 0 || y >= PROG_CHIP_H)
        return -1;
    return (chip_y * PROG_CHIP_H + y) * (PROG_MAX_CHIPS * PROG_CHIP_W) + chip_x * PROG_CHIP_W + x;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static bool id_ok(const char *id)
{
    if (!id || !*id || strcmp(id, ".") == 0 || strcmp(id, "..") == 0 || strlen(id) > 200)
        return false;
    for (const char *p = id; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '.' || *p == '-'))
            return false;
    return true;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static Status check_phases(const int32_t *ph, size_t n, const char *what, const char *id,
                           Diag *d)
{
    for (size_t i = 0; i < n; i++)
        if (ph[i] < 0 || ph[i] >= PROG_MAX_PHASES)
            return diag_add(d, ST_LOGIC, "prog.phase", NULL, "%s '%s': phase %d is outside "
                            "0..%d", what, id ? id : "", (int)ph[i], PROG_MAX_PHASES - 1);
    return ST_OK;
}

/* The programmed cores' keys, sorted; duplicates and bad coordinates reported. */
static Status core_keys(const Taskir__Asm__Config *c, int64_t **keys, size_t *n, Diag *d)
{
    const Taskir__Asm__BehaviorConfig *bc = c->behavior_config;
    size_t total = 0;
    for (size_t i = 0; bc && i < bc->n_step_config; i++)
        for (size_t j = 0; j < bc->step_config[i]->n_phase_group_config; j++)
            total += bc->step_config[i]->phase_group_config[j]->n_core_config;
    *keys = malloc((total + 1) * sizeof **keys);
    if (!*keys)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    *n = 0;
    for (size_t i = 0; bc && i < bc->n_step_config; i++) {
        const Taskir__Asm__StepConfig *sc = bc->step_config[i];
        if (sc->has_step_exe_number && (sc->step_exe_number < 1 ||
                                        sc->step_exe_number > 1000000))
            return diag_add(d, ST_LOGIC, "prog.step", NULL, "step group %d of chip (%d,%d): "
                            "step_exe_number %d is outside 1..1000000", sc->step_group_id,
                            sc->chip_x, sc->chip_y, sc->step_exe_number);
        for (size_t j = 0; j < sc->n_phase_group_config; j++) {
            const Taskir__Asm__PhaseGroupConfig *pg = sc->phase_group_config[j];
            for (size_t k = 0; k < pg->n_core_config; k++) {
                const Taskir__Asm__CoreConfig *cc = pg->core_config[k];
                int64_t key = core_key(sc->chip_x, sc->chip_y, cc->core_x, cc->core_y);
                if (key < 0)
                    return diag_add(d, ST_LOGIC, "prog.core", NULL, "core (%d,%d) of chip "
                                    "(%d,%d) is outside the chip array (%d x %d cores a chip, "
                                    "chips 0..%d)", cc->core_x, cc->core_y, sc->chip_x,
                                    sc->chip_y, PROG_CHIP_W, PROG_CHIP_H, PROG_MAX_CHIPS - 1);
                if (cc->n_static_prim_list > PROG_MAX_PHASES)
                    return diag_add(d, ST_LOGIC, "prog.phase", NULL, "chip (%d,%d) core (%d,%d) "
                                    "has %zu phases, more than the %d of a step", sc->chip_x,
                                    sc->chip_y, cc->core_x, cc->core_y,
                                    cc->n_static_prim_list, PROG_MAX_PHASES);
                (*keys)[(*n)++] = key;
            }
        }
    }
    qsort(*keys, *n, sizeof **keys, cmp_i64);
    for (size_t i = 1; i < *n; i++)
        if ((*keys)[i] == (*keys)[i - 1]) {
            int64_t k = (*keys)[i], w = PROG_MAX_CHIPS * PROG_CHIP_W;
            return diag_add(d, ST_LOGIC, "prog.core.duplicate", NULL, "core (%d,%d) of chip "
                            "(%d,%d) has two programs", (int)(k % w % PROG_CHIP_W),
                            (int)(k / w % PROG_CHIP_H), (int)(k % w / PROG_CHIP_W),
                            (int)(k / w / PROG_CHIP_H));
        }
    return ST_OK;
}

static bool programmed(const int64_t *keys, size_t n, int64_t key)
{
    return key >= 0 && bsearch(&key, keys, n, sizeof *keys, cmp_i64) != NULL;
}

static Status check_static(const Taskir__Asm__DataConfig *dc, const int64_t *keys, size_t nk,
                           Diag *d)
{
    const char **ids = malloc((dc->n_static_blocks + 1) * sizeof *ids);
    if (!ids)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    Status st = ST_OK;
    for (size_t i = 0; !st && i < dc->n_static_blocks; i++) {
        const Taskir__Asm__StaticBlock *b = dc->static_blocks[i];
        ids[i] = b->id;
        if (!id_ok(b->id))
            st = diag_add(d, ST_LOGIC, "prog.static.id", NULL, "static block %zu: id '%.64s' is "
                          "not 1 to 200 of [A-Za-z0-9_.-] (nor . or ..)", i, b->id ? b->id : "");
        else if (!programmed(keys, nk, core_key(b->chip_idx, b->chip_idy, b->core_idx,
                                                b->core_idy)))
            st = diag_add(d, ST_LOGIC, "prog.static.core", NULL, "static block '%s' goes to "
                          "core (%d,%d) of chip (%d,%d), which has no program", b->id,
                          b->core_idx, b->core_idy, b->chip_idx, b->chip_idy);
        else
            st = check_phases(b->phases, b->n_phases, "static block", b->id, d);
    }
    if (!st) {
        qsort(ids, dc->n_static_blocks, sizeof *ids, cmp_str);
        for (size_t i = 1; !st && i < dc->n_static_blocks; i++)
            if (strcmp(ids[i], ids[i - 1]) == 0)
                st = diag_add(d, ST_LOGIC, "prog.static.id", NULL, "two static blocks have the "
                              "id '%s'", ids[i]);
    }
    free(ids);
    return st;
}

static Status check_dynamic(const ProgSet *s, const int64_t *keys, size_t nk, Diag *d)
{
    const Taskir__Asm__DataConfig *dc = s->config->data_config;
    for (size_t i = 0; i < dc->n_dynamic_blocks; i++) {
        const Taskir__Asm__DynamicBlock *b = dc->dynamic_blocks[i];
        const char *id = b->id ? b->id : "";
        if (b->io_type != TASKIR__ASM__IOTYPE__INPUT_DATA &&
            b->io_type != TASKIR__ASM__IOTYPE__OUTPUT_DATA)
            return diag_add(d, ST_LOGIC, "prog.dyn.io", NULL, "dynamic block %zu ('%.64s') is "
                            "neither INPUT_DATA nor OUTPUT_DATA", i, id);
        int out = b->io_type == TASKIR__ASM__IOTYPE__OUTPUT_DATA;
        if (prog_find_socket(s, out, b->socket_id) < 0)
            return diag_add(d, ST_LOGIC, "prog.dyn.socket", NULL, "dynamic block %zu ('%.64s') "
                            "places %s socket %d, which sockets.json does not list", i, id,
                            out ? "output" : "input", b->socket_id);
        if (!programmed(keys, nk, core_key(b->chip_idx, b->chip_idy, b->core_idx,
                                           b->core_idy)))
            return diag_add(d, ST_LOGIC, "prog.dyn.core", NULL, "dynamic block %zu ('%.64s') "
                            "lies in core (%d,%d) of chip (%d,%d), which has no program", i, id,
                            b->core_idx, b->core_idy, b->chip_idx, b->chip_idy);
        Status st = check_phases(b->phases, b->n_phases, "dynamic block", id, d);
        if (st)
            return st;
    }
    return ST_OK;
}

Status progset_check(const ProgSet *s, Diag *d)
{
    int64_t *keys = NULL;
    size_t nk = 0;
    Status st = core_keys(s->config, &keys, &nk, d);
    const Taskir__Asm__DataConfig *dc = s->config->data_config;
    if (!st && dc)
        st = check_static(dc, keys, nk, d);
    if (!st && dc)
        st = check_dynamic(s, keys, nk, d);
    free(keys);
    return st;
}
