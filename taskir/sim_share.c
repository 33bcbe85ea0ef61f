/* sim_share.c: see sim_share.h. Two areas: the buffers of their own from offset 0 up, then the
 * shared ones. The shared buffers alive at the current index are kept sorted by offset; at
 * each new buffer the dead ones leave, then the first gap that fits takes it. At most
 * MAX_LIVE shared buffers live at once (more take memory of their own), which keeps the
 * planning linear in the number of buffers. */
#include "taskir/sim_share.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_LIVE = 256 };

typedef struct Live {
    int64_t off, elems;
    uint32_t last;
} Live;

int64_t sim_share_place(const SimLife *b, uint32_t n, int64_t *offset, bool *shared)
{
    Live live[MAX_LIVE];
    uint32_t n_live = 0;
    int64_t own_top = 0, shared_top = 0;
    for (uint32_t i = 0; i < n; i++) {
        shared[i] = false;
        bool whole = b[i].first == 0 && b[i].last == SIM_SHARE_END;
        if (!whole && b[i].elems >= SIM_SHARE_MIN_ELEMS) {
            uint32_t k = 0; /* the dead leave */
            for (uint32_t j = 0; j < n_live; j++)
                if (live[j].last >= b[i].first)
                    live[k++] = live[j];
            n_live = k;
        }
        if (whole || b[i].elems < SIM_SHARE_MIN_ELEMS || n_live == MAX_LIVE) {
            offset[i] = own_top;
            own_top += b[i].elems;
            continue;
        }
        int64_t at = 0;
        uint32_t pos = 0;
        while (pos < n_live && live[pos].off - at < b[i].elems) {
            at = live[pos].off + live[pos].elems;
            pos++;
        }
        memmove(&live[pos + 1], &live[pos], (n_live - pos) * sizeof *live);
        live[pos] = (Live){at, b[i].elems, b[i].last};
        n_live++;
        if (at + b[i].elems > shared_top)
            shared_top = at + b[i].elems;
        offset[i] = at;
        shared[i] = true;
    }
    for (uint32_t i = 0; i < n; i++)
        if (shared[i])
            offset[i] += own_top;
    return own_top + shared_top;
}
