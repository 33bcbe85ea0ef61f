/* pbvarint.c: see pbvarint.h. Eight bytes are read at a time where the CPU is little-endian
 * (the high bits of a word say where its varints end); elsewhere, and near the end of a run,
 * one byte at a time, with the same results. */
#include "taskir/pbvarint.h"

#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PB_WORDS 1
#else
#define PB_WORDS 0
#endif

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

uint64_t pb_varint_count(const uint8_t *p, size_t n)
{
    uint64_t count = 0;
    size_t i = 0;
#if PB_WORDS
    const uint64_t high = 0x8080808080808080ull, low16 = 0x00ff00ff00ff00ffull;
    /* one counter per byte lane (the bytes of a word that end a varint), summed before a
     * lane can pass 255 */
    while (n - i >= 8) {
        size_t words = (n - i) / 8;
        if (words > 255)
            words = 255;
        uint64_t lanes = 0;
        for (size_t k = 0; k < words; k++, i += 8)
            lanes += (~load64(p + i) & high) >> 7;
        uint64_t pairs = (lanes & low16) + ((lanes >> 8) & low16); /* 4 x 16 bits, <= 510 */
        count += (pairs * 0x0001000100010001ull) >> 48;
    }
#endif
    for (; i < n; i++)
        count += !(p[i] & 0x80);
    return count;
}

/* One varint at *p (< end) as its low 32 bits, a byte at a time; false when it runs past end
 * or past 10 bytes. */
static bool decode_one(const uint8_t **p, const uint8_t *end, uint32_t *v)
{
    uint32_t r = 0;
    for (int i = 0; i < 10 && *p < end; i++) {
        uint8_t b = *(*p)++;
        if (i < 5)
            r |= (uint32_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *v = r;
            return true;
        }
    }
    return false;
}

/* The low 32 bits of the varint whose bytes are w's (the bytes past its end cleared when it
 * is shorter than five). */
static inline uint32_t compact32(uint64_t w)
{
    return (uint32_t)((w & 0x7f) | (w >> 1 & 0x3f80) | (w >> 2 & 0x1fc000) |
                      (w >> 3 & 0xfe00000) | (w >> 4 & 0xf0000000));
}

bool pb_varint_decode32(const uint8_t *p, size_t n, uint32_t *out, uint64_t count)
{
    const uint8_t *end = p + n;
    uint64_t k = 0;
#if PB_WORDS
    /* 64 bytes at a time, from a varint's start: a mask of the bytes that end a varint (bit
     * i: byte i), then each varint up to the last one ending in the block, its first eight
     * bytes read in one word. The reads depend on the mask only, not on each other. Blocks
     * stop 16 bytes before the end, so that every read stays inside the run. */
    while (end - p >= 64 + 16) {
        uint64_t ends = 0;
        for (int i = 0; i < 8; i++) {
            uint64_t t = (~load64(p + 8 * i) & 0x8080808080808080ull) >> 7;
            ends |= (t * 0x0102040810204080ull) >> 56 << (8 * i);
        }
        if (!ends || count - k < (uint64_t)__builtin_popcountll(ends))
            return false; /* longer than 10 bytes (or more varints than counted) */
        int s = 0;
        while (ends) {
            int e = __builtin_ctzll(ends);
            ends &= ends - 1;
            int len = e - s + 1;
            if (len > 10)
                return false;
            /* no branch on the length: it follows the values' signs, unpredictably */
            int keep = len < 8 ? len : 8;
            out[k++] = compact32(load64(p + s) & ~0ull >> (64 - 8 * keep));
            s = e + 1;
        }
        p += s;
    }
#endif
    while (p < end && k < count)
        if (!decode_one(&p, end, &out[k++]))
            return false;
    return p == end && k == count;
}
