/* cinn_xml_read.c: reading an XML program (cinn.h, frontend/cinn/cinn.xsd) with libxml2.
 *
 * Steps, each stopping the read when it finds an error:
 *   1. parse (no network, no DTD loading, entities left alone): malformed XML is
 *      [cinn.xml.parse] at the line libxml2 reports; a DOCTYPE is refused [cinn.xml.dtd] (no
 *      entity can then be defined, and nothing is fetched), by the prescan when it sees one
 *      (before libxml2 expands entities), else after the parse;
 *   2. validate against the embedded cinn.xsd (xmlSchemaValidateDoc): every violation is
 *      [cinn.xml.schema] at its element's line;
 *   3. run the calls in document order through fe_cinn_call with the element's line, so the
 *      builder's own messages name file and line too. References are resolved by name among
 *      the earlier calls [cinn.ref]; a reference to a call that failed is silent (that call
 *      has said what is wrong), so the read reports every independent error.
 * libxml2's errors are captured with structured handlers on the parser and validation
 * contexts: nothing is printed, and no global handler is touched.
 */
#include "frontend/cinn/cinn_internal.h"
#include "taskir/fileio.h"
#include "taskir/xmlread.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlschemas.h>

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char cinn_xsd_text[];
extern const size_t cinn_xsd_text_len;

const char *fe_cinn_xsd(size_t *len)
{
    if (len)
        *len = cinn_xsd_text_len;
    return cinn_xsd_text;
}

/* ---- messages ---- */

typedef struct Reader {
    Diag *d;
    const char *file;
    Status st;
    size_t nerr;
    CinnBuilder *b;
    char **failed;          /* names of calls that failed (their references stay silent) */
    size_t nfailed, cap_failed;
} Reader;

