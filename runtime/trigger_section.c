/* trigger_section.c — GCG_SEC_TRIGGERS: layout, validation, view (see
 * trigger_section.h and artifact_format.h). */
#include <string.h>

#include "error.h"
#include "trigger_section.h"

#define MAX_TRIGGER_STATES (1u << 20)

/* Lays the section over its bytes; false when the sizes do not add up. */
static bool lay_out(const uint8_t *p, uint64_t size, gcg_trigger_view *v)
{
    memset(v, 0, sizeof *v);
    if (size < 16)
        return false;
    const uint32_t *h = (const uint32_t *)p;
    v->n_triggers = h[0], v->n_tokens = h[1], v->n_states = h[2], v->force_len = h[3];
    if (v->n_states > MAX_TRIGGER_STATES || v->n_triggers > MAX_TRIGGER_STATES ||
        v->n_tokens > MAX_TRIGGER_STATES || v->force_len > MAX_TRIGGER_STATES)
        return false;
    uint64_t need = 16 + 4ull * v->n_tokens + sizeof(gcg_trigger_entry) * v->n_triggers +
                    1024ull * v->n_states + v->n_states + v->force_len;
    if ((need + 3) / 4 * 4 != size)
        return false;
    v->tokens = h + 4;
    v->trig = (const gcg_trigger_entry *)(v->tokens + v->n_tokens);
    v->trans = (const uint32_t *)(v->trig + v->n_triggers);
    v->accept = (const uint8_t *)(v->trans + (size_t)v->n_states * 256);
    v->force = v->accept + v->n_states;
    return true;
}

gcg_status gcg_trigger_section_check(const gcg_artifact *art, gcg_error *err)
{
    uint64_t size = 0;
    const uint8_t *p = gcg_container_section(&art->c, GCG_SEC_TRIGGERS, &size);
    if (!p)
        return GCG_OK;
    gcg_trigger_view v;
    if (!lay_out(p, size, &v))
        return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET,
                             "trigger section: size does not match its counts");
    if (v.n_triggers == 0 && v.n_tokens == 0)
        return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "trigger section: no triggers");
    for (uint32_t i = 0; i < v.n_tokens; i++)
        if (v.tokens[i] >= art->v.n_tokens)
            return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET,
                                 "trigger section: token %u out of range", v.tokens[i]);
    for (uint32_t i = 0; i < v.n_triggers; i++) {
        const gcg_trigger_entry *t = &v.trig[i];
        if (t->find >= v.n_states || t->prefix >= v.n_states || t->suffix >= v.n_states || t->flags > 1)
            return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET,
                                 "trigger section: trigger %u: bad entry", i);
    }
    for (size_t i = 0; i < (size_t)v.n_states * 256; i++)
        if (v.trans[i] >= v.n_states)
            return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET,
                                 "trigger section: transition %zu out of range", i);
    for (uint32_t i = 0; i < v.n_states; i++)
        if (v.accept[i] > 1)
            return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET,
                                 "trigger section: state %u: bad accept flag", i);
    return GCG_OK;
}

void gcg_trigger_section_view(const gcg_artifact *art, gcg_trigger_view *out)
{
    uint64_t size = 0;
    const uint8_t *p = gcg_container_section(&art->c, GCG_SEC_TRIGGERS, &size);
    if (!p || !lay_out(p, size, out))
        memset(out, 0, sizeof *out);
}
