/* progset_load.c: reads a program set directory (progset.h, docs/backend.md "The program
 * set"): program.pb through protobuf-c (or program.txt, its text form, through
 * asm_text_read.h), one data/ID.bin per static block, sockets.json
 * through json-c; checks what the files must agree on (ids, coordinates, sizes, sockets) so
 * that the executor and the printers can rely on it. Every finding is a prog.* rule
 * (docs/rules.md) naming the file inside DIR. */
#include "backend/progset.h"

#include "backend/asm_text_read.h"
#include "backend/core_mem.h"
#include "backend/progset_check.h"
#include "taskir/fileio.h"
#include "taskir/pbio.h"
#include "taskir/types.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Largest sockets.json read. */
#define SOCKETS_MAX_BYTES ((size_t)16 << 20)

static Status oom(Diag *d)
{
    return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
}

/* 1 when path is a regular file, 0 when it does not exist, -1 when it is something else or
 * cannot be looked at (errno set). */
static int is_file(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
    if (!S_ISREG(sb.st_mode)) {
        errno = EISDIR;
        return -1;
    }
    return 1;
}

/* Reads DIR/rel (at most cap bytes) into *buf; findings name rel. A missing file leaves *buf
 * NULL and returns ST_OK. */
static Status read_rel(const char *dir, const char *rel, size_t cap, uint8_t **buf,
                       size_t *len, Diag *d)
{
    *buf = NULL;
    *len = 0;
    char *path = tir_path_join(dir, rel);
    if (!path)
        return oom(d);
    Status st = ST_OK;
    int f = is_file(path);
    if (f < 0)
        st = diag_add(d, ST_RUNTIME, "io.read", rel, "cannot read: %s", strerror(errno));
    if (f > 0) {
        size_t from = d->n;
        st = tir_read_file(path, cap, buf, len, d);
        diag_prefix_where(d, from, rel);
    }
    free(path);
    return st;
}

/* program.pb, or without it program.txt, the protobuf text form (asm_text_read.h), whose
 * findings name the line. */
static Status read_config(const char *dir, ProgSet *out, Diag *d)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    const char *rel = "program.pb";
    Status st = read_rel(dir, rel, TIR_MAX_FILE_BYTES, &buf, &len, d);
    if (!st && !buf)
        st = read_rel(dir, rel = "program.txt", TIR_MAX_FILE_BYTES, &buf, &len, d);
    if (!st && !buf)
        st = diag_add(d, ST_LOGIC, "prog.dir", NULL, "not a program set: no program.pb or "
                      "program.txt in it");
    if (!st) {
        size_t from = d->n;
        ProtobufCMessage *m = NULL;
        if (strcmp(rel, "program.txt") == 0)
            st = asm_text_read(&taskir__asm__config__descriptor, (const char *)buf, len, &m, d);
        else
            st = pb_decode(&taskir__asm__config__descriptor, buf, len, NULL, 0,
                           "program set (taskir.asm.Config)", &m, d);
        diag_prefix_where(d, from, rel);
        out->config = (Taskir__Asm__Config *)m;
    }
    free(buf);
    return st;
}

/* Reads data/ID.bin of static block i into out->data[i]. */
static Status read_data(const char *dir, const Taskir__Asm__StaticBlock *b, ProgData *pd,
                        Diag *d)
{
    char rel[300];
    snprintf(rel, sizeof rel, "data/%s.bin", b->id);
    uint8_t *buf = NULL;
    size_t len = 0;
    Status st = read_rel(dir, rel, (size_t)ASM_CORE_WORDS * 4, &buf, &len, d);
    if (!st && !buf)
        st = diag_add(d, ST_LOGIC, "prog.data.missing", rel, "static block '%s' has no data "
                      "file", b->id);
    if (!st && len % 4)
        st = diag_add(d, ST_LOGIC, "prog.data.size", rel, "%zu bytes: not a whole number of "
                      "32-bit words", len);
    if (!st && !core_mem_range_ok(b->start_addr, (int64_t)(len / 4)))
        st = diag_add(d, ST_LOGIC, "prog.data.size", rel, "%zu words from word 0x%x run past "
                      "the core's memory (0x%x words)", len / 4, (unsigned)b->start_addr,
                      (unsigned)ASM_CORE_WORDS);
    if (!st) {
        pd->n = len / 4;
        pd->w = malloc(pd->n ? pd->n * sizeof *pd->w : 1);
        if (!pd->w)
            st = oom(d);
        for (size_t i = 0; !st && i < pd->n; i++)
            pd->w[i] = (uint32_t)buf[4 * i] | (uint32_t)buf[4 * i + 1] << 8 |
                       (uint32_t)buf[4 * i + 2] << 16 | (uint32_t)buf[4 * i + 3] << 24;
    }
    free(buf);
    return st;
}

