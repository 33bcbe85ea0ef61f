/* wuf.h: a weighted union-find (docs/backend.md, "One run to several cores"): nodes whose
 * values are known only relative to each other, tied in sets by differences. par[x] is x's
 * parent (x itself at a set's root), pot[x] x's value less its parent's. Both the relaying
 * chains' receive bases (emit_chain_plan.c) and the receive areas laid out for them
 * (emit_pin.c) are such values. */
#ifndef TASKIR_BACKEND_WUF_H
#define TASKIR_BACKEND_WUF_H

#include <stdbool.h>
#include <stdint.h>

/* The root of x's set; *d: x's value less the root's. Every node on the way is made to point
 * at the root. */
uint32_t wuf_find(uint32_t *par, int64_t *pot, uint32_t x, int64_t *d);
/* Ties b's value to a's + want, joining b's set under a's root: false (nothing changed) when
 * they are tied already, to another difference. */
bool wuf_tie(uint32_t *par, int64_t *pot, uint32_t a, uint32_t b, int64_t want);

#endif
