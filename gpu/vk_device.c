/*
 * vk_device.c — the instance and device of a standalone context: pick a
 * physical device (a discrete GPU first, a CPU device such as lavapipe last,
 * so CI without a GPU still runs), one compute queue, and 16-bit storage
 * when the device has it. Also the device queries the caller path shares.
 */
#include "vk_internal.h"

/* Higher is better; 0 for a device we cannot use. */
static int device__rank(VkPhysicalDevice pd)
{
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(pd, &p);
    if (p.apiVersion < VK_API_VERSION_1_1 || gcg_vk__compute_family(pd) == UINT32_MAX)
        return 0;
    switch (p.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 5;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 4;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 3;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 2;
    default: return 1;
    }
}

/* Queue families beyond this many are ignored (devices have a handful). */
#define DEVICE_MAX_FAMILIES 64

static uint32_t device__families(VkPhysicalDevice pd, VkQueueFamilyProperties *fam)
{
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, NULL);
    if (n > DEVICE_MAX_FAMILIES)
        n = DEVICE_MAX_FAMILIES;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, fam);
    return n;
}

bool gcg_vk__queue_family(VkPhysicalDevice pd, uint32_t family, VkQueueFamilyProperties *out)
{
    VkQueueFamilyProperties fam[DEVICE_MAX_FAMILIES];
    uint32_t n = device__families(pd, fam);
    if (family >= n)
        return false;
    *out = fam[family];
    return true;
}

uint32_t gcg_vk__compute_family(VkPhysicalDevice pd)
{
    VkQueueFamilyProperties fam[DEVICE_MAX_FAMILIES];
    uint32_t n = device__families(pd, fam);
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        if (!(fam[i].queueFlags & VK_QUEUE_COMPUTE_BIT) || fam[i].queueCount == 0)
            continue;
        if (fam[i].timestampValidBits > 0)
            return i;
        if (best == UINT32_MAX)
            best = i;
    }
    return best;
}

bool gcg_vk__has_storage16(VkPhysicalDevice pd)
{
    VkPhysicalDevice16BitStorageFeatures s16 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                    .pNext = &s16};
    vkGetPhysicalDeviceFeatures2(pd, &f2);
    return s16.storageBuffer16BitAccess == VK_TRUE;
}

bool gcg_vk__has_subgroup_arithmetic(VkPhysicalDevice pd)
{
    VkPhysicalDeviceSubgroupProperties sg = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                      .pNext = &sg};
    vkGetPhysicalDeviceProperties2(pd, &p2);
    VkSubgroupFeatureFlags need = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
    return (sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
           (sg.supportedOperations & need) == need;
}

static gcg_status device__instance(VkInstance *out, gcg_error *err)
{
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "gcg",
                             .pEngineName = "gcg_vk",
                             .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                               .pApplicationInfo = &app};
    VkResult r = vkCreateInstance(&ci, NULL, out);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
        return gcg_error_set(err, GCG_VK_ERR_NO_DEVICE, GCG_NO_OFFSET,
                             "no Vulkan 1.1 driver found (vkCreateInstance: %s)",
                             gcg_vk__result_name(r));
    return r == VK_SUCCESS ? GCG_OK : gcg_vk__fail(err, r, "vkCreateInstance");
}

static gcg_status device__pick(VkInstance inst, int32_t index, VkPhysicalDevice *out,
                               gcg_error *err)
{
    uint32_t n = 0;
    VkResult r = vkEnumeratePhysicalDevices(inst, &n, NULL);
    if (r != VK_SUCCESS)
        return gcg_vk__fail(err, r, "vkEnumeratePhysicalDevices");
    VkPhysicalDevice pds[32];
    if (n > 32)
        n = 32;
    r = vkEnumeratePhysicalDevices(inst, &n, pds);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE)
        return gcg_vk__fail(err, r, "vkEnumeratePhysicalDevices");
    if (index >= 0) {
        if ((uint32_t)index >= n || device__rank(pds[index]) == 0)
            return gcg_error_set(err, GCG_VK_ERR_NO_DEVICE, GCG_NO_OFFSET,
                                 "device %d is not a Vulkan 1.1 device with compute "
                                 "(%u devices found)", (int)index, n);
        *out = pds[index];
        return GCG_OK;
    }
    int best_rank = 0;
    for (uint32_t i = 0; i < n; i++) {
        int rank = device__rank(pds[i]);
        if (rank > best_rank) {
            best_rank = rank;
            *out = pds[i];
        }
    }
    if (best_rank == 0)
        return gcg_error_set(err, GCG_VK_ERR_NO_DEVICE, GCG_NO_OFFSET,
                             "none of the %u Vulkan devices supports Vulkan 1.1 with a "
                             "compute queue", n);
    return GCG_OK;
}

static gcg_status device__create(gcg_vk_device *d, gcg_error *err)
{
    float prio = 1.0f;
    VkDeviceQueueCreateInfo q = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                 .queueFamilyIndex = d->queue_family,
                                 .queueCount = 1,
                                 .pQueuePriorities = &prio};
    VkPhysicalDevice16BitStorageFeatures s16 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
        .storageBuffer16BitAccess = d->storage_buffer_16bit ? VK_TRUE : VK_FALSE};
    VkDeviceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                             .pNext = &s16,
                             .queueCreateInfoCount = 1,
                             .pQueueCreateInfos = &q};
    VkResult r = vkCreateDevice(d->physical_device, &ci, NULL, &d->device);
    if (r != VK_SUCCESS)
        return gcg_vk__fail(err, r, "vkCreateDevice");
    vkGetDeviceQueue(d->device, d->queue_family, 0, &d->queue);
    return GCG_OK;
}

gcg_status gcg_vk__standalone_device(const gcg_vk_options *opt, gcg_vk_device *out,
                                     gcg_error *err)
{
    gcg_vk_device d = {0};
    gcg_status st = device__instance(&d.instance, err);
    if (st != GCG_OK)
        return st;
    st = device__pick(d.instance, opt->device_index, &d.physical_device, err);
    if (st == GCG_OK) {
        d.queue_family = gcg_vk__compute_family(d.physical_device);
        d.storage_buffer_16bit = gcg_vk__has_storage16(d.physical_device);
        st = device__create(&d, err);
    }
    if (st != GCG_OK) {
        vkDestroyInstance(d.instance, NULL);
        return st;
    }
    *out = d;
    return GCG_OK;
}
