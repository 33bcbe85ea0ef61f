/* lanes_land.c: the receive area and the Soma2 a transfer sent over several router phases
 * keeps on its receiver (lanes_land.h). */
#include "mapper/lanes_land.h"

#include "mapper/xfer_clash.h"

void map_lanes_land(MapPlan *p, uint32_t xi, int32_t ph, int32_t last, uint32_t v,
                    int64_t *recv, uint32_t M, bool commit)
{
    if (M == 0 || last <= ph)
        return;
    int64_t bytes = map_land_bytes(p, xi);
    for (int32_t q = ph + 1; q <= last; q++)
        recv[(uint32_t)q % M] += bytes;
    if (commit && v != MAP_NONE)
        p->vcores[v].slots[map_local(p, last)] |= (uint8_t)(1u << MS_SOMA2);
}
