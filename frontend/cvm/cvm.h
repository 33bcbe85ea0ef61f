/* cvm.h: the CVM frontend: cvm-runtime models (graph JSON + binary params) read into an
 * OpGraph of dialect "cvm", the operator table (cvm_ops.def), a programmatic builder, and a
 * writer for the params format.
 *
 * Model format (cvm-runtime):
 *  - graph JSON (strict JSON, UTF-8, string escapes \" \\ \n \r \t only): "nodes" (each
 *    {"op": "null" | "cvm_op", "name", "inputs": [[node, index, version], ...], "attrs":
 *    {"func_name", "num_inputs", "num_outputs", "flatten_data", "op_attrs"} (strings),
 *    "precision"}), "arg_nodes", "heads", "node_row_ptr", "version" ("cvm_1.0.0", the
 *    default, or "cvm_1.1.0"), "postprocess" and graph "attrs" {"shape": ["list_shape",
 *    [...]], "precision": ["list_int", [...]], "dltype": ["list_str", [...]] ("int32" each in
 *    cvm_1.0.0), "storage_id": ["list_int", [...]], "op_attrs": ["list_str", [one JSON object
 *    string per node]], "device_index": ["list_int", []], "dtype"}, indexed by entry
 *    (node_row_ptr[node] + output index). No other member: the reader is at least as strict as
 *    cvm-runtime's loader (docs/cvm-rules.md lists its checks).
 *    Operator attributes are strings: ints "3", tuples "(1, 1)" / "[1,1]" / "3", booleans
 *    "true" / "True" / "1" (and "false" / "False" / "0"), optional values "None".
 *    The null node named "data" is the model input; every other null node is a parameter.
 *    taskir extension: null nodes whose op_attrs entry is {"taskir_input": "1"} (at most 64
 *    bytes) are the model's inputs instead (1..CVM_MAX_MODEL_INPUTS of them, in node order;
 *    "data" is then an input only when marked). cvm-runtime never reads a null node's op_attrs entry, so such
 *    a file still loads there (where every null node is a variable). fe_cvm_save marks the
 *    inputs of a graph whose inputs are not exactly one named "data", e.g. the host remainder
 *    of taskir-compile --allow-host (compile.h); cvm-runtime models do not have marks.
 *  - params, little-endian: u64 magic 0xF7E58D4F05049CB7, u64 reserved, u64 count, count names
 *    (u64 length + bytes), u64 count, count arrays, each: u64 magic 0xDD5E40F096B4A13F, u64
 *    reserved, i32 device type, i32 device id, i32 ndim, u8 type code (0 = int), u8 bits (8 or
 *    32), u16 lanes (1), i64 shape[ndim], i64 nbytes, nbytes of data; device type 1 (CPU);
 *    every name a parameter (a null node that is no input) of the graph.
 *
 * Every violation is a logic error [cvm.*] naming the node ("node 12 'conv1' (conv2d)");
 * docs/cvm-rules.md lists the rule ids. No input makes the reader crash or allocate without
 * bound: counts and sizes are checked against the limits below before allocation.
 */
#ifndef FRONTEND_CVM_H
#define FRONTEND_CVM_H

#include "frontend/opgraph/opgraph.h"
#include "taskir/diag.h"

#include <stddef.h>
#include <stdint.h>

typedef enum {
#define X(name, min_in, max_in, nout, parse, shape, prec, run, flags) CVM_OP_##name,
#include "frontend/cvm/cvm_ops.def"
#undef X
    CVM_OP_COUNT
} CvmOp;

#define CVM_MAX_ATTR 4096                      /* max_attr, exclusive (docs/cvm-rules.md) */
#define CVM_MAX_JSON_BYTES ((size_t)64 << 20)  /* largest graph JSON read */
#define CVM_MAX_JSON_DEPTH 32                  /* JSON nesting limit */
#define CVM_MAX_JSON_CONTAINERS (1u << 20)     /* most arrays + objects in a JSON text (json-c
                                                  spends ~300 bytes on each) */
#define CVM_MAX_NODES (1u << 16)               /* most nodes in a graph */
#define CVM_MAX_INPUTS 4096                    /* most inputs of one node */
#define CVM_MAX_ATTR_LIST 32                   /* most elements of a tuple attribute */
#define CVM_MAX_NODE_ATTRS 64                  /* most attributes of one node (op_attrs and the
                                                  node's own, together) */
