/* emit_cores.c: the cores of the Mapping by place (emit_core). Every coordinate of every
 * dict names a core; the code generator asks for its index many times a transfer (the
 * sends and receives of each edge, each phase), so the places are kept in an open-addressed
 * table beside e->cores (Emit.core_slots: a power of two of slots, each a core's index or
 * EMIT_NONE, at most half of them taken): a lookup is a hash of the place and a few probes
 * instead of a walk over every core. The table indexes the first n_slotted cores; cores put
 * in e->cores by other means (a test's hand-made Emit) are added at the next call, the first
 * of two at one place keeping it, as the walk over the cores did. A core is added at the end
 * of e->cores when its place is new: the indices are the order of first asking. Also the
 * largest phase count of the cores (emit_max_phases).
 */
#include "backend/emit_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CORE_SLOTS_MIN = 64 };

static bool same_core(const ECore *k, const MapXY *chip, const MapXY *core)
{
    return k->chip.x == chip->x && k->chip.y == chip->y && k->core.x == core->x &&
           k->core.y == core->y;
}

/* The slot of place (chip, core) in the table: the one holding its core, else the empty one
 * where it would go (the table always has one). */
static size_t core_slot(const Emit *e, const MapXY *chip, const MapXY *core)
{
    uint32_t h = (uint32_t)chip->x * 0x9e3779b1u ^ (uint32_t)chip->y * 0x85ebca77u ^
                 (uint32_t)core->x * 0xc2b2ae3du ^ (uint32_t)core->y * 0x27d4eb2fu;
    h ^= h >> 15;
    size_t mask = e->n_core_slots - 1;
    for (size_t s = h & mask;; s = (s + 1) & mask) {
        uint32_t k = e->core_slots[s];
        if (k == EMIT_NONE || same_core(&e->cores[k], chip, core))
            return s;
    }
}

/* Makes the table hold every core of e->cores with room for n cores at most half full;
 * false when out of memory (reported). */
static bool index_cores(Emit *e, size_t n)
{
    if (n > e->n_core_slots / 2) {
        size_t room = e->n_core_slots ? e->n_core_slots : CORE_SLOTS_MIN;
        while (n > room / 2 && room <= SIZE_MAX / 4 / sizeof *e->core_slots)
            room *= 2;
        uint32_t *slots = n <= room / 2 ? malloc(room * sizeof *slots) : NULL;
        if (!slots) {
            diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory writing the programs");
            return false;
        }
        for (size_t s = 0; s < room; s++)
            slots[s] = EMIT_NONE;
        free(e->core_slots);
        e->core_slots = slots;
        e->n_core_slots = room;
        e->n_slotted = 0;
    }
    for (; e->n_slotted < e->n_cores; e->n_slotted++) {
        const ECore *k = &e->cores[e->n_slotted];
        size_t s = core_slot(e, &k->chip, &k->core);
        if (e->core_slots[s] == EMIT_NONE) /* a place twice: the first keeps it */
            e->core_slots[s] = e->n_slotted;
    }
    return true;
}

uint32_t emit_core(Emit *e, const MapCoord *c)
{
    if (!index_cores(e, (size_t)e->n_cores + 1))
        return EMIT_NONE;
    size_t s = core_slot(e, &c->chip, &c->core);
    if (e->core_slots[s] != EMIT_NONE)
        return e->core_slots[s];
    ECore *nc = emit_grow(e, e->cores, &e->cap_cores, e->n_cores, sizeof *e->cores);
    if (!nc)
        return EMIT_NONE;
    e->cores = nc;
    ECore *k = &e->cores[e->n_cores];
    memset(k, 0, sizeof *k);
    k->chip = c->chip;
    k->core = c->core;
    k->step_group = c->step_group;
    k->phase_group = c->phase_group;
    snprintf(k->name, sizeof k->name, "chip (%" PRId32 ",%" PRId32 ") core (%" PRId32 ",%" PRId32 ")",
             c->chip.x, c->chip.y, c->core.x, c->core.y);
    e->core_slots[s] = e->n_cores;
    e->n_slotted = e->n_cores + 1;
    return e->n_cores++;
}

int32_t emit_max_phases(const Emit *e)
{
    int32_t n = 0;
    for (uint32_t k = 0; k < e->n_cores; k++)
        n = e->cores[k].n_phases > n ? e->cores[k].n_phases : n;
    return n;
}
