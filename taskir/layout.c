/* layout.c: the layout facts of feature maps (layout.h). */
#include "taskir/layout.h"

#include "taskir/rearrange.h"
#include "taskir/sockbox.h"

#include <stdlib.h>
#include <string.h>

/* The bytes of a pixel's row each use rounds the channels up to: the table of layout.h. */
static const struct {
    unsigned use;
    int bytes;
} use_bytes[] = {
    {LAYOUT_SOMA, 16},
    {LAYOUT_ROW16, 16},
    {LAYOUT_GROUP, 32},
    {LAYOUT_AXON, 128},
};

/* The primitives by what they do to the maps they read and write. */
static const struct {
    int pcode;
    unsigned in, out;
} prim_uses[] = {
    {41, LAYOUT_ROW16, LAYOUT_AXON}, /* P41 conv: HWC input rows of 16 bytes */
    {4, LAYOUT_ROW16, LAYOUT_AXON},  /* P04 matrix-vector */
    {81, 0, LAYOUT_AXON},            /* P81: channel-major input, its own layout */
    {2, LAYOUT_GROUP, LAYOUT_GROUP},  /* P02, P03, P43, P83: whole 32-byte groups */
    {3, LAYOUT_GROUP, LAYOUT_GROUP},
    {43, LAYOUT_GROUP, LAYOUT_GROUP},
    {83, LAYOUT_GROUP, LAYOUT_GROUP},
    {5, LAYOUT_SOMA, LAYOUT_SOMA},    /* the Soma: rows of 16 bytes */
    {25, LAYOUT_SOMA, LAYOUT_SOMA},
    {7, LAYOUT_SOMA, LAYOUT_SOMA},
    {8, LAYOUT_SOMA, LAYOUT_SOMA},
};

enum { MAX_CHAIN = 16 }; /* P02 -> map -> P02 -> ... followed at most this far */

unsigned layout_use_of(BlockType t, bool input)
{
    if ((unsigned)t >= BT_COUNT)
        return 0;
    int pc = bt_info(t)->pcode;
    for (size_t i = 0; i < sizeof prim_uses / sizeof prim_uses[0]; i++)
        if (prim_uses[i].pcode == pc)
            return input ? prim_uses[i].in : prim_uses[i].out;
    return 0;
}

int layout_unit(PrecisionId p, unsigned uses)
{
    int bits;
    switch (p) {
    case PR_INT_8:
    case PR_UINT_8:
    case PR_TERNARY:
    case PR_INT_32: bits = pr_info(p)->bits; break;
    default: return 0;
    }
    if (!uses)
        uses = LAYOUT_SOMA;
    int unit = 0;
    for (size_t i = 0; i < sizeof use_bytes / sizeof use_bytes[0]; i++)
        if ((uses & use_bytes[i].use) && use_bytes[i].bytes * 8 / bits > unit)
            unit = use_bytes[i].bytes * 8 / bits;
    return unit;
}

/* The position of block id, -1 when it has none or the use index u does not know it (a
 * block the split pass adds in the round whose index u is: passes/split_fit.c asks these
 * questions while it cuts). */
static long known_pos(const Graph *g, const GraphUses *u, int32_t id)
{
    long p = graph_block_pos(g, id);
    return p >= 0 && (uint32_t)p < u->n_blocks ? p : -1;
}

/* The source side interface of edge id at block position s, or NULL. */
static const Iface *src_iface(const Graph *g, const GraphUses *u, long s, int32_t id)
{
    const IfaceUse *iu = s >= 0 ? uses_find(u, (uint32_t)s, false, id) : NULL;
    return iu ? &g->blocks[s]->out[iu->cluster].ifaces[iu->iface] : NULL;
}

uint32_t layout_repeats(const Graph *g, const GraphUses *u, uint32_t pos, long *src)
{
    const Block *b = g->blocks[pos];
    uint32_t n = b->type == BT_CADD ? blk_n_variadic(b) : 0;
    if (n < 2)
        return 0;
    const Iface *first = NULL;
    for (uint32_t i = 0; i < n; i++) {
        if (i >= b->n_in || b->in[i].n_ifaces != 1)
            return 0;
        const Edge *ed = graph_edge(g, b->in[i].ifaces[0].edge_id);
        long s = ed ? known_pos(g, u, ed->src) : -1;
        const Iface *f = ed && !ed->n_re ? src_iface(g, u, s, ed->id) : NULL;
        if (!f || (i > 0 && (s != *src || !iface_same_box(f, first))))
            return 0;
        if (i == 0) {
            *src = s;
            first = f;
        }
    }
    return bt_info(g->blocks[*src]->type)->kind == BK_STORAGE ? n : 0;
}

/* What storage_unit learns of the map at a position at one depth of a question's walk,
 * whichever block it is asked to skip (lut_need and lut_row ask a map's pitch but for one
 * CLUT's rows or need): the uses of its writers and readers, and the two largest rows its
 * writers carry and needs its readers have, by distinct blocks, so that the largest but the
 * skipped block's is at hand. A map written by 500 CLUT pieces (a division's table cut
 * along x) is asked once for each piece at each depth; worked out anew each time, the walk
 * took minutes. */
