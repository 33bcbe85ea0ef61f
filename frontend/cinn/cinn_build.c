/* cinn_build.c: the CINN builder (cinn.h): variables and their names, the recorded program,
 * fe_cinn_call (the checks every call goes through, in this order: the primitive, poisoned
 * inputs, input references and count, the result's name, the attributes against the row's
 * schema, a rejected primitive, then the row's build function), and the helpers build
 * functions use to add nodes. Errors of the CVM node checks (fe_cvm_add_op) are re-reported
 * as the call's, keeping their rule ids. A failed call removes the nodes it added.
 */
#include "frontend/cinn/cinn_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- variables and names ---- */

static uint32_t hash_str(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

static bool hash_insert(CinnBuilder *b, uint32_t var)
{
    if ((uint64_t)(b->nvars + 1) * 2 > b->hcap) {
        uint32_t cap = b->hcap ? b->hcap * 2 : 256;
        uint32_t *h = calloc(cap, sizeof *h);
        if (!h)
            return false;
        for (uint32_t i = 0; i < b->hcap; i++)
            if (b->hash[i]) {
                uint32_t k = hash_str(b->vars[b->hash[i] - 1].name) & (cap - 1);
                while (h[k])
                    k = (k + 1) & (cap - 1);
                h[k] = b->hash[i];
            }
        free(b->hash);
        b->hash = h;
        b->hcap = cap;
    }
    uint32_t k = hash_str(b->vars[var].name) & (b->hcap - 1);
    while (b->hash[k])
        k = (k + 1) & (b->hcap - 1);
    b->hash[k] = var + 1;
    return true;
}

CinnVar fe_cinn_find_var(const CinnBuilder *b, const char *name)
{
    if (!b->hcap || !name)
        return CINN_NONE;
    uint32_t k = hash_str(name) & (b->hcap - 1);
    while (b->hash[k]) {
        if (strcmp(b->vars[b->hash[k] - 1].name, name) == 0)
            return (CinnVar)(b->hash[k] - 1);
        k = (k + 1) & (b->hcap - 1);
    }
    return CINN_NONE;
}

/* [A-Za-z_][A-Za-z0-9_.-]*, at most CINN_MAX_NAME characters: an XML name without ':' that
 * no intermediate node name ("<name>/<step>") can equal. */
static bool name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > CINN_MAX_NAME)
        return false;
    if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '.' || ch == '-'))
            return false;
    }
    return true;
}

/* ---- the builder ---- */

CinnBuilder *fe_cinn_create(Diag *d)
{
    CinnBuilder *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->arena = arena_create();
    b->g = og_create("cvm");
    b->d = d;
    if (!b->arena || !b->g) {
        fe_cinn_destroy(b);
        return NULL;
    }
    return b;
}

void fe_cinn_destroy(CinnBuilder *b)
{
    if (!b)
        return;
    og_destroy(b->g);
    arena_destroy(b->arena);
    free(b->vars);
    free(b->calls);
    free(b->hash);
    free(b->file);
    free(b);
}

void fe_cinn_set_file(CinnBuilder *b, const char *file)
{
    free(b->file);
    b->file = file ? strdup(file) : NULL;
}

Status fe_cinn_status(const CinnBuilder *b)
{
    return b->worst;
}

const OpGraph *fe_cinn_graph(const CinnBuilder *b)
{
    return b->g;
}

uint32_t fe_cinn_num_calls(const CinnBuilder *b)
{
    return b->ncalls;
}

const CinnCall *fe_cinn_get_call(const CinnBuilder *b, uint32_t i)
{
    return i < b->ncalls ? &b->calls[i] : NULL;
}

static const CinnVarRec *var_rec(const CinnBuilder *b, CinnVar v)
{
    return v >= 0 && (uint32_t)v < b->nvars ? &b->vars[v] : NULL;
}

const char *fe_cinn_var_name(const CinnBuilder *b, CinnVar v)
{
    const CinnVarRec *r = var_rec(b, v);
    return r ? r->name : NULL;
}

