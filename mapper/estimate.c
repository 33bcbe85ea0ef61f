/* estimate.c: the predicted figures of a plan and its cost terms (docs/mapper.md, "Cost
 * model"), the one scorer the mapper, its report and the benchmarks use.
 *
 * Per core and local phase: the clocks of the block in each slot (chip_block_clocks), the
 * bytes the core's router sends and receives (transfers between cores, relays of multicast
 * chains, and sends off chip) and the router's clocks, ceil(bytes / noc_bytes_per_clock).
 * A core's phase lasts Axon + Soma1 + Router + Soma2 (no overlap assumed: an upper bound, as
 * the chip may row-pipeline Axon into Soma1); a phase of the step lasts as long as its
 * slowest core (all phase groups advance phase by phase together, since a packet sent in
 * phase p is received in phase p); the step clock is the sum over the phases of the step.
 * Memory: what every cluster of a core takes, all of it resident for the whole step (a safe
 * bound: no reuse of a buffer between phases), by bank: static data (weights, biases,
 * tables) into the banks for weights first, the rest into the data banks first.
 * Off-chip input arrives before the step (not part of the receive budget or the clocks).
 */
#include "mapper/plan.h"

#include "taskir/lanes.h"

#include <stdlib.h>
#include <string.h>

int32_t map_send_phase(const MTask *a)
{
    return a->phase +
           (a->slot == MS_SOMA2 || ((a->widens || a->lanes_area) && a->slot == MS_SOMA1));
}

int32_t map_out_phase(const MapPlan *p, const MXfer *x)
{
    const BlockUses *su = &p->uses.blocks[x->store];
    int32_t ph = 0;
    for (uint32_t j = 0; j < su->n_in_edges; j++) {
        uint32_t xi = p->xfer_of[su->in_edges[j]];
        if (xi == MAP_NONE || p->xfers[xi].kind != XF_CORE)
            continue;
        const MXfer *w = &p->xfers[xi];
        const MTask *a = &p->tasks[w->src_task];
        int32_t s = map_send_phase(a);
        if (w->cross)
            s = p->chunks[w->chunk0 + w->n_chunks - 1].phase;
        s = map_lanes_last(p, su->in_edges[j], s);
        if (s > ph)
            ph = s;
    }
    return ph;
}

int32_t map_lanes_last(const MapPlan *p, uint32_t e, int32_t send)
{
    if (p->lanes_n[e] <= 1)
        return send;
    int64_t M = p->chip->max_phases, last = (int64_t)send + p->lanes_n[e] - 1;
    return M > 0 && last / M == send / M ? (int32_t)last : send;
}

uint32_t map_xfer_sender(const MapPlan *p, const MXfer *x)
{
    if (x->relay != MAP_NONE)
        return map_xfer_vcore(p, &p->xfers[x->relay]);
    return map_task_vcore(p, x->src_task);
}

void map_banks(const MapPlan *p, uint32_t v, int64_t out[8])
{
    const Chip *c = p->chip;
    int64_t left[2] = {p->vcores[v].mem_weight, p->vcores[v].mem_data};
    int64_t room[8];
    for (uint32_t b = 0; b < 8; b++) {
        out[b] = 0;
        room[b] = b < c->n_banks ? (int64_t)c->banks[b].words * 4 : 0;
    }
    /* pass 0: static data into weight banks; pass 1: data into data-only banks; pass 2:
     * either into any data or weight bank left */
    for (int pass = 0; pass < 3; pass++)
        for (uint32_t b = 0; b < c->n_banks && b < 8; b++) {
            uint32_t role = c->banks[b].role;
            int which = pass == 1 ? 1 : 0;
            bool ok = pass == 0   ? (role & CHIP_BANK_WEIGHTS)
                      : pass == 1 ? (role & CHIP_BANK_DATA) && !(role & CHIP_BANK_WEIGHTS)
                                  : (role & (CHIP_BANK_DATA | CHIP_BANK_WEIGHTS));
            for (int w = which; ok && w < (pass == 2 ? 2 : which + 1); w++) {
                int64_t take = left[w] < room[b] ? left[w] : room[b];
                out[b] += take;
                room[b] -= take;
                left[w] -= take;
            }
        }
    /* what no bank holds (over budget: the schedule refuses it) stays in the last data bank */
    for (uint32_t b = 0; b < c->n_banks && b < 8; b++)
        if (c->banks[b].role & CHIP_BANK_DATA) {
            out[b] += left[0] + left[1];
            break;
        }
}

