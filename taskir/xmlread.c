/* xmlread.c: an XML document validated against an embedded schema (xmlread.h). */
#include "taskir/xmlread.h"

#include <libxml/parser.h>
#include <libxml/xmlschemas.h>

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef struct Ctx {
    Diag *d;
    const char *name;
    const XmlRules *rules;
    Status st;
    size_t nerr;
} Ctx;

Status tir_xml_vfail(Diag *d, const char *name, long line, const char *rule, const char *fmt,
                     va_list ap)
{
    char where[320];
    bool own = d->file && name && strcmp(d->file, name) == 0;
    if (line > 0 && own)
        snprintf(where, sizeof where, "line %ld", line);
    else if (line > 0)
        snprintf(where, sizeof where, "%s: line %ld", name ? name : "<memory>", line);
    else
        snprintf(where, sizeof where, "%s", own || !name ? "" : name);
    char what[1024];
    vsnprintf(what, sizeof what, fmt, ap);
    return diag_add(d, ST_LOGIC, rule, where, "%s", what);
}

Status tir_xml_fail(Diag *d, const char *name, long line, const char *rule, const char *fmt,
                    ...)
{
    va_list ap;
    va_start(ap, fmt);
    Status st = tir_xml_vfail(d, name, line, rule, fmt, ap);
    va_end(ap);
    return st;
}

static void ctx_oom(Ctx *c)
{
    if (c->st != ST_RUNTIME)
        diag_add(c->d, ST_RUNTIME, "oom", c->name, "out of memory");
    c->st = ST_RUNTIME;
}

void tir_xml_message(const xmlError *e, char *msg, size_t len)
{
    const char *s = e->message ? e->message : "error";
    size_t n = 0;
    for (; *s && n + 1 < len; s++) {
        char ch = *s == '\n' || *s == '\r' || *s == '\t' ? ' ' : *s;
        if (ch == ' ' && (n == 0 || msg[n - 1] == ' '))
            continue;
        msg[n++] = ch;
    }
    while (n && msg[n - 1] == ' ')
        n--;
    if (len)
        msg[n] = 0;
}

static void record(Ctx *c, const xmlError *e, const char *rule)
{
    if (e->level == XML_ERR_WARNING)
        return;
    if (e->code == XML_ERR_NO_MEMORY) { /* libxml2 ran out of memory: not the file's fault */
        ctx_oom(c);
        return;
    }
    char msg[512];
    tir_xml_message(e, msg, sizeof msg);
    tir_xml_fail(c->d, c->name, e->line, rule, "%s", msg);
    c->nerr++;
    if (c->st < ST_LOGIC)
        c->st = ST_LOGIC;
}

static void on_parse_error(void *p, xmlErrorPtr e)
{
    xmlParserCtxtPtr pc = p;
    if (pc && pc->_private) {
        Ctx *c = pc->_private;
        record(c, e, c->rules->parse);
    }
}

static void on_schema_error(void *p, xmlErrorPtr e)
{
    Ctx *c = p;
    record(c, e, c->rules->schema);
}

static void on_xsd_error(void *p, xmlErrorPtr e)
{
    Ctx *c = p;
    if (e->level != XML_ERR_WARNING && c->st != ST_RUNTIME) {
        diag_add(c->d, ST_RUNTIME, c->rules->internal, NULL, "the embedded schema does not "
                 "load: %s", e->message ? e->message : "error");
        c->st = ST_RUNTIME;
    }
}

static void silent_error(void *p, const char *msg, ...)
{
    (void)p;
    (void)msg;
}

/* The line of the first "<!DOCTYPE" outside comments, or 0. */
static long doctype_line(const char *x, size_t n)
{
    long line = 1;
    for (size_t i = 0; i < n; i++) {
        if (x[i] == '\n')
            line++;
        else if (x[i] == '<' && n - i >= 4 && memcmp(x + i, "<!--", 4) == 0) {
            size_t k = i + 4;
            while (k + 3 <= n && memcmp(x + k, "-->", 3) != 0)
                line += x[k++] == '\n';
            i = k + 2;
        } else if (x[i] == '<' && n - i >= 9 && memcmp(x + i, "<!DOCTYPE", 9) == 0) {
            return line;
        }
    }
    return 0;
}