typedef struct UnitFacts {
    unsigned uses;
    bool fed;         /* an INPUT writes it: its dynamic blocks lay the pixels out */
    int carried[2];   /* the largest row a writer carries, and the largest of another writer */
    long carrier;     /* the writer of carried[0], or -1 */
    int need[2];      /* the same for the readers' needs */
    long needer;
    int pitch[2];     /* the same for the pitches the readers need (cmp_need) */
    long pitcher;
    unsigned read;    /* the uses of its readers alone */
    bool group_only;  /* every writer is a P02 / P03 / P43 / P83 (and it has two or more) */
} UnitFacts;

/* The facts found in one question's walk, by (position, depth): the walk meets a map again
 * and again through its writers and readers, so each is worked out once. A hash table of
 * open addressing, grown as it fills; without memory it just is not used (slower, the same
 * units). */
typedef struct Memo {
    uint64_t *key; /* 0: empty */
    UnitFacts *facts;
    size_t cap, n;
} Memo;

static size_t memo_hash(uint64_t key, size_t cap)
{
    return (size_t)((key * 0x9E3779B97F4A7C15u) >> 17) & (cap - 1);
}

/* The facts kept for key, or NULL. */
static const UnitFacts *memo_find(const Memo *m, uint64_t key)
{
    for (size_t j = m->cap ? memo_hash(key, m->cap) : 0; m->cap; j = (j + 1) & (m->cap - 1)) {
        if (m->key[j] == key)
            return &m->facts[j];
        if (!m->key[j])
            break;
    }
    return NULL;
}

/* Keeps f for key (not kept yet); nothing without memory. */
static void memo_put(Memo *m, uint64_t key, const UnitFacts *f)
{
    if (m->n * 2 >= m->cap) { /* grow to keep it at most half full */
        size_t cap = m->cap ? m->cap * 2 : 256;
        uint64_t *k = cap < SIZE_MAX / sizeof *k ? calloc(cap, sizeof *k) : NULL;
        UnitFacts *v = k && cap < SIZE_MAX / sizeof *v ? malloc(cap * sizeof *v) : NULL;
        if (!v) {
            free(k);
            return;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->key[i])
                continue;
            size_t j = memo_hash(m->key[i], cap);
            while (k[j])
                j = (j + 1) & (cap - 1);
            k[j] = m->key[i];
            v[j] = m->facts[i];
        }
        free(m->key), free(m->facts);
        m->key = k, m->facts = v, m->cap = cap;
    }
    size_t j = memo_hash(key, m->cap);
    while (m->key[j])
        j = (j + 1) & (m->cap - 1);
    m->key[j] = key;
    m->facts[j] = *f;
    m->n++;
}

static void memo_free(Memo *m)
{
    free(m->key), free(m->facts);
}

static void memo_destroy(void *m)
{
    memo_free(m);
    free(m);
}

bool layout_memo_begin(GraphUses *u)
{
    if (u->cache)
        return u->cache_free == memo_destroy;
    Memo *m = calloc(1, sizeof *m);
    if (!m)
        return false;
    u->cache = m;
    u->cache_free = memo_destroy;
    return true;
}

/* The memo of a question: u's, kept between questions (layout_memo_begin), or local, empty. */
static Memo *memo_of(const GraphUses *u, Memo *local)
{
    *local = (Memo){0};
    return u->cache && u->cache_free == memo_destroy ? u->cache : local;
}

static int storage_unit(const Graph *g, const GraphUses *u, uint32_t pos, int depth,
                        long skip, Memo *m);

/* layout_repeat_scales at depth depth of the chain of pitches. */
static bool repeat_scales(const Graph *g, const GraphUses *u, uint32_t pos, int depth,
                          Memo *m)
{
    long s = -1;
    const Block *b = g->blocks[pos];
    if (!layout_repeats(g, u, pos, &s) || depth >= MAX_CHAIN || blk_attr(b, AT_STRIDE_X) > 1 ||
        blk_attr(b, AT_STRIDE_Y) > 1 || blk_attr(b, AT_PAD_UP) || blk_attr(b, AT_PAD_DOWN) ||
        blk_attr(b, AT_PAD_LEFT) || blk_attr(b, AT_PAD_RIGHT))
        return false; /* P83 reads every pixel once, no padding */
    PrecisionId p = blk_prec(g->blocks[s]);
    if (p != PR_INT_8 && p != PR_UINT_8 && p != PR_INT_32)
        return false; /* P83 reads no ternary */
    int unit = storage_unit(g, u, (uint32_t)s, depth + 1, -1, m);
    int group = layout_unit(p, LAYOUT_GROUP);
    return unit > 0 && group > 0 && unit % group == 0;
}

bool layout_repeat_scales(const Graph *g, const GraphUses *u, uint32_t pos)
{
    Memo local, *m = memo_of(u, &local);
    bool r = repeat_scales(g, u, pos, 0, m);
    memo_free(&local);
    return r;
}

