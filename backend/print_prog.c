/* print_prog.c: taskir-dump DIR (print_prog.h). The program set becomes one json-c tree:
 * every primitive's set fields, read through protobuf-c's descriptors (so every parameter the
 * schema has is shown, with enum values by name), and every core's memory map; the tree is
 * then printed as JSON or as indented text. */
#include "backend/print_prog.h"

#include "backend/core_mem.h"
#include "backend/pbc_field.h"
#include "backend/progset_check.h"
#include "backend/run_internal.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* ---- protobuf-c messages as json ---- */

static json_object *msg_json(const ProtobufCMessage *m, bool *oom);

/* Adds v to object o (or array a); a NULL o or v is out of memory. */
static void jadd(json_object *o, const char *key, json_object *v, bool *oom)
{
    if (!o || !v || json_object_object_add(o, key, v)) {
        *oom = true;
        if (!o)
            json_object_put(v);
    }
}

static void jpush(json_object *a, json_object *v, bool *oom)
{
    if (!a || !v || json_object_array_add(a, v)) {
        *oom = true;
        if (!a)
            json_object_put(v);
    }
}

static json_object *value_json(const ProtobufCFieldDescriptor *f, const void *p, bool *oom)
{
    switch (f->type) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
        return json_object_new_int(*(const int32_t *)p);
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
        return json_object_new_int64(*(const uint32_t *)p);
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
        return json_object_new_int64(*(const int64_t *)p);
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
        return json_object_new_int64((int64_t)*(const uint64_t *)p);
    case PROTOBUF_C_TYPE_BOOL:
        return json_object_new_boolean(*(const protobuf_c_boolean *)p);
    case PROTOBUF_C_TYPE_FLOAT:
        return json_object_new_double(*(const float *)p);
    case PROTOBUF_C_TYPE_DOUBLE:
        return json_object_new_double(*(const double *)p);
    case PROTOBUF_C_TYPE_ENUM: {
        int v = *(const int *)p;
        const ProtobufCEnumValue *e = protobuf_c_enum_descriptor_get_value(f->descriptor, v);
        return e ? json_object_new_string(e->name) : json_object_new_int(v);
    }
    case PROTOBUF_C_TYPE_STRING:
        return json_object_new_string(*(char *const *)p);
    case PROTOBUF_C_TYPE_MESSAGE:
        return msg_json(*(ProtobufCMessage *const *)p, oom);
    default:
        return NULL;
    }
}

/* Every field m sets, by name; pic and the fields of the slots' own messages aside. */
static json_object *msg_json(const ProtobufCMessage *m, bool *oom)
{
    json_object *o = json_object_new_object();
    const ProtobufCMessageDescriptor *desc = m->descriptor;
    for (unsigned i = 0; o && i < desc->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &desc->fields[i];
        const char *base = (const char *)m;
        json_object *v = NULL;
        if (strcmp(f->name, "pic") == 0 || f->type == PROTOBUF_C_TYPE_BYTES)
            continue;
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t n = *(const size_t *)(base + f->quantifier_offset);
            const char *arr = *(const char *const *)(base + f->offset);
            if (!n)
                continue;
            v = json_object_new_array();
            for (size_t k = 0; v && k < n; k++)
                jpush(v, value_json(f, arr + k * pbc_elem_size(f->type), oom), oom);
        } else {
            bool set = f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_MESSAGE
                           ? *(const void *const *)(base + f->offset) != NULL
                           : *(const protobuf_c_boolean *)(base + f->quantifier_offset);
            if (!set)
                continue;
            v = value_json(f, base + f->offset, oom);
        }
        jadd(o, f->name, v, oom);
    }
    return o;
}

/* ---- memory maps ---- */

typedef struct Area {
    int64_t start, words;
    const char *id;         /* "" when the program names none */
    char what[48];
    uint32_t phases;        /* bit p: used in phase p; 0: loaded before the run */
} Area;

typedef struct Areas {
    Area *a;
    size_t n, cap;
    bool oom;
} Areas;

static void area_add(Areas *l, int64_t start, int64_t words, const char *id, const char *what,
                     int phase)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        Area *a = realloc(l->a, cap * sizeof *a);
        if (!a) {
            l->oom = true;
            return;
        }
        l->a = a;
        l->cap = cap;
    }
    Area *e = &l->a[l->n++];
    e->start = start;
    e->words = words;
    e->id = id ? id : "";
    snprintf(e->what, sizeof e->what, "%s", what);
    e->phases = phase >= 0 && phase < 32 ? (uint32_t)1 << phase : 0;
}

