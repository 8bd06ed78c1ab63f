/*
 * vk_internal.h — what the gpu/ source files share and callers never see:
 * the context struct, the push-constant block the shaders declare in
 * shaders/common.glsl, and helpers for errors, devices, pipelines and memory.
 */
#ifndef GCG_VK_INTERNAL_H
#define GCG_VK_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "gcg_vk.h"

/* Invocations per workgroup of every shader (GCG_LOCAL_SIZE in common.glsl). */
#define GCG_VK_LOCAL_SIZE 256u

/* Descriptor bindings of the one set layout all pipelines share. */
enum {
    GCG_VK_BIND_LOGITS = 0,
    GCG_VK_BIND_MASKS = 1,
    GCG_VK_BIND_SCALES = 2,
    GCG_VK_BIND_PARTIALS = 3,
    GCG_VK_BIND_ARGMAX = 4,
    GCG_VK_BIND_COUNT = 5
};

/* Mirrors `Push` in shaders/common.glsl field for field. */
typedef struct gcg_vk_push {
    uint32_t vocab;
    uint32_t logits_stride;
    uint32_t mask_stride;
    uint32_t logits_base;
    uint32_t mask_base;
    uint32_t scale_base;
    uint32_t partial_base;
    uint32_t argmax_base;
    uint32_t groups_x;
} gcg_vk_push;

/* Invariant: every handle is valid until gcg_vk_context_destroy; a pipeline
 * is VK_NULL_HANDLE exactly when its dtype is unsupported. */
struct gcg_vk_context {
    gcg_vk_device dev;       /* storage_buffer_16bit: enabled and supported      */
    bool owns_device;        /* standalone: the device and instance are ours     */
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties mem;
    uint32_t elems;          /* logits per invocation (spec constant ELEMS)      */
    uint64_t max_binding;    /* bytes one descriptor may span                    */
    bool timestamps;         /* the queue family has timestampValidBits > 0      */
    bool subgroup;           /* fused pass reduces with subgroup arithmetic      */
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline apply[GCG_VK_DTYPE_COUNT];
    VkPipeline fused[GCG_VK_DTYPE_COUNT];
    VkPipeline reduce;
};

/* A buffer with its own memory; map is NULL unless host-visible. */
typedef struct gcg_vk_alloc {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    void *map;
} gcg_vk_alloc;

/* vk_status.c: the name of a VkResult ("VK_ERROR_DEVICE_LOST"). */
const char *gcg_vk__result_name(VkResult r);

/* vk_status.c: reports a failed Vulkan call: GCG_ERR_NOMEM for the
 * out-of-memory results, GCG_VK_ERR_VULKAN otherwise. */
gcg_status gcg_vk__fail(gcg_error *err, VkResult r, const char *call);

/* vk_device.c: creates an instance and a device for a standalone context. */
gcg_status gcg_vk__standalone_device(const gcg_vk_options *opt, gcg_vk_device *out,
                                     gcg_error *err);

/* vk_device.c: the first compute-capable queue family, preferring one with
 * timestamps; UINT32_MAX when there is none. */
uint32_t gcg_vk__compute_family(VkPhysicalDevice pd);

/* vk_device.c: the properties of one queue family; false if out of range. */
bool gcg_vk__queue_family(VkPhysicalDevice pd, uint32_t family, VkQueueFamilyProperties *out);

/* vk_device.c: whether compute shaders have basic and arithmetic subgroup
 * operations. */
bool gcg_vk__has_subgroup_arithmetic(VkPhysicalDevice pd);

/* vk_device.c: whether the device supports storageBuffer16BitAccess. */
bool gcg_vk__has_storage16(VkPhysicalDevice pd);

/* vk_plan.c: checks a shape (dtype supported, sizes, strides) and fills in
 * strides given as 0. */
gcg_status gcg_vk__shape_resolve(const gcg_vk_context *ctx, gcg_vk_shape *s, gcg_error *err);

/* vk_pipelines.c: layouts and pipelines for every supported dtype. */
gcg_status gcg_vk__pipelines_create(gcg_vk_context *ctx, gcg_error *err);
void gcg_vk__pipelines_destroy(gcg_vk_context *ctx);

/* vk_memory.c: a buffer with `usage`, in memory with all `required` and, if
 * some type has them, all `preferred` property flags; mapped when
 * host-visible. */
gcg_status gcg_vk__alloc(const gcg_vk_context *ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                         VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred,
                         gcg_vk_alloc *out, gcg_error *err);
void gcg_vk__free(const gcg_vk_context *ctx, gcg_vk_alloc *a);

#endif /* GCG_VK_INTERNAL_H */
