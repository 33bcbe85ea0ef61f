/* emit_p08.c: a CLIF's P08 (leaky integrate-and-fire; docs/backend.md "Inserted primitives",
 * "Layouts", and the executor's "P08"). P08 adds each neuron's input, an int32 word, to its
 * potential, kept in memory from step to step in a state word a neuron (refractory count in
 * bits 28..31, potential in bits 0..27), and writes its spikes in 8 bits (fire type 4).
 *
 *   state    an area of its own on the CLIF's core, one word a neuron, alive the whole step,
 *            loaded before the run with VINIT (a static block "s<CLIF id>..."): the run of a
 *            sample starts from VINIT, as the TaskGraph's sim_reset does
 *   input    an int32 map (uin: neuron_num = its pitch, group_num = its pixels, the padding
 *            lanes neurons whose input is 0); a storage block only INPUTs write and only
 *            CLIFs read is laid out so (int32, one word a channel: emit_p08_feat), whatever
 *            the socket's precision, its dynamic block writing the socket's values as words
 *   output   8-bit rows of ceil(neuron_num / 16) * 4 words, the spike 0 or 1: the map it
 *            writes must be 8-bit with that pitch; a storage block only CLIFs on its core
 *            write and only OUTPUTs read is laid out so (emit_p08_feat), whatever its
 *            precision: the spikes are 0 and 1 in any
 * The TaskGraph's CLIF (docs/semantics.md 3.11) is then P08 with VM 0 (VM_const_en, VM_const
 * 0), Vtheta 0 (Vtheta_const_en), VL -2^27, reset_mode 0 (VR), Ref_len 0, Tw_en off, its
 * leak (Vleaky_adpt_en with VLEAKY_ALPHA below 256, else off) and Vleaky_beta. What P08 cannot
 * compute so is refused [emit.lif]: a shift of the input, several input clusters, an
 * attribute outside 28 bits, a leak factor above 256 or below 0, the dynamics the simulator
 * does not model either, a pipeline of stages (each stage would run the neurons once a step).
 */
#include "backend/emit_internal.h"

#include "taskir/diag_block.h"

#include <string.h>

#define SET(m, f, v) ((m)->has_##f = 1, (m)->f = (v))
#define LIF_LO (-((int64_t)1 << 27))
#define LIF_HI (((int64_t)1 << 27) - 1)

/* Whether every edge of storage s on one side (in: its writers) joins it whole, without
 * steps, to a block of type t (at least one). */
static bool only(const Emit *e, uint32_t s, bool in, BlockType t)
{
    const BlockUses *bu = &e->uses.blocks[s];
    uint32_t n = in ? bu->n_in_edges : bu->n_out_edges;
    for (uint32_t j = 0; j < n; j++) {
        const Edge *ed = e->g->edges[in ? bu->in_edges[j] : bu->out_edges[j]];
        long o = graph_block_pos(e->g, in ? ed->src : ed->dst);
        if (o < 0 || e->g->blocks[o]->type != t || ed->n_re ||
            !emit_whole_iface(e, s, in, ed->id))
            return false;
    }
    return n > 0;
}

/* The storage block CLIF pos reads (its one input cluster's one interface), or -1. */
static long clif_input(const Emit *e, uint32_t pos)
{
    const Block *b = e->g->blocks[pos];
    if (b->n_in != 1 || b->in[0].n_ifaces != 1)
        return -1;
    const Edge *ed = graph_edge(e->g, b->in[0].ifaces[0].edge_id);
    return ed ? graph_block_pos(e->g, ed->src) : -1;
}

/* The pitch of the map CLIF pos reads (channels a pixel), 0 when unknown. */
static int64_t input_pitch(const Emit *e, uint32_t pos)
{
    long s = clif_input(e, pos);
    if (s < 0)
        return 0;
    int32_t cd[TIR_CDIMS];
    if (!blk_cluster_dims(e->g->blocks[s], false, 0, cd))
        return 0;
    int64_t c = cd[D_F] > 0 ? cd[D_F] : cd[D_R] > 0 ? cd[D_R] : 1;
    if (only(e, (uint32_t)s, true, BT_INPUT) && only(e, (uint32_t)s, false, BT_CLIF))
        return c;
    int64_t unit = emit_storage_unit(e, (uint32_t)s);
    return unit > 0 ? (c + unit - 1) / unit * unit : 0;
}

