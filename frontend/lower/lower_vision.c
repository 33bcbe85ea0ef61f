/* lower_vision.c: get_valid_counts and non_max_suppression.
 *
 * Both select and reorder rows by their values (compaction by score, sorting, suppression by
 * overlap): where an element goes depends on the data, and TaskGraph edges move data along
 * fixed paths only. A node whose inputs are all constants was already evaluated at compile
 * time (lower.c); any other is a logic error naming the node [lower.host]: such a model
 * needs a host step. taskir-compile --allow-host makes one (compile.h): these operators
 * (flag CVM_OPF_HOST in cvm_ops.def) and everything after them go to a host remainder, so
 * this lowering never sees them on computed inputs there.
 */
#include "frontend/lower/lower_internal.h"

Status lw_op_get_valid_counts(Lw *L)
{
    return lw_fail(L, "lower.host", "get_valid_counts moves each row whose score exceeds the "
                   "threshold to the next free row: where a row goes depends on the data, and "
                   "TaskGraph edges move data along fixed paths, so it cannot run on the chip "
                   "(taskir-compile --allow-host leaves it and what follows to the host)");
}

Status lw_op_non_max_suppression(Lw *L)
{
    return lw_fail(L, "lower.host", "non_max_suppression sorts rows by score and drops those "
                   "overlapping a kept box: which rows survive and where they go depends on "
                   "the data, and TaskGraph edges move data along fixed paths, so it cannot "
                   "run on the chip (taskir-compile --allow-host leaves it and what follows to "
                   "the host)");
}
