/* diff_graph.c: writes one of the diff suite's generated graphs (randgraph.h) as a TaskGraph
 * .pb, so that the whole chain can run it (tests/asm/emit_example.sh: taskir-map, taskir-emit,
 * `taskir-run DIR` against taskir-run on the Mapping).
 *
 *   diff_graph random SEED OUT.pb     rg_random_graph(SEED): a random requantized CVM model
 *   diff_graph lif N OUT.pb           rg_lif_graph(N): a spiking graph of N neurons
 *
 * Prints the graph's one-line description. Exit 0; 1 usage; 3 the file cannot be written. */
#include "randgraph.h"
#include "taskir/pbio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "diff_graph"

static int usage(void)
{
    fprintf(stderr, "usage: %s random SEED OUT.pb | lif N OUT.pb\n", TOOL);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return usage();
    char *end;
    errno = 0;
    unsigned long long n = strtoull(argv[2], &end, 10);
    if (!*argv[2] || *end || errno || argv[2][0] == '-')
        return usage();
    char what[256] = "";
    Graph *g = NULL;
    if (strcmp(argv[1], "random") == 0)
        g = rg_random_graph((uint64_t)n, what, sizeof what);
    else if (strcmp(argv[1], "lif") == 0 && n >= 1 && n <= 4096) {
        g = rg_lif_graph((int32_t)n);
        snprintf(what, sizeof what, "lif %llu neurons", n);
    } else
        return usage();
    if (!g) {
        fprintf(stderr, "%s: %s %s: no graph\n", TOOL, argv[1], argv[2]);
        return 3;
    }
    Diag d;
    diag_init(&d, argv[3]);
    Status st = graph_save_pb(g, argv[3], &d);
    diag_print(&d, stderr, TOOL);
    diag_finish(&d);
    graph_destroy(g);
    if (st == ST_OK)
        printf("%s\n", what);
    return (int)st;
}
