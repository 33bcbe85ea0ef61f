/* chain_index.h: a local phase's planned transfers indexed by writer and by receiving core,
 * and the components they join them into (mapper/chain_index.c; the chains' check of
 * xfer_chain.c walks them). Internal to mapper/. */
#ifndef TASKIR_MAPPER_CHAIN_INDEX_H
#define TASKIR_MAPPER_CHAIN_INDEX_H

#include "mapper/xfer_clash.h"

/* Brings l's index up to its list: each position added since at the head of its writer's and
 * its vcore's chains (a planned transfer keeps its vcore), and the component of writers and
 * cores it joins counting it. false when out of memory. */
bool map_phase_index(const MapPlan *p, MPhaseXfers *l);
/* The root of the component of writer t, or (t MAP_NONE) of vcore v; MAP_NONE when out of
 * range. Its positions: l->cnt[root]; xfer_chain.c keeps whether they fit at the root. */
uint32_t map_phase_comp(const MapPlan *p, MPhaseXfers *l, uint32_t t, uint32_t v);
/* How many positions of l (indexed) the components of writer t and of vcore v hold (either
 * out of range, MAP_NONE say: the other's alone): the transfers a walk from t and v outwards
 * reaches. */
size_t map_phase_reach(const MapPlan *p, MPhaseXfers *l, uint32_t t, uint32_t v);
/* The transfers of those positions into pick (room for map_phase_reach's count), walked from
 * t and v outwards, each once, in the order the walk meets them; their count. Uses c's marks.
 * (size_t)-1 when out of memory. */
size_t map_phase_pick(const MapPlan *p, MClash *c, MPhaseXfers *l, uint32_t t, uint32_t v,
                      uint32_t *pick);

#endif