/* The pitch a P02 / P03 / P43 / P83 at pos reads (and so writes). */
static int group_in_unit(const Graph *g, const GraphUses *u, uint32_t pos, int depth,
                         Memo *m)
{
    const Block *b = g->blocks[pos];
    long s = -1;
    /* the repeated area, in the group unit; a P83 scaling the box reads its map's pitch */
    if (layout_repeats(g, u, pos, &s) && !repeat_scales(g, u, pos, depth, m))
        return layout_unit(blk_prec(g->blocks[s]), LAYOUT_GROUP);
    const Edge *ed = b->n_in && b->in[0].n_ifaces ? graph_edge(g, b->in[0].ifaces[0].edge_id)
                                                  : NULL;
    s = ed ? known_pos(g, u, ed->src) : -1;
    if (s < 0 || bt_info(g->blocks[s]->type)->kind != BK_STORAGE || depth >= MAX_CHAIN)
        return 0;
    /* inputs of different precisions gathered into int32 words: each P06 re-pitches its
     * input, so the area takes int32's own groups (8 a pixel for one channel, not the
     * 32 of an 8-bit input 0's pitch read as int32) */
    PrecisionId gp;
    if (layout_gather_prec(g, u, pos, &gp) && gp != blk_prec(g->blocks[s]))
        return layout_unit(gp, LAYOUT_GROUP);
    return storage_unit(g, u, (uint32_t)s, depth + 1, -1, m);
}

/* The row a P07 at pos writes into a map of precision out: as long as the row it reads (its
 * channels in its input's pitch), padded to 4 elements (input and table both int32) or 16;
 * 0 when pos is no CLUT. */
static int lut_row(const Graph *g, const GraphUses *u, uint32_t pos, PrecisionId out, int depth,
                   Memo *m)
{
    const Block *b = g->blocks[pos];
    const Edge *ed = b->type == BT_CLUT && b->n_in && b->in[0].n_ifaces == 1
                         ? graph_edge(g, b->in[0].ifaces[0].edge_id) : NULL;
    long s = ed ? known_pos(g, u, ed->src) : -1;
    int32_t d[TIR_NDIMS];
    blk_eff_shape(b, d);
    if (s < 0 || bt_info(g->blocks[s]->type)->kind != BK_STORAGE || depth >= MAX_CHAIN ||
        d[D_F] < 1)
        return 0;
    PrecisionId in = blk_prec(g->blocks[s]);
    /* its input's pitch, what this CLUT needs of it included (lut_need asks back the map it
     * writes but for this CLUT's rows; its other writers, other CLUTs when a split cut it,
     * ask back in turn): the row it reads, so the one it writes (a need that raised its
     * input's pitch, 47 int8 channels read in 64 for a P03 reading the map it writes in
     * groups of 32, made it write rows of 64, not 48) */
    int64_t unit = storage_unit(g, u, (uint32_t)s, depth + 1, -1, m);
    int64_t pad = in == PR_INT_32 && out == PR_INT_32 ? 4 : 16;
    if (unit < 1)
        return 0;
    int64_t row = ((int64_t)d[D_F] + unit - 1) / unit * unit;
    row = (row + pad - 1) / pad * pad;
    return row < (1 << 20) ? (int)row : 0;
}

/* The channels a pixel of block b's output holds (1 when its cluster has none). */
static int64_t map_channels(const Block *b)
{
    int32_t cd[TIR_CDIMS];
    if (!blk_cluster_dims(b, false, 0, cd))
        return 1;
    return cd[D_F] > 0 ? cd[D_F] : cd[D_R] > 0 ? cd[D_R] : 1;
}

/* The pitch of nc channels in units of unit: nc rounded up to whole units. */
static int64_t pitch_of(int64_t nc, int64_t unit)
{
    return unit > 0 ? (nc + unit - 1) / unit * unit : 0;
}

/* The least input unit and pitch a P05 / P25 at pos needs (0 for any other block): it
 * writes at most the channels it reads (nof <= nif), in rows padded to 16 bytes, so its
 * input's pitch must exceed the output's pitch less one 16-byte row's elements (8 int32
 * channels in fill the 16-byte row of 16 int8 channels out; 32 int8 channels out need more
 * than 16 in). The unit into *need: the output's unit less a row's elements, what a pixel of
 * one unit needs; the pitch into *pitch: the output's pitch (its channels in whole units)
 * less a row's elements, what a pixel of several units needs too (47 int8 channels in
 * groups of 32, 64 a pixel, from 47 int32 channels: 48 falls short of 49, 64 reaches it;
 * broadcast_div_case_2_variant_1-4's `op/bit4`). Of every map it writes: the one whose copy
 * on its core its primitive writes may be any of them (a CCMPS writing a map of 8 int32
 * channels for another core and a copy of it in 32 for a P05 on its own:
 * cvm_right_shift_P_32_s_15_p_13). */
