/* exec_soma_lif.c: P08, leaky integrate-and-fire neurons (exec_soma.h; docs/backend.md,
 * "P08"). Potentials, thresholds and their updates saturate to 28 bits; the state word of a
 * neuron packs its refractory count (bits 28..31) over its potential (bits 0..27).
 */
#include "backend/exec_soma.h"

#include <inttypes.h>

#define LIF_LO (-((int64_t)1 << 27))
#define LIF_HI (((int64_t)1 << 27) - 1)

static int64_t sat28(int64_t v)
{
    return v < LIF_LO ? LIF_LO : v > LIF_HI ? LIF_HI : v;
}

/* The 28-bit two's complement value in the low bits of w. */
static int64_t sext28(uint32_t w)
{
    int64_t v = w & 0x0FFFFFFFu;
    return v > LIF_HI ? v - ((int64_t)1 << 28) : v;
}

static int32_t as_i32(uint32_t u)
{
    return (int32_t)(u >= 0x80000000u ? (int64_t)u - 0x100000000 : (int64_t)u);
}

/* The chip's 32-bit LFSR, one step per neuron; returns the new state. */
static uint32_t lfsr_step(uint32_t s)
{
    uint32_t bit = (s ^ s >> 1 ^ s >> 2 ^ s >> 3 ^ s >> 5 ^ s >> 7) & 1u;
    return bit << 31 | s >> 1;
}

/* The random threshold offset of a neuron: the LFSR value masked by vm (for a negative
 * value the mask applies to its complement), its low 28 bits read signed. Also the full
 * masked value (fire types 6 and 7). */
static int64_t lfsr_mask(uint32_t l, uint32_t vm, uint32_t *full)
{
    *full = (l & 0x80000000u) ? ~(~l & vm) + 1u : l & vm;
    return sext28(*full);
}

/* Output precision of each fire type: 0, 1, 6 int32; 2, 3, 4, 7 int8; 5 two bits. */
static const int fire_bits[8] = {32, 32, 8, 8, 8, 2, 32, 8};

/* Words of a row of n outputs of fire type ft, padded as the chip pads them. */
static int64_t fire_row_words(int ft, int64_t n)
{
    switch (fire_bits[ft]) {
    case 32: return n;
    case 8: return (n + 15) / 16 * 4;
    default: return (n + 63) / 64 * 4;
    }
}

static void fire_set(uint32_t *row, int ft, int64_t j, int32_t v)
{
    if (fire_bits[ft] == 2) {
        unsigned sh = (unsigned)(2 * (j % 16));
        row[j / 16] |= ((uint32_t)v & 3u) << sh;
    } else {
        soma_set(row, fire_bits[ft] == 32 ? ASM_HW_INT32 : ASM_HW_INT8, j, v);
    }
}

