/* onnx_testutil.h: what the ONNX frontend's CMocka tests share: packing a built model,
 * loading it (or expecting a rule), and running it through both paths (the reference
 * interpreter, and the lowering + simulator) with the two compared bit for bit. */
#ifndef TESTS_ONNX_TESTUTIL_H
#define TESTS_ONNX_TESTUTIL_H

#include "frontend/onnx/onnx.h"
#include "frontend/onnx/onnx_build.h"

#include <stddef.h>
#include <stdint.h>

#define DIMS(...) ((const int64_t[]){__VA_ARGS__}), \
    (sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* The model's bytes (malloc'd); destroys b. */
uint8_t *otu_pack(OnnxBuilder *b, size_t *len);
/* Loads the bytes (opt may be NULL); fails the test unless it loads. */
OnnxModel *otu_load(const uint8_t *buf, size_t len, const OnnxOptions *opt);
/* Loading must fail as a logic error with rule; the first entry of the rule must contain
 * text (when not NULL). */
void otu_refused(const uint8_t *buf, size_t len, const OnnxOptions *opt, const char *rule,
                 const char *text);
/* Interprets, lowers and simulates m on chip-side inputs in[]; fills out[] with the
 * interpreter's outputs (og_tensor_free each) after checking the simulator gives the same. */
void otu_run_both(OnnxModel *m, OgTensor *in, OgTensor *out);

#endif