static void cmp_need(const Graph *g, const GraphUses *u, uint32_t pos, int depth, Memo *m,
                     int *need, int *pitch)
{
    const Block *b = g->blocks[pos];
    int pc = bt_info(b->type)->pcode;
    const BlockUses *bu = &u->blocks[pos];
    *need = *pitch = 0;
    if ((pc != 5 && pc != 25) || depth >= MAX_CHAIN)
        return;
    int64_t nc = map_channels(b);
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        long y = known_pos(g, u, g->edges[bu->out_edges[j]]->dst);
        if (y < 0 || bt_info(g->blocks[y]->type)->kind != BK_STORAGE)
            continue;
        PrecisionId py = blk_prec(g->blocks[y]);
        int out = storage_unit(g, u, (uint32_t)y, depth + 1, -1, m);
        int e = layout_unit(py, LAYOUT_SOMA);
        if (out > e && out - e + 1 > *need)
            *need = out - e + 1;
        /* the pitch of a map of the channels it writes (a view of them, a vector of 400
         * from pixels of 16, takes a layout of its own: emit_rearr.c) */
        int64_t po = map_channels(g->blocks[y]) == nc ? pitch_of(nc, out) : 0;
        if (po > e && po - e + 1 > *pitch && po < (1 << 20))
            *pitch = (int)(po - e + 1);
    }
}

/* The least pitch a P07 at pos needs of the map s it reads its indices from (0 for any other
 * block): it writes each row as long as the one it reads, so that row must hold the pitch
 * the map it writes takes for its other writers and readers (a CLUT reading 16 int8 channels
 * a pixel into a map P02 reads with 32: cinn_cnn's). */
static int lut_need(const Graph *g, const GraphUses *u, uint32_t pos, uint32_t s, int depth,
                    Memo *m)
{
    const Block *b = g->blocks[pos];
    const BlockUses *bu = &u->blocks[pos];
    const Edge *in = b->type == BT_CLUT && b->n_in && b->in[0].n_ifaces == 1
                         ? graph_edge(g, b->in[0].ifaces[0].edge_id) : NULL;
    if (!in || known_pos(g, u, in->src) != (long)s || !bu->n_out_edges || depth >= MAX_CHAIN)
        return 0;
    long y = known_pos(g, u, g->edges[bu->out_edges[0]]->dst);
    if (y < 0 || bt_info(g->blocks[y]->type)->kind != BK_STORAGE)
        return 0;
    return storage_unit(g, u, (uint32_t)y, depth + 1, (long)pos, m); /* but this CLUT's rows */
}

/* Whether a dynamic block (docs/backend.md, "Dynamic blocks") writes a pixel of nc channels
 * in a pitch of unit: the channels as they are, or rounded up by one of its alignments (8,
 * 16 or 32 elements). */
static bool dynamic_pitch(int64_t nc, int unit)
{
    int64_t c = (nc + unit - 1) / unit * unit;
    return c == nc || c == (nc + 7) / 8 * 8 || c == (nc + 15) / 16 * 16 ||
           c == (nc + 31) / 32 * 32;
}

/* Counts value v of block at in top, the two largest values of distinct blocks. */
static void keep_top(int top[2], long *who, int v, long at)
{
    if (at == *who) {
        top[0] = v > top[0] ? v : top[0];
    } else if (v > top[0]) {
        top[1] = top[0];
        top[0] = v;
        *who = at;
    } else if (v > top[1]) {
        top[1] = v;
    }
}

/* The facts of the map at pos at depth depth. */
static void unit_facts(const Graph *g, const GraphUses *u, uint32_t pos, int depth, Memo *m,
                       UnitFacts *f)
{
    PrecisionId p = blk_prec(g->blocks[pos]);
    const BlockUses *bu = &u->blocks[pos];
    *f = (UnitFacts){.carrier = -1, .needer = -1, .pitcher = -1, .group_only = true};
    long first = -1;
    bool several = false;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        long w = known_pos(g, u, g->edges[bu->in_edges[j]]->src);
        if (w < 0)
            continue;
        several |= first >= 0 && w != first;
        first = first < 0 ? w : first;
        f->fed |= g->blocks[w]->type == BT_INPUT;
        unsigned wu = layout_use_of(g->blocks[w]->type, false);
        f->uses |= wu;
        f->group_only &= wu == LAYOUT_GROUP;
        int c = wu == LAYOUT_GROUP ? group_in_unit(g, u, (uint32_t)w, depth, m)
                                   : lut_row(g, u, (uint32_t)w, p, depth, m);
        keep_top(f->carried, &f->carrier, c, w);
    }
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        long r = known_pos(g, u, g->edges[bu->out_edges[j]]->dst);
        if (r < 0)
            continue;
        f->uses |= layout_use_of(g->blocks[r]->type, true);
        f->read |= layout_use_of(g->blocks[r]->type, true);
        int n, pn;
        cmp_need(g, u, (uint32_t)r, depth, m, &n, &pn);
        int l = lut_need(g, u, (uint32_t)r, pos, depth, m);
        keep_top(f->need, &f->needer, l > n ? l : n, r);
        keep_top(f->pitch, &f->pitcher, pn, r);
    }
    f->group_only &= several;
}

/* Whether the map of precision p with facts f lies in the Soma's 16-byte rows whatever its
 * writers carry (layout_soma_rows): int32, gathered from the pieces of two or more P02 /
 * P03 / P43 / P83 (and nothing else), which carry rows wider than a 32-byte group (an 8-bit
 * input's pitch: 32 int32 words a pixel), read by no compute block (only OUTPUTs) and
 * written by no INPUT. */
