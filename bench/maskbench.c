/*
 * maskbench.c — gcg_maskbench: the MaskBench workload (JSON Schema files with
 * valid and invalid instances). For each file: convert and compile the schema
 * against a tokenizer (by vocabulary reference, as an engine that compiles a
 * schema per request with its vocabulary loaded once does), commit every
 * token of every valid instance (timing fill_mask and commit, and checking
 * that the mask allows the token), then check that EOS is allowed; commit
 * every invalid instance's bytes and check that it is rejected or
 * incomplete.
 *
 * Latencies are per-step minima over REPLAYS replays of each valid instance;
 * a schema's compile time is the fastest of WARM_COMPILES compiles after the
 * first in its child.
 * A file passes when it compiles and every instance is answered right. A
 * wrong answer (valid rejected, invalid accepted, or a mask that forbids a
 * token of a valid instance) is the failure that matters; a refusal (the
 * schema uses something gcg does not enforce, or a limit) is reported by
 * reason. Where the artifact's latency certificate is bounded, every mask of
 * a valid instance is checked against it: the stack reads, edges and set
 * operations one fill_mask did (gcg_mask_stats) may not pass what the
 * certificate states, and an instance whose masks do is a failure too; so is
 * one with a commit step (a byte, or the end check) over the certificate's
 * commit bound, where it states one. Each
 * file runs in a child process under a CPU-time limit (and ten
 * times that in wall time), so one slow compile or a crash is one refusal,
 * not a stalled run.
 *
 * Usage: gcg_maskbench --tokenizer tokenizer.json --jobs JOBS.txt
 *                      [--timeout SECONDS] [--budget SECONDS] [--lenient] [--verbose]
 * --budget: start no file after that many seconds of wall time; the files
 * left are counted and named as not run, and the tables cover the others.
 * JOBS.txt is written by maskbench_tok.mjs. Exit status: 0 no wrong answer
 * and nothing over its certificate, 1 either, 2 usage or unreadable input.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gcg.h"
#include "gcgc.h"

typedef struct test {
    bool valid;
    uint8_t *bytes;
    size_t n;
    uint32_t *ids;
    size_t n_ids;
    bool has_ids;
    uint8_t *ordered;     /* the valid instance with keys in schema order, or NULL */
    size_t n_ordered;
} test;

typedef struct job {
    char name[512];
    char *error;          /* E line */
    uint8_t *schema;
    size_t schema_len;
    test *t;
    size_t n, cap;
} job;

typedef struct dvec { double *v; size_t n, cap; } dvec;

typedef struct split {
    char name[128];
    unsigned files, passing, compiled, refused, wrong;
    unsigned order;  /* compiled, no wrong answer, a valid instance only in schema order */
} split;

typedef struct totals {
    split sp[128];
    unsigned n_sp;
    char reasons[256][96];
    unsigned reason_n[256];
    unsigned n_reasons;
    dvec compile_s, compile_first_s, mask_ns, commit_ns, both_ns;
    unsigned wrong_valid, wrong_invalid, wrong_mask, order_only;
    unsigned order_files;
    uint64_t cert_masks, cert_over; /* masks of bounded artifacts checked, over it */
    unsigned cert_files;            /* files whose certificate is bounded        */
    double cert_most[3];            /* most observed / certified: reads, edges, set ops */
    uint64_t commit_checked, commit_over; /* instances held to a commit bound, over it */
    unsigned commit_files;          /* files with a commit bound                 */
    double commit_most;             /* costliest commit step / its bound         */
} totals;

/* ---- small helpers --------------------------------------------------------- */

