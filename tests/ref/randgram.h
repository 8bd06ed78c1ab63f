/*
 * randgram.h — random GBNF grammars and random strings for differential
 * tests. Everything is a function of the seed: the same seed gives the same
 * grammar text and, with the same string-generator state, the same strings.
 *
 * Grammars: up to RG_MAX_RULES rules over a tiny alphabet (a, b, c, a few
 * multi-byte code points, a few classes and "."), with sequences,
 * alternation, groups, * + ? {m} {m,} {m,n} {,n}, empty alternatives, and
 * shapes chosen on purpose: left, right, mutual and hidden left recursion,
 * nullable bodies under repetition, unit cycles.
 * Strings: random derivations (depth-bounded) and their mutations.
 */
#ifndef GCG_REF_RANDGRAM_H
#define GCG_REF_RANDGRAM_H

#include <stddef.h>
#include <stdint.h>

#define RG_MAX_RULES 6

typedef struct rg_grammar rg_grammar;

/* A splitmix64 step: advances *state and returns 64 random bits. */
uint64_t rg_rand(uint64_t *state);

/* Generates the grammar for `seed`. NULL only when out of memory. */
rg_grammar *rg_generate(uint64_t seed);

void rg_free(rg_grammar *g);

/* The grammar as GBNF source, NUL-terminated; lives as long as g. */
const char *rg_text(const rg_grammar *g);

/* A random derivation from the start rule into buf (at most cap bytes).
 * Returns its length, or SIZE_MAX if none fitted (e.g. empty language). */
size_t rg_derive(const rg_grammar *g, uint64_t *rng, uint8_t *buf, size_t cap);

/* A random test string: a derivation, a mutated or truncated derivation,
 * or random bytes from the alphabet (invalid UTF-8 included). Returns its
 * length (<= cap). */
size_t rg_string(const rg_grammar *g, uint64_t *rng, uint8_t *buf, size_t cap);

#endif /* GCG_REF_RANDGRAM_H */
