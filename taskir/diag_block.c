/* diag_block.c: a finding about a block (diag_block.h), named the way blk_describe names it. */
#include "taskir/diag_block.h"

#include "taskir/graph.h"

#include <stdarg.h>
#include <string.h>

Status diag_block(Diag *d, Status status, const char *rule, const Block *b,
                  const char *fmt, ...)
{
    char buf[512];
    blk_describe(b, buf, sizeof buf);
    va_list ap;
    va_start(ap, fmt);
    diag_vadd(d, status, rule, strdup(buf), true, b->id, false, 0, fmt, ap);
    va_end(ap);
    return status;
}