static void dpush(dvec *d, double x)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 1024;
        double *v = realloc(d->v, cap * sizeof *v);
        if (!v)
            return;
        d->v = v;
        d->cap = cap;
    }
    d->v[d->n++] = x;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(dvec *d, double p)
{
    if (!d->n)
        return 0;
    size_t i = (size_t)(p * (double)(d->n - 1) + 0.5);
    return d->v[i];
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint8_t *unhex(const char *s, size_t *n)
{
    size_t len = strcspn(s, " \n");
    uint8_t *b = malloc(len / 2 + 1);
    for (size_t i = 0; b && i + 1 < len; i += 2) {
        unsigned v;
        sscanf(s + i, "%2x", &v);
        b[i / 2] = (uint8_t)v;
    }
    *n = len / 2;
    return b;
}

static void job_clear(job *j)
{
    for (size_t i = 0; i < j->n; i++)
        free(j->t[i].bytes), free(j->t[i].ids), free(j->t[i].ordered);
    free(j->t);
    free(j->schema);
    free(j->error);
    memset(j, 0, sizeof *j);
}

static void add_test(job *j, bool valid, const char *rest)
{
    if (j->n == j->cap) {
        j->cap = j->cap ? j->cap * 2 : 16;
        j->t = realloc(j->t, j->cap * sizeof *j->t);
    }
    test *t = &j->t[j->n++];
    memset(t, 0, sizeof *t);
    t->valid = valid;
    t->bytes = unhex(rest, &t->n);
    const char *p = rest + strcspn(rest, " \n");
    if (!valid || *p != ' ')
        return;
    t->has_ids = true;
    size_t cap = 64;
    t->ids = malloc(cap * sizeof *t->ids);
    char *e;
    for (p++; *p && *p != '\n'; p = e) {
        unsigned long v = strtoul(p, &e, 10);
        if (e == p)
            break;
        if (t->n_ids == cap)
            t->ids = realloc(t->ids, (cap *= 2) * sizeof *t->ids);
        t->ids[t->n_ids++] = (uint32_t)v;
    }
}

/* ---- the child: compile and check one file ---------------------------------- */

static bool accepts_bytes(gcg_matcher *m, const uint8_t *b, size_t n)
{
    gcg_matcher_reset(m);
    return gcg_matcher_commit_bytes(m, b, n, NULL) == GCG_OK && gcg_matcher_is_complete(m);
}

/* Record: int kind (0 compiled, 1 refused), double compile s (warm), double
 * compile s (first in the child), char reason[200]; when compiled, bool
 * bounded (the mask certificate), then per test: int wrong (0 ok, 1 valid
 * rejected, 2 invalid accepted, 3 mask, 4 valid accepted only with its keys
 * in schema order), uint32 n, n pairs of uint32 (mask ns, commit ns); when
 * bounded, uint32[6]: the most stack reads, edges and set operations of one
 * mask, each followed by its bound; uint32[2]: the costliest commit step and
 * the commit bound (UINT32_MAX: none stated). */
/* Replays of each valid instance: each step's latencies are the minima over
 * them, the engine's cost without the host's noise (bench/README.md). */
#define REPLAYS 3

/* Compiles taking longer are timed once (see child). */
#define WARM_UNDER 1.0

/* Warm compiles of each schema (see child): its compile time is their
 * minimum, as each step's latency is a minimum over REPLAYS. */
#define WARM_COMPILES 3

/* One more replay of the first n steps of a valid instance (all of them,
 * or up to the one that failed, which fails again alike): keeps each step's
 * minimum fill_mask and commit time in lat. */
static void replay_min(gcg_matcher *m, const test *t, size_t n, uint32_t *mask, size_t words, uint32_t *lat)
{
    gcg_matcher_reset(m);
    for (size_t k = 0; k < n; k++) {
        double a = now();
        gcg_matcher_fill_mask(m, mask, words);
        double b = now();
        gcg_matcher_commit(m, t->ids[k]);
        double c = now();
        uint32_t f = (uint32_t)((b - a) * 1e9), cm = (uint32_t)((c - b) * 1e9);
        lat[2 * k] = f < lat[2 * k] ? f : lat[2 * k];
        lat[2 * k + 1] = cm < lat[2 * k + 1] ? cm : lat[2 * k + 1];
    }
}

static void child(const gcgc_vocab *v, const job *j, bool lenient, int fd)
{
    FILE *out = fdopen(fd, "wb");
    gcgc_schema_options so = {0};
    so.lenient = lenient;
    gcgc_result *res = NULL;
    char *msgs = NULL;
    gcgc_options opt;
    gcgc_options_default(&opt);
    opt.vocab_by_reference = true; /* the artifact borrows the loaded vocabulary */
    double t0 = now();
    gcg_status st = gcgc_compile_schema(v, (const char *)j->schema, j->schema_len, &so, &opt, &res, &msgs);
    double first = now() - t0, secs = first;
    /* Again, on the heap the first one left: the cost in a serving process
     * that has compiled before (the first also pays a copy-on-write fault
     * for every heap page of the parent it touches), WARM_COMPILES times,
     * keeping the fastest: the compile's cost without the host's noise, as
     * for the latencies. A compile of over WARM_UNDER seconds is not
     * repeated, so the CPU-time limit means the same; its faults are a small
     * part of it. */
    for (int k = 0; st == GCG_OK && first < WARM_UNDER && k < WARM_COMPILES; k++) {
        gcgc_result *again = NULL;
        char *again_msgs = NULL;
        t0 = now();
        gcg_status st2 = gcgc_compile_schema(v, (const char *)j->schema, j->schema_len, &so, &opt, &again, &again_msgs);
        double t = now() - t0;
        if (st2 != GCG_OK) {
            gcgc_result_free(again), free(again_msgs);
            break;
        }
        secs = k == 0 || t < secs ? t : secs;
        gcgc_result_free(res), free(msgs);
        res = again, msgs = again_msgs;
    }
    char reason[200] = {0};
    int kind = st == GCG_OK ? 0 : 1;
    if (st != GCG_OK) {
        const char *m = msgs && strstr(msgs, "error: ") ? strstr(msgs, "error: ") + 7
                        : res ? gcgc_result_messages_text(res) : "";
        snprintf(reason, sizeof reason, "%.*s", (int)strcspn(m, "\n"), m);
    }
    fwrite(&kind, sizeof kind, 1, out);
    fwrite(&secs, sizeof secs, 1, out);
    fwrite(&first, sizeof first, 1, out);
    fwrite(reason, sizeof reason, 1, out);
    if (kind == 0) {
        size_t size;
        const uint8_t *bytes = gcgc_result_artifact(res, &size);
        gcg_artifact *art = NULL;
        gcg_matcher *m = NULL;
        gcg_artifact_open_memory_vocab(bytes, size, gcgc_vocab_runtime(v), &art, NULL);
        gcg_matcher_new(art, NULL, &m, NULL);
        size_t words = gcg_artifact_mask_words(art);
        uint32_t *mask = calloc(words, sizeof *mask);
        gcg_certificate cert;
        bool have_cert = gcg_artifact_certificate(art, &cert) == GCG_OK;
        bool bounded = have_cert && cert.bounded;
        uint32_t step_bound = have_cert && cert.commit_bounded ? cert.max_commit_step_work : UINT32_MAX;
        fwrite(&bounded, sizeof bounded, 1, out);
        for (size_t i = 0; i < j->n; i++) {
            const test *t = &j->t[i];
            gcg_matcher_reset(m);
            int wrong = 0;
            uint32_t n = 0;
            uint32_t *lat = t->has_ids ? malloc(2 * (t->n_ids + 1) * sizeof *lat) : NULL;
            uint32_t use[3] = {0, 0, 0}; /* the most reads, edges, set ops of one mask */
            uint32_t step[2] = {0, step_bound}; /* the costliest commit step, its bound */
            gcg_commit_stats cst;
            if (t->valid && t->has_ids) {
                for (size_t k = 0; k < t->n_ids && !wrong; k++) {
                    double a = now();
                    gcg_matcher_fill_mask(m, mask, words);
                    double b = now();
                    gcg_mask_stats ms;
                    gcg_matcher_last_mask_stats(m, &ms);
                    use[0] = ms.stack_reads > use[0] ? ms.stack_reads : use[0];
                    use[1] = ms.edges > use[1] ? ms.edges : use[1];
                    use[2] = ms.set_ops > use[2] ? ms.set_ops : use[2];
                    bool allowed = (mask[t->ids[k] / 32] >> (t->ids[k] % 32)) & 1;
                    gcg_status cs = gcg_matcher_commit(m, t->ids[k]);
                    double c = now();
                    gcg_matcher_last_commit_stats(m, &cst);
                    step[0] = cst.max_step_work > step[0] ? (uint32_t)cst.max_step_work : step[0];
                    lat[2 * n] = (uint32_t)((b - a) * 1e9);
                    lat[2 * n + 1] = (uint32_t)((c - b) * 1e9);
                    n++;
                    if (cs != GCG_OK)
                        wrong = 1;
                    else if (!allowed)
                        wrong = 3;
                }
                if (!wrong && !gcg_matcher_is_complete(m))
                    wrong = 1;
                for (int r = 1; r < REPLAYS; r++)
                    replay_min(m, t, n, mask, words, lat);
            } else {
                gcg_status cs = gcg_matcher_commit_bytes(m, t->bytes, t->n, NULL);
                gcg_matcher_last_commit_stats(m, &cst);
                step[0] = cst.max_step_work > UINT32_MAX ? UINT32_MAX : (uint32_t)cst.max_step_work;
                bool accepted = cs == GCG_OK && gcg_matcher_is_complete(m);
                wrong = t->valid ? (accepted ? 0 : 1) : (accepted ? 2 : 0);
            }
            if (wrong == 1 && t->ordered && accepts_bytes(m, t->ordered, t->n_ordered))
                wrong = 4;
            fwrite(&wrong, sizeof wrong, 1, out);
            fwrite(&n, sizeof n, 1, out);
            if (n)
                fwrite(lat, sizeof *lat, 2 * n, out);
            if (bounded) { /* the most one mask did, next to what was certified */
                uint32_t c[6] = {use[0], cert.max_stack_reads, use[1], cert.max_edges, use[2], cert.max_set_ops};
                fwrite(c, sizeof c, 1, out);
            }
            fwrite(step, sizeof step, 1, out);
            free(lat);
        }
        free(mask);
        gcg_matcher_free(m);
        gcg_artifact_free(art);
    }
    fclose(out);
    gcgc_result_free(res);
    free(msgs);
}

/* ---- the parent: run, collect, report ------------------------------------- */

static split *split_of(totals *T, const char *file)
{
    char name[128];
    const char *dash = strstr(file, "---");
    size_t len = dash ? (size_t)(dash - file) : strlen(file);
    if (!dash) { /* NAME_12.json -> NAME */
        const char *us = strrchr(file, '_');
        if (us)
            len = (size_t)(us - file);
    }
    snprintf(name, sizeof name, "%.*s", (int)len, file);
    for (unsigned i = 0; i < T->n_sp; i++)
        if (!strcmp(T->sp[i].name, name))
            return &T->sp[i];
    split *s = &T->sp[T->n_sp < 127 ? T->n_sp++ : 127];
    snprintf(s->name, sizeof s->name, "%s", name);
    return s;
}

/* A short reason class: the keyword named, else the message's start. */
static void add_reason(totals *T, const char *msg)
{
    char r[96];
    const char *kw = strstr(msg, "keyword \"");
    if (kw)
        snprintf(r, sizeof r, "%.*s", (int)(strchr(kw + 9, '"') ? strchr(kw + 9, '"') - kw + 1 : 20), kw);
    else {
        const char *colon = strstr(msg, ": ");
        const char *s = colon && msg[0] == '#' ? colon + 2 : msg;
        if (!strncmp(s, "pattern offset", 14) && strstr(s, ": "))
            s = strstr(s, ": ") + 2, snprintf(r, sizeof r, "pattern: %.60s", s);
        else
            snprintf(r, sizeof r, "%.60s", s);
    }
    for (unsigned i = 0; i < T->n_reasons; i++)
        if (!strcmp(T->reasons[i], r)) {
            T->reason_n[i]++;
            return;
        }
    if (T->n_reasons < 256) {
        snprintf(T->reasons[T->n_reasons], 96, "%s", r);
        T->reason_n[T->n_reasons++] = 1;
    }
}

static void run_job(const gcgc_vocab *v, job *j, totals *T, unsigned timeout, bool lenient, bool verbose)
{
    split *sp = split_of(T, j->name);
    sp->files++;
    if (j->error) {
        sp->refused++;
        add_reason(T, "not a MaskBench file");
        return;
    }
    int fds[2];
    if (pipe(fds) != 0)
        return;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        /* CPU time, so a loaded machine does not turn into refusals; wall time as a backstop */
        struct rlimit rl = {timeout, timeout + 1};
        setrlimit(RLIMIT_CPU, &rl);
        alarm(timeout * 10);
        child(v, j, lenient, fds[1]);
        _exit(0);
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "rb");
    int kind = -1;
    double secs = 0, first = 0;
    char reason[200] = {0};
    bool ok = fread(&kind, sizeof kind, 1, in) == 1 && fread(&secs, sizeof secs, 1, in) == 1 &&
              fread(&first, sizeof first, 1, in) == 1 && fread(reason, sizeof reason, 1, in) == 1;
    reason[sizeof reason - 1] = 0;
    bool bounded = false;
    ok = ok && (kind != 0 || fread(&bounded, sizeof bounded, 1, in) == 1);
    unsigned wrong = 0, done = 0, order = 0, cert_over = 0, commit_over = 0;
    bool commit_file = false;
    uint32_t slow_mask = 0, slow_commit = 0; /* the file's slowest steps, ns */
    uint32_t steps = 0, over = 0;            /* its steps, and those over 10 us  */
    for (size_t i = 0; ok && kind == 0 && i < j->n; i++) {
        int w;
        uint32_t n;
        if (fread(&w, sizeof w, 1, in) != 1 || fread(&n, sizeof n, 1, in) != 1)
            break;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t p[2];
            if (fread(p, sizeof p, 1, in) != 1)
                break;
            dpush(&T->mask_ns, p[0]), dpush(&T->commit_ns, p[1]), dpush(&T->both_ns, (double)p[0] + p[1]);
            slow_mask = p[0] > slow_mask ? p[0] : slow_mask;
            slow_commit = p[1] > slow_commit ? p[1] : slow_commit;
            steps++, over += (uint64_t)p[0] + p[1] > 10000;
        }
        uint32_t c[6], step[2];
        if ((bounded && fread(c, sizeof c, 1, in) != 1) || fread(step, sizeof step, 1, in) != 1)
            break;
        if (step[1] != UINT32_MAX) { /* the costliest commit step, next to its bound */
            commit_over += step[0] > step[1];
            double r = step[1] ? (double)step[0] / step[1] : 0;
            T->commit_most = r > T->commit_most ? r : T->commit_most;
            T->commit_checked++;
            commit_file = true;
        }
        for (int k = 0; bounded && n && k < 3; k++) {
            cert_over += c[2 * k] > c[2 * k + 1];
            double r = c[2 * k + 1] ? (double)c[2 * k] / c[2 * k + 1] : 0;
            T->cert_most[k] = r > T->cert_most[k] ? r : T->cert_most[k];
        }
        T->cert_masks += bounded ? n : 0;
        done++;
        if (w == 4) {
            order++;
            T->order_only++;
            if (verbose)
                fprintf(stderr, "ORDER %s test %zu: valid, accepted only with keys in schema order\n", j->name, i);
        } else if (w) {
            wrong++;
            T->wrong_valid += w == 1, T->wrong_invalid += w == 2, T->wrong_mask += w == 3;
            if (verbose)
                fprintf(stderr, "WRONG %s test %zu: %s\n", j->name, i,
                        w == 1 ? "valid rejected" : w == 2 ? "invalid accepted" : "mask forbids a valid token");
        }
    }
    fclose(in);
    int status;
    waitpid(pid, &status, 0);
    if (!ok || (kind == 0 && done < j->n)) {
        sp->refused++;
        const char *why = WIFSIGNALED(status) && (WTERMSIG(status) == SIGALRM || WTERMSIG(status) == SIGXCPU ||
                                                  WTERMSIG(status) == SIGKILL) ? "time limit"
                          : WIFSIGNALED(status) ? "crash" : "child failed";
        add_reason(T, why);
        if (verbose)
            fprintf(stderr, "REFUSED %s: %s\n", j->name, why);
        return;
    }
    if (kind != 0) {
        sp->refused++;
        add_reason(T, reason);
        if (verbose)
            fprintf(stderr, "REFUSED %s: %s\n", j->name, reason);
        return;
    }
    sp->compiled++;
    T->cert_files += bounded;
    T->cert_over += cert_over;
    T->commit_files += commit_file;
    T->commit_over += commit_over;
    if (verbose && commit_over)
        fprintf(stderr, "OVER %s: %u instances had a commit step do more work than the certificate states\n",
                j->name, commit_over);
    if (verbose && cert_over)
        fprintf(stderr, "OVER %s: %u instances had a mask do more work than the certificate states\n", j->name,
                cert_over);
    dpush(&T->compile_s, secs);
    dpush(&T->compile_first_s, first);
    if (verbose && over) /* steps over the 10 us target of mask+commit p99.9 */
        fprintf(stderr, "SLOW %s: %u of %u steps over 10 us; slowest mask %.1f us, slowest commit %.1f us\n",
                j->name, over, steps, slow_mask * 1e-3, slow_commit * 1e-3);
    if (wrong)
        sp->wrong++;
    else if (order)
        sp->order++, T->order_files++;
    else
        sp->passing++;
}

