/* chip_query.c: lookups in a loaded chip description (chip.h). */
#include "taskir/chip.h"

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
