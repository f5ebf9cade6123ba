/* Buffers of the webgpu.h front door: create (with mappedAtCreation in
 * host memory, written through the engine at the Unmap), MapAsync (a
 * future the layer drives: a map caught by a loss maps the rebuilt buffer
 * after the replay), mapped ranges, Unmap, Destroy and the getters. */
#include "webgpu/wg.h"

void ul__wg_buffer_free(ul__wg_buffer *b) {
  pthread_mutex_lock(ul__wg_buffer_mu(b));
  ul__wg_set_map_state(b, UL__WG_UNMAPPED);
  pthread_mutex_unlock(ul__wg_buffer_mu(b));
  free(b->host);
  b->host = NULL;
}

void ul__wg_set_map_state(ul__wg_buffer *b, ul__wg_map_state st) {
  bool was = b->map_state != UL__WG_UNMAPPED, is = st != UL__WG_UNMAPPED;
  b->map_state = st;
  if (was != is && b->h.dev) {
    if (is) atomic_fetch_add(&b->h.dev->maps_out, 1);
    else atomic_fetch_sub(&b->h.dev->maps_out, 1);
  }
}

#define UL__WG_MAP_LOCKS 64
#define L1 PTHREAD_MUTEX_INITIALIZER
#define L8 L1, L1, L1, L1, L1, L1, L1, L1
static pthread_mutex_t g_map_locks[UL__WG_MAP_LOCKS] = {L8, L8, L8, L8, L8, L8, L8, L8};
#undef L8
#undef L1

pthread_mutex_t *ul__wg_buffer_mu(const ul__wg_buffer *b) {
  uintptr_t k = (uintptr_t)b;
  return &g_map_locks[(k >> 6 ^ k >> 12) % UL__WG_MAP_LOCKS];
}

static ul__wg_buffer *error_buffer(ul__wg_device *dv, const WGPUBufferDescriptor *desc) {
  ul__wg_buffer *b = ul__wg_new(UL__WG_BUFFER, sizeof *b, dv);
  if (!b) return NULL;
  if (desc) {
    b->size = desc->size;
    b->usage = desc->usage;
  }
  return b;
}

/* The restore policy from use: the default is the engine's LOG (every
 * write and submission since the last checkpoint is replayed). */
