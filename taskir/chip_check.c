/* chip_check.c: the cross-field rules of a chip description (docs/chip.md, "Rules"), run by
 * the reader once every value is read. Each rule reports every place it fails, at the line of
 * the element concerned. */
#include "taskir/chip_internal.h"
#include "taskir/xmlread.h"

#include <stdarg.h>
#include <string.h>

typedef struct Check {
    const Chip *c;
    const ChipLines *ln;
    const char *name;
    Diag *d;
    Status st;
} Check;

static void fail(Check *k, long line, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void fail(Check *k, long line, const char *rule, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tir_xml_vfail(k->d, k->name, line, rule, fmt, ap);
    va_end(ap);
    k->st = ST_LOGIC;
}

static bool apart(uint64_t b0, uint64_t n0, uint64_t b1, uint64_t n1)
{
    return b0 + n0 <= b1 || b1 + n1 <= b0;
}

static void check_banks(Check *k)
{
    const Chip *c = k->c;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < c->n_banks; i++) {
        const ChipBank *b = &c->banks[i];
        uint64_t end = (uint64_t)b->base_word + b->words;
        if (b->words == 0)
            fail(k, k->ln->bank[i], "chip.bank.size", "bank %s has no words", b->name);
        if (b->role == 0)
            fail(k, k->ln->bank[i], "chip.bank.role", "bank %s has no role (a role attribute "
                 "or areas with roles)", b->name);
        if (!(b->role & CHIP_BANK_STREAM)) {
            sum += (uint64_t)b->words * 4;
            if (end * 4 > c->core_bytes)
                fail(k, k->ln->bank[i], "chip.bank.inside", "bank %s (words 0x%x..0x%llx) "
                     "ends past the core's %u bytes", b->name, (unsigned)b->base_word,
                     (unsigned long long)(end ? end - 1 : 0), (unsigned)c->core_bytes);
        }
        for (uint32_t j = 0; j < i; j++) {
            const ChipBank *o = &c->banks[j];
            if (strcmp(o->name, b->name) == 0)
                fail(k, k->ln->bank[i], "chip.bank.name", "bank %s is named twice", b->name);
            if (!apart(b->base_word, b->words, o->base_word, o->words))
                fail(k, k->ln->bank[i], "chip.bank.overlap", "bank %s overlaps bank %s",
                     b->name, o->name);
        }
    }
    if (sum != c->core_bytes)
        fail(k, k->ln->memory, "chip.memory.bytes", "the banks (the stream register aside) "
             "hold %llu bytes, <memory bytes> says %u", (unsigned long long)sum,
             (unsigned)c->core_bytes);
    for (uint32_t i = 0; i < c->n_areas; i++) {
        const ChipArea *a = &c->areas[i];
        const ChipBank *b = &c->banks[a->bank];
        if (a->base_word < b->base_word ||
            (uint64_t)a->base_word + a->words > (uint64_t)b->base_word + b->words || !a->words)
            fail(k, k->ln->area[i], "chip.area.inside", "area %s (words 0x%x, %u words) is not "
                 "inside bank %s", a->name, (unsigned)a->base_word, (unsigned)a->words, b->name);
        for (uint32_t j = 0; j < i; j++)
            if (!apart(a->base_word, a->words, c->areas[j].base_word, c->areas[j].words))
                fail(k, k->ln->area[i], "chip.area.overlap", "area %s overlaps area %s",
                     a->name, c->areas[j].name);
    }
}

