/* compile.h: the main path from a read model to the .pb: fe_compile lowers it (as fe_lower
 * does, lower.h), fe_save writes the result. With `taskir-compile --allow-host`, a CVM model
 * with data-dependent operators (get_valid_counts, non_max_suppression: flag CVM_OPF_HOST in
 * cvm_ops.def) is split into a chip TaskGraph and a host remainder that `taskir-run` executes
 * with the reference interpreter after the simulator (run_host.h). docs/lowering.md section 7
 * is the full description.
 *
 * The split. A node is constant when it is a parameter or an operator whose inputs are all
 * constant (the lowering folds it). A host node is a non-constant operator that is
 * CVM_OPF_HOST or has a host node among its inputs: the data-dependent operators and
 * everything downstream of them, even operators the chip could compute. A head (model output)
 * is a host head when its node is a host node.
 *  - The chip graph: every node that is not a host node, lowered as fe_lower lowers a model.
 *    OUTPUT socket K holds head K for each head K that is not a host head; every other value
 *    the host part reads (a non-constant output of a non-host node that a needed host node
 *    takes as input, and that is no such head) gets socket T, T+1, ... (T = the number of
 *    heads), in the order the host nodes first read them (node order, then input order).
 *  - The host remainder: a CVM model (dialect "cvm", written with fe_cvm_save) with one input
 *    per chip socket it reads, named "output<S>" (the file name taskir-run gives chip socket
 *    S: output3.npy), of the value's full shape (batch included) and precision, in socket
 *    order; then the constant nodes the host nodes read (with their own constant inputs), and
 *    the host nodes the host heads need, in the model's order. Its heads are ALL the model's
 *    heads, in order: a host head as computed there, any other head K as its input
 *    "output<K>". So running the chip graph and then the host remainder on the chip's outputs
 *    gives every model output, the K-th as the remainder's K-th head. A parameter whose name
 *    an input takes is renamed "<name>.param" (then ".param2", ...), and so is a second
 *    parameter of one name: the names in the params file must be unique.
 * When no head is a host head (no host node, or only dead ones) there is no host remainder:
 * the chip graph is the whole model (dead host nodes dropped).
 *
 * Files: the remainder of a chip graph written to OUT.pb is OUT.host.json + OUT.host.params
 * (OUT.pb without its ".pb", if any, plus ".host.json" / ".host.params"); nothing in the .pb
 * points at them: taskir-run finds them by that name. Compiling to OUT.pb without a remainder
 * removes stale OUT.host.* files, so they never pair with a graph they were not made for.
 */
#ifndef FRONTEND_HOST_COMPILE_H
#define FRONTEND_HOST_COMPILE_H

#include "frontend/lower/lower.h"
#include "frontend/opgraph/opgraph.h"
#include "taskir/diag.h"
#include "taskir/graph.h"

/* Lowers og (dialect "cvm") as fe_lower does. Without opt->allow_host that is all and *host
 * is NULL. With it, the model is split as above: *chip is the chip graph (verified unless
 * opt->no_verify) and *host the host remainder (og_destroy it), or NULL when no head depends
 * on a host node. The remainder refers to nothing of og. Errors as fe_lower's, naming the
 * model's own nodes. */
Status fe_compile(const OpGraph *og, const LowerOptions *opt, Graph **chip, OpGraph **host,
                      Diag *d);

/* The host remainder's file names for a chip graph at pb_path: malloc'd (free them). */
Status fe_host_paths(const char *pb_path, char **json, char **params, Diag *d);

/* The chip socket S a remainder input named "output<S>" reads (S a decimal number without
 * leading zeros, at most INT32_MAX), or -1 for any other name. */
int32_t fe_host_input_socket(const char *name);

/* Loads the host remainder of the TaskGraph file pb_path: *host is NULL when there is none
 * (no OUT.host.json beside it; pb_path "-" has none), else the remainder (og_destroy it).
 * The params file must exist when the JSON does [io.read]; the remainder must be a valid CVM
 * model [cvm.*] whose inputs are named "output<S>" [host.input]. Messages name the host file
 * in their where. */
Status fe_host_load(const char *pb_path, OpGraph **host, Diag *d);

/* Writes the compiled model as a set, holding the termination signals meanwhile: chip to
 * pb_path (graph_save_pb), and host (when not NULL) to its two files, written first; when
 * host is NULL, stale remainder files are removed once the graph is written. When one write
 * fails, the files this call wrote are removed. pb_path "-" (standard output) takes no host
 * remainder [host.output] and removes nothing. Runtime errors [io.write] name the file. */
Status fe_save(const Graph *chip, const OpGraph *host, const char *pb_path, Diag *d);

#endif