const OgShape *fe_cinn_var_shape(const CinnBuilder *b, CinnVar v)
{
    const CinnVarRec *r = var_rec(b, v);
    return r ? og_edge_shape(b->g, r->e) : NULL;
}

int32_t fe_cinn_var_prec(const CinnBuilder *b, CinnVar v)
{
    const CinnVarRec *r = var_rec(b, v);
    return r ? og_edge_prec(b->g, r->e) : 0;
}

/* ---- messages ---- */

static Status note(CinnBuilder *b, Status st)
{
    if (st > b->worst)
        b->worst = st;
    return st;
}

static void set_where(CinnCtx *c)
{
    const CinnBuilder *b = c->b;
    if (b->file)
        snprintf(c->where, sizeof c->where, "%s:%d", b->file, (int)c->pos);
    else
        snprintf(c->where, sizeof c->where, "call %d", (int)c->pos);
}

/* "Exp 'e'" or "Output" (no name). */
static void subject(const CinnCtx *c, char *buf, size_t size)
{
    if (c->name)
        snprintf(buf, size, "%s '%s'", c->pi ? c->pi->name : "call", c->name);
    else
        snprintf(buf, size, "%s", c->pi ? c->pi->name : "call");
}

Status cinn_fail(CinnCtx *c, const char *rule, const char *fmt, ...)
{
    char subj[300], what[1024];
    subject(c, subj, sizeof subj);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    diag_add(c->b->d, ST_LOGIC, rule, c->where, "%s: %s", subj, what);
    return note(c->b, ST_LOGIC);
}

Status cinn_oom(CinnCtx *c)
{
    diag_add(c->b->d, ST_RUNTIME, "oom", c->where, "out of memory");
    return note(c->b, ST_RUNTIME);
}

/* Re-reports the CVM checks' findings as the call's; node names the node they were about. */
static Status relay(CinnCtx *c, Diag *sub, const char *op_name, const char *node_name,
                    Status st)
{
    char subj[300];
    subject(c, subj, sizeof subj);
    bool own = c->name && strcmp(node_name, c->name) == 0;
    for (size_t i = 0; i < sub->n; i++) {
        const DiagEntry *e = &sub->entries[i];
        if (own)
            diag_add(c->b->d, e->status, e->rule, c->where, "%s: %s (%s)", subj,
                     e->what ? e->what : "", op_name);
        else
            diag_add(c->b->d, e->status, e->rule, c->where, "%s: %s (its %s step '%s')", subj,
                     e->what ? e->what : "", op_name, node_name);
    }
    if (sub->n == 0)
        diag_add(c->b->d, st, "cinn.internal", c->where, "%s: the %s step '%s' failed", subj,
                 op_name, node_name);
    return note(c->b, st);
}

/* ---- nodes ---- */

static const char *node_name(CinnCtx *c, const char *suffix, char *buf, size_t size)
{
    if (!suffix)
        return c->name ? c->name : "";
    snprintf(buf, size, "%s/%s", c->name ? c->name : "", suffix);
    return buf;
}

Status cinn_node(CinnCtx *c, int op, const char *suffix, const OgEdge *ins, uint32_t nins,
                 const CvmKV *kv, size_t nkv, OgEdge *out)
{
    char nb[CINN_MAX_NAME + 64];
    const char *nm = node_name(c, suffix, nb, sizeof nb);
    const CvmOpInfo *info = cvm_op_info((CvmOp)op);
    if (kv && nkv == 0)
        while (kv[nkv].key)
            nkv++;
    Diag sub;
    diag_init(&sub, NULL);
    OgNode *n = NULL;
    Status st = fe_cvm_add_op(c->b->g, (CvmOp)op, nm, ins, nins, kv, nkv, &n, &sub);
    if (st != ST_OK)
        st = relay(c, &sub, info ? info->name : "?", nm, st);
    diag_finish(&sub);
    if (st != ST_OK)
        return st;
    n->src_index = c->pos;
    out->node = n->id;
    out->index = 0;
    return ST_OK;
}

