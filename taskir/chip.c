/* chip.c: reading a chip description (chip.h, docs/chip.md): the XML is parsed and validated
 * against the embedded taskir/chip.xsd (xmlread.h), which also fills in the defaults of the
 * optional attributes; the values are then read into a Chip and the cross-field rules run
 * (chip_check.c). The built-in description is the text of examples/chips/tianjicx.xml that
 * meson embeds at build time (taskir/meson.build). */
#include "taskir/chip_internal.h"
#include "taskir/fileio.h"
#include "taskir/xmlread.h"

#include <libxml/tree.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

extern const char chip_default_xml_text[];
extern const size_t chip_default_xml_text_len;
extern const char chip_xsd_text[];
extern const size_t chip_xsd_text_len;

/* A description is a few KiB; this bounds what is read before the schema looks at it. */
#define CHIP_MAX_XML_BYTES ((size_t)1 << 20)

const char *chip_default_xml(size_t *len)
{
    if (len)
        *len = chip_default_xml_text_len;
    return chip_default_xml_text;
}

const char *chip_xsd(size_t *len)
{
    if (len)
        *len = chip_xsd_text_len;
    return chip_xsd_text;
}

static const XmlRules chip_xml_rules = {
    .parse = "chip.xml.parse",
    .dtd = "chip.xml.dtd",
    .schema = "chip.xsd",
    .internal = "chip.internal",
    .what = "a chip description",
};

/* ---- reading values (the schema has checked their syntax) ---- */

typedef struct Reader {
    Diag *d;
    const char *name;
    Status st;
    Chip *c;
    ChipLines ln;
} Reader;