Status map_estimate(MapPlan *p, Diag *d)
{
    uint32_t L = p->n_phases;
    size_t n = (size_t)p->n_vcores * L;
    p->phase = calloc(n ? n : 1, sizeof *p->phase);
    if (!p->phase)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory estimating");
    for (size_t i = 0; i < n; i++)
        p->phase[i].axon = p->phase[i].soma1 = p->phase[i].soma2 = MAP_NONE;
    MapCost *c = &p->cost;
    memset(c, 0, sizeof *c);
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        const MTask *tk = &p->tasks[t];
        MPhase *ph = &p->phase[(size_t)map_task_vcore(p, t) * L + map_local(p, tk->phase)];
        if (tk->slot == MS_AXON) {
            ph->clk_axon += tk->clocks;
            ph->axon = t;
        } else if (tk->slot == MS_SOMA1) {
            ph->clk_soma1 += tk->clocks;
            ph->soma1 = t;
        } else {
            ph->clk_soma2 += tk->clocks;
            ph->soma2 = t;
        }
    }
    for (uint32_t i = 0; i < p->n_xfers; i++) {
        const MXfer *x = &p->xfers[i];
        if (x->kind == XF_IN) { /* each copy of the storage block receives it */
            c->offchip_in += x->bytes;
            continue;
        }
        if (x->kind == XF_OUT) {
            c->offchip_out += x->bytes;
            p->phase[(size_t)map_store_vcore(p, x->store) * L + map_local(p, map_out_phase(p, x))]
                .sent += x->bytes;
            continue;
        }
        if (!x->cross)
            continue;
        uint32_t dst = map_xfer_vcore(p, x), snd = map_xfer_sender(p, x);
        for (uint32_t k = 0; k < x->n_chunks; k++) {
            const MChunk *ch = &p->chunks[x->chunk0 + k];
            p->phase[(size_t)dst * L + map_local(p, ch->phase)].received += ch->bytes;
            p->phase[(size_t)snd * L + map_local(p, ch->phase)].sent += ch->bytes;
        }
        c->bytes_crossing += x->bytes;
        c->traffic += x->bytes * x->hops;
        c->traffic_unicast +=
            x->bytes * map_hops(p, p->vcores[map_task_vcore(p, x->src_task)].core,
                                p->vcores[dst].core);
    }
    int64_t bpc = p->chip->noc_bytes_per_clock ? p->chip->noc_bytes_per_clock : 1;
    for (uint32_t l = 0; l < L; l++) {
        int64_t worst = 0;
        for (uint32_t v = 0; v < p->n_vcores; v++) {
            MPhase *ph = &p->phase[(size_t)v * L + l];
            ph->clk_router = (ph->sent + ph->received + bpc - 1) / bpc;
            int64_t clk = ph->clk_axon + ph->clk_soma1 + ph->clk_router + ph->clk_soma2;
            if (clk > worst)
                worst = clk;
        }
        c->step_clock += worst;
    }
    uint32_t nchips = p->chips_x * p->chips_y;
    bool *used = calloc(nchips ? nchips : 1, sizeof *used);
    if (!used)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory estimating");
    for (uint32_t v = 0; v < p->n_vcores; v++) {
        uint32_t x, y;
        map_core_xy(p, p->vcores[v].core, &x, &y);
        uint32_t chip = (y / p->chip->cores_y) * p->chips_x + x / p->chip->cores_x;
        if (!used[chip]) {
            used[chip] = true;
            c->chips++;
        }
        c->mem_bytes += p->vcores[v].mem_weight + p->vcores[v].mem_data;
    }
    free(used);
    c->cores = p->n_vcores;
    c->phases = L;
    c->stages = p->n_stages;
    return ST_OK;
}
