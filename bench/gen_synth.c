/* gen_synth: the synthetic TaskGraph of the mapper's benchmark (bench/map, docs/mapper.md
 * "Benchmark"): a stack of 3 x 3 convolutions over a feature map cut into tiles, each tile
 * of each layer already one core's share, as the split pass would cut it, so that
 * `taskir-map` maps it as it is (the graph has groups: no passes run).
 *
 *   gen_synth [--tiles N] [--layers L] OUT.pb
 *
 * The feature map is (N*4) x (N*4) pixels of 16 int8 channels, cut into N x N tiles of
 * 4 x 4 pixels (default N = 16). Every layer (default L = 20), every tile: an SIC holding the
 * tile with its one-pixel halo (cut at the map's edge, where the convolution pads instead),
 * filled by the tiles around it in the layer before (the INPUT for the first layer); its own
 * 3 x 3 x 16 x 16 int8 weights (SW); a CC into an int32 SI; a CCMPB (ReLU, shift 8) whose
 * int8 result goes to the halos of the up to nine tiles of the next layer (the last layer: a
 * storage block per tile, read by the OUTPUT). Groups: {SIC, SW, CC} and {SI, CCMPB} (with
 * the tile's output storage in the last layer): 2 N^2 L groups, 10,240 by default. Weights
 * come from a fixed formula (0 .. 3, so that the .pb stays small: 24 MB by default): the
 * same bytes on every run.
 *
 * Exit status: 0, 1 usage, 2 a size out of range, 3 out of memory or I/O.
 */
#include "passes/groups.h"
#include "taskir/pbio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "gen_synth"
#define TILE 4    /* pixels per tile side */
#define CH 16     /* channels */
#define SHIFT 8   /* the CCMPB's right shift (even: one Soma shift) */

typedef struct Synth {
    Graph *g;
    int n, layers;
    Block **sic;  /* per tile: the SIC of the layer being built */
    Block **out;  /* per tile: the CCMPB of the layer before */
    Block **next; /* per tile: the CCMPB of the layer being built */
    size_t tl;    /* tile-layers: n * n * layers */
    int32_t *grp; /* per tile-layer k: SIC, SW, CC, SI at 4k; CCMPB, output SI at 4 tl + 2k */
    int64_t w[CH * CH * 9];
} Synth;

static Block *add(Synth *s, BlockType t, const char *name, PrecisionId p, const int32_t d[8])
{
    Block *b = graph_add_block(s->g, t, GRAPH_AUTO_ID, name);
    if (!b)
        return NULL;
    memcpy(b->shape.d, d, sizeof b->shape.d);
    b->has_shape = true;
    b->prec = p;
    b->has_prec = true;
    return b;
}

/* Rows [lo, hi) of tile i's input window: the tile and its halo, inside the map. */
static void window(const Synth *s, int i, int *lo, int *hi)
{
    *lo = i * TILE > 0 ? i * TILE - 1 : 0;
    *hi = i * TILE + TILE + 1 < s->n * TILE ? i * TILE + TILE + 1 : s->n * TILE;
}

/* Joins what tile (i, j) computes (the box at (i*T, j*T) of the map, of src's output) to the
 * halo window of every tile (a, b) whose window overlaps it. */
static bool feed(Synth *s, Block *src, int i, int j, bool src_is_map)
{
    for (int a = i - 1; a <= i + 1; a++)
        for (int b = j - 1; b <= j + 1; b++) {
            if (a < 0 || b < 0 || a >= s->n || b >= s->n)
                continue;
            int y0, y1, x0, x1;
            window(s, a, &y0, &y1);
            window(s, b, &x0, &x1);
            int oy0 = i * TILE > y0 ? i * TILE : y0, oy1 = i * TILE + TILE < y1 ? i * TILE + TILE : y1;
            int ox0 = j * TILE > x0 ? j * TILE : x0, ox1 = j * TILE + TILE < x1 ? j * TILE + TILE : x1;
            if (oy0 >= oy1 || ox0 >= ox1)
                continue;
            int32_t sy = src_is_map ? oy0 : oy0 - i * TILE, sx = src_is_map ? ox0 : ox0 - j * TILE;
            int32_t spos[6] = {sy, sx, 0, 0, 0, 0};
            int32_t size[6] = {oy1 - oy0, ox1 - ox0, CH, 0, 0, 0};
            int32_t dpos[6] = {oy0 - y0, ox0 - x0, 0, 0, 0, 0};
            if (!graph_connect_box(s->g, src, 0, spos, size, s->sic[a * s->n + b], 0, dpos, size))
                return false;
        }
    return true;
}

