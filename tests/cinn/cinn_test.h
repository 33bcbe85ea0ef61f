/* cinn_test.h: helpers of the CINN frontend tests (suite cinn).
 *
 * A case builds a program with the C API (cinn.h), then ct_check takes it the whole way:
 * builder -> XML (fe_cinn_xml_encode) -> read back (fe_cinn_read_xml_mem, which validates
 * against the XSD) -> the read-back program encodes to the same bytes (round trip) ->
 * reference interpreter on the read-back graph -> lowering (fe_lower, verified) -> simulator
 * (sim_run) -> every output equal, element for element, to the values the test computed
 * itself, and the interpreter's equal to the simulator's.
 *
 * Inputs get values given by the test, or deterministic pseudo-random ones (splitmix64) of
 * their precision. Include after <cmocka.h>. */
#ifndef TESTS_CINN_CINN_TEST_H
#define TESTS_CINN_CINN_TEST_H

#include "frontend/cinn/cinn.h"

#include <stdbool.h>
#include <stdint.h>

#define CT_MAX_IN 4
#define CT_MAX_OUT 4

typedef struct CtCase {
    CinnBuilder *b;
    Diag d;
    uint64_t rng;
    OgTensor in[CT_MAX_IN];     /* the inputs' values, in order of fe_cinn_input */
    uint32_t nin;
    const int32_t *want[CT_MAX_OUT];    /* expected values of each output (set by the test) */
    uint32_t nblocks;           /* blocks of the lowered graph (after ct_check) */
    char xml[1 << 12];          /* the first bytes of the program's XML, for messages */
} CtCase;

void ct_begin(CtCase *c, uint64_t seed);
void ct_end(CtCase *c);
/* A value in [lo, hi]. */
int64_t ct_range(CtCase *c, int64_t lo, int64_t hi);
/* An input of shape d[0..n) and precision p with the given values (NULL: random ones of the
 * precision); returns the variable. */
CinnVar ct_input(CtCase *c, const char *name, uint32_t n, const int64_t *d, int32_t p,
                 const int32_t *values);
/* A constant (values given, precision 0: the smallest). */
CinnVar ct_const(CtCase *c, const char *name, uint32_t n, const int64_t *d,
                 const int32_t *values, int32_t p);
/* The values of input k (to compute the expected output from). */
const int32_t *ct_in(const CtCase *c, uint32_t k);
/* Marks v as the next output; its expected values are want (count of v's shape). */
void ct_output(CtCase *c, CinnVar v, const int32_t *want);
/* The whole path; fails the test on any error or difference. */
void ct_check(CtCase *c, const char *what);
/* Coverage: every primitive for which want(p) holds went through ct_check in this program
 * (ct_check records the primitives of each program it checks). */
void ct_expect_covered(bool (*want)(CinnPrim p));
/* Expects the builder to have failed with this rule; the message must contain `text` (when
 * not NULL). */
void ct_expect_error(CtCase *c, const char *rule, const char *text);
/* Expects reading the XML text to fail with this rule, its where "prog.xml:<line>" (line > 0)
 * and its message containing text (when not NULL). */
void ct_expect_xml_error(const char *xml, const char *rule, int line, const char *text);
/* Expects lowering the built program to fail with this rule (message containing text). */
void ct_expect_lower_error(CtCase *c, const char *rule, const char *text);

#define CT_SHP(...) (uint32_t)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), \
    ((const int64_t[]){__VA_ARGS__})

#endif
