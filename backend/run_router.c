/* run_router.c: one phase of the router on every core (run_internal.h; docs/backend.md,
 * "The router"). Each sending core's P09 cuts its send area (memory from Addr_Dout_base, or
 * the words its Soma1 streamed through MEM3) into packets of 8 bytes (MULTIPLE_NEURON) or 1
 * byte (SINGLE_NEURON) and gives them, in order, to its router headers: a SINGLE_USE header
 * sends one packet to destination_addr A, a MULTI_USE header pack_per_router_head + 1 packets
 * to A + (k / (C + 1)) * (C + 1 + O) + k % (C + 1) for packet k (C destination_const, O
 * destination_offset), the core at (x + dx, y + dy) (global coordinates: a chip's edge is no
 * wall). A packet lands in the receiver's receive area, which starts at word 0x8000 +
 * Addr_Din_base (the router's addresses count from MEM2), A units in (8 bytes, or 1 byte for
 * single packets); the last packet of a header with is_packet_finish carries an
 * end mark. A receiver in multicast mode (CXY 1) keeps a packet of a MULTI_RELAY_CAST header
 * and forwards a copy to (x + Nx, y + Ny); in relay mode (CXY 2) it only forwards it.
 * Counts are stored minus one (Send_number, Relay_number, Receive_number and the lengths).
 * All send areas are read before any packet lands, so the order of the cores does not
 * matter for what is sent. */
#include "backend/run_internal.h"

#include "backend/progset_check.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct Packet {
    const RunCore *src;     /* the core that sent it first */
    int head;               /* its header there */
    int64_t gx, gy;         /* where it goes now */
    int64_t addr;           /* A */
    uint32_t w[2];          /* the payload: two words, or one byte in w[0] */
    bool single, end, relay;
} Packet;

typedef struct SendArea {
    uint32_t *w;
    size_t n;
} SendArea;

__attribute__((format(printf, 5, 6)))
static Status bad(Diag *d, const char *rule, const RunCore *c, int phase, const char *fmt, ...)
{
    char where[160];
    run_where(c, phase, where, sizeof where);
    va_list ap;
    va_start(ap, fmt);
    Status st = diag_vadd(d, ST_LOGIC, rule, strdup(where), false, 0, false, 0, fmt, ap);
    va_end(ap);
    return st;
}

/* The P09 parameters of core c that the phase needs, in range. */
static Status check_prim(const RunCore *c, const Taskir__Asm__P09 *r, int p, Diag *d)
{
    if (r->send_en && (r->send_number < 0 || r->send_number > 65535))
        return bad(d, "prog.router.param", c, p, "Send_number %d is outside 0..65535",
                   r->send_number);
    if (r->send_en && r->out_memory != TASKIR__ASM__MEMORY_AREA__MEM3 &&
        (r->addr_dout_length < 0 ||
         !core_mem_range_ok(r->addr_dout_base, 4 * ((int64_t)r->addr_dout_length + 1))))
        return bad(d, "prog.router.param", c, p, "the send area (word %d, length %d "
                   "16-byte units minus one) leaves the core's memory", r->addr_dout_base,
                   r->addr_dout_length);
    if (r->receive_en && (r->receive_number < 0 || r->receive_number > 65535))
        return bad(d, "prog.router.param", c, p, "Receive_number %d is outside 0..65535",
                   r->receive_number);
    if (r->receive_en && (r->addr_din_length < 0 || r->addr_din_length > 4095 ||
                          !core_mem_range_ok(ASM_MEM2_BASE + (int64_t)r->addr_din_base,
                                             2 * ((int64_t)r->addr_din_length + 1))))
        return bad(d, "prog.router.param", c, p, "the receive area (word 0x8000 + %d, length "
                   "%d 8-byte units minus one, at most 4095) leaves the core's memory",
                   r->addr_din_base, r->addr_din_length);
    if (r->cxy < 0 || r->cxy > 2)
        return bad(d, "prog.router.param", c, p, "CXY %d is not 0 (none), 1 (multicast) or 2 "
                   "(relay)", r->cxy);
    if (r->cxy && (r->nx < -128 || r->nx > 127 || r->ny < -128 || r->ny > 127))
        return bad(d, "prog.router.param", c, p, "Nx %d, Ny %d: not signed 8-bit steps",
                   r->nx, r->ny);
    if (r->cxy && (r->relay_number < 0 || r->relay_number > 4095))
        return bad(d, "prog.router.param", c, p, "Relay_number %d is outside 0..4095",
                   r->relay_number);
    return ST_OK;
}

