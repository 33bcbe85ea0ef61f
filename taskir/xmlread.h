/* xmlread.h: reading an XML document that must follow a schema the library embeds, with
 * libxml2, every finding at its line (docs/chip.md, "Errors"). Nothing is printed: libxml2's
 * messages are captured by structured handlers on the parser and validation contexts, and
 * its generic (thread-local) handler is silenced while the read runs.
 *
 * Steps, each stopping the read on an error:
 *   1. a DOCTYPE is refused (no entity can be defined, nothing is fetched) [rules.dtd];
 *   2. parse (no network): malformed XML [rules.parse] at the line libxml2 reports;
 *   3. validate against the schema [rules.schema] at each element's line; the schema's
 *      default attribute values are added to the document (XML_SCHEMA_VAL_VC_I_CREATE), so
 *      the caller reads every optional attribute with its default.
 */
#ifndef TASKIR_XMLREAD_H
#define TASKIR_XMLREAD_H

#include "taskir/diag.h"

#include <libxml/tree.h>

#include <stdarg.h>
#include <stddef.h>

typedef struct XmlRules {
    const char *parse;      /* not well-formed */
    const char *dtd;        /* a DOCTYPE */
    const char *schema;     /* does not follow the schema */
    const char *internal;   /* the embedded schema does not load (a build fault) */
    const char *what;       /* what the document is, for messages: "a chip description" */
} XmlRules;

/* Reads xml (len bytes) into *out (free it with xmlFreeDoc), validated against the schema xsd
 * (xsd_len bytes). Findings go to d at where "line N" (tir_xml_where). *out is NULL on
 * failure; ST_RUNTIME when out of memory. */
Status tir_xml_read(const char *xml, size_t len, const char *name, const char *xsd,
                    size_t xsd_len, const XmlRules *rules, Diag *d, xmlDocPtr *out);

/* libxml2's message of e on one line (newlines, which quote source text, become blanks, runs
 * of blanks one, the trailing ones go) into buf. */
void tir_xml_message(const xmlError *e, char *buf, size_t len);

/* Records a logic error about the document name at line (0: none) with where "line N", or
 * "NAME: line N" when d's file is not name (the document is not the tool's main input). */
Status tir_xml_fail(Diag *d, const char *name, long line, const char *rule, const char *fmt,
                    ...) __attribute__((format(printf, 5, 6)));
Status tir_xml_vfail(Diag *d, const char *name, long line, const char *rule, const char *fmt,
                     va_list ap);

#endif
