/* test_diff_random.c: random chains of data-movement operators (transpose, strided_slice,
 * repeat, tile, concatenate, expand_dims + squeeze, reshape, take with constant indices,
 * upsampling), sometimes with an elementwise operator between or after them, on random
 * small shapes with a batch of 1 or 2: the interpreter and the simulator on the lowered
 * graph agree bit for bit. This exercises the encoder (taskir/encode.c) on maps that no
 * hand-written case thought of. Fixed seed: every run tests the same cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "difftest.h"

#include <stdio.h>
#include <string.h>

static int64_t rnd(DtRng *r, int64_t lo, int64_t hi)
{
    return dt_range(r, lo, hi);
}

/* Appends "(a, b, ...)" of v[0..n) to buf. */
static void tuple(char *buf, size_t len, const int64_t *v, uint32_t n)
{
    size_t k = (size_t)snprintf(buf, len, "(");
    for (uint32_t i = 0; i < n && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, i ? ", %lld" : "%lld", (long long)v[i]);
    if (k < len)
        snprintf(buf + k, len - k, n == 1 ? ",)" : ")");
}

/* One random data-movement step on node x of shape s; returns the new node (s updated). */
static int32_t step(DtModel *m, DtRng *r, int32_t x, OgShape *s, int k)
{
    char name[32], a[128], b[128], c[128];
    snprintf(name, sizeof name, "op%d", k);
    uint32_t n = s->ndim;
    const OgShape *os;
    int32_t y = -1;
    for (int tries = 0; y < 0 && tries < 20; tries++) {
        int kind = (int)rnd(r, 0, 9);
        Status st = ST_OK;
        switch (kind) {
        case 0: { /* transpose, axis 0 fixed */
            int64_t p[OG_MAX_DIMS];
            for (uint32_t i = 0; i < n; i++)
                p[i] = i;
            for (uint32_t i = n - 1; i > 1; i--) {
                uint32_t j = 1 + (uint32_t)rnd(r, 0, i - 1);
                int64_t t = p[i];
                p[i] = p[j];
                p[j] = t;
            }
            tuple(a, sizeof a, p, n);
            y = dt_op_try(m, CVM_OP_transpose, name, DT_INS(x), DT_KV("axes", a), &st);
            break;
        }
        case 1: { /* strided_slice, positive or negative strides */
            int64_t bb[OG_MAX_DIMS], ee[OG_MAX_DIMS], ss[OG_MAX_DIMS];
            for (uint32_t i = 0; i < n; i++) {
                int64_t d = s->d[i];
                if (i == 0 || d == 1) {
                    bb[i] = 0, ee[i] = d, ss[i] = 1;
                } else if (rnd(r, 0, 2) == 0) {
                    ss[i] = -rnd(r, 1, 3);
                    bb[i] = rnd(r, 1, d - 1);
                    ee[i] = rnd(r, 0, 1) ? -d - 1 : rnd(r, 0, bb[i] - 1);
                } else {
                    ss[i] = rnd(r, 1, 3);
                    bb[i] = rnd(r, 0, d - 1);
                    ee[i] = rnd(r, bb[i] + 1, d);
                }
            }
            tuple(a, sizeof a, bb, n);
            tuple(b, sizeof b, ee, n);
            tuple(c, sizeof c, ss, n);
            y = dt_op_try(m, CVM_OP_strided_slice, name, DT_INS(x),
                          DT_KV("begin", a, "end", b, "stride", c), &st);
            break;
        }
        case 2: { /* repeat */
            snprintf(a, sizeof a, "%lld", (long long)rnd(r, 1, n - 1));
            snprintf(b, sizeof b, "%lld", (long long)rnd(r, 2, 3));
            y = dt_op_try(m, CVM_OP_repeat, name, DT_INS(x), DT_KV("axis", a, "repeats", b),
                          &st);
            break;
        }
        case 3: { /* tile, axis 0 kept */
            int64_t reps[OG_MAX_DIMS];
            reps[0] = 1;
            for (uint32_t i = 1; i < n; i++)
                reps[i] = rnd(r, 1, 2);
            tuple(a, sizeof a, reps, n);
            y = dt_op_try(m, CVM_OP_tile, name, DT_INS(x), DT_KV("reps", a), &st);
            break;
        }
        case 4: { /* concatenate with itself and with a parameter */
            int64_t ax = rnd(r, 1, n - 1);
            int64_t cs[OG_MAX_DIMS];
            memcpy(cs, s->d, sizeof cs);
            cs[ax] = rnd(r, 1, 3);
            if (m->in[0].shape.d[0] > 1)
                cs[0] = 1; /* parameters may not differ between samples: concatenate x */
            snprintf(a, sizeof a, "%lld", (long long)ax);
            if (cs[0] == s->d[0]) {
                char pn[32];
                snprintf(pn, sizeof pn, "p%d", k);
                int32_t pc = dt_const(m, pn, n, cs, 8, NULL);
                y = dt_op_try(m, CVM_OP_concatenate, name, DT_INS(x, pc, x),
                              DT_KV("axis", a), &st);
            } else {
                y = dt_op_try(m, CVM_OP_concatenate, name, DT_INS(x, x), DT_KV("axis", a), &st);
            }
            break;
        }
        case 5: { /* expand_dims then squeeze that axis */
            if (n >= OG_MAX_DIMS - 1)
                break;
            int64_t ax = rnd(r, 1, n);
            snprintf(a, sizeof a, "%lld", (long long)ax);
            int32_t e = dt_op_try(m, CVM_OP_expand_dims, name, DT_INS(x), DT_KV("axis", a), &st);
            if (e < 0)
                break;
            char n2[40];
            snprintf(n2, sizeof n2, "%s_sq", name);
            snprintf(b, sizeof b, "(%lld,)", (long long)ax);
            y = dt_op_try(m, CVM_OP_squeeze, n2, DT_INS(e), DT_KV("axis", b), &st);
            break;
        }
        case 6: /* reshape (d0, -1) */
            if (n < 3)
                break;
            y = dt_op_try(m, CVM_OP_reshape, name, DT_INS(x), DT_KV("shape", "(0, -1)"), &st);
            break;
        case 7: { /* take with constant indices along an axis */
            int64_t ax = rnd(r, 1, n - 1);
            int32_t iv[4];
            int64_t cnt = rnd(r, 1, 4);
            for (int64_t i = 0; i < cnt; i++)
                iv[i] = (int32_t)rnd(r, -1, s->d[ax]);
            char pn[32];
            snprintf(pn, sizeof pn, "idx%d", k);
            int32_t idx = dt_const(m, pn, DT_ND(cnt), 16, iv);
            snprintf(a, sizeof a, "%lld", (long long)ax);
            y = dt_op_try(m, CVM_OP_take, name, DT_INS(x, idx), DT_KV("axis", a), &st);
            break;
        }
        case 8: /* upsampling (4-D only) */
            if (n != 4)
                break;
            y = dt_op_try(m, CVM_OP_upsampling, name, DT_INS(x), DT_KV("scale", "2"), &st);
            break;
        default: /* an elementwise operator between movements */
            y = dt_op_try(m, rnd(r, 0, 1) ? CVM_OP_negative : CVM_OP_relu, name, DT_INS(x),
                          NULL, &st);
            break;
        }
        if (y >= 0) {
            os = &og_node(m->g, y)->out_shape[0];
            if (og_shape_volume(os) > 20000 || os->ndim > 5) {
                /* too large: drop the node again and try something else */
                m->g->nnodes = (uint32_t)y;
                y = -1;
            }
        }
        if (y < 0) { /* forget a refused attempt (an empty slice, ...) */
            diag_finish(&m->d);
            diag_init(&m->d, "model.json");
        }
    }
    if (y < 0)
        return x;
    *s = og_node(m->g, y)->out_shape[0];
    return y;
}

