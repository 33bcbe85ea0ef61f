/* emit_slot.c: the one table of who takes each Soma slot of a core's phases (EPhase.soma):
 * the compute blocks the Mapping places in Soma1 / Soma2, and the P06s the code generator
 * inserts (docs/backend.md "Inserted primitives"). Each kind of inserted P06 records the slot
 * it takes here when it plans it, and every search for a free slot asks here, so no two
 * primitives ever share a slot whatever the order the kinds are planned in.
 */
#include "backend/emit_internal.h"

#include "taskir/diag_block.h"

#include <stdio.h>


/* The entry of Soma slot (p, slot) of core k, or NULL outside its phases and Soma slots. */
static ESlotUse *entry(const Emit *e, uint32_t k, int32_t p, int32_t slot)
{
    const ECore *c = k < e->n_cores ? &e->cores[k] : NULL;
    if (!c || !c->ph || p < 0 || p >= c->n_phases || (slot != MAP_PI_SOMA1 && slot != MAP_PI_SOMA2))
        return NULL;
    return &c->ph[p].soma[slot == MAP_PI_SOMA2];
}

void emit_slot_blocks(Emit *e)
{
    for (uint32_t pos = 0; pos < e->g->n_blocks; pos++) {
        ESlotUse *u = e->core_of[pos] == EMIT_NONE
                          ? NULL
                          : entry(e, e->core_of[pos], e->phase_of[pos], e->slot_of[pos]);
        if (u && bt_info(e->g->blocks[pos]->type)->kind == BK_COMPUTE)
            *u = (ESlotUse){SLOT_BLOCK, pos};
    }
}

void emit_slot_what(const Emit *e, ESlotUse u, char *buf, size_t size)
{
    static const char *const what[] = {
        [SLOT_FREE] = "nothing",
        [SLOT_BLOCK] = "block",
        [SLOT_MOVE] = "the P06 moving out of the receive area a copy of block",
        [SLOT_PART] = "the P06 moving out of the receive area a part of block",
        [SLOT_DUP] = "the P06 repeating the box added to itself by block",
        [SLOT_NARROW] = "the P06 narrowing the int32 result of block",
        [SLOT_TEE] = "the P06 re-pitching into a second storage the result of block",
        [SLOT_GATHER] = "the P06 gathering an input of block",
        [SLOT_SENDBUF] = "the P06 writing into a send area the result of block",
        [SLOT_MERGE] = "the P06 merging column slices of block",
        [SLOT_WIDEN] = "the P06 widening for the OUTPUTs reading it block",
        [SLOT_STAGE] = "the P06 narrowing model inputs into block",
    };
    if (u.kind == SLOT_FREE || u.block >= e->g->n_blocks)
        snprintf(buf, size, "nothing");
    else
        snprintf(buf, size, "%s %d", what[u.kind], e->g->blocks[u.block]->id);
}

Status emit_slot_take(Emit *e, uint32_t k, int32_t p, int32_t slot, ESlotKind kind,
                      uint32_t block)
{
    ESlotUse *u = entry(e, k, p, slot);
    const Block *b = e->g->blocks[block];
    if (!u)
        return diag_block(e->d, ST_RUNTIME, "emit.internal", b,
                          "an inserted P06 planned in phase %d, slot %d, outside core %s's "
                          "Soma slots", p, slot, k < e->n_cores ? e->cores[k].name : "?");
    if (u->kind != SLOT_FREE) {
        char was[160];
        emit_slot_what(e, *u, was, sizeof was);
        return diag_block(e->d, ST_LOGIC, "emit.slot", b,
                          "needs Soma%d of phase %d on core %s for an inserted P06, which %s "
                          "takes", slot == MAP_PI_SOMA2 ? 2 : 1, p, e->cores[k].name, was);
    }
    *u = (ESlotUse){kind, block};
    return ST_OK;
}

void emit_slot_free(Emit *e, uint32_t k, int32_t p, int32_t slot)
{
    ESlotUse *u = entry(e, k, p, slot);
    if (u)
        *u = (ESlotUse){SLOT_FREE, 0};
}

ESlotUse emit_slot_use(const Emit *e, uint32_t k, int32_t p, int32_t slot)
{
    const ESlotUse *u = entry(e, k, p, slot);
    return u ? *u : (ESlotUse){SLOT_FREE, 0};
}

bool emit_soma_taken(const Emit *e, uint32_t k, int32_t p, int32_t slot)
{
    return emit_slot_use(e, k, p, slot).kind != SLOT_FREE;
}

bool emit_slot_latest(const Emit *e, uint32_t k, int32_t hi, int32_t lo, int64_t after,
                      int64_t before, int32_t *phase, int32_t *slot)
{
    int32_t n = k < e->n_cores && e->cores[k].n_phases > 0 ? e->cores[k].n_phases : 1;
    for (int32_t p = hi; p >= lo; p--)
        for (int32_t sl = MAP_PI_SOMA2; sl >= MAP_PI_SOMA1; sl -= MAP_PI_SOMA2 - MAP_PI_SOMA1) {
            int64_t at = emit_slot_when(p, sl);
            if (at > after && at < before && !emit_soma_taken(e, k, p % n, sl)) {
                *phase = p % n; /* past the core's last phase: the next step's */
                *slot = sl;
                return true;
            }
        }
    return false;
}

bool emit_slot_earliest(const Emit *e, uint32_t k, int32_t lo, int32_t hi, int64_t after,
                        int32_t *phase, int32_t *slot)
{
    for (int32_t p = lo; p <= hi; p++)
        for (int32_t sl = MAP_PI_SOMA1; sl <= MAP_PI_SOMA2; sl += MAP_PI_SOMA2 - MAP_PI_SOMA1)
            if (emit_slot_when(p, sl) > after && !emit_soma_taken(e, k, p, sl)) {
                *phase = p;
                *slot = sl;
                return true;
            }
    return false;
}

int64_t emit_slot_when(int32_t p, int32_t slot)
{
    return (int64_t)p * 8 + (slot == MAP_PI_AXON    ? 1
                             : slot == MAP_PI_SOMA1 ? 2
                             : slot == MAP_PI_SOMA2 ? 4
                                                    : 3);
}

bool emit_soma2_next(Emit *e, uint32_t k, int32_t p)
{
    ESlotUse *from = entry(e, k, p, MAP_PI_SOMA2), *to = entry(e, k, p + 1, MAP_PI_SOMA2);
    Taskir__Asm__StaticPrimList *lf = emit_slot_list(e, k, p);
    Taskir__Asm__StaticPrimList *lt = emit_slot_list(e, k, p + 1);
    if (!from || !to || !lf || !lt || !lf->soma2 || lt->soma2 || to->kind != SLOT_FREE)
        return false;
    lt->soma2 = lf->soma2;
    lf->soma2 = NULL;
    *to = *from;
    *from = (ESlotUse){SLOT_FREE, 0};
    return true;
}
