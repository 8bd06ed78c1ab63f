/*
 * check_tables.h — the front end and LR tables of one grammar, handed to a
 * caller while they exist (for `gcgc check`'s LR report and sentence
 * counts, which read the grammar and tables themselves).
 */
#ifndef GCG_CHECK_TABLES_H
#define GCG_CHECK_TABLES_H

#include "byteclass.h"
#include "cfg.h"
#include "compile.h"
#include "lr_build.h"

/* The phases' products, valid only during the callback. */
typedef struct gcg_check_tables {
    const cfg *g;
    const byteclass *bc;
    const lr_tables *lr;
} gcg_check_tables;

/* Parses, lowers, normalizes and builds the LR tables of `src` (as
 * gcg_compile with check_only), filling *stats and diag; when that
 * succeeds, calls fn(tables, arg) and stores its return in *fn_result. */
gcg_status gcg_check_tables_run(const char *src, size_t len, const gcg_compile_options *opt,
                                gcg_compile_stats *stats, gcg_diag *diag,
                                int (*fn)(const gcg_check_tables *, void *), void *arg,
                                int *fn_result);

#endif /* GCG_CHECK_TABLES_H */
