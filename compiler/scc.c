/* scc.c — Tarjan's strongly connected components with an explicit stack. */
#include <stdlib.h>

#include "scc.h"

#define UNSEEN UINT32_MAX

gcg_status gcg_scc(uint32_t n, const uint32_t *first, const uint32_t *adj, uint32_t *comp,
                   uint32_t *n_comp)
{
    size_t sz = (size_t)(n ? n : 1) * sizeof(uint32_t);
    uint32_t *index = malloc(sz), *low = malloc(sz), *stack = malloc(sz);
    uint32_t *call = malloc(sz), *edge = malloc(sz); /* DFS frames: node, next edge */
    uint8_t *on = calloc(n ? n : 1, 1);
    if (!index || !low || !stack || !call || !edge || !on) {
        free(index), free(low), free(stack), free(call), free(edge), free(on);
        return GCG_ERR_NOMEM;
    }
    for (uint32_t v = 0; v < n; v++)
        index[v] = UNSEEN;
    uint32_t counter = 0, sp = 0, ncomp = 0;
    for (uint32_t root = 0; root < n; root++) {
        if (index[root] != UNSEEN)
            continue;
        uint32_t depth = 0;
        call[0] = root, edge[0] = first[root];
        index[root] = low[root] = counter++;
        stack[sp++] = root, on[root] = 1;
        while (1) {
            uint32_t v = call[depth];
            if (edge[depth] < first[v + 1]) {
                uint32_t w = adj[edge[depth]++];
                if (index[w] == UNSEEN) {
                    index[w] = low[w] = counter++;
                    stack[sp++] = w, on[w] = 1;
                    ++depth;
                    call[depth] = w, edge[depth] = first[w];
                } else if (on[w] && index[w] < low[v]) {
                    low[v] = index[w];
                }
                continue;
            }
            if (low[v] == index[v]) { /* v roots a component: pop it */
                uint32_t w;
                do {
                    w = stack[--sp];
                    on[w] = 0;
                    comp[w] = ncomp;
                } while (w != v);
                ncomp++;
            }
            if (depth == 0)
                break;
            --depth;
            uint32_t u = call[depth];
            if (low[v] < low[u])
                low[u] = low[v];
        }
    }
    free(index), free(low), free(stack), free(call), free(edge), free(on);
    *n_comp = ncomp;
    return GCG_OK;
}
