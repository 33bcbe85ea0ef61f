/* test_progset_load.c: the program set loader (backend/progset_load.c) and the executor on
 * what it loads (backend/run.h): a good set loads and runs; every rule of the loader fires on
 * the file it is about; and no truncated or garbled program.pb crashes the loader or the run
 * (each gives ST_OK or a logic error).
 *
 *   test_progset_load PROGRAM.pb SOCKETS.json [CONV.pb CONV_SOCKETS.json]
 * PROGRAM.pb is tests/asm/progsets/p09_multi encoded by protoc (the build does it), with its
 * sockets.json; its static block "c" gets its two words here. CONV.pb is conv_send_move, for
 * the robustness of the whole executor (primitives included) on garbled programs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "backend/progset.h"
#include "backend/run.h"
#include "taskir/fileio.h"

static const char *pb_path, *sockets_path;
static uint8_t *good_pb, *good_sockets, *conv_pb, *conv_sockets;
static size_t good_pb_len, good_sockets_len, conv_pb_len, conv_sockets_len;
static char dir[64];

static void put(const char *name, const void *buf, size_t len)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void drop(const char *name)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
}

/* The good set: program.pb, sockets.json, data/c.bin = 100, 200. */
static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/test_progset_XXXXXX");
    assert_non_null(mkdtemp(dir));
    char data[96];
    snprintf(data, sizeof data, "%s/data", dir);
    assert_int_equal(mkdir(data, 0777), 0);
    put("program.pb", good_pb, good_pb_len);
    put("sockets.json", good_sockets, good_sockets_len);
    static const uint8_t words[8] = {100, 0, 0, 0, 200, 0, 0, 0};
    put("data/c.bin", words, sizeof words);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    drop("program.pb");
    drop("program.txt");
    drop("sockets.json");
    drop("data/c.bin");
    drop("data/w.bin");
    drop("data/b.bin");
    drop("data");
    rmdir(dir);
    return 0;
}

/* progset_load's status; the rule of its first finding into rule (or ""). */
static Status load(char *rule, size_t n, ProgSet *s)
{
    Diag d;
    diag_init(&d, "set");
    ProgSet tmp;
    Status st = progset_load(dir, s ? s : &tmp, &d);
    snprintf(rule, n, "%s", d.n ? d.entries[0].rule : "");
    diag_finish(&d);
    if (!s)
        progset_free(&tmp);
    return st;
}

static void expect_rule(const char *want)
{
    char rule[64];
    assert_int_equal(load(rule, sizeof rule, NULL), ST_LOGIC);
    assert_string_equal(rule, want);
}

/* Runs s with options opt: its first input socket gets its natural shape of values, the
 * p09_multi inputs 1 -2 3 -4 ... for 8 of them, else (i % 7) - 3; the status, the first
 * finding's rule into rule (when not NULL), the 12 values of p09_multi's output into out. */
static Status run_opt(const ProgSet *s, const RunOptions *opt, int32_t out[12], char *rule)
{
    const ProgSocket *k = NULL;
    for (size_t i = 0; !k && i < s->n_sockets; i++)
        k = s->sockets[i].is_output ? NULL : &s->sockets[i];
    NpyArray a = {.dtype = NPY_I32, .count = 1};
    for (int i = 0; k && i < 4; i++)
        if (k->shape[i] > 0) {
            a.shape[a.ndim++] = k->shape[i];
            a.count *= k->shape[i];
        }
    int32_t x[64];
    for (int64_t i = 0; i < 64; i++)
        x[i] = a.count == 8 ? (int32_t)((i % 2 ? -1 : 1) * (i + 1)) : (int32_t)(i % 7) - 3;
    a.i32 = x;
    ProgInput in = {k ? k->name : "x", &a};
    ProgOutput *outs = NULL;
    size_t n = 0;
    Diag d;
    diag_init(&d, "set");
    if (a.count > 64)
        a.count = 0;
    Status st = prog_run_arrays(s, opt, &in, 1, &outs, &n, &d);
    if (rule)
        snprintf(rule, 64, "%s", d.n ? d.entries[0].rule : "");
    if (!st && out && n == 1 && outs[0].count == 12)
        memcpy(out, outs[0].data, 12 * sizeof *out);
    prog_outputs_free(outs, n);
    diag_finish(&d);
    return st;
}

static Status run(const ProgSet *s, int32_t out[12])
{
    return run_opt(s, NULL, out, NULL);
}