UL__WG_EXPORT WGPUBuffer wgpuDeviceCreateBuffer(WGPUDevice device, const WGPUBufferDescriptor *descriptor) {
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, "wgpuDeviceCreateBuffer");
  if (!dv) return NULL;
  const ul_site *site = ul__wg_site(__builtin_return_address(0));
  ul__wg_buffer *b = error_buffer(dv, descriptor);
  if (!b) {
    ul__wg_error(dv, WGPUErrorType_OutOfMemory, "wgpuDeviceCreateBuffer: out of host memory");
    return NULL;
  }
  if (!descriptor) {
    ul__wg_error(dv, WGPUErrorType_Validation, "wgpuDeviceCreateBuffer: the descriptor is NULL");
    return (WGPUBuffer)b;
  }
  const WGPUBufferDescriptor *bd = descriptor;
  char label[128];
  const char *lab = ul__wg_label(bd->label, label, sizeof label);
  const ul_wgpu_restore *policy = NULL;
  char why[160];
  if (!ul__wg_chain_ok(bd->nextInChain, "BufferDescriptor", why, sizeof why)) {
    ul__wg_error(dv, WGPUErrorType_Validation, "wgpuDeviceCreateBuffer '%s': %s", lab ? lab : "", why);
    return (WGPUBuffer)b;
  }
  for (const WGPUChainedStruct *c = bd->nextInChain; c; c = c->next) {
    if (c->sType == UL_WGPU_STYPE_RESTORE && !policy) {
      policy = (const ul_wgpu_restore *)c;
      continue;
    }
    ul__wg_error(dv, WGPUErrorType_Validation, "wgpuDeviceCreateBuffer '%s': chained sType 0x%x is not one unlost "
                 "can keep for a rebuild", lab ? lab : "", c->sType);
    return (WGPUBuffer)b;
  }
  /* WebGPU's own rules first, with its words, before anything is made. */
  const char *bad = NULL;
  const uint64_t known = WGPUBufferUsage_MapRead | WGPUBufferUsage_MapWrite | WGPUBufferUsage_CopySrc |
                         WGPUBufferUsage_CopyDst | WGPUBufferUsage_Index | WGPUBufferUsage_Vertex |
                         WGPUBufferUsage_Uniform | WGPUBufferUsage_Storage | WGPUBufferUsage_Indirect |
                         WGPUBufferUsage_QueryResolve;
  if (!bd->usage) bad = "usage is None";
  else if (bd->usage & ~known) bad = "usage has unknown bits";
  else if ((bd->usage & WGPUBufferUsage_MapRead) && (bd->usage & ~(WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst)))
    bad = "MapRead may only be combined with CopyDst";
  else if ((bd->usage & WGPUBufferUsage_MapWrite) && (bd->usage & ~(WGPUBufferUsage_MapWrite | WGPUBufferUsage_CopySrc)))
    bad = "MapWrite may only be combined with CopySrc";
  else if (bd->mappedAtCreation && bd->size % 4) bad = "a buffer mapped at creation needs a size that is a multiple of 4";
  else if (bd->size > dv->limits.maxBufferSize) bad = "the size exceeds the device's maxBufferSize";
  /* A buffer mapped at creation is mapped even when it is an error (or its
   * device is lost), as the implementation's is: its bytes go nowhere. */
  if (bd->mappedAtCreation && bd->size <= dv->limits.maxBufferSize) {
    if (!(b->host = calloc(1, bd->size ? (size_t)bd->size : 1))) {
      ul__wg_error(dv, WGPUErrorType_OutOfMemory, "wgpuDeviceCreateBuffer '%s': no host memory for a mapping of %llu "
                   "bytes", lab ? lab : "", (unsigned long long)bd->size);
      return (WGPUBuffer)b;
    }
    ul__wg_set_map_state(b, UL__WG_MAPPED);
    b->map_mode = WGPUMapMode_Write;
    b->map_offset = 0;
    b->map_size = (size_t)bd->size;
    b->map_base = b->host;
  }
  if (bad) {
    ul__wg_error(dv, WGPUErrorType_Validation, "wgpuDeviceCreateBuffer '%s': %s (usage 0x%llx, size %llu)",
                 lab ? lab : "", bad, (unsigned long long)bd->usage, (unsigned long long)bd->size);
    return (WGPUBuffer)b;
  }
  if (!ul__wg_enter(dv, "wgpuDeviceCreateBuffer")) return (WGPUBuffer)b;
  /* A zero-sized buffer is valid WebGPU; the engine keeps one of 4 bytes
   * (what it reports is the program's size). */
  ul__buffer_spec spec = {.label = lab, .size = bd->size ? (bd->size + 3) & ~3ull : 4, .usage = bd->usage,
                          .restore = UL_RESTORE_LOG, .from_use = true};
  struct stat st;
  if (policy) {
    ul_status ps = ul__wg_policy_spec(b, policy, bd->size, &spec, &st);
    if (ps) {
      ul__wg_leave(dv);
      ul__wg_report(dv, ps, "wgpuDeviceCreateBuffer: its unlost restore policy");
      return (WGPUBuffer)b;
    }
  }
  uint32_t id;
  ul_status s = ul__buffer_create(dv->ud, &spec, site, &id);
  ul__wg_leave(dv);
  if (s) {
    ul__wg_report(dv, s, "wgpuDeviceCreateBuffer");
    return (WGPUBuffer)b;
  }
  b->h.id = id;
  return (WGPUBuffer)b;
}

UL__WG_EXPORT WGPUBuffer wgpuDeviceCreateErrorBuffer(WGPUDevice device, const WGPUBufferDescriptor *descriptor) {
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, "wgpuDeviceCreateErrorBuffer");
  if (!dv) return NULL;
  ul__wg_buffer *b = error_buffer(dv, descriptor);
  ul__wg_error(dv, WGPUErrorType_Validation, "wgpuDeviceCreateErrorBuffer: an error buffer");
  return (WGPUBuffer)b;
}

/* Ends the engine's mapping of b (the native one included). */
static ul_status engine_unmap(ul__wg_buffer *b) {
  return ul__map_end(b->h.dev->ud, b->h.id, atomic_load(&b->h.dev->lost));
}

/* Ends a mapping (Unmap, Destroy, a last Release): what the program wrote
 * into a mapping at creation goes to the engine as a write; a pending map
 * is answered Aborted. */
