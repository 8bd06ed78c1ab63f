/* glr_merge.c — replace a step's nodes by equal earlier ones (see glr_merge.h). */
#include <stdlib.h>
#include <string.h>

#include "glr_merge.h"

void glr_merge_init(glr_merge *mg)
{
    memset(mg, 0, sizeof *mg);
}

void glr_merge_free(glr_merge *mg)
{
    free(mg->cache), free(mg->mark), free(mg->repl), free(mg->slot), free(mg->dfs);
    memset(mg, 0, sizeof *mg);
}

size_t glr_merge_size(const glr_merge *mg)
{
    return ((size_t)mg->cap_cache + 3 * (size_t)mg->cap_nodes + mg->cap_dfs) * sizeof(uint32_t);
}

static uint32_t slot(const glr_merge *mg, uint32_t state, uint32_t below)
{
    uint64_t key = (uint64_t)state << 32 | below;
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (mg->cap_cache - 1);
}

/* The successor of a node with exactly one edge, or GSS_NONE. */
static uint32_t only_below(const gss *g, uint32_t v)
{
    uint32_t e = g->nodes[v].edge;
    return e == GSS_NONE || g->edges[e].next != GSS_NONE ? GSS_NONE : g->edges[e].to;
}

/* Whether the single edges of z and v stand for the same copies. */
static bool same_run(const gss *g, uint32_t z, uint32_t v)
{
    const gss_edge *a = &g->edges[g->nodes[z].edge], *b = &g->edges[g->nodes[v].edge];
    return a->lo == b->lo && a->hi == b->hi;
}

static void put(glr_merge *mg, uint32_t h, uint32_t v)
{
    mg->cache[h] = v;
    mg->slot[v] = h;
}

/* Enters node v (one edge, to `below`) at the first free slot of its probe
 * sequence. */
static void enter(glr_merge *mg, const gss *g, uint32_t v, uint32_t below)
{
    uint32_t h = slot(mg, g->nodes[v].state, below);
    while (mg->cache[h] != GSS_NONE)
        h = (h + 1) & (mg->cap_cache - 1);
    put(mg, h, v);
}

/* Removes v's entry, if it has one, by backward shift (Knuth, TAOCP 6.4,
 * Algorithm R): the entries after it in its cluster that may move back do,
 * so the table never holds a tombstone and a probe stops at the first
 * empty slot. A node's key cannot change while it has an entry: entries are
 * made when a step is over, and nodes never change after their step. */
static void forget(glr_merge *mg, const gss *g, uint32_t v)
{
    if (v >= mg->cap_nodes || mg->slot[v] == GSS_NONE)
        return;
    uint32_t mask = mg->cap_cache - 1, hole = mg->slot[v];
    mg->slot[v] = GSS_NONE;
    for (uint32_t j = (hole + 1) & mask, z; (z = mg->cache[j]) != GSS_NONE; j = (j + 1) & mask) {
        uint32_t home = slot(mg, g->nodes[z].state, g->edges[g->nodes[z].edge].to);
        /* z may fill the hole unless its home lies cyclically in (hole, j] */
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            put(mg, hole, z);
            hole = j;
        }
    }
    mg->cache[hole] = GSS_NONE;
}

static void on_free(void *ctx, const gss *g, uint32_t v)
{
    forget(ctx, g, v);
}

/* Enters every live node with one edge, after the table was reallocated.
 * Nodes of the step being settled enter too; stand_in re-enters them. */
static void rebuild(glr_merge *mg, const gss *g)
{
    memset(mg->cache, 0xFF, (size_t)mg->cap_cache * sizeof *mg->cache);
    memset(mg->slot, 0xFF, (size_t)mg->cap_nodes * sizeof *mg->slot);
    for (uint32_t z = 0; z < g->n_nodes; z++) {
        uint32_t below = g->nodes[z].state == GSS_NONE ? GSS_NONE : only_below(g, z);
        if (below != GSS_NONE)
            enter(mg, g, z, below);
    }
}

/* Per-node arrays for the pool as it is, and a cache twice its size. */
static bool reserve(glr_merge *mg, const gss *g)
{
    if (mg->cap_nodes < g->cap_nodes) {
        uint32_t n = g->cap_nodes;
        uint32_t *a = realloc(mg->mark, (size_t)n * sizeof *a);
        if (a)
            mg->mark = a;
        uint32_t *b = a ? realloc(mg->repl, (size_t)n * sizeof *b) : NULL;
        if (b)
            mg->repl = b;
        uint32_t *c = b ? realloc(mg->slot, (size_t)n * sizeof *c) : NULL;
        if (c)
            mg->slot = c;
        uint32_t *d = c ? realloc(mg->dfs, 2 * (size_t)n * sizeof *d) : NULL;
        if (d)
            mg->dfs = d, mg->cap_dfs = 2 * n;
        if (!d)
            return false;
        memset(mg->mark + mg->cap_nodes, 0, (size_t)(n - mg->cap_nodes) * sizeof *a);
        memset(mg->slot + mg->cap_nodes, 0xFF, (size_t)(n - mg->cap_nodes) * sizeof *c);
        mg->cap_nodes = n;
    }
    if (mg->cap_cache < 2 * g->cap_nodes) {
        uint32_t cap = mg->cap_cache ? mg->cap_cache : 256;
        while (cap < 2 * g->cap_nodes)
            cap *= 2;
        uint32_t *c = malloc((size_t)cap * sizeof *c);
        if (!c)
            return false;
        free(mg->cache);
        mg->cache = c, mg->cap_cache = cap;
        rebuild(mg, g);
    }
    return true;
}

