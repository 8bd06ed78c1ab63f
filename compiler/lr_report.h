/*
 * lr_report.h — a grammar author's view of the LR tables, after lemon's
 * .out report: every state with its kernel items (production with a dot),
 * its actions grouped by byte set, its gotos, and every conflict cell with
 * the productions involved. The item sets are rebuilt here from the grammar
 * by following the tables' own transitions from state 0 (kernel ->
 * closure -> advance), so the numbering is the tables'.
 */
#ifndef GCG_LR_REPORT_H
#define GCG_LR_REPORT_H

#include <stdio.h>

#include "byteclass.h"
#include "cfg.h"
#include "lr_build.h"

/* Writes the report to `out`. GCG_ERR_NOMEM, or GCG_ERR_IO when writing
 * failed. */
gcg_status gcg_lr_report(const cfg *g, const byteclass *bc, const lr_tables *lr, FILE *out);

#endif /* GCG_LR_REPORT_H */
