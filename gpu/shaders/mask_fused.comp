#version 450
/*
 * mask_fused.comp — pass 1 of the fused variant: mask, scale by the row's
 * inverse temperature, write back, and reduce each workgroup's run of the row
 * to one argmax candidate in partials[row * groups_x + group].
 *
 * Scaling: y = round_dtype(f32(x) * scale[r]), one correctly rounded f32
 * multiply then (for 16-bit dtypes) one round to nearest even. A row whose
 * scale is exactly 1 is not multiplied at all, so its allowed logits stay
 * bit-exact (NaN payloads and subnormals included).
 *
 * The workgroup's candidates are folded with subgroup arithmetic (compiled
 * with -DGCG_SUBGROUP): one barrier per workgroup. A barrier is cheap on a
 * GPU but costs a coroutine switch per SIMD chunk on CPU drivers such as
 * lavapipe, where the shared-memory tree of the portable build (log2 256 = 8
 * barriers) made this pass 40% slower. Devices without subgroup arithmetic
 * in compute get the tree.
 */
#ifdef GCG_SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
#include "common.glsl"
#include "convert.glsl"

layout(std430, set = 0, binding = 0) buffer Logits { ELEM_T v[]; } logits;
layout(std430, set = 0, binding = 1) readonly buffer Masks { uint w[]; } masks;
layout(std430, set = 0, binding = 2) readonly buffer Scales { float s[]; } scales;
layout(std430, set = 0, binding = 3) writeonly buffer Partials { uvec2 p[]; } partials;

shared uvec2 red[GCG_LOCAL_SIZE];

uint scaled_bits(uint x, float scale)
{
    if (scale == 1.0)
        return x;
    float y = uintBitsToFloat(elem_to_f32_bits(x)) * scale;
    return f32_bits_to_elem(floatBitsToUint(y));
}

uvec2 run_best(uint row, uint col0)
{
    uvec2 best = uvec2(0u);
    if (col0 >= pc.vocab)
        return best;
    uint n = min(ELEMS, pc.vocab - col0);
    uint bits = masks.w[pc.mask_base + row * pc.mask_stride + (col0 >> 5)] >> (col0 & 31u);
    uint base = pc.logits_base + row * pc.logits_stride + col0;
    float scale = scales.s[pc.scale_base + row];
    uint ninf = neg_inf_bits();
    for (uint j = 0u; j < n; ++j) {
        if ((bits & (1u << j)) == 0u) {
            logits.v[base + j] = ELEM_T(ninf);
            continue;
        }
        uint y = scaled_bits(uint(logits.v[base + j]), scale);
        logits.v[base + j] = ELEM_T(y);
        uvec2 c = uvec2(order_key(elem_to_f32_bits(y)), ~(col0 + j));
        if (cand_greater(c, best))
            best = c;
    }
    return best;
}

#ifdef GCG_SUBGROUP
/* The subgroup's best: the largest key, then the largest ~index among the
 * invocations holding that key. */
uvec2 subgroup_best(uvec2 c)
{
    uint key = subgroupMax(c.x);
    return uvec2(key, subgroupMax(c.x == key ? c.y : 0u));
}

void store_group_best(uvec2 mine, uint slot)
{
    uvec2 c = subgroup_best(mine);
    if (subgroupElect())
        red[gl_SubgroupID] = c;
    barrier();
    if (gl_SubgroupID != 0u)
        return;
    c = uvec2(0u);
    for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize)
        if (cand_greater(red[i], c))
            c = red[i];
    c = subgroup_best(c);
    if (subgroupElect())
        partials.p[slot] = c;
}
#else
void store_group_best(uvec2 mine, uint slot)
{
    uint lid = gl_LocalInvocationID.x;
    red[lid] = mine;
    barrier();
    for (uint half_ = GCG_LOCAL_SIZE / 2; half_ > 0u; half_ >>= 1) {
        if (lid < half_ && cand_greater(red[lid + half_], red[lid]))
            red[lid] = red[lid + half_];
        barrier();
    }
    if (lid == 0u)
        partials.p[slot] = red[0];
}
#endif

void main()
{
    uint row = gl_WorkGroupID.y;
    uvec2 mine = run_best(row, gl_GlobalInvocationID.x * ELEMS);
    store_group_best(mine, pc.partial_base + row * pc.groups_x + gl_WorkGroupID.x);
}
