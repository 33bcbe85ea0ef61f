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

/* The body of the block decoder, 64 bytes at a time from a varint's start: a mask of the
 * bytes that end a varint (bit i: byte i), then each varint up to the last one ending in the
 * block, its first eight bytes read in one word (its length kept by KEEP(w, bytes), its value
 * taken by COMPACT). The reads depend on the mask only, not on each other, and nothing
 * branches on a value's length (it follows the values' signs, unpredictably). Blocks stop 16
 * bytes before the end, so that every read stays inside the run. Leaves p and k after the
 * last whole block; returns false on a varint longer than 10 bytes. */
#define DECODE_BLOCKS(KEEP, COMPACT) DECODE_BLOCKS_TO(KEEP, COMPACT, STORE32, false)
#define STORE32(v) (out[k++] = (v))
/* The same storing each value by STORE(v), returning BAD on a malformed run. */
#define DECODE_BLOCKS_TO(KEEP, COMPACT, STORE, BAD)                                        \
    while (end - p >= 64 + 16) {                                                           \
        uint64_t ends = 0;                                                                 \
        for (int i = 0; i < 8; i++) {                                                      \
            uint64_t t = (~load64(p + 8 * i) & 0x8080808080808080ull) >> 7;               \
            ends |= (t * 0x0102040810204080ull) >> 56 << (8 * i);                          \
        }                                                                                  \
        if (!ends || (count - k < 64 && count - k < (uint64_t)__builtin_popcountll(ends))) \
            return BAD; /* longer than 10 bytes (or more varints than counted) */          \
        int s = 0;                                                                         \
        while (ends) {                                                                     \
            int e = __builtin_ctzll(ends);                                                 \
            ends &= ends - 1;                                                              \
            int len = e - s + 1;                                                           \
            if (len > 10)                                                                  \
                return BAD;                                                                \
            int keep = len < 8 ? len : 8;                                                  \
            STORE(COMPACT(KEEP(load64(p + s), 8 * keep)));                                 \
            s = e + 1;                                                                     \
        }                                                                                  \
        p += s;                                                                            \
    }

/* The last varints of a run, a byte at a time; whether the run ended exactly there. */
static bool decode_tail(const uint8_t *p, const uint8_t *end, uint32_t *out, uint64_t k,
                        uint64_t count)
{
    while (p < end && k < count)
        if (!decode_one(&p, end, &out[k++]))
            return false;
    return p == end && k == count;
}

#if PB_WORDS
#define KEEP_C(w, bits) ((w) & ~0ull >> (64 - (bits)))

static bool decode_words(const uint8_t *p, const uint8_t *end, uint32_t *out, uint64_t count)
{
    uint64_t k = 0;
    DECODE_BLOCKS(KEEP_C, compact32)
    return decode_tail(p, end, out, k, count);
}
#endif

#if PB_WORDS && defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define PB_HAVE_BMI2 1
#define BMI2 __attribute__((target("bmi,bmi2,popcnt")))

/* The same with BMI2's bit gather: the 4 x 7 + 4 value bits in one instruction. */
BMI2 static inline uint64_t keep_bmi2(uint64_t w, int bits)
{
    return _bzhi_u64(w, (unsigned)bits);
}

BMI2 static inline uint32_t compact_bmi2(uint64_t w)
{
    return (uint32_t)_pext_u64(w, 0x0000000f7f7f7f7full);
}

BMI2 static bool decode_bmi2(const uint8_t *p, const uint8_t *end, uint32_t *out,
                             uint64_t count)
{
    uint64_t k = 0;
    DECODE_BLOCKS(keep_bmi2, compact_bmi2)
    return decode_tail(p, end, out, k, count);
}

/* Stores v as an int8 (its low byte), noting in wide whether it is outside -128 .. 127. */
#define STORE8(v)                                                                          \
    do {                                                                                   \
        uint32_t v_ = (v);                                                                 \
        wide |= (v_ + 128u) & ~0xffu;                                                      \
        out[k++] = (int8_t)(v_ & 0xffu);                                                   \
    } while (0)

