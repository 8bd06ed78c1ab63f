/*
 * vk_plan.c — plans: the caller's buffers bound for one batch shape, split
 * into dispatches ("chunks" of whole rows) so that no descriptor spans more
 * than the device's maxStorageBufferRange, and the recording of those
 * dispatches into the caller's command buffer.
 *
 * Every descriptor offset must be a multiple of
 * minStorageBufferOffsetAlignment, which the caller's offsets and row starts
 * need not be: a binding starts at the aligned address below the data and the
 * remainder travels as an element offset (*_base) in the push constants.
 */
#include <stdlib.h>

#include "vk_internal.h"

/* How one binding's data is laid out per row. */
typedef struct plan_geom {
    VkDeviceSize offset; /* byte offset of row 0 in the buffer            */
    uint32_t esize;      /* bytes per element                             */
    uint64_t stride;     /* elements between row starts                   */
    uint64_t row_elems;  /* elements of the last row a binding must hold  */
} plan_geom;

typedef struct plan_chunk {
    uint32_t first_row;
    uint32_t rows;
    VkDescriptorSet set;
    gcg_vk_push push;
    VkDescriptorBufferInfo info[GCG_VK_BIND_COUNT];
} plan_chunk;

/* Invariant: chunks cover rows 0 .. shape.rows-1 in order, without gaps. */
struct gcg_vk_plan {
    gcg_vk_context *ctx;
    gcg_vk_shape shape;   /* strides resolved, never 0                     */
    bool fused;           /* inv_temperature, argmax and scratch are bound */
    uint32_t n_bind;      /* bindings used: 2 (masking) or 5 (fused)        */
    uint32_t groups_x;    /* pass-1 workgroups per row                     */
    VkBuffer buffers[GCG_VK_BIND_COUNT];
    plan_geom geom[GCG_VK_BIND_COUNT];
    gcg_vk_alloc scratch; /* argmax partials, fused plans only             */
    VkDescriptorPool pool;
    uint32_t n_chunks;
    plan_chunk *chunks;
};

static uint32_t plan__div_up(uint64_t a, uint64_t b)
{
    return (uint32_t)((a + b - 1) / b);
}

gcg_status gcg_vk__shape_resolve(const gcg_vk_context *ctx, gcg_vk_shape *s, gcg_error *err)
{
    if ((unsigned)s->dtype >= GCG_VK_DTYPE_COUNT || s->rows == 0 || s->vocab == 0)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET,
                             "shape: unknown dtype %d, or rows %u / vocab %u is 0",
                             (int)s->dtype, s->rows, s->vocab);
    uint32_t words = plan__div_up(s->vocab, 32);
    if (s->logits_stride == 0)
        s->logits_stride = s->vocab;
    if (s->mask_stride == 0)
        s->mask_stride = words;
    if (s->logits_stride < s->vocab || s->mask_stride < words)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET,
                             "shape: logits_stride %u < vocab %u or mask_stride %u < %u words",
                             s->logits_stride, s->vocab, s->mask_stride, words);
    if (ctx->apply[s->dtype] == VK_NULL_HANDLE)
        return gcg_error_set(err, GCG_VK_ERR_UNSUPPORTED, GCG_NO_OFFSET,
                             "%s logits need storageBuffer16BitAccess, which %s does not "
                             "have (or the device was created without it)",
                             gcg_vk_dtype_name(s->dtype), ctx->props.deviceName);
    return GCG_OK;
}

static gcg_status plan__check_regions(const gcg_vk_plan_desc *d, gcg_error *err)
{
    size_t es = gcg_vk_dtype_size(d->shape.dtype);
    if (!d->logits.buffer || !d->masks.buffer)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET,
                             "plan: the logits and masks buffers must be set");
    if ((d->inv_temperature.buffer == VK_NULL_HANDLE) != (d->argmax.buffer == VK_NULL_HANDLE))
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET,
                             "plan: set both inv_temperature and argmax (fused) or neither");
    if (d->logits.offset % es || d->masks.offset % 4 || d->inv_temperature.offset % 4 ||
        d->argmax.offset % 4)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET,
                             "plan: offsets must be multiples of the element size (logits %zu "
                             "bytes, others 4)", es);
    return GCG_OK;
}