Status cinn_const_node(CinnCtx *c, const char *suffix, const OgTensor *t, int32_t prec,
                       OgEdge *out)
{
    char nb[CINN_MAX_NAME + 64];
    const char *nm = node_name(c, suffix, nb, sizeof nb);
    Diag sub;
    diag_init(&sub, NULL);
    OgNode *n = NULL;
    Status st = fe_cvm_add_const(c->b->g, nm, t, prec, &n, &sub);
    if (st != ST_OK)
        st = relay(c, &sub, "constant", nm, st);
    diag_finish(&sub);
    if (st != ST_OK)
        return st;
    n->src_index = c->pos;
    out->node = n->id;
    out->index = 0;
    return ST_OK;
}

Status cinn_input_node(CinnCtx *c, const OgShape *shape, int32_t prec, OgEdge *out)
{
    Diag sub;
    diag_init(&sub, NULL);
    OgNode *n = NULL;
    Status st = fe_cvm_add_input(c->b->g, c->name, shape, prec, &n, &sub);
    if (st != ST_OK)
        st = relay(c, &sub, "input", c->name, st);
    diag_finish(&sub);
    if (st != ST_OK)
        return st;
    n->src_index = c->pos;
    out->node = n->id;
    out->index = 0;
    return ST_OK;
}

Status cinn_scalar_node(CinnCtx *c, const char *suffix, int64_t v, OgEdge *out)
{
    if (v < -(int64_t)INT32_MAX || v > INT32_MAX)
        return cinn_fail(c, "cinn.limit", "the constant %lld lies outside precision 32",
                         (long long)v);
    int32_t val = (int32_t)v;
    OgTensor t = {{1, {1}}, 1, &val};
    return cinn_const_node(c, suffix, &t, 0, out);
}

Status cinn_narrow(CinnCtx *c, const char *suffix, OgEdge e, int32_t p, OgEdge *out)
{
    if (cinn_prec(c, e) <= p) {
        *out = e;
        if (!suffix) /* the variable's own node: keep the name on a real node */
            return cinn_node(c, CINN_OP_cinn_range, NULL, &e, 1,
                             (const CvmKV[]){{"precision", cinn_itoa(c, cinn_prec(c, e))},
                                             {NULL, NULL}}, 0, out);
        return ST_OK;
    }
    CvmKV kv[] = {{"precision", cinn_itoa(c, p)}, {NULL, NULL}};
    return cinn_node(c, CINN_OP_cinn_range, suffix, &e, 1, kv, 0, out);
}

/* ---- attributes ---- */

static const OgAttr *attr(const CinnCtx *c, const char *name)
{
    int k = cinn_attr_index(c->pi, name);
    return k >= 0 ? &c->attrs[k] : NULL;
}

int64_t cinn_int(const CinnCtx *c, const char *name)
{
    const OgAttr *a = attr(c, name);
    return a && (a->kind == OG_ATTR_INT || a->kind == OG_ATTR_BOOL) ? a->i : 0;
}

const int64_t *cinn_ints(const CinnCtx *c, const char *name, uint32_t *n)
{
    const OgAttr *a = attr(c, name);
    if (!a || a->kind != OG_ATTR_INTS) {
        *n = 0;
        return NULL;
    }
    *n = a->n;
    return a->v;
}

const char *cinn_str(const CinnCtx *c, const char *name)
{
    const OgAttr *a = attr(c, name);
    return a && a->kind == OG_ATTR_STR ? a->s : "";
}

bool cinn_bool(const CinnCtx *c, const char *name)
{
    const OgAttr *a = attr(c, name);
    return a && a->kind == OG_ATTR_BOOL && a->i;
}

bool cinn_has(const CinnCtx *c, const char *name)
{
    const OgAttr *a = attr(c, name);
    return a && a->kind != OG_ATTR_NONE;
}

void cinn_set_int(CinnCtx *c, const char *name, int64_t v)
{
    int k = cinn_attr_index(c->pi, name);
    if (k < 0)
        return;
    c->attrs[k].kind = OG_ATTR_INT;
    c->attrs[k].i = v;
}

