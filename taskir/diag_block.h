/* diag_block.h: recording a finding about a block: a Diag entry (diag.h) whose block_id is the
 * block's and whose where text is blk_describe's ("block 17 (CC 'conv1')"). Apart from diag.h
 * because it needs the Graph, which itself reports through diag.h.
 */
#ifndef TASKIR_DIAG_BLOCK_H
#define TASKIR_DIAG_BLOCK_H

#include "taskir/diag.h"

struct Block;
Status diag_block(Diag *d, Status status, const char *rule, const struct Block *b,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