static bool soma_rows(PrecisionId p, const UnitFacts *f, int carried)
{
    return p == PR_INT_32 && f->group_only && !f->read && !f->fed &&
           f->need[0] == 0 && f->pitch[0] == 0 && carried > layout_unit(p, LAYOUT_GROUP);
}

/* skip: the CLUT asking, or -1: a writer whose rows not to count (lut_need), a reader whose
 * need not to count (lut_row). */
static int storage_unit(const Graph *g, const GraphUses *u, uint32_t pos, int depth, long skip,
                        Memo *m)
{
    /* the key: never 0 (an empty slot); the walk below (depth + 1 and deeper) never asks it */
    bool known = pos < (1u << 26) && depth >= 0 && depth < 32;
    uint64_t key = (uint64_t)1 << 63 | (uint64_t)pos << 5 | (uint64_t)depth;
    const UnitFacts *kept = known ? memo_find(m, key) : NULL;
    UnitFacts f;
    if (kept) {
        f = *kept;
    } else {
        unit_facts(g, u, pos, depth, m, &f);
        if (known)
            memo_put(m, key, &f);
    }
    PrecisionId p = blk_prec(g->blocks[pos]);
    int carried = f.carried[skip >= 0 && skip == f.carrier];
    int need = f.need[skip >= 0 && skip == f.needer];
    if (soma_rows(p, &f, carried)) /* each writer's P06 re-pitches its rows (a send area) */
        return layout_unit(p, LAYOUT_SOMA);
    int unit = layout_unit(p, f.uses);
    /* a row a writer carries, in whole units of the uses (a P07's 48 int8 channels in a map
     * P83 reads in 32-byte groups: 64; the router re-pitches it on the way to another core) */
    int base = unit;
    if (unit && carried > unit)
        unit = (carried + unit - 1) / unit * unit;
    /* a need above it (a unit; and a pitch, for a pixel of several units, that a P05 / P25
     * reader needs): the least unit of the uses doubled until it holds the row carried and
     * meets both, not the row doubled (48 carried, 64 needed: 64, not 96; a CLUT reading
     * rows of 96 then wrote a map of 96 that a P03 read beside a map of 64:
     * test_diff_ops/broadcast_div_case_2_variant_2-3) */
    int pneed = f.pitch[skip >= 0 && skip == f.pitcher];
    int64_t nc = pneed ? map_channels(g->blocks[pos]) : 0;
    if (unit && (unit < need || pitch_of(nc, unit) < pneed)) {
        int want = unit > need ? unit : need;
        int up = base;
        while (up < (1 << 20) && (up < want || pitch_of(nc, up) < pneed))
            up *= 2;
        unit = up;
    }
    int32_t cd[TIR_CDIMS];
    if (f.fed && p == PR_INT_32 && unit < 8 && blk_cluster_dims(g->blocks[pos], false, 0, cd) &&
        !dynamic_pitch(cd[D_F] > 0 ? cd[D_F] : cd[D_R] > 0 ? cd[D_R] : 1, unit))
        unit = 8; /* int32 pixels of 1..3 channels in 4: no alignment gives that, 8 does */
    return unit;
}

bool layout_soma_rows(const Graph *g, const GraphUses *u, uint32_t pos)
{
    if (bt_info(g->blocks[pos]->type)->kind != BK_STORAGE)
        return false;
    Memo local, *m = memo_of(u, &local);
    UnitFacts f;
    unit_facts(g, u, pos, 0, m, &f);
    memo_free(&local);
    return soma_rows(blk_prec(g->blocks[pos]), &f, f.carried[0]);
}

int layout_storage_unit(const Graph *g, const GraphUses *u, uint32_t pos)
{
    Memo local, *m = memo_of(u, &local);
    int unit = storage_unit(g, u, pos, 0, -1, m);
    memo_free(&local);
    return unit;
}

int layout_output_unit(const Graph *g, const GraphUses *u, uint32_t pos, PrecisionId p)
{
    unsigned wu = layout_use_of(g->blocks[pos]->type, false);
    int unit = layout_unit(p, wu);
    Memo local, *m = memo_of(u, &local);
    int c = wu == LAYOUT_GROUP ? group_in_unit(g, u, pos, 0, m) : lut_row(g, u, pos, p, 0, m);
    memo_free(&local);
    return unit && c > unit ? c : unit;
}

int64_t layout_map_bytes(PrecisionId p, int64_t ny, int64_t nx, int64_t nc, int unit)
{
    int bits = layout_unit(p, 0) ? pr_info(p)->bits : 0;
    const int64_t cap = (int64_t)1 << 40;
    if (!bits || unit < 1 || ny < 0 || nx < 0 || nc < 0 || ny > cap || nx > cap || nc > cap)
        return -1;
    int64_t row = (nc + unit - 1) / unit * unit * bits / 8; /* bytes a pixel */
    if (ny && nx > INT64_MAX / ny)
        return -1;
    int64_t px = ny * nx;
    return row && px > INT64_MAX / row ? -1 : px * row;
}

