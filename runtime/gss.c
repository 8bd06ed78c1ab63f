/* gss.c — pooled, reference-counted stack nodes and edges. */
#include <stdlib.h>
#include <string.h>

#include "gss.h"

bool gss_init(gss *g, uint32_t initial_nodes, uint32_t max_nodes)
{
    memset(g, 0, sizeof *g);
    g->free_node = g->free_edge = GSS_NONE;
    g->max_nodes = max_nodes;
    g->cap_nodes = g->cap_edges = g->cap_work = initial_nodes ? initial_nodes : 16;
    g->nodes = malloc((size_t)g->cap_nodes * sizeof *g->nodes);
    g->edges = malloc((size_t)g->cap_edges * sizeof *g->edges);
    g->work = malloc((size_t)g->cap_work * sizeof *g->work);
    if (!g->nodes || !g->edges || !g->work) {
        gss_free(g);
        return false;
    }
    return true;
}

void gss_free(gss *g)
{
    free(g->nodes);
    free(g->edges);
    free(g->work);
    memset(g, 0, sizeof *g);
}

static bool grow(void **p, uint32_t *cap, size_t sz)
{
    if (*cap > UINT32_MAX / 2)
        return false;
    void *q = realloc(*p, (size_t)*cap * 2 * sz);
    if (!q)
        return false;
    *p = q;
    *cap *= 2;
    return true;
}

bool gss_grow_nodes(gss *g)
{
    return grow((void **)&g->nodes, &g->cap_nodes, sizeof *g->nodes);
}

bool gss_grow_edges(gss *g)
{
    return grow((void **)&g->edges, &g->cap_edges, sizeof *g->edges);
}

bool gss_linked_run(const gss *g, uint32_t from, uint32_t to, uint32_t lo, uint32_t hi)
{
    for (uint32_t e = g->nodes[from].edge; e != GSS_NONE; e = g->edges[e].next)
        if (g->edges[e].to == to && g->edges[e].lo == lo && g->edges[e].hi == hi)
            return true;
    return false;
}

bool gss_linked(const gss *g, uint32_t from, uint32_t to)
{
    return gss_linked_run(g, from, to, 1, 1);
}

void gss_unlink(gss *g, uint32_t from, uint32_t prev, uint32_t e)
{
    uint32_t next = g->edges[e].next;
    if (prev == GSS_NONE)
        g->nodes[from].edge = next;
    else
        g->edges[prev].next = next;
    g->edges[e].next = g->free_edge;
    g->free_edge = e;
}

/* Frees node n (refs already 0): its edges go to the free list and the nodes
 * they point to lose a reference; those reaching zero are pushed on `work`. */
static uint32_t free_node(gss *g, uint32_t n, uint32_t top)
{
    if (g->on_free)
        g->on_free(g->on_free_ctx, g, n);
    uint32_t e = g->nodes[n].edge;
    while (e != GSS_NONE) {
        uint32_t next = g->edges[e].next, to = g->edges[e].to;
        g->edges[e].next = g->free_edge;
        g->free_edge = e;
        if (--g->nodes[to].refs == 0)
            g->work[top++] = to; /* the work stack never exceeds the node count */
        e = next;
    }
    g->weight_live -= g->weight ? g->weight[g->nodes[n].state] : 0;
    g->nodes[n].edge = g->free_node;
    g->nodes[n].state = GSS_NONE;
    g->free_node = n;
    g->live--;
    return top;
}

void gss_release(gss *g, uint32_t n)
{
    if (--g->nodes[n].refs != 0)
        return;
    if (g->cap_work < g->n_nodes) {
        /* Sized to the node pool so the cascade below cannot overflow; this
         * allocates only when the pool itself has grown. */
        uint32_t *w = realloc(g->work, (size_t)g->cap_nodes * sizeof *w);
        if (!w) {
            g->nodes[n].refs = 1; /* leak rather than corrupt */
            return;
        }
        g->work = w;
        g->cap_work = g->cap_nodes;
    }
    uint32_t top = 0;
    g->work[top++] = n;
    while (top) {
        uint32_t m = g->work[--top];
        top = free_node(g, m, top);
    }
}

uint64_t gss_memory(const gss *g)
{
    return (uint64_t)g->cap_nodes * sizeof *g->nodes + (uint64_t)g->cap_edges * sizeof *g->edges +
           (uint64_t)g->cap_work * sizeof *g->work;
}

void gss_set_weight(gss *g, const uint32_t *weight)
{
    g->weight = weight;
    g->weight_live = 0;
    for (uint32_t n = 0; weight && n < g->n_nodes; n++)
        if (g->nodes[n].state != GSS_NONE)
            g->weight_live += weight[g->nodes[n].state];
}
