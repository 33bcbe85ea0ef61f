/* fuzz_one.h: one input through one reader, the way a fuzz target drives it. Shared by the
 * libFuzzer targets (fuzz_target.c, -Dfuzz=true) and by the regression test
 * tests/robust/test_regress.c, which replays every crasher found so far without libFuzzer.
 *
 * Each function runs the reader on the bytes and then checks what the reader promises:
 *  - a rejection is a clean one: a logic error with at least one diagnostic carrying a rule
 *    id, the Diag's worst status equal to the returned one;
 *  - reading from memory never gives a runtime error (no I/O is involved, and the caps keep
 *    every allocation within a small multiple of the input size);
 *  - what was accepted survives its consumers (verifier, printers) and round-trips through the
 *    writer: write(read(write(read(x)))) == write(read(x)).
 * A broken promise is reported as FZ_BROKEN with a one-line reason; the fuzz target aborts on
 * it so that libFuzzer records the input. */
#ifndef FUZZ_FUZZ_ONE_H
#define FUZZ_FUZZ_ONE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
    FZ_ACCEPTED,    /* the reader accepted the input and every check held */
    FZ_REJECTED,    /* the reader rejected it cleanly (logic error with a rule id) */
    FZ_BROKEN       /* a promise was broken: why[] says which */
} FzResult;

typedef struct FzCtx {
    FILE *sink;         /* where printers write (e.g. /dev/null); NULL: skip the printers */
    char why[256];      /* set when FZ_BROKEN */
} FzCtx;

/* A TaskGraph .pb image: graph_load_pb_mem, verify_graph, print_graph in text, JSON and DOT,
 * print_summary, print_block of the first block, and the graph_pack round trip. */
FzResult fz_taskgraph(FzCtx *c, const uint8_t *data, size_t len);
/* A Mapping .map.pb image: mapping_load_pb_mem, verify_mapping, print_mapping in text, JSON and
 * DOT (whole, and with --block of the first block), print_map_summary in text and JSON, and
 * the mapping_pack round trip. */
FzResult fz_mapping(FzCtx *c, const uint8_t *data, size_t len);
/* An .npy image: npy_read_mem; when it gives integers, npy_encode_i32 and read back must give
 * the same shape and values. */
FzResult fz_npy(FzCtx *c, const uint8_t *data, size_t len);
/* A CVM model: the bytes before the first NUL are the graph JSON, the bytes after it (when
 * there is a NUL) the params image. fe_cvm_load_mem, plus the params parse / encode / parse
 * round trip, plus the loaded graph's invariants (precisions 1..32, shapes within limits). */
FzResult fz_cvm(FzCtx *c, const uint8_t *data, size_t len);
/* ONNX: the bytes as a ModelProto (fe_onnx_load_mem, and the loaded graph's invariants) and
 * as a TensorProto (fe_onnx_tensor_read_mem: count = product of the dims, one value array). */
FzResult fz_onnx(FzCtx *c, const uint8_t *data, size_t len);
/* A CINN XML program: fe_cinn_read_xml_mem, then the XML round trip
 * encode(read(encode(read(x)))) == encode(read(x)). */
FzResult fz_cinn_xml(FzCtx *c, const uint8_t *data, size_t len);
/* A chip description (docs/chip.md): chip_load_mem; an accepted one runs every compute block
 * type on a primitive (chip.prim.cover), prints (print_chip, text and JSON), and costs a
 * block of every compute type and the storage blocks of a conv without a negative figure
 * other than the documented -1. */
FzResult fz_chip(FzCtx *c, const uint8_t *data, size_t len);
/* A CVM model in fz_cvm's framing through the whole compiler (fuzz_compile.c): load, lower
 * (which verifies), and, for models small enough, the interpreter and the simulator on the
 * same pseudo-random inputs must give the same values. */
FzResult fz_compile(FzCtx *c, const uint8_t *data, size_t len);
/* The same for an ONNX model (fe_onnx_load_mem, then its OpGraph). */
FzResult fz_compile_onnx(FzCtx *c, const uint8_t *data, size_t len);

#endif
