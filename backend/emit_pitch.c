/* emit_pitch.c: pitches a Soma primitive forces on the map it writes (docs/backend.md,
 * "Layouts"). P07 writes each row as long as the row it reads: group_num rows of
 * neuron_real_num elements, read with the input's pitch (R_x1(n) words) and written padded
 * to 4 elements (x1 and the table both int32) or 16 (else). So the map a CLUT writes takes
 * the pitch of its input's rows, rounded up so: an int32 table read from an Axon's int32 map
 * (32 channels a pixel) writes 32 channels a pixel, however few of them are real.
 */
#include "backend/emit_internal.h"

static int64_t round_up(int64_t v, int64_t m)
{
    return (v + m - 1) / m * m;
}

/* The storage block input cluster 0 of compute block w reads (one interface), or -1. */
static long input_storage(const Emit *e, uint32_t w)
{
    const Block *b = e->g->blocks[w];
    if (b->n_in < 1 || b->in[0].n_ifaces != 1)
        return -1;
    const Edge *ed = graph_edge(e->g, b->in[0].ifaces[0].edge_id);
    return ed ? graph_block_pos(e->g, ed->src) : -1;
}

int64_t emit_lut_pitch(const Emit *e, uint32_t w, PrecisionId out)
{
    const Block *b = e->g->blocks[w];
    long s = b->type == BT_CLUT ? input_storage(e, w) : -1;
    if (s < 0)
        return 0;
    PrecisionId in = blk_prec(e->g->blocks[s]);
    int unit = emit_storage_unit(e, (uint32_t)s, in);
    int32_t d[TIR_NDIMS];
    blk_eff_shape(b, d);
    if (unit <= 0 || d[D_F] < 1)
        return 0;
    int64_t row = round_up(d[D_F], unit); /* the elements a row P07 reads */
    return round_up(row, in == PR_INT_32 && out == PR_INT_32 ? 4 : 16);
}
