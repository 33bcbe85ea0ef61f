/* cvm_save.h: writing an OpGraph of dialect "cvm" back as a cvm-runtime model (graph JSON +
 * params file, the format of cvm.h), and comparing two OpGraphs. The example and benchmark
 * generators build models with the checked builder (fe_cvm_add_*), write them with
 * fe_cvm_save and read them back with fe_cvm_load; fe_og_same confirms the round trip.
 *
 * What is written: version "cvm_1.0.0"; one JSON node per OpGraph node, in node order (an
 * INPUT or CONST node is an "op": "null" node, an OP node a "cvm_op" node whose node attrs
 * hold func_name, num_inputs, num_outputs and flatten_data); arg_nodes, heads and
 * node_row_ptr; graph attrs shape, precision, dltype ("int32" for every entry, as
 * cvm-runtime requires of a cvm_1.0.0 model), storage_id (one per entry, all distinct) and
 * op_attrs, one JSON object string per node with every typed attribute in attribute syntax:
 * ints "3", tuples "(1, 1)" ("(3,)" for one value), booleans "true" / "false", None "None",
 * strings as they are ("{}" for a null node; {"taskir_input": "1"} for each input of a graph
 * whose inputs are not exactly one named "data": cvm.h). The params file holds every CONST
 * node under its name, 8-bit when its precision is at most 8, else 32-bit. cvm-runtime's
 * loader accepts what is written (docs/cvm-rules.md).
 * Output is deterministic: the same graph always gives the same bytes.
 */
#ifndef FRONTEND_CVM_SAVE_H
#define FRONTEND_CVM_SAVE_H

#include "frontend/opgraph.h"
#include "taskir/diag.h"

#include <stdbool.h>
#include <stddef.h>

/* Renders the graph JSON of g into a malloc'd NUL-terminated text (*len without the NUL).
 * A graph whose only input is named "data" is a plain cvm-runtime model; any other set of
 * inputs (1..CVM_MAX_MODEL_INPUTS of them) is marked in op_attrs (a taskir extension, cvm.h).
 * Logic errors: [cvm.input.missing] for no input or too many, [cvm.json.duplicate] for two
 * inputs or parameters of one name; runtime error [interp.dialect] for another dialect;
 * [oom]. */
Status fe_cvm_graph_json(const OpGraph *g, char **text, size_t *len, Diag *d);

/* Writes g as json_path + params_path, each atomically (params first; when the JSON cannot
 * be written the params file is removed again). Errors as fe_cvm_graph_json, plus runtime
 * errors [io.write]. */
Status fe_cvm_save(const OpGraph *g, const char *json_path, const char *params_path, Diag *d);

/* True when a and b describe the same model: dialect, nodes (kind, operator, name, inputs,
 * output shapes and precisions, attributes by name, parameter values) and outputs. When they
 * differ, why (if not NULL) receives the first difference, e.g. "node 3 'conv1': attribute
 * 'padding' differs". src_index (the node's number in a source file) is not compared. */
bool fe_og_same(const OpGraph *a, const OpGraph *b, char *why, size_t size);

#endif