static const ProtobufCFieldDescriptor *field(const ProtobufCMessage *m, const char *name)
{
    return protobuf_c_message_descriptor_get_field_by_name(m->descriptor, name);
}

/* An optional int32 field's value; false when absent. */
static bool int_field(const ProtobufCMessage *m, const char *name, int64_t *v)
{
    const ProtobufCFieldDescriptor *f = field(m, name);
    if (!f || f->type != PROTOBUF_C_TYPE_INT32 || f->label != PROTOBUF_C_LABEL_OPTIONAL ||
        !*(const protobuf_c_boolean *)((const char *)m + f->quantifier_offset))
        return false;
    *v = *(const int32_t *)((const char *)m + f->offset);
    return true;
}

/* The block id the slot message gives area prefix (x1 -> x1_block, o -> output_block[0]). */
static const char *area_id(const ProtobufCMessage *slot, const char *prefix)
{
    char name[64];
    snprintf(name, sizeof name, "%s_block", strcmp(prefix, "o") == 0 ? "output" : prefix);
    const ProtobufCFieldDescriptor *f = field(slot, name);
    const char *base = (const char *)slot;
    if (!f || f->type != PROTOBUF_C_TYPE_STRING)
        return NULL;
    if (f->label == PROTOBUF_C_LABEL_REPEATED)
        return *(const size_t *)(base + f->quantifier_offset)
                   ? (*(char *const *const *)(base + f->offset))[0] : NULL;
    return *(char *const *)(base + f->offset);
}

/* Every PREFIX_base_addr / PREFIX_addr_length pair of m (the slot's areas). */
static void prim_areas(Areas *l, const ProtobufCMessage *m, const ProtobufCMessage *slot,
                       const char *label, int phase)
{
    for (unsigned i = 0; i < m->descriptor->n_fields; i++) {
        const char *name = m->descriptor->fields[i].name, *end = strstr(name, "_base_addr");
        int64_t base, len;
        if (!end || end[10] || end - name > 20 || !int_field(m, name, &base))
            continue;
        char prefix[24], lname[48], what[48];
        snprintf(prefix, sizeof prefix, "%.*s", (int)(end - name), name);
        snprintf(lname, sizeof lname, "%s_addr_length", prefix);
        if (!int_field(m, lname, &len))
            len = 0;
        snprintf(what, sizeof what, "%s %s", label, prefix);
        area_add(l, base, len, area_id(slot, prefix), what, phase);
    }
}

static void slot_areas(Areas *l, const Taskir__Asm__StaticPrimList *pl, int p)
{
    char label[24];
    if (pl->axon) {
        snprintf(label, sizeof label, "axon P%02X", (unsigned)pl->axon->pic);
        prim_areas(l, &pl->axon->base, &pl->axon->base, label, p);
    }
    const Taskir__Asm__SomaPrim *somas[2] = {pl->soma1, pl->soma2};
    for (int k = 0; k < 2; k++) {
        const Taskir__Asm__SomaPrim *s = somas[k];
        const ProtobufCMessage *sub = !s ? NULL : s->px5 ? &s->px5->base : s->p06 ? &s->p06->base
                                      : s->p26 ? &s->p26->base : s->p07 ? &s->p07->base
                                      : s->p08 ? &s->p08->base : NULL;
        snprintf(label, sizeof label, "soma%d P%02X", k + 1, s ? (unsigned)s->pic : 0);
        if (sub)
            prim_areas(l, sub, &s->base, label, p);
    }
    const Taskir__Asm__P09 *r = pl->router ? pl->router->p09 : NULL;
    if (r && r->send_en && r->out_memory != TASKIR__ASM__MEMORY_AREA__MEM3)
        area_add(l, r->addr_dout_base, 4 * ((int64_t)r->addr_dout_length + 1),
                 pl->router->send_block, "router P09 send", p);
    if (r && r->receive_en)
        area_add(l, ASM_MEM2_BASE + (int64_t)r->addr_din_base,
                 2 * ((int64_t)r->addr_din_length + 1),
                 pl->router->receive_block, "router P09 receive", p);
}

static int area_cmp(const void *x, const void *y)
{
    const Area *a = x, *b = y;
    if (a->start != b->start)
        return (a->start > b->start) - (a->start < b->start);
    if (a->words != b->words)
        return (a->words > b->words) - (a->words < b->words);
    int c = strcmp(a->id, b->id);
    return c ? c : strcmp(a->what, b->what);
}