int64_t layout_repeat_bytes(const Graph *g, const GraphUses *u, uint32_t pos)
{
    long s = -1;
    uint32_t n = layout_repeats(g, u, pos, &s);
    int32_t cd[TIR_CDIMS];
    if (!n || layout_repeat_scales(g, u, pos) || !blk_cluster_dims(g->blocks[pos], true, 0, cd))
        return 0;
    PrecisionId p = blk_prec(g->blocks[s]);
    int64_t one = layout_map_bytes(p, cd[D_Y] > 0 ? cd[D_Y] : 1, cd[D_X] > 0 ? cd[D_X] : 1,
                                   cd[D_F] > 0 ? cd[D_F] : 1, layout_unit(p, LAYOUT_GROUP));
    return one < 0 || one > INT64_MAX / n ? -1 : one * n;
}

bool layout_narrows(const Graph *g, const GraphUses *u, uint32_t pos)
{
    const Block *b = g->blocks[pos];
    const BlockUses *bu = &u->blocks[pos];
    if (bt_info(b->type)->kind != BK_COMPUTE ||
        !(layout_use_of(b->type, false) & (LAYOUT_AXON | LAYOUT_GROUP)))
        return false;
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        long s = known_pos(g, u, g->edges[bu->out_edges[j]]->dst);
        PrecisionId p = s >= 0 ? blk_prec(g->blocks[s]) : PR_INT_32;
        if (s < 0 || bt_info(g->blocks[s]->type)->kind != BK_STORAGE)
            continue;
        if (p == PR_INT_8 || p == PR_UINT_8)
            return true;
        int32_t cd[TIR_CDIMS];
        int64_t su = layout_storage_unit(g, u, (uint32_t)s);
        int64_t ou = layout_output_unit(g, u, pos, PR_INT_32);
        if (p != PR_INT_32 || su <= ou || ou < 1 || !blk_cluster_dims(b, false, 0, cd))
            continue;
        int64_t nc = cd[D_F] > 0 ? cd[D_F] : 1;
        if ((nc + su - 1) / su * su > (nc + ou - 1) / ou * ou)
            return true; /* a re-pitch: the map holds more lanes a pixel than it writes */
    }
    return false;
}

int64_t layout_narrow_bytes(const Graph *g, const GraphUses *u, uint32_t pos)
{
    int32_t cd[TIR_CDIMS];
    if (!layout_narrows(g, u, pos) || !blk_cluster_dims(g->blocks[pos], false, 0, cd))
        return 0;
    return layout_map_bytes(PR_INT_32, cd[D_Y] > 0 ? cd[D_Y] : 1, cd[D_X] > 0 ? cd[D_X] : 1,
                            cd[D_F] > 0 ? cd[D_F] : 1,
                            layout_output_unit(g, u, pos, PR_INT_32));
}

int64_t layout_send_bytes(const Graph *g, const GraphUses *u, uint32_t pos)
{
    const Block *b = g->blocks[pos];
    const BlockUses *bu = &u->blocks[pos];
    int32_t cd[TIR_CDIMS];
    if (bt_info(b->type)->kind != BK_COMPUTE || !blk_cluster_dims(b, false, 0, cd))
        return 0;
    /* the buffer's precision, as the code generator takes it: an Axon's or a group
     * primitive's int32, else the last storage block written */
    PrecisionId buf = blk_prec(b);
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const Block *s = graph_block(g, g->edges[bu->out_edges[j]]->dst);
        if (s && bt_info(s->type)->kind == BK_STORAGE)
            buf = blk_prec(s);
    }
    if (layout_use_of(b->type, false) & (LAYOUT_AXON | LAYOUT_GROUP))
        buf = PR_INT_32;
    int64_t total = 0;
    PrecisionId seen[4];
    int n_seen = 0;
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        long s = known_pos(g, u, g->edges[bu->out_edges[j]]->dst);
        if (s < 0 || bt_info(g->blocks[s]->type)->kind != BK_STORAGE)
            continue;
        PrecisionId p = blk_prec(g->blocks[s]);
        /* a map in the Soma's rows whatever the writer carries: a send area of its pitch */
        bool counted = p == buf && !layout_soma_rows(g, u, (uint32_t)s);
        for (int k = 0; k < n_seen && !counted; k++)
            counted = seen[k] == p;
        if (counted || n_seen == 4)
            continue;
        seen[n_seen++] = p;
        int64_t one = layout_map_bytes(p, cd[D_Y] > 0 ? cd[D_Y] : 1, cd[D_X] > 0 ? cd[D_X] : 1,
                                       cd[D_F] > 0 ? cd[D_F] : 1,
                                       layout_storage_unit(g, u, (uint32_t)s));
        if (one < 0 && !layout_unit(p, 0))
            continue; /* a precision without a layout: refused (map.exact.prec, emit.prec) */
        if (one < 0 || total > INT64_MAX / 2 - one)
            return -1;
        total += one;
    }
    return total;
}

/* Whether INPUT edge ed into storage s is one its dynamic blocks cannot place in the map's
 * own layout (layout_input_unplaced); *unit the map's pitch in lanes, worked out on first
 * need (0 until then). */
