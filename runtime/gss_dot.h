/*
 * gss_dot.h — the matcher's graph-structured stack as a Graphviz DOT graph,
 * for people debugging a grammar (tree-sitter's stack dump is the model).
 * Internal API for the gcg tool: the library itself never prints; the
 * caller hands in the FILE.
 */
#ifndef GCG_GSS_DOT_H
#define GCG_GSS_DOT_H

#include <stdio.h>

#include "gcg.h"

/* Writes every GSS node reachable from the matcher's frontier: one node per
 * stack entry labelled with its LR state (frontier nodes drawn bold), one
 * edge per link to the entry below. GCG_ERR_NOMEM, GCG_ERR_IO when writing
 * failed, else GCG_OK. */
gcg_status gcg_gss_dot(const gcg_matcher *m, FILE *out);

#endif /* GCG_GSS_DOT_H */
