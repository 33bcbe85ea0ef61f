/* test_cinn_example.c: the example CNN (examples/cinn_cnn.xml) as a user runs it:
 *   taskir-compile cinn_cnn.xml -o cnn.pb
 *   taskir-run cinn_cnn.xml --input x=cinn_cnn.input.npy -o A     (reference interpreter)
 *   taskir-run cnn.pb --input x=cinn_cnn.input.npy -o B           (simulator)
 * A and B must hold byte-identical files, equal to examples/cinn_cnn.expected and to a
 * forward pass written here in plain C from the program's own constants (convolutions, the
 * shifts as floor divisions, tanh in double with ties to even), independent of the frontend's
 * operator code.
 *
 * Arguments (tests/cinn/meson.build): taskir-compile, taskir-run, the program, its input
 * (written at build time by examples/gen_cinn_input.py), the expected outputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <math.h>
#include <unistd.h>

#include "frontend/cinn/cinn.h"
#include "taskir/fileio.h"
#include "taskir/npy.h"
#include "tooltest.h"

static const char *compile_tool, *run_tool, *prog, *input, *expected;

/* Runs argv (stdout to /dev/null); returns its exit status (128 for any signal), printing its
 * stderr, indented, when that is not 0. */
static int spawn(const char *const *argv)
{
    TtRun r;
    tt_run_argv(&r, &(TtOpts){.inherit_stdin = true, .out_file = "/dev/null"},
                (char *const *)argv);
    int rc = r.signal ? 128 : r.status;
    for (const char *l = r.err; rc != 0 && *l;) {
        size_t n = strcspn(l, "\n");
        fprintf(stderr, "  %.*s\n", (int)n, l);
        l += n + (l[n] == '\n');
    }
    tt_run_free(&r);
    return rc;
}

/* ---- the forward pass, in plain C ---- */

static const int32_t *constant(const CinnBuilder *b, const char *name, int64_t count)
{
    for (uint32_t i = 0; i < fe_cinn_num_calls(b); i++) {
        const CinnCall *c = fe_cinn_get_call(b, i);
        if (c->prim == CINN_P_Constant && strcmp(c->name, name) == 0) {
            assert_int_equal(c->value->count, count);
            return c->value->data;
        }
    }
    fail_msg("no constant '%s'", name);
    return NULL;
}

static int64_t fl_shr(int64_t x, int s)
{
    return (int64_t)floor(ldexp((double)x, -s));
}

static int64_t clampi(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* 3x3 convolution, padding 1, stride 1, NCHW, one sample. */
static void conv3(const int64_t *x, int C, int H, int W, const int32_t *w, int OC, int64_t *y)
{
    for (int o = 0; o < OC; o++)
        for (int p = 0; p < H; p++)
            for (int q = 0; q < W; q++) {
                int64_t acc = 0;
                for (int c = 0; c < C; c++)
                    for (int u = 0; u < 3; u++)
                        for (int v = 0; v < 3; v++) {
                            int r = p - 1 + u, s = q - 1 + v;
                            if (r >= 0 && r < H && s >= 0 && s < W)
                                acc += x[(c * H + r) * W + s] * w[((o * C + c) * 3 + u) * 3 + v];
                        }
                y[(o * H + p) * W + q] = acc;
            }
}

static void forward(const CinnBuilder *b, const int32_t *img, int64_t *logits, int64_t *pool)
{
    const int32_t *w1 = constant(b, "w1", 36), *b1 = constant(b, "b1", 4);
    const int32_t *w2 = constant(b, "w2", 288), *wf = constant(b, "wf", 80);
    int64_t x[144], c1[576], a1[576], c2[288], t2[288], g[8];
    for (int i = 0; i < 144; i++)
        x[i] = img[i];
    conv3(x, 1, 12, 12, w1, 4, c1);
    for (int i = 0; i < 576; i++)
        a1[i] = clampi(fl_shr(c1[i] + b1[i / 144], 6), 0, 127);
    for (int c = 0; c < 4; c++)
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                int64_t m = INT64_MIN;
                for (int u = 0; u < 2; u++)
                    for (int v = 0; v < 2; v++) {
                        int64_t e = a1[(c * 12 + 2 * i + u) * 12 + 2 * j + v];
                        m = e > m ? e : m;
                    }
                pool[(c * 6 + i) * 6 + j] = m;
            }
    conv3(pool, 4, 6, 6, w2, 8, c2);
    for (int i = 0; i < 288; i++) {
        int64_t v = clampi(fl_shr(c2[i], 7), -127, 127);
        double y = rint(ldexp(tanh(ldexp((double)v, -5)), 7));
        t2[i] = clampi((int64_t)y, -127, 127);
    }
    for (int o = 0; o < 8; o++) {
        g[o] = 0;
        for (int i = 0; i < 36; i++)
            g[o] += t2[o * 36 + i];
        g[o] = clampi(fl_shr(g[o], 5), -127, 127);
    }
    for (int j = 0; j < 10; j++) {
        logits[j] = 0;
        for (int k = 0; k < 8; k++)
            logits[j] += g[k] * wf[k * 10 + j];
    }
}