bool emit_p08_feat(const Emit *e, uint32_t s, uint32_t core, const EBox *box, EmitFeat *feat)
{
    const Block *b = e->g->blocks[s];
    if (bt_info(b->type)->kind != BK_STORAGE || b->data)
        return false;
    if (only(e, s, true, BT_INPUT) && only(e, s, false, BT_CLIF)) /* uin: int32 words */
        return emit_feat(PR_INT_32, box->n[0], box->n[1], box->n[2], 1, feat);
    if (!only(e, s, true, BT_CLIF) || !only(e, s, false, BT_OUTPUT))
        return false;
    const BlockUses *bu = &e->uses.blocks[s];
    int64_t unit = 0;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) { /* spikes in rows of the input's lanes */
        long w = graph_block_pos(e->g, e->g->edges[bu->in_edges[j]]->src);
        int64_t c = input_pitch(e, (uint32_t)w), u = (c + 15) / 16 * 16;
        if (e->core_of[w] != core || c == 0 || (unit && u != unit))
            return false;
        unit = u;
    }
    return unit <= 65536 && emit_feat(PR_INT_8, box->n[0], box->n[1], box->n[2], (int)unit,
                                      feat);
}

Status emit_p08_plan(Emit *e)
{
    for (uint32_t pos = 0; pos < e->g->n_blocks; pos++) {
        const Block *b = e->g->blocks[pos];
        uint32_t k = e->core_of[pos];
        long s = b->type == BT_CLIF && k != EMIT_NONE ? clif_input(e, pos) : -1;
        const ECopy *cp = s >= 0 ? emit_copy_on(e, (uint32_t)s, k) : NULL;
        int32_t cd[TIR_CDIMS];
        if (!cp || !blk_cluster_dims(b, false, 0, cd))
            continue; /* emit_p08 refuses it */
        int64_t pix = (int64_t)(cd[D_Y] > 0 ? cd[D_Y] : 1) * (cd[D_X] > 0 ? cd[D_X] : 1);
        int64_t n = cp->feat.c, words = pix * n;
        if (n < 1 || words > (1 << 20))
            continue;
        EState *ns = emit_grow(e, e->states, &e->cap_states, e->n_states, sizeof *e->states);
        uint32_t *img = malloc((size_t)words * sizeof *img);
        if (!ns || !img) {
            free(img);
            return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
        }
        e->states = ns;
        int64_t v0 = blk_attr(b, AT_VINIT); /* checked in emit_p08 */
        for (int64_t i = 0; i < words; i++)
            img[i] = (uint32_t)v0 & 0x0FFFFFFFu;
        uint32_t req = emit_request(e, k, words, 4, 0, e->cores[k].n_phases - 1, ALLOC_STATIC,
                                    b->id);
        if (req == EMIT_NONE) {
            free(img);
            return diag_add(e->d, ST_RUNTIME, "oom", NULL, "out of memory");
        }
        e->states[e->n_states++] = (EState){pos, k, req, img, (size_t)words};
    }
    return ST_OK;
}

/* The state area of CLIF pos, or NULL. */
static const EState *state_of(const Emit *e, uint32_t pos)
{
    for (size_t i = 0; i < e->n_states; i++)
        if (e->states[i].block == pos)
            return &e->states[i];
    return NULL;
}

/* A refusal of CLIF b [emit.lif]. */
#define LIF_NO(...) diag_block(e->d, ST_LOGIC, "emit.lif", b, __VA_ARGS__)

/* The attributes P08 takes as the TaskGraph means them: within 28 bits, the leak factor
 * 0 .. 256, the dynamics the simulator models. */
static Status check_attrs(Emit *e, const Block *b)
{
    static const AttrId fixed[] = {AT_VTH_ADPT_EN, AT_TW_EN, AT_REF_LEN, AT_RESET_MODE,
                                   AT_BIT_SHIFT_NUM};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (blk_attr(b, fixed[i]) != at_info(fixed[i])->dflt)
            return LIF_NO("%s is %d: P08 is written for %s %d only (%s)",
                          at_info(fixed[i])->name, (int)blk_attr(b, fixed[i]),
                          at_info(fixed[i])->name, (int)at_info(fixed[i])->dflt,
                          fixed[i] == AT_BIT_SHIFT_NUM
                              ? "P08 adds its input unshifted: a move before it would shift"
                              : "dynamics the TaskGraph simulator does not model either");
    static const AttrId wide[] = {AT_VTH0, AT_VR, AT_VLEAKY_BETA, AT_VINIT};
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++) {
        int64_t v = blk_attr(b, wide[i]);
        if (v < LIF_LO || v > LIF_HI)
            return LIF_NO("%s is %lld: P08 holds potentials and thresholds in 28 bits "
                          "(%lld .. %lld)", at_info(wide[i])->name, (long long)v,
                          (long long)LIF_LO, (long long)LIF_HI);
    }
    int32_t alpha = blk_attr(b, AT_VLEAKY_ALPHA);
    if (blk_attr(b, AT_VLEAKY_ADPT_EN) && (alpha < 0 || alpha > 256))
        return LIF_NO("VLEAKY_ALPHA is %d: P08 leaks by a factor of 0 .. 255 / 256 (256: "
                      "none)", (int)alpha);
    return ST_OK;
}