static void end_mapping(ul__wg_buffer *b, const char *why, bool write_back) {
  ul__wg_device *dv = b->h.dev;
  pthread_mutex_lock(ul__wg_buffer_mu(b));
  ul__wg_map_state st = b->map_state;
  uint64_t pending = b->pending;
  uint8_t *host = b->host;
  ul__wg_set_map_state(b, UL__WG_UNMAPPED);
  b->pending = 0;
  b->host = NULL;
  b->map_base = NULL;
  pthread_mutex_unlock(ul__wg_buffer_mu(b));
  if (st == UL__WG_PENDING && pending) {
    /* A map not yet told to the program: its callback says Aborted, and
     * whatever the engine mapped for it is unmapped. */
    ul__wg_instance *in = dv->instance;
    pthread_mutex_lock(&in->mu);
    ul__wg_future *f = NULL;
    for (ul__wg_future *x = in->futures; x; x = x->next)
      if (x->id == pending) f = x;
    bool told = !f || f->fired || f->firing;
    if (f && f->ready && !told) {
      f->status = WGPUMapAsyncStatus_Aborted;
      free(f->message);
      f->message = ul__strdup(why);
    }
    bool unanswered = f && !f->ready;
    if (unanswered) f->holds++; /* not freed under this thread (another may answer it meanwhile) */
    pthread_mutex_unlock(&in->mu);
    if (unanswered) {
      ul__wg_future_resolve(in, f, WGPUMapAsyncStatus_Aborted, 0, NULL, why);
      ul__wg_future_unhold(in, f);
    }
    if (b->h.id) engine_unmap(b);
    return;
  }
  if (st != UL__WG_MAPPED || !b->h.id) {
    free(host);
    return;
  }
  ul_status s = UL_OK;
  if (host) {
    if (write_back && ul__wg_enter(dv, "wgpuBufferUnmap")) {
      s = ul__buffer_write(dv->ud, b->h.id, 0, host, (b->size + 3) & ~3ull);
      ul__wg_leave(dv);
    }
    free(host);
  } else {
    s = engine_unmap(b);
  }
  if (s && s != UL_ERR_WRONG_STATE) ul__wg_report(dv, s, "wgpuBufferUnmap");
}

/* At its callback, a map's outcome becomes the buffer's state (future.c):
 * until then the buffer is Pending and has no mapped range, as the
 * implementation's. */
void ul__wg_map_told(ul__wg_future *f) {
  ul__wg_buffer *b = (ul__wg_buffer *)f->target;
  if (!b) return;
  pthread_mutex_lock(ul__wg_buffer_mu(b));
  if (b->pending == f->id) {
    b->pending = 0;
    ul__wg_set_map_state(b, f->status == WGPUMapAsyncStatus_Success ? UL__WG_MAPPED : UL__WG_UNMAPPED);
    if (b->map_state != UL__WG_MAPPED) b->map_base = NULL;
  }
  pthread_mutex_unlock(ul__wg_buffer_mu(b));
}

UL__WG_EXPORT void wgpuBufferRelease(WGPUBuffer buffer) {
  ul__wg_buffer *b = ul__wg_check(buffer, UL__WG_BUFFER, "wgpuBufferRelease");
  if (!b) return;
  if (atomic_load(&b->h.refs) == 1) end_mapping(b, "Buffer was released before mapping was resolved.", false);
  ul__wg_release(b);
}

UL__WG_EXPORT void wgpuBufferDestroy(WGPUBuffer buffer) {
  ul__wg_buffer *b = ul__wg_check(buffer, UL__WG_BUFFER, "wgpuBufferDestroy");
  if (!b || atomic_exchange(&b->h.destroyed, true)) return;
  end_mapping(b, "Buffer was destroyed before mapping was resolved.", false);
  if (b->h.id) ul__destroy_by_id(b->h.dev->ud, b->h.id, UL__OBJ_BUFFER, false);
}

UL__WG_EXPORT void wgpuBufferUnmap(WGPUBuffer buffer) {
  ul__wg_buffer *b = ul__wg_check(buffer, UL__WG_BUFFER, "wgpuBufferUnmap");
  if (!b) return;
  end_mapping(b, "Buffer was unmapped before mapping was resolved.", true);
}

UL__WG_EXPORT WGPUBufferMapState wgpuBufferGetMapState(WGPUBuffer buffer) {
  ul__wg_buffer *b = ul__wg_check(buffer, UL__WG_BUFFER, "wgpuBufferGetMapState");
  if (!b) return WGPUBufferMapState_Unmapped;
  pthread_mutex_lock(ul__wg_buffer_mu(b));
  ul__wg_map_state st = b->map_state;
  pthread_mutex_unlock(ul__wg_buffer_mu(b));
  return st == UL__WG_MAPPED ? WGPUBufferMapState_Mapped
         : st == UL__WG_PENDING ? WGPUBufferMapState_Pending
                                : WGPUBufferMapState_Unmapped;
}