static void check_budgets(Check *k)
{
    const Chip *c = k->c;
    uint64_t recv = chip_role_bytes(c, CHIP_BANK_RECEIVE);
    uint64_t data = chip_role_bytes(c, CHIP_BANK_DATA | CHIP_BANK_WEIGHTS);
    if (data == 0)
        fail(k, k->ln->memory, "chip.memory.roles", "no bank holds data or weights");
    if (c->core_budget_bytes == 0 || (uint64_t)c->core_budget_bytes + recv > c->core_bytes)
        fail(k, k->ln->memory, "chip.memory.budget", "the budget of %u bytes and the %llu bytes "
             "of the receive area do not fit in the core's %u bytes",
             (unsigned)c->core_budget_bytes, (unsigned long long)recv, (unsigned)c->core_bytes);
    if (c->core_budget_bytes > data && data)
        fail(k, k->ln->memory, "chip.memory.budget", "the budget of %u bytes is more than the "
             "%llu bytes of the data and weight banks", (unsigned)c->core_budget_bytes,
             (unsigned long long)data);
    if (c->recv_bytes_per_phase > recv)
        fail(k, k->ln->limits, "chip.limit.receive", "%u bytes received per phase do not fit "
             "the receive area's %llu bytes", (unsigned)c->recv_bytes_per_phase,
             (unsigned long long)recv);
    uint64_t reach = ((uint64_t)1 << c->dest_offset_bits) * c->packet_bytes;
    if (c->dest_bytes_per_phase == 0 || c->dest_bytes_per_phase > reach)
        fail(k, k->ln->limits, "chip.limit.destination", "%u bytes per destination and phase: "
             "a %u-bit offset in %u-byte packets reaches %llu", (unsigned)c->dest_bytes_per_phase,
             (unsigned)c->dest_offset_bits, (unsigned)c->packet_bytes,
             (unsigned long long)reach);
    if (c->recommended_phases > c->max_phases)
        fail(k, k->ln->limits, "chip.limit.phases", "%u recommended phases, more than the %u "
             "allowed", (unsigned)c->recommended_phases, (unsigned)c->max_phases);
    if (c->short_packet_bytes > c->packet_bytes)
        fail(k, k->ln->router, "chip.router.packet", "a short packet of %u bytes is longer than "
             "a packet (%u)", (unsigned)c->short_packet_bytes, (unsigned)c->packet_bytes);
    if (c->hop_min >= 0 || c->hop_max <= 0)
        fail(k, k->ln->router, "chip.router.hop", "the hop range %d..%d must hold negative and "
             "positive offsets", (int)c->hop_min, (int)c->hop_max);
    uint64_t cores = (uint64_t)c->chips_x * c->chips_y;
    cores = cores > (1u << 20) ? UINT64_MAX : cores * c->cores_x * c->cores_y;
    if (cores > INT32_MAX)
        fail(k, k->ln->array, "chip.array.size", "the chip array has more than %d cores",
             INT32_MAX);
}

static void check_prims(Check *k)
{
    const Chip *c = k->c;
    for (uint32_t i = 0; i < c->n_precs; i++)
        for (uint32_t j = 0; j < i; j++) {
            if (c->precs[i].prec == c->precs[j].prec)
                fail(k, k->ln->prec[i], "chip.prec.dup", "precision %s is listed twice",
                     pr_info(c->precs[i].prec)->name);
            else if (c->precs[i].code == c->precs[j].code)
                fail(k, k->ln->prec[i], "chip.prec.dup", "precisions %s and %s have one code %u",
                     pr_info(c->precs[j].prec)->name, pr_info(c->precs[i].prec)->name,
                     (unsigned)c->precs[i].code);
        }
    for (uint32_t i = 0; i < c->n_prims; i++) {
        const ChipPrim *p = &c->prims[i];
        for (uint32_t j = 0; j < i; j++)
            if (c->prims[j].pcode == p->pcode)
                fail(k, k->ln->prim[i], "chip.prim.dup", "primitive P%02d is described twice",
                     p->pcode);
        if (p->unit == UNIT_ROUTER && p->blocks)
            fail(k, k->ln->prim[i], "chip.prim.unit", "router primitive P%02d runs compute "
                 "blocks", p->pcode);
        if (p->chan_group > c->mac_f || p->x_group > c->mac_x)
            fail(k, k->ln->prim[i], "chip.prim.group", "primitive P%02d computes %u channels x "
                 "%u columns at a time, more than the %u x %u MAC array", p->pcode,
                 (unsigned)p->chan_group, (unsigned)p->x_group, (unsigned)c->mac_f,
                 (unsigned)c->mac_x);
    }
    for (uint32_t i = 0; i < c->n_runs; i++) {
        const ChipRun *r = &c->runs[i];
        if (r->block == BT_COUNT)
            continue;
        if (r->c_div < 1)
            fail(k, k->ln->run[i], "chip.clock", "<run block=\"%s\">: c_div must be at least 1",
                 bt_info(r->block)->name);
        if (bt_info(r->block)->pcode != r->pcode)
            fail(k, k->ln->run[i], "chip.prim.pcode", "%s is run by P%02d on the TaskGraph's "
                 "side (docs/wire.md), not P%02d", bt_info(r->block)->name,
                 bt_info(r->block)->pcode, r->pcode);
        for (uint32_t j = 0; j < i; j++)
            if (c->runs[j].block == r->block)
                fail(k, k->ln->run[i], "chip.prim.cover", "%s is run by two primitives (P%02d "
                     "and P%02d)", bt_info(r->block)->name, c->runs[j].pcode, r->pcode);
    }
    for (int t = 0; t < BT_COUNT; t++)
        if (bt_info((BlockType)t)->kind == BK_COMPUTE && !chip_run_for(c, (BlockType)t))
            fail(k, k->ln->chip, "chip.prim.cover", "no primitive runs %s blocks",
                 bt_info((BlockType)t)->name);
}

Status chip_check(const Chip *c, const ChipLines *ln, const char *name, Diag *d)
{
    Check k = {.c = c, .ln = ln, .name = name, .d = d};
    check_banks(&k);
    check_budgets(&k);
    check_prims(&k);
    return k.st;
}
