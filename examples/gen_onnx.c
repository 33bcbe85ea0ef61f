/* gen_onnx: writes the example ONNX models (ModelProto, packed with protobuf-c through
 * frontend/onnx_build.h) and an input for each, deterministically from a fixed-seed PRNG, so
 * that no binary model lives in git. examples/README.md describes them.
 *
 *   gen_onnx -o DIR
 *
 * writes, for MODEL in qnet and shiftnet, DIR/MODEL.onnx and DIR/MODEL.input.npy:
 *   qnet      a fully quantized network in onnxruntime's QOperator form: float input
 *             x (1, 3, 8, 8) -> QuantizeLinear (uint8) -> QLinearConv 3x3 pad 1 with int8
 *             per-channel weights and an int32 bias -> MaxPool 2x2 -> Flatten ->
 *             QLinearMatMul (64 -> 10) -> DequantizeLinear -> y (1, 10). The input file
 *             holds the quantized uint8 input (taskir-run takes it for the model and for
 *             the compiled TaskGraph alike).
 *   shiftnet  the quantization pattern of the existing open toolchain in a float model:
 *             x (1, 1, 8, 8) holding integers -> Conv 3x3 with integral weights and bias ->
 *             Div 16 -> Floor -> Clip [-127, 127] -> Relu -> MaxPool 2x2 -> y. The input
 *             file holds int32 values within precision 8.
 * Exit status 0, 1 usage, 3 I/O or out of memory.
 */
#include "frontend/onnx.h"
#include "frontend/onnx_build.h"
#include "taskir/fileio.h"
#include "taskir/npy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "gen_onnx"

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int64_t rng_range(uint64_t *s, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rng_next(s) % (uint64_t)(hi - lo + 1));
}

#define DIMS(...) ((const int64_t[]){__VA_ARGS__}), \
    (sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})

static OnnxBuilder *qnet(uint64_t *s, int32_t **input, int64_t *n, int64_t *shape)
{
    OnnxBuilder *b = fe_onnx_builder_create(13);
    if (!b)
        return NULL;
    fe_onnx_builder_input(b, "x", ONNX_T_FLOAT, DIMS(1, 3, 8, 8));
    fe_onnx_builder_output(b, "y", ONNX_T_FLOAT, DIMS(1, 10));
    float xs = 0.02f, ws[4] = {0.004f, 0.0035f, 0.005f, 0.0042f}, ys = 0.05f;
    float bs = 0.003f, os = 0.1f;
    fe_onnx_builder_init(b, "x_scale", ONNX_T_FLOAT, NULL, 0, NULL, &xs);
    fe_onnx_builder_init(b, "x_zp", ONNX_T_UINT8, NULL, 0, (const int64_t[]){128}, NULL);
    int64_t w[4 * 3 * 3 * 3], bias[4], bm[64 * 10];
    for (size_t i = 0; i < sizeof w / sizeof *w; i++)
        w[i] = rng_range(s, -127, 127);
    for (int i = 0; i < 4; i++)
        bias[i] = rng_range(s, -2000, 2000);
    for (size_t i = 0; i < sizeof bm / sizeof *bm; i++)
        bm[i] = rng_range(s, 0, 255);
    fe_onnx_builder_init(b, "w", ONNX_T_INT8, DIMS(4, 3, 3, 3), w, NULL);
    fe_onnx_builder_init(b, "w_scale", ONNX_T_FLOAT, DIMS(4), NULL, ws);
    fe_onnx_builder_init(b, "w_zp", ONNX_T_INT8, DIMS(4), (const int64_t[]){0, 0, 0, 0}, NULL);
    fe_onnx_builder_init(b, "bias", ONNX_T_INT32, DIMS(4), bias, NULL);
    fe_onnx_builder_init(b, "y_scale", ONNX_T_FLOAT, NULL, 0, NULL, &ys);
    fe_onnx_builder_init(b, "y_zp", ONNX_T_UINT8, NULL, 0, (const int64_t[]){100}, NULL);
    fe_onnx_builder_init(b, "b", ONNX_T_UINT8, DIMS(64, 10), bm, NULL);
    fe_onnx_builder_init(b, "b_scale", ONNX_T_FLOAT, NULL, 0, NULL, &bs);
    fe_onnx_builder_init(b, "b_zp", ONNX_T_UINT8, NULL, 0, (const int64_t[]){128}, NULL);
    fe_onnx_builder_init(b, "o_scale", ONNX_T_FLOAT, NULL, 0, NULL, &os);
    fe_onnx_builder_init(b, "o_zp", ONNX_T_UINT8, NULL, 0, (const int64_t[]){128}, NULL);
    fe_onnx_builder_node(b, "QuantizeLinear", "quant", NAMES("x", "x_scale", "x_zp"),
                         NAMES("xq"), NULL, 0);
    OnnxBuildAttr conv[] = {
        {"kernel_shape", OBA_INTS, 0, (const int64_t[]){3, 3}, 2, 0, NULL},
        {"pads", OBA_INTS, 0, (const int64_t[]){1, 1, 1, 1}, 4, 0, NULL},
    };
    fe_onnx_builder_node(b, "QLinearConv", "conv1",
                         NAMES("xq", "x_scale", "x_zp", "w", "w_scale", "w_zp", "y_scale",
                               "y_zp", "bias"), NAMES("c1"), conv, 2);
    OnnxBuildAttr pool[] = {
        {"kernel_shape", OBA_INTS, 0, (const int64_t[]){2, 2}, 2, 0, NULL},
        {"strides", OBA_INTS, 0, (const int64_t[]){2, 2}, 2, 0, NULL},
    };
    fe_onnx_builder_node(b, "MaxPool", "pool1", NAMES("c1"), NAMES("p1"), pool, 2);
    fe_onnx_builder_node(b, "Flatten", "flat", NAMES("p1"), NAMES("f1"), NULL, 0);
    fe_onnx_builder_node(b, "QLinearMatMul", "fc",
                         NAMES("f1", "y_scale", "y_zp", "b", "b_scale", "b_zp", "o_scale",
                               "o_zp"), NAMES("yq"), NULL, 0);
    fe_onnx_builder_node(b, "DequantizeLinear", "dequant", NAMES("yq", "o_scale", "o_zp"),
                         NAMES("y"), NULL, 0);
    *n = 3 * 8 * 8;
    *input = malloc((size_t)*n * sizeof **input);
    if (*input)
        for (int64_t i = 0; i < *n; i++)
            (*input)[i] = (int32_t)rng_range(s, 0, 255);
    int64_t sh[4] = {1, 3, 8, 8};
    memcpy(shape, sh, sizeof sh);
    return b;
}

