/* svg.c: a picture of a plan (docs/mapper.md, "Picture"): the chip array as a grid of cores,
 * chip by chip; a used core filled by its memory (share of the core's budget) or its clocks
 * (share of the busiest core's), from white to dark blue, and labelled with its phase group
 * (up to MAX_LABELS cores);
 * the busiest routes (bytes x hops, at most MAX_ROUTES, sender and receiver pairs merged)
 * drawn as XY paths, x first then y as the router goes, their width by bytes; a title with
 * the totals and a legend for the colours and widths. Plain SVG 1.1, fixed number formats:
 * the picture of a plan is deterministic. */
#include "mapper/plan.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define CELL 26       /* a core's square, px */
#define GAP 4         /* between cores */
#define CHIP_GAP 14   /* more between chips */
#define MARGIN 20
#define TOP 64        /* title */
#define LEGEND_H 70
#define MAX_ROUTES 24
#define MAX_LABELS 1000 /* cores numbered with their phase group up to this many */

typedef struct Route {
    uint32_t from, to;  /* core indices */
    int64_t bytes;
    int64_t cost;       /* bytes x hops */
} Route;

/* Top-left pixel of the core at grid (x, y). */
static double px(uint32_t x, const Chip *c)
{
    return MARGIN + x * (CELL + GAP) + (x / c->cores_x) * CHIP_GAP;
}

static double py(uint32_t y, const Chip *c)
{
    return TOP + y * (CELL + GAP) + (y / c->cores_y) * CHIP_GAP;
}

/* White (0) to dark blue (1). */
static void colour(double f, char out[8])
{
    if (f < 0)
        f = 0;
    if (f > 1)
        f = 1;
    int r = (int)(247 + (8 - 247) * f), g = (int)(251 + (48 - 251) * f),
        b = (int)(255 + (107 - 255) * f);
    snprintf(out, 8, "#%02x%02x%02x", r, g, b);
}

static void escape(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '<')
            fputs("&lt;", out);
        else if (*s == '>')
            fputs("&gt;", out);
        else if (*s == '&')
            fputs("&amp;", out);
        else
            fputc(*s, out);
    }
}

static int by_cost(const void *a, const void *b)
{
    const Route *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost > y->cost ? -1 : 1;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return x->to < y->to ? -1 : x->to > y->to;
}

static int by_pair(const void *a, const void *b)
{
    const Route *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return x->to < y->to ? -1 : x->to > y->to;
}

/* The routes between distinct cores, merged by (sender, receiver), busiest first. */
static Route *routes(const MapPlan *p, uint32_t *n)
{
    uint32_t k = 0;
    Route *r = malloc(((size_t)p->n_xfers + 1) * sizeof *r);
    if (!r)
        return NULL;
    for (uint32_t i = 0; i < p->n_xfers; i++) {
        const MXfer *x = &p->xfers[i];
        if (!x->cross || !x->hops)
            continue;
        uint32_t a = p->vcores[map_xfer_sender(p, x)].core;
        uint32_t b = p->vcores[map_xfer_vcore(p, x)].core;
        r[k++] = (Route){a, b, x->bytes, 0};
    }
    qsort(r, k, sizeof *r, by_pair);
    uint32_t m = 0;
    for (uint32_t i = 0; i < k; i++) {
        if (m && r[m - 1].from == r[i].from && r[m - 1].to == r[i].to)
            r[m - 1].bytes += r[i].bytes;
        else
            r[m++] = r[i];
    }
    for (uint32_t i = 0; i < m; i++)
        r[i].cost = r[i].bytes * map_hops(p, r[i].from, r[i].to);
    qsort(r, m, sizeof *r, by_cost);
    *n = m < MAX_ROUTES ? m : MAX_ROUTES;
    return r;
}

