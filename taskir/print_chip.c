/* print_chip.c: a chip description's summary (print_chip.h).
 *
 * Text: the array, the memory (banks and their areas with word ranges, sizes and roles), the
 * limits, alignment, MAC array, router and parameters, then the precisions table and the
 * primitives table (P-code, unit, accepted precisions, layout facts, then one line per block
 * type it runs with its clock formula). JSON: the same facts as one object (docs/chip.md). */
#include "taskir/print_chip.h"
#include "taskir/print_internal.h"

#include <json-c/json.h>
#include <string.h>

/* "144 KiB" or "16 B" */
static void print_size(FILE *out, uint64_t bytes)
{
    if (bytes >= 1024 && bytes % 1024 == 0)
        fprintf(out, "%llu KiB", (unsigned long long)(bytes / 1024));
    else
        fprintf(out, "%llu B", (unsigned long long)bytes);
}

static void print_roles(FILE *out, uint32_t role)
{
    bool first = true;
    for (uint32_t i = 0; i < CHIP_ROLE_COUNT; i++)
        if (role & (1u << i)) {
            fprintf(out, "%s%s", first ? "" : " ", chip_role_name(i));
            first = false;
        }
}

static void print_precs(FILE *out, uint64_t mask)
{
    bool first = true;
    for (int p = 0; p < PR_COUNT; p++)
        if (mask & (UINT64_C(1) << p)) {
            fprintf(out, "%s%s", first ? "" : " ", pr_info((PrecisionId)p)->name);
            first = false;
        }
}

/* The next run of primitive p from index *k on (advancing *k past it), or NULL. */
static const ChipRun *next_run(const Chip *c, const ChipPrim *p, uint32_t *k, char *formula,
                               size_t len)
{
    for (; *k < c->n_runs; ++*k) {
        const ChipRun *r = &c->runs[*k];
        if (r->pcode == p->pcode && (unsigned)r->block < BT_COUNT) {
            ++*k;
            chip_formula_text(r, formula, len);
            return r;
        }
    }
    return NULL;
}

static void print_range(FILE *out, const char *kind, const char *name, uint32_t base,
                        uint32_t words, uint32_t role, int indent)
{
    fprintf(out, "%*s%-5s %-10s words 0x%04x..0x%04x  ", indent, "", kind, name,
            (unsigned)base, (unsigned)(words ? base + words - 1 : base));
    print_size(out, (uint64_t)words * 4);
    fputs("  ", out);
    print_roles(out, role);
    fputc('\n', out);
}

static Status print_chip_text(const Chip *c, FILE *out, Diag *d)
{
    fprintf(out, "chip %s\n", c->name);
    fprintf(out, "array       %u x %u chips of %u x %u cores: %u cores\n", (unsigned)c->chips_x,
            (unsigned)c->chips_y, (unsigned)c->cores_x, (unsigned)c->cores_y,
            (unsigned)chip_total_cores(c));
    fputs("memory      a core: ", out);
    print_size(out, c->core_bytes);
    fputs(", budget ", out);
    print_size(out, c->core_budget_bytes);
    fputs(" (without the receive area)\n", out);
    for (uint32_t i = 0; i < c->n_banks; i++) {
        const ChipBank *b = &c->banks[i];
        print_range(out, "bank", b->name, b->base_word, b->words, b->role, 2);
        for (uint32_t k = 0; k < c->n_areas; k++)
            if (c->areas[k].bank == i)
                print_range(out, "area", c->areas[k].name, c->areas[k].base_word,
                            c->areas[k].words, c->areas[k].role, 4);
    }
    fputs("limits      received per phase ", out);
    print_size(out, c->recv_bytes_per_phase);
    fputs(", per destination and phase ", out);
    print_size(out, c->dest_bytes_per_phase);
    fprintf(out, "\n            %u phases a step (%u recommended), %u phase groups, %u step "
            "groups, %u primitives a phase\n", (unsigned)c->max_phases,
            (unsigned)c->recommended_phases, (unsigned)c->max_phase_groups,
            (unsigned)c->max_step_groups, (unsigned)c->prims_per_phase);
    fprintf(out, "align       input pixel rows %u B, weight rows %u B, int32 Axon output %u B\n",
            (unsigned)c->align_input, (unsigned)c->align_weight, (unsigned)c->align_axon_out);
    fprintf(out, "mac         %u columns x %u channels\n", (unsigned)c->mac_x,
            (unsigned)c->mac_f);
    fprintf(out, "soma        shift by %u bits a step, at most %u steps\n",
            (unsigned)c->soma_shift_bits, (unsigned)c->soma_shift_max);
    fprintf(out, "router      %u-byte packets (short: %u), %u-bit destination offset, hops "
            "%d..%d\n", (unsigned)c->packet_bytes, (unsigned)c->short_packet_bytes,
            (unsigned)c->dest_offset_bits, (int)c->hop_min, (int)c->hop_max);
    fprintf(out, "parameters  clock %llu Hz, NoC %u bytes per clock\n",
            (unsigned long long)c->clock_hz, (unsigned)c->noc_bytes_per_clock);
    fputs("precisions  name     code  g_f  write_v  d\n", out);
    for (uint32_t i = 0; i < c->n_precs; i++) {
        const ChipPrec *p = &c->precs[i];
        fprintf(out, "            %-8s %4u %4u %8u %3u\n", pr_info(p->prec)->name,
                (unsigned)p->code, (unsigned)p->g_f, (unsigned)p->write_v, (unsigned)p->d);
    }
    fputs("primitives\n", out);
    for (uint32_t i = 0; i < c->n_prims; i++) {
        const ChipPrim *p = &c->prims[i];
        fprintf(out, "  P%02d %-6s ", p->pcode, chip_unit_name(p->unit));
        print_precs(out, p->precs);
        fprintf(out, "; input rows %u B", (unsigned)p->in_align);
        if (p->chan_group > 1 || p->x_group > 1)
            fprintf(out, ", %u channels x %u columns at a time", (unsigned)p->chan_group,
                    (unsigned)p->x_group);
        if (p->r_pad)
            fprintf(out, ", input vector padded to %u B", (unsigned)p->r_pad);
        if (p->pad_in_memory)
            fputs(", padding stored", out);
        fputc('\n', out);
        bool any = false;
        char f[160];
        uint32_t k = 0;
        for (const ChipRun *r; (r = next_run(c, p, &k, f, sizeof f));) {
            fprintf(out, "      %-6s %-8s %s\n", bt_info(r->block)->name,
                    chip_clock_name(r->clock), f);
            any = true;
        }
        if (!any)
            fputs("      (inserted by the backend: no block type of its own)\n", out);
    }
    return print_check_stream(out, d);
}

