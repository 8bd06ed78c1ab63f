/* gss_dot.c — the GSS below a matcher's frontier as DOT (see gss_dot.h). */
#include <stdlib.h>

#include "gss_dot.h"
#include "matcher.h"

/* Depth-first from the frontier; each node and edge printed once. */
static void print_reachable(const gss *g, uint32_t *stack, uint8_t *seen, uint32_t n, FILE *out)
{
    while (n > 0) {
        uint32_t v = stack[--n];
        for (uint32_t e = g->nodes[v].edge; e != GSS_NONE; e = g->edges[e].next) {
            uint32_t to = g->edges[e].to;
            if (g->edges[e].hi == 1)
                fprintf(out, "  n%u -> n%u;\n", v, to);
            else /* a run: the node's state repeated lo..hi times, itself the top */
                fprintf(out, "  n%u -> n%u [label=\"x%u..%u\"];\n", v, to, g->edges[e].lo, g->edges[e].hi);
            if (seen[to])
                continue;
            seen[to] = 1;
            fprintf(out, "  n%u [label=\"%u\"];\n", to, g->nodes[to].state);
            stack[n++] = to;
        }
    }
}

gcg_status gcg_gss_dot(const gcg_matcher *m, FILE *out)
{
    const gss *g = &m->p.g;
    uint8_t *seen = calloc(g->n_nodes ? g->n_nodes : 1, 1);
    uint32_t *stack = malloc(((size_t)g->n_nodes + 1) * sizeof *stack);
    if (!seen || !stack) {
        free(seen);
        free(stack);
        return GCG_ERR_NOMEM;
    }
    fputs("digraph gss {\n  rankdir=RL;\n  node [shape=circle];\n", out);
    fprintf(out, "  label=\"GSS: %u stack tops; node label = LR state\";\n", m->n_front);
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->n_front; i++) {
        uint32_t v = m->front[i];
        if (seen[v])
            continue;
        seen[v] = 1;
        fprintf(out, "  n%u [label=\"%u\", style=bold, peripheries=2];\n", v, g->nodes[v].state);
        stack[n++] = v;
    }
    print_reachable(g, stack, seen, n, out);
    fputs("}\n", out);
    free(seen);
    free(stack);
    return ferror(out) ? GCG_ERR_IO : GCG_OK;
}