/* The values of output k in the expected file (after its "outputK ..." line). */
static void expected_values(const char *text, int k, int64_t *v, int64_t n)
{
    char tag[16];
    snprintf(tag, sizeof tag, "\noutput%d ", k);
    const char *s = strstr(text, tag);
    assert_non_null(s);
    s = strchr(s + 1, '\n');
    assert_non_null(s);
    for (int64_t i = 0; i < n; i++) {
        char *end;
        v[i] = strtoll(s, &end, 10);
        assert_true(end != s);
        s = end;
    }
}

static void test_example(void **state)
{
    (void)state;
    char pb[128], da[128], db[128], f[2][2][160];
    tt_path(pb, sizeof pb, "cnn.pb");
    tt_path(da, sizeof da, "interp");
    tt_path(db, sizeof db, "chip");
    char in_arg[1200];
    snprintf(in_arg, sizeof in_arg, "x=%s", input);
    const char *c1[] = {compile_tool, prog, "-o", pb, NULL};
    assert_int_equal(spawn(c1), 0);
    const char *r1[] = {run_tool, prog, "--input", in_arg, "-o", da, NULL};
    assert_int_equal(spawn(r1), 0);
    const char *r2[] = {run_tool, pb, "--input", in_arg, "-o", db, NULL};
    assert_int_equal(spawn(r2), 0);
    /* the two directories: byte-identical */
    for (int k = 0; k < 2; k++) {
        snprintf(f[k][0], sizeof f[k][0], "%s/output%d.npy", da, k);
        snprintf(f[k][1], sizeof f[k][1], "%s/output%d.npy", db, k);
        size_t na, nb;
        char *a = tt_slurp_or_fail(f[k][0], &na), *b = tt_slurp_or_fail(f[k][1], &nb);
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, na);
        free(a);
        free(b);
    }
    /* the plain-C forward pass on the same input and constants */
    Diag d;
    diag_init(&d, NULL);
    CinnBuilder *b = NULL;
    assert_int_equal(fe_cinn_read_xml(prog, &d, &b), ST_OK);
    NpyArray img;
    assert_int_equal(npy_read(input, &img, &d), ST_OK);
    assert_int_equal(img.count, 144);
    int64_t logits[10], pool[144], want0[10], want1[144];
    forward(b, img.i32, logits, pool);
    size_t tl;
    char *t0 = tt_slurp_or_fail(expected, &tl);
    expected_values(t0, 0, want0, 10);
    expected_values(t0, 1, want1, 144);
    free(t0);
    NpyArray o0, o1;
    assert_int_equal(npy_read(f[0][0], &o0, &d), ST_OK);
    assert_int_equal(npy_read(f[1][0], &o1, &d), ST_OK);
    assert_int_equal(o0.count, 10);
    assert_int_equal(o1.count, 144);
    for (int i = 0; i < 10; i++) {
        assert_int_equal(o0.i32[i], logits[i]);
        assert_int_equal(o0.i32[i], want0[i]);
    }
    for (int i = 0; i < 144; i++) {
        assert_int_equal(o1.i32[i], pool[i]);
        assert_int_equal(o1.i32[i], want1[i]);
    }
    npy_free(&o0);
    npy_free(&o1);
    npy_free(&img);
    fe_cinn_destroy(b);
    diag_finish(&d);
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: test_cinn_example TASKIR-COMPILE TASKIR-RUN PROG.xml "
                "INPUT.npy EXPECTED\n");
        return 2;
    }
    compile_tool = argv[1];
    run_tool = argv[2];
    prog = argv[3];
    input = argv[4];
    expected = argv[5];
    if (!tt_tmpdir_make("cinn_example_"))
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tt_tmpdir_remove();
    return rc;
}