static bool input_unplaced(const Graph *g, const GraphUses *u, const Edge *ed, uint32_t s,
                           int *unit)
{
    const Block *b = g->blocks[s];
    const IfaceUse *iu = uses_find(u, s, true, ed->id);
    int32_t cd[TIR_CDIMS];
    if (!iu || iu->cluster != 0 || !blk_cluster_dims(b, true, 0, cd))
        return false;
    if (ra_edge_keeps_order(g, u, ed)) { /* a dynamic block writes from a word's first lane */
        const Iface *f = &b->in[0].ifaces[iu->iface];
        return f->has_pos && f->pos.d[cd[D_F] > 0 ? D_F : D_R] % 4 != 0;
    }
    if (!*unit) /* in another order: cut into boxes of the socket (taskir/sockbox.h) */
        *unit = layout_storage_unit(g, u, s);
    return !sockbox_edge_fits(g, u, ed, s, *unit);
}

bool layout_input_unplaced(const Graph *g, const GraphUses *u, const Edge *ed, uint32_t s)
{
    const Block *b = g->blocks[s], *w = graph_block(g, ed->src);
    PrecisionId p = blk_prec(b);
    int unit = 0;
    return w && w->type == BT_INPUT && bt_info(b->type)->kind == BK_STORAGE && !b->data &&
           (p == PR_INT_8 || p == PR_UINT_8) && input_unplaced(g, u, ed, s, &unit);
}

bool layout_staged(const Graph *g, const GraphUses *u, uint32_t s)
{
    const Block *b = g->blocks[s];
    const BlockUses *bu = &u->blocks[s];
    PrecisionId p = blk_prec(b);
    int32_t cd[TIR_CDIMS];
    if (bt_info(b->type)->kind != BK_STORAGE || b->data || !bu->n_in_edges ||
        (p != PR_INT_8 && p != PR_UINT_8) || !blk_cluster_dims(b, true, 0, cd))
        return false;
    bool read = false;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        const Edge *ed = g->edges[bu->in_edges[j]];
        const Block *w = graph_block(g, ed->src);
        const IfaceUse *iu = uses_find(u, s, true, ed->id);
        if (!w || w->type != BT_INPUT || !iu || iu->cluster != 0)
            return false;
    }
    for (uint32_t j = 0; j < bu->n_out_edges; j++) {
        const Block *r = graph_block(g, g->edges[bu->out_edges[j]]->dst);
        if (r && r->type == BT_CC2D)
            return false; /* P81 reads an input as planes */
        read |= r && bt_info(r->type)->kind == BK_COMPUTE;
    }
    /* an edge keeping the order into channels from a lane that is no word's first, or one
     * in another order whose values its dynamic blocks cannot place in the map's own layout
     * (a value in several lanes, a lane that is no word's first) */
    int unit = 0;
    bool off = false;
    for (uint32_t j = 0; read && !off && j < bu->n_in_edges; j++)
        off = input_unplaced(g, u, g->edges[bu->in_edges[j]], s, &unit);
    return off && read;
}

int64_t layout_stage_bytes(const Graph *g, const GraphUses *u, uint32_t pos)
{
    const BlockUses *bu = &u->blocks[pos];
    int64_t sum = 0;
    for (uint32_t j = 0; j < bu->n_in_edges; j++) {
        long s = known_pos(g, u, g->edges[bu->in_edges[j]]->src);
        int32_t cd[TIR_CDIMS];
        if (s < 0 || !layout_staged(g, u, (uint32_t)s) ||
            !blk_cluster_dims(g->blocks[s], true, 0, cd))
            continue;
        int ch = cd[D_F] > 0 ? D_F : D_R;
        int64_t b = layout_map_bytes(PR_INT_32, cd[D_Y] > 0 ? cd[D_Y] : 1,
                                     cd[D_X] > 0 ? cd[D_X] : 1, cd[ch] > 0 ? cd[ch] : 1, 4);
        if (b < 0 || sum > INT64_MAX - b)
            return -1;
        sum += b;
    }
    return sum;
}

bool layout_gather_prec(const Graph *g, const GraphUses *u, uint32_t pos, PrecisionId *out)
{
    const Block *b = g->blocks[pos];
    uint32_t n = b->type == BT_CADD ? blk_n_variadic(b) : 0;
    long src = -1;
    if (n < 2 || layout_repeats(g, u, pos, &src))
        return false; /* no CADD, or one box added to itself (layout_repeat_bytes) */
    PrecisionId prec = PR_INT_32;
    for (uint32_t i = 0; i < n; i++) {
        const Edge *ed = i < b->n_in && b->in[i].n_ifaces == 1
                             ? graph_edge(g, b->in[i].ifaces[0].edge_id) : NULL;
        const Block *s = ed ? graph_block(g, ed->src) : NULL;
        if (!s || bt_info(s->type)->kind != BK_STORAGE)
            return false; /* the code generator refuses it (emit.layout) */
        PrecisionId p = blk_prec(s);
        if (p == PR_TERNARY || !layout_unit(p, 0))
            return false; /* the code generator refuses it (emit.layout, emit.prec) */
        prec = i == 0 || p == prec ? p : PR_INT_32; /* 8-bit values widened as they are */
    }
    *out = prec;
    return true;
}

