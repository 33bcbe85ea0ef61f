/* host_split.c: the --allow-host split of a CVM model into a chip TaskGraph and a host
 * remainder, and writing the two as a set (host_split.h, docs/lowering.md section 7).
 *
 * The split copies nodes into two new OpGraphs: the chip one (every non-host node; parameter
 * values shared with the model, since it lives only while fe_lower runs) is lowered by
 * fe_lower unchanged, and its OUTPUT sockets are renumbered afterwards from positions to the
 * socket numbers of host_split.h; the host one owns copies of everything it holds.
 */
#include "frontend/host_split.h"

#include "frontend/cvm.h"
#include "frontend/cvm_ops.h"
#include "frontend/cvm_save.h"
#include "taskir/fileio.h"
#include "taskir/pbio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the split found out about the model. */
typedef struct Split {
    const OpGraph *og;
    bool *cnst;             /* per node: constant (folded by the lowering) */
    bool *host;             /* per node: a host node */
    bool *need;             /* per node: the host remainder holds it */
    int32_t *chip_id;       /* per node: its id in the chip graph, or -1 */
    int32_t *host_id;       /* per node: its id in the host remainder, or -1 */
    /* the chip outputs: value (model node, index) and socket, in chip position order */
    OgEdge *out_val;
    int32_t *out_sock;
    uint32_t n_out;
    uint32_t *first;        /* per node: the slot of its output 0 (slot = one node output) */
    int32_t *slot_pos;      /* per slot: the first chip position holding it, or -1 */
} Split;

static Status oom(Diag *d)
{
    return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
}

/* A data-dependent gather, what the lowering refuses as [lower.dynamic]: take / cvm_lut
 * with computed indices into a computed tensor, or take along an axis of a constant whose
 * other axes have extent > 1. cnst: per node, constant. */
static bool is_dynamic_gather(const OpGraph *og, const bool *cnst, const OgNode *n)
{
    uint32_t kidx, ktab;
    if (n->op == CVM_OP_take)
        kidx = 1, ktab = 0;
    else if (n->op == CVM_OP_cvm_lut)
        kidx = 0, ktab = 1;
    else
        return false;
    if (n->ninputs < 2 || cnst[n->inputs[kidx].node])
        return false;
    if (!cnst[n->inputs[ktab].node])
        return true;
    if (n->op != CVM_OP_take || og_attr_is_none(n, "axis"))
        return false;
    const OgShape *ts = og_edge_shape(og, n->inputs[ktab]);
    int64_t ax = og_attr_int(n, "axis", 0);
    if (ax < 0)
        ax += ts->ndim;
    if (ax < 0 || ax >= (int64_t)ts->ndim || ts->d[ax] == 0)
        return false;
    return og_shape_volume(ts) / ts->d[ax] != 1;
}

/* Operators the chip cannot compute: flagged CVM_OPF_HOST, or a data-dependent gather. */
static bool is_host_op(const OpGraph *og, const bool *cnst, const OgNode *n)
{
    const CvmOpInfo *info = cvm_op_info((CvmOp)n->op);
    return info && ((info->flags & CVM_OPF_HOST) || is_dynamic_gather(og, cnst, n));
}

/* cnst, host and need; false when no head is a host head. */
static bool classify(Split *s)
{
    const OpGraph *og = s->og;
    for (uint32_t i = 0; i < og->nnodes; i++) {
        const OgNode *n = og->nodes[i];
        bool all_const = n->kind != OG_INPUT, any_host = false;
        for (uint32_t k = 0; k < n->ninputs; k++) {
            all_const = all_const && s->cnst[n->inputs[k].node];
            any_host = any_host || s->host[n->inputs[k].node];
        }
        s->cnst[i] = n->kind == OG_CONST || (n->kind == OG_OP && all_const);
        s->host[i] = n->kind == OG_OP && !s->cnst[i] && (any_host || is_host_op(og, s->cnst, n));
    }
    bool any = false;
    for (uint32_t j = 0; j < og->noutputs; j++)
        if (s->host[og->outputs[j].node])
            any = s->need[og->outputs[j].node] = true;
    /* backwards: a needed host node needs its host inputs and its constant inputs (with
     * theirs); a non-constant non-host input is read from the chip */
    for (uint32_t i = og->nnodes; i-- > 0;) {
        const OgNode *n = og->nodes[i];
        if (!s->need[i])
            continue;
        for (uint32_t k = 0; k < n->ninputs; k++) {
            int32_t m = n->inputs[k].node;
            if (s->host[m] || s->cnst[m])
                s->need[m] = true;
        }
    }
    return any;
}