/* ---- sockets.json ---- */

static const char *const io_names[] = {"input", "output"};

/* An integer member of o in [lo, hi]; absent: *v unchanged and ok when !required. */
static bool json_int(json_object *o, const char *key, int64_t lo, int64_t hi, bool required,
                     int64_t *v)
{
    json_object *m;
    if (!json_object_object_get_ex(o, key, &m))
        return !required;
    if (!json_object_is_type(m, json_type_int))
        return false;
    errno = 0;
    int64_t x = json_object_get_int64(m);
    if (errno || x < lo || x > hi)
        return false;
    *v = x;
    return true;
}

/* An array member of o of at most max integers in [0, 2^31-1]; *n its length. */
static bool json_dims(json_object *o, const char *key, int max, int64_t *dims, int *n)
{
    json_object *m;
    *n = 0;
    if (!json_object_object_get_ex(o, key, &m))
        return true;
    if (!json_object_is_type(m, json_type_array) || (int)json_object_array_length(m) > max)
        return false;
    *n = (int)json_object_array_length(m);
    for (int i = 0; i < *n; i++) {
        json_object *e = json_object_array_get_idx(m, (size_t)i);
        if (!json_object_is_type(e, json_type_int))
            return false;
        errno = 0;
        int64_t x = json_object_get_int64(e);
        if (errno || x < 0 || x > INT32_MAX)
            return false;
        dims[i] = x;
    }
    return true;
}

static const char *json_str(json_object *o, const char *key)
{
    json_object *m;
    if (!json_object_object_get_ex(o, key, &m) || !json_object_is_type(m, json_type_string))
        return NULL;
    return json_object_get_string(m);
}

static const char *const dtypes[] = {"int8", "uint8", "int16", "int32"};

/* One entry of "sockets". Returns NULL when fine, else what is wrong. */
static const char *read_socket(json_object *o, ProgSocket *s, bool *oom_out)
{
    if (!json_object_is_type(o, json_type_object))
        return "is not an object";
    const char *name = json_str(o, "name"), *io = json_str(o, "io");
    if (!name || !*name)
        return "has no \"name\" string";
    if (!io || (strcmp(io, io_names[0]) && strcmp(io, io_names[1])))
        return "has no \"io\" of \"input\" or \"output\"";
    s->is_output = strcmp(io, "output") == 0;
    int64_t v = -1;
    if (!json_int(o, "socket_id", 0, INT32_MAX, true, &v))
        return "has no \"socket_id\" in 0..2^31-1";
    s->socket_id = (int)v;
    json_object *p;
    if (!json_object_object_get_ex(o, "precision", &p))
        return "has no \"precision\"";
    PrecisionId id;
    int prec = -1;
    if (json_object_is_type(p, json_type_string) && pr_from_name(json_object_get_string(p), &id))
        prec = pr_info(id)->wire;
    else if (json_object_is_type(p, json_type_int)) {
        int64_t w = json_object_get_int64(p);
        prec = w >= 0 && w <= 1000 && pr_from_wire((int)w, &id) ? (int)w : -1;
    }
    if (prec < 0)
        return "has a \"precision\" that names no precision (INT_8, UINT_8, INT_32, ...)";
    s->precision = prec;
    int n;
    if (!json_dims(o, "shape", 4, s->shape, &n) || n == 0)
        return "has no \"shape\" of 1 to 4 dims (y x f r) in 0..2^31-1";
    if (prog_socket_volume(s) > PROG_MAX_SOCKET_ELEMS)
        return "has a shape of more elements than a socket may hold (2^28)";
    if (!json_dims(o, "model_dims", 8, s->model_dims, &s->model_rank))
        return "has a \"model_dims\" that is not a list of at most 8 dims in 0..2^31-1";
    json_object *dt;
    if (json_object_object_get_ex(o, "model_dtype", &dt)) {
        const char *t = json_object_is_type(dt, json_type_string) ? json_object_get_string(dt)
                                                                   : NULL;
        size_t k = 0;
        while (t && k < sizeof dtypes / sizeof *dtypes && strcmp(t, dtypes[k]))
            k++;
        if (!t || k == sizeof dtypes / sizeof *dtypes)
            return "has a \"model_dtype\" other than \"int8\", \"uint8\", \"int16\", \"int32\"";
        if (!(s->model_dtype = strdup(t)))
            *oom_out = true;
    }
    if (!(s->name = strdup(name)))
        *oom_out = true;
    return NULL;
}

