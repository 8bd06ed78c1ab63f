/*
 * gpu_testlib.h — what the gpu/ tests share: the skip rule (no Vulkan device
 * means exit code 77, which meson reports as SKIP), a seeded generator,
 * random logits and masks in the shapes under test, and exact comparison
 * with the first differing element named on failure.
 */
#ifndef GCG_GPU_TESTLIB_H
#define GCG_GPU_TESTLIB_H

#include <check.h>
#include <stdint.h>

#include "gcg_vk.h"

/* splitmix64: small, seedable, good enough for test data. */
typedef struct tl_rng {
    uint64_t s;
} tl_rng;

uint64_t tl_next(tl_rng *r);
/* Uniform in [0, n). */
uint32_t tl_below(tl_rng *r, uint32_t n);

/* A standalone context with the given options; fails the test on error. */
gcg_vk_context *tl_context_opt(const gcg_vk_options *opt);
gcg_vk_context *tl_context(uint32_t elems_per_invocation, uint64_t max_binding_bytes);

/* How masks are drawn: each allowed bit with probability density/1000,
 * except TL_MASK_ONE (exactly one allowed token per row). Bits past V and
 * padding words are random either way: they must be ignored. */
#define TL_MASK_ONE (-1)
void tl_fill_masks(tl_rng *r, const gcg_vk_shape *s, uint32_t *masks, int density);

/* Random bit patterns in every element, padding included. */
void tl_fill_bits(tl_rng *r, const gcg_vk_shape *s, void *logits);

/* Values for the fused variant: finite, infinite and zero, no NaN and
 * nothing a device may flush as subnormal; with `few` set, drawn from
 * eight values so that ties are common. Padding gets random bits. */
void tl_fill_values(tl_rng *r, const gcg_vk_shape *s, void *logits, int few);

/* Random inverse temperatures: 1 (unscaled), or 1/t for t in [1/8, 8]. */
void tl_fill_scales(tl_rng *r, uint32_t rows, float *scales);

/* Asserts that the rows * logits_stride elements are identical. */
void tl_assert_logits(const gcg_vk_shape *s, const void *got, const void *want, const char *what);

/* Runs the suite without forking (Vulkan drivers start threads, and a forked
 * child must not use them), after the skip check; returns the exit code. */
int tl_main(Suite *suite);

#endif /* GCG_GPU_TESTLIB_H */