/* The chip outputs: the non-host heads (socket K), then the values the host reads. */
static Status plan_outputs(Split *s, Diag *d)
{
    const OpGraph *og = s->og;
    uint64_t most = (uint64_t)og->noutputs;
    for (uint32_t i = 0; i < og->nnodes; i++)
        if (s->need[i] && s->host[i])
            most += og->nodes[i]->ninputs;
    uint64_t slots = 0;
    s->first = calloc(og->nnodes + 1, sizeof *s->first);
    for (uint32_t i = 0; s->first && i < og->nnodes; i++) {
        s->first[i] = (uint32_t)slots;
        slots += og->nodes[i]->noutputs;
    }
    s->out_val = calloc(most + 1, sizeof *s->out_val);
    s->out_sock = calloc(most + 1, sizeof *s->out_sock);
    s->slot_pos = malloc((slots + 1) * sizeof *s->slot_pos);
    if (!s->first || !s->out_val || !s->out_sock || !s->slot_pos)
        return oom(d);
    for (uint64_t k = 0; k < slots; k++)
        s->slot_pos[k] = -1;
    for (uint32_t j = 0; j < og->noutputs; j++) {
        OgEdge e = og->outputs[j];
        if (s->host[e.node])
            continue;
        int32_t *pos = &s->slot_pos[s->first[e.node] + e.index];
        if (*pos < 0)
            *pos = (int32_t)s->n_out;
        s->out_val[s->n_out] = e;
        s->out_sock[s->n_out++] = (int32_t)j;
    }
    int32_t next = (int32_t)og->noutputs;
    for (uint32_t i = 0; i < og->nnodes; i++) {
        const OgNode *n = og->nodes[i];
        if (!s->need[i] || !s->host[i])
            continue;
        for (uint32_t k = 0; k < n->ninputs; k++) {
            OgEdge e = n->inputs[k];
            int32_t *pos = &s->slot_pos[s->first[e.node] + e.index];
            if (s->host[e.node] || s->cnst[e.node] || *pos >= 0)
                continue;
            *pos = (int32_t)s->n_out;
            s->out_val[s->n_out] = e;
            s->out_sock[s->n_out++] = next++;
        }
    }
    return ST_OK;
}

/* Copies node n of the model into g as a node named name, its inputs mapped through map.
 * share: a parameter's values are shared with the model, else copied into g. */
static OgNode *copy_node(OpGraph *g, const OgNode *n, const char *name, const int32_t *map,
                         bool share)
{
    OgNode *c = og_add_node(g, n->kind, n->op, n->op_name, name, n->ninputs, n->noutputs);
    if (!c)
        return NULL;
    c->src_index = n->src_index;
    for (uint32_t k = 0; k < n->ninputs; k++)
        c->inputs[k] = (OgEdge){map[n->inputs[k].node], n->inputs[k].index};
    for (uint32_t k = 0; k < n->noutputs; k++) {
        c->out_shape[k] = n->out_shape[k];
        c->out_prec[k] = n->out_prec[k];
    }
    bool ok = true;
    for (uint32_t k = 0; ok && k < n->nattrs; k++) {
        const OgAttr *a = &n->attrs[k];
        switch (a->kind) {
        case OG_ATTR_NONE:
            ok = og_set_none(g, c, a->name);
            break;
        case OG_ATTR_INT:
            ok = og_set_int(g, c, a->name, a->i);
            break;
        case OG_ATTR_INTS:
            ok = og_set_ints(g, c, a->name, a->v, a->n);
            break;
        case OG_ATTR_BOOL:
            ok = og_set_bool(g, c, a->name, a->i != 0);
            break;
        case OG_ATTR_STR:
            ok = og_set_str(g, c, a->name, a->s);
            break;
        }
    }
    if (!ok)
        return NULL;
    c->value = n->value;
    if (n->kind == OG_CONST && !share) {
        c->value.data = arena_alloc(g->arena, (size_t)n->value.count, sizeof *c->value.data);
        if (!c->value.data)
            return NULL;
        memcpy(c->value.data, n->value.data, (size_t)n->value.count * sizeof *c->value.data);
    }
    return c;
}

