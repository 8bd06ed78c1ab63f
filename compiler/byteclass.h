/*
 * byteclass.h — byte equivalence classes: two bytes are equivalent when every
 * terminal set of the grammar contains both or neither. The LR tables are
 * indexed by class, so a JSON grammar needs ~40 columns instead of 256.
 * Bytes no terminal set contains form one class of their own (always an error).
 */
#ifndef GCG_BYTECLASS_H
#define GCG_BYTECLASS_H

#include "cfg.h"

typedef struct byteclass {
    uint8_t class_of[256];
    uint32_t n_classes;      /* 1..256 */
    bset256 *csets;          /* per terminal set of the grammar: its classes */
    uint32_t n_csets;
} byteclass;

gcg_status gcg_byteclass_build(const cfg *g, byteclass *out);
void gcg_byteclass_free(byteclass *bc);

#endif /* GCG_BYTECLASS_H */
