/* premove.c: the P06s inserted before a compute block runs (premove.h). */
#include "taskir/premove.h"

#include "taskir/layout.h"

uint32_t premove_count(const Graph *g, const GraphUses *u, uint32_t pos)
{
    const Block *b = g->blocks[pos];
    uint32_t n = b->type == BT_CADD ? blk_n_variadic(b) : 0;
    long src = -1;
    if (n < 2)
        return 0;
    if (layout_repeats(g, u, pos, &src))
        return layout_repeat_scales(g, u, pos) ? 0 : 1; /* P83 reads the box where it lies */
    return n;
}
