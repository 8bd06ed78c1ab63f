/*
 * fuzz_triggers.c — libFuzzer target for the trigger compiler (words and the
 * regex subset, compiler/triggers.c) and the lazy runtime over its section.
 * The first byte picks the kind (word, pattern, pattern_full); the rest up
 * to a NUL is the text. A compile either fails with a diagnostic or yields
 * an artifact that opens; the text is then committed lazily byte by byte
 * and rolled back, which must never crash, and rolling everything back must
 * return to free mode.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "gcg.h"

static void require(int ok)
{
    if (!ok)
        abort();
}

static void run_lazy(const gcg_artifact *art, const char *text, size_t n)
{
    gcg_lazy_options o;
    gcg_lazy_options_default(&o);
    o.matcher.max_rollback = 64;
    gcg_lazy *lz;
    require(gcg_lazy_new(art, &o, &lz, NULL) == GCG_OK);
    uint32_t done = 0, words[8];
    for (size_t i = 0; i < n && done < 64; i++)
        done += gcg_lazy_commit(lz, (uint8_t)text[i]) == GCG_OK;
    /* built without the automaton: only the free modes have masks */
    require(gcg_lazy_fill_mask(lz, words, 8) == GCG_OK || gcg_lazy_get_mode(lz) == GCG_LAZY_GRAMMAR);
    require(gcg_lazy_rollback(lz, done) == GCG_OK);
    require(gcg_lazy_get_mode(lz) == GCG_LAZY_FREE);
    gcg_lazy_free(lz);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 512)
        return 0;
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    gcgc_trigger t = {(gcgc_trigger_kind)(data[0] % 3), text, 0};
    gcg_compile_options opt = {0};
    opt.triggers = &t, opt.n_triggers = 1, opt.no_automaton = true;
    const char *g = "root ::= [\\x00-\\x7f]*\n";
    gcg_diag d;
    gcg_diag_init(&d, "fuzz");
    uint8_t *bytes = NULL;
    size_t n = 0;
    gcg_status st = gcg_compile(g, strlen(g), &opt, false, &bytes, &n, NULL, &d);
    require(st == GCG_OK || d.n_errors > 0);
    if (st == GCG_OK) {
        gcg_artifact *art;
        require(gcg_artifact_open_memory(bytes, n, &art, NULL) == GCG_OK);
        run_lazy(art, text, strlen(text));
        gcg_artifact_free(art);
    }
    free(bytes);
    gcg_diag_free(&d);
    free(text);
    return 0;
}