/* The chip graph: every non-host node, outputs in position order. */
static Status build_chip(Split *s, OpGraph **out, Diag *d)
{
    const OpGraph *og = s->og;
    OpGraph *g = og_create(og->dialect);
    if (!g)
        return oom(d);
    for (uint32_t i = 0; i < og->nnodes; i++) {
        const OgNode *n = og->nodes[i];
        if (s->host[i])
            continue;
        OgNode *c = copy_node(g, n, n->name, s->chip_id, true);
        if (!c)
            break;
        s->chip_id[i] = c->id;
    }
    for (uint32_t q = 0; q < s->n_out && !og_oom(g); q++)
        og_add_output(g, s->chip_id[s->out_val[q].node], s->out_val[q].index);
    if (og_oom(g)) {
        og_destroy(g);
        return oom(d);
    }
    *out = g;
    return ST_OK;
}

/* The names of the remainder's null nodes so far (inputs and parameters): a small
 * open-addressing set, so that many parameters cost linear time. */
typedef struct NameSet {
    const char **slot;
    size_t cap, n;
} NameSet;

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

static bool names_has(const NameSet *ns, const char *name)
{
    for (size_t i = name_hash(name) & (ns->cap - 1); ns->slot[i]; i = (i + 1) & (ns->cap - 1))
        if (strcmp(ns->slot[i], name) == 0)
            return true;
    return false;
}

/* Adds name (kept by pointer: it must outlive the set). */
static void names_add(NameSet *ns, const char *name)
{
    size_t i = name_hash(name) & (ns->cap - 1);
    while (ns->slot[i])
        i = (i + 1) & (ns->cap - 1);
    ns->slot[i] = name;
    ns->n++;
}

/* A parameter's name in the remainder: its own, or "<name>.param", "<name>.param2", ... when
 * an input or an earlier parameter has it. The result is copied into g's arena. */
static const char *param_name(OpGraph *g, const NameSet *ns, const char *name)
{
    if (!names_has(ns, name))
        return name;
    size_t len = strlen(name) + 32;
    char *buf = arena_alloc(g->arena, len, 1);
    if (!buf)
        return NULL;
    for (unsigned k = 1;; k++) {
        if (k == 1)
            snprintf(buf, len, "%s.param", name);
        else
            snprintf(buf, len, "%s.param%u", name, k);
        if (!names_has(ns, buf))
            return buf;
    }
}

/* The (first) chip position of value e, which the chip graph outputs. */
static uint32_t position_of(const Split *s, OgEdge e)
{
    return (uint32_t)s->slot_pos[s->first[e.node] + e.index];
}

/* The host remainder: inputs output<S> in socket order (the chip positions are in socket
 * order already: heads first, in order, then the extra values), then the needed nodes; heads
 * as host_split.h says. */
