/*
 * trigger_section.h — the lazy-grammar trigger section (GCG_SEC_TRIGGERS,
 * encoding in artifact_format.h): validation at load, and a typed view of it
 * for lazy.c.
 */
#ifndef GCG_TRIGGER_SECTION_H
#define GCG_TRIGGER_SECTION_H

#include "artifact.h"

typedef struct gcg_trigger_view {
    uint32_t n_triggers, n_tokens, n_states, force_len; /* n_triggers = 0: none */
    const uint32_t *tokens;
    const gcg_trigger_entry *trig;
    const uint32_t *trans;       /* n_states * 256 */
    const uint8_t *accept;       /* n_states */
    const uint8_t *force;        /* force_len */
} gcg_trigger_view;

/* Checks the section, if present: sizes, every state index, token ids
 * against the vocabulary. GCG_ERR_FORMAT with a message otherwise. */
gcg_status gcg_trigger_section_check(const gcg_artifact *art, gcg_error *err);

/* The view of a loaded (hence checked) artifact's section; all zero when
 * the artifact has none. */
void gcg_trigger_section_view(const gcg_artifact *art, gcg_trigger_view *out);

#endif /* GCG_TRIGGER_SECTION_H */
