/* fuse.c: the fuse pass (docs/passes-fuse.md).
 *
 * Requires nothing. Guarantees PROP_FUSED: every Axon block (CC, CC2D, CVM, CADD, CAVG,
 * CVVH, CAX, CVS) whose result goes, whole and unrearranged, through one storage block to one
 * Soma operation (CCMPB, CCMPS, CLUT) shares a group with it when the pair fits one core: the
 * core runs the Axon and the Soma as Axon and Soma1 of one phase. Before pairing it removes
 * the blocks that only copy (fuse_copy.c); after it, it merges storage that holds the same
 * data (fuse_merge.c), within a group or outside groups (merging first would give a storage
 * block that ends a pair a second reader, and the pair would be lost). Invalidates PROP_REPLICATED (merged storage may feed several groups) and
 * PROP_GROUPED (groups are joined). Outputs never change: pairing only writes groups, the
 * other two steps keep every value every consumer reads.
 *
 * A pair: A (Axon) -> e1 -> S (storage, no data, fed by e1 alone, read by e2 alone) -> e2 ->
 * M (Soma, input cluster 0), A's only out edge e1, both edges plain whole copies
 * (plain_copy.h) and A's output box the same as M's input box. The group, in this order
 * (the compute block first, as the group pass lists): A, the storage blocks A reads, S, M,
 * the storage M reads besides S (a CLUT table); a storage block already in another group
 * stays there. Groups that A, S or M were in already are joined into it, unless they hold
 * another compute block. The memory: chip_group_mem of A (A's inputs and its output buffer,
 * which S is), M's other inputs and M's output buffer, at most the chip's core budget.
 */
#include "passes/pass.h"

#include "passes/fuse_internal.h"
#include "passes/groups.h"
#include "passes/plain_copy.h"
#include "taskir/chip_cost.h"
#include "taskir/uses.h"

enum { FUSE_MAX_MEMBERS = 64 };

typedef struct Pairing {
    Graph *g;
    const Chip *chip;
    GraphUses *u;          /* the use index of g (fuse_pairs_uses) */
    GroupMap groups;
    int32_t ids[FUSE_MAX_MEMBERS];
    uint32_t n_ids;
    long joined[3];        /* the groups of A, S and M, -1 when none */
} Pairing;

/* The index in g->groups of the group holding b, or -1. */
static long group_at(const Pairing *p, const Block *b)
{
    return group_of(p->g, &p->groups, b->id);
}

static bool is_unit(const Chip *c, const Block *b, ChipUnit unit)
{
    const ChipPrim *p = chip_prim_for(c, b->type);
    return p && p->unit == unit;
}

static bool is_soma_op(const Block *b)
{
    return b->type == BT_CCMPB || b->type == BT_CCMPS || b->type == BT_CLUT;
}

static const BlockUses *uses_of(const Pairing *p, const Block *b)
{
    long pos = graph_block_pos(p->g, b->id);
    return pos < 0 ? NULL : &p->u->blocks[pos];
}

/* The block at the other end of a block's only out edge, or NULL. */
static Block *only_successor(const Pairing *p, const Block *b, const Edge **e)
{
    const BlockUses *bu = uses_of(p, b);
    if (!bu || bu->n_out_edges != 1)
        return NULL;
    *e = p->g->edges[bu->out_edges[0]];
    return graph_block(p->g, (*e)->dst);
}

/* Is group k one of the groups being joined? */
static bool is_joined(const Pairing *p, long k)
{
    for (int i = 0; i < 3; i++)
        if (p->joined[i] == k)
            return true;
    return false;
}

/* Do the groups of A, S and M hold no compute block but A and M? */
static bool groups_free(const Pairing *p, const Block *a, const Block *m)
{
    for (int i = 0; i < 3; i++) {
        if (p->joined[i] < 0)
            continue;
        const Group *gr = &p->g->groups[p->joined[i]];
        for (uint32_t j = 0; j < gr->n_block_ids; j++) {
            const Block *b = graph_block(p->g, gr->block_ids[j]);
            if (b && bt_info(b->type)->kind == BK_COMPUTE && b != a && b != m)
                return false;
        }
    }
    return true;
}

/* Adds block b to the member list unless it is there or in a group not being joined. */
static bool add_member(Pairing *p, const Block *b)
{
    long k = group_at(p, b);
    if (k >= 0 && !is_joined(p, k))
        return true;
    for (uint32_t i = 0; i < p->n_ids; i++)
        if (p->ids[i] == b->id)
            return true;
    if (p->n_ids == FUSE_MAX_MEMBERS)
        return false;
    p->ids[p->n_ids++] = b->id;
    return true;
}

/* Adds the storage blocks with an edge into c, except skip; false when there are too many. */
static bool add_inputs(Pairing *p, const Block *c, const Block *skip)
{
    const BlockUses *bu = uses_of(p, c);
    for (uint32_t i = 0; bu && i < bu->n_in_edges; i++) {
        const Block *s = graph_block(p->g, p->g->edges[bu->in_edges[i]]->src);
        if (s && s != skip && bt_info(s->type)->kind == BK_STORAGE && !add_member(p, s))
            return false;
    }
    return true;
}