static Status build_host(Split *s, OpGraph **out, Diag *d)
{
    const OpGraph *og = s->og;
    OpGraph *g = og_create(og->dialect);
    int32_t *in_id = calloc(s->n_out + 1, sizeof *in_id);
    NameSet ns = {NULL, 64, 0};
    while (ns.cap < 2 * ((size_t)s->n_out + og->nnodes))
        ns.cap *= 2;
    ns.slot = calloc(ns.cap, sizeof *ns.slot);
    Status st = g && in_id && ns.slot ? ST_OK : oom(d);
    for (uint32_t q = 0; st == ST_OK && q < s->n_out; q++) {
        OgEdge e = s->out_val[q];
        const OgNode *src = og->nodes[e.node];
        char name[32];
        snprintf(name, sizeof name, "output%d", (int)s->out_sock[q]);
        OgNode *in = NULL;
        st = fe_cvm_add_input(g, name, &src->out_shape[e.index], src->out_prec[e.index], &in, d);
        if (st == ST_OK) {
            in_id[q] = in->id;
            names_add(&ns, in->name);
        }
    }
    for (uint32_t i = 0; st == ST_OK && i < og->nnodes; i++) {
        const OgNode *n = og->nodes[i];
        if (!s->need[i])
            continue;
        const char *name = n->kind == OG_CONST ? param_name(g, &ns, n->name) : n->name;
        OgNode *c = name ? copy_node(g, n, name, s->host_id, false) : NULL;
        if (!c) {
            st = oom(d);
            break;
        }
        if (c->kind == OG_CONST)
            names_add(&ns, c->name);
        /* an input computed on the chip is read from the remainder's input for it */
        for (uint32_t k = 0; k < n->ninputs; k++) {
            OgEdge e = n->inputs[k];
            if (!s->host[e.node] && !s->cnst[e.node])
                c->inputs[k] = (OgEdge){in_id[position_of(s, e)], 0};
        }
        s->host_id[i] = c->id;
    }
    /* the chip heads hold positions 0, 1, ... in head order: head j's own socket j */
    for (uint32_t j = 0, q = 0; st == ST_OK && j < og->noutputs; j++) {
        OgEdge e = og->outputs[j];
        if (!(s->host[e.node] ? og_add_output(g, s->host_id[e.node], e.index)
                              : og_add_output(g, in_id[q++], 0)))
            st = oom(d);
    }
    if (st == ST_OK && og_oom(g))
        st = oom(d);
    free(in_id);
    free(ns.slot);
    if (st != ST_OK) {
        og_destroy(g);
        return st;
    }
    *out = g;
    return ST_OK;
}

/* OUTPUT socket j (the chip graph's position) becomes out_sock[j]. */
static void renumber(const Split *s, Graph *g)
{
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        Block *b = g->blocks[i];
        if (b->type == BT_OUTPUT && b->has_socket_id && b->socket_id >= 0 &&
            (uint32_t)b->socket_id < s->n_out)
            b->socket_id = s->out_sock[b->socket_id];
    }
}

Status fe_lower_split(const OpGraph *og, const LowerOptions *opt, Graph **chip, OpGraph **host,
                      Diag *d)
{
    *chip = NULL;
    *host = NULL;
    if (!opt || !opt->allow_host || !og->dialect || strcmp(og->dialect, "cvm") != 0)
        return fe_lower(og, opt, chip, d);
    uint32_t nn = og->nnodes ? og->nnodes : 1;
    Split s = {og, calloc(nn, sizeof(bool)), calloc(nn, sizeof(bool)), calloc(nn, sizeof(bool)),
               calloc(nn, sizeof(int32_t)), calloc(nn, sizeof(int32_t)), NULL, NULL, 0, NULL,
               NULL};
    Status st = ST_OK;
    OpGraph *cg = NULL;
    if (!s.cnst || !s.host || !s.need || !s.chip_id || !s.host_id) {
        st = oom(d);
        goto done;
    }
    for (uint32_t i = 0; i < og->nnodes; i++)
        s.chip_id[i] = s.host_id[i] = -1;
    bool split = classify(&s);
    bool any_host = false;
    for (uint32_t i = 0; i < og->nnodes; i++)
        any_host = any_host || s.host[i];
    if (!any_host) { /* nothing to leave to the host: the model as it is */
        st = fe_lower(og, opt, chip, d);
        goto done;
    }
    if ((st = plan_outputs(&s, d)) || (st = build_chip(&s, &cg, d)) ||
        (st = fe_lower(cg, opt, chip, d)))
        goto done;
    renumber(&s, *chip);
    if (split && (st = build_host(&s, host, d)) != ST_OK) {
        graph_destroy(*chip);
        *chip = NULL;
    }
done:
    og_destroy(cg);
    free(s.cnst);
    free(s.host);
    free(s.need);
    free(s.chip_id);
    free(s.host_id);
    free(s.out_val);
    free(s.out_sock);
    free(s.first);
    free(s.slot_pos);
    return st;
}

/* ---- files ---- */