/* A copy of what core c sends in phase p. */
static Status send_area(const RunCore *c, const Taskir__Asm__P09 *r, SendArea *a, Diag *d)
{
    const uint32_t *from = c->to_router.w;
    a->n = c->to_router.n;
    if (r->out_memory != TASKIR__ASM__MEMORY_AREA__MEM3) {
        from = &c->mem->w[r->addr_dout_base];
        a->n = 4 * ((size_t)r->addr_dout_length + 1);
    }
    a->w = malloc(a->n * sizeof *a->w + 1);
    if (!a->w)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    if (a->n)
        memcpy(a->w, from, a->n * sizeof *a->w);
    return ST_OK;
}

/* The packet as it reaches core at (its receiver, found by the caller): kept, counted,
 * forwarded. Returns ST_OK and sets *again when the packet goes on. */
static Status arrive(RunCore *at, Packet *k, int p, bool *again, Diag *d)
{
    const Taskir__Asm__P09 *r = at->active ? run_router_prim(at, p) : NULL;
    bool forward = r && k->relay && r->cxy;
    *again = false;
    if (!r || (!r->receive_en && !forward)) {
        char src[160];
        run_where(k->src, p, src, sizeof src);
        return bad(d, "prog.router.unexpected", at, p, "a packet of %s (header %d) arrives, "
                   "but this phase neither receives it nor relays it", src, k->head);
    }
    if (r->receive_en && !(forward && r->cxy == 2)) {
        int64_t units = (int64_t)r->addr_din_length + 1, size = k->single ? 1 : 8;
        if (k->addr >= units * 8 / size)
            return bad(d, "prog.router.addr", at, p, "a packet for address %lld lands past the "
                       "receive area of %lld units", (long long)k->addr,
                       (long long)(units * 8 / size));
        int64_t base = ASM_MEM2_BASE + (int64_t)r->addr_din_base;
        if (k->single) {
            core_mem_set_u8(at->mem, base, k->addr, (uint8_t)k->w[0]);
        } else {
            at->mem->w[base + 2 * k->addr] = k->w[0];
            at->mem->w[base + 2 * k->addr + 1] = k->w[1];
        }
        at->marks += k->end;
    }
    if (forward) {
        if (++at->relayed > (int64_t)r->relay_number + 1)
            return bad(d, "prog.router.relay", at, p, "forwards packet %lld, more than "
                       "Relay_number + 1 = %lld", (long long)at->relayed,
                       (long long)r->relay_number + 1);
        k->gx = at->gx + r->nx;
        k->gy = at->gy + r->ny;
        *again = true;
    }
    return ST_OK;
}

/* Routes packet k to its end. */
static Status deliver(Run *r, Packet *k, int p, Diag *d)
{
    bool again = true;
    Status st = ST_OK;
    while (!st && again) {
        RunCore *at = run_core_at(r, k->gx, k->gy);
        if (!at) {
            char src[160];
            run_where(k->src, p, src, sizeof src);
            return diag_add(d, ST_LOGIC, "prog.router.dest", src, "header %d sends a packet to "
                            "global core (%lld,%lld), where no core has a program", k->head,
                            (long long)k->gx, (long long)k->gy);
        }
        st = arrive(at, k, p, &again, d);
    }
    return st;
}