/* The memory of the fused pair, -1 on overflow or when a figure is missing. */
static int64_t pair_bytes(const Pairing *p, const Block *a, const Block *s, const Block *m)
{
    GroupMem gm;
    if (!chip_group_mem(p->chip, p->g, p->u, a, &gm) || gm.total < 0)
        return -1;
    long mpos = graph_block_pos(p->g, m->id);
    int64_t total = gm.total,
            out = mpos < 0 ? -1 : chip_buffer_held(p->chip, p->g, p->u, (uint32_t)mpos, NULL);
    if (out < 0 || out > INT64_MAX - total)
        return -1;
    total += out;
    const BlockUses *bu = uses_of(p, m);
    for (uint32_t i = 0; bu && i < bu->n_in_edges; i++) {
        const Block *t = graph_block(p->g, p->g->edges[bu->in_edges[i]]->src);
        bool seen = !t || t == s;
        for (uint32_t j = 0; j < i && !seen; j++)
            seen = p->g->edges[bu->in_edges[j]]->src == t->id;
        if (seen)
            continue;
        int64_t tb = chip_storage_bytes(p->chip, t, m);
        if (tb < 0 || tb > INT64_MAX - total)
            return -1;
        total += tb;
    }
    return total;
}

/* The Soma block paired with Axon block a, or NULL; *s gets the storage between them. */
static Block *pair_of(Pairing *p, Block *a, Block **s)
{
    const Edge *e1, *e2;
    if (!is_unit(p->chip, a, UNIT_AXON) || !(*s = only_successor(p, a, &e1)))
        return NULL;
    const BlockUses *su = uses_of(p, *s);
    if (bt_info((*s)->type)->kind != BK_STORAGE || (*s)->data || su->n_in_edges != 1)
        return NULL;
    Block *m = only_successor(p, *s, &e2);
    if (!m || !is_soma_op(m) || !is_unit(p->chip, m, UNIT_SOMA))
        return NULL;
    const IfaceUse *mi = uses_find(p->u, (uint32_t)graph_block_pos(p->g, m->id), true, e2->id);
    int32_t ad[TIR_CDIMS], md[TIR_CDIMS];
    if (!mi || mi->cluster != 0 || !pc_plain_whole(p->g, p->u, e1) ||
        !pc_plain_whole(p->g, p->u, e2) || !blk_cluster_dims(a, false, 0, ad) ||
        !blk_cluster_dims(m, true, 0, md) || !pc_same_dims(ad, md))
        return NULL;
    return m;
}

/* Writes the group of a, s and m; false when out of memory. */
static bool write_group(Pairing *p)
{
    long target = -1;
    for (int i = 0; i < 3; i++)
        if (p->joined[i] >= 0 && (target < 0 || p->joined[i] < target))
            target = p->joined[i];
    if (target < 0)
        return group_add(p->g, &p->groups, p->ids, p->n_ids) >= 0;
    for (int i = 0; i < 3; i++)
        if (p->joined[i] >= 0 &&
            !group_join(p->g, &p->groups, (uint32_t)target, (uint32_t)p->joined[i]))
            return false;
    for (uint32_t j = 0; j < p->n_ids; j++)
        if (!group_append(p->g, &p->groups, (uint32_t)target, p->ids[j]))
            return false;
    return true;
}

/* Pairs Axon block a with the Soma after it when it can; false when out of memory. */
static bool try_pair(Pairing *p, Block *a, uint32_t *n)
{
    Block *s, *m = pair_of(p, a, &s);
    if (!m)
        return true;
    const Block *abm[3] = {a, s, m};
    for (int i = 0; i < 3; i++)
        p->joined[i] = group_at(p, abm[i]);
    if (!groups_free(p, a, m))
        return true;
    int64_t bytes = pair_bytes(p, a, s, m);
    if (bytes < 0 || bytes > (int64_t)p->chip->core_budget_bytes)
        return true;
    p->n_ids = 0;
    if (!add_member(p, a) || !add_inputs(p, a, NULL) || !add_member(p, s) ||
        !add_member(p, m) || !add_inputs(p, m, s))
        return true; /* more inputs than a group of the pass holds: left alone */
    if (!write_group(p))
        return false;
    (*n)++;
    return true;
}

Status fuse_pairs_uses(Graph *g, const Chip *chip, GraphUses *u, Diag *d, uint32_t *n)
{
    Pairing p = {.g = g, .chip = chip, .u = u};
    bool ok = group_map_build(g, &p.groups);
    for (uint32_t i = 0; ok && i < g->n_blocks; i++)
        ok = try_pair(&p, g->blocks[i], n);
    group_map_finish(&p.groups);
    if (!ok || graph_oom(g))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    group_prune(g); /* the groups joined into others are empty */
    return ST_OK;
}

Status fuse_pairs(Graph *g, const Chip *chip, Diag *d, uint32_t *n)
{
    GraphUses u;
    if (!graph_uses(g, &u))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    Status st = fuse_pairs_uses(g, chip, &u, d, n);
    graph_uses_finish(&u);
    return st;
}

Status pass_fuse(Graph *g, const PassOptions *o, Diag *d)
{
    uint32_t n = 0;
    GraphUses u; /* one index for the three steps (fuse_internal.h) */
    Status st = fuse_drop_copies_uses(g, d, &n, &u);
    if (st == ST_OK)
        st = fuse_pairs_uses(g, o->chip, &u, d, &n);
    if (st == ST_OK)
        st = fuse_merge_storage_uses(g, &u, d, &n);
    graph_uses_finish(&u);
    return st;
}
