/* emit_pins.c: the lists of pin records, the runs and layouts a pass of the emitter refused
 * and recorded for the next pass to lay out otherwise (emit.c, EPins): one list a kind of
 * EMIT_PIN_KINDS, appended to by one checked grow-and-append, and the passes each kind adds
 * to the emitter's budget, counted from the same table.
 */
#include "backend/emit_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A kind's row of EMIT_PIN_KINDS: its record's size, how it adds passes, the most it adds. */
typedef struct PinRow {
    size_t size;
    EPinMore more;
    size_t most;
} PinRow;

static const PinRow rows[EPIN_KINDS] = {
#define EMIT_PIN_ROW_(kind, type, more, most) [EPIN_##kind] = {sizeof(type), more, most},
    EMIT_PIN_KINDS(EMIT_PIN_ROW_)
#undef EMIT_PIN_ROW_
};

Status emit_pin_add(Emit *e, EPinKind kind, const void *recs, size_t m)
{
    EPinList *l = &e->pins->of[kind];
    size_t size = rows[kind].size;
    if (!m)
        return ST_OK;
    if (m > SIZE_MAX - l->n)
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory writing the programs");
    while (l->cap < l->n + m) { /* emit_grow checks the doubling and the size */
        void *nr = emit_grow(e, l->recs, &l->cap, l->cap, size);
        if (!nr)
            return ST_RUNTIME;
        l->recs = nr;
    }
    memcpy((char *)l->recs + l->n * size, recs, m * size);
    l->n += m;
    return ST_OK;
}

size_t emit_pins_n(const Emit *e, EPinKind kind)
{
    return e->pins ? e->pins->of[kind].n : 0;
}

const void *emit_pin_at(const Emit *e, EPinKind kind, size_t i)
{
    return (const char *)e->pins->of[kind].recs + i * rows[kind].size;
}

void emit_pins_count(const EPins *pins, size_t *n)
{
    for (int k = 0; k < EPIN_KINDS; k++)
        n[k] = pins->of[k].n;
}

bool emit_pins_grew(EPins *pins, const size_t *was)
{
    bool grew = false;
    for (int k = 0; k < EPIN_KINDS; k++) {
        bool more = pins->of[k].n > was[k];
        pins->of[k].passes += more;
        grew |= more;
    }
    return grew;
}

size_t emit_pins_more(const EPins *pins)
{
    size_t more = 0;
    for (int k = 0; k < EPIN_KINDS; k++) {
        const EPinList *l = &pins->of[k];
        size_t by = rows[k].more == EPIN_MORE_RECORD ? l->n
                    : rows[k].more == EPIN_MORE_PASS ? l->passes
                    : rows[k].more == EPIN_MORE_ONCE && l->n ? rows[k].most
                                                             : 0;
        more += by < rows[k].most ? by : rows[k].most;
    }
    return more;
}

size_t emit_pins_most(void)
{
    size_t most = 0;
    for (int k = 0; k < EPIN_KINDS; k++)
        most += rows[k].most;
    return most;
}

void emit_pins_finish(EPins *pins)
{
    for (int k = 0; k < EPIN_KINDS; k++)
        free(pins->of[k].recs);
}
