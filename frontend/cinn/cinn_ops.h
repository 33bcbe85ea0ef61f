/* cinn_ops.h: the OpGraph operators of the CINN frontend (cinn_ops.def), an extension of
 * dialect "cvm": their codes, their table rows (in the CvmOpInfo format of cvm_ops.h, so the
 * CVM builder, interpreter and lowering treat them like CVM operators) and the functions the
 * rows name. Not installed.
 *
 * Codes: CINN_OP_BASE + row index, far above CVM_OP_COUNT, so a CVM code never collides.
 * The rows are in the one operator table of frontend/ops/op_table.c (dialect column
 * "cinn"), after the CVM ones; cvm_op_info() gives the row of either dialect's code.
 */
#ifndef FRONTEND_CINN_OPS_H
#define FRONTEND_CINN_OPS_H

#include "frontend/cvm/cvm_ops.h"

#include <stdbool.h>
#include <stdint.h>

#define CINN_OP_BASE 1000

typedef enum {
    CINN_OP_FIRST_ = CINN_OP_BASE - 1,
#define X(name, min_in, max_in, nout, parse, shape, prec, run, flags) CINN_OP_##name,
#include "frontend/cinn/cinn_ops.def"
#undef X
    CINN_OP_END
} CinnOp;

/* The row of a CINN operator code (CINN_OP_BASE <= op < CINN_OP_END), else NULL. */
const CvmOpInfo *cinn_op_info(int op);
/* The code of a CINN operator named name ("cinn_mod"); false when there is none. */
bool cinn_op_from_name(const char *name, int *out);

#define X(name, min_in, max_in, nout, parse, shape, prec, run, flags)                      \
    Status parse(CvmCtx *c, const CvmRawAttrs *raw);                                       \
    Status shape(CvmCtx *c, const OgShape *in, OgShape *out);                              \
    Status prec(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec);  \
    Status run(CvmCtx *c, const OgTensor *const *in, OgTensor *out);
#include "frontend/cinn/cinn_ops.def"
#undef X

/* ---- integer scalar functions (cinn_ops_int.c), also used by the builder's checks ---- */

/* The scalar function of a binary CINN operator (cinn_floor_div ... cinn_right_shift), or
 * NULL. Every function is total: a zero divisor gives 0, shift amounts outside [0, 31] give
 * 0 (left) or floor(x / 2^y) (right, y > 31) or 0 (right, y < 0), a negative exponent the
 * truncated 1 / x^-y (0 for x == 0). Results are exact in int64 for int32 operands, except
 * power and left shifts, which saturate at +-2^62 (beyond any int32 result). */
typedef int64_t (*CinnScalarFn)(int64_t x, int64_t y);
CinnScalarFn cinn_scalar_fn(int op);

/* Largest |x^y| for |x| <= ax and 0 <= y <= ay (1 when ax <= 1 or ay == 0); values beyond
 * 2^31 - 1 come back as 2^31 (too wide for any precision). */
int64_t cinn_power_bound(int64_t ax, int64_t ay);

/* cinn_round: mode "floor" | "ceil" | "trunc" | "round" (half away from zero) of a
 * fixed-point value with frac fraction bits, in the same format (a multiple of 2^frac). */
int64_t cinn_round_value(const char *mode, int64_t x, int frac);

/* ---- real functions (cinn_ops_real.c) ---- */

/* The real functions cinn_real computes, by the name its "func" attribute holds (the
 * primitive's name in lower case: "exp", "log10", "rsqrt", ...). */
bool cinn_real_known(const char *func);
/* The choices string for the attribute schema: "acos|acosh|...". */
const char *cinn_real_choices(void);

/* One fixed-point value of func: x holds x / 2^in_frac; the result is func of it times
 * 2^out_frac, rounded to nearest with ties to even, saturated to +-(2^(prec-1) - 1); NaN
 * (outside the function's domain) gives 0. Computed in long double. Returns false (with *out
 * 0) only when the long double value lies so close to a rounding tie that its rounding is in
 * doubt (docs/cinn.md; the tests meet none over every 8-bit input in five formats). */
bool cinn_real_value(const char *func, int64_t x, int in_frac, int out_frac, int prec,
                     int64_t *out);

#endif