static json_object *json_roles(PrintJson *J, uint32_t role)
{
    json_object *a = pj_arr(J);
    for (uint32_t i = 0; i < CHIP_ROLE_COUNT; i++)
        if (role & (1u << i))
            pj_push(J, a, pj_str(J, chip_role_name(i)));
    return a;
}

static json_object *json_range(PrintJson *J, const char *name, uint32_t base, uint32_t words,
                               uint32_t role)
{
    json_object *o = pj_obj(J);
    pj_set(J, o, "name", pj_str(J, name));
    pj_set(J, o, "base_word", pj_int(J, base));
    pj_set(J, o, "words", pj_int(J, words));
    pj_set(J, o, "bytes", pj_int(J, (int64_t)words * 4));
    pj_set(J, o, "roles", json_roles(J, role));
    return o;
}

static json_object *json_memory(PrintJson *J, const Chip *c)
{
    json_object *m = pj_obj(J);
    pj_set(J, m, "bytes", pj_int(J, c->core_bytes));
    pj_set(J, m, "budget", pj_int(J, c->core_budget_bytes));
    json_object *banks = pj_arr(J);
    for (uint32_t i = 0; i < c->n_banks; i++) {
        const ChipBank *b = &c->banks[i];
        json_object *bo = json_range(J, b->name, b->base_word, b->words, b->role);
        json_object *areas = pj_arr(J);
        for (uint32_t k = 0; k < c->n_areas; k++)
            if (c->areas[k].bank == i)
                pj_push(J, areas, json_range(J, c->areas[k].name, c->areas[k].base_word,
                                             c->areas[k].words, c->areas[k].role));
        pj_set(J, bo, "areas", areas);
        pj_push(J, banks, bo);
    }
    pj_set(J, m, "banks", banks);
    return m;
}

/* {key: value, ...} from parallel arrays */
static json_object *json_ints(PrintJson *J, const char *const *keys, const int64_t *vals, int n)
{
    json_object *o = pj_obj(J);
    for (int i = 0; i < n; i++)
        pj_set(J, o, keys[i], pj_int(J, vals[i]));
    return o;
}

