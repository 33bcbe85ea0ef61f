/* asm_text_of: prints a binary taskir.asm.Config (argv[1]) in protobuf text form with
 * backend/asm_text_write.c, for tests/asm/text_write.sh to compare with protoc --decode. */
#include <stdio.h>
#include <stdlib.h>

#include "backend/asm_text.h"
#include "program.pb-c.h"

int main(int argc, char **argv)
{
    if (argc != 2)
        return 1;
    FILE *f = fopen(argv[1], "rb");
    if (!f)
        return 3;
    static uint8_t buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    Taskir__Asm__Config *c = taskir__asm__config__unpack(NULL, n, buf);
    if (!c)
        return 2;
    char *txt;
    size_t len;
    if (!asm_text_write(&c->base, &txt, &len))
        return 3;
    fwrite(txt, 1, len, stdout);
    free(txt);
    taskir__asm__config__free_unpacked(c, NULL);
    return 0;
}