int64_t layout_gather_bytes(const Graph *g, const GraphUses *u, uint32_t pos)
{
    PrecisionId p;
    int32_t cd[TIR_CDIMS];
    if (!layout_gather_prec(g, u, pos, &p) || !blk_cluster_dims(g->blocks[pos], true, 0, cd))
        return 0;
    uint32_t n = blk_n_variadic(g->blocks[pos]);
    int64_t one = layout_map_bytes(p, cd[D_Y] > 0 ? cd[D_Y] : 1, cd[D_X] > 0 ? cd[D_X] : 1,
                                   cd[D_F] > 0 ? cd[D_F] : 1,
                                   layout_output_unit(g, u, pos, p));
    return one < 0 || one > INT64_MAX / n ? -1 : one * n;
}

int64_t layout_gather_extra_bytes(const Graph *g, const GraphUses *u, uint32_t pos)
{
    int64_t a = layout_gather_bytes(g, u, pos);
    uint32_t n = a > 0 ? blk_n_variadic(g->blocks[pos]) : 1;
    return a > 0 ? a / n * (n - layout_gather_in_place(g, u, pos)) : a;
}

bool layout_gather_lies(const Graph *g, const GraphUses *u, uint32_t pos, uint32_t i)
{
    PrecisionId p;
    const Block *b = g->blocks[pos];
    int32_t cd[TIR_CDIMS];
    if (!layout_gather_prec(g, u, pos, &p) || i >= blk_n_variadic(b) ||
        !blk_cluster_dims(b, true, 0, cd))
        return false;
    int64_t nc = cd[D_F] > 0 ? cd[D_F] : 1, unit = layout_output_unit(g, u, pos, p);
    const Edge *ed = graph_edge(g, b->in[i].ifaces[0].edge_id);
    long s = ed && !ed->n_re ? known_pos(g, u, ed->src) : -1;
    int64_t own = s >= 0 ? layout_storage_unit(g, u, (uint32_t)s) : 0;
    if (s < 0 || blk_prec(g->blocks[s]) != p || own < 1 || unit < 1 ||
        (nc + own - 1) / own * own != (nc + unit - 1) / unit * unit)
        return false; /* another precision, or pixels of another pitch */
    const BlockUses *su = &u->blocks[s];
    bool alone = true; /* this input cluster its only reader */
    for (uint32_t j = 0; j < su->n_out_edges && alone; j++)
        alone = su->out_edges[j] < g->n_edges && g->edges[su->out_edges[j]] == ed;
    return alone;
}

uint32_t layout_gather_in_place(const Graph *g, const GraphUses *u, uint32_t pos)
{
    PrecisionId p;
    if (!layout_gather_prec(g, u, pos, &p))
        return 0;
    uint32_t n = blk_n_variadic(g->blocks[pos]), k = 0;
    for (uint32_t i = 0; i < n; i++)
        k += layout_gather_lies(g, u, pos, i);
    return k;
}

int64_t layout_work_bytes(const Graph *g, const GraphUses *u, uint32_t pos)
{
    /* an Axon's int32 area for narrowing on its core is at least its 8-bit send area for
     * another core's copy (4 bytes a value against 1): the larger of the two stands for both */
    int64_t r = layout_repeat_bytes(g, u, pos), n = layout_narrow_bytes(g, u, pos);
    int64_t s = layout_send_bytes(g, u, pos), t = layout_stage_bytes(g, u, pos);
    int64_t x = layout_gather_extra_bytes(g, u, pos);
    n = s > n ? s : n;
    const int64_t lim = INT64_MAX / 4; /* each part below it, so their sum cannot overflow */
    if (r < 0 || n < 0 || s < 0 || t < 0 || x < 0 || r > lim || n > lim || t > lim || x > lim)
        return -1;
    return r + n + t + x;
}


int32_t layout_p81_dilation(int32_t pad_left, int32_t dilate_x)
{
    int32_t dx = dilate_x > 0 ? dilate_x : 1;
    for (int32_t t = 0; t < 4; t++)
        if ((pad_left + t * (int64_t)dx) % 4 == 0)
            return dx;
    return 1; /* an odd pad with an even dilation: no t; undilated, t = 4 - pad % 4 */
}

int32_t layout_p81_left(int32_t pad_left, int32_t dilate_x, int32_t *lead)
{
    if (pad_left < 0 || pad_left > (1 << 20) || dilate_x > (1 << 20))
        return -1;
    int32_t dx = layout_p81_dilation(pad_left, dilate_x);
    for (int32_t t = 0; t < 4; t++)
        if ((pad_left + t * dx) % 4 == 0) {
            *lead = t;
            return pad_left + t * dx;
        }
    return -1; /* not reached: dx 1 always finds t */
}

int64_t layout_lut_entries(int32_t dw)
{
    if (dw < 1 || dw > 16)
        return 0;
    return (int64_t)1 << (dw % 4 ? dw / 4 * 4 + 4 : dw);
}
