/* xfer_cap.c: a transfer's part in one phase cut to what the phase's relaying chains carry
 * (docs/mapper.md, "Parts cut to the chains").
 *
 * The schedule asks it for a transfer that the clash and chain rules would push into the
 * last phase of its writer's stage or past it (ResNet-50: `layer3_1_clip`'s row y8 to
 * `layer3_2_add`'s core, whose pixels the pieces of `layer3_2_conv1` take in part in the
 * same phases): instead of dropping the rules, each phase takes the first of the bytes left
 * that do not meet the phase's other runs in a way no relaying chain carries. The pixels
 * the pieces take in that phase then come in a later phase; the code generator cuts the
 * part where the writer's runs to other cores in that phase begin
 * (backend/emit_spreadcap.c), which is where this cut falls.
 */
#include "mapper/xfer_cap.h"

enum { PACKET = 8 };

int64_t map_xfer_cap(const MapPlan *p, MClash *c, uint32_t xi, uint32_t v, int32_t ph,
                     int64_t from, int64_t take)
{
    if (take <= 0 || map_xfer_twice(p, c, xi, v, ph))
        return 0;
    if (!map_xfer_chains(p, c, xi, v, ph, from, take))
        return take;
    /* lo packets fit (none always does), hi do not */
    int64_t lo = 0, hi = take / PACKET + (take % PACKET != 0);
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (map_xfer_chains(p, c, xi, v, ph, from, mid * PACKET))
            hi = mid;
        else
            lo = mid;
    }
    return lo * PACKET;
}