static const char *const bank_names[] = {"MEM0", "MEM1", "MEM2", "MEM3"};

/* The memory map of one core as a json array, areas sorted, the same area of several phases
 * once. */
static json_object *memory_json(const ProgSet *s, int chip_x, int chip_y,
                                const Taskir__Asm__CoreConfig *cc, bool *oom)
{
    Areas l = {0};
    const Taskir__Asm__DataConfig *dc = s->config->data_config;
    for (size_t i = 0; dc && i < dc->n_static_blocks; i++) {
        const Taskir__Asm__StaticBlock *b = dc->static_blocks[i];
        if (b->chip_idx == chip_x && b->chip_idy == chip_y && b->core_idx == cc->core_x &&
            b->core_idy == cc->core_y)
            area_add(&l, b->start_addr, i < s->n_data ? (int64_t)s->data[i].n : 0, b->id,
                     "static", -1);
    }
    for (size_t i = 0; dc && i < dc->n_dynamic_blocks; i++) {
        const Taskir__Asm__DynamicBlock *b = dc->dynamic_blocks[i];
        int out = b->io_type == TASKIR__ASM__IOTYPE__OUTPUT_DATA;
        long k = prog_find_socket(s, out, b->socket_id);
        if (b->chip_idx != chip_x || b->chip_idy != chip_y || b->core_idx != cc->core_x ||
            b->core_idy != cc->core_y || k < 0)
            continue;
        char what[48];
        snprintf(what, sizeof what, "%s socket %d", out ? "output" : "input", b->socket_id);
        area_add(&l, b->start_addr, run_io_words(b, &s->sockets[k]), b->id, what, -1);
    }
    for (size_t p = 0; p < cc->n_static_prim_list; p++)
        slot_areas(&l, cc->static_prim_list[p], (int)p);
    if (l.n)
        qsort(l.a, l.n, sizeof *l.a, area_cmp);
    json_object *arr = json_object_new_array();
    for (size_t i = 0; arr && i < l.n; i++) {
        Area *a = &l.a[i];
        while (i + 1 < l.n && area_cmp(a, &l.a[i + 1]) == 0)
            a->phases |= l.a[++i].phases;
        json_object *o = json_object_new_object(), *ph = json_object_new_array();
        int bank = core_mem_bank(a->start);
        jadd(o, "bank", json_object_new_string(bank < 0 ? "outside" : bank_names[bank]), oom);
        jadd(o, "start", json_object_new_int64(a->start), oom);
        jadd(o, "words", json_object_new_int64(a->words), oom);
        jadd(o, "id", json_object_new_string(a->id), oom);
        jadd(o, "what", json_object_new_string(a->what), oom);
        for (int p = 0; p < 32; p++)
            if (a->phases >> p & 1)
                jpush(ph, json_object_new_int(p), oom);
        jadd(o, "phases", ph, oom);
        jpush(arr, o, oom);
    }
    *oom = *oom || l.oom || !arr;
    free(l.a);
    return arr;
}

/* ---- the whole set ---- */

static json_object *slot_json(const ProtobufCMessage *m, int pic, bool *oom)
{
    json_object *o = msg_json(m, oom);
    char code[16];
    snprintf(code, sizeof code, "P%02X", (unsigned)pic);
    jadd(o, "pcode", json_object_new_string(code), oom);
    return o;
}

/* The router slot: P09's fields with the block ids beside them, so that its headers are a
 * list of the slot's own. */
static json_object *router_json(const Taskir__Asm__RouterPrim *r, bool *oom)
{
    json_object *o = r->p09 ? slot_json(&r->p09->base, 0x09, oom) : slot_json(&r->base, 0x09, oom);
    if (r->p09 && r->send_block)
        jadd(o, "send_block", json_object_new_string(r->send_block), oom);
    if (r->p09 && r->router_table_block)
        jadd(o, "router_table_block", json_object_new_string(r->router_table_block), oom);
    if (r->p09 && r->receive_block)
        jadd(o, "receive_block", json_object_new_string(r->receive_block), oom);
    return o;
}