/* A range of the mapping, WebGPU's rules: inside it, the offset a multiple
 * of 8 and the size of 4; NULL otherwise. */
static void *mapped_range(ul__wg_buffer *b, size_t offset, size_t size, bool writable) {
  void *p = NULL;
  pthread_mutex_lock(ul__wg_buffer_mu(b));
  if (b->map_state == UL__WG_MAPPED && b->map_base && (!writable || (b->map_mode & WGPUMapMode_Write))) {
    /* The whole size is the rest of the buffer (it must lie inside the mapping). */
    if (size == WGPU_WHOLE_MAP_SIZE) size = offset <= b->size ? (size_t)(b->size - offset) : 0;
    if (offset % 8 == 0 && size % 4 == 0 && offset >= b->map_offset && size <= b->map_size &&
        offset - b->map_offset <= b->map_size - size)
      p = b->map_base + (offset - b->map_offset);
  }
  pthread_mutex_unlock(ul__wg_buffer_mu(b));
  return p;
}

UL__WG_EXPORT void *wgpuBufferGetMappedRange(WGPUBuffer buffer, size_t offset, size_t size) {
  ul__wg_buffer *b = ul__wg_check(buffer, UL__WG_BUFFER, "wgpuBufferGetMappedRange");
  return b ? mapped_range(b, offset, size, true) : NULL;
}

UL__WG_EXPORT const void *wgpuBufferGetConstMappedRange(WGPUBuffer buffer, size_t offset, size_t size) {
  ul__wg_buffer *b = ul__wg_check(buffer, UL__WG_BUFFER, "wgpuBufferGetConstMappedRange");
  return b ? mapped_range(b, offset, size, false) : NULL;
}

UL__WG_EXPORT WGPUStatus wgpuBufferWriteMappedRange(WGPUBuffer buffer, size_t offset, const void *data, size_t size) {
  ul__wg_buffer *b = ul__wg_check(buffer, UL__WG_BUFFER, "wgpuBufferWriteMappedRange");
  void *p = b && (data || !size) ? mapped_range(b, offset, size, true) : NULL;
  if (!p) return WGPUStatus_Error;
  if (size) memcpy(p, data, size);
  return WGPUStatus_Success;
}

UL__WG_EXPORT WGPUStatus wgpuBufferReadMappedRange(WGPUBuffer buffer, size_t offset, void *data, size_t size) {
  ul__wg_buffer *b = ul__wg_check(buffer, UL__WG_BUFFER, "wgpuBufferReadMappedRange");
  const void *p = b && (data || !size) ? mapped_range(b, offset, size, false) : NULL;
  if (!p) return WGPUStatus_Error;
  if (size) memcpy(data, p, size);
  return WGPUStatus_Success;
}

