/* fuzz_target.c: the libFuzzer entry point, compiled once per target with FZ_BODY naming the
 * body in fuzz_one.c (fz_taskgraph, fz_mapping, fz_npy, fz_cvm, fz_onnx or fz_cinn_xml). A broken promise aborts, so that
 * libFuzzer saves the input as a crash artifact; crashes, leaks and undefined behaviour are
 * found by the sanitizers the fuzz build enables. */
#include "fuzz_one.h"

#include <stdlib.h>

#ifndef FZ_BODY
#error "compile with -DFZ_BODY=fz_taskgraph (or fz_npy, fz_cvm)"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink; /* the printers' output: opened once per process */
    if (!sink && !(sink = fopen("/dev/null", "w")))
        abort();
    FzCtx c = {sink, {0}};
    if (FZ_BODY(&c, data, size) == FZ_BROKEN) {
        fprintf(stderr, "fuzz: broken promise: %s\n", c.why);
        abort();
    }
    return 0;
}
