/*
 * alloc_counting.h — whether a test binary may replace malloc & co. to
 * count allocations: not under AddressSanitizer, whose allocator cannot be
 * replaced. ALLOC_COUNTING is 1 where the test's interposers are built.
 */
#ifndef GCG_TEST_ALLOC_COUNTING_H
#define GCG_TEST_ALLOC_COUNTING_H

#if defined(__SANITIZE_ADDRESS__)
#define ALLOC_COUNTING 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ALLOC_COUNTING 0
#endif
#endif
#ifndef ALLOC_COUNTING
#define ALLOC_COUNTING 1
#endif

#endif /* GCG_TEST_ALLOC_COUNTING_H */