static void rd_fail(Reader *r, xmlNodePtr n, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void rd_fail(Reader *r, xmlNodePtr n, const char *rule, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tir_xml_vfail(r->d, r->name, n ? xmlGetLineNo(n) : 0, rule, fmt, ap);
    va_end(ap);
    if (r->st < ST_LOGIC)
        r->st = ST_LOGIC;
}

static void rd_oom(Reader *r)
{
    if (r->st != ST_RUNTIME)
        diag_add(r->d, ST_RUNTIME, "oom", NULL, "out of memory");
    r->st = ST_RUNTIME;
}

/* The attribute's value without surrounding blanks, copied into buf; "" when absent. */
static const char *attr(xmlNodePtr n, const char *name, char *buf, size_t len)
{
    buf[0] = 0;
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    if (!v)
        return buf;
    const char *s = (const char *)v;
    while (isspace((unsigned char)*s))
        s++;
    size_t k = strlen(s);
    while (k && isspace((unsigned char)s[k - 1]))
        k--;
    if (k >= len)
        k = len - 1;
    memcpy(buf, s, k);
    buf[k] = 0;
    xmlFree(v);
    return buf;
}

/* A Size (decimal, 0x hexadecimal, or decimal KiB) or an unsigned integer, at most max. */
static uint64_t size_attr(Reader *r, xmlNodePtr n, const char *name, uint64_t max)
{
    char buf[64];
    const char *s = attr(n, name, buf, sizeof buf);
    uint64_t v = 0;
    bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char *p = hex ? s + 2 : s;
    for (; *p && isxdigit((unsigned char)*p) && (hex || isdigit((unsigned char)*p)); p++) {
        unsigned dig = isdigit((unsigned char)*p) ? (unsigned)(*p - '0')
                                                  : (unsigned)(tolower((unsigned char)*p) - 'a' + 10);
        if (v > (UINT64_MAX - dig) / (hex ? 16 : 10)) {
            v = UINT64_MAX;
            break;
        }
        v = v * (hex ? 16 : 10) + dig;
    }
    if (strcmp(p, "KiB") == 0)
        v = v > UINT64_MAX / 1024 ? UINT64_MAX : v * 1024;
    if (v > max) {
        rd_fail(r, n, "chip.range", "<%s %s=\"%s\">: more than %llu", (const char *)n->name,
                name, s, (unsigned long long)max);
        return 0;
    }
    return v;
}

static uint32_t u32_attr(Reader *r, xmlNodePtr n, const char *name)
{
    return (uint32_t)size_attr(r, n, name, UINT32_MAX);
}

static int32_t i32_attr(xmlNodePtr n, const char *name)
{
    char buf[64];
    return (int32_t)strtol(attr(n, name, buf, sizeof buf), NULL, 10);
}

/* The next element among n and its following siblings, or NULL. */
static xmlNodePtr elem(xmlNodePtr n)
{
    while (n && n->type != XML_ELEMENT_NODE)
        n = n->next;
    return n;
}

static bool is(xmlNodePtr n, const char *name)
{
    return n && strcmp((const char *)n->name, name) == 0;
}

/* ---- the elements ---- */

static uint32_t roles(xmlNodePtr n)
{
    char buf[256];
    const char *s = attr(n, "role", buf, sizeof buf);
    uint32_t bits = 0;
    while (*s) {
        size_t k = strcspn(s, " \t\r\n");
        for (uint32_t i = 0; i < CHIP_ROLE_COUNT; i++)
            if (strlen(chip_role_name(i)) == k && strncmp(s, chip_role_name(i), k) == 0)
                bits |= 1u << i;
        s += k;
        s += strspn(s, " \t\r\n");
    }
    return bits;
}

static void read_memory(Reader *r, xmlNodePtr m)
{
    Chip *c = r->c;
    char buf[64];
    r->ln.memory = xmlGetLineNo(m);
    c->core_bytes = u32_attr(r, m, "bytes");
    c->core_budget_bytes = u32_attr(r, m, "budget");
    for (xmlNodePtr b = elem(m->children); b; b = elem(b->next)) {
        ChipBank *bk = &c->banks[c->n_banks]; /* the schema allows 8 */
        r->ln.bank[c->n_banks] = xmlGetLineNo(b);
        snprintf(bk->name, sizeof bk->name, "%s", attr(b, "name", buf, sizeof buf));
        bk->base_word = u32_attr(r, b, "base");
        bk->words = u32_attr(r, b, "words");
        bk->role = roles(b);
        for (xmlNodePtr a = elem(b->children); a; a = elem(a->next)) {
            if (c->n_areas == sizeof c->areas / sizeof c->areas[0]) {
                rd_fail(r, a, "chip.area.count", "a core has at most %zu areas",
                        sizeof c->areas / sizeof c->areas[0]);
                break;
            }
            ChipArea *ar = &c->areas[c->n_areas];
            r->ln.area[c->n_areas] = xmlGetLineNo(a);
            snprintf(ar->name, sizeof ar->name, "%s", attr(a, "name", buf, sizeof buf));
            ar->bank = c->n_banks;
            ar->base_word = u32_attr(r, a, "base");
            ar->words = u32_attr(r, a, "words");
            ar->role = roles(a);
            bk->role |= ar->role;
            c->n_areas++;
        }
        c->n_banks++;
    }
}

static void read_precisions(Reader *r, xmlNodePtr ps)
{
    Chip *c = r->c;
    char buf[64];
    for (xmlNodePtr p = elem(ps->children); p; p = elem(p->next)) {
        ChipPrec *cp = &c->precs[c->n_precs]; /* the schema allows 16 */
        r->ln.prec[c->n_precs] = xmlGetLineNo(p);
        const char *nm = attr(p, "name", buf, sizeof buf);
        if (!pr_from_name(nm, &cp->prec)) {
            rd_fail(r, p, "chip.prec.name", "<precision name=\"%s\">: no such precision (the "
                    "names of docs/wire.md: INT_8, UINT_8, INT_32, TERNARY, ...)", nm);
            continue;
        }
        cp->code = u32_attr(r, p, "code");
        cp->g_f = u32_attr(r, p, "g_f");
        cp->write_v = u32_attr(r, p, "write_v");
        cp->d = u32_attr(r, p, "d");
        c->n_precs++;
    }
}

static ChipClockKind clock_kind(xmlNodePtr n)
{
    char buf[32];
    const char *s = attr(n, "clock", buf, sizeof buf);
    for (int k = 0; k < CLK_NONE; k++)
        if (strcmp(s, chip_clock_name((ChipClockKind)k)) == 0)
            return (ChipClockKind)k;
    return CLK_NONE;
}

static uint64_t prec_mask(Reader *r, xmlNodePtr n)
{
    char buf[512];
    const char *s = attr(n, "precisions", buf, sizeof buf);
    uint64_t mask = 0;
    while (*s) {
        char one[32];
        size_t k = strcspn(s, " \t\r\n");
        snprintf(one, sizeof one, "%.*s", (int)(k < 31 ? k : 31), s);
        PrecisionId p;
        if (!pr_from_name(one, &p))
            rd_fail(r, n, "chip.prim.prec", "<primitive code=\"%s\">: no such precision '%s'",
                    attr(n, "code", (char[16]){0}, 16), one);
        else if (!chip_prec(r->c, p))
            rd_fail(r, n, "chip.prim.prec", "<primitive code=\"%s\">: precision %s is not in "
                    "<precisions>", attr(n, "code", (char[16]){0}, 16), one);
        else
            mask |= UINT64_C(1) << p;
        s += k;
        s += strspn(s, " \t\r\n");
    }
    return mask;
}

static void read_run(Reader *r, xmlNodePtr n, ChipPrim *p, ChipRun *run)
{
    char buf[32];
    const char *bn = attr(n, "block", buf, sizeof buf);
    run->pcode = p->pcode;
    run->clock = clock_kind(n);
    run->c0 = i32_attr(n, "c0");
    run->c1 = i32_attr(n, "c1");
    run->c_div = i32_attr(n, "c_div");
    if (!bt_from_name(bn, &run->block) || bt_info(run->block)->kind != BK_COMPUTE) {
        rd_fail(r, n, "chip.prim.block", "<run block=\"%s\">: not a compute block type (CC, "
                "CADD, CCMPB, ...)", bn);
        run->block = BT_COUNT;
    }
}

static void read_primitives(Reader *r, xmlNodePtr ps)
{
    Chip *c = r->c;
    uint32_t np = 0, nr = 0;
    for (xmlNodePtr p = elem(ps->children); p; p = elem(p->next)) {
        np++;
        for (xmlNodePtr q = elem(p->children); q; q = elem(q->next))
            nr++;
    }
    c->prims = calloc(np ? np : 1, sizeof *c->prims);
    c->runs = calloc(nr ? nr : 1, sizeof *c->runs);
    r->ln.prim = calloc(np ? np : 1, sizeof *r->ln.prim);
    r->ln.run = calloc(nr ? nr : 1, sizeof *r->ln.run);
    if (!c->prims || !c->runs || !r->ln.prim || !r->ln.run) {
        rd_oom(r);
        return;
    }
    char buf[32];
    for (xmlNodePtr p = elem(ps->children); p; p = elem(p->next)) {
        ChipPrim *cp = &c->prims[c->n_prims];
        r->ln.prim[c->n_prims++] = xmlGetLineNo(p);
        cp->pcode = (int)u32_attr(r, p, "code");
        const char *u = attr(p, "unit", buf, sizeof buf);
        cp->unit = UNIT_ROUTER;
        for (int k = 0; k < UNIT_COUNT; k++)
            if (strcmp(u, chip_unit_name((ChipUnit)k)) == 0)
                cp->unit = (ChipUnit)k;
        cp->in_align = u32_attr(r, p, "input_align");
        if (cp->in_align == 0)
            cp->in_align = c->align_input;
        cp->chan_group = u32_attr(r, p, "channel_group");
        cp->x_group = u32_attr(r, p, "x_group");
        cp->r_pad = u32_attr(r, p, "input_pad");
        cp->pad_in_memory = strcmp(attr(p, "pad_in_memory", buf, sizeof buf), "true") == 0 ||
                            strcmp(buf, "1") == 0;
        cp->precs = prec_mask(r, p);
        cp->clock = CLK_NONE;
        cp->c_div = 1;
        bool first = true;
        for (xmlNodePtr q = elem(p->children); q; q = elem(q->next)) {
            ChipRun *run = &c->runs[c->n_runs];
            r->ln.run[c->n_runs++] = xmlGetLineNo(q);
            read_run(r, q, cp, run);
            if (run->block != BT_COUNT)
                cp->blocks |= UINT64_C(1) << run->block;
            if (first) {
                cp->clock = run->clock;
                cp->c0 = run->c0;
                cp->c1 = run->c1;
                cp->c_div = run->c_div;
                first = false;
            }
        }
    }
}

static void read_chip(Reader *r, xmlNodePtr root)
{
    Chip *c = r->c;
    char buf[80];
    r->ln.chip = xmlGetLineNo(root);
    c->name = strdup(attr(root, "name", buf, sizeof buf));
    if (!c->name) {
        rd_oom(r);
        return;
    }
    c->chips_x = c->chips_y = 1;
    c->clock_hz = 300000000;
    c->noc_bytes_per_clock = 8;
    c->soma_shift_bits = 2; /* <soma> is optional: the schema's defaults */
    c->soma_shift_max = 15;
    for (xmlNodePtr n = elem(root->children); n && r->st != ST_RUNTIME; n = elem(n->next)) {
        if (is(n, "array")) {
            r->ln.array = xmlGetLineNo(n);
            c->chips_x = u32_attr(r, n, "chips_x");
            c->chips_y = u32_attr(r, n, "chips_y");
        } else if (is(n, "cores")) {
            if (!r->ln.array)
                r->ln.array = xmlGetLineNo(n);
            c->cores_x = u32_attr(r, n, "x");
            c->cores_y = u32_attr(r, n, "y");
        } else if (is(n, "memory")) {
            read_memory(r, n);
        } else if (is(n, "limits")) {
            r->ln.limits = xmlGetLineNo(n);
            c->recv_bytes_per_phase = u32_attr(r, n, "receive_per_phase");
            c->dest_bytes_per_phase = u32_attr(r, n, "destination_per_phase");
            c->max_phases = u32_attr(r, n, "phases");
            c->recommended_phases = u32_attr(r, n, "recommended_phases");
            c->max_phase_groups = u32_attr(r, n, "phase_groups");
            c->max_step_groups = u32_attr(r, n, "step_groups");
            c->prims_per_phase = u32_attr(r, n, "primitives_per_phase");
        } else if (is(n, "align")) {
            c->align_input = u32_attr(r, n, "input");
            c->align_weight = u32_attr(r, n, "weight");
            c->align_axon_out = u32_attr(r, n, "axon_output");
        } else if (is(n, "mac")) {
            c->mac_x = u32_attr(r, n, "x");
            c->mac_f = u32_attr(r, n, "f");
        } else if (is(n, "soma")) {
            c->soma_shift_bits = u32_attr(r, n, "shift_bits");
            c->soma_shift_max = u32_attr(r, n, "shift_max");
        } else if (is(n, "router")) {
            r->ln.router = xmlGetLineNo(n);
            c->packet_bytes = u32_attr(r, n, "packet_bytes");
            c->short_packet_bytes = u32_attr(r, n, "short_packet_bytes");
            c->dest_offset_bits = u32_attr(r, n, "offset_bits");
            c->hop_min = i32_attr(n, "hop_min");
            c->hop_max = i32_attr(n, "hop_max");
        } else if (is(n, "parameters")) {
            c->clock_hz = size_attr(r, n, "clock_hz", UINT64_MAX);
            c->noc_bytes_per_clock = u32_attr(r, n, "noc_bytes_per_clock");
        } else if (is(n, "precisions")) {
            read_precisions(r, n);
        } else if (is(n, "primitives")) {
            read_primitives(r, n);
        }
    }
}

bool chip_looks_like(const uint8_t *buf, size_t len)
{
    const char *x = (const char *)buf;
    size_t i = len >= 3 && memcmp(x, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    for (;;) {
        while (i < len && isspace((unsigned char)x[i]))
            i++;
        const char *end = NULL;
        if (len - i >= 4 && memcmp(x + i, "<!--", 4) == 0)
            end = "-->";
        else if (len - i >= 2 && memcmp(x + i, "<?", 2) == 0)
            end = "?>";
        if (!end)
            break;
        size_t el = strlen(end), k = i + 2;
        while (k + el <= len && memcmp(x + k, end, el) != 0)
            k++;
        if (k + el > len)
            return false;
        i = k + el;
    }
    /* "<chip" at the very end too: a cut description is still one (and told so) */
    return len - i >= 5 && memcmp(x + i, "<chip", 5) == 0 &&
           (len - i == 5 || isspace((unsigned char)x[i + 5]) || x[i + 5] == '>' ||
            x[i + 5] == '/');
}

Status chip_load_mem(const char *xml, size_t len, const char *name, Chip **out, Diag *d)
{
    *out = NULL;
    Reader r = {.d = d, .name = name ? name : "<memory>"};
    if (len > CHIP_MAX_XML_BYTES)
        return tir_xml_fail(d, r.name, 0, "limit.file", "a chip description of %zu bytes: "
                            "more than the %zu one may have", len, CHIP_MAX_XML_BYTES);
    xmlDocPtr doc = NULL;
    Status st = tir_xml_read(xml, len, r.name, chip_xsd_text, chip_xsd_text_len,
                             &chip_xml_rules, d, &doc);
    if (st != ST_OK)
        return st;
    r.c = calloc(1, sizeof *r.c);
    if (!r.c)
        rd_oom(&r);
    else
        read_chip(&r, xmlDocGetRootElement(doc));
    xmlFreeDoc(doc);
    if (r.st == ST_OK)
        r.st = chip_check(r.c, &r.ln, r.name, d);
    free(r.ln.prim);
    free(r.ln.run);
    if (r.st != ST_OK) {
        chip_destroy(r.c);
        return r.st;
    }
    *out = r.c;
    return ST_OK;
}

Status chip_load(const char *path, Chip **out, Diag *d)
{
    *out = NULL;
    uint8_t *buf = NULL;
    size_t len = 0;
    Status st = tir_read_file(path, CHIP_MAX_XML_BYTES, &buf, &len, d);
    if (st != ST_OK)
        return st;
    st = chip_load_mem((const char *)buf, len, strcmp(path, "-") == 0 ? "<stdin>" : path, out, d);
    free(buf);
    return st;
}

Status chip_load_default(Chip **out, Diag *d)
{
    return chip_load_mem(chip_default_xml_text, chip_default_xml_text_len, "tianjicx.xml", out,
                         d);
}

void chip_destroy(Chip *c)
{
    if (!c)
        return;
    free(c->name);
    free(c->prims);
    free(c->runs);
    free(c);
}