static OnnxBuilder *shiftnet(uint64_t *s, int32_t **input, int64_t *n, int64_t *shape)
{
    OnnxBuilder *b = fe_onnx_builder_create(13);
    if (!b)
        return NULL;
    fe_onnx_builder_input(b, "x", ONNX_T_FLOAT, DIMS(1, 1, 8, 8));
    fe_onnx_builder_output(b, "y", ONNX_T_FLOAT, DIMS(1, 2, 4, 4));
    float w[2 * 1 * 3 * 3], bias[2], sixteen = 16.0f, lo = -127.0f, hi = 127.0f;
    for (size_t i = 0; i < sizeof w / sizeof *w; i++)
        w[i] = (float)rng_range(s, -127, 127);
    for (int i = 0; i < 2; i++)
        bias[i] = (float)rng_range(s, -500, 500);
    fe_onnx_builder_init(b, "w", ONNX_T_FLOAT, DIMS(2, 1, 3, 3), NULL, w);
    fe_onnx_builder_init(b, "bias", ONNX_T_FLOAT, DIMS(2), NULL, bias);
    fe_onnx_builder_init(b, "sixteen", ONNX_T_FLOAT, NULL, 0, NULL, &sixteen);
    fe_onnx_builder_init(b, "lo", ONNX_T_FLOAT, NULL, 0, NULL, &lo);
    fe_onnx_builder_init(b, "hi", ONNX_T_FLOAT, NULL, 0, NULL, &hi);
    OnnxBuildAttr conv[] = {
        {"kernel_shape", OBA_INTS, 0, (const int64_t[]){3, 3}, 2, 0, NULL},
        {"pads", OBA_INTS, 0, (const int64_t[]){1, 1, 1, 1}, 4, 0, NULL},
    };
    fe_onnx_builder_node(b, "Conv", "conv1", NAMES("x", "w", "bias"), NAMES("c1"), conv, 2);
    fe_onnx_builder_node(b, "Div", "div1", NAMES("c1", "sixteen"), NAMES("d1"), NULL, 0);
    fe_onnx_builder_node(b, "Floor", "floor1", NAMES("d1"), NAMES("f1"), NULL, 0);
    fe_onnx_builder_node(b, "Clip", "clip1", NAMES("f1", "lo", "hi"), NAMES("k1"), NULL, 0);
    fe_onnx_builder_node(b, "Relu", "relu1", NAMES("k1"), NAMES("r1"), NULL, 0);
    OnnxBuildAttr pool[] = {
        {"kernel_shape", OBA_INTS, 0, (const int64_t[]){2, 2}, 2, 0, NULL},
        {"strides", OBA_INTS, 0, (const int64_t[]){2, 2}, 2, 0, NULL},
    };
    fe_onnx_builder_node(b, "MaxPool", "pool1", NAMES("r1"), NAMES("y"), pool, 2);
    *n = 64;
    *input = malloc((size_t)*n * sizeof **input);
    if (*input)
        for (int64_t i = 0; i < *n; i++)
            (*input)[i] = (int32_t)rng_range(s, -127, 127);
    int64_t sh[4] = {1, 1, 8, 8};
    memcpy(shape, sh, sizeof sh);
    return b;
}

