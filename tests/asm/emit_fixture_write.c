/* emit_fixture_write DIR: writes the code generator's fixture Mappings (emit_fixture.h) as
 * DIR/conv.map.pb, DIR/conv_odd.map.pb (shift 7) and DIR/transfer.map.pb, for the tool tests
 * (tests/asm/emit_cli.sh). */
#include <stdio.h>
#include <string.h>

#include "emit_fixture.h"

static int save(Mapping *m, const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    Diag d;
    diag_init(&d, path);
    Status st = mapping_save_pb(m, path, &d);
    diag_print(&d, stderr, "emit_fixture_write");
    diag_finish(&d);
    mapping_destroy(m);
    return st == ST_OK ? 0 : 3;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 1;
    int rc = save(emit_fixture_conv(8), argv[1], "conv.map.pb");
    rc |= save(emit_fixture_conv(7), argv[1], "conv_odd.map.pb");
    rc |= save(emit_fixture_transfer(2, 2), argv[1], "transfer.map.pb");
    return rc;
}
