/* utf8.c: UTF-8 checking and cleaning (utf8.h). */
#include "taskir/utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t utf8_seq_len(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t n;
    uint32_t cp, min;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, cp = c & 0x1f, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, cp = c & 0x0f, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, cp = c & 0x07, min = 0x10000;
    else
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

char *utf8_clean(const char *s)
{
    size_t len = strlen(s);
    if (len > (SIZE_MAX - 1) / 3)
        return NULL;
    char *r = malloc(len * 3 + 1); /* each bad byte becomes 3 bytes */
    if (!r)
        return NULL;
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0;
    while (*p) {
        size_t n = utf8_seq_len(p);
        if (n == 0) {
            memcpy(r + o, "\xef\xbf\xbd", 3);
            o += 3;
            p++;
        } else {
            memcpy(r + o, p, n);
            o += n;
            p += n;
        }
    }
    r[o] = 0;
    return r;
}

bool utf8_valid(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_seq_len(p);
        if (!n)
            return false;
        p += n;
    }
    return true;
}
