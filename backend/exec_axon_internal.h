/* exec_axon_internal.h: what the Axon primitives of the executor share (exec_axon.c): the
 * checked reading of a primitive's parameters, shape dims and memory areas, the decoding of
 * an operand area into one int32 per element, the bias, and the writing of the int32 output
 * area. Each primitive family (exec_axon_conv.c: P41, P81; exec_axon_vec.c: P02, P03, P43,
 * P83; exec_axon_mv.c: P04) reads its parameters through these, computes into a buffer and
 * writes it with axon_store: a primitive reads all its operands before it writes, so an
 * output area may overlap an operand area. The layouts are those of docs/backend.md ("The
 * executor: Axon primitives"). Only the backend includes this header.
 */
#ifndef TASKIR_BACKEND_EXEC_AXON_INTERNAL_H
#define TASKIR_BACKEND_EXEC_AXON_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/exec.h"

/* Largest shape dim a primitive accepts (the TaskGraph's own bound, docs/rules.md
 * shape.range), and largest kernel, stride, dilation and padding. */
#define AXON_DIM_MAX (1 << 24)
#define AXON_WIN_MAX 255

/* The primitive being run: where its findings go, the rule they carry, and the scratch
 * buffers it decodes its operands into (exec_axon frees them after the run). */
typedef struct AxonCtx {
    CoreMem *m;
    const Taskir__Asm__AxonPrim *a;
    Diag *d;
    char rule[16];   /* "prog.prim.p41" */
    char name[8];    /* "P41" */
    int32_t *bufs[6];
    int n_bufs;
} AxonCtx;

/* A memory area the primitive reads or writes: words [base, base + words). */
typedef struct AxonArea {
    int64_t base, words;
} AxonArea;

/* Records a logic error of the primitive (rule c->rule, the message prefixed with c->name);
 * returns ST_LOGIC. */
Status axon_fail(const AxonCtx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The primitive's shape (absent: every dim absent). */
const Taskir__Shape *axon_shape(const AxonCtx *c);

/* A shape dim of the primitive (0 or absent: absent). Required dims must be 1..AXON_DIM_MAX;
 * an absent optional dim reads as 1. */
Status axon_dim(const AxonCtx *c, const char *field, int32_t v, bool required, int64_t *out);

/* A kernel / stride / dilation parameter: absent or 0 reads as 1, else 1..AXON_WIN_MAX. */
Status axon_step(const AxonCtx *c, const char *field, int32_t v, int64_t *out);

/* The four pads (top, down, left, right), each 0..AXON_WIN_MAX. */
Status axon_pads(const AxonCtx *c, const int32_t pads[4], int64_t out[4]);

/* The hardware code of precision field `field` (IR value ir); allowed is a mask of
 * 1 << AsmHwPrec codes the operand may take. */
Status axon_prec(const AxonCtx *c, const char *field, int ir, unsigned allowed, int *hw);
#define AXON_P8 ((1u << ASM_HW_INT8) | (1u << ASM_HW_UINT8))
#define AXON_P8T (AXON_P8 | (1u << ASM_HW_TERNARY))
#define AXON_PALL (AXON_P8T | (1u << ASM_HW_INT32))

/* The output extent of a window along one axis: (in + pad_lo + pad_hi - ((k-1)*dil + 1)) /
 * stride + 1; an error naming the axis when the window does not fit the padded input, or when
 * the shape gives the output extent (field out_field, value given, 0 = absent) and it differs. */
Status axon_window(const AxonCtx *c, char axis, int64_t in, int64_t k, int64_t stride,
                   int64_t dil, int64_t pad_lo, int64_t pad_hi, int32_t given, int64_t *out);

/* The input extent of an elementwise primitive along one axis (niy / nix; when absent, ny /
 * nx; when both absent, 1) and its output extent (in - 1) / stride + 1, which the shape's ny /
 * nx must equal when given. */
Status axon_elem_extent(const AxonCtx *c, char axis, int32_t n_in, int32_t n_out,
                        int64_t stride, int64_t *in, int64_t *out);

/* x rounded up to a multiple of q (both > 0, x <= AXON_DIM_MAX). */
int64_t axon_round_up(int64_t x, int64_t q);
/* a * b for non-negative a, b, saturated at INT64_MAX / 4 (larger than any memory area:
 * an area that large fails the range check). */
int64_t axon_mul(int64_t a, int64_t b);

/* The words of an operand area: it must have a base address, lie inside the core, and its
 * given length (when given) must cover the words the layout takes. has_* / base / len are
 * the AxonPrim's fields. */
Status axon_area(const AxonCtx *c, const char *what, bool has_base, int32_t base,
                 bool has_len, int32_t len, int64_t words, AxonArea *out);

/* n elements of hardware precision p, in lane order from word base (int32: one a word; int8
 * and uint8: four a word, little-endian; ternary: sixteen a word, element i in bits
 * 2*(i%16)..2*(i%16)+1, the 2-bit two's complement), into v. The area was checked. */
void axon_load(const CoreMem *m, int64_t base, int p, int64_t n, int32_t *v);

/* Whether a sum that starts from one of the n0 values of b and adds `terms` products of
 * one of the nx values of x by one of the nw values of w can leave int32 at some step (nw 0:
 * the products are the x values themselves). When it cannot, saturating after every step
 * changes nothing and a primitive may add without the checks (the same result, faster). */
bool axon_may_saturate(const int32_t *b, int64_t n0, const int32_t *x, int64_t nx,
                       const int32_t *w, int64_t nw, int64_t terms);

/* A scratch buffer of n int32 (n <= the elements of a checked area) into *v, owned by c;
 * out of memory: a runtime error recorded. */
Status axon_alloc(AxonCtx *c, int64_t n, int32_t **v);
/* The same buffer, filled with the n elements of precision p of a checked area (axon_load). */
Status axon_read(AxonCtx *c, const AxonArea *area, int p, int64_t n, int32_t **v);

/* The bias of nf output channels (the padded count) into *out, a scratch buffer of nf:
 * bias_type VECTOR (or absent) reads nf int32 words from the bias area; CONSTANT gives
 * constant_b (0 for a primitive without one) to every channel. On error *out is NULL. */
Status axon_bias(AxonCtx *c, int bias_type, int32_t constant_b, int64_t nf, int32_t **out);

/* A bias_length / x2_length / nif style count parameter: 0 (or absent) or f..fp. */
Status axon_count(const AxonCtx *c, const char *field, int32_t v, int64_t f, int64_t fp);

/* Writes n int32 values to the output area (checked) from its base. */
void axon_store(CoreMem *m, const AxonArea *out, const int32_t *v, int64_t n);

/* The output area of a primitive that writes `words` int32 words (o_base_addr,
 * o_addr_length; checked like an operand area). */
Status axon_output(const AxonCtx *c, int64_t words, AxonArea *out);

/* The primitive families, dispatched on pic by exec_axon (exec_axon.c). Each returns ST_OK,
 * or ST_LOGIC / ST_RUNTIME with the finding recorded and memory untouched. */
Status exec_axon_p41(AxonCtx *c);
Status exec_axon_p81(AxonCtx *c);
Status exec_axon_p02(AxonCtx *c);
Status exec_axon_p03(AxonCtx *c);
Status exec_axon_p43(AxonCtx *c);
Status exec_axon_p83(AxonCtx *c);
Status exec_axon_p04(AxonCtx *c);

#endif