static Status rd_fail(Reader *r, long line, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static Status rd_fail(Reader *r, long line, const char *rule, const char *fmt, ...)
{
    char where[320], what[1024];
    if (line > 0)
        snprintf(where, sizeof where, "%s:%ld", r->file, line);
    else
        snprintf(where, sizeof where, "%s", r->file);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    diag_add(r->d, ST_LOGIC, rule, where, "%s", what);
    r->nerr++;
    if (r->st < ST_LOGIC)
        r->st = ST_LOGIC;
    return ST_LOGIC;
}

static Status rd_oom(Reader *r)
{
    diag_add(r->d, ST_RUNTIME, "oom", r->file, "out of memory");
    r->st = ST_RUNTIME;
    return ST_RUNTIME;
}

/* libxml2's message on one line (tir_xml_message) at its line. */
static void record_xml_error(Reader *r, const xmlError *e, const char *rule)
{
    if (e->level == XML_ERR_WARNING)
        return;
    if (e->code == XML_ERR_NO_MEMORY) { /* libxml2 ran out of memory: [oom], not the file */
        if (r->st != ST_RUNTIME)
            rd_oom(r);
        return;
    }
    char msg[512];
    tir_xml_message(e, msg, sizeof msg);
    rd_fail(r, e->line, rule, "%s", msg);
}

static void on_parse_error(void *ctx, xmlErrorPtr e)
{
    xmlParserCtxtPtr pc = ctx;
    if (pc && pc->_private)
        record_xml_error(pc->_private, e, "cinn.xml.parse");
}

static void on_schema_error(void *ctx, xmlErrorPtr e)
{
    record_xml_error(ctx, e, "cinn.xml.schema");
}

static void on_xsd_error(void *ctx, xmlErrorPtr e)
{
    Reader *r = ctx;
    if (e->level != XML_ERR_WARNING) {
        diag_add(r->d, ST_RUNTIME, "cinn.internal", "cinn.xsd", "the embedded schema does not "
                 "load: %s", e->message ? e->message : "error");
        r->st = ST_RUNTIME;
    }
}

/* ---- validation ---- */

static Status validate(Reader *r, xmlDocPtr doc)
{
    xmlSchemaParserCtxtPtr pc = xmlSchemaNewMemParserCtxt(cinn_xsd_text, (int)cinn_xsd_text_len);
    if (!pc)
        return rd_oom(r);
    xmlSchemaSetParserStructuredErrors(pc, on_xsd_error, r);
    xmlSchemaPtr schema = xmlSchemaParse(pc);
    xmlSchemaFreeParserCtxt(pc);
    if (!schema) {
        if (r->st == ST_OK)
            diag_add(r->d, ST_RUNTIME, "cinn.internal", "cinn.xsd", "the embedded schema does "
                     "not load");
        r->st = ST_RUNTIME;
        return r->st;
    }
    xmlSchemaValidCtxtPtr vc = xmlSchemaNewValidCtxt(schema);
    if (!vc) {
        xmlSchemaFree(schema);
        return rd_oom(r);
    }
    xmlSchemaSetValidStructuredErrors(vc, on_schema_error, r);
    int rc = xmlSchemaValidateDoc(vc, doc);
    xmlSchemaFreeValidCtxt(vc);
    xmlSchemaFree(schema);
    if (rc != 0 && r->st == ST_OK)
        rd_fail(r, 0, "cinn.xml.schema", "the program does not follow cinn.xsd");
    return r->st;
}

/* ---- calls ---- */

static bool failed_name(const Reader *r, const char *name)
{
    for (size_t i = 0; i < r->nfailed; i++)
        if (strcmp(r->failed[i], name) == 0)
            return true;
    return false;
}

static void note_failed(Reader *r, const char *name)
{
    if (!name || r->nfailed == r->cap_failed) {
        size_t cap = r->cap_failed ? r->cap_failed * 2 : 16;
        char **p = name ? realloc(r->failed, cap * sizeof *p) : NULL;
        if (!p)
            return; /* only costs a possible follow-up message */
        r->failed = p;
        r->cap_failed = cap;
    }
    char *s = strdup(name);
    if (s)
        r->failed[r->nfailed++] = s;
}

/* The variable a reference names: CINN_NONE (silently) for a failed call's result; false
 * after reporting an unknown name. */
static bool resolve(Reader *r, long line, const char *elem, const char *name, const char *role,
                    const char *ref, CinnVar *out)
{
    *out = fe_cinn_find_var(r->b, ref);
    if (*out != CINN_NONE || failed_name(r, ref))
        return true;
    if (name)
        rd_fail(r, line, "cinn.ref", "%s '%s': %s '%s' names no earlier result", elem, name, role,
                ref);
    else
        rd_fail(r, line, "cinn.ref", "%s: %s '%s' names no earlier result", elem, role, ref);
    return false;
}

static char *prop(xmlNodePtr n, const char *name)
{
    return (char *)xmlGetProp(n, (const xmlChar *)name);
}

/* A Constant's values: the element's text, integers separated by blanks. */
static bool read_values(Reader *r, long line, xmlNodePtr n, OgTensor *t)
{
    memset(t, 0, sizeof *t);
    xmlChar *text = xmlNodeGetContent(n);
    if (!text) {
        rd_oom(r);
        return false;
    }
    const char *s = (const char *)text;
    size_t cap = 0, cnt = 0;
    int32_t *v = NULL;
    bool ok = true;
    while (ok) {
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
            s++;
        if (!*s)
            break;
        char *end;
        long long x = strtoll(s, &end, 10);
        if (end == s || (*end && !strchr(" \t\r\n", *end)) || x < INT32_MIN || x > INT32_MAX) {
            ok = rd_fail(r, line, "cinn.const.values", "Constant: value %zu is not an int32", cnt)
                 == ST_OK;
            break;
        }
        if (cnt == cap) {
            if (cap >= (size_t)OG_MAX_VOLUME) {
                ok = rd_fail(r, line, "cinn.limit", "Constant: more than %lld values",
                             (long long)OG_MAX_VOLUME) == ST_OK;
                break;
            }
            cap = cap ? cap * 2 : 256;
            int32_t *p = realloc(v, cap * sizeof *v);
            if (!p) {
                ok = rd_oom(r) == ST_OK;
                break;
            }
            v = p;
        }
        v[cnt++] = (int32_t)x;
        s = end;
    }
    xmlFree(text);
    if (!ok) {
        free(v);
        return false;
    }
    t->shape.ndim = 1;
    t->shape.d[0] = (int64_t)cnt;
    t->count = (int64_t)cnt;
    t->data = v;
    return true;
}

/* One element: its CinnCall, then fe_cinn_call. */
static void run_element(Reader *r, xmlNodePtr n)
{
    const char *elem = (const char *)n->name;
    long line = xmlGetLineNo(n);
    CinnPrim p;
    if (!fe_cinn_prim_from_name(elem, &p)) { /* the schema admits none */
        rd_fail(r, line, "cinn.prim", "<%s> is no CINN primitive", elem);
        return;
    }
    const CinnPrimInfo *pi = cinn_prim_info(p);
    Arena *arena = arena_create();
    OgAttr *attrs = arena ? arena_alloc(arena, pi->nattrs ? pi->nattrs : 1, sizeof *attrs) : NULL;
    CinnVar *ins = NULL;
    uint32_t nin = 0, nattrs = 0;
    char *name = prop(n, "name");
    OgTensor value = {0};
    bool ok = attrs != NULL, lost = false;
    if (!ok)
        rd_oom(r);
    /* inputs */
    bool list;
    uint32_t nroles = cinn_nroles(pi, &list);
    for (uint32_t k = 0; ok && k < nroles; k++) {
        char role[64];
        cinn_role(pi, k, role, sizeof role);
        char *ref = prop(n, role);
        if (!ref) {
            ok = rd_fail(r, line, "cinn.inputs", "%s: attribute '%s' is missing", elem, role)
                 == ST_OK;
            break;
        }
        const char *s = ref;
        while (ok && *s) {
            while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
                s++;
            if (!*s)
                break;
            size_t len = strcspn(s, " \t\r\n");
            char one[CINN_MAX_NAME + 2];
            snprintf(one, sizeof one, "%.*s", (int)(len <= CINN_MAX_NAME ? len : CINN_MAX_NAME + 1),
                     s);
            s += len;
            if (nin >= CINN_MAX_INPUTS) {
                ok = rd_fail(r, line, "cinn.inputs", "%s: more than %d inputs", elem,
                             CINN_MAX_INPUTS) == ST_OK;
                break;
            }
            CinnVar v;
            CinnVar *grown = realloc(ins, (nin + 1) * sizeof *ins);
            if (!grown) {
                ok = rd_oom(r) == ST_OK;
                break;
            }
            ins = grown;
            if (!resolve(r, line, elem, name, role, one, &v))
                ok = false;
            else
                lost = lost || v == CINN_NONE;
            ins[nin++] = v;
            if (!list)
                break;
        }
        xmlFree(ref);
    }
    /* attributes */
    for (uint32_t k = 0; ok && k < pi->nattrs; k++) {
        const CinnAttrSpec *sp = &pi->attrs[k];
        char *text = prop(n, sp->name);
        if (!text)
            continue;
        char err[256];
        bool is_float = false;
        if (!cinn_attr_parse(sp, text, arena, &attrs[nattrs], &is_float, err, sizeof err)) {
            if (is_float)
                ok = rd_fail(r, line, "cinn.const.float", "%s '%s': value \"%.40s\" is a float: "
                             "an integer chip holds no floats (scale it to a fixed-point "
                             "integer)", elem, name ? name : "", text) == ST_OK;
            else
                ok = rd_fail(r, line, "cinn.attr", "%s '%s': attribute '%s' %s", elem,
                             name ? name : "", sp->name, err) == ST_OK;
        } else {
            nattrs++;
        }
        xmlFree(text);
    }
    if (ok && p == CINN_P_Constant)
        ok = read_values(r, line, n, &value);
    if (ok && !lost) {
        CinnCall call = {p, name, ins, nin, attrs, nattrs, p == CINN_P_Constant ? &value : NULL,
                         (int32_t)(line > INT32_MAX ? INT32_MAX : line)};
        if (fe_cinn_call(r->b, &call) == CINN_NONE && p != CINN_P_Output)
            ok = false;
        if (fe_cinn_status(r->b) > r->st)
            r->st = fe_cinn_status(r->b);
    }
    if ((!ok || lost) && name)
        note_failed(r, name);
    free(value.data);
    free(ins);
    xmlFree(name);
    arena_destroy(arena);
}

static Status run_program(Reader *r, xmlDocPtr doc)
{
    xmlNodePtr root = xmlDocGetRootElement(doc);
    bool out = false;
    for (xmlNodePtr n = root ? root->children : NULL; n && r->st != ST_RUNTIME; n = n->next)
        if (n->type == XML_ELEMENT_NODE) {
            run_element(r, n);
            out = out || strcmp((const char *)n->name, "Output") == 0;
        }
    if (!out && r->st == ST_OK)
        rd_fail(r, root ? xmlGetLineNo(root) : 0, "cinn.output", "the program has no <Output>: "
                "it computes nothing anyone can see");
    return r->st;
}

/* Before libxml2 sees the text: it builds the whole document before the schema and
 * CINN_MAX_CALLS are checked, and it checks each attribute of an element against the ones
 * before it (quadratic). So the elements and the attributes of each are counted on the text
 * first (comments, CDATA sections, processing instructions and quoted values skipped). The
 * bounds are far above what the schema allows, so only a file the schema would refuse is
 * refused here, before anything of its size is allocated. */
enum { PRESCAN_MAX_ATTRS = 64 };

static Status prescan(Reader *r, const char *x, size_t n)
{
    size_t elements = 0, attrs = 0;
    long line = 1;
    bool in_tag = false;
    char quote = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = x[i];
        if (ch == '\n')
            line++;
        if (quote) {
            if (ch == quote)
                quote = 0;
            continue;
        }
        if (in_tag) {
            if (ch == '"' || ch == '\'')
                quote = ch;
            else if (ch == '>')
                in_tag = false;
            else if (ch == '=' && ++attrs > PRESCAN_MAX_ATTRS)
                return rd_fail(r, line, "cinn.limit", "an element with more than %d attributes",
                               PRESCAN_MAX_ATTRS);
            continue;
        }
        if (ch != '<' || i + 1 >= n)
            continue;
        const char *end = NULL;
        if (n - i >= 4 && memcmp(x + i, "<!--", 4) == 0)
            end = "-->";
        else if (n - i >= 9 && memcmp(x + i, "<![CDATA[", 9) == 0)
            end = "]]>";
        else if (x[i + 1] == '?')
            end = "?>";
        if (!end && n - i >= 9 && memcmp(x + i, "<!DOCTYPE", 9) == 0)
            /* here, before libxml2 expands its entities (a recursive one gives a line per
             * reference) */
            return rd_fail(r, line, "cinn.xml.dtd", "a DOCTYPE is not allowed in a CINN "
                           "program");
        if (end) {
            size_t el = strlen(end), k = i + 2;
            while (k + el <= n && memcmp(x + k, end, el) != 0)
                line += x[k++] == '\n';
            i = k + el - 1;
            continue;
        }
        if (x[i + 1] == '/' || x[i + 1] == '!')
            continue;
        in_tag = true;
        attrs = 0;
        if (++elements > (size_t)CINN_MAX_CALLS + 1)
            return rd_fail(r, line, "cinn.limit", "a program has at most %u calls",
                           CINN_MAX_CALLS);
    }
    return ST_OK;
}