const char *cinn_tuple(CinnCtx *c, const int64_t *v, uint32_t n)
{
    char buf[CINN_MAX_LIST * 24 + 8];
    size_t used = 0;
    used += (size_t)snprintf(buf + used, sizeof buf - used, "(");
    for (uint32_t i = 0; i < n && used < sizeof buf; i++)
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%lld", i ? ", " : "",
                                 (long long)v[i]);
    if (used < sizeof buf)
        snprintf(buf + used, sizeof buf - used, n == 1 ? ",)" : ")");
    const char *s = arena_strdup(c->b->arena, buf);
    return s ? s : "()";
}

const char *cinn_itoa(CinnCtx *c, int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    const char *s = arena_strdup(c->b->arena, buf);
    return s ? s : "0";
}

const OgShape *cinn_shape(const CinnCtx *c, OgEdge e)
{
    return og_edge_shape(c->b->g, e);
}

int32_t cinn_prec(const CinnCtx *c, OgEdge e)
{
    return og_edge_prec(c->b->g, e);
}

void cinn_in_range(const CinnCtx *c, uint32_t k, int64_t *lo, int64_t *hi)
{
    const CinnVarRec *r = var_rec(c->b, c->vin[k]);
    *lo = r ? r->lo : 0;
    *hi = r ? r->hi : 0;
}

int32_t cinn_range_prec(int64_t lo, int64_t hi)
{
    int64_t m = lo < 0 ? -lo : lo;
    if ((hi < 0 ? -hi : hi) > m)
        m = hi < 0 ? -hi : hi;
    return cvm_bits((uint64_t)m) + 1;
}

const OgNode *cinn_const_of(const CinnCtx *c, OgEdge e)
{
    const OgNode *n = og_node(c->b->g, e.node);
    return n && n->kind == OG_CONST ? n : NULL;
}

/* ---- fe_cinn_call ---- */

/* The call's attributes in schema order: given ones checked, absent ones their default. */
static Status normalize(CinnCtx *c, const CinnCall *call)
{
    const CinnPrimInfo *pi = c->pi;
    c->attrs = arena_alloc(c->b->arena, pi->nattrs ? pi->nattrs : 1, sizeof *c->attrs);
    if (!c->attrs)
        return cinn_oom(c);
    for (uint32_t i = 0; i < call->nattrs; i++) {
        const OgAttr *a = &call->attrs[i];
        int k = a->name ? cinn_attr_index(pi, a->name) : -1;
        if (k < 0) {
            char known[256] = "none";
            size_t used = 0;
            for (uint32_t j = 0; j < pi->nattrs && used < sizeof known; j++)
                used += (size_t)snprintf(known + used, sizeof known - used, "%s%s",
                                         j ? ", " : "", pi->attrs[j].name);
            return cinn_fail(c, "cinn.attr", "unknown attribute '%s' (%s takes: %s)",
                             a->name ? a->name : "(null)", pi->name, known);
        }
        for (uint32_t j = 0; j < i; j++)
            if (call->attrs[j].name && strcmp(call->attrs[j].name, a->name) == 0)
                return cinn_fail(c, "cinn.attr", "attribute '%s' is given twice", a->name);
    }
    for (uint32_t k = 0; k < pi->nattrs; k++) {
        const CinnAttrSpec *sp = &pi->attrs[k];
        const OgAttr *given = NULL;
        for (uint32_t i = 0; i < call->nattrs && !given; i++)
            if (strcmp(call->attrs[i].name, sp->name) == 0)
                given = &call->attrs[i];
        char err[256];
        OgAttr *dst = &c->attrs[k];
        if (given && given->kind != OG_ATTR_NONE) {
            if (!cinn_attr_check(sp, given, err, sizeof err))
                return cinn_fail(c, "cinn.attr", "attribute '%s' %s", sp->name, err);
            *dst = *given;
            dst->name = sp->name;
            if (given->kind == OG_ATTR_INTS) {
                int64_t *v = arena_alloc(c->b->arena, given->n ? given->n : 1, sizeof *v);
                if (!v)
                    return cinn_oom(c);
                memcpy(v, given->v, given->n * sizeof *v);
                dst->v = v;
            }
            if (given->kind == OG_ATTR_STR && !(dst->s = arena_strdup(c->b->arena, given->s)))
                return cinn_oom(c);
        } else if (!sp->def) {
            return cinn_fail(c, "cinn.attr", "attribute '%s' is required", sp->name);
        } else if (strcmp(sp->def, "?") == 0) {
            memset(dst, 0, sizeof *dst);
            dst->name = sp->name;
            dst->kind = OG_ATTR_NONE;
        } else if (!cinn_attr_parse(sp, sp->def, c->b->arena, dst, NULL, err, sizeof err)) {
            return cinn_fail(c, "cinn.internal", "the default of '%s' %s", sp->name, err);
        }
    }
    return ST_OK;
}

