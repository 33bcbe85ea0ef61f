/* gather_wait.c: a CADD's gathered inputs waiting in the receive area for their P06s
 * (gather_wait.h). */
#include "mapper/gather_wait.h"

#include "taskir/premove.h"

bool map_gather_waits(const MapPlan *p, uint32_t t, uint32_t xi)
{
    const MXfer *x = &p->xfers[xi];
    uint32_t pos = p->tasks[t].pos;
    const Block *b = p->g->blocks[pos];
    uint32_t nm = premove_count(p->g, &p->uses, pos);
    if (x->kind != XF_CORE || nm < 2 || nm > b->n_in)
        return false;
    const BlockUses *su = &p->uses.blocks[x->store];
    if (su->n_in_edges != 1 || su->n_out_edges != 1)
        return false;
    for (uint32_t i = 0; i < nm; i++) {
        const Edge *ed = b->in[i].n_ifaces == 1
                             ? graph_edge(p->g, b->in[i].ifaces[0].edge_id) : NULL;
        if (ed && ed->n_re == 0 && graph_block_pos(p->g, ed->src) == (long)x->store)
            return true;
    }
    return false;
}

int64_t map_gather_slot(const uint8_t *slots, int64_t lo, uint32_t M, int64_t after,
                        const int64_t *taken, uint32_t n)
{
    int64_t ph = after < lo * MS_PER_PHASE ? lo : after / MS_PER_PHASE;
    for (; ph < lo + (int64_t)M; ph++)
        for (int sl = MS_SOMA1; sl <= MS_SOMA2; sl += MS_SOMA2 - MS_SOMA1) {
            int64_t at = ph * MS_PER_PHASE + sl;
            bool mine = false;
            for (uint32_t k = 0; k < n; k++)
                mine |= taken[k] == at;
            if (at > after && !mine && !(slots && (slots[ph - lo] & (1u << sl))))
                return at;
        }
    return -1;
}
