/*
 * consumer.c — a program of an engine that uses gcg: it opens the artifact
 * its build compiled (argv[1]), checks a sentence against it and, when
 * built with the compile library (CONSUMER_COMPILES), also compiles a
 * grammar in-process.
 */
#include <stdio.h>
#include <string.h>

#include <gcg.h>
#ifdef CONSUMER_COMPILES
#include <gcgc.h>
#endif

static int check_sentence(const char *path, const char *text)
{
    gcg_artifact *art;
    gcg_matcher *m;
    gcg_error err;
    if (gcg_artifact_open_file(path, &art, &err) != GCG_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        return 1;
    }
    if (gcg_matcher_new(art, NULL, &m, &err) != GCG_OK) {
        fprintf(stderr, "matcher: %s\n", err.msg);
        gcg_artifact_free(art);
        return 1;
    }
    gcg_status st = gcg_matcher_commit_bytes(m, (const uint8_t *)text, strlen(text), NULL);
    int complete = st == GCG_OK && gcg_matcher_is_complete(m);
    printf("%s: %u tokens, %s %s\n", path, gcg_artifact_vocab_size(art), text,
           complete ? "complete" : "not complete");
    gcg_matcher_free(m);
    gcg_artifact_free(art);
    return complete ? 0 : 1;
}

#ifdef CONSUMER_COMPILES
static int compile_in_process(void)
{
    static const char src[] = "root ::= \"yes\" | \"no\"\n";
    gcgc_result *r;
    gcg_status st = gcgc_compile(NULL, src, strlen(src), NULL, &r);
    size_t size = 0;
    if (st == GCG_OK)
        gcgc_result_artifact(r, &size);
    printf("in-process compile: %s, %s\n", gcg_status_str(st), size ? "artifact" : "none");
    gcgc_result_free(r);
    return st == GCG_OK && size ? 0 : 1;
}
#endif

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: consumer ARTIFACT\n");
        return 2;
    }
    printf("libgcg %s\n", gcg_version());
    int rc = check_sentence(argv[1], "[1,2]");
#ifdef CONSUMER_COMPILES
    rc |= compile_in_process();
#endif
    return rc;
}
