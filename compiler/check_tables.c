/* check_tables.c — the table-building phases of compile.c for callers that
 * read the tables (contract in check_tables.h). */
#include <string.h>

#include "check_tables.h"
#include "gbnf.h"
#include "lower.h"
#include "normalize.h"

gcg_status gcg_check_tables_run(const char *src, size_t len, const gcg_compile_options *opt,
                                gcg_compile_stats *stats, gcg_diag *diag,
                                int (*fn)(const gcg_check_tables *, void *), void *arg,
                                int *fn_result)
{
    gbnf_grammar ast;
    cfg g;
    byteclass bc;
    lr_tables lr;
    memset(&ast, 0, sizeof ast);
    memset(&g, 0, sizeof g);
    memset(&bc, 0, sizeof bc);
    memset(&lr, 0, sizeof lr);
    memset(stats, 0, sizeof *stats);
    gcg_status st = gcg_gbnf_parse(src, len, opt->root_name, &ast, diag);
    if (st == GCG_OK)
        st = gcg_lower(&ast, &g, &opt->limits, diag);
    if (st == GCG_OK)
        st = gcg_normalize(&g, &ast, diag);
    if (st == GCG_OK)
        st = gcg_byteclass_build(&g, &bc);
    if (st == GCG_OK)
        st = gcg_lr_build(&g, &bc, &opt->limits, &lr, diag);
    if (st == GCG_OK) {
        *stats = (gcg_compile_stats){.gbnf_rules = ast.n_rules, .nonterminals = g.n_nts,
                                     .productions = g.n_prods, .byte_classes = bc.n_classes,
                                     .lr_states = lr.n_states, .sr_conflicts = lr.sr_conflicts,
                                     .rr_conflicts = lr.rr_conflicts};
        gcg_check_tables t = {&g, &bc, &lr};
        if (fn && diag->n_errors == 0)
            *fn_result = fn(&t, arg);
    }
    gcg_gbnf_free(&ast);
    cfg_free(&g);
    gcg_byteclass_free(&bc);
    gcg_lr_free(&lr);
    return st;
}
