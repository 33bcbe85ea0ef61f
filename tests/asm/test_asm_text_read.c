/* test_asm_text_read.c: the protobuf text reader (backend/asm_text_read.h).
 *
 *   test_asm_text_read TEXT1 PB1 [TEXT2 PB2 ...]
 * Each TEXT is a taskir.asm.Config in text form and PB what protoc --encode makes of it (the
 * build does it): our reader, then protobuf-c's pack, must give PB byte for byte. Then the
 * forms protoc also reads (lists, '<>' messages, ':' before '{', separators, escapes, enum
 * numbers, hex), each error the reader reports, and every prefix of the first TEXT (read or
 * refused as a logic error, never a crash). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "backend/asm_text_read.h"
#include "program.pb-c.h"
#include "taskir/fileio.h"

static char **paths;
static int n_paths;

static void read_all(const char *path, uint8_t **buf, size_t *len)
{
    Diag d;
    diag_init(&d, path);
    assert_int_equal(tir_read_file(path, 1 << 24, buf, len, &d), ST_OK);
    diag_finish(&d);
}

/* Reads text as a Config; its status, the first finding's rule into rule. */
static Status parse(const char *text, size_t len, Taskir__Asm__Config **out, char *rule,
                    size_t n)
{
    Diag d;
    diag_init(&d, "t");
    ProtobufCMessage *m = NULL;
    Status st = asm_text_read(&taskir__asm__config__descriptor, text, len, &m, &d);
    if (rule)
        snprintf(rule, n, "%s", d.n ? d.entries[0].rule : "");
    diag_finish(&d);
    if (out)
        *out = (Taskir__Asm__Config *)m;
    else if (m)
        protobuf_c_message_free_unpacked(m, NULL);
    return st;
}

static void test_same_bytes(void **state)
{
    (void)state;
    for (int i = 0; i + 1 < n_paths; i += 2) {
        uint8_t *text, *pb;
        size_t tlen, plen;
        read_all(paths[i], &text, &tlen);
        read_all(paths[i + 1], &pb, &plen);
        Taskir__Asm__Config *c;
        assert_int_equal(parse((const char *)text, tlen, &c, NULL, 0), ST_OK);
        size_t n = taskir__asm__config__get_packed_size(c);
        uint8_t *got = malloc(n + 1);
        assert_non_null(got);
        taskir__asm__config__pack(c, got);
        assert_int_equal(n, plen);
        assert_memory_equal(got, pb, plen);
        free(got);
        taskir__asm__config__free_unpacked(c, NULL);
        free(text);
        free(pb);
    }
}

static void test_forms(void **state)
{
    (void)state;
    const char *t =
        "# a comment\n"
        "data_config < static_blocks: { id: 'a\\x41\\102\\n' \"b\" phases: [1, 0x2, 010] ; } ,\n"
        "  static_blocks { id: \"z\" precision: 4 } >\n"
        "behavior_config { step_config { chip_x: -0 phase_group_config { phase_mode: 2 "
        "core_config { core_x: 1 static_prim_list { router { p09 { Send_en: t Receive_en: "
        "False CXY: -1 } } } } } } }\n";
    Taskir__Asm__Config *c;
    char rule[64];
    assert_int_equal(parse(t, strlen(t), &c, rule, sizeof rule), ST_OK);
    Taskir__Asm__StaticBlock *b = c->data_config->static_blocks[0];
    assert_string_equal(b->id, "aAB\nb");
    assert_int_equal(b->n_phases, 3);
    assert_int_equal(b->phases[1], 2);
    assert_int_equal(b->phases[2], 8);
    assert_int_equal(c->data_config->static_blocks[1]->precision, TASKIR__PRECISION__INT_32);
    const Taskir__Asm__PhaseGroupConfig *pg = c->behavior_config->step_config[0]
                                                  ->phase_group_config[0];
    assert_int_equal(pg->phase_mode, TASKIR__ASM__PHASE_MODE__ADAPTED_CLOCK);
    const Taskir__Asm__P09 *r = pg->core_config[0]->static_prim_list[0]->router->p09;
    assert_true(r->has_send_en && r->send_en);
    assert_true(r->has_receive_en && !r->receive_en);
    assert_int_equal(r->cxy, -1);
    taskir__asm__config__free_unpacked(c, NULL);
}

static void test_errors(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "nosuch: 1",                                           /* unknown field */
        "data_config { static_blocks { id: \"a\" id: \"b\" } }", /* twice */
        "behavior_config { sim_clock: 1 sim_clock: 2 }",
        "behavior_config { step_config { chip_x: 2147483648 } }",   /* out of range */
        "behavior_config { step_config { chip_x: 1.5 } }",
        "behavior_config { step_config { phase_group_config { phase_mode: SOMETIMES } } }",
        "behavior_config { step_config { phase_group_config { phase_mode: 7 } } }",
        "data_config { static_blocks { id: \"a\\0b\" } }",         /* a NUL byte */
        "data_config { static_blocks { id: \"a }",                 /* not closed */
        "data_config { static_blocks { id: \"a\\q\" } }",          /* unknown escape */
        "behavior_config { sim_clock: [1] }",                      /* a list, not repeated */
        "behavior_config { sim_clock 1 }",                         /* no ':' */
        "behavior_config { step_config { ",                        /* not closed */
        "behavior_config { step_config: 3 }",                      /* not a message */
        "data_config { static_blocks { phases: [1 2] } }",
        "data_config { static_blocks { phases: [1, ",
        "behavior_config { step_config { phase_group_config { core_config { static_prim_list "
        "{ router { p09 { Send_en: maybe } } } } } } }",
        "}",
    };
    char rule[64];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(parse(bad[i], strlen(bad[i]), NULL, rule, sizeof rule), ST_LOGIC);
        assert_string_equal(rule, "prog.text.parse");
    }
    /* messages nested deeper than 64 */
    char deep[1024];
    size_t k = 0;
    k += (size_t)snprintf(deep + k, sizeof deep - k, "behavior_config { step_config { "
                          "phase_group_config { core_config { static_prim_list { axon { ");
    for (int i = 0; i < 70; i++)
        k += (size_t)snprintf(deep + k, sizeof deep - k, "shape { ");
    assert_int_equal(parse(deep, k, NULL, rule, sizeof rule), ST_LOGIC);
}

/* Every prefix of the first text: read, or a logic error. */
static void test_prefixes(void **state)
{
    (void)state;
    uint8_t *text;
    size_t tlen;
    read_all(paths[0], &text, &tlen);
    size_t ok = 0;
    for (size_t n = 0; n <= tlen; n++) {
        Status st = parse((const char *)text, n, NULL, NULL, 0);
        assert_true(st == ST_OK || st == ST_LOGIC);
        ok += st == ST_OK;
    }
    assert_true(ok >= 2);   /* the empty text and the whole one at least */
    free(text);
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc % 2 == 0) {
        fprintf(stderr, "usage: test_asm_text_read TEXT PB [TEXT PB ...]\n");
        return 1;
    }
    paths = argv + 1;
    n_paths = argc - 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bytes),
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_prefixes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