static void print_dist(const char *name, dvec *d, double scale, const char *unit)
{
    qsort(d->v, d->n, sizeof *d->v, cmpd);
    printf("%-14s %10zu  p50 %9.1f  p99 %9.1f  p99.9 %9.1f  max %10.1f %s\n", name, d->n,
           pct(d, 0.5) * scale, pct(d, 0.99) * scale, pct(d, 0.999) * scale,
           d->n ? d->v[d->n - 1] * scale : 0, unit);
}

static void report(totals *T)
{
    split all = {"total", 0, 0, 0, 0, 0, 0};
    printf("%-24s %6s %8s %9s %8s %6s %6s\n", "split", "files", "passing", "compiled", "refused", "wrong", "order");
    for (unsigned i = 0; i < T->n_sp; i++) {
        split *s = &T->sp[i];
        printf("%-24s %6u %8u %9u %8u %6u %6u\n", s->name, s->files, s->passing, s->compiled, s->refused, s->wrong,
               s->order);
        all.files += s->files, all.passing += s->passing, all.compiled += s->compiled;
        all.refused += s->refused, all.wrong += s->wrong, all.order += s->order;
    }
    printf("%-24s %6u %8u %9u %8u %6u %6u   (passing %.1f%%)\n", all.name, all.files, all.passing, all.compiled,
           all.refused, all.wrong, all.order, all.files ? 100.0 * all.passing / all.files : 0);
    printf("\nwrong answers: %u valid rejected, %u invalid accepted, %u masks forbidding a valid token\n",
           T->wrong_valid, T->wrong_invalid, T->wrong_mask);
    printf("certificate: %llu masks of %u files certified bounded checked, %llu instances over it; the most "
           "used: stack reads %.0f%%, edges %.0f%%, set operations %.0f%%\n",
           (unsigned long long)T->cert_masks, T->cert_files, (unsigned long long)T->cert_over,
           100 * T->cert_most[0], 100 * T->cert_most[1], 100 * T->cert_most[2]);
    printf("commit bound: %llu instances of %u files with a bound checked, %llu over it; the costliest step "
           "used %.0f%% of it\n",
           (unsigned long long)T->commit_checked, T->commit_files, (unsigned long long)T->commit_over,
           100 * T->commit_most);
    printf("order: %u valid instances in %u files accepted only with their keys in schema order\n"
           "       (gcg's documented property order; such a file does not pass)\n",
           T->order_only, T->order_files);
    printf("\nrefused, by reason:\n");
    for (unsigned i = 0; i < T->n_reasons; i++)
        for (unsigned k = i + 1; k < T->n_reasons; k++)
            if (T->reason_n[k] > T->reason_n[i]) {
                unsigned t = T->reason_n[i];
                char tmp[96];
                T->reason_n[i] = T->reason_n[k], T->reason_n[k] = t;
                memcpy(tmp, T->reasons[i], 96), memcpy(T->reasons[i], T->reasons[k], 96);
                memcpy(T->reasons[k], tmp, 96);
            }
    for (unsigned i = 0; i < T->n_reasons; i++)
        printf("  %5u  %s\n", T->reason_n[i], T->reasons[i]);
    printf("\n");
    print_dist("compile", &T->compile_s, 1e3, "ms (warm: the fastest of 3 compiles after the first, under 1 s)");
    print_dist("compile first", &T->compile_first_s, 1e3, "ms (the first, on a freshly forked heap)");
    print_dist("mask", &T->mask_ns, 1e-3, "us");
    print_dist("commit", &T->commit_ns, 1e-3, "us");
    print_dist("mask+commit", &T->both_ns, 1e-3, "us");
}