static void plan__layout(gcg_vk_plan *p, const gcg_vk_plan_desc *d)
{
    const gcg_vk_shape *s = &p->shape;
    p->groups_x = plan__div_up(plan__div_up(s->vocab, p->ctx->elems), GCG_VK_LOCAL_SIZE);
    p->buffers[GCG_VK_BIND_LOGITS] = d->logits.buffer;
    p->geom[GCG_VK_BIND_LOGITS] = (plan_geom){d->logits.offset,
                                              (uint32_t)gcg_vk_dtype_size(s->dtype),
                                              s->logits_stride, s->vocab};
    p->buffers[GCG_VK_BIND_MASKS] = d->masks.buffer;
    p->geom[GCG_VK_BIND_MASKS] = (plan_geom){d->masks.offset, 4, s->mask_stride,
                                             plan__div_up(s->vocab, 32)};
    p->fused = d->argmax.buffer != VK_NULL_HANDLE;
    p->n_bind = p->fused ? GCG_VK_BIND_COUNT : 2;
    p->buffers[GCG_VK_BIND_SCALES] = d->inv_temperature.buffer;
    p->geom[GCG_VK_BIND_SCALES] = (plan_geom){d->inv_temperature.offset, 4, 1, 1};
    p->geom[GCG_VK_BIND_PARTIALS] = (plan_geom){0, 8, p->groups_x, p->groups_x};
    p->buffers[GCG_VK_BIND_ARGMAX] = d->argmax.buffer;
    p->geom[GCG_VK_BIND_ARGMAX] = (plan_geom){d->argmax.offset, 4, 1, 1};
}

static const char *const plan__bind_names[GCG_VK_BIND_COUNT] = {
    "logits", "masks", "inv_temperature", "argmax scratch", "argmax"};

/* Binds rows first_row .. first_row+rows-1 of binding b into c->info[b]. */
static void plan__bind(const gcg_vk_plan *p, uint32_t b, plan_chunk *c)
{
    const plan_geom *g = &p->geom[b];
    uint64_t align = p->ctx->props.limits.minStorageBufferOffsetAlignment;
    uint64_t start = g->offset + (uint64_t)c->first_row * g->stride * g->esize;
    uint64_t slack = start % align;
    c->info[b] = (VkDescriptorBufferInfo){
        .buffer = p->buffers[b],
        .offset = start - slack,
        .range = slack + ((uint64_t)(c->rows - 1) * g->stride + g->row_elems) * g->esize};
    uint32_t base = (uint32_t)(slack / g->esize);
    uint32_t *bases[GCG_VK_BIND_COUNT] = {&c->push.logits_base, &c->push.mask_base,
                                          &c->push.scale_base, &c->push.partial_base,
                                          &c->push.argmax_base};
    *bases[b] = base;
}

/* The most rows binding b can hold from row r0 on; 0 if not even one. */
static uint64_t plan__fit(const gcg_vk_plan *p, uint32_t b, uint32_t r0)
{
    const plan_geom *g = &p->geom[b];
    uint64_t align = p->ctx->props.limits.minStorageBufferOffsetAlignment;
    uint64_t slack = (g->offset + (uint64_t)r0 * g->stride * g->esize) % align;
    uint64_t one = slack + g->row_elems * g->esize;
    if (one > p->ctx->max_binding)
        return 0;
    return 1 + (p->ctx->max_binding - one) / (g->stride * g->esize);
}

/* The rows of the chunk that starts at row r0, or 0 with err set. */
static uint32_t plan__chunk_rows(const gcg_vk_plan *p, uint32_t r0, gcg_error *err)
{
    uint64_t k = p->shape.rows - r0;
    uint32_t max_y = p->ctx->props.limits.maxComputeWorkGroupCount[1];
    if (k > max_y)
        k = max_y;
    for (uint32_t b = 0; b < p->n_bind; b++) {
        uint64_t fit = plan__fit(p, b, r0);
        if (fit == 0) {
            gcg_error_set(err, GCG_ERR_LIMIT, GCG_NO_OFFSET,
                          "one row of %s (%llu bytes) does not fit in one storage buffer "
                          "binding of %llu bytes (maxStorageBufferRange)",
                          plan__bind_names[b],
                          (unsigned long long)(p->geom[b].row_elems * p->geom[b].esize),
                          (unsigned long long)p->ctx->max_binding);
            return 0;
        }
        if (fit < k)
            k = fit;
    }
    return (uint32_t)k;
}

