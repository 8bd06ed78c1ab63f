/*
 * vk_pipelines.c — the shared descriptor-set and pipeline layouts and the
 * compute pipelines, built from SPIR-V that glslc produced at build time and
 * that is embedded here (no shader files at runtime).
 *
 * One set layout (5 storage buffers) and one push-constant block serve every
 * pipeline, so a plan's descriptor set works with all of them. Per dtype:
 * a masking and a fused pipeline, specialized by ELEMS and DTYPE; 16-bit
 * ones exist only with storageBuffer16BitAccess, since a module that declares
 * that capability may not be used on a device without it. The fused pass
 * reduces with subgroup arithmetic where the device has it in compute.
 */
#include "vk_internal.h"

static const uint32_t spv_apply32[] =
#include "mask_apply32.spv.h"
    ;
static const uint32_t spv_apply16[] =
#include "mask_apply16.spv.h"
    ;
static const uint32_t spv_fused32[] =
#include "mask_fused32.spv.h"
    ;
static const uint32_t spv_fused16[] =
#include "mask_fused16.spv.h"
    ;
static const uint32_t spv_fused32_sg[] =
#include "mask_fused32_sg.spv.h"
    ;
static const uint32_t spv_fused16_sg[] =
#include "mask_fused16_sg.spv.h"
    ;
static const uint32_t spv_reduce[] =
#include "argmax_reduce.spv.h"
    ;

typedef struct spirv {
    const uint32_t *code;
    size_t size; /* bytes */
} spirv;

#define SPIRV(a) ((spirv){(a), sizeof(a)})

static gcg_status pipelines__layouts(gcg_vk_context *ctx, gcg_error *err)
{
    VkDescriptorSetLayoutBinding b[GCG_VK_BIND_COUNT];
    for (uint32_t i = 0; i < GCG_VK_BIND_COUNT; i++)
        b[i] = (VkDescriptorSetLayoutBinding){.binding = i,
                                              .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                              .descriptorCount = 1,
                                              .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    VkDescriptorSetLayoutCreateInfo sci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = GCG_VK_BIND_COUNT,
        .pBindings = b};
    VkResult r = vkCreateDescriptorSetLayout(ctx->dev.device, &sci, NULL, &ctx->set_layout);
    if (r != VK_SUCCESS)
        return gcg_vk__fail(err, r, "vkCreateDescriptorSetLayout");
    VkPushConstantRange pcr = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
                               .size = sizeof(gcg_vk_push)};
    VkPipelineLayoutCreateInfo lci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                      .setLayoutCount = 1,
                                      .pSetLayouts = &ctx->set_layout,
                                      .pushConstantRangeCount = 1,
                                      .pPushConstantRanges = &pcr};
    r = vkCreatePipelineLayout(ctx->dev.device, &lci, NULL, &ctx->layout);
    return r == VK_SUCCESS ? GCG_OK : gcg_vk__fail(err, r, "vkCreatePipelineLayout");
}

/* Builds one pipeline from `code` with ELEMS = ctx->elems and DTYPE = dtype. */
static gcg_status pipelines__build(gcg_vk_context *ctx, spirv code, uint32_t dtype,
                                   VkPipeline *out, gcg_error *err)
{
    VkShaderModuleCreateInfo mci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                    .codeSize = code.size,
                                    .pCode = code.code};
    VkShaderModule mod;
    VkResult r = vkCreateShaderModule(ctx->dev.device, &mci, NULL, &mod);
    if (r != VK_SUCCESS)
        return gcg_vk__fail(err, r, "vkCreateShaderModule");
    const uint32_t values[2] = {ctx->elems, dtype};
    const VkSpecializationMapEntry entries[2] = {{0, 0, 4}, {1, 4, 4}};
    VkSpecializationInfo spec = {.mapEntryCount = 2,
                                 .pMapEntries = entries,
                                 .dataSize = sizeof values,
                                 .pData = values};
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = mod,
                  .pName = "main",
                  .pSpecializationInfo = &spec},
        .layout = ctx->layout};
    r = vkCreateComputePipelines(ctx->dev.device, VK_NULL_HANDLE, 1, &ci, NULL, out);
    vkDestroyShaderModule(ctx->dev.device, mod, NULL);
    return r == VK_SUCCESS ? GCG_OK : gcg_vk__fail(err, r, "vkCreateComputePipelines");
}

static gcg_status pipelines__dtype(gcg_vk_context *ctx, gcg_vk_dtype dt, gcg_error *err)
{
    bool wide = dt == GCG_VK_F32;
    if (!wide && !ctx->dev.storage_buffer_16bit)
        return GCG_OK;
    gcg_status st = pipelines__build(ctx, wide ? SPIRV(spv_apply32) : SPIRV(spv_apply16),
                                     (uint32_t)dt, &ctx->apply[dt], err);
    if (st != GCG_OK)
        return st;
    spirv fused = ctx->subgroup ? (wide ? SPIRV(spv_fused32_sg) : SPIRV(spv_fused16_sg))
                                : (wide ? SPIRV(spv_fused32) : SPIRV(spv_fused16));
    return pipelines__build(ctx, fused, (uint32_t)dt, &ctx->fused[dt], err);
}

gcg_status gcg_vk__pipelines_create(gcg_vk_context *ctx, gcg_error *err)
{
    gcg_status st = pipelines__layouts(ctx, err);
    for (int dt = 0; st == GCG_OK && dt < GCG_VK_DTYPE_COUNT; dt++)
        st = pipelines__dtype(ctx, (gcg_vk_dtype)dt, err);
    if (st == GCG_OK)
        st = pipelines__build(ctx, SPIRV(spv_reduce), 0, &ctx->reduce, err);
    return st;
}

void gcg_vk__pipelines_destroy(gcg_vk_context *ctx)
{
    VkDevice d = ctx->dev.device;
    for (int dt = 0; dt < GCG_VK_DTYPE_COUNT; dt++) {
        vkDestroyPipeline(d, ctx->apply[dt], NULL);
        vkDestroyPipeline(d, ctx->fused[dt], NULL);
    }
    vkDestroyPipeline(d, ctx->reduce, NULL);
    vkDestroyPipelineLayout(d, ctx->layout, NULL);
    vkDestroyDescriptorSetLayout(d, ctx->set_layout, NULL);
}