static void test_good(void **state)
{
    (void)state;
    ProgSet s;
    char rule[64];
    assert_int_equal(load(rule, sizeof rule, &s), ST_OK);
    assert_int_equal(s.n_sockets, 2);
    assert_string_equal(s.sockets[1].name, "y");
    assert_int_equal(s.sockets[1].is_output, 1);
    assert_int_equal(s.sockets[1].shape[2], 12);
    assert_int_equal(s.n_data, 1);
    assert_int_equal(s.data[0].n, 2);
    assert_int_equal(s.data[0].w[1], 200);
    int32_t out[12];
    assert_int_equal(run(&s, out), ST_OK);
    static const int32_t want[12] = {1, -2, 3, -4, 100, 200, 5, -6, 7, -8, 0, 0};
    assert_memory_equal(out, want, sizeof want);
    /* the run's memory cap: two cores have programs */
    RunOptions one = {.max_cores = 1};
    assert_int_equal(run_opt(&s, &one, NULL, rule), ST_LOGIC);
    assert_string_equal(rule, "prog.limit.cores");
    progset_free(&s);
    assert_null(s.config);
}

static void test_files(void **state)
{
    (void)state;
    drop("data/c.bin");
    expect_rule("prog.data.missing");
    put("data/c.bin", "\1\2\3\4\5", 5);
    expect_rule("prog.data.size");
    drop("program.pb");
    expect_rule("prog.dir");
    char rule[64];
    put("program.txt", "behavior_config {}\n", 19);   /* the text form, when no program.pb */
    assert_int_equal(load(rule, sizeof rule, NULL), ST_OK);
    put("program.txt", "behavior_config {\n", 18);
    expect_rule("prog.text.parse");
    put("program.pb", "\x0a\x05", 2);   /* a field that runs past the end */
    assert_int_equal(load(rule, sizeof rule, NULL), ST_LOGIC);
    assert_int_equal(strncmp(rule, "wire.", 5), 0);
    put("program.pb", "", 0);           /* an empty Config: no cores, no blocks */
    put("data/c.bin", "", 0);
    assert_int_equal(load(rule, sizeof rule, NULL), ST_OK);
}

static void test_sockets(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "", "{", "[]", "{\"sockets\": {}}", "{\"sockets\": [{}]}",
        "{\"sockets\": [{\"name\": \"x\", \"io\": \"in\", \"socket_id\": 0, \"precision\": "
        "\"INT_8\", \"shape\": [1]}]}",
        "{\"sockets\": [{\"name\": \"x\", \"io\": \"input\", \"socket_id\": 0, \"precision\": "
        "\"INT_99\", \"shape\": [1]}]}",
        "{\"sockets\": [{\"name\": \"x\", \"io\": \"input\", \"socket_id\": 0, \"precision\": "
        "\"INT_8\", \"shape\": [65536, 65536]}]}",
        "{\"sockets\": [{\"name\": \"x\", \"io\": \"input\", \"socket_id\": 0, \"precision\": "
        "\"INT_8\", \"shape\": [1], \"model_dtype\": \"float32\"}]}",
        "{\"sockets\": [{\"name\": \"x\", \"io\": \"input\", \"socket_id\": 0, \"precision\": 0, "
        "\"shape\": [1]}, {\"name\": \"y\", \"io\": \"input\", \"socket_id\": 0, "
        "\"precision\": 0, \"shape\": [1]}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        put("sockets.json", bad[i], strlen(bad[i]));
        expect_rule("prog.sockets");
    }
    /* the sockets parse, but the program's dynamic blocks place socket 0 of both kinds */
    const char *none = "{\"sockets\": []}";
    put("sockets.json", none, strlen(none));
    expect_rule("prog.dyn.socket");
}

/* The good Config, changed by edit(c, false), written as program.pb; edit(c, true) undoes
 * what protobuf-c must not free. */
static void put_edited(void (*edit)(Taskir__Asm__Config *, bool))
{
    Taskir__Asm__Config *c = taskir__asm__config__unpack(NULL, good_pb_len, good_pb);
    assert_non_null(c);
    edit(c, false);
    size_t n = taskir__asm__config__get_packed_size(c);
    uint8_t *buf = malloc(n + 1);
    assert_non_null(buf);
    taskir__asm__config__pack(c, buf);
    put("program.pb", buf, n);
    free(buf);
    edit(c, true);
    taskir__asm__config__free_unpacked(c, NULL);
}

static Taskir__Asm__CoreConfig *core(Taskir__Asm__Config *c, size_t k)
{
    return c->behavior_config->step_config[0]->phase_group_config[0]->core_config[k];
}