static json_object *core_json(const ProgSet *s, const Taskir__Asm__StepConfig *sc,
                              const Taskir__Asm__PhaseGroupConfig *pg,
                              const Taskir__Asm__CoreConfig *cc, bool *oom)
{
    json_object *o = json_object_new_object(), *phases = json_object_new_array();
    json_object *chip = json_object_new_array(), *core = json_object_new_array();
    jpush(chip, json_object_new_int(sc->chip_x), oom);
    jpush(chip, json_object_new_int(sc->chip_y), oom);
    jpush(core, json_object_new_int(cc->core_x), oom);
    jpush(core, json_object_new_int(cc->core_y), oom);
    jadd(o, "chip", chip, oom);
    jadd(o, "step_group", json_object_new_int(sc->step_group_id), oom);
    jadd(o, "phase_group", json_object_new_int(pg->phase_group_id), oom);
    jadd(o, "core", core, oom);
    for (size_t p = 0; p < cc->n_static_prim_list; p++) {
        const Taskir__Asm__StaticPrimList *l = cc->static_prim_list[p];
        json_object *ph = json_object_new_object();
        jadd(ph, "phase", json_object_new_int((int)p), oom);
        if (l->axon)
            jadd(ph, "axon", slot_json(&l->axon->base, l->axon->pic, oom), oom);
        if (l->soma1)
            jadd(ph, "soma1", slot_json(&l->soma1->base, l->soma1->pic, oom), oom);
        if (l->router)
            jadd(ph, "router", router_json(l->router, oom), oom);
        if (l->soma2)
            jadd(ph, "soma2", slot_json(&l->soma2->base, l->soma2->pic, oom), oom);
        jpush(phases, ph, oom);
    }
    jadd(o, "phases", phases, oom);
    jadd(o, "memory", memory_json(s, sc->chip_x, sc->chip_y, cc, oom), oom);
    return o;
}

static json_object *set_json(const ProgSet *s, bool *oom)
{
    json_object *root = json_object_new_object(), *cores = json_object_new_array();
    json_object *socks = json_object_new_array();
    const Taskir__Asm__BehaviorConfig *bc = s->config->behavior_config;
    for (size_t k = 0; k < s->n_sockets; k++) {
        const ProgSocket *sk = &s->sockets[k];
        json_object *o = json_object_new_object(), *shape = json_object_new_array();
        jadd(o, "io", json_object_new_string(sk->is_output ? "output"
                                                                              : "input"), oom);
        jadd(o, "socket_id", json_object_new_int(sk->socket_id), oom);
        jadd(o, "name", json_object_new_string(sk->name), oom);
        for (int i = 0; i < 4; i++)
            jpush(shape, json_object_new_int64(sk->shape[i]), oom);
        jadd(o, "shape", shape, oom);
        jpush(socks, o, oom);
    }
    jadd(root, "sockets", socks, oom);
    for (size_t i = 0; bc && i < bc->n_step_config; i++)
        for (size_t j = 0; j < bc->step_config[i]->n_phase_group_config; j++) {
            const Taskir__Asm__PhaseGroupConfig *pg = bc->step_config[i]->phase_group_config[j];
            for (size_t k = 0; k < pg->n_core_config; k++)
                jpush(cores, core_json(s, bc->step_config[i], pg,
                                                       pg->core_config[k], oom), oom);
        }
    jadd(root, "cores", cores, oom);
    return root;
}

/* ---- text ---- */

static bool is_address(const char *key)
{
    size_t n = strlen(key);
    return strcmp(key, "start_addr") == 0 || (n > 10 && strcmp(key + n - 10, "_base_addr") == 0) ||
           (n > 5 && strncmp(key, "Addr_", 5) == 0 && strcmp(key + n - 5, "_base") == 0);
}

/* The fields of o on one line, "key=value", nested messages as key{...}; lists of messages
 * (router headers) go to lines of their own after it, at depth + 1. */