static Status check(const SomaCtx *c, const Taskir__Asm__P08 *p, int64_t *nl)
{
    const SomaLimit lim[] = {
        {"neuron_num", p->neuron_num, 1, SOMA_MAX_N},
        {"group_num", p->group_num, 1, SOMA_MAX_N},
        {"Vth0", p->vth0, LIF_LO, LIF_HI},
        {"Vth_alpha", p->vth_alpha, 0, 255},
        {"Vth_beta", p->vth_beta, LIF_LO, LIF_HI},
        {"Vth_Incre", p->vth_incre, LIF_LO, LIF_HI},
        {"VR", p->vr, LIF_LO, LIF_HI},
        {"VL", p->vl, LIF_LO, LIF_HI},
        {"Vleaky_alpha", p->vleaky_alpha, 0, 255},
        {"Vleaky_beta", p->vleaky_beta, LIF_LO, LIF_HI},
        {"dV", p->dv, LIF_LO, LIF_HI},
        {"Ref_len", p->ref_len, 0, 15},
        {"Tw_cnt", p->tw_cnt, 0, 255},
        {"Tw_len", p->tw_len, 0, 255},
        {"Vinit", p->vinit, LIF_LO, LIF_HI},
        {"Vtheta_const", p->vtheta_const, LIF_LO, LIF_HI},
        {"reset_mode", p->reset_mode, 0, 3},
        {"fire_type", p->fire_type, 0, 7},
        {"bit_shift_num", p->bit_shift_num, 0, 15},
    };
    Status st = soma_limits(c, lim, SOMA_NLIM(lim));
    if (st)
        return st;
    *nl = (int64_t)p->neuron_num * p->group_num;
    const SomaLimit lens[] = {
        {"VM_len", p->vm_const_en ? 1 : p->vm_len, 1, *nl},
        {"Vtheta_len", p->vtheta_const_en ? 1 : p->vtheta_len, 1, *nl},
    };
    if ((st = soma_limits(c, lens, SOMA_NLIM(lens))))
        return st;
    if (!p->vm_const_en && *nl % p->vm_len)
        return soma_bad(c, "VM_len is %d, which does not divide the %" PRId64 " neurons",
                        (int)p->vm_len, *nl);
    if (!p->vtheta_const_en && *nl % p->vtheta_len)
        return soma_bad(c, "Vtheta_len is %d, which does not divide the %" PRId64 " neurons",
                        (int)p->vtheta_len, *nl);
    return ST_OK;
}

/* The areas of a P08: read uin, vm, vtheta, v; written v, vtheta, s, para (committed in
 * that order). */
typedef struct LifAreas {
    SomaIn uin, vm, vth, v;
    SomaOut ov, ovth, os, opara;
} LifAreas;

static void areas_free(LifAreas *a)
{
    soma_out_free(&a->ov);
    soma_out_free(&a->ovth);
    soma_out_free(&a->os);
    soma_out_free(&a->opara);
}

static Status open_areas(const SomaCtx *c, const Taskir__Asm__P08 *p, int64_t nl, LifAreas *a)
{
    *a = (LifAreas){0};
    int64_t s_need = p->group_num * fire_row_words(p->fire_type, p->neuron_num);
    Status st;
    if ((st = soma_in(c, "uin", p->uin_base_addr, p->uin_addr_length, nl, &a->uin)) ||
        (!p->vm_const_en &&
         (st = soma_in(c, "vm", p->vm_base_addr, p->vm_addr_length, p->vm_len, &a->vm))) ||
        (!p->vtheta_const_en &&
         (st = soma_in(c, "vtheta", p->vtheta_base_addr, p->vtheta_addr_length, p->vtheta_len,
                       &a->vth))) ||
        (st = soma_in(c, "v", p->v_base_addr, p->v_addr_length, nl, &a->v)) ||
        (st = soma_out(c, "v", p->v_base_addr, p->v_addr_length, nl, &a->ov)) ||
        (!p->vtheta_const_en &&
         (st = soma_out(c, "vtheta", p->vtheta_base_addr, p->vtheta_addr_length, p->vtheta_len,
                        &a->ovth))) ||
        (st = soma_out(c, "s", p->s_base_addr, p->s_addr_length, s_need, &a->os)) ||
        (p->para_addr_length > 0 &&
         (st = soma_out(c, "para", p->para_base_addr, p->para_addr_length, 4, &a->opara))))
        areas_free(a);
    return st;
}

/* The output of neuron with potential v, new potential vn, spike, random mask full. */
static int32_t fire_value(const Taskir__Asm__P08 *p, int64_t v, int64_t vn, bool spike,
                          uint32_t full)
{
    switch (p->fire_type) {
    case 0: return (int32_t)v;
    case 1: return (int32_t)vn;
    case 2: return asm_clip(soma_shift(v, p->bit_shift_num), -128, 127);
    case 3: return asm_clip(soma_shift(vn, p->bit_shift_num), -128, 127);
    case 6: return as_i32(full);
    case 7: return (int32_t)(full & 0xFFu) - ((full & 0x80u) ? 256 : 0);
    default: return spike;
    }
}

