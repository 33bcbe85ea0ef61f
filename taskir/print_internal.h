/* print_internal.h: what the printers (print_text.c, print_json.c, print_dot.c,
 * print_summary.c, print.c) share and nobody else needs: the index from an edge to the
 * interfaces at its two ends, the tensor checksum, string escaping for each output syntax,
 * and the per-format entry points that print.c dispatches to.
 *
 * The printers never assume a valid graph: an edge without interfaces, a block id that is
 * missing, a cluster the type table has no role for, a tensor whose dims disagree with its
 * value count are all printed as they are. */
#ifndef TASKIR_PRINT_INTERNAL_H
#define TASKIR_PRINT_INTERNAL_H

#include "taskir/print.h"
#include "taskir/uses.h"
#include "taskir/utf8.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Values printed of a block's data tensor (the checksum covers all of them). */
#define PRINT_DATA_FIRST 8

/* The use index of the graph being printed (uses.h). */
typedef struct PrintIndex {
    GraphUses uses;
} PrintIndex;

/* One end of an edge as the graph says it: the block (the first with the id), and the
 * cluster and interface of that block that name the edge. */
typedef struct PrintEnd {
    const Block *block;    /* NULL: no block has the id */
    const Cluster *cluster; /* NULL: the block has no interface naming the edge */
    const Iface *iface;
    uint32_t cluster_idx, iface_idx;
    bool has_box;
    int32_t box[TIR_CDIMS]; /* the interface size, or the cluster's dims when it has none */
} PrintEnd;

/* Builds the index; ST_RUNTIME [oom] when out of memory. */
Status print_index_build(const Graph *g, PrintIndex *ix, Diag *d);
void print_index_finish(PrintIndex *ix);
/* Resolves the source (src true) or destination end of e. */
void print_edge_end(const Graph *g, const PrintIndex *ix, const Edge *e, bool src,
                    PrintEnd *end);

/* 64-bit FNV-1a over the values of one container of a tensor, each value taken as its four
 * bytes in little-endian order (int32 two's complement, uint32, IEEE float bits). Stable on
 * every host. */
uint64_t print_fnv1a_i32(const int32_t *v, uint32_t n);
uint64_t print_fnv1a_i8(const int8_t *v, uint32_t n); /* as print_fnv1a_i32 of the values */
uint64_t print_fnv1a_u32(const uint32_t *v, uint32_t n);
uint64_t print_fnv1a_f32(const float *v, uint32_t n);

/* The values of one container of a tensor. A well-formed tensor fills one container (the one
 * of its precision); a malformed one may fill several, and each is printed. */
typedef enum { PV_I32, PV_U32, PV_F32, PV_I8 } PrintValKind; /* PV_I8: int32 held narrow */
typedef struct PrintVals {
    PrintValKind kind;
    const char *name;      /* "int32", "uint32", "float" */
    const void *v;
    uint32_t n;
} PrintVals;

/* The non-empty containers of t, in the order int32, uint32, float; returns their number. */
int print_tensor_vals(const Tensor *t, PrintVals out[3]);
/* Writes value i (%d, %u, or %.9g for floats). */
void print_val(FILE *out, const PrintVals *v, uint32_t i);
/* Value i as a double (exact for every int32 and uint32 and float). */
double print_val_f64(const PrintVals *v, uint32_t i);
uint64_t print_vals_fnv1a(const PrintVals *v);
/* Can the values be shown nested along t's dims (every dim >= 1, product == count)? */
bool print_nestable(const Tensor *t, uint32_t count);
/* The precision of a data tensor: its own, or the block's when absent. */
PrecisionId print_data_prec(const Block *b, const Tensor *t);
/* "storage", "compute", "io" or "null". */
const char *print_kind_name(BlockKind k);

/* Writes s in single quotes; quote, backslash, control and invalid UTF-8 bytes escaped
 * (\' \\ \n \t \xNN). Valid UTF-8 passes through. */
