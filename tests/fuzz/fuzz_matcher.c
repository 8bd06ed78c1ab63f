/*
 * fuzz_matcher.c — libFuzzer target for the matcher: random sequences of
 * commits, rollbacks, resets, EOS and masks on a few fixed grammars.
 *
 * Input: byte 0 picks a grammar (compiled once, on first use, against the
 * 256 single-byte tokens plus EOS 256); the rest is a list of operations,
 * each an opcode byte and its operands:
 *
 *   0 n b1..bn  commit_bytes of n (1..16) bytes from the input
 *   1 hi lo     commit of token id (hi*256+lo) % 260 (257.. are out of range)
 *   2 k         rollback k % 6
 *   3           reset
 *   4           commit_eos
 *   5           fill_mask and fill_mask_bruteforce: must be equal
 *   6 b         the mask says byte b is allowed iff committing it succeeds
 *   7 k         commit the (k % count)-th allowed byte: must succeed
 *
 * Every call's result is checked against the contract in gcg.h (atomic
 * failures, rollback depth, EOS iff complete, masks equal, mask bit iff
 * commit succeeds); any violation calls abort().
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "gcg.h"
#include "vocab.h"

#define EOS_ID 256u
#define WORDS 9u
#define MAX_ROLLBACK 8u
#define MAX_OPS 400u

static const char *const grammars[] = {
    /* JSON, small. */
    "root ::= ws value ws\n"
    "value ::= object | array | string | number | \"true\" | \"false\" | \"null\"\n"
    "object ::= \"{\" ws ( member ( \",\" ws member )* )? \"}\"\n"
    "member ::= string ws \":\" ws value ws\n"
    "array ::= \"[\" ws ( value ws ( \",\" ws value ws )* )? \"]\"\n"
    "string ::= \"\\\"\" ( [^\"\\\\\\x00-\\x1F] | \"\\\\\" [\"\\\\/bfnrtu] )* \"\\\"\"\n"
    "number ::= \"-\"? ( \"0\" | [1-9] [0-9]* ) ( \".\" [0-9]+ )? ( [eE] [-+]? [0-9]+ )?\n"
    "ws ::= [ \\t\\n]*\n",
    /* Ambiguous: exponentially many parses. */
    "root ::= root root | \"a\" | \"(\" root \")\" | \"b\"?\n",
    /* Right recursion, and a counted repetition. */
    "root ::= \"a\" root | \"b\" | \"c\"{2,4} root?\n",
    /* Nullable cycles and hidden left recursion. */
    "root ::= x ( \"y\"? \"z\"? )*\n"
    "x ::= | w? x \"c\" | \"d\"\n"
    "w ::= \"w\"\n",
    /* Multi-byte code points. */
    "root ::= ( [α-ω]+ \" \" | \"😀\" | [^\\x00-\\x7F]{1,2} \"!\" )* \".\"\n",
    /* Left-recursive arithmetic with conflicts. */
    "root ::= e\ne ::= e [-+*/] e | \"(\" e \")\" | [0-9]+ | \"-\" e\n",
};

#define N_GRAMMARS (sizeof grammars / sizeof *grammars)

static gcg_artifact *arts[N_GRAMMARS];

static gcg_artifact *artifact(size_t i)
{
    if (arts[i])
        return arts[i];
    gcg_vocab v;
    uint32_t eos = EOS_ID;
    if (gcg_vocab_bytes256(&eos, 1, &v) != GCG_OK)
        abort();
    gcg_compile_options opt = {0};
    opt.vocab = &v;
    gcg_diag d;
    gcg_diag_init(&d, NULL);
    uint8_t *bytes = NULL;
    size_t size = 0;
    gcg_status st = gcg_compile(grammars[i], strlen(grammars[i]), &opt, false, &bytes, &size, NULL, &d);
    if (st != GCG_OK) {
        gcg_diag_print(&d, stderr);
        abort();
    }
    gcg_diag_free(&d);
    gcg_vocab_free(&v);
    if (gcg_artifact_open_memory(bytes, size, &arts[i], NULL) != GCG_OK)
        abort();
    free(bytes);
    return arts[i];
}

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "fuzz_matcher: %s:%d: check failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                             \
            abort();                                                                    \
        }                                                                               \
    } while (0)