Status fe_host_paths(const char *pb_path, char **json, char **params, Diag *d)
{
    size_t n = strlen(pb_path);
    if (n >= 3 && strcmp(pb_path + n - 3, ".pb") == 0)
        n -= 3;
    *json = malloc(n + 16);
    *params = malloc(n + 16);
    if (!*json || !*params) {
        free(*json);
        free(*params);
        *json = *params = NULL;
        return oom(d);
    }
    snprintf(*json, n + 16, "%.*s.host.json", (int)n, pb_path);
    snprintf(*params, n + 16, "%.*s.host.params", (int)n, pb_path);
    return ST_OK;
}

/* Copies the entries of from into d, with where = the file they are about. */
static Status relay(Diag *d, const Diag *from, const char *file, Status st)
{
    for (size_t i = 0; i < from->n; i++) {
        const DiagEntry *e = &from->entries[i];
        char where[1024];
        snprintf(where, sizeof where, "%s%s%s", file, e->where && *e->where ? ": " : "",
                 e->where ? e->where : "");
        diag_add(d, e->status, e->rule, where, "%s", e->what);
    }
    return st;
}

/* Removes path; a missing file is fine. */
static Status remove_file(const char *path, Diag *d)
{
    if (unlink(path) == 0 || errno == ENOENT)
        return ST_OK;
    return diag_add(d, ST_RUNTIME, "io.write", path, "cannot remove the stale host remainder: "
                    "%s", strerror(errno));
}

/* The socket S of a remainder input named "output<S>", or -1. */
int32_t fe_host_input_socket(const char *name)
{
    if (strncmp(name, "output", 6) != 0 || name[6] < '0' || name[6] > '9' ||
        (name[6] == '0' && name[7]))
        return -1;
    int64_t v = 0;
    for (const char *p = name + 6; *p; p++) {
        if (*p < '0' || *p > '9' || v > INT32_MAX / 10)
            return -1;
        v = v * 10 + (*p - '0');
    }
    return v <= INT32_MAX ? (int32_t)v : -1;
}

Status fe_host_load(const char *pb_path, OpGraph **host, Diag *d)
{
    *host = NULL;
    if (strcmp(pb_path, "-") == 0)
        return ST_OK;
    char *json, *params;
    Status st = fe_host_paths(pb_path, &json, &params, d);
    if (st != ST_OK)
        return st;
    if (access(json, F_OK) == 0) {
        Diag hd;
        diag_init(&hd, NULL);
        st = fe_cvm_load(json, params, host, &hd);
        relay(d, &hd, json, st);
        diag_finish(&hd);
        for (uint32_t k = 0; st == ST_OK && k < og_num_inputs(*host); k++) {
            const char *name = og_input(*host, k)->name;
            if (fe_host_input_socket(name) < 0) {
                char where[1024];
                snprintf(where, sizeof where, "%s: input '%s'", json, name);
                st = diag_add(d, ST_LOGIC, "host.input", where, "a host remainder's inputs "
                              "are named output<S> after the chip socket S they read");
            }
        }
        if (st != ST_OK) {
            og_destroy(*host);
            *host = NULL;
        }
    }
    free(json);
    free(params);
    return st;
}

Status fe_save_split(const Graph *chip, const OpGraph *host, const char *pb_path, Diag *d)
{
    if (strcmp(pb_path, "-") == 0) {
        if (host)
            return diag_add(d, ST_LOGIC, "host.output", NULL, "the model has a host remainder, "
                            "which is written next to the TaskGraph: give -o FILE");
        return graph_save_pb(chip, pb_path, d);
    }
    char *json, *params;
    Status st = fe_host_paths(pb_path, &json, &params, d);
    if (st != ST_OK)
        return st;
    TirSigHold hold;
    tir_signals_hold(&hold);
    if (host) {
        Diag hd;
        diag_init(&hd, NULL);
        st = fe_cvm_save(host, json, params, &hd);
        relay(d, &hd, json, st);
        diag_finish(&hd);
    }
    if (st == ST_OK && (st = graph_save_pb(chip, pb_path, d)) != ST_OK && host) {
        unlink(json);
        unlink(params);
    }
    if (st == ST_OK && !host) {
        Status a = remove_file(json, d), b = remove_file(params, d);
        st = a != ST_OK ? a : b;
    }
    tir_signals_release(&hold);
    free(json);
    free(params);
    return st;
}
