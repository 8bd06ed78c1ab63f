/*
 * scc.h — strongly connected components of a directed graph given in
 * compressed sparse row form (Tarjan's algorithm, iterative so that a deep
 * graph cannot overflow the C stack).
 */
#ifndef GCG_SCC_H
#define GCG_SCC_H

#include <stdint.h>

#include "gcg.h"

/* Graph: edges of node v are adj[first[v] .. first[v+1]). Writes comp[v]
 * (component ids in reverse topological order: an edge u->v across
 * components has comp[u] > comp[v]) and returns the number of components
 * in *n_comp. */
gcg_status gcg_scc(uint32_t n, const uint32_t *first, const uint32_t *adj, uint32_t *comp,
                   uint32_t *n_comp);

#endif /* GCG_SCC_H */