static void text_fields(FILE *f, json_object *o, int depth)
{
    json_object_object_foreach(o, key, v) {
        if (strcmp(key, "pcode") == 0 ||
            (json_object_is_type(v, json_type_array) && json_object_array_length(v) &&
             json_object_is_type(json_object_array_get_idx(v, 0), json_type_object)))
            continue;
        if (json_object_is_type(v, json_type_object)) {
            fprintf(f, " %s{", key);
            text_fields(f, v, -1);
            fprintf(f, " }");
        } else if (json_object_is_type(v, json_type_int) && is_address(key)) {
            fprintf(f, " %s=0x%04llx", key, (unsigned long long)json_object_get_int64(v));
        } else if (json_object_is_type(v, json_type_string)) {
            fprintf(f, " %s=%s", key, json_object_get_string(v));
        } else {
            fprintf(f, " %s=%s", key, json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
        }
    }
    if (depth < 0)
        return;
    json_object_object_foreach(o, k2, v2) {
        if (!json_object_is_type(v2, json_type_array) || !json_object_array_length(v2) ||
            !json_object_is_type(json_object_array_get_idx(v2, 0), json_type_object))
            continue;
        for (size_t i = 0; i < json_object_array_length(v2); i++) {
            fprintf(f, "\n%*s%s %zu:", 2 * depth, "", k2, i);
            text_fields(f, json_object_array_get_idx(v2, i), depth + 1);
        }
    }
}

static void print_text(FILE *f, json_object *root)
{
    json_object *socks = json_object_object_get(root, "sockets");
    json_object *cores = json_object_object_get(root, "cores");
    fprintf(f, "program set: %zu cores, %zu sockets\n", json_object_array_length(cores),
            json_object_array_length(socks));
    for (size_t i = 0; i < json_object_array_length(socks); i++) {
        json_object *k = json_object_array_get_idx(socks, i);
        fprintf(f, "%s socket %d '%s': shape (y x f r) %s\n",
                json_object_get_string(json_object_object_get(k, "io")),
                json_object_get_int(json_object_object_get(k, "socket_id")),
                json_object_get_string(json_object_object_get(k, "name")),
                json_object_to_json_string_ext(json_object_object_get(k, "shape"),
                                               JSON_C_TO_STRING_PLAIN));
    }
    static const char *const slots[] = {"axon", "soma1", "router", "soma2"};
    for (size_t i = 0; i < json_object_array_length(cores); i++) {
        json_object *c = json_object_array_get_idx(cores, i);
        json_object *chip = json_object_object_get(c, "chip");
        json_object *core = json_object_object_get(c, "core");
        fprintf(f, "\nchip (%d,%d) step group %d phase group %d core (%d,%d)\n",
                json_object_get_int(json_object_array_get_idx(chip, 0)),
                json_object_get_int(json_object_array_get_idx(chip, 1)),
                json_object_get_int(json_object_object_get(c, "step_group")),
                json_object_get_int(json_object_object_get(c, "phase_group")),
                json_object_get_int(json_object_array_get_idx(core, 0)),
                json_object_get_int(json_object_array_get_idx(core, 1)));
        json_object *phases = json_object_object_get(c, "phases");
        for (size_t p = 0; p < json_object_array_length(phases); p++) {
            json_object *ph = json_object_array_get_idx(phases, p);
            fprintf(f, "  phase %zu\n", p);
            for (int k = 0; k < 4; k++) {
                json_object *sl = json_object_object_get(ph, slots[k]);
                if (!sl)
                    continue;
                fprintf(f, "    %-6s %s:", slots[k],
                        json_object_get_string(json_object_object_get(sl, "pcode")));
                text_fields(f, sl, 3);
                fprintf(f, "\n");
            }
        }
        json_object *mem = json_object_object_get(c, "memory");
        fprintf(f, "  memory\n");
        for (size_t m = 0; m < json_object_array_length(mem); m++) {
            json_object *a = json_object_array_get_idx(mem, m);
            int64_t start = json_object_get_int64(json_object_object_get(a, "start"));
            int64_t words = json_object_get_int64(json_object_object_get(a, "words"));
            const char *id = json_object_get_string(json_object_object_get(a, "id"));
            json_object *ph = json_object_object_get(a, "phases");
            fprintf(f, "    %-4s 0x%04llx..0x%04llx %6lld words  %-12s %s",
                    json_object_get_string(json_object_object_get(a, "bank")),
                    (unsigned long long)start, (unsigned long long)(start + words - 1),
                    (long long)words, *id ? id : "-",
                    json_object_get_string(json_object_object_get(a, "what")));
            size_t np = json_object_array_length(ph);
            for (size_t q = 0; q < np; q++)
                fprintf(f, "%s%d", q ? "," : np > 1 ? " (phases " : " (phase ",
                        json_object_get_int(json_object_array_get_idx(ph, q)));
            fprintf(f, "%s\n", np ? ")" : "");
        }
    }
}

Status print_progset(FILE *out, const ProgSet *s, bool json, Diag *d)
{
    bool oom = false;
    json_object *root = set_json(s, &oom);
    if (!root || oom) {
        json_object_put(root);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    if (json)
        fprintf(out, "%s\n", json_object_to_json_string_ext(
                                  root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                            JSON_C_TO_STRING_NOSLASHESCAPE));
    else
        print_text(out, root);
    json_object_put(root);
    return ST_OK;
}