static Status validate(Ctx *c, xmlDocPtr doc, const char *xsd, size_t xsd_len)
{
    xmlSchemaParserCtxtPtr pc = xmlSchemaNewMemParserCtxt(xsd, (int)xsd_len);
    if (!pc) {
        ctx_oom(c);
        return c->st;
    }
    xmlSchemaSetParserStructuredErrors(pc, on_xsd_error, c);
    xmlSchemaPtr schema = xmlSchemaParse(pc);
    xmlSchemaFreeParserCtxt(pc);
    if (!schema) {
        if (c->st == ST_OK)
            diag_add(c->d, ST_RUNTIME, c->rules->internal, NULL, "the embedded schema does "
                     "not load");
        c->st = ST_RUNTIME;
        return c->st;
    }
    xmlSchemaValidCtxtPtr vc = xmlSchemaNewValidCtxt(schema);
    if (!vc) {
        xmlSchemaFree(schema);
        ctx_oom(c);
        return c->st;
    }
    xmlSchemaSetValidStructuredErrors(vc, on_schema_error, c);
    xmlSchemaSetValidOptions(vc, XML_SCHEMA_VAL_VC_I_CREATE);
    int rc = xmlSchemaValidateDoc(vc, doc);
    xmlSchemaFreeValidCtxt(vc);
    xmlSchemaFree(schema);
    if (rc != 0 && c->st == ST_OK) {
        tir_xml_fail(c->d, c->name, 0, c->rules->schema, "%s does not follow its schema",
                     c->rules->what);
        c->st = rc < 0 ? ST_RUNTIME : ST_LOGIC;
    }
    return c->st;
}

static Status parse(Ctx *c, const char *xml, size_t len, xmlDocPtr *out)
{
    xmlParserCtxtPtr pc = xmlNewParserCtxt();
    if (!pc) {
        ctx_oom(c);
        return c->st;
    }
    pc->_private = c;
    pc->sax->serror = on_parse_error;
    xmlDocPtr doc = xmlCtxtReadMemory(pc, xml, (int)len, c->name, NULL,
                                      XML_PARSE_NONET | XML_PARSE_BIG_LINES | XML_PARSE_NOERROR |
                                          XML_PARSE_NOWARNING);
    if (!doc || !pc->wellFormed) {
        xmlErrorPtr e = xmlCtxtGetLastError(pc);
        /* no document and no error: libxml2 could not even record one (out of memory) */
        bool oom = (!doc && (!e || e->code == XML_ERR_OK)) || (e && e->code == XML_ERR_NO_MEMORY);
        if (oom)
            ctx_oom(c);
        else if (c->nerr == 0 && c->st != ST_RUNTIME) {
            tir_xml_fail(c->d, c->name, e ? e->line : 0, c->rules->parse, "%s",
                         e && e->message ? e->message : "not well-formed XML");
            c->st = ST_LOGIC;
        }
        xmlFreeDoc(doc);
        xmlFreeParserCtxt(pc);
        return c->st ? c->st : ST_LOGIC;
    }
    xmlFreeParserCtxt(pc);
    if (doc->intSubset || doc->extSubset) { /* a DOCTYPE the prescan did not see */
        xmlFreeDoc(doc);
        c->st = tir_xml_fail(c->d, c->name, 1, c->rules->dtd, "a DOCTYPE is not allowed in %s",
                             c->rules->what);
        return c->st;
    }
    *out = doc;
    return ST_OK;
}

Status tir_xml_read(const char *xml, size_t len, const char *name, const char *xsd,
                    size_t xsd_len, const XmlRules *rules, Diag *d, xmlDocPtr *out)
{
    *out = NULL;
    Ctx c = {.d = d, .name = name ? name : "<memory>", .rules = rules};
    if (len > (size_t)INT_MAX || xsd_len > (size_t)INT_MAX)
        return tir_xml_fail(d, c.name, 0, "limit.file", "%s of %zu bytes is too large",
                            rules->what, len);
    long dl = doctype_line(xml, len);
    if (dl > 0)
        return tir_xml_fail(d, c.name, dl, rules->dtd, "a DOCTYPE is not allowed in %s",
                            rules->what);
    xmlInitParser();
    xmlGenericErrorFunc saved_fn = xmlGenericError;
    void *saved_ctx = xmlGenericErrorContext;
    xmlSetGenericErrorFunc(NULL, silent_error);
    xmlDocPtr doc = NULL;
    Status st = parse(&c, xml, len, &doc);
    if (st == ST_OK)
        st = validate(&c, doc, xsd, xsd_len);
    xmlSetGenericErrorFunc(saved_ctx, saved_fn);
    if (st != ST_OK) {
        xmlFreeDoc(doc);
        return st;
    }
    *out = doc;
    return ST_OK;
}