static json_object *json_prim(PrintJson *J, const Chip *c, const ChipPrim *p)
{
    json_object *o = pj_obj(J);
    pj_set(J, o, "pcode", pj_int(J, p->pcode));
    pj_set(J, o, "unit", pj_str(J, chip_unit_name(p->unit)));
    json_object *ps = pj_arr(J);
    for (int k = 0; k < PR_COUNT; k++)
        if (p->precs & (UINT64_C(1) << k))
            pj_push(J, ps, pj_str(J, pr_info((PrecisionId)k)->name));
    pj_set(J, o, "precisions", ps);
    pj_set(J, o, "input_align", pj_int(J, p->in_align));
    pj_set(J, o, "channel_group", pj_int(J, p->chan_group));
    pj_set(J, o, "x_group", pj_int(J, p->x_group));
    pj_set(J, o, "input_pad", pj_int(J, p->r_pad));
    pj_set(J, o, "pad_in_memory", pj_bool(J, p->pad_in_memory));
    json_object *runs = pj_arr(J);
    char f[160];
    uint32_t k = 0;
    for (const ChipRun *r; (r = next_run(c, p, &k, f, sizeof f));) {
        json_object *ro = pj_obj(J);
        pj_set(J, ro, "block", pj_str(J, bt_info(r->block)->name));
        pj_set(J, ro, "clock", pj_str(J, chip_clock_name(r->clock)));
        pj_set(J, ro, "c0", pj_int(J, r->c0));
        pj_set(J, ro, "c1", pj_int(J, r->c1));
        pj_set(J, ro, "c_div", pj_int(J, r->c_div));
        pj_set(J, ro, "formula", pj_str(J, f));
        pj_push(J, runs, ro);
    }
    pj_set(J, o, "runs", runs);
    return o;
}

static Status print_chip_json(const Chip *c, FILE *out, Diag *d)
{
    PrintJson J = {false};
    json_object *root = pj_obj(&J);
    pj_set(&J, root, "chip", pj_str(&J, c->name));
    static const char *const array_keys[] = {"chips_x", "chips_y", "cores_x", "cores_y",
                                             "cores"};
    int64_t array[] = {c->chips_x, c->chips_y, c->cores_x, c->cores_y, chip_total_cores(c)};
    pj_set(&J, root, "array", json_ints(&J, array_keys, array, 5));
    pj_set(&J, root, "memory", json_memory(&J, c));
    static const char *const limit_keys[] = {"receive_per_phase", "destination_per_phase",
                                             "phases", "recommended_phases", "phase_groups",
                                             "step_groups", "primitives_per_phase"};
    int64_t limits[] = {c->recv_bytes_per_phase, c->dest_bytes_per_phase, c->max_phases,
                        c->recommended_phases, c->max_phase_groups, c->max_step_groups,
                        c->prims_per_phase};
    pj_set(&J, root, "limits", json_ints(&J, limit_keys, limits, 7));
    static const char *const align_keys[] = {"input", "weight", "axon_output"};
    int64_t align[] = {c->align_input, c->align_weight, c->align_axon_out};
    pj_set(&J, root, "align", json_ints(&J, align_keys, align, 3));
    static const char *const mac_keys[] = {"x", "f"};
    int64_t mac[] = {c->mac_x, c->mac_f};
    pj_set(&J, root, "mac", json_ints(&J, mac_keys, mac, 2));
    static const char *const soma_keys[] = {"shift_bits", "shift_max"};
    int64_t soma[] = {c->soma_shift_bits, c->soma_shift_max};
    pj_set(&J, root, "soma", json_ints(&J, soma_keys, soma, 2));
    static const char *const router_keys[] = {"packet_bytes", "short_packet_bytes",
                                              "offset_bits", "hop_min", "hop_max"};
    int64_t router[] = {c->packet_bytes, c->short_packet_bytes, c->dest_offset_bits,
                        c->hop_min, c->hop_max};
    pj_set(&J, root, "router", json_ints(&J, router_keys, router, 5));
    static const char *const param_keys[] = {"clock_hz", "noc_bytes_per_clock"};
    int64_t params[] = {(int64_t)c->clock_hz, c->noc_bytes_per_clock};
    pj_set(&J, root, "parameters", json_ints(&J, param_keys, params, 2));
    json_object *precs = pj_arr(&J);
    for (uint32_t i = 0; i < c->n_precs; i++) {
        const ChipPrec *p = &c->precs[i];
        json_object *o = pj_obj(&J);
        pj_set(&J, o, "name", pj_str(&J, pr_info(p->prec)->name));
        static const char *const keys[] = {"code", "g_f", "write_v", "d"};
        int64_t vals[] = {p->code, p->g_f, p->write_v, p->d};
        for (int k = 0; k < 4; k++)
            pj_set(&J, o, keys[k], pj_int(&J, vals[k]));
        pj_push(&J, precs, o);
    }
    pj_set(&J, root, "precisions", precs);
    json_object *prims = pj_arr(&J);
    for (uint32_t i = 0; i < c->n_prims; i++)
        pj_push(&J, prims, json_prim(&J, c, &c->prims[i]));
    pj_set(&J, root, "primitives", prims);
    return pj_write(&J, root, out, d);
}

Status print_chip(const Chip *c, PrintFormat f, FILE *out, Diag *d)
{
    return f == PF_JSON || f == PF_JSON_FULL ? print_chip_json(c, out, d)
                                             : print_chip_text(c, out, d);
}