Status mapper_svg(const MapPlan *p, MapSvgColour what, FILE *out, Diag *d)
{
    const Chip *c = p->chip;
    uint32_t L = p->n_phases;
    double w = px(p->grid_w - 1, c) + CELL + MARGIN, h = py(p->grid_h - 1, c) + CELL + 12;
    if (w < 760)
        w = 760;
    double H = h + LEGEND_H;
    int32_t *owner = malloc(((size_t)p->grid_w * p->grid_h + 1) * sizeof *owner);
    int64_t *value = calloc((size_t)p->n_vcores + 1, sizeof *value);
    uint32_t nr = 0;
    Route *r = routes(p, &nr);
    if (!owner || !value || !r) {
        free(owner);
        free(value);
        free(r);
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory drawing the picture");
    }
    int64_t maxv = 1;
    for (size_t k = 0; k < (size_t)p->grid_w * p->grid_h; k++)
        owner[k] = -1;
    for (uint32_t v = 0; v < p->n_vcores; v++) {
        owner[p->vcores[v].core] = (int32_t)v;
        if (what == MAP_SVG_MEMORY) {
            value[v] = p->vcores[v].mem_weight + p->vcores[v].mem_data;
        } else {
            for (uint32_t l = 0; l < L; l++) {
                const MPhase *ph = &p->phase[(size_t)v * L + l];
                value[v] += ph->clk_axon + ph->clk_soma1 + ph->clk_router + ph->clk_soma2;
            }
            if (value[v] > maxv)
                maxv = value[v];
        }
    }
    if (what == MAP_SVG_MEMORY)
        maxv = c->core_budget_bytes ? c->core_budget_bytes : 1;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
                 "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n",
            w, H, w, H);
    fprintf(out, "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
                 "markerWidth=\"4\" markerHeight=\"4\" orient=\"auto\"><path d=\"M0,0 L10,5 "
                 "L0,10 z\" fill=\"#d94801\"/></marker></defs>\n");
    fprintf(out, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", w, H);
    fprintf(out, "<text x=\"%d\" y=\"24\" font-size=\"16\" font-weight=\"bold\">", MARGIN);
    escape(out, c->name);
    fprintf(out, ": %" PRIu32 " cores on %" PRIu32 " chip%s, %" PRIu32 " phases, %" PRIu32
                 " phase group%s</text>\n",
            p->cost.cores, p->cost.chips, p->cost.chips == 1 ? "" : "s", p->cost.phases,
            p->cost.stages, p->cost.stages == 1 ? "" : "s");
    fprintf(out, "<text x=\"%d\" y=\"44\" font-size=\"12\">step clock %" PRId64
                 ", traffic %" PRId64 " byte-hops (%" PRId64 " bytes between cores), "
                 "memory %" PRId64 " bytes</text>\n",
            MARGIN, p->cost.step_clock, p->cost.traffic, p->cost.bytes_crossing,
            p->cost.mem_bytes);
    /* chips: a frame each */
    for (uint32_t cy = 0; cy < p->chips_y; cy++)
        for (uint32_t cx = 0; cx < p->chips_x; cx++) {
            double x0 = px(cx * c->cores_x, c) - 5, y0 = py(cy * c->cores_y, c) - 5;
            double x1 = px((cx + 1) * c->cores_x - 1, c) + CELL + 5;
            double y1 = py((cy + 1) * c->cores_y - 1, c) + CELL + 5;
            fprintf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
                         "fill=\"none\" stroke=\"#888888\" stroke-width=\"1.5\" rx=\"4\"/>\n",
                    x0, y0, x1 - x0, y1 - y0);
        }
    bool labels = p->n_vcores <= MAX_LABELS;
    for (uint32_t y = 0; y < p->grid_h; y++)
        for (uint32_t x = 0; x < p->grid_w; x++) {
            int32_t v = owner[(size_t)y * p->grid_w + x];
            char fill[8] = "#ffffff";
            if (v >= 0)
                colour((double)value[v] / (double)maxv, fill);
            fprintf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"%s\" "
                         "stroke=\"%s\"/>\n",
                    px(x, c), py(y, c), CELL, CELL, fill, v >= 0 ? "#08306b" : "#dddddd");
            if (v >= 0 && labels)
                fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"8\" fill=\"%s\">%d</text>\n",
                        px(x, c) + 2, py(y, c) + 9,
                        (double)value[v] / (double)maxv > 0.55 ? "#ffffff" : "#000000",
                        p->vcores[v].stage);
        }
    int64_t maxb = 1;
    for (uint32_t i = 0; i < nr; i++)
        if (r[i].bytes > maxb)
            maxb = r[i].bytes;
    for (uint32_t i = nr; i-- > 0;) { /* the busiest last, on top */
        uint32_t ax, ay, bx, by;
        map_core_xy(p, r[i].from, &ax, &ay);
        map_core_xy(p, r[i].to, &bx, &by);
        double off = CELL / 2.0;
        fprintf(out, "<polyline points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"none\" "
                     "stroke=\"#d94801\" stroke-opacity=\"0.75\" stroke-width=\"%.1f\" "
                     "marker-end=\"url(#arrow)\"/>\n",
                px(ax, c) + off, py(ay, c) + off, px(bx, c) + off, py(ay, c) + off,
                px(bx, c) + off, py(by, c) + off, 1.0 + 5.0 * (double)r[i].bytes / (double)maxb);
    }
    /* legend */
    double ly = h + 10;
    fprintf(out, "<text x=\"%d\" y=\"%.0f\" font-size=\"11\">%s</text>\n", MARGIN, ly + 10,
            what == MAP_SVG_MEMORY ? "core fill: memory, share of the core's budget"
                                   : "core fill: clocks of a step, share of the busiest core");
    for (int k = 0; k <= 10; k++) {
        char fill[8];
        colour(k / 10.0, fill);
        fprintf(out, "<rect x=\"%d\" y=\"%.0f\" width=\"18\" height=\"12\" fill=\"%s\" "
                     "stroke=\"#08306b\" stroke-width=\"0.5\"/>\n",
                MARGIN + 18 * k, ly + 16, fill);
    }
    fprintf(out, "<text x=\"%d\" y=\"%.0f\" font-size=\"10\">0</text>\n", MARGIN, ly + 40);
    if (what == MAP_SVG_MEMORY)
        fprintf(out, "<text x=\"%d\" y=\"%.0f\" font-size=\"10\" text-anchor=\"end\">%u "
                     "bytes</text>\n",
                MARGIN + 198, ly + 40, c->core_budget_bytes);
    else
        fprintf(out, "<text x=\"%d\" y=\"%.0f\" font-size=\"10\" text-anchor=\"end\">%" PRId64
                     " clocks</text>\n",
                MARGIN + 198, ly + 40, maxv);
    fprintf(out, "<text x=\"%d\" y=\"%.0f\" font-size=\"10\">%s</text>\n", MARGIN, ly + 54,
            labels ? "number: the core's phase group" : "(phase groups: in the report)");
    double lx = MARGIN + 330;
    fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">the %" PRIu32 " busiest routes "
                 "(XY, bytes x hops); width: bytes</text>\n",
            lx, ly + 10, nr);
    fprintf(out, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#d94801\" "
                 "stroke-width=\"6\" stroke-opacity=\"0.75\"/>\n",
            lx, ly + 24, lx + 40, ly + 24);
    fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\">%" PRId64 " bytes</text>\n",
            lx + 46, ly + 28, nr ? maxb : 0);
    fprintf(out, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#d94801\" "
                 "stroke-width=\"1\" stroke-opacity=\"0.75\"/>\n",
            lx, ly + 40, lx + 40, ly + 40);
    fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\">few bytes</text>\n", lx + 46,
            ly + 44);
    fputs("</svg>\n", out);
    free(owner);
    free(value);
    free(r);
    return ferror(out) ? diag_add(d, ST_RUNTIME, "io.write", NULL, "cannot write the picture")
                       : ST_OK;
}
