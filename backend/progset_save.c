/* progset_save.c: writing a program set directory (progset.h, docs/backend.md "The program
 * set"): program.pb (or program.txt), data/ID.bin, sockets.json.
 *
 * All or nothing: the set is written into a fresh sibling directory DIR.tmp.XXXXXX; when
 * every file is written, an existing DIR (which must hold nothing but a program set's files)
 * is moved aside, the new directory renamed to DIR and the old one removed. The termination
 * signals are held meanwhile (tir_signals_hold). A failure removes the new directory and
 * leaves DIR as it was.
 */
#include "backend/progset.h"

#include "backend/asm_text.h"
#include "backend/emit.h"
#include "taskir/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The names a program set's directory holds (data/ holds ID.bin files only). */
static bool set_file(const char *name)
{
    static const char *const names[] = {"program.pb", "program.txt", "sockets.json"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

static bool bin_name(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, ".bin") == 0;
}

/* Calls fn(path) for every entry of dir (but . and ..); false when dir cannot be read. */
static bool each_entry(const char *dir, bool (*fn)(const char *dir, const char *name, void *),
                       void *arg)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return false;
    bool ok = true;
    struct dirent *e;
    while (ok && (e = readdir(dp)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        ok = fn(dir, e->d_name, arg);
    }
    closedir(dp);
    return ok;
}

static char *join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *p = malloc(la + lb + 2);
    if (p) {
        memcpy(p, a, la);
        p[la] = '/';
        memcpy(p + la + 1, b, lb + 1);
    }
    return p;
}

static bool bin_entry(const char *dir, const char *name, void *arg)
{
    (void)dir;
    (void)arg;
    return bin_name(name);
}

static bool set_entry(const char *dir, const char *name, void *arg)
{
    (void)arg;
    if (set_file(name))
        return true;
    if (strcmp(name, "data") != 0)
        return false;
    char *p = join(dir, name);
    bool ok = p && each_entry(p, bin_entry, NULL);
    free(p);
    return ok;
}

bool progset_dir_replaceable(const char *dir)
{
    struct stat st;
    if (lstat(dir, &st) != 0)
        return errno == ENOENT;
    return S_ISDIR(st.st_mode) && each_entry(dir, set_entry, NULL);
}

static bool remove_entry(const char *dir, const char *name, void *arg)
{
    (void)arg;
    char *p = join(dir, name);
    if (!p)
        return false;
    if (strcmp(name, "data") == 0) {
        each_entry(p, remove_entry, NULL);
        rmdir(p);
    } else {
        unlink(p);
    }
    free(p);
    return true;
}

/* Removes a program set's directory (what set_entry accepts) and the directory itself. */
static void remove_set(const char *dir)
{
    each_entry(dir, remove_entry, NULL);
    rmdir(dir);
}

static Status write_file(const char *dir, const char *name, const void *buf, size_t len,
                         Diag *d)
{
    char *p = join(dir, name);
    if (!p)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory writing the program set");
    FILE *f = fopen(p, "wb");
    bool ok = f && (len == 0 || fwrite(buf, 1, len, f) == len);
    if (f && fclose(f) != 0)
        ok = false;
    Status st = ok ? ST_OK
                   : diag_add(d, ST_RUNTIME, "io.write", p, "cannot write: %s", strerror(errno));
    free(p);
    return st;
}

static Status write_program(const char *dir, const ProgSet *s, int text, Diag *d)
{
    const ProtobufCMessage *m = &s->config->base;
    if (text) {
        char *buf;
        size_t len;
        if (!asm_text_write(m, &buf, &len))
            return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory writing program.txt");
        Status st = write_file(dir, "program.txt", buf, len, d);
        free(buf);
        return st;
    }
    size_t len = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory writing program.pb");
    protobuf_c_message_pack(m, buf);
    Status st = write_file(dir, "program.pb", buf, len, d);
    free(buf);
    return st;
}

