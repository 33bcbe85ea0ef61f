/* pb_copies: where the bytes of a TaskGraph .pb come from once the passes have cut it: the
 * data tensors as the graph holds them, the copies of them the passes wrote, by the cut that
 * made each copy, and the messages of blocks, edges and groups (docs/passes.md, "What the
 * output bytes are").
 *
 *   pb_copies GRAPH.pb [--top N]
 *
 * A tensor that several blocks hold (a row band's weights, a replicated storage block's
 * data) is written once per block on the wire. Blocks holding the same values (found by
 * content: a loaded file shares no arrays) hold copies of one tensor: its first holder in
 * block order counts as the tensor, every other one as a copy,
 * put down to the name components in which the holder's name differs from the first
 * holder's: "y3" a row band, "x1" a column band, "f2" a channel piece, "r0" a piece of a
 * reduction cut, "copy2" a copy made by replicate (several: joined with '+'); a copy made by
 * replicate is put down, after "copy:", to where the names of the blocks the two holders
 * feed differ (the cut that made several pieces read one storage block). The bytes of a
 * tensor are those of its packed int32_data / uint32_data varints with their tag and length
 * (float data at 4 bytes a value); whatever the file holds beyond them is the messages.
 * Rows by the holder's block type and the cause; with --top N, the N layers (the first name
 * component) whose copies take the most bytes. Built by meson (bench/meson.build); exit 0,
 * 1 for usage, 2 for a bad graph, 3 for I/O or memory.
 */
#include "bench/pb_bytes.h"
#include "taskir/graph.h"
#include "taskir/pbio.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The values of a tensor and their bytes on the wire. */
static uint64_t tensor_values(const Tensor *t)
{
    return (uint64_t)t->n_i32 + t->n_u32 + t->n_f32;
}

static uint64_t tensor_bytes(const Tensor *t)
{
    uint64_t a = 0, b = 0;
    for (uint32_t k = 0; k < t->n_i32; k++)
        a += varint_len((uint64_t)(int64_t)t->i32[k]);
    for (uint32_t k = 0; k < t->n_u32; k++)
        b += varint_len(t->u32[k]);
    return field_len(a) + field_len(b) + field_len((uint64_t)t->n_f32 * 4);
}

/* A block holding data: its values' count and hash (a file does not share arrays: copies
 * are found by content). */
typedef struct Holder {
    uint64_t n, hash;
    uint32_t block;         /* index in g->blocks */
} Holder;

static int holder_cmp(const void *pa, const void *pb)
{
    const Holder *a = pa, *b = pb;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    if (a->hash != b->hash)
        return a->hash < b->hash ? -1 : 1;
    return a->block < b->block ? -1 : a->block > b->block;
}