typedef struct state {
    bool complete, terminated;
    uint32_t depth;
} state;

static state state_of(const gcg_matcher *m)
{
    return (state){gcg_matcher_is_complete(m), gcg_matcher_is_terminated(m),
                   gcg_matcher_rollback_depth(m)};
}

static bool same(state a, state b)
{
    return a.complete == b.complete && a.terminated == b.terminated && a.depth == b.depth;
}

/* After a successful commit the history grew by one (up to its limit). */
static void check_advanced(state before, const gcg_matcher *m)
{
    state now = state_of(m);
    CHECK(now.depth == (before.depth < MAX_ROLLBACK ? before.depth + 1 : MAX_ROLLBACK));
}

static bool bit(const uint32_t *w, uint32_t i)
{
    return (w[i >> 5] >> (i & 31)) & 1u;
}

/* Both masks; false when the node limit stopped the brute force. */
static bool masks(gcg_matcher *m, uint32_t *fast)
{
    uint32_t brute[WORDS];
    gcg_status a = gcg_matcher_fill_mask(m, fast, WORDS);
    gcg_status b = gcg_matcher_fill_mask_bruteforce(m, brute, WORDS);
    if (a == GCG_ERR_LIMIT || b == GCG_ERR_LIMIT)
        return false;
    CHECK(a == GCG_OK && b == GCG_OK);
    CHECK(memcmp(fast, brute, sizeof brute) == 0);
    CHECK((fast[WORDS - 1] & ~1u) == 0);
    CHECK(bit(fast, EOS_ID) == gcg_matcher_is_complete(m));
    if (gcg_matcher_is_terminated(m))
        for (uint32_t i = 0; i < WORDS; i++)
            CHECK(fast[i] == 0);
    return true;
}

static void op_commit_bytes(gcg_matcher *m, const uint8_t *p, size_t n)
{
    state before = state_of(m);
    size_t consumed = SIZE_MAX;
    gcg_status st = gcg_matcher_commit_bytes(m, p, n, &consumed);
    if (st == GCG_OK) {
        CHECK(consumed == n);
        check_advanced(before, m);
        return;
    }
    CHECK(same(before, state_of(m)));
    if (st == GCG_ERR_TERMINATED) {
        CHECK(before.terminated);
        return;
    }
    if (st == GCG_ERR_LIMIT)
        return;
    CHECK(st == GCG_ERR_REJECTED && consumed < n);
    /* The prefix before the offset is accepted; with its first byte it is not. */
    st = gcg_matcher_commit_bytes(m, p, consumed, NULL);
    if (st == GCG_ERR_LIMIT)
        return;
    CHECK(st == GCG_OK);
    st = gcg_matcher_commit_bytes(m, p + consumed, 1, NULL);
    CHECK(st == GCG_ERR_REJECTED || st == GCG_ERR_LIMIT);
    CHECK(gcg_matcher_rollback(m, 1) == GCG_OK);
    if (before.depth == MAX_ROLLBACK) /* the oldest entry was dropped: state may not return */
        return;
    CHECK(same(before, state_of(m)));
}

static void op_commit_token(gcg_matcher *m, uint32_t id)
{
    state before = state_of(m);
    gcg_status st = gcg_matcher_commit(m, id);
    if (id > EOS_ID) {
        CHECK(st == GCG_ERR_TOKEN_RANGE);
    } else if (before.terminated) {
        CHECK(st == GCG_ERR_TERMINATED);
    } else if (id == EOS_ID) {
        CHECK(st == (before.complete ? GCG_OK : GCG_ERR_REJECTED));
    } else {
        CHECK(st == GCG_OK || st == GCG_ERR_REJECTED || st == GCG_ERR_LIMIT);
    }
    if (st == GCG_OK) {
        check_advanced(before, m);
        CHECK(gcg_matcher_is_terminated(m) == (id == EOS_ID));
    } else {
        CHECK(same(before, state_of(m)));
    }
}

