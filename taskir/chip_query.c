/* chip_query.c: lookups in a loaded chip description (chip.h). */
#include "taskir/chip.h"

#include <stdio.h>

const ChipRun *chip_run_for(const Chip *c, BlockType t)
{
    for (uint32_t i = 0; i < c->n_runs; i++)
        if (c->runs[i].block == t)
            return &c->runs[i];
    return NULL;
}

const ChipPrim *chip_prim_for(const Chip *c, BlockType t)
{
    const ChipRun *run = chip_run_for(c, t);
    return run ? chip_prim(c, run->pcode) : NULL;
}

const ChipPrim *chip_prim(const Chip *c, int pcode)
{
    for (uint32_t i = 0; i < c->n_prims; i++)
        if (c->prims[i].pcode == pcode)
            return &c->prims[i];
    return NULL;
}

const ChipPrec *chip_prec(const Chip *c, PrecisionId p)
{
    for (uint32_t i = 0; i < c->n_precs; i++)
        if (c->precs[i].prec == p)
            return &c->precs[i];
    return NULL;
}

uint32_t chip_total_cores(const Chip *c)
{
    /* chip_check has made sure the product fits */
    return c->chips_x * c->chips_y * c->cores_x * c->cores_y;
}

uint64_t chip_role_bytes(const Chip *c, uint32_t role)
{
    uint64_t words = 0;
    for (uint32_t i = 0; i < c->n_banks; i++) {
        bool has_areas = false;
        for (uint32_t k = 0; k < c->n_areas; k++)
            if (c->areas[k].bank == i) {
                has_areas = true;
                if (c->areas[k].role & role)
                    words += c->areas[k].words;
            }
        if (!has_areas && (c->banks[i].role & role))
            words += c->banks[i].words;
    }
    return words * 4;
}

bool chip_soma_shift(const Chip *c, int32_t bits, uint32_t *steps)
{
    if (bits < 0 || c->soma_shift_bits == 0 || (uint32_t)bits % c->soma_shift_bits != 0 ||
        (uint32_t)bits / c->soma_shift_bits > c->soma_shift_max)
        return false;
    if (steps)
        *steps = (uint32_t)bits / c->soma_shift_bits;
    return true;
}

/* ---- names (one table each; the reader parses with them, the printers print them) ---- */

static const char *const clock_names[] = {
    [CLK_ADD] = "add",         [CLK_AVG] = "avg",   [CLK_VEC] = "vector",
    [CLK_MV] = "matrix",       [CLK_CONV] = "conv", [CLK_CONV2D] = "conv2d",
    [CLK_CMP] = "compare",     [CLK_LUT] = "table", [CLK_LIF] = "lif",
    [CLK_NONE] = "none",
};

const char *chip_clock_name(ChipClockKind k)
{
    return (unsigned)k <= CLK_NONE ? clock_names[k] : "none";
}

static const char *const unit_names[] = {[UNIT_AXON] = "axon", [UNIT_SOMA] = "soma",
                                         [UNIT_ROUTER] = "router"};

const char *chip_unit_name(ChipUnit u)
{
    return (unsigned)u < UNIT_COUNT ? unit_names[u] : "?";
}

static const char *const role_names[CHIP_ROLE_COUNT] = {"data", "weights", "primitives",
                                                        "headers", "receive", "stream"};

const char *chip_role_name(uint32_t i)
{
    return i < CHIP_ROLE_COUNT ? role_names[i] : "?";
}

void chip_formula_text(const ChipRun *r, char *buf, size_t len)
{
    int c0 = (int)r->c0, c1 = (int)r->c1, cd = (int)r->c_div;
    switch (r->clock) {
    case CLK_ADD:
        snprintf(buf, len, "(load_bias + %d + n_branch + write_v) * g_f * ny * nx", c0);
        break;
    case CLK_AVG:
        snprintf(buf, len, "(%d + kx*ky + write_v) * g_f * ny * nx", c0);
        break;
    case CLK_VEC:
        snprintf(buf, len, "(load_bias + %d) * ceil(nf/32) * ny * nx", c0);
        break;
    case CLK_MV:
        snprintf(buf, len, "(%d + g_r + d*g_r) * ceil(nf/32)", c0);
        break;
    case CLK_CONV:
        snprintf(buf, len, "(%d + L + L*g_r + kx*ky*nr) * ceil(nf/32) * ceil(nx/4) * ny, "
                 "L = min(g_r, 4)", c0);
        break;
    case CLK_CONV2D:
        snprintf(buf, len, "(%d + L*ky*nr + kx*ky*nr) * ceil(nf/32) * ceil(nx/4) * ny, "
                 "L = 1 / 2 / 3 for ix < 16 / < 32 / else", c0);
        break;
    case CLK_CMP:
        snprintf(buf, len, "%d per 16-byte output word, %d when the shift is not 0", c0, c1);
        break;
    case CLK_LUT:
        snprintf(buf, len, "ceil(%d/%d * ny*nx*nf)", c0, cd);
        break;
    case CLK_LIF:
        snprintf(buf, len, "%d + %d * ceil(ny*nx*nf/4)", c0, c1);
        break;
    case CLK_NONE:
        snprintf(buf, len, "by bytes moved");
        break;
    }
}