UL__WG_EXPORT WGPUFuture wgpuBufferMapAsync(WGPUBuffer buffer, WGPUMapMode mode, size_t offset, size_t size,
                                            WGPUBufferMapCallbackInfo info) {
  /* Held until it is started: no other thread moves it on (a submit's
   * progress, another thread's ProcessEvents) before its fields are set. */
  ul__wg_buffer *b;
  ul__wg_future *f = UL__WG_FUTURE_FOR(buffer, UL__WG_BUFFER, "wgpuBufferMapAsync", UL__WGF_MAP, true, info, &b);
  if (!f) return (WGPUFuture){0};
  ul__wg_device *dv = b->h.dev;
  ul__wg_instance *in = dv->instance;
  WGPUFuture id = ul__wg_future_id(f);
  if (size == WGPU_WHOLE_MAP_SIZE) size = offset <= b->size ? (size_t)(b->size - offset) : 0;
  const char *bad = NULL;
  uint32_t status = WGPUMapAsyncStatus_Error;
  pthread_mutex_lock(ul__wg_buffer_mu(b));
  if (atomic_load(&dv->lost)) {
    bad = "the device is lost";
    status = WGPUMapAsyncStatus_Aborted;
  } else if (!b->h.id || atomic_load(&b->h.destroyed)) {
    bad = "the buffer is invalid or destroyed";
  } else if (b->map_state != UL__WG_UNMAPPED) {
    bad = "the buffer is already mapped or has a map pending";
  } else if (mode != WGPUMapMode_Read && mode != WGPUMapMode_Write) {
    bad = "the mode is neither Read nor Write";
  } else if (!(b->usage & (mode == WGPUMapMode_Read ? WGPUBufferUsage_MapRead : WGPUBufferUsage_MapWrite))) {
    bad = mode == WGPUMapMode_Read ? "the buffer lacks the MapRead usage" : "the buffer lacks the MapWrite usage";
  } else if (offset % 8 || size % 4 || offset > b->size || size > b->size - offset) {
    bad = "the range is outside the buffer, or its offset is not a multiple of 8 or its size of 4";
  } else {
    ul__wg_set_map_state(b, UL__WG_PENDING);
    b->pending = f->id;
  }
  pthread_mutex_unlock(ul__wg_buffer_mu(b));
  if (bad) {
    if (status == WGPUMapAsyncStatus_Error)
      ul__wg_error(dv, WGPUErrorType_Validation, "wgpuBufferMapAsync: %s", bad);
    ul__wg_future_resolve(in, f, status, 0, NULL, bad);
    ul__wg_future_let_go(in, f);
    return id;
  }
  f->map_mode = mode;
  f->map_offset = offset;
  f->map_size = size;
  f->target = &b->h;
  ul__wg_hold(b);
  f->dev = dv;
  ul__wg_hold(dv);
  /* Started now (its copy ordered after the work already submitted); the
   * future answers when it is waited for or events are processed. */
  ul__wg_map_advance(in, f, 0);
  ul__wg_future_let_go(in, f);
  return id;
}

bool ul__wg_map_advance(ul__wg_instance *in, ul__wg_future *f, uint64_t wait_ns) {
  ul__wg_buffer *b = (ul__wg_buffer *)f->target;
  ul__wg_device *dv = f->dev;
  if (!b || !dv) return f->ready;
  pthread_mutex_lock(ul__wg_buffer_mu(b));
  bool mine = b->map_state == UL__WG_PENDING && b->pending == f->id;
  pthread_mutex_unlock(ul__wg_buffer_mu(b));
  if (!mine) return f->ready; /* unmapped or destroyed meanwhile: answered there */
  ul__map_outcome m;
  if (!f->ask.started && atomic_load(&dv->lost)) {
    m.step = UL__MAP_REFUSED;
    m.s = UL_ERR_DEVICE_FAILED;
  } else {
    ul__map_advance(dv->ud, b->h.id, &f->ask, f->map_mode, f->map_offset, f->map_size, wait_ns, &m);
  }
  if (m.step == UL__MAP_PENDING) return false;
  if (m.step == UL__MAP_MAPPED) {
    void *p = m.ptr;
    pthread_mutex_lock(ul__wg_buffer_mu(b));
    if (b->pending == f->id) { /* Mapped at its callback (ul__wg_map_told) */
      b->map_mode = f->map_mode;
      b->map_offset = f->map_offset;
      b->map_size = f->map_size;
      b->map_base = p;
    }
    pthread_mutex_unlock(ul__wg_buffer_mu(b));
    ul__wg_future_resolve(in, f, p || !f->map_size ? WGPUMapAsyncStatus_Success : WGPUMapAsyncStatus_Error, 0,
                          NULL, p || !f->map_size ? "" : "no mapped range");
    return true;
  }
  uint32_t status = m.status;
  if (m.step == UL__MAP_REFUSED) {
    snprintf(m.message, sizeof m.message, "%s", ul_last_error());
    ul__wg_report(dv, m.s, "wgpuBufferMapAsync");
    status = m.s == UL_ERR_DEVICE_FAILED ? WGPUMapAsyncStatus_Aborted : WGPUMapAsyncStatus_Error;
  }
  pthread_mutex_lock(ul__wg_buffer_mu(b));
  if (b->pending == f->id) ul__wg_set_map_state(b, UL__WG_UNMAPPED), b->pending = 0;
  pthread_mutex_unlock(ul__wg_buffer_mu(b));
  if (m.step == UL__MAP_LOST) {
    ul__wg_error(dv, WGPUErrorType_Internal, "%s", m.message);
    status = WGPUMapAsyncStatus_Error;
  }
  ul__wg_future_resolve(in, f, status, 0, NULL, m.message);
  return true;
}
