/* cinn_internal.h: what the CINN frontend's files share (not installed).
 *
 *   cinn_prims.c      the primitive table (cinn_prims.def) expanded, attribute schemas,
 *                     attribute text syntax (parse / format)
 *   cinn_build.c      the builder: variables, the program record, fe_cinn_call, node helpers
 *   cinn_build_ew.c   elementwise primitives (unary, real, round, binary, compare, logical)
 *   cinn_build_nn.c   Conv, Dot, Reduce and data movement (BroadcastTo, Concat, Reshape,
 *                     Reverse, Select, Slice, Transpose), the structural calls, rejections
 *   cinn_api.c        the typed C functions of cinn.h
 *   cinn_xml_read.c   XML -> calls (libxml2, validated against cinn.xsd)
 *   cinn_xml_write.c  calls -> XML
 *
 * A build function (the table's `build` column) turns one checked call into OpGraph nodes
 * through cinn_node / cinn_const_node (which go through fe_cvm_add_op / fe_cvm_add_const, so
 * every node is checked like a CVM model's) and sets c->out. The last node of a call is named
 * after the variable, the others "<name>/<step>".
 */
#ifndef FRONTEND_CINN_INTERNAL_H
#define FRONTEND_CINN_INTERNAL_H

#include "frontend/cinn/cinn.h"
#include "frontend/cinn/cinn_ops.h"
#include "frontend/cvm/cvm.h"
#include "taskir/arena.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- attribute schemas ---- */

typedef enum {
    CT_INT,         /* an integer in [lo, hi] */
    CT_INTS,        /* a list of min_len..max_len integers, each in [lo, hi] */
    CT_BOOL,        /* true / false / 1 / 0 */
    CT_STR,         /* one of `choices` ("a|b|c") */
    CT_SCALAR       /* ConstScalar's value: an integer, or true / false (1 / 0); a float is
                       a logic error [cinn.const.float] */
} CinnAttrType;

typedef struct CinnAttrSpec {
    const char *name;
    CinnAttrType type;
    const char *def;        /* the default in XML syntax; NULL: required; "?": optional (the
                               builder fills it in or leaves it unset) */
    int64_t lo, hi;
    uint32_t min_len, max_len;
    const char *choices;
} CinnAttrSpec;

typedef enum { CINN_SUPPORTED, CINN_REJECTED } CinnRowStatus;
typedef enum { CC_UNARY, CC_REAL, CC_ROUND, CC_BINARY, CC_OTHER } CinnClass;

typedef struct CinnCtx CinnCtx;
typedef Status (*CinnBuildFn)(CinnCtx *c);

typedef struct CinnPrimInfo {
    const char *name;           /* "Exp" */
    const char *snake;          /* "exp" */
    CinnClass cls;
    const char *roles;          /* "x y", "inputs*", "" */
    const CinnAttrSpec *attrs;
    uint32_t nattrs;
    CinnBuildFn build;
    CinnRowStatus status;
    const char *how;
} CinnPrimInfo;

const CinnPrimInfo *cinn_prim_info(CinnPrim p);
/* The number of roles (a list role counts 1; *list tells whether the last one is a list). */
uint32_t cinn_nroles(const CinnPrimInfo *pi, bool *list);
/* Role k of a primitive ("x", "inputs" without the '*'), into buf; NULL when there is none. */
const char *cinn_role(const CinnPrimInfo *pi, uint32_t k, char *buf, size_t size);
/* The index of the attribute called name in the schema, or -1. */
int cinn_attr_index(const CinnPrimInfo *pi, const char *name);

/* Parses text (XML syntax: "3", "1 2 3", "true") for spec into *out (name = spec->name;
 * lists in the arena). True when it is fine, else false with the reason ("is not an
 * integer", ...) in err; a float for CT_SCALAR also sets *is_float. */
bool cinn_attr_parse(const CinnAttrSpec *spec, const char *text, Arena *arena, OgAttr *out,
                     bool *is_float, char *err, size_t errsize);
/* Checks a typed value against spec (kind, range, list length, choices). */
bool cinn_attr_check(const CinnAttrSpec *spec, const OgAttr *a, char *err, size_t errsize);

/* ---- the builder ---- */

