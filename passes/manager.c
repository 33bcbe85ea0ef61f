/* manager.c: see manager.h. */
#include "passes/manager.h"
#include "taskir/print.h"
#include "taskir/verify.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The properties' names, by bit (pass.h PROP_*). */
static const char *const prop_names[] = {"fits", "fused", "replicated", "no-dead", "grouped"};
#define N_PROPS (sizeof prop_names / sizeof prop_names[0])

const char *pass_props_name(unsigned mask, char *buf, size_t len)
{
    size_t at = 0;
    if (len)
        buf[0] = '\0';
    for (unsigned i = 0; i < N_PROPS; i++)
        if ((mask & (1u << i)) && at < len) {
            int w = snprintf(buf + at, len - at, "%s%s", at ? "," : "", prop_names[i]);
            at += w > 0 ? (size_t)w : 0;
        }
    if (!mask && len)
        snprintf(buf, len, "-");
    return buf;
}

void pass_plan_finish(PassPlan *p)
{
    free(p->passes);
    free(p->dump);
    memset(p, 0, sizeof *p);
}

bool pass_plan_has(const PassPlan *p, const char *name)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->passes[i]->name, name) == 0)
            return true;
    return false;
}

/* The names of the table's passes, comma-separated, into buf. */
static const char *known_names(char *buf, size_t len)
{
    size_t n, at = 0;
    const PassInfo *t = pass_table(&n);
    buf[0] = '\0';
    for (size_t i = 0; i < n && at < len; i++) {
        int w = snprintf(buf + at, len - at, "%s%s", i ? ", " : "", t[i].name);
        at += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

/* The next comma-separated item of *s without the blanks around it, copied into buf
 * (truncated past len - 1; *toolong then); advances *s past it and its comma. */
static void next_item(const char **s, char *buf, size_t len, bool *toolong)
{
    const char *end = strchr(*s, ','), *a = *s;
    const char *b = end ? end : a + strlen(a);
    while (a < b && isspace((unsigned char)*a))
        a++;
    while (b > a && isspace((unsigned char)b[-1]))
        b--;
    *s = a;
    size_t n = (size_t)(b - a);
    *toolong = n >= len;
    if (n >= len)
        n = len - 1;
    memcpy(buf, a, n);
    buf[n] = '\0';
    *s = end ? end + 1 : NULL;
}

Status pass_plan_check(const PassInfo *const *passes, size_t np, Diag *d)
{
    unsigned have = 0;
    for (size_t i = 0; i < np; i++) {
        const PassInfo *pi = passes[i];
        unsigned missing = pi->requires & ~have;
        if (missing) {
            unsigned bit = missing & -missing;
            size_t n;
            const PassInfo *t = pass_table(&n);
            const char *by = NULL;
            for (size_t k = 0; k < n && !by; k++)
                if (t[k].guarantees & bit)
                    by = t[k].name;
            char name[32];
            return diag_add(d, ST_USAGE, "usage.passes.requires", NULL, "pass '%s' requires "
                            "the property '%s', which no pass before it in the list "
                            "guarantees%s%s%s", pi->name, pass_props_name(bit, name, sizeof name),
                            by ? " (put '" : "", by ? by : "", by ? "' before it)" : "");
        }
        have = (have & ~pi->invalidates) | pi->guarantees;
    }
    return ST_OK;
}

Status pass_plan_parse(const char *list, PassPlan *p, Diag *d)
{
    memset(p, 0, sizeof p[0]);
    char known[256];
    if (!list || !*list)
        return diag_add(d, ST_USAGE, "usage.passes", NULL, "the pass list is empty (passes: "
                        "%s)", known_names(known, sizeof known));
    size_t n = 1;
    for (const char *c = list; *c; c++)
        n += *c == ',';
    p->passes = calloc(n, sizeof *p->passes);
    p->dump = calloc(n, sizeof *p->dump);
    if (!p->passes || !p->dump) {
        pass_plan_finish(p);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    }
    for (const char *s = list; s;) {
        char name[64];
        bool toolong;
        next_item(&s, name, sizeof name, &toolong);
        const PassInfo *pi = toolong ? NULL : pass_find(name);
        if (!pi) {
            Status st = diag_add(d, ST_USAGE, "usage.passes", NULL, "%s%s%s in the pass list "
                                 "'%s' (passes: %s)", *name ? "unknown pass '" : "an empty name",
                                 name, *name ? (toolong ? "...'" : "'") : "", list,
                                 known_names(known, sizeof known));
            pass_plan_finish(p);
            return st;
        }
        p->passes[p->n++] = pi;
    }
    Status st = pass_plan_check(p->passes, p->n, d);
    if (st != ST_OK)
        pass_plan_finish(p);
    return st;
}

Status pass_plan_dump_after(PassPlan *p, const char *list, Diag *d)
{
    if (list && strcmp(list, "all") == 0) {
        for (size_t i = 0; i < p->n; i++)
            p->dump[i] = true;
        return ST_OK;
    }
    for (const char *s = list; s;) {
        char name[64];
        bool toolong, found = false;
        next_item(&s, name, sizeof name, &toolong);
        for (size_t i = 0; i < p->n && !toolong; i++)
            if (strcmp(p->passes[i]->name, name) == 0)
                p->dump[i] = found = true;
        if (!found)
            return diag_add(d, ST_USAGE, "usage.dump", NULL, "--dump-after: '%s%s' is no pass "
                            "of the list being run (a pass of --passes, or all)", name,
                            toolong ? "..." : "");
    }
    return ST_OK;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Runs the verifier after pass pi: its findings become runtime errors [pass.verify]. */
static Status verify_after(const PassInfo *pi, const Graph *g, Diag *d)
{
    Diag vd;
    diag_init(&vd, NULL);
    Status st = verify_graph(g, &vd);
    if (st == ST_LOGIC) {
        diag_add(d, ST_RUNTIME, "pass.verify", NULL, "after pass '%s' the graph breaks %zu "
                 "verifier rule(s): a bug of the pass", pi->name, vd.n + vd.dropped);
        for (size_t i = 0; i < vd.n && i < 20; i++)
            diag_add(d, ST_RUNTIME, "pass.verify", vd.entries[i].where, "after pass '%s': %s "
                     "[%s]", pi->name, vd.entries[i].what, vd.entries[i].rule);
        st = ST_RUNTIME;
    } else if (st != ST_OK) {
        diag_add(d, ST_RUNTIME, "oom", NULL, "after pass '%s': out of memory while verifying",
                 pi->name);
    }
    diag_finish(&vd);
    return st;
}

static void count(const Graph *g, PassStat *s, int k)
{
    s->blocks[k] = g->n_blocks;
    s->edges[k] = g->n_edges;
    s->groups[k] = g->n_groups;
}

Status pass_plan_run(const PassPlan *p, Graph *g, const PassOptions *o,
                     const PassRunOptions *r, Diag *d)
{
    for (size_t i = 0; i < p->n; i++) {
        const PassInfo *pi = p->passes[i];
        PassStat *s = r->stats ? &r->stats[i] : NULL;
        if (s)
            count(g, s, 0);
        double t0 = now();
        Status st = pi->run(g, o, d);
        if (st == ST_OK && graph_oom(g))
            st = diag_add(d, ST_RUNTIME, "oom", NULL, "%s: out of memory", pi->name);
        if (s) {
            s->seconds = now() - t0;
            count(g, s, 1);
        }
        if (st == ST_OK && r->verify_each)
            st = verify_after(pi, g, d);
        if (st != ST_OK)
            return st;
        if (p->dump[i] && r->dump) {
            fprintf(r->dump, "# after pass '%s' (%zu of %zu)\n", pi->name, i + 1, p->n);
            st = print_graph(g, PF_TEXT, r->dump, d);
            if (st != ST_OK)
                return st;
        }
        tir_progress(r->progress, "pass", i + 1, p->n);
    }
    return ST_OK;
}