/* FNV-1a over the bytes of the value arrays. */
static uint64_t hash_bytes(uint64_t h, const void *p, size_t len)
{
    const uint8_t *s = p;
    for (size_t i = 0; i < len; i++)
        h = (h ^ s[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t tensor_hash(const Tensor *t)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = hash_bytes(h, t->i32, (size_t)t->n_i32 * sizeof *t->i32);
    h = hash_bytes(h, t->u32, (size_t)t->n_u32 * sizeof *t->u32);
    return hash_bytes(h, t->f32, (size_t)t->n_f32 * sizeof *t->f32);
}

static bool same_values(const Tensor *a, const Tensor *b)
{
    return a->n_i32 == b->n_i32 && a->n_u32 == b->n_u32 && a->n_f32 == b->n_f32 &&
           (!a->n_i32 || memcmp(a->i32, b->i32, (size_t)a->n_i32 * sizeof *a->i32) == 0) &&
           (!a->n_u32 || memcmp(a->u32, b->u32, (size_t)a->n_u32 * sizeof *a->u32) == 0) &&
           (!a->n_f32 || memcmp(a->f32, b->f32, (size_t)a->n_f32 * sizeof *a->f32) == 0);
}

enum { CAUSE_LEN = 32, MAX_ROWS = 256, MAX_LAYERS = 4096 };

/* One row of the table: block type and cause ("tensor" for first holders). */
typedef struct Row {
    int type;
    char cause[CAUSE_LEN];
    uint64_t blocks, values, bytes;
} Row;

typedef struct Layer {
    char name[64];
    uint64_t copies, values, bytes;
} Layer;

/* The kind of one name component that differs: the cut axis of "y3" ('y'), "copy" for
 * replicate's "copy2", "other" otherwise. */
static const char *component_kind(const char *s, size_t len)
{
    static const char *const axes[] = {"y", "x", "f", "r"};
    if (len > 4 && strncmp(s, "copy", 4) == 0 && strspn(s + 4, "0123456789") >= len - 4)
        return "copy";
    if (len >= 2 && strchr("yxfr", s[0]) && strspn(s + 1, "0123456789") >= len - 1)
        return axes[strchr("yxfr", s[0]) - "yxfr"];
    return "other";
}

/* The cause of copy `name` of the tensor first held by `first`: the kinds of the name
 * components that differ, in order, joined by '+' (at most a few). */
static void copy_cause(const char *first, const char *name, char *out, size_t size)
{
    out[0] = 0;
    const char *a = first ? first : "", *b = name ? name : "";
    while (*a || *b) {
        size_t la = strcspn(a, "/"), lb = strcspn(b, "/");
        if (la != lb || strncmp(a, b, la) != 0) {
            const char *k = component_kind(lb ? b : a, lb ? lb : la);
            if (!strstr(out, k) && strlen(out) + strlen(k) + 2 < size) {
                if (out[0])
                    strcat(out, "+");
                strcat(out, k);
            }
        }
        a += la + (a[la] == '/');
        b += lb + (b[lb] == '/');
    }
    if (!out[0])
        snprintf(out, size, "other");
}

static Row *row_of(Row *rows, uint32_t *n_rows, int type, const char *cause)
{
    for (uint32_t i = 0; i < *n_rows; i++)
        if (rows[i].type == type && strcmp(rows[i].cause, cause) == 0)
            return &rows[i];
    if (*n_rows == MAX_ROWS)
        return NULL;
    Row *r = &rows[(*n_rows)++];
    memset(r, 0, sizeof *r);
    r->type = type;
    snprintf(r->cause, sizeof r->cause, "%s", cause);
    return r;
}

static Layer *layer_of(Layer *ls, uint32_t *n, const char *name)
{
    size_t len = strcspn(name ? name : "", "/");
    char key[64];
    snprintf(key, sizeof key, "%.*s", (int)(len < 63 ? len : 63), name ? name : "");
    for (uint32_t i = 0; i < *n; i++)
        if (strcmp(ls[i].name, key) == 0)
            return &ls[i];
    if (*n == MAX_LAYERS)
        return NULL;
    Layer *l = &ls[(*n)++];
    memset(l, 0, sizeof *l);
    snprintf(l->name, sizeof l->name, "%s", key);
    return l;
}

static int row_cmp(const void *pa, const void *pb)
{
    const Row *a = pa, *b = pb;
    if (a->type != b->type)
        return a->type < b->type ? -1 : 1;
    return strcmp(a->cause, b->cause);
}

static int layer_cmp(const void *pa, const void *pb)
{
    const Layer *a = pa, *b = pb;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    return strcmp(a->name, b->name);
}

int main(int argc, char **argv)
{
    long top = 0;
    if (argc == 4 && strcmp(argv[2], "--top") == 0)
        top = strtol(argv[3], NULL, 10);
    if ((argc != 2 && argc != 4) || argv[1][0] == '-' || top < 0 || (argc == 4 && top == 0)) {
        fprintf(stderr, "usage: pb_copies GRAPH.pb [--top N]\n");
        return 1;
    }
    Diag d;
    diag_init(&d, argv[1]);
    Graph *g = NULL;
    Status st = graph_load_pb(argv[1], &g, &d);
    diag_print(&d, stderr, "pb_copies");
    diag_finish(&d);
    if (st)
        return (int)st;
    struct stat sb;
    uint64_t file = stat(argv[1], &sb) == 0 ? (uint64_t)sb.st_size : 0;
    Holder *h = malloc((g->n_blocks ? g->n_blocks : 1) * sizeof *h);
    Row *rows = calloc(MAX_ROWS, sizeof *rows);
    Layer *layers = calloc(MAX_LAYERS, sizeof *layers);
    const Block **reader = calloc(g->n_blocks ? g->n_blocks : 1, sizeof *reader);
    if (!h || !rows || !layers || !reader) {
        fprintf(stderr, "pb_copies: out of memory\n");
        free(h), free(rows), free(layers), free(reader);
        graph_destroy(g);
        return 3;
    }
    uint32_t n = 0, n_rows = 0, n_layers = 0;
    /* the first block each block feeds */
    for (uint32_t i = 0; i < g->n_edges; i++) {
        long s = graph_block_pos(g, g->edges[i]->src);
        if (s >= 0 && !reader[s])
            reader[s] = graph_block(g, g->edges[i]->dst);
    }
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        const Tensor *t = g->blocks[i]->data;
        if (t && tensor_values(t))
            h[n++] = (Holder){tensor_values(t), tensor_hash(t), i};
    }
    qsort(h, n, sizeof *h, holder_cmp);
    uint64_t data = 0;
    for (uint32_t i = 0; i < n; i++) {
        /* the first holder of the same values among those of the same count and hash */
        const Block *b = g->blocks[h[i].block], *first = b;
        for (uint32_t k = i; k-- > 0 && h[k].n == h[i].n && h[k].hash == h[i].hash;)
            if (same_values(g->blocks[h[k].block]->data, b->data))
                first = g->blocks[h[k].block];
        uint64_t bytes = tensor_bytes(b->data);
        char cause[CAUSE_LEN] = "tensor";
        if (first != b)
            copy_cause(first->name, b->name, cause, sizeof cause);
        if (strcmp(cause, "copy") == 0) {
            /* replicate's copy of a block several pieces read: put down to the cut that made
             * those pieces, where the readers' names differ */
            char by[CAUSE_LEN - 8];
            long fp = graph_block_pos(g, first->id), bp = graph_block_pos(g, b->id);
            const Block *rf = fp >= 0 ? reader[fp] : NULL, *rb = bp >= 0 ? reader[bp] : NULL;
            if (rf && rb) {
                copy_cause(rf->name, rb->name, by, sizeof by);
                snprintf(cause, sizeof cause, "copy:%s", by);
            }
        }
        Row *r = row_of(rows, &n_rows, (int)b->type, cause);
        Layer *l = first != b ? layer_of(layers, &n_layers, b->name) : NULL;
        if (r)
            r->blocks++, r->values += h[i].n, r->bytes += bytes;
        if (l)
            l->copies++, l->values += h[i].n, l->bytes += bytes;
        data += bytes;
    }
    qsort(rows, n_rows, sizeof *rows, row_cmp);
    printf("%-6s %-10s %7s %12s %14s %7s\n", "type", "cause", "blocks", "values", "bytes",
           "file %");
    double pct = file ? 100.0 / (double)file : 0;
    for (uint32_t i = 0; i < n_rows; i++)
        printf("%-6s %-10s %7" PRIu64 " %12" PRIu64 " %14" PRIu64 " %7.1f\n",
               bt_info((BlockType)rows[i].type)->name, rows[i].cause, rows[i].blocks,
               rows[i].values, rows[i].bytes, pct * (double)rows[i].bytes);
    if (file) {
        uint64_t rest = file > data ? file - data : 0;
        printf("%-17s %7" PRIu32 " %12s %14" PRIu64 " %7.1f\n", "messages", g->n_blocks, "-",
               rest, pct * (double)rest);
        printf("file: %" PRIu64 " bytes, %" PRIu32 " blocks, %" PRIu32 " edges, %" PRIu32
               " groups\n", file, g->n_blocks, g->n_edges, g->n_groups);
    }
    if (top) {
        qsort(layers, n_layers, sizeof *layers, layer_cmp);
        printf("%-32s %7s %12s %14s\n", "layer (copies)", "copies", "values", "bytes");
        for (uint32_t i = 0; i < n_layers && i < (uint32_t)top; i++)
            printf("%-32s %7" PRIu64 " %12" PRIu64 " %14" PRIu64 "\n", layers[i].name,
                   layers[i].copies, layers[i].values, layers[i].bytes);
    }
    free(h), free(rows), free(layers), free(reader);
    graph_destroy(g);
    return 0;
}