static bool build(Synth *s)
{
    Graph *g = s->g;
    int n = s->n, side = n * TILE;
    char name[96];
    Block *in = graph_add_block(g, BT_INPUT, GRAPH_AUTO_ID, "data");
    if (!in)
        return false;
    in->shape.d[D_Y] = side;
    in->shape.d[D_X] = side;
    in->shape.d[D_F] = CH;
    in->has_shape = true;
    in->prec = PR_INT_8; /* int8 pixels: the chip's int32 sums cannot overflow (map.exact) */
    in->has_prec = true;
    in->socket_id = 0;
    in->has_socket_id = true;
    Block *o = graph_add_block(g, BT_OUTPUT, GRAPH_AUTO_ID, "out");
    if (!o)
        return false;
    o->shape = in->shape;
    o->has_shape = true;
    o->socket_id = 0;
    o->has_socket_id = true;
    uint32_t k = 0;
    for (int l = 0; l < s->layers; l++) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                int y0, y1, x0, x1;
                window(s, i, &y0, &y1);
                window(s, j, &x0, &x1);
                int t = i * n + j;
                snprintf(name, sizeof name, "l%d/t%d_%d/in", l, i, j);
                Block *sic = add(s, BT_SIC, name, PR_INT_8,
                                 (const int32_t[8]){y1 - y0, x1 - x0, 0, CH, 0, 0, 0, 0});
                snprintf(name, sizeof name, "l%d/t%d_%d/w", l, i, j);
                Block *sw = add(s, BT_SW, name, PR_INT_8,
                                (const int32_t[8]){0, 0, CH, CH, 3, 3, 0, 0});
                snprintf(name, sizeof name, "l%d/t%d_%d", l, i, j);
                Block *cc = add(s, BT_CC, name, PR_INT_32,
                                (const int32_t[8]){TILE, TILE, CH, CH, 3, 3, y1 - y0, x1 - x0});
                snprintf(name, sizeof name, "l%d/t%d_%d/acc", l, i, j);
                Block *si = add(s, BT_SI, name, PR_INT_32,
                                (const int32_t[8]){TILE, TILE, CH, 0, 0, 0, 0, 0});
                snprintf(name, sizeof name, "l%d/t%d_%d/relu", l, i, j);
                Block *cmp = add(s, BT_CCMPB, name, PR_INT_8,
                                 (const int32_t[8]){TILE, TILE, CH, 0, 0, 0, 0, 0});
                if (!sic || !sw || !cc || !si || !cmp)
                    return false;
                /* a fixed formula per layer and tile; 0 .. 3: one byte a value on the wire */
                for (int q = 0; q < CH * CH * 9; q++)
                    s->w[q] = (int64_t)((q * 7 + l * 13 + t * 5) % 4);
                if (!blk_set_data(g, sw, PR_INT_8, (const int32_t[4]){CH, CH, 3, 3}, 4, s->w,
                                  CH * CH * 9) ||
                    !blk_set_attr(g, cc, AT_PAD_UP, i == 0) ||
                    !blk_set_attr(g, cc, AT_PAD_DOWN, i == n - 1) ||
                    !blk_set_attr(g, cc, AT_PAD_LEFT, j == 0) ||
                    !blk_set_attr(g, cc, AT_PAD_RIGHT, j == n - 1) ||
                    !blk_set_attr(g, cmp, AT_CMP, 0) || !blk_set_attr(g, cmp, AT_BIT_SHIFT_NUM, SHIFT))
                    return false;
                if (!graph_connect(g, sic, 0, cc, 0) || !graph_connect(g, sw, 0, cc, 1) ||
                    !graph_connect(g, cc, 0, si, 0) || !graph_connect(g, si, 0, cmp, 0))
                    return false;
                int32_t *m = &s->grp[(size_t)k * 4];
                m[0] = sic->id;
                m[1] = sw->id;
                m[2] = cc->id;
                m[3] = si->id;
                s->grp[4 * s->tl + 2 * (size_t)k] = cmp->id;
                k++;
                s->sic[t] = sic;
                s->next[t] = cmp;
            }
        for (int i = 0; i < n; i++) /* the layer before (or the input) fills the halos */
            for (int j = 0; j < n; j++)
                if (!(l == 0 ? feed(s, in, i, j, true) : feed(s, s->out[i * n + j], i, j, false)))
                    return false;
        memcpy(s->out, s->next, (size_t)n * n * sizeof *s->out);
    }
    for (int i = 0; i < n; i++) /* the last layer's results, per tile, to the OUTPUT */
        for (int j = 0; j < n; j++) {
            snprintf(name, sizeof name, "t%d_%d/out", i, j);
            Block *so = add(s, BT_SI, name, PR_INT_8,
                            (const int32_t[8]){TILE, TILE, CH, 0, 0, 0, 0, 0});
            if (!so || !graph_connect(g, s->out[i * n + j], 0, so, 0))
                return false;
            int32_t dpos[6] = {i * TILE, j * TILE, 0, 0, 0, 0};
            int32_t size[6] = {TILE, TILE, CH, 0, 0, 0};
            if (!graph_connect_box(g, so, 0, NULL, NULL, o, 0, dpos, size))
                return false;
            s->grp[4 * s->tl + 2 * (k - (uint32_t)(n * n) + (uint32_t)(i * n + j)) + 1] = so->id;
        }
    return !graph_oom(g);
}