static Status write_data(const char *dir, const ProgSet *s, Diag *d)
{
    const Taskir__Asm__DataConfig *dc = s->config->data_config;
    size_t n = dc ? dc->n_static_blocks : 0;
    if (n != s->n_data)
        return diag_add(d, ST_RUNTIME, "emit.internal", NULL,
                        "%zu static blocks but %zu data images", n, s->n_data);
    char *data = join(dir, "data");
    if (!data)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory writing the program set");
    if (mkdir(data, 0777) != 0) {
        Status st = diag_add(d, ST_RUNTIME, "io.write", data, "cannot create: %s",
                             strerror(errno));
        free(data);
        return st;
    }
    Status st = ST_OK;
    uint8_t *bytes = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < n && st == ST_OK; i++) {
        const ProgData *pd = &s->data[i];
        if (pd->n > SIZE_MAX / 4) {
            st = diag_add(d, ST_RUNTIME, "oom", NULL, "data image too large");
            break;
        }
        if (pd->n * 4 > cap) {
            uint8_t *nb = realloc(bytes, pd->n * 4);
            if (!nb) {
                st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory writing the data");
                break;
            }
            bytes = nb;
            cap = pd->n * 4;
        }
        for (size_t k = 0; k < pd->n; k++) { /* little-endian whatever the host */
            uint32_t w = pd->w[k];
            bytes[4 * k] = (uint8_t)w;
            bytes[4 * k + 1] = (uint8_t)(w >> 8);
            bytes[4 * k + 2] = (uint8_t)(w >> 16);
            bytes[4 * k + 3] = (uint8_t)(w >> 24);
        }
        const char *id = dc->static_blocks[i]->id;
        size_t ln = id ? strlen(id) : 0;
        char *name = malloc(ln + 5);
        if (!name) {
            st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory writing the data");
            break;
        }
        memcpy(name, id ? id : "", ln);
        memcpy(name + ln, ".bin", 5);
        st = write_file(data, name, bytes, pd->n * 4, d);
        free(name);
    }
    free(bytes);
    free(data);
    return st;
}

/* The name of an IR Precision value (taskgraph.proto), or NULL. */
static const char *prec_name(int p)
{
    const ProtobufCEnumValue *v =
        protobuf_c_enum_descriptor_get_value(&taskir__precision__descriptor, p);
    return v ? v->name : NULL;
}

static json_object *socket_json(const ProgSocket *k)
{
    json_object *o = json_object_new_object();
    json_object *shape = json_object_new_array();
    if (!o || !shape) {
        json_object_put(o);
        json_object_put(shape);
        return NULL;
    }
    bool ok = true;
    for (int i = 0; i < 4; i++)
        ok &= json_object_array_add(shape, json_object_new_int64(k->shape[i])) == 0;
    const char *pn = prec_name(k->precision);
    ok &= json_object_object_add(o, "name", json_object_new_string(k->name ? k->name : "")) == 0;
    ok &= json_object_object_add(o, "io", json_object_new_string(k->is_output ? "output"
                                                                              : "input")) == 0;
    ok &= json_object_object_add(o, "socket_id", json_object_new_int(k->socket_id)) == 0;
    ok &= json_object_object_add(o, "precision", json_object_new_string(pn ? pn : "")) == 0;
    ok &= json_object_object_add(o, "shape", shape) == 0;
    if (k->model_rank > 0) {
        json_object *md = json_object_new_array();
        ok &= md != NULL;
        for (int i = 0; ok && i < k->model_rank && i < 8; i++)
            ok &= json_object_array_add(md, json_object_new_int64(k->model_dims[i])) == 0;
        ok &= md && json_object_object_add(o, "model_dims", md) == 0;
        if (k->model_dtype)
            ok &= json_object_object_add(o, "model_dtype",
                                         json_object_new_string(k->model_dtype)) == 0;
    }
    if (!ok) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

static Status write_sockets(const char *dir, const ProgSet *s, Diag *d)
{
    json_object *root = json_object_new_object();
    json_object *arr = json_object_new_array();
    bool ok = root && arr && json_object_object_add(root, "sockets", arr) == 0;
    if (!ok)
        json_object_put(arr);
    for (size_t i = 0; ok && i < s->n_sockets; i++) {
        json_object *o = socket_json(&s->sockets[i]);
        ok = o && json_object_array_add(arr, o) == 0;
    }
    const char *txt =
        ok ? json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                      JSON_C_TO_STRING_SPACED |
                                                      JSON_C_TO_STRING_NOSLASHESCAPE)
           : NULL;
    Status st;
    if (!txt) {
        st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory writing sockets.json");
    } else {
        size_t n = strlen(txt);
        char *buf = malloc(n + 2);
        if (!buf) {
            st = diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory writing sockets.json");
        } else {
            memcpy(buf, txt, n);
            buf[n] = '\n';
            st = write_file(dir, "sockets.json", buf, n + 1, d);
            free(buf);
        }
    }
    json_object_put(root);
    return st;
}

