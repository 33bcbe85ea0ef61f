/* pb_weights: how much of a TaskGraph .pb its data tensors take on the wire, per block type,
 * and what the compact int8 encoding proposed in docs/formats.md ("Compact int8 tensors")
 * would make of them.
 *
 *   pb_weights GRAPH.pb
 *
 * For every block type that carries data (SW, SW2D, SWFC, SB, ...) it prints the number of
 * blocks and values, the bytes their int32_data takes now (packed varints: a value v takes
 * the varint length of (uint64)(int64)v, so every negative value takes 10 bytes; plus the
 * field's tag and length prefix), how many values fit int8, and the bytes the same tensors
 * would take with `bytes packed_int8 = 100` where every value fits int8 (one byte a value
 * plus tag and length; other tensors unchanged). Then the file size, the share of the file
 * the int32_data of weights takes, and the file size projected with the compact encoding.
 * Built by meson (bench/meson.build), run by bench/compile; exit 0, 2 for a bad graph, 3 for
 * I/O.
 */
#include "bench/pb_bytes.h"
#include "taskir/graph.h"
#include "taskir/pbio.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct Row {
    uint64_t blocks, values, int8_values;
    uint64_t now;           /* int32_data field bytes */
    uint64_t compact;       /* the same tensors with packed_int8 where possible */
} Row;

int main(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: pb_weights GRAPH.pb\n");
        return 1;
    }
    Diag d;
    diag_init(&d, argv[1]);
    Graph *g = NULL;
    Status st = graph_load_pb(argv[1], &g, &d);
    diag_print(&d, stderr, "pb_weights");
    diag_finish(&d);
    if (st)
        return (int)st;
    struct stat sb;
    uint64_t file = stat(argv[1], &sb) == 0 ? (uint64_t)sb.st_size : 0;
    Row rows[BT_COUNT], all = {0};
    memset(rows, 0, sizeof rows);
    for (uint32_t i = 0; i < g->n_blocks; i++) {
        const Block *b = g->blocks[i];
        const Tensor *t = b->data;
        if (!t || !t->n_i32)
            continue;
        Row *r = &rows[b->type];
        uint64_t payload = 0, fits = 0;
        for (uint32_t k = 0; k < t->n_i32; k++) {
            int64_t v = t->i32[k];
            payload += varint_len((uint64_t)v);
            fits += v >= -128 && v <= 127;
        }
        r->blocks++;
        r->values += t->n_i32;
        r->int8_values += fits;
        r->now += field_len(payload);
        r->compact += fits == t->n_i32 ? field_len(t->n_i32) : field_len(payload);
    }
    printf("%-6s %7s %12s %12s %14s %14s\n", "type", "blocks", "values", "int8-valued",
           "int32_data B", "packed_int8 B");
    for (int t = 0; t < BT_COUNT; t++) {
        const Row *r = &rows[t];
        if (!r->blocks)
            continue;
        printf("%-6s %7" PRIu64 " %12" PRIu64 " %12" PRIu64 " %14" PRIu64 " %14" PRIu64 "\n",
               bt_info((BlockType)t)->name, r->blocks, r->values, r->int8_values, r->now,
               r->compact);
        all.blocks += r->blocks;
        all.values += r->values;
        all.int8_values += r->int8_values;
        all.now += r->now;
        all.compact += r->compact;
    }
    printf("%-6s %7" PRIu64 " %12" PRIu64 " %12" PRIu64 " %14" PRIu64 " %14" PRIu64 "\n", "all",
           all.blocks, all.values, all.int8_values, all.now, all.compact);
    if (file) {
        printf("file: %" PRIu64 " bytes; data tensors take %.1f%% of it (%.2f bytes a value)\n",
               file, 100.0 * (double)all.now / (double)file,
               all.values ? (double)all.now / (double)all.values : 0.0);
        uint64_t projected = file - all.now + all.compact;
        printf("with packed_int8: %" PRIu64 " bytes (%.1f%% of now)\n", projected,
               100.0 * (double)projected / (double)file);
    }
    graph_destroy(g);
    return 0;
}
