/* chip.h: the chip description (docs/chip.md): the facts of a Tianjic-family chip that the
 * passes, the mapper and the backend read, loaded from an XML file validated against
 * taskir/chip.xsd. The default description (examples/chips/tianjicx.xml) is built into the
 * library, so a tool finds it wherever it is installed.
 *
 * A Chip is plain data, read-only once loaded. Sizes are in bytes unless a name says words
 * (1 word = 4 B). Cost functions over blocks (aligned memory, clocks) are in chip_cost.h.
 */
#ifndef TASKIR_CHIP_H
#define TASKIR_CHIP_H

#include "taskir/diag.h"
#include "taskir/types.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum { UNIT_AXON, UNIT_SOMA, UNIT_ROUTER, UNIT_COUNT } ChipUnit;

/* One memory bank of a core (MEM0 .. MEM3). */
typedef struct ChipBank {
    char name[8];             /* "MEM0" */
    uint32_t base_word;       /* first word address */
    uint32_t words;           /* size in words */
    uint32_t role;            /* CHIP_BANK_* bits: what the bank holds */
} ChipBank;

enum {
    CHIP_BANK_DATA = 1u << 0,     /* inputs, outputs, intermediate data */
    CHIP_BANK_WEIGHTS = 1u << 1,  /* weights, biases, tables */
    CHIP_BANK_PRIM = 1u << 2,     /* the primitive (program) area */
    CHIP_BANK_HEADERS = 1u << 3,  /* the router-header table */
    CHIP_BANK_RECEIVE = 1u << 4,  /* the router's receive area */
    CHIP_BANK_STREAM = 1u << 5,   /* the Soma -> Router stream register */
    CHIP_ROLE_COUNT = 6           /* the number of role bits */
};

/* A named part of a bank with its own role (MEM2's primitive, header and receive areas). */
typedef struct ChipArea {
    char name[16];            /* "receive" */
    uint32_t bank;            /* index in Chip.banks */
    uint32_t base_word;
    uint32_t words;
    uint32_t role;            /* CHIP_BANK_* bits */
} ChipArea;

/* A precision the chip encodes, and what the clock formulas count in it (CHIP.md §1). */
typedef struct ChipPrec {
    PrecisionId prec;
    uint32_t code;            /* the hardware's code (INT_32 0, INT_8 1, UINT_8 2, TERNARY 3) */
    uint32_t g_f;             /* values of one 32-byte group: g_f = ceil(nf / this) */
    uint32_t write_v;         /* values of one word: write_v */
    uint32_t d;               /* values of one 16-byte read: d (CVM, CC's g_r) */
} ChipPrec;

/* Clock formula families of CHIP.md §1 (one per primitive; the coefficients are fields of
 * ChipPrim so the description, not the code, holds the numbers). */
typedef enum {
    CLK_ADD,        /* (load_bias + c0 + n_branch + write_v) * g_f * ny * nx */
    CLK_AVG,        /* (c0 + kx*ky + write_v) * g_f * ny * nx */
    CLK_VEC,        /* (load_bias + c0) * ceil(nf/32) * ny * nx */
    CLK_MV,         /* (c0 + g_r + d*g_r) * ceil(nf/32) */
    CLK_CONV,       /* (c0 + L + L*g_r + kx*ky*nr) * ceil(nf/32) * ceil(nx/4) * ny, L = min(g_r, 4) */
    CLK_CONV2D,     /* (c0 + L*ky*nr + kx*ky*nr) * ceil(nf/32) * ceil(nx/4) * ny */
    CLK_CMP,        /* c0 per 16-byte output word, c1 when the shift is not 0 */
    CLK_LUT,        /* c0/c_div * ny*nx*nf (1.5 = 3/2) */
    CLK_LIF,        /* c0 + c1 * ceil(nf/4) */
    CLK_NONE        /* moves and router: costed by bytes (ChipPrim.bytes_per_clock) */
} ChipClockKind;

/* One primitive (P-code) of the chip. */
typedef struct ChipPrim {
    int pcode;                /* 41 for P41 */
    ChipUnit unit;
    uint64_t blocks;          /* BTM mask of the compute block types it runs (0: inserted) */
    uint32_t in_align;        /* bytes an input pixel's channel row is padded to (16) */
    uint32_t chan_group;      /* output channels computed together (32 for P41) */
    uint32_t x_group;         /* output columns computed together (4 for P41) */
    uint32_t r_pad;           /* input length padded to this (P04: 16 for 8-bit), 0 = none */
    bool pad_in_memory;       /* P81: padding is stored, not addressed */
    uint64_t precs;           /* bit per PrecisionId accepted as input */
    ChipClockKind clock;
    int32_t c0, c1, c_div;    /* the formula's constants (c_div 0 = 1) */
} ChipPrim;

/* One compute block type a primitive runs, and its clock formula (a primitive may run
 * several types with different formulas: P02 runs CADD and CAVG). ChipPrim.clock, c0, c1
 * and c_div hold its first run's formula (CLK_NONE when it runs none). */
typedef struct ChipRun {
    BlockType block;
    int pcode;                /* the primitive's */
    ChipClockKind clock;
    int32_t c0, c1, c_div;
} ChipRun;