/* The groups: {SIC, SW, CC} and {SI, CCMPB} per tile-layer (+ the tile's output storage). */
static bool add_groups(Synth *s)
{
    GroupMap m;
    if (!group_map_build(s->g, &m))
        return false;
    size_t last = s->tl - (size_t)s->n * s->n;
    bool ok = true;
    for (size_t k = 0; ok && k < s->tl; k++) {
        const int32_t *a = &s->grp[k * 4];
        const int32_t *c = &s->grp[4 * s->tl + 2 * k];
        int32_t second[3] = {a[3], c[0], c[1]};
        ok = group_add(s->g, &m, a, 3) >= 0 && group_add(s->g, &m, second, k >= last ? 3 : 2) >= 0;
    }
    group_map_finish(&m);
    return ok;
}

/* A count in [lo, hi]. */
static bool count(const char *v, long lo, long hi, int *out)
{
    if (!v || !*v)
        return false;
    errno = 0;
    char *end;
    long x = strtol(v, &end, 10);
    if (errno || *end || x < lo || x > hi)
        return false;
    *out = (int)x;
    return true;
}

int main(int argc, char **argv)
{
    Synth s = {.n = 16, .layers = 20};
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--tiles") == 0 && i + 1 < argc) {
            if (!count(argv[++i], 1, 64, &s.n)) {
                fprintf(stderr, "%s: --tiles takes 1 .. 64, not '%s'\n", TOOL, argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--layers") == 0 && i + 1 < argc) {
            if (!count(argv[++i], 1, 1000, &s.layers)) {
                fprintf(stderr, "%s: --layers takes 1 .. 1000, not '%s'\n", TOOL, argv[i]);
                return 2;
            }
        } else if (argv[i][0] == '-' || out) {
            fprintf(stderr, "usage: %s [--tiles N] [--layers L] OUT.pb\n", TOOL);
            return 1;
        } else {
            out = argv[i];
        }
    }
    if (!out) {
        fprintf(stderr, "usage: %s [--tiles N] [--layers L] OUT.pb\n", TOOL);
        return 1;
    }
    s.tl = (size_t)s.n * (size_t)s.n * (size_t)s.layers;
    s.g = graph_create();
    s.sic = calloc((size_t)s.n * s.n, sizeof *s.sic);
    s.out = calloc((size_t)s.n * s.n, sizeof *s.out);
    s.next = calloc((size_t)s.n * s.n, sizeof *s.next);
    s.grp = calloc(s.tl * 6, sizeof *s.grp);
    Diag d;
    diag_init(&d, out);
    Status st = ST_OK;
    if (!s.g || !s.sic || !s.out || !s.next || !s.grp || !build(&s) || !add_groups(&s))
        st = diag_add(&d, ST_RUNTIME, "oom", NULL, "out of memory building the graph");
    if (st == ST_OK)
        st = graph_save_pb(s.g, out, &d);
    diag_print(&d, stderr, TOOL);
    diag_finish(&d);
    graph_destroy(s.g);
    free(s.sic);
    free(s.out);
    free(s.next);
    free(s.grp);
    return (int)st;
}