static void test_random_chains(void **state)
{
    (void)state;
    DtRng r = {20240601};
    int cases = dt_quick() ? 40 : 300;
    for (int c = 0; c < cases; c++) {
        DtModel m;
        dt_begin(&m, &r);
        OgShape s;
        s.ndim = (uint32_t)rnd(&r, 3, 5);
        s.d[0] = rnd(&r, 1, 2);
        for (uint32_t i = 1; i < s.ndim; i++)
            s.d[i] = rnd(&r, 1, 6);
        int32_t x = dt_input(&m, "data", s.ndim, s.d, 8);
        int steps = (int)rnd(&r, 1, 4);
        for (int k = 0; k < steps; k++)
            x = step(&m, &r, x, &s, k);
        if (og_node(m.g, x)->kind == OG_INPUT)
            x = dt_op(&m, CVM_OP_negative, "neg", DT_INS(x), NULL);
        char what[64];
        snprintf(what, sizeof what, "random chain %d", c);
        dt_output(&m, x, 0);
        dt_check(&m, what);
        dt_end(&m);
    }
}

/* Random broadcasting arithmetic: shapes whose dims are equal or 1 (or missing in front),
 * precisions within what each operator lowers exactly, computed or constant operands,
 * followed by a requantization. */
static void test_random_broadcast(void **state)
{
    (void)state;
    static const CvmOp ops[] = {CVM_OP_broadcast_add, CVM_OP_broadcast_sub,
                                CVM_OP_broadcast_mul, CVM_OP_broadcast_max,
                                CVM_OP_broadcast_div, CVM_OP_broadcast_greater};
    DtRng r = {777};
    int cases = dt_quick() ? 40 : 300;
    for (int c = 0; c < cases; c++) {
        DtModel m;
        dt_begin(&m, &r);
        CvmOp op = ops[rnd(&r, 0, 5)];
        uint32_t n = (uint32_t)rnd(&r, 2, 4);
        int64_t xs[OG_MAX_DIMS], ys[OG_MAX_DIMS];
        xs[0] = rnd(&r, 1, 2);
        for (uint32_t i = 1; i < n; i++)
            xs[i] = rnd(&r, 1, 7);
        uint32_t yn = (uint32_t)rnd(&r, 1, n);
        for (uint32_t i = 0; i < yn; i++) {
            int64_t d = xs[n - yn + i];
            ys[i] = rnd(&r, 0, 1) ? d : 1;
        }
        bool yconst = rnd(&r, 0, 2) == 0;
        if (!yconst && yn == n)
            ys[0] = xs[0]; /* a second model input has the batch */
        if (!yconst && yn < n) {
            /* a computed operand of fewer dims: derived from x by a sum */
            yconst = true;
        }
        if (yconst && xs[0] > 1 && yn == n)
            ys[0] = 1; /* parameters are the same for every sample */
        int32_t pa, pb;
        if (op == CVM_OP_broadcast_div) {
            pa = (int32_t)rnd(&r, 1, 9);
            pb = (int32_t)rnd(&r, 1, 16 - pa);
        } else if (op == CVM_OP_broadcast_mul) {
            pa = (int32_t)rnd(&r, 1, 16);
            pb = (int32_t)rnd(&r, 1, 16);
        } else {
            pa = (int32_t)rnd(&r, 1, 30);
            pb = (int32_t)rnd(&r, 1, 30);
        }
        int32_t x = dt_input(&m, "data", n, xs, pa);
        int32_t y = yconst ? dt_const(&m, "y", yn, ys, pb, NULL)
                           : dt_input(&m, "data2", yn, ys, pb);
        bool swap = rnd(&r, 0, 1);
        int32_t z = swap ? dt_op(&m, op, "op", DT_INS(y, x), NULL)
                         : dt_op(&m, op, "op", DT_INS(x, y), NULL);
        int32_t zp = og_node(m.g, z)->out_prec[0];
        char sb[8];
        snprintf(sb, sizeof sb, "%d", (int)rnd(&r, 1, zp > 1 ? zp - 1 : 1));
        dt_op(&m, CVM_OP_cvm_right_shift, "rs", DT_INS(z), DT_KV("precision", "8", "shift_bit", sb));
        char what[96];
        snprintf(what, sizeof what, "random %s case %d", cvm_op_name(op), c);
        dt_check(&m, what);
        dt_end(&m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_chains),
        cmocka_unit_test(test_random_broadcast),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