static bool grow(void **p, uint32_t *cap, uint32_t need, size_t size)
{
    if (need <= *cap)
        return true;
    uint32_t n = *cap ? *cap * 2 : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, (size_t)n * size);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}

/* Records the successful call (and its variable). */
static Status record(CinnCtx *c, const CinnCall *call)
{
    CinnBuilder *b = c->b;
    if (!grow((void **)&b->calls, &b->cap_calls, b->ncalls + 1, sizeof *b->calls))
        return cinn_oom(c);
    CinnCall *r = &b->calls[b->ncalls];
    memset(r, 0, sizeof *r);
    r->prim = c->prim;
    r->name = c->name;
    r->line = call->line;
    r->attrs = c->attrs;
    r->nattrs = c->pi->nattrs;
    if (c->nin) {
        CinnVar *in = arena_alloc(b->arena, c->nin, sizeof *in);
        if (!in)
            return cinn_oom(c);
        memcpy(in, c->vin, c->nin * sizeof *in);
        r->inputs = in;
        r->ninputs = c->nin;
    }
    if (c->value) {
        OgTensor *t = arena_alloc(b->arena, 1, sizeof *t);
        const OgNode *n = og_node(b->g, c->out.node);
        if (!t || !n)
            return cinn_oom(c);
        *t = n->value; /* the CONST node's own copy, owned by the graph */
        r->value = t;
    }
    if (c->has_out) {
        if (!grow((void **)&b->vars, &b->cap_vars, b->nvars + 1, sizeof *b->vars))
            return cinn_oom(c);
        CinnVarRec *v = &b->vars[b->nvars];
        v->name = c->name;
        v->e = c->out;
        /* the range: the build function's, else the precision's (intersected: both hold) */
        int64_t a = og_prec_alpha(og_edge_prec(b->g, c->out));
        v->lo = -a;
        v->hi = a;
        if (c->ranged) {
            v->lo = c->lo > -a ? c->lo : -a;
            v->hi = c->hi < a ? c->hi : a;
        }
        if (!hash_insert(b, b->nvars))
            return cinn_oom(c);
        b->nvars++;
    }
    b->ncalls++;
    return ST_OK;
}

