/*
 * table_pack.h — row displacement of sparse LR tables (the encoding of
 * GCG_SEC_ACTION and GCG_SEC_GOTO in artifact_format.h): identical rows are
 * shared, and the distinct rows are overlaid in one slot array, each slot
 * tagged with its row, so a lookup stays O(1) while the size grows with the
 * number of entries rather than with states x columns.
 */
#ifndef GCG_TABLE_PACK_H
#define GCG_TABLE_PACK_H

#include <stdint.h>

#include "../runtime/artifact_format.h"
#include "gcg.h"

typedef struct disp_table {
    uint32_t n_rows, width, n_slots;
    gcg_disp_row *rows;     /* n_rows  */
    gcg_disp_slot *slots;   /* n_slots */
} disp_table;

/* Packs n_rows rows of `width` columns; row r's entries are cols[k], vals[k]
 * for k in [start[r], start[r + 1]), by ascending column. */
gcg_status gcg_disp_pack(uint32_t n_rows, uint32_t width, const uint32_t *start, const uint32_t *cols,
                         const uint32_t *vals, disp_table *out);
void gcg_disp_free(disp_table *t);

#endif /* GCG_TABLE_PACK_H */