/* An id that would leave data/: the loader must not read ../c.bin. */
static void bad_id(Taskir__Asm__Config *c, bool undo)
{
    static char id[] = "../c";
    static char *keep;
    Taskir__Asm__StaticBlock *b = c->data_config->static_blocks[0];
    if (!undo)
        keep = b->id;
    b->id = undo ? keep : id;
}

static void dup_core(Taskir__Asm__Config *c, bool undo)
{
    if (!undo)
        core(c, 1)->core_x = 0;
}

static void far_core(Taskir__Asm__Config *c, bool undo)
{
    if (!undo)
        core(c, 1)->core_x = 16;
}

static void far_phase(Taskir__Asm__Config *c, bool undo)
{
    static int32_t ph[1] = {32};
    Taskir__Asm__StaticBlock *b = c->data_config->static_blocks[0];
    b->n_phases = undo ? 0 : 1;
    b->phases = undo ? NULL : ph;
}

static void unknown_socket(Taskir__Asm__Config *c, bool undo)
{
    if (!undo)
        c->data_config->dynamic_blocks[0]->socket_id = 5;
}

static void test_config(void **state)
{
    (void)state;
    put_edited(bad_id);
    expect_rule("prog.static.id");
    put_edited(dup_core);
    expect_rule("prog.core.duplicate");
    put_edited(far_core);
    expect_rule("prog.core");
    put_edited(far_phase);
    expect_rule("prog.phase");
    put_edited(unknown_socket);
    expect_rule("prog.dyn.socket");
}

/* Every prefix of the program pb, and the file with each byte flipped: ST_OK or a logic
 * error from the loader, and the same from the run of what loads. */
static void robust(const uint8_t *pb, size_t pb_len)
{
    uint8_t *buf = malloc(pb_len + 1);
    assert_non_null(buf);
    size_t loaded = 0, ran = 0;
    for (size_t k = 0; k < 2 * pb_len; k++) {
        memcpy(buf, pb, pb_len);
        size_t len = k < pb_len ? k : pb_len;
        if (k >= pb_len)
            buf[k - pb_len] ^= (uint8_t)(0x5A + k);
        put("program.pb", buf, len);
        ProgSet s;
        char rule[64];
        Status st = load(rule, sizeof rule, &s);
        assert_true(st == ST_OK || st == ST_LOGIC);
        if (st == ST_OK) {
            loaded++;
            Status rs = run(&s, NULL);
            assert_true(rs == ST_OK || rs == ST_LOGIC);
            ran += rs == ST_OK;
            progset_free(&s);
        }
    }
    free(buf);
    assert_true(loaded > 0);
    assert_true(ran > 0);
}

static void test_robust(void **state)
{
    (void)state;
    robust(good_pb, good_pb_len);
}

/* The same on conv_send_move (its P41, P09 and P06 with garbled parameters), its static
 * blocks w and b given 32 words each. */
static void test_robust_conv(void **state)
{
    (void)state;
    if (!conv_pb)
        skip();
    static const uint32_t words[32] = {0x0000FF01, 0, 0, 0, 0, 0, 0, 0, 2};
    put("data/w.bin", words, sizeof words);
    put("data/b.bin", words, sizeof words);
    put("sockets.json", conv_sockets, conv_sockets_len);
    robust(conv_pb, conv_pb_len);
    drop("data/w.bin");
    drop("data/b.bin");
}

static void read_all(const char *path, uint8_t **buf, size_t *len)
{
    Diag d;
    diag_init(&d, path);
    assert_int_equal(tir_read_file(path, 1 << 20, buf, len, &d), ST_OK);
    diag_finish(&d);
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 5) {
        fprintf(stderr, "usage: test_progset_load PROGRAM.pb SOCKETS.json [CONV.pb "
                "CONV_SOCKETS.json]\n");
        return 1;
    }
    if (argc == 5) {
        read_all(argv[3], &conv_pb, &conv_pb_len);
        read_all(argv[4], &conv_sockets, &conv_sockets_len);
    }
    pb_path = argv[1];
    sockets_path = argv[2];
    read_all(pb_path, &good_pb, &good_pb_len);
    read_all(sockets_path, &good_sockets, &good_sockets_len);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_good, setup, teardown),
        cmocka_unit_test_setup_teardown(test_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sockets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_config, setup, teardown),
        cmocka_unit_test_setup_teardown(test_robust, setup, teardown),
        cmocka_unit_test_setup_teardown(test_robust_conv, setup, teardown),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(good_pb);
    free(good_sockets);
    free(conv_pb);
    free(conv_sockets);
    return rc;
}
