/* xfer_twice.c: one box of a writer's result sent twice to one core in a phase (docs/mapper.md,
 * "Transfers"; docs/backend.md, "One run to several cores").
 *
 * Several storage blocks on one core may each take the same box of one writer's result (the
 * division's `div/bitN/sub/in`, each holding the divisor beside one step's remainder). The
 * multicast sets (route.c) then relay the box from the first of them to the next on the same
 * core at no hop, in the same phase; but a packet lands once, at one address of its core, and
 * the router sends its area's words once, in order: the code generator would send the words
 * twice to that core in the phase (emit.route, "twice to"), or, where the box goes to that
 * core alone, spill the second send into the next phase when that phase is free for it. So a
 * transfer does not take a receive phase in which a transfer of the same box into another
 * storage block on its core receives; it comes a phase later, from the copy already there (a
 * send of the core to itself) or from the writer or a chain. Left to the code generator:
 * twins, storage blocks the box fills whole (taskir/twin.h), which share one area and one
 * send there (backend/emit_twin.c), and a value that lands in several places of one storage
 * block (backend/emit_route_spill.c).
 */
#include "mapper/xfer_clash.h"

#include "taskir/twin.h"

bool map_xfer_twice(const MapPlan *p, const MClash *c, uint32_t xi, uint32_t v, int32_t ph)
{
    const MXfer *x = &p->xfers[xi];
    if (!c->start || x->kind != XF_CORE)
        return false;
    for (uint32_t k = c->start[x->src_task]; k < c->start[x->src_task + 1]; k++) {
        const MXfer *y = &p->xfers[c->list[k]];
        if (c->list[k] != xi && y->store != x->store && map_xfer_vcore(p, y) == v &&
            map_clash_same_box(c, xi, c->list[k]) && map_clash_in_phase(p, y, ph) &&
            !storage_twins(p->g, &p->uses, x->store, y->store))
            return true;
    }
    return false;
}