static void op_rollback(gcg_matcher *m, uint32_t k)
{
    state before = state_of(m);
    gcg_status st = gcg_matcher_rollback(m, k);
    if (k > before.depth) {
        CHECK(st == GCG_ERR_ROLLBACK);
        CHECK(same(before, state_of(m)));
    } else {
        CHECK(st == GCG_OK);
        CHECK(gcg_matcher_rollback_depth(m) == before.depth - k);
    }
}

static void op_eos(gcg_matcher *m)
{
    state before = state_of(m);
    gcg_status st = gcg_matcher_commit_eos(m);
    if (before.terminated) {
        CHECK(st == GCG_ERR_TERMINATED);
    } else if (before.complete) {
        CHECK(st == GCG_OK);
        CHECK(gcg_matcher_is_terminated(m) && !gcg_matcher_is_complete(m));
        check_advanced(before, m);
        return;
    } else {
        CHECK(st == GCG_ERR_REJECTED);
    }
    CHECK(same(before, state_of(m)));
}

static void op_mask_vs_commit(gcg_matcher *m, uint8_t b)
{
    uint32_t w[WORDS];
    if (!masks(m, w))
        return;
    state before = state_of(m);
    gcg_status st = gcg_matcher_commit_bytes(m, &b, 1, NULL);
    if (st == GCG_ERR_LIMIT)
        return;
    CHECK((st == GCG_OK) == bit(w, b));
    if (st == GCG_OK) {
        CHECK(gcg_matcher_rollback(m, 1) == GCG_OK);
        if (before.depth < MAX_ROLLBACK)
            CHECK(same(before, state_of(m)));
    }
}

static void op_commit_allowed(gcg_matcher *m, uint8_t k)
{
    uint32_t w[WORDS];
    if (!masks(m, w))
        return;
    uint32_t count = 0;
    for (uint32_t b = 0; b < 256; b++)
        count += bit(w, b);
    if (count == 0)
        return;
    uint32_t pick = k % count;
    for (uint32_t b = 0; b < 256; b++) {
        if (bit(w, b) && pick-- == 0) {
            uint8_t byte = (uint8_t)b;
            state before = state_of(m);
            gcg_status st = gcg_matcher_commit_bytes(m, &byte, 1, NULL);
            CHECK(st == GCG_OK || st == GCG_ERR_LIMIT);
            if (st == GCG_OK)
                check_advanced(before, m);
            return;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    gcg_artifact *art = artifact(data[0] % N_GRAMMARS);
    gcg_matcher_options o;
    gcg_matcher_options_default(&o);
    o.max_rollback = MAX_ROLLBACK;
    o.initial_nodes = 64;
    o.max_nodes = 1u << 14;
    gcg_matcher *m = NULL;
    if (gcg_matcher_new(art, &o, &m, NULL) != GCG_OK)
        abort();
    size_t i = 1;
    for (uint32_t ops = 0; i < size && ops < MAX_OPS; ops++) {
        uint8_t op = data[i++] % 8;
        switch (op) {
        case 0: {
            if (i >= size)
                break;
            size_t n = (size_t)(data[i++] % 16) + 1;
            if (n > size - i)
                n = size - i;
            op_commit_bytes(m, data + i, n);
            i += n;
            break;
        }
        case 1:
            if (i + 2 > size)
                break;
            op_commit_token(m, ((uint32_t)data[i] * 256 + data[i + 1]) % 260);
            i += 2;
            break;
        case 2:
            if (i >= size)
                break;
            op_rollback(m, data[i++] % 6);
            break;
        case 3:
            gcg_matcher_reset(m);
            CHECK(gcg_matcher_rollback_depth(m) == 0 && !gcg_matcher_is_terminated(m));
            break;
        case 4:
            op_eos(m);
            break;
        case 5: {
            uint32_t w[WORDS];
            masks(m, w);
            break;
        }
        case 6:
            if (i >= size)
                break;
            op_mask_vs_commit(m, data[i++]);
            break;
        default:
            if (i >= size)
                break;
            op_commit_allowed(m, data[i++]);
            break;
        }
    }
    gcg_matcher_free(m);
    return 0;
}