/* Splits the rows into chunks; with chunks NULL only counts them. */
static gcg_status plan__split(gcg_vk_plan *p, plan_chunk *chunks, uint32_t *n, gcg_error *err)
{
    *n = 0;
    for (uint32_t r0 = 0; r0 < p->shape.rows;) {
        uint32_t k = plan__chunk_rows(p, r0, err);
        if (k == 0)
            return GCG_ERR_LIMIT;
        if (chunks) {
            plan_chunk *c = &chunks[*n];
            *c = (plan_chunk){.first_row = r0, .rows = k};
            c->push = (gcg_vk_push){.vocab = p->shape.vocab,
                                    .logits_stride = p->shape.logits_stride,
                                    .mask_stride = p->shape.mask_stride,
                                    .groups_x = p->groups_x};
            for (uint32_t b = 0; b < p->n_bind; b++)
                plan__bind(p, b, c);
        }
        ++*n;
        r0 += k;
    }
    return GCG_OK;
}

static gcg_status plan__scratch(gcg_vk_plan *p, gcg_error *err)
{
    VkDeviceSize size = (VkDeviceSize)p->shape.rows * p->groups_x * 8;
    gcg_status st = gcg_vk__alloc(p->ctx, size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, 0,
                                  VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &p->scratch, err);
    p->buffers[GCG_VK_BIND_PARTIALS] = p->scratch.buffer;
    return st;
}

static gcg_status plan__descriptors(gcg_vk_plan *p, gcg_error *err)
{
    VkDevice d = p->ctx->dev.device;
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, p->n_chunks * p->n_bind};
    VkDescriptorPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                      .maxSets = p->n_chunks,
                                      .poolSizeCount = 1,
                                      .pPoolSizes = &size};
    VkResult r = vkCreateDescriptorPool(d, &pci, NULL, &p->pool);
    if (r != VK_SUCCESS)
        return gcg_vk__fail(err, r, "vkCreateDescriptorPool");
    for (uint32_t i = 0; i < p->n_chunks; i++) {
        plan_chunk *c = &p->chunks[i];
        VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                          .descriptorPool = p->pool,
                                          .descriptorSetCount = 1,
                                          .pSetLayouts = &p->ctx->set_layout};
        r = vkAllocateDescriptorSets(d, &ai, &c->set);
        if (r != VK_SUCCESS)
            return gcg_vk__fail(err, r, "vkAllocateDescriptorSets");
        VkWriteDescriptorSet w[GCG_VK_BIND_COUNT];
        for (uint32_t b = 0; b < p->n_bind; b++)
            w[b] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                          .dstSet = c->set,
                                          .dstBinding = b,
                                          .descriptorCount = 1,
                                          .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                          .pBufferInfo = &c->info[b]};
        vkUpdateDescriptorSets(d, p->n_bind, w, 0, NULL);
    }
    return GCG_OK;
}

static gcg_status plan__build(gcg_vk_plan *p, const gcg_vk_plan_desc *desc, gcg_error *err)
{
    plan__layout(p, desc);
    if (p->groups_x > p->ctx->props.limits.maxComputeWorkGroupCount[0])
        return gcg_error_set(err, GCG_ERR_LIMIT, GCG_NO_OFFSET,
                             "vocab %u needs %u workgroups per row; the device allows %u",
                             p->shape.vocab, p->groups_x,
                             p->ctx->props.limits.maxComputeWorkGroupCount[0]);
    gcg_status st = p->fused ? plan__scratch(p, err) : GCG_OK;
    if (st == GCG_OK)
        st = plan__split(p, NULL, &p->n_chunks, err);
    if (st != GCG_OK)
        return st;
    p->chunks = calloc(p->n_chunks, sizeof *p->chunks);
    if (!p->chunks)
        return gcg_error_set(err, GCG_ERR_NOMEM, GCG_NO_OFFSET, "out of memory");
    st = plan__split(p, p->chunks, &p->n_chunks, err);
    return st == GCG_OK ? plan__descriptors(p, err) : st;
}