static Status run_call(CinnCtx *c, const CinnCall *call)
{
    CinnBuilder *b = c->b;
    const CinnPrimInfo *pi = c->pi;
    bool list;
    uint32_t nroles = cinn_nroles(pi, &list);
    if (b->ncalls >= CINN_MAX_CALLS)
        return cinn_fail(c, "cinn.limit", "a program has at most %u calls", CINN_MAX_CALLS);
    /* inputs */
    if (list ? call->ninputs < 1 || call->ninputs > CINN_MAX_INPUTS : call->ninputs != nroles) {
        if (list)
            return cinn_fail(c, "cinn.inputs", "takes 1 to %d inputs, the call gives %u",
                             CINN_MAX_INPUTS, call->ninputs);
        return cinn_fail(c, "cinn.inputs", "takes %u inputs (%s), the call gives %u", nroles,
                         *pi->roles ? pi->roles : "none", call->ninputs);
    }
    c->vin = call->inputs;
    c->nin = call->ninputs;
    c->in = calloc(c->nin ? c->nin : 1, sizeof *c->in);
    if (!c->in)
        return cinn_oom(c);
    for (uint32_t i = 0; i < c->nin; i++) {
        const CinnVarRec *r = var_rec(b, call->inputs[i]);
        if (!r)
            return cinn_fail(c, "cinn.ref", "input %u is variable %d, which does not exist", i,
                             (int)call->inputs[i]);
        c->in[i] = r->e;
    }
    /* the result's name */
    c->has_out = c->prim != CINN_P_Output;
    if (c->has_out) {
        char gen[64];
        const char *nm = call->name;
        if (!nm) {
            for (uint32_t k = b->ncalls + 1;; k++) {
                snprintf(gen, sizeof gen, "%s_%u", pi->snake, k);
                if (fe_cinn_find_var(b, gen) == CINN_NONE)
                    break;
            }
            nm = gen;
        }
        if (!name_ok(nm))
            return cinn_fail(c, "cinn.name", "'%.64s%s' is not a valid variable name "
                             "([A-Za-z_][A-Za-z0-9_.-]*, at most %d characters)", nm,
                             strlen(nm) > 64 ? "..." : "", CINN_MAX_NAME);
        if (!(c->name = arena_strdup(b->arena, nm)))
            return cinn_oom(c);
        CinnVar old = fe_cinn_find_var(b, nm);
        if (old != CINN_NONE) {
            uint32_t i = 0;
            while (i < b->ncalls && !(b->calls[i].name && strcmp(b->calls[i].name, nm) == 0))
                i++;
            int32_t at = i < b->ncalls ? b->calls[i].line : 0;
            if (at > 0 && b->file)
                return cinn_fail(c, "cinn.name.duplicate", "the name is already defined at "
                                 "line %d", (int)at);
            return cinn_fail(c, "cinn.name.duplicate", "the name is already defined by call "
                             "%u", i + 1);
        }
    }
    Status st = normalize(c, call);
    if (st != ST_OK)
        return st;
    if (pi->status == CINN_REJECTED)
        return cinn_fail(c, "cinn.training", "%s", pi->how);
    c->value = call->value;
    c->mark = b->g->nnodes;
    st = pi->build(c);
    if (st == ST_OK && og_oom(b->g))
        st = cinn_oom(c);
    if (st == ST_OK)
        st = record(c, call);
    return st;
}

CinnVar fe_cinn_call(CinnBuilder *b, const CinnCall *call)
{
    CinnCtx c;
    memset(&c, 0, sizeof c);
    c.b = b;
    c.prim = call->prim;
    c.pi = cinn_prim_info(call->prim);
    c.pos = call->line > 0 ? call->line : (int32_t)b->ncalls + 1;
    c.name = c.prim != CINN_P_Output ? call->name : NULL;
    set_where(&c);
    if (!c.pi) {
        cinn_fail(&c, "cinn.prim", "unknown primitive code %d", (int)call->prim);
        return CINN_NONE;
    }
    for (uint32_t i = 0; i < call->ninputs; i++)
        if (call->inputs && call->inputs[i] == CINN_NONE)
            return CINN_NONE; /* an earlier call failed and said so */
    if (call->ninputs && !call->inputs) {
        cinn_fail(&c, "cinn.inputs", "no input array for %u inputs", call->ninputs);
        return CINN_NONE;
    }
    uint32_t mark = b->g->nnodes, nout = b->g->noutputs;
    Status st = run_call(&c, call);
    free(c.in);
    if (st != ST_OK) {
        b->g->nnodes = mark; /* the nodes live in the graph's arena: dropping them is enough */
        b->g->noutputs = nout;
        return CINN_NONE;
    }
    return c.has_out ? (CinnVar)(b->nvars - 1) : call->inputs[0];
}