/* libxml2's generic error handler while a program is read: drops the text (see below). */
static void silent_error(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

static Status read_doc(Reader *rp, const char *xml, size_t len, CinnBuilder **out);

Status fe_cinn_read_xml_mem(const char *xml, size_t len, const char *file, Diag *d,
                            CinnBuilder **out)
{
    *out = NULL;
    Reader r;
    memset(&r, 0, sizeof r);
    r.d = d;
    r.file = file ? file : "<memory>";
    if (len > CINN_MAX_XML_BYTES || len > (size_t)INT_MAX)
        return rd_fail(&r, 0, "limit.file", "the program has %zu bytes, more than the %zu a CINN "
                       "program may have", len, CINN_MAX_XML_BYTES);
    if (prescan(&r, xml, len) != ST_OK)
        return ST_LOGIC;
    xmlInitParser();
    /* Some libxml2 faults (e.g. a bad encoding declaration) go to the generic error handler,
     * which prints to stderr: keep it silent while this reader runs (the handler is
     * thread-local in libxml2), so the library never prints. Faults still reach r. */
    xmlGenericErrorFunc saved_fn = xmlGenericError;
    void *saved_ctx = xmlGenericErrorContext;
    xmlSetGenericErrorFunc(NULL, silent_error);
    Status res = read_doc(&r, xml, len, out);
    xmlSetGenericErrorFunc(saved_ctx, saved_fn);
    return res;
}

static Status read_doc(Reader *rp, const char *xml, size_t len, CinnBuilder **out)
{
    Reader r = *rp;
    xmlParserCtxtPtr pc = xmlNewParserCtxt();
    if (!pc)
        return rd_oom(&r);
    pc->_private = &r;
    pc->sax->serror = on_parse_error;
    xmlDocPtr doc = xmlCtxtReadMemory(pc, xml, (int)len, r.file, NULL,
                                      XML_PARSE_NONET | XML_PARSE_BIG_LINES | XML_PARSE_NOERROR |
                                          XML_PARSE_NOWARNING);
    if (!doc || !pc->wellFormed) {
        xmlErrorPtr e = xmlCtxtGetLastError(pc);
        /* no document and no error: libxml2 could not even record one (out of memory) */
        bool oom = (!doc && (!e || e->code == XML_ERR_OK)) ||
                   (e && e->code == XML_ERR_NO_MEMORY);
        if (oom && r.st != ST_RUNTIME)
            rd_oom(&r);
        else if (r.nerr == 0 && r.st != ST_RUNTIME)
            rd_fail(&r, e ? e->line : 0, "cinn.xml.parse", "%s",
                    e && e->message ? e->message : "not well-formed XML");
        xmlFreeDoc(doc);
        xmlFreeParserCtxt(pc);
        return r.st ? r.st : ST_LOGIC;
    }
    xmlFreeParserCtxt(pc);
    Status st = ST_OK;
    if (doc->intSubset || doc->extSubset) {
        xmlDtdPtr dtd = doc->intSubset ? doc->intSubset : doc->extSubset;
        st = rd_fail(&r, xmlGetLineNo((xmlNodePtr)dtd) > 0 ? xmlGetLineNo((xmlNodePtr)dtd) : 1,
                     "cinn.xml.dtd", "a DOCTYPE is not allowed in a CINN program");
    }
    if (st == ST_OK)
        st = validate(&r, doc);
    CinnBuilder *b = NULL;
    if (st == ST_OK) {
        b = fe_cinn_create(r.d);
        if (!b)
            st = rd_oom(&r);
    }
    if (st == ST_OK) {
        fe_cinn_set_file(b, r.file);
        r.b = b;
        st = run_program(&r, doc);
    }
    xmlFreeDoc(doc);
    for (size_t i = 0; i < r.nfailed; i++)
        free(r.failed[i]);
    free(r.failed);
    if (st == ST_OK && r.st != ST_OK)
        st = r.st;
    if (st != ST_OK) {
        fe_cinn_destroy(b);
        return st;
    }
    *out = b;
    return ST_OK;
}

Status fe_cinn_read_xml(const char *path, Diag *d, CinnBuilder **out)
{
    *out = NULL;
    uint8_t *buf = NULL;
    size_t len = 0;
    Diag sub;
    diag_init(&sub, NULL);
    Status st = tir_read_file(path, CINN_MAX_XML_BYTES, &buf, &len, &sub);
    for (size_t i = 0; i < sub.n; i++) /* name the file in every message */
        diag_add(d, sub.entries[i].status, sub.entries[i].rule, path, "%s",
                 sub.entries[i].what ? sub.entries[i].what : "");
    diag_finish(&sub);
    if (st != ST_OK)
        return st;
    st = fe_cinn_read_xml_mem((const char *)buf, len, strcmp(path, "-") == 0 ? "<stdin>" : path,
                              d, out);
    free(buf);
    return st;
}