gcg_status gcg_vk_plan_create(gcg_vk_context *ctx, const gcg_vk_plan_desc *desc,
                              gcg_vk_plan **out, gcg_error *err)
{
    if (!ctx || !desc || !out)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET, "gcg_vk_plan_create: NULL argument");
    *out = NULL;
    gcg_vk_shape shape = desc->shape;
    gcg_status st = gcg_vk__shape_resolve(ctx, &shape, err);
    if (st == GCG_OK)
        st = plan__check_regions(desc, err);
    if (st != GCG_OK)
        return st;
    gcg_vk_plan *p = calloc(1, sizeof *p);
    if (!p)
        return gcg_error_set(err, GCG_ERR_NOMEM, GCG_NO_OFFSET, "out of memory");
    p->ctx = ctx;
    p->shape = shape;
    st = plan__build(p, desc, err);
    if (st != GCG_OK) {
        gcg_vk_plan_destroy(p);
        return st;
    }
    *out = p;
    return GCG_OK;
}

void gcg_vk_plan_destroy(gcg_vk_plan *plan)
{
    if (!plan)
        return;
    vkDestroyDescriptorPool(plan->ctx->dev.device, plan->pool, NULL);
    gcg_vk__free(plan->ctx, &plan->scratch);
    free(plan->chunks);
    free(plan);
}

uint32_t gcg_vk_plan_chunks(const gcg_vk_plan *plan)
{
    return plan->n_chunks;
}

/* One dispatch per chunk that holds any of rows 0 .. rows-1; x workgroups
 * per row (groups_x for pass 1, one for the argmax reduction). */
static void plan__record(const gcg_vk_plan *p, VkCommandBuffer cmd, VkPipeline pipe,
                         uint32_t rows, uint32_t x)
{
    VkPipelineLayout layout = p->ctx->layout;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
    for (uint32_t i = 0; i < p->n_chunks && p->chunks[i].first_row < rows; i++) {
        const plan_chunk *c = &p->chunks[i];
        uint32_t n = rows - c->first_row < c->rows ? rows - c->first_row : c->rows;
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &c->set, 0,
                                NULL);
        vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof c->push,
                           &c->push);
        vkCmdDispatch(cmd, x, n, 1);
    }
}

static gcg_status plan__check_rows(const gcg_vk_plan *p, VkCommandBuffer cmd, uint32_t rows,
                                   gcg_error *err)
{
    if (!p || !cmd)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET, "NULL plan or command buffer");
    if (rows == 0 || rows > p->shape.rows)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET,
                             "rows %u outside 1..%u (the plan's shape)", rows, p->shape.rows);
    return GCG_OK;
}

gcg_status gcg_vk_cmd_apply_mask(const gcg_vk_plan *plan, VkCommandBuffer cmd, uint32_t rows,
                                 gcg_error *err)
{
    gcg_status st = plan__check_rows(plan, cmd, rows, err);
    if (st != GCG_OK)
        return st;
    plan__record(plan, cmd, plan->ctx->apply[plan->shape.dtype], rows, plan->groups_x);
    return GCG_OK;
}

gcg_status gcg_vk_cmd_apply_mask_fused(const gcg_vk_plan *plan, VkCommandBuffer cmd,
                                       uint32_t rows, gcg_error *err)
{
    gcg_status st = plan__check_rows(plan, cmd, rows, err);
    if (st != GCG_OK)
        return st;
    if (!plan->fused)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET,
                             "the plan was created without inv_temperature and argmax buffers");
    plan__record(plan, cmd, plan->ctx->fused[plan->shape.dtype], rows, plan->groups_x);
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_SHADER_READ_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    plan__record(plan, cmd, plan->ctx->reduce, rows, 1);
    return GCG_OK;
}