/* The process's file mode creation mask (read by setting it and setting it back). */
static mode_t umask_value(void)
{
    mode_t u = umask(022);
    umask(u);
    return u;
}

/* dir without trailing slashes (malloc'd), NULL when out of memory. */
static char *strip_slashes(const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, dir, n);
        p[n] = '\0';
    }
    return p;
}

static char *with_suffix(const char *a, const char *suffix)
{
    size_t la = strlen(a), ls = strlen(suffix);
    char *p = malloc(la + ls + 1);
    if (p) {
        memcpy(p, a, la);
        memcpy(p + la, suffix, ls + 1);
    }
    return p;
}

Status progset_save(const char *dir_in, const ProgSet *s, int text, Diag *d)
{
    if (!s->config)
        return diag_add(d, ST_RUNTIME, "emit.internal", NULL, "a program set without a Config");
    char *dir = strip_slashes(dir_in);
    char *tmp = dir ? with_suffix(dir, ".tmp.XXXXXX") : NULL;
    char *old = dir ? with_suffix(dir, ".old.XXXXXX") : NULL;
    if (!dir || !tmp || !old) {
        free(dir);
        free(tmp);
        free(old);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory writing the program set");
    }
    Status st = ST_OK;
    if (!progset_dir_replaceable(dir))
        st = diag_add(d, ST_RUNTIME, "io.write", dir,
                      "exists and is not a program set's directory (it holds other files, or "
                      "is not a directory): not replaced");
    TirSigHold hold;
    tir_signals_hold(&hold);
    bool made = false;
    if (st == ST_OK) {
        made = mkdtemp(tmp) != NULL;
        if (!made)
            st = diag_add(d, ST_RUNTIME, "io.write", tmp, "cannot create: %s", strerror(errno));
    }
    if (st == ST_OK)
        st = write_program(tmp, s, text, d);
    if (st == ST_OK)
        st = write_data(tmp, s, d);
    if (st == ST_OK)
        st = write_sockets(tmp, s, d);
    if (st == ST_OK && chmod(tmp, 0777 & ~umask_value()) != 0)
        st = diag_add(d, ST_RUNTIME, "io.write", tmp, "cannot set its mode: %s", strerror(errno));
    if (st == ST_OK) {
        struct stat sb;
        bool exists = lstat(dir, &sb) == 0;
        if (exists && mkdtemp(old) == NULL) {
            st = diag_add(d, ST_RUNTIME, "io.write", old, "cannot create: %s", strerror(errno));
        } else if (exists && rename(dir, old) != 0) {
            st = diag_add(d, ST_RUNTIME, "io.write", dir, "cannot move aside: %s",
                          strerror(errno));
            rmdir(old);
        } else if (rename(tmp, dir) != 0) {
            st = diag_add(d, ST_RUNTIME, "io.write", dir, "cannot create: %s", strerror(errno));
            if (exists)
                rename(old, dir);
        } else {
            made = false;
            if (exists)
                remove_set(old);
        }
    }
    if (made)
        remove_set(tmp);
    tir_signals_release(&hold);
    free(dir);
    free(tmp);
    free(old);
    return st;
}