/* pb_varint_decode8 in one pass: the block decoder storing a byte a value, then the tail. */
BMI2 static PbNarrow decode8_bmi2(const uint8_t *p, const uint8_t *end, int8_t *out,
                                  uint64_t count)
{
    uint64_t k = 0;
    uint32_t wide = 0;
    DECODE_BLOCKS_TO(keep_bmi2, compact_bmi2, STORE8, PB_NARROW_MALFORMED)
    while (!wide && p < end && k < count) {
        uint32_t v;
        if (!decode_one(&p, end, &v))
            return PB_NARROW_MALFORMED;
        STORE8(v);
    }
    if (wide)
        return PB_NARROW_WIDE;
    return p == end && k == count ? PB_NARROW_OK : PB_NARROW_MALFORMED;
}
#else
#define PB_HAVE_BMI2 0
#endif

bool pb_varint_path_ok(PbVarintPath path)
{
    switch (path) {
    case PB_VARINT_BYTES:
    case PB_VARINT_BEST:
        return true;
    case PB_VARINT_WORDS:
        return PB_WORDS;
    case PB_VARINT_BMI2:
#if PB_HAVE_BMI2
        __builtin_cpu_init();
        return __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
               __builtin_cpu_supports("popcnt");
#else
        return false;
#endif
    }
    return false;
}

bool pb_varint_decode32_by(PbVarintPath path, const uint8_t *p, size_t n, uint32_t *out,
                           uint64_t count)
{
    if (path == PB_VARINT_BEST)
        path = pb_varint_path_ok(PB_VARINT_BMI2) ? PB_VARINT_BMI2 : PB_VARINT_WORDS;
    if (!pb_varint_path_ok(path))
        path = PB_VARINT_BYTES;
    switch (path) {
#if PB_HAVE_BMI2
    case PB_VARINT_BMI2:
        return decode_bmi2(p, p + n, out, count);
#endif
#if PB_WORDS
    case PB_VARINT_WORDS:
        return decode_words(p, p + n, out, count);
#endif
    default:
        return decode_tail(p, p + n, out, 0, count);
    }
}

bool pb_varint_decode32(const uint8_t *p, size_t n, uint32_t *out, uint64_t count)
{
    return pb_varint_decode32_by(PB_VARINT_BEST, p, n, out, count);
}

/* pb_varint_decode8 without BMI2: chunks decoded by pb_varint_decode32, then narrowed. */
static PbNarrow decode8_chunks(const uint8_t *p, size_t n, int8_t *out, uint64_t count)
{
    /* a chunk of at most CH bytes ending where a varint ends holds at most CH varints,
     * decoded into scratch, then narrowed */
    enum { CH = 4096 };
    uint32_t scratch[CH];
    const uint8_t *end = p + n;
    uint64_t k = 0;
    while (p < end) {
        size_t len = (size_t)(end - p) > CH ? CH : (size_t)(end - p);
        while (len > 0 && (p[len - 1] & 0x80)) /* back to the end of a varint */
            len--;
        if (len == 0) /* CH bytes without an end: longer than 10 bytes */
            return PB_NARROW_MALFORMED;
        uint64_t c = pb_varint_count(p, len);
        if (c > count - k || !pb_varint_decode32(p, len, scratch, c))
            return PB_NARROW_MALFORMED;
        uint32_t wide = 0;
        for (uint64_t i = 0; i < c; i++) {
            wide |= (scratch[i] + 128u) & ~0xffu; /* not in -128 .. 127 as an int32 */
            out[k + i] = (int8_t)(scratch[i] & 0xffu);
        }
        if (wide)
            return PB_NARROW_WIDE;
        k += c;
        p += len;
    }
    return k == count ? PB_NARROW_OK : PB_NARROW_MALFORMED;
}

PbNarrow pb_varint_decode8_by(PbVarintPath path, const uint8_t *p, size_t n, int8_t *out,
                              uint64_t count)
{
#if PB_HAVE_BMI2
    if ((path == PB_VARINT_BMI2 || path == PB_VARINT_BEST) && pb_varint_path_ok(PB_VARINT_BMI2))
        return decode8_bmi2(p, p + n, out, count);
#endif
    (void)path;
    return decode8_chunks(p, n, out, count);
}

PbNarrow pb_varint_decode8(const uint8_t *p, size_t n, int8_t *out, uint64_t count)
{
    return pb_varint_decode8_by(PB_VARINT_BEST, p, n, out, count);
}
