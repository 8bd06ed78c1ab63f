/*
 * vk_context.c — contexts: wrap the caller's device (validating what can be
 * validated: handles, API version, the queue family, the 16-bit claim) or a
 * standalone one, then settle the tuning (logits per invocation, binding
 * cap) and build the pipelines.
 */
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

static const gcg_vk_options context__defaults = GCG_VK_OPTIONS_DEFAULT;

static gcg_status context__check_caller(const gcg_vk_device *d, gcg_error *err)
{
    if (!d || !d->instance || !d->physical_device || !d->device || !d->queue)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET,
                             "gcg_vk_device: instance, physical_device, device and queue "
                             "must all be set");
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(d->physical_device, &p);
    if (p.apiVersion < VK_API_VERSION_1_1)
        return gcg_error_set(err, GCG_VK_ERR_UNSUPPORTED, GCG_NO_OFFSET,
                             "%s supports Vulkan %u.%u; gcg_vk needs 1.1", p.deviceName,
                             VK_API_VERSION_MAJOR(p.apiVersion),
                             VK_API_VERSION_MINOR(p.apiVersion));
    VkQueueFamilyProperties fam;
    if (!gcg_vk__queue_family(d->physical_device, d->queue_family, &fam) ||
        !(fam.queueFlags & VK_QUEUE_COMPUTE_BIT))
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET,
                             "queue family %u does not support compute", d->queue_family);
    if (d->storage_buffer_16bit && !gcg_vk__has_storage16(d->physical_device))
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET,
                             "storage_buffer_16bit is set but %s has no "
                             "storageBuffer16BitAccess", p.deviceName);
    return GCG_OK;
}

static gcg_status context__tuning(gcg_vk_context *ctx, const gcg_vk_options *opt,
                                  gcg_error *err)
{
    uint32_t e = opt->elems_per_invocation;
    if (e == 0)
        e = ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? 32 : 4;
    if (e > 32 || (e & (e - 1)) != 0)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET,
                             "elems_per_invocation %u is not 1, 2, 4, 8, 16 or 32", e);
    ctx->elems = e;
    ctx->subgroup = !opt->no_subgroup_ops &&
                    gcg_vk__has_subgroup_arithmetic(ctx->dev.physical_device);
    ctx->max_binding = ctx->props.limits.maxStorageBufferRange;
    if (opt->max_binding_bytes != 0 && opt->max_binding_bytes < ctx->max_binding)
        ctx->max_binding = opt->max_binding_bytes;
    return GCG_OK;
}

static void context__timestamps(gcg_vk_context *ctx)
{
    VkQueueFamilyProperties fam;
    ctx->timestamps = gcg_vk__queue_family(ctx->dev.physical_device, ctx->dev.queue_family, &fam) &&
                      fam.timestampValidBits > 0;
}

/* Takes ownership of the device when owns is set, even on failure. */
static gcg_status context__init(const gcg_vk_device *dev, bool owns, const gcg_vk_options *opt,
                                gcg_vk_context **out, gcg_error *err)
{
    gcg_vk_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        if (owns) {
            vkDestroyDevice(dev->device, NULL);
            vkDestroyInstance(dev->instance, NULL);
        }
        return gcg_error_set(err, GCG_ERR_NOMEM, GCG_NO_OFFSET, "out of memory");
    }
    ctx->dev = *dev;
    ctx->owns_device = owns;
    vkGetPhysicalDeviceProperties(dev->physical_device, &ctx->props);
    vkGetPhysicalDeviceMemoryProperties(dev->physical_device, &ctx->mem);
    context__timestamps(ctx);
    gcg_status st = context__tuning(ctx, opt, err);
    if (st == GCG_OK)
        st = gcg_vk__pipelines_create(ctx, err);
    if (st != GCG_OK) {
        gcg_vk_context_destroy(ctx);
        return st;
    }
    *out = ctx;
    return GCG_OK;
}

gcg_status gcg_vk_context_create(const gcg_vk_device *dev, const gcg_vk_options *opt,
                                 gcg_vk_context **out, gcg_error *err)
{
    if (!out)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET, "out is NULL");
    *out = NULL;
    gcg_status st = context__check_caller(dev, err);
    if (st != GCG_OK)
        return st;
    return context__init(dev, false, opt ? opt : &context__defaults, out, err);
}

gcg_status gcg_vk_context_create_standalone(const gcg_vk_options *opt, gcg_vk_context **out,
                                            gcg_error *err)
{
    if (!out)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET, "out is NULL");
    *out = NULL;
    if (!opt)
        opt = &context__defaults;
    gcg_vk_device dev;
    gcg_status st = gcg_vk__standalone_device(opt, &dev, err);
    if (st != GCG_OK)
        return st;
    return context__init(&dev, true, opt, out, err);
}

void gcg_vk_context_destroy(gcg_vk_context *ctx)
{
    if (!ctx)
        return;
    gcg_vk__pipelines_destroy(ctx);
    if (ctx->owns_device) {
        vkDestroyDevice(ctx->dev.device, NULL);
        vkDestroyInstance(ctx->dev.instance, NULL);
    }
    free(ctx);
}

void gcg_vk_context_device(const gcg_vk_context *ctx, gcg_vk_device *out)
{
    *out = ctx->dev;
}

uint32_t gcg_vk_supported_dtypes(const gcg_vk_context *ctx)
{
    uint32_t bits = 0;
    for (int dt = 0; dt < GCG_VK_DTYPE_COUNT; dt++)
        if (ctx->apply[dt] != VK_NULL_HANDLE)
            bits |= 1u << dt;
    return bits;
}

void gcg_vk_context_info(const gcg_vk_context *ctx, gcg_vk_info *out)
{
    memset(out, 0, sizeof *out);
    memcpy(out->device_name, ctx->props.deviceName, sizeof out->device_name);
    out->device_name[sizeof out->device_name - 1] = '\0';
    out->device_type = ctx->props.deviceType;
    out->api_version = ctx->props.apiVersion;
    out->dtypes = gcg_vk_supported_dtypes(ctx);
    out->elems_per_invocation = ctx->elems;
    out->max_binding_bytes = ctx->max_binding;
    out->min_offset_alignment = ctx->props.limits.minStorageBufferOffsetAlignment;
    out->subgroup_reduction = ctx->subgroup;
    out->timestamps = ctx->timestamps;
    out->timestamp_period_ns = ctx->props.limits.timestampPeriod;
}
