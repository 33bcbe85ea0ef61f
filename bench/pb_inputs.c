/* pb_inputs: random inputs for the INPUT blocks of a TaskGraph, so that bench/run can time
 * `taskir-run` on a graph that comes without an input file (the example graphs, examples/NAME.txtpb).
 *
 *   pb_inputs GRAPH.pb DIR
 *
 * Plans the graph in the simulator (sim_create: the shapes taskir-run expects) and, for every
 * INPUT block K in graph order, writes DIR/inputK.npy: int32 values in the block's natural
 * shape (sim_input_shape), uniform in the values it admits (its precision's range and its
 * model tensor's declared range, blk_input_range) cut to [-127, 127], from a
 * fixed-seed PRNG (the same files on every run). Prints one line per input, NAME=PATH, ready
 * for `taskir-run GRAPH.pb --input NAME=PATH`; NAME is the block's socket id, else its name.
 * Built by meson (bench/meson.build), never run by `meson test` itself; exit 0, 1 usage,
 * 2 a graph it cannot plan or an INPUT it cannot name, 3 I/O or out of memory.
 */
#include "taskir/diag_block.h"
#include "taskir/graph.h"
#include "taskir/npy.h"
#include "taskir/pbio.h"
#include "taskir/sim.h"

#include <stdio.h>
#include <stdlib.h>

#define TOOL "pb_inputs"

/* xorshift32: deterministic and good enough for benchmark inputs. */
static uint32_t next(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

/* Writes DIR/inputK.npy for INPUT k of run and prints its NAME=PATH line. */
static Status write_input(const SimRun *run, uint32_t k, const char *dir, uint32_t *rng, Diag *d)
{
    const Block *b = sim_input_block(run, k);
    int64_t shape[NPY_MAX_DIMS], n = 1;
    uint32_t nd = sim_input_shape(run, k, shape);
    for (uint32_t i = 0; i < nd; i++)
        n *= shape[i]; /* bounded by the simulator's caps (sim_create) */
    int64_t lo, hi;
    blk_input_range(b, &lo, &hi);
    if (lo < -127)
        lo = -127;
    if (hi > 127)
        hi = 127;
    if (lo > hi)
        return diag_block(d, ST_LOGIC, "bench.input", b, "its precision and declared range "
                          "leave no value in [-127, 127]");
    char name[64], path[4096];
    if (b->has_socket_id)
        snprintf(name, sizeof name, "%d", (int)b->socket_id);
    else if (b->name && *b->name)
        snprintf(name, sizeof name, "%s", b->name);
    else
        return diag_block(d, ST_LOGIC, "bench.input", b, "an INPUT block with neither a socket "
                          "id nor a name cannot be given to taskir-run");
    int len = snprintf(path, sizeof path, "%s/input%u.npy", dir, k);
    if (len < 0 || (size_t)len >= sizeof path)
        return diag_add(d, ST_RUNTIME, "io.write", NULL, "path too long");
    int32_t *x = malloc((size_t)(n ? n : 1) * sizeof *x);
    if (!x)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    uint64_t span = (uint64_t)(hi - lo + 1);
    for (int64_t i = 0; i < n; i++)
        x[i] = (int32_t)(lo + (int64_t)(next(rng) % span));
    Status st = npy_write_i32(path, x, shape, nd, d);
    free(x);
    if (st == ST_OK)
        printf("%s=%s\n", name, path);
    return st;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s GRAPH.pb DIR\n", TOOL);
        return 1;
    }
    Diag d;
    diag_init(&d, argv[1]);
    Graph *g = NULL;
    SimRun *run = NULL;
    SimOptions opt = {.threads = 1, .steps = 1, .keep_all = false};
    Status st = graph_load_pb(argv[1], &g, &d);
    if (st == ST_OK)
        st = sim_create(g, &opt, &run, &d);
    uint32_t rng = 0x2545F491u;
    for (uint32_t k = 0; st == ST_OK && k < sim_n_inputs(run); k++)
        st = write_input(run, k, argv[2], &rng, &d);
    diag_print(&d, stderr, TOOL);
    diag_finish(&d);
    sim_destroy(run);
    graph_destroy(g);
    return (int)st;
}
