/* sim_share.c: see sim_share.h. Two areas: the buffers of their own from offset 0 up, then the
 * shared ones. sim_share_place: the shared buffers alive at the current index are kept sorted
 * by offset; at each new buffer the dead ones leave, then the first gap that fits takes it.
 * sim_share_place_split: each anchor has the largest first-thread part of its buffers below
 * it and the largest second-thread part above; the anchors follow one another in the shared
 * area. At most MAX_LIVE shared buffers live at once (more take memory of their own), which
 * keeps the planning linear in the number of buffers. */
#include "taskir/sim_share.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_LIVE = 256 };

/* Does buffer b share memory (not alive for the whole run, not small)? */
static bool shares(const SimLife *b)
{
    return !(b->first == 0 && b->last == SIM_SHARE_END) && b->elems >= SIM_SHARE_MIN_ELEMS;
}

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
        bool sh = shares(&b[i]);
        if (sh) {
            uint32_t k = 0; /* the dead leave */
            for (uint32_t j = 0; j < n_live; j++)
                if (live[j].last >= b[i].first)
                    live[k++] = live[j];
            n_live = k;
        }
        if (!sh || n_live == MAX_LIVE) {
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

typedef struct Anchor {
    int64_t below, above;   /* the largest parts of its buffers below and above it */
    uint32_t last;          /* the last index of its live buffer */
    bool busy;              /* a buffer lives there */
} Anchor;

/* The first thread's part of buffer b: its split, within [0, elems]. */
static int64_t below(const SimLife *b)
{
    return b->split < 0 ? 0 : b->split > b->elems ? b->elems : b->split;
}

/* What anchor a must grow by to take parts lo below and hi above it. */
static int64_t growth(const Anchor *a, int64_t lo, int64_t hi)
{
    return (lo > a->below ? lo - a->below : 0) + (hi > a->above ? hi - a->above : 0);
}

int64_t sim_share_place_split(const SimLife *b, uint32_t n, int64_t *offset, bool *shared)
{
    Anchor an[MAX_LIVE];
    uint32_t n_an = 0;
    int64_t own_top = 0;
    for (uint32_t i = 0; i < n; i++) {
        shared[i] = false;
        int64_t lo = below(&b[i]);
        int64_t hi = b[i].elems - lo;
        uint32_t best = n_an;
        if (shares(&b[i]))
            for (uint32_t k = 0; k < n_an; k++) {
                if (an[k].busy && an[k].last < b[i].first)
                    an[k].busy = false; /* its buffer is dead */
                if (an[k].busy)
                    continue;
                if (best == n_an || growth(&an[k], lo, hi) < growth(&an[best], lo, hi) ||
                    (growth(&an[k], lo, hi) == growth(&an[best], lo, hi) &&
                     an[k].below + an[k].above < an[best].below + an[best].above))
                    best = k;
            }
        if (!shares(&b[i]) || (best == n_an && n_an == MAX_LIVE)) {
            offset[i] = own_top;
            own_top += b[i].elems;
            continue;
        }
        if (best == n_an)
            an[n_an++] = (Anchor){0, 0, 0, false};
        Anchor *a = &an[best];
        a->below = lo > a->below ? lo : a->below;
        a->above = hi > a->above ? hi : a->above;
        a->last = b[i].last;
        a->busy = true;
        offset[i] = best; /* the anchor, until the anchors' places are known */
        shared[i] = true;
    }
    int64_t at[MAX_LIVE], top = own_top;
    for (uint32_t k = 0; k < n_an; k++) {
        at[k] = top + an[k].below;
        top += an[k].below + an[k].above;
    }
    for (uint32_t i = 0; i < n; i++)
        if (shared[i])
            offset[i] = at[offset[i]] - below(&b[i]);
    return top;
}
