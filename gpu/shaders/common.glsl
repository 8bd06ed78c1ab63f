/*
 * common.glsl — declarations shared by the mask shaders.
 *
 * Logits are handled as raw bit patterns (uint for f32, uint16_t for f16 and
 * bf16), so masking never canonicalizes a value and the 16-bit dtypes need only
 * storageBuffer16BitAccess, not shaderFloat16. Where arithmetic is needed (the
 * fused temperature scaling) 16-bit values are widened to f32 exactly and
 * rounded back to nearest-even in integer code: GLSL leaves the rounding mode
 * of float-to-half conversion to the implementation, integer code does not.
 *
 * Compiled with -DGCG_ELEM16 for the 16-bit storage variants.
 */
#ifdef GCG_ELEM16
#extension GL_EXT_shader_16bit_storage : require
#define ELEM_T uint16_t
#else
#define ELEM_T uint
#endif

#define GCG_LOCAL_SIZE 256
layout(local_size_x = GCG_LOCAL_SIZE) in;

/* Logits per invocation; a power of two dividing 32, so the bits an
 * invocation reads always lie in one mask word. */
layout(constant_id = 0) const uint ELEMS = 32u;
/* 0 = f32, 1 = f16, 2 = bf16 (gcg_vk_dtype). */
layout(constant_id = 1) const uint DTYPE = 0u;

/* Shapes and strides. A dispatch covers the rows of one binding chunk:
 * row r of the chunk starts at logits element logits_base + r*logits_stride
 * and at mask word mask_base + r*mask_stride. The *_base fields absorb the
 * part of the caller's offsets that is finer than the device's
 * minStorageBufferOffsetAlignment. */
layout(push_constant) uniform Push {
    uint vocab;          /* V: logits per row that the mask covers           */
    uint logits_stride;  /* elements between rows, >= V                      */
    uint mask_stride;    /* mask words between rows, >= ceil(V/32)           */
    uint logits_base;    /* elements                                         */
    uint mask_base;      /* words                                            */
    uint scale_base;     /* f32 elements                                     */
    uint partial_base;   /* uvec2 elements                                   */
    uint argmax_base;    /* uint elements                                    */
    uint groups_x;       /* pass-1 workgroups per row = partials per row     */
} pc;

uint neg_inf_bits()
{
    return DTYPE == 0u ? 0xFF800000u : (DTYPE == 1u ? 0xFC00u : 0xFF80u);
}
