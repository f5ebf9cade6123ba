/* A buffer pool with power-of-two size classes, and a ring of slices. */
#include "core/core.h"

#define UL__POOL_CLASSES 40 /* 256 B .. 128 TiB */

typedef struct pool_entry {
  ul_buffer buf;
  uint64_t size;
  bool in_use;
} pool_entry;

struct ul_buffer_pool {
  ul_device *device;
  ul_buffer_pool_desc desc;
  char *label;
  pool_entry *e;
  uint32_t count, cap;
  uint64_t free_bytes;
  uint32_t evict_seen;     /* the device's evict_generation last acted on */
};

static uint64_t class_size(uint64_t size) {
  uint64_t c = 256;
  while (c < size && c < (1ull << 62)) c <<= 1;
  return c;
}

ul_status ul_buffer_pool_create(ul_device *d, const ul_buffer_pool_desc *desc, ul_buffer_pool **out) {
  if (!d || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create buffer pool: NULL argument");
  *out = NULL;
  ul_buffer_pool *p = calloc(1, sizeof *p);
  if (!p) return ul__fail(UL_ERR_OUT_OF_MEMORY, "create buffer pool: out of host memory");
  if (desc) p->desc = *desc;
  p->label = ul__strdup(p->desc.label ? p->desc.label : "pool");
  if (!p->label) {
    free(p);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "create buffer pool: out of host memory");
  }
  p->desc.label = p->label;
  if (!p->desc.max_free_bytes) p->desc.max_free_bytes = 64ull << 20;
  p->device = d;
  p->evict_seen = atomic_load(&d->evict_generation);
  *out = p;
  return UL_OK;
}

ul_status ul_buffer_pool_acquire(ul_buffer_pool *p, uint64_t size, ul_buffer *out) {
  if (!p || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "pool acquire: NULL argument");
  out->id = 0;
  if (size == 0) return ul__fail(UL_ERR_INVALID_ARGUMENT, "pool acquire: size 0");
  uint64_t cs = class_size(size);
  /* Out-of-memory was reported: give back what is not in use first. */
  uint32_t gen = atomic_load(&p->device->evict_generation);
  if (gen != p->evict_seen) {
    p->evict_seen = gen;
    ul_buffer_pool_trim(p);
  }
  for (uint32_t i = 0; i < p->count; i++) {
    if (!p->e[i].in_use && p->e[i].size == cs) {
      p->e[i].in_use = true;
      p->free_bytes -= cs;
      *out = p->e[i].buf;
      return UL_OK;
    }
  }
  pool_entry *grown = ul__grow(p->e, p->count, &p->cap, sizeof *p->e, 16);
  if (!grown) return ul__fail(UL_ERR_OUT_OF_MEMORY, "pool acquire: out of host memory");
  p->e = grown;
  ul_buffer_desc bd = {.label = p->label, .size = cs, .usage = p->desc.usage, .restore = p->desc.restore};
  ul_status s = ul_buffer_create_at(p->device, &bd, out, &(const ul_site){__FILE__, __LINE__, p->label});
  if (s) return ul__wrap(s, "pool '%s' acquire %llu bytes", p->label, (unsigned long long)size);
  p->e[p->count++] = (pool_entry){*out, cs, true};
  return UL_OK;
}

ul_status ul_buffer_pool_release(ul_buffer_pool *p, ul_buffer b) {
  if (!p) return ul__fail(UL_ERR_INVALID_ARGUMENT, "pool release: pool is NULL");
  for (uint32_t i = 0; i < p->count; i++) {
    if (p->e[i].buf.id == b.id && p->e[i].in_use) {
      if (p->free_bytes + p->e[i].size > p->desc.max_free_bytes) {
        ul_status s = ul_buffer_destroy(p->device, b);
        p->e[i] = p->e[--p->count];
        return s;
      }
      p->e[i].in_use = false;
      p->free_bytes += p->e[i].size;
      return UL_OK;
    }
  }
  return ul__fail(UL_ERR_INVALID_HANDLE, "pool '%s' release: buffer 0x%08x is not one of its buffers in use",
                  p->label, b.id);
}

uint64_t ul_buffer_pool_trim(ul_buffer_pool *p) {
  if (!p) return 0;
  uint64_t freed = 0;
  for (uint32_t i = 0; i < p->count;) {
    if (!p->e[i].in_use) {
      ul_buffer_destroy(p->device, p->e[i].buf);
      freed += p->e[i].size;
      p->e[i] = p->e[--p->count];
    } else {
      i++;
    }
  }
  p->free_bytes = 0;
  return freed;
}

void ul_buffer_pool_destroy(ul_buffer_pool *p) {
  if (!p) return;
  for (uint32_t i = 0; i < p->count; i++) ul_buffer_destroy(p->device, p->e[i].buf);
  free(p->e);
  free(p->label);
  free(p);
}

struct ul_ring {
  ul_device *device;
  ul_buffer buf;
  uint64_t size, head;
  uint32_t alignment;
};

ul_status ul_ring_create(ul_device *d, const ul_ring_desc *desc, ul_ring **out) {
  if (!d || !desc || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create ring: NULL argument");
  *out = NULL;
  uint32_t align = desc->alignment ? desc->alignment : 256;
  if (align & (align - 1) || align % 4)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "create ring: alignment %u is not a power of two >= 4", align);
  if (!desc->size || desc->size % align)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "create ring: size %llu is not a positive multiple of %u",
                    (unsigned long long)desc->size, align);
  ul_ring *r = calloc(1, sizeof *r);
  if (!r) return ul__fail(UL_ERR_OUT_OF_MEMORY, "create ring: out of host memory");
  ul_buffer_desc bd = {.label = desc->label ? desc->label : "ring", .size = desc->size,
                       .usage = desc->usage ? desc->usage : (UL_BUFFER_UNIFORM | UL_BUFFER_COPY_DST),
                       .restore = UL_RESTORE_LOG};
  ul_status s = ul_buffer_create_at(d, &bd, &r->buf, &(const ul_site){__FILE__, __LINE__, bd.label});
  if (s) {
    free(r);
    return ul__wrap(s, "create ring");
  }
  r->device = d;
  r->size = desc->size;
  r->alignment = align;
  *out = r;
  return UL_OK;
}

ul_status ul_ring_push(ul_ring *r, const void *data, uint64_t size, ul_buffer *buffer, uint64_t *offset) {
  if (!r || !data || !buffer || !offset) return ul__fail(UL_ERR_INVALID_ARGUMENT, "ring push: NULL argument");
  uint64_t slice = size <= r->size ? (size + r->alignment - 1) & ~(uint64_t)(r->alignment - 1) : UINT64_MAX;
  if (size == 0 || slice > r->size || size % 4)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "ring push: %llu bytes do not fit a ring of %llu (multiples of 4)",
                    (unsigned long long)size, (unsigned long long)r->size);
  if (r->head + slice > r->size) r->head = 0;
  ul_status s = ul_buffer_write(r->device, r->buf, r->head, data, size);
  if (s) return s;
  *buffer = r->buf;
  *offset = r->head;
  r->head += slice;
  return UL_OK;
}

void ul_ring_destroy(ul_ring *r) {
  if (!r) return;
  ul_buffer_destroy(r->device, r->buf);
  free(r);
}