typedef struct Chip {
    char *name;               /* "TianjicX" */
    /* array of chips and cores */
    uint32_t chips_x, chips_y;        /* chips in the chip array (default 1 x 1) */
    uint32_t cores_x, cores_y;        /* cores per chip: 16 x 10 */
    /* a core's memory */
    ChipBank banks[8];
    uint32_t n_banks;
    uint32_t core_bytes;              /* 144 KiB: every bank */
    uint32_t core_budget_bytes;       /* 128 KiB: without the receive area */
    uint32_t recv_bytes_per_phase;    /* 12 KiB */
    uint32_t dest_bytes_per_phase;    /* 32 KiB: one destination, one phase */
    /* alignment (CHIP.md §1) */
    uint32_t align_input;             /* 16: an input pixel's channels */
    uint32_t align_weight;            /* 32: SW / SWFC rows */
    uint32_t align_axon_out;          /* 128: an int32 Axon output pixel (32 channels) */
    /* the MAC array */
    uint32_t mac_x, mac_f;            /* 4 output columns x 32 output channels */
    /* phases and groups */
    uint32_t max_phases;              /* 32 */
    uint32_t recommended_phases;      /* 16 */
    uint32_t max_phase_groups;        /* 32 per chip */
    uint32_t max_step_groups;         /* 4 per chip */
    uint32_t prims_per_phase;         /* 4: Axon, Soma1, Router, Soma2 */
    /* router */
    uint32_t packet_bytes;            /* 8 */
    uint32_t dest_offset_bits;        /* 12: the destination offset, in packet units */
    int32_t hop_min, hop_max;         /* signed 8-bit dx, dy: -128 .. 127 */
    /* parameters no published figure fixes */
    uint64_t clock_hz;
    uint32_t noc_bytes_per_clock;
    /* (added) the Soma's shift: 2^soma_shift_bits a step, at most soma_shift_max steps */
    uint32_t soma_shift_bits;         /* 2: it divides by 4^k */
    uint32_t soma_shift_max;          /* 15 */
    uint32_t short_packet_bytes;      /* 1: the short packet's payload */
    /* primitives */
    ChipPrim *prims;
    uint32_t n_prims;
    /* (added to the lead's interface) areas inside banks, precisions, per-type formulas */
    ChipArea areas[16];
    uint32_t n_areas;
    ChipPrec precs[16];
    uint32_t n_precs;
    ChipRun *runs;                    /* in file order */
    uint32_t n_runs;
} Chip;

/* Loads and validates a description (XML against taskir/chip.xsd, then the cross-field rules
 * of docs/chip.md: banks inside the core, budgets consistent, every compute block type run
 * by exactly one primitive). Findings name the file's line: "line 12: ..." [chip.*].
 * *out is NULL on failure. ST_RUNTIME on I/O or out of memory. */
Status chip_load(const char *path, Chip **out, Diag *d);
/* The same from an in-memory document; name is what findings call it. */
Status chip_load_mem(const char *xml, size_t len, const char *name, Chip **out, Diag *d);
/* The built-in default description (examples/chips/tianjicx.xml). */
Status chip_load_default(Chip **out, Diag *d);
void chip_destroy(Chip *c); /* accepts NULL */

/* The primitive that runs compute blocks of type t, or NULL. */
const ChipPrim *chip_prim_for(const Chip *c, BlockType t);
/* The primitive with this P-code, or NULL. */
const ChipPrim *chip_prim(const Chip *c, int pcode);
/* Cores in the whole chip array. */
uint32_t chip_total_cores(const Chip *c);
/* The run (primitive and clock formula) of compute block type t, or NULL. */
const ChipRun *chip_run_for(const Chip *c, BlockType t);
/* The chip's entry for precision p, or NULL when the chip does not encode it. */
const ChipPrec *chip_prec(const Chip *c, PrecisionId p);
/* The built-in description's text (the bytes of examples/chips/tianjicx.xml) and schema's
 * (taskir/chip.xsd), NUL-terminated; *len (when not NULL) gets their length. */
const char *chip_default_xml(size_t *len);
const char *chip_xsd(size_t *len);
/* Is a right shift by bits (BIT_SHIFT_NUM) one Soma shift (a multiple of soma_shift_bits,
 * at most soma_shift_max steps)? *steps (when not NULL) gets the steps k. An odd shift on
 * the default chip is not: the backend must realise it another way. */
bool chip_soma_shift(const Chip *c, int32_t bits, uint32_t *steps);
/* Names as the description writes them: "conv", "axon", and role bit i's ("receive"). */
const char *chip_clock_name(ChipClockKind k);
const char *chip_unit_name(ChipUnit u);
const char *chip_role_name(uint32_t i);
/* The run's clock formula with its constants, as docs/chip.md writes it. */
void chip_formula_text(const ChipRun *r, char *buf, size_t len);
/* Does the text look like a chip description (its first element, after blanks, an XML
 * declaration and comments, is <chip>)? A TaskGraph or Mapping never does. */
bool chip_looks_like(const uint8_t *buf, size_t len);
/* Bytes of memory of the core (ChipBank words * 4) with role bits role, counting an area's
 * role within its bank. */
uint64_t chip_role_bytes(const Chip *c, uint32_t role);

#endif
