/* vocab_file.c — opening a prepared vocabulary (.gcgv, see gcg.h): the
 * VOCAB and TRIE sections of an artifact alone, checked as the artifact
 * loader checks them, with the fingerprint that by-reference artifacts name. */
#include <stdlib.h>
#include <string.h>

#include "artifact.h"
#include "error.h"

static gcg_status validate(gcg_vocabulary *v, gcg_error *err)
{
    gcg_status st = gcg_container_parse(v->mem, v->size, &v->c, err);
    if (st != GCG_OK)
        return st;
    static const uint32_t need[] = {GCG_SEC_VOCAB, GCG_SEC_TRIE};
    uint64_t size;
    for (size_t i = 0; i < sizeof need / sizeof *need; i++)
        if (!gcg_container_section(&v->c, need[i], &size))
            return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "missing section %s (id %u)",
                                 gcg_section_name(need[i]), need[i]);
    if (gcg_load_vocab_view(&v->c, &v->v, err) != GCG_OK ||
        gcg_load_trie_view(&v->c, v->v.n_tokens, &v->trie, err) != GCG_OK)
        return GCG_ERR_FORMAT;
    v->fingerprint = gcg_vocab_fingerprint_of(&v->c);
    uint32_t ref_tokens;
    uint64_t ref_fp;
    if (gcg_load_vocab_ref(&v->c, &ref_tokens, &ref_fp, err) != GCG_OK)
        return GCG_ERR_FORMAT;
    if (ref_fp && (ref_fp != v->fingerprint || ref_tokens != v->v.n_tokens))
        return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET,
                             "vocabulary section does not match its fingerprint %016llx",
                             (unsigned long long)ref_fp);
    return GCG_OK;
}

/* Takes over mem (mapped or owned) whatever the outcome. */
static gcg_status open_bytes(uint8_t *mem, size_t size, bool mapped, gcg_vocabulary **out, gcg_error *err)
{
    gcg_vocabulary *v = calloc(1, sizeof *v);
    if (!v) {
        gcg_release(mem, size, mapped);
        return gcg_error_set(err, GCG_ERR_NOMEM, GCG_NO_OFFSET, "out of memory");
    }
    v->mem = mem, v->size = size, v->mapped = mapped;
    gcg_status st = validate(v, err);
    if (st != GCG_OK) {
        gcg_vocabulary_free(v);
        return st;
    }
    *out = v;
    return GCG_OK;
}

gcg_status gcg_vocabulary_open_memory(const void *data, size_t size, gcg_vocabulary **out, gcg_error *err)
{
    if (!out || (!data && size))
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET, "NULL argument");
    *out = NULL;
    uint8_t *mem;
    if (gcg_copy_aligned(data, size, &mem, err) != GCG_OK)
        return GCG_ERR_NOMEM;
    return open_bytes(mem, size, false, out, err);
}

gcg_status gcg_vocabulary_open_file(const char *path, gcg_vocabulary **out, gcg_error *err)
{
    if (!out || !path)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET, "NULL argument");
    *out = NULL;
    uint8_t *mem;
    size_t size;
    gcg_status st = gcg_map_file(path, &mem, &size, err);
    return st == GCG_OK ? open_bytes(mem, size, true, out, err) : st;
}

void gcg_vocabulary_free(gcg_vocabulary *v)
{
    if (!v)
        return;
    gcg_release(v->mem, v->size, v->mapped);
    free(v);
}

uint32_t gcg_vocabulary_size(const gcg_vocabulary *v)
{
    return v ? v->v.n_tokens : 0;
}

uint64_t gcg_vocabulary_fingerprint(const gcg_vocabulary *v)
{
    return v ? v->fingerprint : 0;
}