static Status parse_sockets(const char *text, size_t len, ProgSet *out, Diag *d)
{
    json_tokener *tok = json_tokener_new_ex(8);
    if (!tok)
        return oom(d);
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    json_object *root = len <= INT32_MAX ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
    enum json_tokener_error err = json_tokener_get_error(tok);
    json_tokener_free(tok);
    json_object *list = NULL;
    if (!root || err != json_tokener_success) {
        json_object_put(root);
        return diag_add(d, ST_LOGIC, "prog.sockets", "sockets.json", "not valid JSON: %s",
                        json_tokener_error_desc(err));
    }
    if (!json_object_is_type(root, json_type_object) ||
        !json_object_object_get_ex(root, "sockets", &list) ||
        !json_object_is_type(list, json_type_array)) {
        json_object_put(root);
        return diag_add(d, ST_LOGIC, "prog.sockets", "sockets.json", "expected an object with "
                        "a \"sockets\" list");
    }
    size_t n = json_object_array_length(list);
    Status st = ST_OK;
    out->sockets = calloc(n + 1, sizeof *out->sockets);
    if (!out->sockets)
        st = oom(d);
    for (size_t i = 0; !st && i < n; i++) {
        bool no_mem = false;
        ProgSocket *s = &out->sockets[i];
        out->n_sockets = i + 1;
        const char *why = read_socket(json_object_array_get_idx(list, i), s, &no_mem);
        if (no_mem)
            st = oom(d);
        else if (why)
            st = diag_add(d, ST_LOGIC, "prog.sockets", "sockets.json", "socket %zu %s", i, why);
        for (size_t j = 0; !st && j < i; j++)
            if (out->sockets[j].is_output == s->is_output &&
                out->sockets[j].socket_id == s->socket_id)
                st = diag_add(d, ST_LOGIC, "prog.sockets", "sockets.json", "sockets %zu and %zu "
                              "are both %s socket %d", j, i, io_names[s->is_output],
                              s->socket_id);
    }
    json_object_put(root);
    return st;
}

static Status read_sockets(const char *dir, ProgSet *out, Diag *d)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    Status st = read_rel(dir, "sockets.json", SOCKETS_MAX_BYTES, &buf, &len, d);
    if (!st && !buf)
        st = diag_add(d, ST_LOGIC, "prog.sockets", "sockets.json", "missing: a program set "
                      "names its model inputs and outputs there");
    if (!st)
        st = parse_sockets((const char *)buf, len, out, d);
    free(buf);
    return st;
}

Status progset_load(const char *dir, ProgSet *out, Diag *d)
{
    memset(out, 0, sizeof *out);
    Status st = read_config(dir, out, d);
    if (!st)
        st = read_sockets(dir, out, d);
    if (!st)
        st = progset_check(out, d);
    const Taskir__Asm__DataConfig *dc = out->config ? out->config->data_config : NULL;
    size_t n = dc ? dc->n_static_blocks : 0;
    if (!st && !(out->data = calloc(n + 1, sizeof *out->data)))
        st = oom(d);
    for (size_t i = 0; !st && i < n; i++) {
        out->n_data = i + 1;
        st = read_data(dir, dc->static_blocks[i], &out->data[i], d);
    }
    if (st)
        progset_free(out);
    return st;
}

void progset_free(ProgSet *s)
{
    if (!s)
        return;
    if (s->config)
        protobuf_c_message_free_unpacked(&s->config->base, NULL);
    for (size_t i = 0; i < s->n_data; i++)
        free(s->data[i].w);
    free(s->data);
    for (size_t i = 0; i < s->n_sockets; i++) {
        free(s->sockets[i].name);
        free(s->sockets[i].model_dtype);
    }
    free(s->sockets);
    memset(s, 0, sizeof *s);
}