/* The earlier node equal to v (one edge, to `below`), or v itself, which
 * then enters the table. Every live node with one edge from an earlier step
 * has an entry until it is freed, so every equal earlier node is found (the
 * certificate counts on it); at most half the slots are full, so probes are
 * short. */
static uint32_t stand_in(glr_merge *mg, const gss *g, uint32_t v)
{
    forget(mg, g, v); /* entered by a rebuild before redirect() changed it */
    uint32_t below = only_below(g, v), state = g->nodes[v].state;
    if (below == GSS_NONE)
        return v;
    uint32_t h = slot(mg, state, below);
    for (uint32_t z; (z = mg->cache[h]) != GSS_NONE; h = (h + 1) & (mg->cap_cache - 1))
        if (mg->mark[z] != mg->gen && g->nodes[z].state == state && only_below(g, z) == below &&
            g->nodes[z].count == g->nodes[v].count && same_run(g, z, v)) /* equal stacks: counts too */
            return z;
    put(mg, h, v);
    return v;
}

/* Points v's edges at the stand-ins of the step's nodes below it, dropping
 * an edge that would repeat one v has. */
static void redirect(glr_merge *mg, gss *g, uint32_t v)
{
    for (uint32_t prev = GSS_NONE, e = g->nodes[v].edge; e != GSS_NONE;) {
        uint32_t to = g->edges[e].to, next = g->edges[e].next;
        /* a successor still open lies on a cycle of the step's nodes (tables
         * of a cyclic grammar): it has no stand-in yet, and keeps its edge */
        if (mg->mark[to] == mg->gen && mg->repl[to] != to && mg->repl[to] < GSS_NONE - 1) {
            uint32_t z = mg->repl[to];
            g->nodes[to].refs--; /* still held by the step */
            if (gss_linked_run(g, v, z, g->edges[e].lo, g->edges[e].hi)) {
                gss_unlink(g, v, prev, e);
                e = next;
                continue;
            }
            g->edges[e].to = z;
            g->nodes[z].refs++;
        }
        prev = e, e = next;
    }
}

/* Depth-first from v over the step's nodes: successors are settled first. */
static uint32_t settle(glr_merge *mg, gss *g, uint32_t v)
{
    uint32_t n = 0, merged = 0;
    mg->dfs[n++] = v, mg->dfs[n++] = g->nodes[v].edge;
    mg->repl[v] = GSS_NONE; /* open */
    while (n) {
        uint32_t u = mg->dfs[n - 2], e = mg->dfs[n - 1];
        if (e != GSS_NONE) {
            mg->dfs[n - 1] = g->edges[e].next;
            uint32_t to = g->edges[e].to;
            if (mg->mark[to] == mg->gen && mg->repl[to] == GSS_NONE - 1) {
                mg->repl[to] = GSS_NONE;
                mg->dfs[n++] = to, mg->dfs[n++] = g->nodes[to].edge;
            }
            continue;
        }
        n -= 2;
        redirect(mg, g, u);
        mg->repl[u] = stand_in(mg, g, u);
        merged += mg->repl[u] != u;
    }
    return merged;
}

uint32_t glr_merge_step(glr_merge *mg, gss *g, const uint32_t *made, uint32_t n_made, uint32_t *out,
                        uint32_t n_out)
{
    if (!reserve(mg, g))
        return 0;
    g->on_free = on_free, g->on_free_ctx = mg;
    if (++mg->gen == 0) {
        memset(mg->mark, 0, (size_t)mg->cap_nodes * sizeof *mg->mark);
        mg->gen = 1;
    }
    for (uint32_t i = 0; i < n_made; i++)
        mg->mark[made[i]] = mg->gen, mg->repl[made[i]] = GSS_NONE - 1; /* unvisited */
    uint32_t merged = 0;
    for (uint32_t i = 0; i < n_made; i++)
        if (mg->repl[made[i]] == GSS_NONE - 1)
            merged += settle(mg, g, made[i]);
    for (uint32_t i = 0; merged && i < n_out; i++) {
        uint32_t z = mg->repl[out[i]];
        if (z != out[i]) {
            gss_retain(g, z); /* the frontier's hold moves to the stand-in */
            out[i] = z;
        }
    }
    return merged;
}