typedef struct CinnVarRec {
    const char *name;
    OgEdge e;               /* its value in the OpGraph */
    int64_t lo, hi;         /* every value lies in [lo, hi] (within its precision) */
} CinnVarRec;

struct CinnBuilder {
    Arena *arena;           /* names, the program record */
    OpGraph *g;
    Diag *d;
    char *file;             /* malloc'd, or NULL */
    CinnVarRec *vars;
    uint32_t nvars, cap_vars;
    CinnCall *calls;
    uint32_t ncalls, cap_calls;
    uint32_t *hash;         /* open addressing over vars: index + 1, 0 = empty */
    uint32_t hcap;
    Status worst;
};

/* One call being built. */
struct CinnCtx {
    CinnBuilder *b;
    CinnPrim prim;
    const CinnPrimInfo *pi;
    const char *name;       /* the result's name (arena) */
    int32_t pos;            /* the line, or the call's number */
    char where[300];        /* "prog.xml:12" or "call 12" */
    const CinnVar *vin;
    OgEdge *in;             /* the inputs' values */
    uint32_t nin;
    OgAttr *attrs;          /* complete, in schema order (arena) */
    const OgTensor *value;
    OgEdge out;             /* set by the build function */
    bool has_out;
    bool ranged;            /* the build function knows the result's range: [lo, hi] */
    int64_t lo, hi;
    uint32_t mark;          /* the graph's node count before the call */
};

/* A logic error about the call: "<where>: <Prim> '<name>': <what> [rule]". */
Status cinn_fail(CinnCtx *c, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
Status cinn_oom(CinnCtx *c);

/* Adds an operator node (CVM or CINN code) over ins with string attributes kv (NULL-key
 * terminated or nkv long), named after the variable (suffix NULL) or "<name>/<suffix>";
 * its errors are reported as the call's. *out = its output 0. */
Status cinn_node(CinnCtx *c, int op, const char *suffix, const OgEdge *ins, uint32_t nins,
                 const CvmKV *kv, size_t nkv, OgEdge *out);
/* Adds a constant node with the values of t (precision 0: the smallest). */
Status cinn_const_node(CinnCtx *c, const char *suffix, const OgTensor *t, int32_t prec,
                       OgEdge *out);
/* The model input named after the variable. */
Status cinn_input_node(CinnCtx *c, const OgShape *shape, int32_t prec, OgEdge *out);
/* A constant of shape (1,) holding v. */
Status cinn_scalar_node(CinnCtx *c, const char *suffix, int64_t v, OgEdge *out);
/* cinn_range: e with the (proven) precision p. */
Status cinn_narrow(CinnCtx *c, const char *suffix, OgEdge e, int32_t p, OgEdge *out);

/* The call's attributes (complete after normalization). */
int64_t cinn_int(const CinnCtx *c, const char *name);
const int64_t *cinn_ints(const CinnCtx *c, const char *name, uint32_t *n);
const char *cinn_str(const CinnCtx *c, const char *name);
bool cinn_bool(const CinnCtx *c, const char *name);
bool cinn_has(const CinnCtx *c, const char *name);     /* set (not OG_ATTR_NONE) */
/* Fills an optional attribute in the record (e.g. a default that depends on the input). */
void cinn_set_int(CinnCtx *c, const char *name, int64_t v);

/* Text for CVM attributes, in the arena: "(1, 2)" and "3". */
const char *cinn_tuple(CinnCtx *c, const int64_t *v, uint32_t n);
const char *cinn_itoa(CinnCtx *c, int64_t v);

/* The shape and precision of a value. */
const OgShape *cinn_shape(const CinnCtx *c, OgEdge e);
int32_t cinn_prec(const CinnCtx *c, OgEdge e);
/* The range of input k's values (its variable's [lo, hi]). */
void cinn_in_range(const CinnCtx *c, uint32_t k, int64_t *lo, int64_t *hi);
/* The precision of values in [lo, hi]. */
int32_t cinn_range_prec(int64_t lo, int64_t hi);
/* The constant node behind e, or NULL when e is computed. */
const OgNode *cinn_const_of(const CinnCtx *c, OgEdge e);

/* ---- build functions (the table's `build` column) ---- */
#define X(Name, snake, cls, roles, attrs, build, status, how) Status build(CinnCtx *c);
#include "frontend/cinn/cinn_prims.def"
#undef X

#endif