int main(int argc, char **argv)
{
    const char *tok = NULL, *jobs = NULL;
    unsigned timeout = 60, budget = 0, not_run = 0;
    bool lenient = false, verbose = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--tokenizer") && i + 1 < argc)
            tok = argv[++i];
        else if (!strcmp(argv[i], "--jobs") && i + 1 < argc)
            jobs = argv[++i];
        else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
            timeout = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--budget") && i + 1 < argc)
            budget = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--lenient"))
            lenient = true;
        else if (!strcmp(argv[i], "--verbose"))
            verbose = true;
        else {
            fprintf(stderr, "usage: gcg_maskbench --tokenizer FILE --jobs FILE [--timeout S] [--budget S] "
                            "[--lenient] [--verbose]\n");
            return 2;
        }
    }
    if (!tok || !jobs) {
        fprintf(stderr, "gcg_maskbench: --tokenizer and --jobs are required\n");
        return 2;
    }
    gcgc_vocab *v;
    gcg_error err;
    if (gcgc_vocab_load_hf(tok, NULL, 0, &v, &err) != GCG_OK) {
        fprintf(stderr, "gcg_maskbench: %s\n", err.msg);
        return 2;
    }
    FILE *f = fopen(jobs, "r");
    if (!f) {
        fprintf(stderr, "gcg_maskbench: cannot read %s: %s\n", jobs, strerror(errno));
        return 2;
    }
    totals *T = calloc(1, sizeof *T);
    job j = {0};
    bool have = false;
    char *line = NULL;
    size_t cap = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (getline(&line, &cap, f) > 0) {
        line[strcspn(line, "\n")] = 0;
        if (line[0] == 'F') {
            clock_gettime(CLOCK_MONOTONIC, &t1);
            bool over = budget && (unsigned)(t1.tv_sec - t0.tv_sec) >= budget;
            if (have && !over)
                run_job(v, &j, T, timeout, lenient, verbose);
            else if (have)
                not_run++;
            job_clear(&j);
            snprintf(j.name, sizeof j.name, "%s", line + 2);
            have = true;
        } else if (line[0] == 'E') {
            j.error = strdup(line + 2);
        } else if (line[0] == 'S') {
            j.schema = unhex(line + 2, &j.schema_len);
        } else if (line[0] == 'O' && j.n > 0) {
            test *t = &j.t[j.n - 1];
            free(t->ordered);
            t->ordered = unhex(line + 2, &t->n_ordered);
        } else if (line[0] == 'V' || line[0] == 'I') {
            add_test(&j, line[0] == 'V', line + 2);
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (have && !(budget && (unsigned)(t1.tv_sec - t0.tv_sec) >= budget))
        run_job(v, &j, T, timeout, lenient, verbose);
    else if (have)
        not_run++;
    job_clear(&j);
    free(line);
    fclose(f);
    report(T);
    if (not_run)
        printf("\nbudget of %u s reached: %u files not run (the tables above cover the files run)\n", budget,
               not_run);
    unsigned wrong = T->wrong_valid + T->wrong_invalid + T->wrong_mask + (unsigned)T->cert_over +
                     (unsigned)T->commit_over;
    free(T->compile_s.v), free(T->compile_first_s.v), free(T->mask_ns.v), free(T->commit_ns.v), free(T->both_ns.v);
    free(T);
    gcgc_vocab_free(v);
    return wrong ? 1 : 0;
}