/* The four words the chip writes to para: the last LFSR value and the packed threshold
 * parameters with the new time-window count. */
static void para_words(const Taskir__Asm__P08 *p, uint32_t lfsr, int32_t tw_new, uint32_t *w)
{
    uint32_t vth0 = (uint32_t)p->vth0, beta = (uint32_t)p->vth_beta;
    w[0] = lfsr;
    w[1] = (vth0 & 0xFFFFFFu) << 8 | ((uint32_t)tw_new & 0xFFu);
    w[2] = (beta & 0xFFFFFu) << 12 | ((uint32_t)p->vth_alpha & 0xFFu) << 4 | (vth0 >> 24 & 0xFu);
    w[3] = ((uint32_t)p->vth_incre & 0xFFFFFFu) << 8 | (beta >> 20 & 0xFFu);
}

Status soma_p08(SomaCtx *c, const Taskir__Asm__P08 *p)
{
    int64_t nl;
    LifAreas a;
    Status st = check(c, p, &nl);
    if (st || (st = open_areas(c, p, nl, &a)))
        return st;
    bool tw_finish = p->tw_en && p->tw_cnt >= p->tw_len;
    int64_t srow = fire_row_words(p->fire_type, p->neuron_num);
    uint32_t l = (uint32_t)p->seed;
    for (int64_t i = 0; i < nl; i++) {
        l = lfsr_step(l);
        uint32_t vm = p->vm_const_en ? (uint32_t)p->vm_const : a.vm.w[i % p->vm_len], full;
        int64_t vtheta = p->vtheta_const_en ? p->vtheta_const
                                            : as_i32(a.vth.w[i % p->vtheta_len]);
        int64_t vth = sat28(p->vth0 + vtheta + lfsr_mask(l, vm, &full));
        vth = vth < p->vl ? p->vl : vth;
        uint32_t ref = a.v.w[i] >> 28;
        int64_t v = sext28(a.v.w[i]);
        v = sat28(ref == 0 ? v + as_i32(a.uin.w[i]) : v);
        bool spike = v > vth;
        int64_t vu = !spike ? v : p->reset_mode == 0 ? p->vr : p->reset_mode == 1 ? v - vth
                   : p->reset_mode == 2 ? v - p->dv : v;
        int64_t vn = tw_finish ? p->vinit
                   : p->vleaky_adpt_en ? soma_shift(vu * p->vleaky_alpha, 4) + p->vleaky_beta
                   : vu + p->vleaky_beta;
        vn = sat28(vn);
        vn = vn < p->vl ? p->vl : vn;
        ref = spike ? (uint32_t)p->ref_len : ref > 0 ? ref - 1 : 0;
        a.ov.w[i] = ref << 28 | ((uint32_t)vn & 0x0FFFFFFFu);
        if (!p->vtheta_const_en && i < p->vtheta_len) {
            int64_t t = p->vth_adpt_en ? soma_shift(vtheta * p->vth_alpha, 4) + p->vth_beta
                                       : vtheta + p->vth_beta;
            a.ovth.w[i] = (uint32_t)sat28(t + (spike ? p->vth_incre : 0));
        }
        int64_t g = i / p->neuron_num, j = i % p->neuron_num;
        fire_set(a.os.w + g * srow, p->fire_type, j, fire_value(p, v, vn, spike, full));
    }
    int32_t tw_new = !p->tw_en ? p->tw_cnt : p->tw_cnt == p->tw_len ? 0 : p->tw_cnt + 1;
    if (a.opara.w)
        para_words(p, l, tw_new, a.opara.w);
    if ((st = soma_commit(c, &a.ov)) ||
        (!p->vtheta_const_en && (st = soma_commit(c, &a.ovth))) ||
        (st = soma_commit(c, &a.os)) || (a.opara.w && (st = soma_commit(c, &a.opara))))
        areas_free(&a);
    return st;
}