Status emit_p08(Emit *e, uint32_t pos, Taskir__Asm__SomaPrim *s, const EArea *x1,
                const EArea *o)
{
    const Block *b = e->g->blocks[pos];
    Status st = check_attrs(e, b);
    if (st != ST_OK)
        return st;
    if (b->n_in != 1)
        return LIF_NO("sums %u input clusters: P08 reads one input word a neuron (a CADD "
                      "before it would have to add them)", b->n_in);
    if (e->stages > 1)
        return LIF_NO("keeps its neurons' potentials from step to step, and a pipeline of %d "
                      "stages runs its programs %d steps a sample", (int)e->stages,
                      (int)e->stages);
    if (x1->feat.prec != PR_INT_32)
        return diag_block(e->d, ST_LOGIC, "emit.prec", b,
                          "reads block %d's %s map: P08 reads its input as int32 words (only "
                          "a model input read by CLIFs alone is laid out so)", x1->block,
                          pr_info(x1->feat.prec)->name);
    int64_t nn = x1->feat.c, groups = x1->words / (nn ? nn : 1);
    int64_t row = (nn + 15) / 16 * 4; /* words of a row of spikes, 8 bits each */
    if ((o->feat.prec != PR_INT_8 && o->feat.prec != PR_UINT_8) ||
        row != emit_feat_pixel_words(&o->feat) || o->words != groups * row)
        return diag_block(e->d, ST_LOGIC, "emit.layout", b,
                          "writes block %d's %s map of %lld channels a pixel: P08 writes its "
                          "spikes in 8 bits, %lld a pixel (its input's %lld lanes; a move "
                          "would have to widen or re-pitch them)", o->block,
                          pr_info(o->feat.prec)->name, (long long)o->feat.c,
                          (long long)(row * 4), (long long)nn);
    const EState *sv = state_of(e, pos);
    if (!sv || (int64_t)sv->n != x1->words)
        return diag_block(e->d, ST_RUNTIME, "emit.internal", b, "no state area planned");
    Taskir__Asm__P08 *p = emit_msg(e, sizeof *p, (void (*)(void *))taskir__asm__p08__init);
    if (!p)
        return ST_RUNTIME;
    s->p08 = p;
    SET(s, pic, 0x08);
    char id[32];
    snprintf(id, sizeof id, "b%d", x1->block);
    s->x1_block = emit_strdup(e, id);
    snprintf(id, sizeof id, "b%d", o->block);
    s->output_block = malloc(sizeof *s->output_block);
    if (s->output_block) {
        s->output_block[0] = emit_strdup(e, id);
        s->n_output_block = s->output_block[0] ? 1 : 0;
    }
    int32_t alpha = blk_attr(b, AT_VLEAKY_ALPHA);
    bool leak = blk_attr(b, AT_VLEAKY_ADPT_EN) && alpha < 256;
    SET(p, neuron_num, (int32_t)nn);
    SET(p, group_num, (int32_t)groups);
    SET(p, seed, 0);
    SET(p, vth0, blk_attr(b, AT_VTH0));
    SET(p, vth_adpt_en, false);
    SET(p, vr, blk_attr(b, AT_VR));
    SET(p, vl, (int32_t)LIF_LO);
    SET(p, vleaky_adpt_en, leak);
    SET(p, vleaky_alpha, leak ? alpha : 0);
    SET(p, vleaky_beta, blk_attr(b, AT_VLEAKY_BETA));
    SET(p, ref_len, 0);
    SET(p, tw_en, false);
    SET(p, vinit, blk_attr(b, AT_VINIT));
    SET(p, vm_const_en, true);
    SET(p, vm_const, 0);
    SET(p, vtheta_const_en, true);
    SET(p, vtheta_const, 0);
    SET(p, reset_mode, 0);
    SET(p, fire_type, 4);
    SET(p, bit_shift_num, 0);
    int64_t v = e->cores[sv->core].addr[sv->req];
    SET(p, uin_base_addr, (int32_t)x1->addr);
    SET(p, uin_addr_length, (int32_t)x1->words);
    SET(p, v_base_addr, (int32_t)v);
    SET(p, v_addr_length, (int32_t)sv->n);
    SET(p, s_base_addr, (int32_t)o->addr);
    SET(p, s_addr_length, (int32_t)o->words);
    return e->d->oom ? ST_RUNTIME : ST_OK;
}
