/*
 * convert.glsl — exact f16/bf16 <-> f32 conversions and the argmax order, in
 * integer arithmetic so every device rounds the same way (round to nearest,
 * ties to even; NaN stays NaN, made quiet).
 */

uint f16_to_f32_bits(uint h)
{
    uint s = (h & 0x8000u) << 16;
    uint e = (h >> 10) & 0x1Fu;
    uint m = h & 0x3FFu;
    if (e == 31u)
        return s | 0x7F800000u | (m << 13);
    if (e != 0u)
        return s | ((e + 112u) << 23) | (m << 13);
    if (m == 0u)
        return s;
    /* Subnormal: value m * 2^-24; its leading bit at position p gives the
     * f32 exponent p - 24 + 127. */
    uint p = uint(findMSB(m));
    return s | ((p + 103u) << 23) | ((m << (23u - p)) & 0x7FFFFFu);
}

uint f32_bits_to_f16(uint u)
{
    uint s = (u >> 16) & 0x8000u;
    uint a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u)
        return s | 0x7E00u | ((a >> 13) & 0x3FFu);
    if (a >= 0x477FF000u)                     /* >= 65520: rounds to inf  */
        return s | 0x7C00u;
    if (a >= 0x38800000u) {                   /* normal: >= 2^-14          */
        uint r = a - 0x38000000u;             /* rebias exponent 127 -> 15 */
        r += 0xFFFu + ((r >> 13) & 1u);
        return s | (r >> 13);
    }
    if (a <= 0x33000000u)                     /* <= 2^-25: rounds to zero  */
        return s;
    /* Subnormal: round m * 2^(e-150) to a multiple of 2^-24. */
    uint e = a >> 23;
    uint m = (a & 0x7FFFFFu) | 0x800000u;
    uint shift = 126u - e;                    /* 14..24 */
    uint q = m >> shift;
    uint rem = m & ((1u << shift) - 1u);
    uint half_ = 1u << (shift - 1u);
    if (rem > half_ || (rem == half_ && (q & 1u) != 0u))
        q += 1u;
    return s | q;
}

uint bf16_to_f32_bits(uint h)
{
    return h << 16;
}

uint f32_bits_to_bf16(uint u)
{
    if ((u & 0x7FFFFFFFu) > 0x7F800000u)
        return (u >> 16) | 0x40u;
    return (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
}

uint elem_to_f32_bits(uint x)
{
    return DTYPE == 0u ? x : (DTYPE == 1u ? f16_to_f32_bits(x) : bf16_to_f32_bits(x));
}

uint f32_bits_to_elem(uint u)
{
    return DTYPE == 0u ? u : (DTYPE == 1u ? f32_bits_to_f16(u) : f32_bits_to_bf16(u));
}

/* A key whose unsigned order is the numeric order of f32 values, with -0 ==
 * +0 and every NaN below -inf (key 0). */
uint order_key(uint u)
{
    uint a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u)
        return 0u;
    if (a == 0u)
        return 0x80000000u;
    return (u & 0x80000000u) != 0u ? ~u : (u | 0x80000000u);
}

/* Argmax candidates are (key, ~index): the larger pair has the larger value,
 * then the lower index. (0, 0) means "no allowed token" because index ~0 is
 * never a token id (V < 2^32). */
bool cand_greater(uvec2 a, uvec2 b)
{
    return a.x > b.x || (a.x == b.x && a.y > b.y);
}
