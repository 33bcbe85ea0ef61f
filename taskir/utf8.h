/* utf8.h: UTF-8 checking and cleaning, for the strings taskir writes (block names in .pb
 * files, which protobuf readers refuse unless they are valid UTF-8; JSON and DOT output). */
#ifndef TASKIR_UTF8_H
#define TASKIR_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when the byte there starts none
 * (overlong forms, surrogates and code points past U+10FFFF start none). */
size_t utf8_seq_len(const unsigned char *s);
/* Whether the NUL-terminated s is valid UTF-8. */
bool utf8_valid(const char *s);
/* A malloc'd copy of s with every byte that is not part of valid UTF-8 replaced by U+FFFD.
 * NULL when out of memory. */
char *utf8_clean(const char *s);

#endif
