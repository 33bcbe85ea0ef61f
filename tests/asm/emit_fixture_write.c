/* emit_fixture_write DIR: writes the code generator's fixture Mappings (emit_fixture.h) as
 * DIR/conv.map.pb, DIR/conv_odd.map.pb (shift 7), DIR/conv_banks.map.pb, DIR/transfer.map.pb,
 * DIR/transfer_late.map.pb, DIR/transfer_twice.map.pb, DIR/slice.map.pb,
 * DIR/mix.map.pb, DIR/fc.map.pb, DIR/cax.map.pb, DIR/two_layer.map.pb, DIR/relay.map.pb,
 * DIR/relay_sibling.map.pb, DIR/chain.map.pb, DIR/chips.map.pb, DIR/relay_now.map.pb,
 * DIR/spread.map.pb, DIR/spread3.map.pb, DIR/spread_runs.map.pb,
 * DIR/spread_two.map.pb, DIR/spread_local.map.pb, DIR/spread_edges.map.pb,
 * DIR/spread_slices.map.pb, DIR/relay_parts.map.pb, DIR/relay_parts_now.map.pb,
 * DIR/spread_cap.map.pb, DIR/spread_cut.map.pb,
 * DIR/chmerge.map.pb, DIR/chain_two.map.pb, DIR/chain_three.map.pb, DIR/chain_apart.map.pb,
 * DIR/pieces.map.pb, and
 * each one's graph alone as DIR/NAME.pb, for the tool tests
 * (tests/asm/emit_cli.sh, emit_chain.sh). */
#include <stdio.h>
#include <string.h>

#include "emit_fixture.h"
#include "taskir/pbio.h"

/* Writes m as DIR/NAME.map.pb and its graph as DIR/NAME.pb. */
static int save(Mapping *m, const char *dir, const char *name)
{
    char path[4096], gpath[4096];
    snprintf(path, sizeof path, "%s/%s.map.pb", dir, name);
    snprintf(gpath, sizeof gpath, "%s/%s.pb", dir, name);
    Diag d;
    diag_init(&d, path);
    Status st = mapping_save_pb(m, path, &d);
    if (st == ST_OK)
        st = graph_save_pb(m->graph, gpath, &d);
    diag_print(&d, stderr, "emit_fixture_write");
    diag_finish(&d);
    mapping_destroy(m);
    return st == ST_OK ? 0 : 3;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 1;
    int rc = save(emit_fixture_conv(8), argv[1], "conv");
    rc |= save(emit_fixture_conv(7), argv[1], "conv_odd");
    rc |= save(emit_fixture_conv_banks(), argv[1], "conv_banks");
    rc |= save(emit_fixture_transfer(2, 2), argv[1], "transfer");
    rc |= save(emit_fixture_transfer_late(2, 2), argv[1], "transfer_late");
    rc |= save(emit_fixture_transfer_twice(), argv[1], "transfer_twice");
    rc |= save(emit_fixture_slice(1, 3, 1, 2), argv[1], "slice");
    rc |= save(emit_fixture_mix(), argv[1], "mix");
    rc |= save(emit_fixture_fc(), argv[1], "fc");
    rc |= save(emit_fixture_cax(), argv[1], "cax");
    rc |= save(emit_fixture_two_layer(), argv[1], "two_layer");
    rc |= save(emit_fixture_relay(1, false), argv[1], "relay");
    rc |= save(emit_fixture_relay(1, true), argv[1], "relay_sibling");
    rc |= save(emit_fixture_relay(-1, true), argv[1], "chain");
    rc |= save(emit_fixture_chips(), argv[1], "chips");
    rc |= save(emit_fixture_relay(0, false), argv[1], "relay_now");
    rc |= save(emit_fixture_spread(), argv[1], "spread");
    rc |= save(emit_fixture_spread3(), argv[1], "spread3");
    rc |= save(emit_fixture_spread_runs(), argv[1], "spread_runs");
    rc |= save(emit_fixture_spread_two(), argv[1], "spread_two");
    rc |= save(emit_fixture_spread_local(), argv[1], "spread_local");
    rc |= save(emit_fixture_spread_edges(), argv[1], "spread_edges");
    rc |= save(emit_fixture_spread_slices(), argv[1], "spread_slices");
    rc |= save(emit_fixture_relay_parts(1), argv[1], "relay_parts");
    rc |= save(emit_fixture_relay_parts(0), argv[1], "relay_parts_now");
    rc |= save(emit_fixture_spread_cap(), argv[1], "spread_cap");
    rc |= save(emit_fixture_spread_cut(), argv[1], "spread_cut");
    rc |= save(emit_fixture_chmerge(), argv[1], "chmerge");
    rc |= save(emit_fixture_pieces(), argv[1], "pieces");
    rc |= save(emit_fixture_chain_two(), argv[1], "chain_two");
    rc |= save(emit_fixture_chain_three(), argv[1], "chain_three");
    rc |= save(emit_fixture_chain_apart(), argv[1], "chain_apart");
    return rc;
}
