/* emit_headroom.c: the header table's room a phase's spill (emit_route_spill.c) keeps for the
 * runs that may not move to the next phase (docs/backend.md "Sends spilled into later
 * phases"). The spill keeps a core's runs in the order of its memory while the table holds
 * them and moves the others; a run that may not move (its receiver reads it before the next
 * phase's router) but comes after the table is full stayed, past the table. With the room
 * kept, a run that may move goes when keeping it would leave too few headers for the fixed
 * ones after it: each takes its own header and the disabled ones skipping the gap before it,
 * reckoned as if every run between that may move moved (the gaps then longest, their
 * headers fewest). A phase whose fixed runs fit so loses nothing it kept before: when
 * keeping a run leaves too little room, the old order could not keep the fixed ones either.
 */
#include "backend/emit_internal.h"

#include "taskir/lanes.h"

#include <stdlib.h>

/* Disabled headers skipping a gap of `units` units (none when it is none or negative). */
static int64_t gap_heads(int64_t units, int64_t per)
{
    return units > 0 ? (units / per + LANES_HEAD_PACKETS - 1) / LANES_HEAD_PACKETS : 0;
}

Status emit_headroom_init(Emit *e, EHeadroom *h, const EHeadRun *runs, size_t n, int64_t per,
                          int64_t wb)
{
    *h = (EHeadroom){runs, n, per, wb, NULL, NULL};
    h->next = malloc((n + 1) * sizeof *h->next);
    h->tail = malloc((n + 1) * sizeof *h->tail);
    if (!h->next || !h->tail) {
        emit_headroom_free(h);
        return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    h->next[n] = n;
    h->tail[n] = 0;
    for (size_t i = n; i-- > 0;) {
        h->next[i] = runs[i].fixed ? i : h->next[i + 1];
        size_t g = h->next[i + 1]; /* the next fixed run after i */
        h->tail[i] = !runs[i].fixed ? 0
                     : 1 + (g < n ? gap_heads(runs[g].src - runs[i].end, per) + h->tail[g] : 0);
    }
    return ST_OK;
}

int64_t emit_headroom(const EHeadroom *h, size_t i, int64_t end, bool kept)
{
    size_t f = i < h->n ? h->next[i] : h->n;
    if (f >= h->n)
        return 0;
    int64_t gap = kept ? h->runs[f].src - end : h->runs[f].src % h->wb;
    return gap_heads(gap, h->per) + h->tail[f];
}

void emit_headroom_free(EHeadroom *h)
{
    free(h->next);
    free(h->tail);
    h->next = NULL;
    h->tail = NULL;
}