/* Sends what core c's headers send in phase p. */
static Status send_core(Run *r, RunCore *c, const Taskir__Asm__P09 *rp, const SendArea *a,
                        int p, Diag *d)
{
    bool single = rp->packet_size_mode == TASKIR__ASM__PACKET_SIZE_MODE__SINGLE_NEURON;
    bool multi = rp->router_head_mode == TASKIR__ASM__ROUTER_HEAD_MODE__MULTI_USE;
    int64_t n_send = (int64_t)rp->send_number + 1, size = single ? 1 : 8, k = 0;
    if (n_send * size > (int64_t)a->n * 4)
        return bad(d, "prog.router.send", c, p, "sends %lld bytes, but its send area holds "
                   "%lld", (long long)(n_send * size), (long long)a->n * 4);
    for (size_t h = 0; h < rp->n_router_heads; h++) {
        const Taskir__Asm__RouterHead *hd = rp->router_heads[h];
        if (hd->dx < -128 || hd->dx > 127 || hd->dy < -128 || hd->dy > 127 ||
            hd->destination_addr < 0 || hd->destination_addr > 4095 ||
            (multi && (hd->pack_per_router_head < 0 || hd->pack_per_router_head > 4095 ||
                       hd->destination_offset < 0 || hd->destination_offset > 4095 ||
                       hd->destination_const < 0 || hd->destination_const > 127)))
            return bad(d, "prog.router.header", c, p, "header %lld has a field out of its range "
                       "(dx, dy 8-bit signed; A, pack_per_router_head, destination_offset 12 "
                       "bit; destination_const 7 bit)", (long long)h);
        int64_t n = multi ? (int64_t)hd->pack_per_router_head + 1 : 1;
        int64_t cst = multi ? hd->destination_const : 0, off = multi ? hd->destination_offset : 0;
        for (int64_t j = 0; j < n; j++, k++) {
            if (k >= n_send)
                return bad(d, "prog.router.count", c, p, "its headers send more packets than "
                           "Send_number + 1 = %lld (header %lld)", (long long)n_send, (long long)h);
            if (hd->has_enable && !hd->enable)
                continue;   /* a disabled header's packets are skipped */
            Packet pk = {.src = c, .head = (int)h, .gx = c->gx + hd->dx, .gy = c->gy + hd->dy,
                         .addr = hd->destination_addr + j / (cst + 1) * (cst + 1 + off) +
                                 j % (cst + 1),
                         .single = single, .end = hd->is_packet_finish && j == n - 1,
                         .relay = hd->relay_type == TASKIR__ASM__RELAY_TYPE__MULTI_RELAY_CAST};
            if (single) {
                pk.w[0] = (uint8_t)(a->w[k / 4] >> (8 * (k % 4)));
            } else {
                pk.w[0] = a->w[2 * k];
                pk.w[1] = a->w[2 * k + 1];
            }
            Status st = deliver(r, &pk, p, d);
            if (st)
                return st;
        }
    }
    if (k != n_send)
        return bad(d, "prog.router.count", c, p, "its headers send %lld packets, Send_number + "
                   "1 is %lld", (long long)k, (long long)n_send);
    return ST_OK;
}

/* After the packets: every receiver got its end marks, every relay its packets. */
static Status check_counts(const Run *r, int p, Diag *d)
{
    for (size_t i = 0; i < r->n_cores; i++) {
        const RunCore *c = &r->cores[i];
        const Taskir__Asm__P09 *rp = c->active ? run_router_prim(c, p) : NULL;
        if (rp && rp->receive_en && c->marks != (int64_t)rp->receive_number + 1)
            return bad(d, "prog.router.receive", c, p, "waits for Receive_number + 1 = %lld end "
                       "marks, %lld arrive", (long long)rp->receive_number + 1,
                       (long long)c->marks);
        if (rp && rp->cxy && c->relayed != (int64_t)rp->relay_number + 1)
            return bad(d, "prog.router.relay", c, p, "waits to forward Relay_number + 1 = %lld "
                       "packets, %lld arrive", (long long)rp->relay_number + 1,
                       (long long)c->relayed);
    }
    return ST_OK;
}

/* With Soma_in_en the receive area goes on to Soma2. */
static Status to_soma(RunCore *c, const Taskir__Asm__P09 *rp, Diag *d)
{
    if (!rp->soma_in_en || !rp->receive_en)
        return ST_OK;
    size_t n = 2 * ((size_t)rp->addr_din_length + 1);
    const uint32_t *w = &c->mem->w[ASM_MEM2_BASE + rp->addr_din_base];
    return exec_stream_push(&c->from_router, w, n) == ST_OK
               ? ST_OK : diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
}

Status run_router_phase(Run *r, int p, Diag *d)
{
    Status st = ST_OK;
    SendArea *areas = calloc(r->n_cores + 1, sizeof *areas);
    if (!areas)
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (size_t i = 0; !st && i < r->n_cores; i++) {
        const Taskir__Asm__P09 *rp = r->cores[i].active ? run_router_prim(&r->cores[i], p) : NULL;
        if (rp)
            st = check_prim(&r->cores[i], rp, p, d);
        if (!st && rp && rp->send_en)
            st = send_area(&r->cores[i], rp, &areas[i], d);
    }
    for (size_t i = 0; !st && i < r->n_cores; i++) {
        const Taskir__Asm__P09 *rp = r->cores[i].active ? run_router_prim(&r->cores[i], p) : NULL;
        if (rp && rp->send_en)
            st = send_core(r, &r->cores[i], rp, &areas[i], p, d);
    }
    if (!st)
        st = check_counts(r, p, d);
    for (size_t i = 0; !st && i < r->n_cores; i++) {
        const Taskir__Asm__P09 *rp = r->cores[i].active ? run_router_prim(&r->cores[i], p) : NULL;
        if (rp)
            st = to_soma(&r->cores[i], rp, d);
    }
    for (size_t i = 0; i < r->n_cores; i++)
        free(areas[i].w);
    free(areas);
    return st;
}