void print_quoted(FILE *out, const char *s);
/* Writes dims as "y=4 x=4 f=3" (zero dims left out; "0" when every dim is zero). */
void print_dims(FILE *out, const int32_t *dims, int n);
/* The primitive code "P41" of a type into buf, or "" when the type is not a primitive. */
void print_pcode(BlockType t, char buf[8]);
/* The role name of input / output cluster idx of b, or NULL when the type has none. */
const char *print_role(const Block *b, bool input, uint32_t idx);
/* The name of a TestMode value, or NULL when it has none. */
const char *print_test_mode(int mode);
/* Maps the error state of out to a status: ST_RUNTIME [io.write] after a write error. */
Status print_check_stream(FILE *out, Diag *d);

/* JSON building with json-c, with every allocation checked: a constructor returns NULL only
 * when out of memory, and then sets J->oom; pj_set and pj_push take ownership of val (a NULL
 * val is that failure, not a JSON null; pj_set_null adds a null). pj_write serializes root
 * (pretty, spaced, no slash escapes, key order as built) with a final newline and frees it. */
struct json_object;
typedef struct PrintJson {
    bool oom;
    bool full_data;     /* print_json.c: data tensors whole, not abridged */
} PrintJson;

struct json_object *pj_obj(PrintJson *J);
struct json_object *pj_arr(PrintJson *J);
struct json_object *pj_int(PrintJson *J, int64_t v);
struct json_object *pj_bool(PrintJson *J, bool v);
/* s must not be NULL; bytes that are not UTF-8 become U+FFFD. */
struct json_object *pj_str(PrintJson *J, const char *s);
/* A number written with %.9g; NaN and infinities as the strings "nan", "inf", "-inf". */
struct json_object *pj_double(PrintJson *J, double v);
/* {"y": 4, "x": 4, ...}: the non-zero dims. */
struct json_object *pj_dims(PrintJson *J, const int32_t *dims, int n);
/* [1, 2, 3] */
struct json_object *pj_int_list(PrintJson *J, const int32_t *v, uint32_t n);
/* Values from..to-1 of one container as an array of numbers. */
struct json_object *pj_vals(PrintJson *J, const PrintVals *v, uint32_t from, uint32_t to);
void pj_set(PrintJson *J, struct json_object *obj, const char *key, struct json_object *val);
void pj_set_null(PrintJson *J, struct json_object *obj, const char *key);
/* Adds the string, or null when s is NULL. */
void pj_set_str(PrintJson *J, struct json_object *obj, const char *key, const char *s);
void pj_push(PrintJson *J, struct json_object *arr, struct json_object *val);
Status pj_write(PrintJson *J, struct json_object *root, FILE *out, Diag *d);
/* Writes val (pretty, as pj_write) as a value nested `indent` spaces deep in a document the
 * caller frames by hand, and frees it; big arrays are streamed this way one element at a
 * time, so memory stays that of one block, not of the whole graph. */
void pj_emit(PrintJson *J, struct json_object *val, FILE *out, int indent);

/* Per-format printers behind print.h; the _block ones print b and the edges that touch it. */
Status print_text_graph(const Graph *g, FILE *out, Diag *d);
Status print_text_block(const Graph *g, const Block *b, FILE *out, Diag *d);
/* full: every value of every data tensor (else abridged, PRINT_DATA_FIRST of them). */
Status print_json_graph(const Graph *g, FILE *out, bool full, Diag *d);
Status print_json_block(const Graph *g, const Block *b, FILE *out, bool full, Diag *d);
Status print_dot_graph(const Graph *g, FILE *out, Diag *d);
Status print_dot_block(const Graph *g, const Block *b, FILE *out, Diag *d);
Status print_summary_text(const Graph *g, FILE *out, Diag *d);
Status print_summary_json(const Graph *g, FILE *out, Diag *d);

/* Does edge e touch block b (as source or destination, by id)? */
bool print_edge_touches(const Edge *e, const Block *b);

#endif