/* An int8 model: x (1, 4, 5, 5) int8 -> Relu -> y, an int8 output of the ONNX shape
 * (1, 4, 5, 5), which taskir-run writes as onnxruntime does: int8, leading 1 included. */
static OnnxBuilder *relu8(uint64_t *s, int32_t **input, int64_t *n, int64_t *shape)
{
    OnnxBuilder *b = fe_onnx_builder_create(13);
    if (!b)
        return NULL;
    fe_onnx_builder_input(b, "x", ONNX_T_INT8, DIMS(1, 4, 5, 5));
    fe_onnx_builder_output(b, "y", ONNX_T_INT8, DIMS(1, 4, 5, 5));
    fe_onnx_builder_node(b, "Relu", "relu", NAMES("x"), NAMES("y"), NULL, 0);
    *n = 4 * 5 * 5;
    *input = malloc((size_t)*n * sizeof **input);
    if (*input)
        for (int64_t i = 0; i < *n; i++)
            (*input)[i] = (int32_t)rng_range(s, -127, 127);
    int64_t sh[4] = {1, 4, 5, 5};
    memcpy(shape, sh, sizeof sh);
    return b;
}

typedef OnnxBuilder *(*GenFn)(uint64_t *s, int32_t **input, int64_t *n, int64_t *shape);

int main(int argc, char **argv)
{
    if (argc != 3 || strcmp(argv[1], "-o") != 0) {
        fprintf(stderr, "usage: %s -o DIR\n", TOOL);
        return 1;
    }
    static const struct {
        const char *name;
        GenFn fn;
    } models[] = {{"qnet", qnet}, {"shiftnet", shiftnet}, {"relu8", relu8}};
    for (size_t k = 0; k < sizeof models / sizeof *models; k++) {
        Diag d;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.onnx", argv[2], models[k].name);
        diag_init(&d, path);
        uint64_t seed = 0x0dd5eed + k;
        int32_t *input = NULL;
        int64_t n = 0, shape[4];
        OnnxBuilder *b = models[k].fn(&seed, &input, &n, shape);
        uint8_t *buf = NULL;
        size_t len = 0;
        Status st = b && input ? fe_onnx_builder_pack(b, &buf, &len, &d)
                               : diag_add(&d, ST_RUNTIME, "oom", NULL, "out of memory");
        /* the model must read back: a failure here is a bug of this generator */
        OnnxModel *m = NULL;
        if (st == ST_OK && (st = fe_onnx_load_mem(buf, len, NULL, &m, &d)) == ST_OK)
            fe_onnx_destroy(m);
        if (st == ST_OK)
            st = tir_write_file_atomic(path, buf, len, &d);
        if (st == ST_OK) {
            snprintf(path, sizeof path, "%s/%s.input.npy", argv[2], models[k].name);
            st = npy_write_i32(path, input, shape, 4, &d);
        }
        diag_print(&d, stderr, TOOL);
        diag_finish(&d);
        free(buf);
        free(input);
        fe_onnx_builder_destroy(b);
        if (st != ST_OK)
            return st == ST_LOGIC ? 2 : 3;
    }
    return 0;
}