#define CVM_MAX_PARAMS CVM_MAX_NODES           /* most arrays in a params file */
#define CVM_MAX_MODEL_INPUTS 256               /* most null nodes marked inputs */
#define CVM_INPUT_MARK_KEY "taskir_input"      /* the op_attrs key marking an input (above) */

/* An operator attribute before parsing: key and string value, as in the JSON. */
typedef struct CvmKV {
    const char *key;
    const char *value;
} CvmKV;

/* The operator's name ("conv2d"); NULL for an invalid op. */
const char *cvm_op_name(CvmOp op);
/* Finds an operator by name; false when cvm-runtime has no such operator. */
bool cvm_op_from_name(const char *name, CvmOp *out);
/* Input count bounds (max -1: any) and output count of an operator. */
int cvm_op_min_inputs(CvmOp op);
int cvm_op_max_inputs(CvmOp op);
int cvm_op_num_outputs(CvmOp op);

/* Loads a model: graph JSON at json_path and params at params_path (NULL: a model without
 * parameters). On success *out is a new graph (og_destroy it). Logic errors [cvm.*] for a
 * malformed or invalid model, runtime errors for I/O and out of memory. The caller's Diag
 * names the JSON file; params findings name the params file in their `where`. */
Status fe_cvm_load(const char *json_path, const char *params_path, OpGraph **out, Diag *d);
/* The same from memory. params may be NULL (len 0); params_name is used in messages. */
Status fe_cvm_load_mem(const char *json, size_t json_len, const uint8_t *params,
                       size_t params_len, const char *params_name, OpGraph **out, Diag *d);

/* ---- builder (used by the reader, by tests and by example generators) ---- */

/* Adds the model input `name` with its shape and precision (1..32). Logic errors for a
 * shape over the limits [cvm.limit.*] or a bad precision [cvm.precision.range]. */
Status fe_cvm_add_input(OpGraph *g, const char *name, const OgShape *shape, int32_t prec,
                        OgNode **out, Diag *d);
/* Adds a parameter: the values are copied into the graph. prec 0: the smallest precision
 * that holds every value; otherwise every value must lie within prec [cvm.params.range]. */
Status fe_cvm_add_const(OpGraph *g, const char *name, const OgTensor *value, int32_t prec,
                        OgNode **out, Diag *d);
/* Adds an operator node: parses its string attributes (defaults filled in, ranges checked),
 * checks its inputs, infers its output shapes and precisions. On a logic error nothing is
 * left half-made for the caller to use: *out is set only on success. */
Status fe_cvm_add_op(OpGraph *g, CvmOp op, const char *name, const OgEdge *inputs,
                     uint32_t ninputs, const CvmKV *attrs, size_t nattrs, OgNode **out,
                     Diag *d);

/* ---- params ---- */

/* One named parameter array. data holds count values (int8 arrays are widened). */
typedef struct CvmParam {
    const char *name;
    OgTensor t;
    uint8_t bits;          /* 8 or 32: the element width in the file */
} CvmParam;

typedef struct CvmParams {
    CvmParam *p;
    size_t n;
} CvmParams;

/* Parses a params image. what names the file in messages. On success *out owns malloc'd
 * memory: fe_cvm_params_free it. Logic errors [cvm.params.*] for a malformed image. */
Status fe_cvm_params_parse(const uint8_t *buf, size_t len, const char *what, CvmParams *out,
                           Diag *d);
void fe_cvm_params_free(CvmParams *p); /* accepts NULL; leaves it empty */
/* Encodes params (each with bits 8 or 32; values must fit) into a malloc'd image. */
Status fe_cvm_params_encode(const CvmParam *p, size_t n, uint8_t **buf, size_t *len, Diag *d);
/* Encodes and writes atomically. */
Status fe_cvm_params_write(const char *path, const CvmParam *p, size_t n, Diag *d);

/* ---- attribute value syntax (exposed for tests) ---- */

/* An int: optional sign, decimal digits, optional 'L', spaces around. */
bool cvm_parse_int_text(const char *s, int64_t *out);
/* A tuple "(1, 2)", "[1,2]", "()", "(1,)" or a single int "3". At most max values. */
bool cvm_parse_tuple_text(const char *s, int64_t *v, uint32_t max, uint32_t *count);
/* "true" / "True" / "1" or "false" / "False" / "0". */
bool cvm_parse_bool_text(const char *s, bool *out);

#endif
