/* Command lists: recorded as data, encoded at submit. */
#include "exec/cmd.h"
#include "exec/oplog.h"

static void cache_free(ul__enc_cache *k) {
  free(k->pipe);
  free(k->group);
  free(k->dirty);
  memset(k, 0, sizeof *k);
}

ul_status ul_cmd_create_at(ul_device *d, const char *label, ul_cmd **out, const ul_site *site) {
  if (!d || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create command list: NULL argument");
  *out = NULL;
  ul_cmd *c = calloc(1, sizeof *c);
  if (!c) return ul__fail(UL_ERR_OUT_OF_MEMORY, "create command list: out of host memory");
  c->device = d;
  if (label && !(c->label = ul__strdup(label))) {
    free(c);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "create command list: out of host memory");
  }
  if (site) {
    c->site_file = site->file;
    c->site_line = site->line;
  }
  ul__device_lock(d);
  ul__track_desc td = {.kind = UL__TRACK_COMMAND_LIST, .label = label};
  if (site) td.site = (ul__track_site){site->file, site->line, site->func};
  ul_status s = ul__track_alloc(d->res->tracker, &td, &c->track_id);
  ul__device_unlock(d);
  if (s) {
    free(c->label);
    free(c);
    return s;
  }
  *out = c;
  return UL_OK;
}

void ul_cmd_destroy(ul_cmd *c) {
  if (!c) return;
  ul__device_lock(c->device);
  if (c->device->res) ul__track_free(c->device->res->tracker, c->track_id);
  ul__device_unlock(c->device);
  cache_free(&c->cache);
  free(c->ops);
  free(c->label);
  free(c);
}

void ul_cmd_reset(ul_cmd *c) {
  if (!c) return;
  c->count = 0;
  c->version++;
}


static ul_status push(ul_cmd *c, const ul__op *op) {
  ul__op *grown = ul__grow(c->ops, c->count, &c->cap, sizeof *c->ops, 16);
  if (!grown) return ul__fail(UL_ERR_OUT_OF_MEMORY, "record: out of host memory");
  c->ops = grown;
  c->ops[c->count++] = *op;
  c->version++;
  return UL_OK;
}

/* The lookup of a recording (under mu): the handle and its descriptor,
 * nothing made on the device for it (a submission makes what it names). */
static ul_status record_get(ul_device *d, uint32_t id, ul__obj_kind kind, const char *what, ul__obj **o) {
  d->res->lookup_plain = true;
  ul_status s = ul__obj_get(d, id, kind, what, o);
  d->res->lookup_plain = false;
  return s;
}

/* Checks that handles are live now, so misuse is reported where it happens. */
static ul_status check(ul_cmd *c, uint32_t id, ul__obj_kind kind, const char *what) {
  ul__device_lock(c->device);
  ul__obj *o;
  ul_status s = record_get(c->device, id, kind, what, &o);
  ul__device_unlock(c->device);
  return s;
}

/* A buffer range an op names: live, inside the buffer, with the usage the
 * op needs (WebGPU's rules, checked where the program records them). */
static ul_status check_range(ul_cmd *c, uint32_t id, uint64_t offset, uint64_t size, uint64_t need_usage,
                             const char *usage_name, const char *what) {
  ul__device_lock(c->device);
  ul__obj *o;
  ul_status s = record_get(c->device, id, UL__OBJ_BUFFER, what, &o);
  if (!s && (offset > o->u.buf.size || size > o->u.buf.size - offset))
    s = ul__fail(UL_ERR_INVALID_ARGUMENT, "%s: range %llu + %llu is outside buffer '%s' of %llu bytes", what,
                 (unsigned long long)offset, (unsigned long long)size, o->label ? o->label : "",
                 (unsigned long long)o->u.buf.size);
  else if (!s && (o->u.buf.wgpu_usage & need_usage) != need_usage)
    s = ul__fail(UL_ERR_INVALID_ARGUMENT, "%s: buffer '%s' lacks the %s usage", what, o->label ? o->label : "",
                 usage_name);
  ul__device_unlock(c->device);
  return s;
}

static ul_status record_dispatch(ul_cmd *c, ul__op *op, ul_compute_pipeline p,
                                 const ul_bind_group *groups, uint32_t n) {
  if (n > UL_MAX_BIND_GROUPS || (n && !groups))
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "dispatch: %u bind groups (at most %d)", n, UL_MAX_BIND_GROUPS);
  if (op->kind == UL__OP_DISPATCH) {
    ul__device_lock(c->device);
    uint32_t most = c->device->limits.maxComputeWorkgroupsPerDimension;
    ul__device_unlock(c->device);
    if (most && (op->x > most || op->y > most || op->z > most))
      return ul__fail(UL_ERR_INVALID_ARGUMENT,
                      "dispatch: %u x %u x %u workgroups; the device allows at most %u per dimension", op->x,
                      op->y, op->z, most);
  }
  ul_status s = check(c, p.id, UL__OBJ_PIPELINE, "dispatch");
  for (uint32_t i = 0; !s && i < n; i++) s = check(c, groups[i].id, UL__OBJ_BIND_GROUP, "dispatch");
  if (s) return s;
  op->pipeline = p.id;
  op->group_count = n;
  for (uint32_t i = 0; i < n; i++) op->groups[i] = groups[i].id;
  return push(c, op);
}

ul_status ul_cmd_dispatch(ul_cmd *c, ul_compute_pipeline p, const ul_bind_group *groups, uint32_t n,
                          uint32_t x, uint32_t y, uint32_t z) {
  if (!c) return ul__fail(UL_ERR_INVALID_ARGUMENT, "dispatch: command list is NULL");
  ul__op op = {.kind = UL__OP_DISPATCH, .x = x, .y = y, .z = z};
  return record_dispatch(c, &op, p, groups, n);
}

ul_status ul_cmd_dispatch_indirect(ul_cmd *c, ul_compute_pipeline p, const ul_bind_group *groups,
                                   uint32_t n, ul_buffer args, uint64_t offset) {
  if (!c) return ul__fail(UL_ERR_INVALID_ARGUMENT, "dispatch indirect: command list is NULL");
  if (offset % 4) return ul__fail(UL_ERR_INVALID_ARGUMENT, "dispatch indirect: offset not a multiple of 4");
  ul_status s = check_range(c, args.id, offset, 12, WGPUBufferUsage_Indirect, "INDIRECT", "dispatch indirect");
  if (s) return s;
  ul__op op = {.kind = UL__OP_DISPATCH_INDIRECT, .buf_a = args.id, .off_a = offset};
  return record_dispatch(c, &op, p, groups, n);
}

ul_status ul_cmd_copy_buffer(ul_cmd *c, ul_buffer src, uint64_t so, ul_buffer dst, uint64_t dof,
                             uint64_t size) {
  if (!c) return ul__fail(UL_ERR_INVALID_ARGUMENT, "copy buffer: command list is NULL");
  if (so % 4 || dof % 4 || size % 4)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "copy buffer: offsets and size must be multiples of 4");
  if (src.id && src.id == dst.id)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "copy buffer: source and destination are the same buffer "
                                             "(WebGPU copies between two buffers only)");
  ul_status s = check_range(c, src.id, so, size, WGPUBufferUsage_CopySrc, "COPY_SRC", "copy buffer source");
  if (!s) s = check_range(c, dst.id, dof, size, WGPUBufferUsage_CopyDst, "COPY_DST", "copy buffer destination");
  if (s) return s;
  ul__op op = {.kind = UL__OP_COPY_BUFFER, .buf_a = src.id, .off_a = so, .buf_b = dst.id,
               .off_b = dof, .size = size};
  return push(c, &op);
}

ul_status ul_cmd_clear_buffer(ul_cmd *c, ul_buffer b, uint64_t offset, uint64_t size) {
  if (!c) return ul__fail(UL_ERR_INVALID_ARGUMENT, "clear buffer: command list is NULL");
  if (offset % 4 || size % 4)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "clear buffer: offset and size must be multiples of 4");
  ul_status s = check_range(c, b.id, offset, size, WGPUBufferUsage_CopyDst, "COPY_DST", "clear buffer");
  if (s) return s;
  ul__op op = {.kind = UL__OP_CLEAR_BUFFER, .buf_b = b.id, .off_b = offset, .size = size};
  return push(c, &op);
}

/* A copy between a buffer and a texture, either way (`to_texture`). */
static ul_status texel_copy(ul_cmd *c, bool to_texture, ul_buffer buf, uint64_t offset, uint32_t bpr, ul_texture tex,
                            uint32_t w, uint32_t h, uint32_t depth) {
  const char *what = to_texture ? "copy buffer to texture" : "copy texture to buffer";
  if (!c) return ul__fail(UL_ERR_INVALID_ARGUMENT, "%s: command list is NULL", what);
  if (bpr % 256) return ul__fail(UL_ERR_INVALID_ARGUMENT, "%s: bytes_per_row %u is not a multiple of 256", what, bpr);
  ul_status s = to_texture ? check(c, buf.id, UL__OBJ_BUFFER, what) : check(c, tex.id, UL__OBJ_TEXTURE, what);
  if (!s) s = to_texture ? check(c, tex.id, UL__OBJ_TEXTURE, what) : check(c, buf.id, UL__OBJ_BUFFER, what);
  if (s) return s;
  ul__op op = {.bytes_per_row = bpr, .texture = tex.id, .x = w, .y = h, .z = depth};
  if (to_texture) op.kind = UL__OP_COPY_BUFFER_TO_TEXTURE, op.buf_a = buf.id, op.off_a = offset;
  else op.kind = UL__OP_COPY_TEXTURE_TO_BUFFER, op.buf_b = buf.id, op.off_b = offset;
  return push(c, &op);
}

ul_status ul_cmd_copy_buffer_to_texture(ul_cmd *c, ul_buffer src, uint64_t offset, uint32_t bpr,
                                        ul_texture dst, uint32_t w, uint32_t h, uint32_t depth) {
  return texel_copy(c, true, src, offset, bpr, dst, w, h, depth);
}

ul_status ul_cmd_copy_texture_to_buffer(ul_cmd *c, ul_texture src, uint32_t w, uint32_t h,
                                        uint32_t depth, ul_buffer dst, uint64_t offset, uint32_t bpr) {
  return texel_copy(c, false, dst, offset, bpr, src, w, h, depth);
}

/* A bind group is usable when it and everything it refers to are live. */
static ul_status check_group(ul_device *d, uint32_t id, ul__obj **out) {
  ul_status s = ul__obj_get(d, id, UL__OBJ_BIND_GROUP, "submit", out);
  if (s) return s;
  ul__bind_group_data *bd = &(*out)->u.bg;
  /* Found good before, and since then no object was destroyed or marked
   * lost and no loss moved the epoch (a rebuild's unrestored and unbuilt
   * objects come with a new epoch): good still. */
  const ul__res *res = d->res;
  uint64_t gen = ul__obj_state_gen(d);
  if (bd->good && bd->good_gen == gen && bd->good_epoch == d->epoch) return UL_OK;
  bd->good = false;
  for (uint32_t i = 0; i < bd->count; i++) {
    const ul__bg_entry *e = &bd->entries[i];
    ul__obj *r;
    const char *kind = e->buffer ? "buffer" : e->view ? "texture view" : "sampler";
    uint32_t rid = e->buffer ? e->buffer : e->view ? e->view : e->sampler;
    ul__obj_kind k = e->buffer ? UL__OBJ_BUFFER : e->view ? UL__OBJ_VIEW : UL__OBJ_SAMPLER;
    if ((s = ul__obj_get(d, rid, k, "submit", &r)) == UL_ERR_DEVICE_LOST) return s; /* lost while made again */
    if (s)
      return ul__fail(UL_ERR_INVALID_HANDLE,
                      "submit: bind group '%s' refers to a destroyed %s (binding %u)",
                      (*out)->label ? (*out)->label : "", kind, e->binding);
    /* Its contents, if a rebuild left them for this use. */
    if (k == UL__OBJ_BUFFER && (s = ul__obj_contents(d, r))) return s;
    /* A view's contents are its texture's. */
    if (k == UL__OBJ_VIEW) {
      ul__obj *t = ul__obj_find(d, r->u.view.texture, UL__OBJ_TEXTURE);
      if (t && (s = ul__obj_contents(d, t))) return s;
      if (t && t->state == UL__OBJ_LOST) r = t;
    }
    /* The replay runs what was submitted before the contents were lost. */
    if (r->state == UL__OBJ_LOST && !d->res->rebuilding)
      return ul__fail(UL_ERR_DEVICE_LOST,
                      "submit: bind group '%s' binds %s '%s' (binding %u), whose contents were lost in a device loss%s",
                      (*out)->label ? (*out)->label : "", kind, r->label ? r->label : "", e->binding,
                      ul__obj_lost_why(r));
  }
  /* Not kept from a replay's or a realization's laxer lookups, nor when the
   * walk itself changed the generation (a restore that lost something). */
  if (!res->rebuilding && !res->realizing && !res->lookup_plain && ul__obj_state_gen(d) == gen) {
    bd->good = true;
    bd->good_gen = gen;
    bd->good_epoch = d->epoch;
  }
  return UL_OK;
}

/* A buffer or texture an op names directly: live, and not LOST. */
static ul_status op_object(ul_device *d, uint32_t id, ul__obj_kind kind, const char *what) {
  ul__obj *o;
  ul_status s = ul__obj_get(d, id, kind, what, &o);
  if (!s) s = ul__obj_contents(d, o); /* if a rebuild left them for this use */
  if (!s && o->state == UL__OBJ_LOST && !d->res->rebuilding)
    s = ul__fail(UL_ERR_DEVICE_LOST, "%s: %s '%s' lost its contents in a device loss%s", what,
                 ul__obj_kind_name(kind), o->label ? o->label : "", ul__obj_lost_why(o));
  return s;
}
#define op_buffer(d, id, what) op_object(d, id, UL__OBJ_BUFFER, what)
#define op_texture(d, id, what) op_object(d, id, UL__OBJ_TEXTURE, what)

/* The layout entry of `binding` in a bind group's layout, when the layout
 * is an explicit one (NULL for a pipeline's derived layout). */
static const WGPUBindGroupLayoutEntry *layout_entry(ul_device *d, const ul__bind_group_data *bd, uint32_t binding) {
  ul__obj *l = bd->layout ? ul__obj_find(d, bd->layout, UL__OBJ_BGL) : NULL;
  for (uint32_t i = 0; l && i < l->u.bgl.count; i++)
    if (l->u.bgl.entries[i].binding == binding) return &l->u.bgl.entries[i];
  return NULL;
}

/* What a bind group entry may let a kernel write: its buffer, or the
 * texture of its view (a storage texture). NULL for a sampler, for what an
 * explicit layout binds read-only (uniform, read-only storage, sampled
 * texture, read-only storage texture), and for a read_write binding that
 * the pipeline's module never writes (wgsl.c; `pipeline` 0: unknown). */
static ul__obj *entry_target(ul_device *d, const ul__bind_group_data *bd, const ul__bg_entry *e, uint32_t pipeline,
                             uint32_t group) {
  const WGPUBindGroupLayoutEntry *le = layout_entry(d, bd, e->binding);
  if (pipeline) {
    ul__obj *p = ul__obj_find(d, pipeline, UL__OBJ_PIPELINE);
    ul__obj *sh = p ? ul__obj_find(d, p->u.pipe.shader, UL__OBJ_SHADER) : NULL;
    if (sh && !ul__wgsl_may_write(sh->u.sh.writes, group, e->binding)) return NULL;
  }
  if (e->buffer) {
    if (le && (le->buffer.type == WGPUBufferBindingType_Uniform ||
               le->buffer.type == WGPUBufferBindingType_ReadOnlyStorage))
      return NULL;
    return ul__obj_find(d, e->buffer, UL__OBJ_BUFFER);
  }
  if (le && le->storageTexture.access != WGPUStorageTextureAccess_WriteOnly &&
      le->storageTexture.access != WGPUStorageTextureAccess_ReadWrite)
    return NULL;
  ul__obj *v = e->view ? ul__obj_find(d, e->view, UL__OBJ_VIEW) : NULL;
  return v ? ul__obj_find(d, v->u.view.texture, UL__OBJ_TEXTURE) : NULL;
}

/* What a bind group entry lets a kernel read: its buffer or its view's
 * texture (NULL for a sampler). */
static ul__obj *entry_source(ul_device *d, const ul__bg_entry *e) {
  if (e->buffer) return ul__obj_find(d, e->buffer, UL__OBJ_BUFFER);
  ul__obj *v = e->view ? ul__obj_find(d, e->view, UL__OBJ_VIEW) : NULL;
  return v ? ul__obj_find(d, v->u.view.texture, UL__OBJ_TEXTURE) : NULL;
}

static bool is_lost(const ul__obj *o) { return o && o->state == UL__OBJ_LOST; }

/* LOST, once contents a rebuild left for their first use are put back
 * (which may find that a source went: the replay reads it now). A loss
 * meanwhile is left for the replay's own check. */
static bool read_lost(ul_device *d, ul__obj *o) {
  if (o && o->unrestored) ul__obj_contents(d, o);
  return is_lost(o);
}

static void make_lost_why(ul__obj *o, const char *why) {
  if (o && (o->kind == UL__OBJ_BUFFER || o->kind == UL__OBJ_TEXTURE)) ul__obj_mark_lost(o, why);
}

/* Calls fn for every buffer and texture the op may write. */
static void for_written_group(ul_device *d, const ul__op *op, uint32_t k,
                              void (*fn)(ul_device *, ul__obj *, const char *), const char *why) {
  ul__obj *g = ul__obj_find(d, op->groups[k], UL__OBJ_BIND_GROUP);
  for (uint32_t e = 0; g && e < g->u.bg.count; e++) {
    ul__obj *t = entry_target(d, &g->u.bg, &g->u.bg.entries[e], op->pipeline, k);
    if (t) fn(d, t, why);
  }
}

/* What an op's copies write (not its bind groups). */
static void for_written_copy(ul_device *d, const ul__op *op, void (*fn)(ul_device *, ul__obj *, const char *),
                             const char *why) {
  switch (op->kind) {
  case UL__OP_COPY_BUFFER:
  case UL__OP_CLEAR_BUFFER:
  case UL__OP_COPY_TEXTURE_TO_BUFFER:
  case UL__OP_RESOLVE_QUERY_SET: {
    ul__obj *b = ul__obj_find(d, op->buf_b, UL__OBJ_BUFFER);
    if (b) fn(d, b, why);
    break;
  }
  case UL__OP_COPY_BUFFER_TO_TEXTURE: {
    ul__obj *t = ul__obj_find(d, op->texture, UL__OBJ_TEXTURE);
    if (t) fn(d, t, why);
    break;
  }
  case UL__OP_COPY_TEXTURE_TO_TEXTURE: {
    ul__obj *t = ul__obj_find(d, op->texture_b, UL__OBJ_TEXTURE);
    if (t) fn(d, t, why);
    break;
  }
  default: break;
  }
}

static void for_written(ul_device *d, const ul__op *op, void (*fn)(ul_device *, ul__obj *, const char *),
                        const char *why) {
  for (uint32_t k = 0; k < op->group_count; k++) for_written_group(d, op, k, fn, why);
  for_written_copy(d, op, fn, why);
}

static void lost_fn(ul_device *d, ul__obj *o, const char *why) {
  UL__UNUSED(d);
  make_lost_why(o, why);
}

void ul__cmd_mark_written_lost(ul_device *d, const ul__op *ops, uint32_t n, const char *why) {
  for (uint32_t i = 0; i < n; i++) for_written(d, &ops[i], lost_fn, why);
}

/* The first LOST object the op reads, or NULL. */
static const ul__obj *reads_lost(ul_device *d, const ul__op *op) {
  for (uint32_t k = 0; k < op->group_count; k++) {
    ul__obj *g = ul__obj_find(d, op->groups[k], UL__OBJ_BIND_GROUP);
    for (uint32_t e = 0; g && e < g->u.bg.count; e++) {
      ul__obj *t = entry_source(d, &g->u.bg.entries[e]);
      if (read_lost(d, t)) return t;
    }
  }
  ul__obj *x = NULL;
  switch (op->kind) {
  case UL__OP_DISPATCH_INDIRECT:
  case UL__OP_COPY_BUFFER:
  case UL__OP_COPY_BUFFER_TO_TEXTURE: x = ul__obj_find(d, op->buf_a, UL__OBJ_BUFFER); break;
  case UL__OP_COPY_TEXTURE_TO_BUFFER:
  case UL__OP_COPY_TEXTURE_TO_TEXTURE: x = ul__obj_find(d, op->texture, UL__OBJ_TEXTURE); break;
  default: break;
  }
  return read_lost(d, x) ? x : NULL;
}

uint32_t ul__cmd_drop_lost(ul_device *d, ul__op *ops, uint32_t n) {
  uint32_t kept = 0;
  for (uint32_t i = 0; i < n; i++) {
    ul__op *op = &ops[i];
    const ul__obj *lost = reads_lost(d, op);
    if (!lost) {
      ops[kept++] = *op;
      continue;
    }
    char why[256];
    snprintf(why, sizeof why, "the replayed work that wrote it read '%s', which was lost",
             lost->label ? lost->label : "");
    ul__cmd_mark_written_lost(d, op, 1, why);
  }
  return kept;
}

/* Marks a buffer or texture as changed since the last checkpoint. */
static void mark_dirty(ul_device *d, ul__obj *o) {
  if (!o) return;
  ul__obj_note_changed(d, o);
  if (o->kind == UL__OBJ_BUFFER) {
    o->u.buf.dirty = true;
    if (o->u.buf.host_only) {
      /* Written by the GPU: a plain LOG buffer from now on (its last
       * checkpoint's extents stay its restore until the next one). */
      o->u.buf.host_only = false;
      ul__prov_clear(&o->u.buf.prov);
    }
  } else if (o->kind == UL__OBJ_TEXTURE) {
    o->u.tex.dirty = true;
    o->u.tex.written = true;
  }
}

static void dirty_fn(ul_device *d, ul__obj *o, const char *why) {
  UL__UNUSED(why);
  mark_dirty(d, o);
}

/* The bind groups whose writes a list's marks have made already, with
 * the pipeline and the slot (which tell the bindings a shader writes): a
 * program that sets the same few groups before each of its dispatches has
 * each marked once a list, not once a dispatch. A ring of the last few; a
 * miss only does the work again. */
#define SEEN_CAP 8
typedef struct seen_groups {
  struct {
    uint32_t group, pipeline, slot;
  } e[SEEN_CAP];
  uint32_t n, next;
} seen_groups;

static bool seen_add(seen_groups *s, uint32_t group, uint32_t pipeline, uint32_t slot) {
  for (uint32_t i = 0; i < s->n; i++)
    if (s->e[i].group == group && s->e[i].pipeline == pipeline && s->e[i].slot == slot) return true;
  s->e[s->next].group = group;
  s->e[s->next].pipeline = pipeline;
  s->e[s->next].slot = slot;
  s->next = (s->next + 1) % SEEN_CAP;
  if (s->n < SEEN_CAP) s->n++;
  return false;
}

void ul__cmd_mark_written(ul_device *d, const ul__op *ops, uint32_t n) {
  seen_groups seen = {.n = 0};
  for (uint32_t i = 0; i < n; i++) {
    const ul__op *op = &ops[i];
    for (uint32_t k = 0; k < op->group_count; k++)
      if (op->groups[k] && !seen_add(&seen, op->groups[k], op->pipeline, k)) for_written_group(d, op, k, dirty_fn, NULL);
    for_written_copy(d, op, dirty_fn, NULL);
  }
}

ul_status ul__cmd_check(ul_device *d, const ul__op *ops, uint32_t n) {
  /* The pipeline of the op before, found good, is good again while no
   * object was destroyed or marked lost since (the state generation); bind
   * groups keep what their check found themselves (check_group). */
  uint32_t good_pipeline = 0;
  uint64_t good_gen = 0;
  for (uint32_t i = 0; i < n; i++) {
    const ul__op *op = &ops[i];
    ul__obj *o;
    ul_status s = UL_OK;
    switch (op->kind) {
    case UL__OP_DISPATCH_INDIRECT:
      if ((s = op_buffer(d, op->buf_a, "submit: indirect arguments"))) return s;
      /* fallthrough */
    case UL__OP_DISPATCH: {
      uint64_t gen = ul__obj_state_gen(d);
      if (!op->pipeline || op->pipeline != good_pipeline || gen != good_gen) {
        if ((s = ul__obj_get(d, op->pipeline, UL__OBJ_PIPELINE, "submit", &o))) return s;
        good_pipeline = op->pipeline;
        good_gen = gen;
      }
      for (uint32_t g = 0; g < op->group_count; g++)
        if (op->groups[g] && (s = check_group(d, op->groups[g], &o))) return s;
      break;
    }
    case UL__OP_COPY_BUFFER:
      if ((s = op_buffer(d, op->buf_a, "submit: copy source"))) return s;
      /* fallthrough */
    case UL__OP_CLEAR_BUFFER:
      if ((s = op_buffer(d, op->buf_b, "submit: copy destination"))) return s;
      break;
    case UL__OP_COPY_BUFFER_TO_TEXTURE:
      if ((s = op_buffer(d, op->buf_a, "submit: copy source"))) return s;
      if ((s = op_texture(d, op->texture, "submit: copy destination"))) return s;
      break;
    case UL__OP_COPY_TEXTURE_TO_BUFFER:
      if ((s = op_texture(d, op->texture, "submit: copy source"))) return s;
      if ((s = op_buffer(d, op->buf_b, "submit: copy destination"))) return s;
      break;
    case UL__OP_COPY_TEXTURE_TO_TEXTURE:
      if ((s = op_texture(d, op->texture, "submit: copy source"))) return s;
      if ((s = op_texture(d, op->texture_b, "submit: copy destination"))) return s;
      break;
    case UL__OP_RESOLVE_QUERY_SET:
      if ((s = ul__obj_get(d, op->query_set, UL__OBJ_QUERY_SET, "submit: resolve", &o))) return s;
      if ((s = op_buffer(d, op->buf_b, "submit: resolve destination"))) return s;
      break;
    case UL__OP_PASS_BEGIN:
      if (op->query_set && (s = ul__obj_get(d, op->query_set, UL__OBJ_QUERY_SET, "submit: timestamps", &o))) return s;
      break;
    case UL__OP_WRITE_TIMESTAMP:
      if ((s = ul__obj_get(d, op->query_set, UL__OBJ_QUERY_SET, "submit: timestamp", &o))) return s;
      break;
    case UL__OP_PASS_END: break;
    }
  }
  return UL_OK;
}

static void *native_of(ul_device *d, uint32_t id, ul__obj_kind kind) {
  ul__obj *o;
  return ul__obj_get(d, id, kind, "submit", &o) ? NULL : o->native;
}

static WGPUTexelCopyTextureInfo texture_side(ul_device *d, uint32_t id, uint32_t mip, const uint32_t origin[3],
                                             uint32_t aspect) {
  WGPUTexelCopyTextureInfo t = {native_of(d, id, UL__OBJ_TEXTURE), mip, {origin[0], origin[1], origin[2]},
                                aspect ? aspect : WGPUTextureAspect_All};
  return t;
}

ul_status ul__cmd_encode(ul_device *d, const ul__op *ops, uint32_t n, const char *label, bool mark_written,
                         WGPUCommandBuffer *out) {
  const ul__wgpu *w = d->wgpu;
  *out = NULL;
  /* Check everything first: nothing is encoded for a list with a bad op. */
  ul_status s = ul__cmd_check(d, ops, n);
  if (s) return s;
  WGPUCommandEncoderDescriptor ed = {NULL, ul__sv(label)};
  WGPUCommandEncoder e = w->DeviceCreateCommandEncoder(d->device, &ed);
  WGPUComputePassEncoder pass = NULL;
  bool explicit_pass = false; /* opened by a PASS_BEGIN: only its PASS_END closes it */
  /* What the pass has bound, so unchanged state is not set again. */
  void *bound_pipeline = NULL;
  void *bound_groups[UL_MAX_BIND_GROUPS] = {0};
  for (uint32_t i = 0; i < n; i++) {
    const ul__op *op = &ops[i];
    bool dispatch = op->kind == UL__OP_DISPATCH || op->kind == UL__OP_DISPATCH_INDIRECT;
    bool in_pass_op = dispatch || (op->kind == UL__OP_WRITE_TIMESTAMP && pass);
    if (pass && (op->kind == UL__OP_PASS_BEGIN || op->kind == UL__OP_PASS_END || (!in_pass_op && !explicit_pass))) {
      w->ComputePassEncoderEnd(pass);
      w->ComputePassEncoderRelease(pass);
      pass = NULL;
      explicit_pass = false;
    }
    if (op->kind == UL__OP_PASS_BEGIN) {
      WGPUPassTimestampWrites tw = {NULL, NULL, op->query_first, op->query_count};
      WGPUComputePassDescriptor pd = {NULL, {NULL, 0}, NULL};
      if (op->query_set) {
        tw.querySet = native_of(d, op->query_set, UL__OBJ_QUERY_SET);
        pd.timestampWrites = &tw;
      }
      pass = w->CommandEncoderBeginComputePass(e, &pd);
      explicit_pass = true;
      bound_pipeline = NULL;
      memset(bound_groups, 0, sizeof bound_groups);
      continue;
    }
    if (op->kind == UL__OP_PASS_END) continue;
    if (dispatch) {
      if (!pass) {
        pass = w->CommandEncoderBeginComputePass(e, NULL);
        bound_pipeline = NULL;
        memset(bound_groups, 0, sizeof bound_groups);
      }
      void *pipe = native_of(d, op->pipeline, UL__OBJ_PIPELINE);
      if (pipe != bound_pipeline) {
        w->ComputePassEncoderSetPipeline(pass, pipe);
        bound_pipeline = pipe;
      }
      uint32_t dyn_at = 0;
      for (uint32_t g = 0; g < op->group_count; g++) {
        if (!op->groups[g]) continue;
        ul__obj *o2;
        ul__obj_get(d, op->groups[g], UL__OBJ_BIND_GROUP, "submit", &o2);
        uint32_t nd = op->dyn_count[g];
        if (o2->native != bound_groups[g] || nd) {
          w->ComputePassEncoderSetBindGroup(pass, g, o2->native, nd, nd ? &op->dyn[dyn_at] : NULL);
          bound_groups[g] = o2->native;
        }
        dyn_at += nd;
      }
      if (op->kind == UL__OP_DISPATCH)
        w->ComputePassEncoderDispatchWorkgroups(pass, op->x, op->y, op->z);
      else
        w->ComputePassEncoderDispatchWorkgroupsIndirect(pass, native_of(d, op->buf_a, UL__OBJ_BUFFER), op->off_a);
      if (mark_written) ul__cmd_mark_written(d, op, 1);
      continue;
    }
    switch (op->kind) {
    case UL__OP_COPY_BUFFER:
      w->CommandEncoderCopyBufferToBuffer(e, native_of(d, op->buf_a, UL__OBJ_BUFFER), op->off_a,
                                          native_of(d, op->buf_b, UL__OBJ_BUFFER), op->off_b, op->size);
      break;
    case UL__OP_CLEAR_BUFFER:
      w->CommandEncoderClearBuffer(e, native_of(d, op->buf_b, UL__OBJ_BUFFER), op->off_b,
                                   op->size ? op->size : WGPU_WHOLE_SIZE);
      break;
    case UL__OP_COPY_BUFFER_TO_TEXTURE: {
      WGPUTexelCopyBufferInfo src = {{op->off_a, op->bytes_per_row, op->rows_per_image ? op->rows_per_image : op->y},
                                     native_of(d, op->buf_a, UL__OBJ_BUFFER)};
      WGPUTexelCopyTextureInfo dst = texture_side(d, op->texture, op->mip_a, op->origin_a, op->aspect_a);
      WGPUExtent3D ext = {op->x, op->y, op->z};
      w->CommandEncoderCopyBufferToTexture(e, &src, &dst, &ext);
      break;
    }
    case UL__OP_COPY_TEXTURE_TO_BUFFER: {
      WGPUTexelCopyTextureInfo src = texture_side(d, op->texture, op->mip_a, op->origin_a, op->aspect_a);
      WGPUTexelCopyBufferInfo dst = {{op->off_b, op->bytes_per_row, op->rows_per_image ? op->rows_per_image : op->y},
                                     native_of(d, op->buf_b, UL__OBJ_BUFFER)};
      WGPUExtent3D ext = {op->x, op->y, op->z};
      w->CommandEncoderCopyTextureToBuffer(e, &src, &dst, &ext);
      break;
    }
    case UL__OP_COPY_TEXTURE_TO_TEXTURE: {
      WGPUTexelCopyTextureInfo src = texture_side(d, op->texture, op->mip_a, op->origin_a, op->aspect_a);
      WGPUTexelCopyTextureInfo dst = texture_side(d, op->texture_b, op->mip_b, op->origin_b, op->aspect_b);
      WGPUExtent3D ext = {op->x, op->y, op->z};
      w->CommandEncoderCopyTextureToTexture(e, &src, &dst, &ext);
      break;
    }
    case UL__OP_RESOLVE_QUERY_SET:
      w->CommandEncoderResolveQuerySet(e, native_of(d, op->query_set, UL__OBJ_QUERY_SET), op->query_first,
                                       op->query_count, native_of(d, op->buf_b, UL__OBJ_BUFFER), op->off_b);
      break;
    case UL__OP_WRITE_TIMESTAMP:
      if (pass && w->ComputePassEncoderWriteTimestamp)
        w->ComputePassEncoderWriteTimestamp(pass, native_of(d, op->query_set, UL__OBJ_QUERY_SET), op->query_first);
      else if (w->CommandEncoderWriteTimestamp)
        w->CommandEncoderWriteTimestamp(e, native_of(d, op->query_set, UL__OBJ_QUERY_SET), op->query_first);
      break;
    default: break;
    }
    if (mark_written) ul__cmd_mark_written(d, op, 1);
  }
  if (pass) {
    w->ComputePassEncoderEnd(pass);
    w->ComputePassEncoderRelease(pass);
  }
  *out = w->CommandEncoderFinish(e, NULL);
  w->CommandEncoderRelease(e);
  return UL_OK;
}

/* Builds the cache after a successful full encode (under d->mu). */
static void cache_build(ul_device *d, ul_cmd *c) {
  ul__enc_cache *k = &c->cache;
  cache_free(k);
  uint32_t n = c->count;
  for (uint32_t i = 0; i < n; i++)
    if (c->ops[i].kind != UL__OP_DISPATCH) return;
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t g = 0; g < c->ops[i].group_count; g++)
      if (c->ops[i].dyn_count[g] || !c->ops[i].groups[g]) return;
  k->pipe = malloc(sizeof *k->pipe * (n ? n : 1));
  k->group = calloc((size_t)(n ? n : 1) * UL_MAX_BIND_GROUPS, sizeof *k->group);
  k->dirty = malloc(sizeof *k->dirty * 16);
  uint32_t dcap = 16;
  if (!k->pipe || !k->group || !k->dirty) {
    cache_free(k);
    return;
  }
  for (uint32_t i = 0; i < n; i++) {
    const ul__op *op = &c->ops[i];
    ul__obj *o;
    if (ul__obj_get(d, op->pipeline, UL__OBJ_PIPELINE, "submit", &o)) goto fail;
    k->pipe[i] = o->native;
    for (uint32_t g = 0; g < op->group_count; g++) {
      if (ul__obj_get(d, op->groups[g], UL__OBJ_BIND_GROUP, "submit", &o)) goto fail;
      k->group[(size_t)i * UL_MAX_BIND_GROUPS + g] = o->native;
      const ul__bind_group_data *bd = &o->u.bg;
      for (uint32_t e = 0; e < bd->count; e++) {
        ul__obj *b = entry_target(d, bd, &bd->entries[e], op->pipeline, g);
        if (!b) continue;
        bool seen = false;
        for (uint32_t x = 0; x < k->ndirty && !seen; x++) seen = k->dirty[x] == b;
        if (seen) continue;
        if (k->ndirty == dcap) {
          ul__obj **nd = realloc(k->dirty, sizeof *nd * dcap * 2);
          if (!nd) goto fail;
          k->dirty = nd;
          dcap *= 2;
        }
        k->dirty[k->ndirty++] = b;
      }
    }
  }
  k->version = c->version;
  k->epoch = d->epoch;
  k->state_gen = ul__obj_state_gen(d);
  k->valid = true;
  return;
fail:
  cache_free(k);
}

/* Whether the cache still describes the list on the current device. */
static bool cache_holds(ul_device *d, const ul_cmd *c) {
  const ul__enc_cache *k = &c->cache;
  return k->valid && k->version == c->version && k->epoch == d->epoch && k->state_gen == ul__obj_state_gen(d);
}

/* Encodes from the cache when it still holds (under d->mu). */
static bool cache_encode(ul_device *d, ul_cmd *c, WGPUCommandBuffer *out) {
  ul__enc_cache *k = &c->cache;
  if (!cache_holds(d, c)) return false;
  const ul__wgpu *w = d->wgpu;
  WGPUCommandEncoderDescriptor ed = {NULL, ul__sv(c->label)};
  WGPUCommandEncoder e = w->DeviceCreateCommandEncoder(d->device, &ed);
  WGPUComputePassEncoder pass = w->CommandEncoderBeginComputePass(e, NULL);
  void *bound_pipe = NULL;
  void *bound[UL_MAX_BIND_GROUPS] = {0};
  for (uint32_t i = 0; i < c->count; i++) {
    const ul__op *op = &c->ops[i];
    if (k->pipe[i] != bound_pipe) {
      w->ComputePassEncoderSetPipeline(pass, k->pipe[i]);
      bound_pipe = k->pipe[i];
    }
    for (uint32_t g = 0; g < op->group_count; g++) {
      void *bg = k->group[(size_t)i * UL_MAX_BIND_GROUPS + g];
      if (bg != bound[g]) {
        w->ComputePassEncoderSetBindGroup(pass, g, bg, 0, NULL);
        bound[g] = bg;
      }
    }
    w->ComputePassEncoderDispatchWorkgroups(pass, op->x, op->y, op->z);
  }
  w->ComputePassEncoderEnd(pass);
  w->ComputePassEncoderRelease(pass);
  for (uint32_t x = 0; x < k->ndirty; x++) mark_dirty(d, k->dirty[x]);
  *out = w->CommandEncoderFinish(e, NULL);
  w->CommandEncoderRelease(e);
  return true;
}

bool ul__ops_first_use(ul_device *d, const ul__op *ops, uint32_t n) {
  bool first_use = false;
  for (uint32_t i = 0; i < n; i++) {
    ul__obj *po;
    if ((ops[i].kind == UL__OP_DISPATCH || ops[i].kind == UL__OP_DISPATCH_INDIRECT) &&
        !ul__obj_get(d, ops[i].pipeline, UL__OBJ_PIPELINE, "submit", &po) && !po->u.pipe.first_use_done) {
      po->u.pipe.first_use_done = true;
      first_use = true;
    }
  }
  return first_use;
}

bool ul__cmd_first_use(ul_device *d, ul_cmd *c) {
  /* A list whose encode cache holds was submitted before: none is new. */
  return ul__ops_first_use(d, c->ops, cache_holds(d, c) ? 0 : c->count);
}

void ul__ops_pipelines(ul_device *d, const ul__op *ops, uint32_t n, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = 0;
  uint32_t seen[8];
  int nseen = 0;
  for (uint32_t i = 0; i < n; i++) {
    const ul__op *op = &ops[i];
    if (op->kind != UL__OP_DISPATCH && op->kind != UL__OP_DISPATCH_INDIRECT) continue;
    bool dup = false;
    for (int k = 0; k < nseen; k++) dup |= seen[k] == op->pipeline;
    if (dup) continue;
    if (nseen < 8) seen[nseen++] = op->pipeline;
    ul__obj *p = ul__obj_find(d, op->pipeline, UL__OBJ_PIPELINE);
    const char *name = p && p->label ? p->label : "unlabeled";
    /* Copied, not printed: this runs at every submit. */
    size_t sep = len ? 2 : 0, k = strlen(name);
    if (len + sep + k >= cap) {
      /* What fits, cut at a UTF-8 boundary (name[fit] is the first byte
       * left out: a continuation byte there would split a character). */
      size_t room = cap - 1 - len, s = sep < room ? sep : room, fit = room - s;
      while (fit > 0 && ((unsigned char)name[fit] & 0xC0) == 0x80) fit--;
      memcpy(buf + len, ", ", s);
      memcpy(buf + len + s, name, fit);
      buf[len + s + fit] = 0;
      break;
    }
    memcpy(buf + len, ", ", sep);
    memcpy(buf + len + sep, name, k + 1);
    len += sep + k;
  }
}

const char *ul__cmd_pipelines(ul_device *d, ul_cmd *c) {
  if (c->pipes_version == c->version + 1) return c->pipes;
  ul__ops_pipelines(d, c->ops, c->count, c->pipes, sizeof c->pipes);
  c->pipes_version = c->version + 1;
  return c->pipes;
}

ul_status ul__cmd_encode_list(ul_device *d, ul_cmd *c, WGPUCommandBuffer *out) {
  /* No error scopes on this hot path: every handle and rule unlost knows
   * was checked above and while recording; what the implementation still
   * rejects arrives as an uncaptured error during the encode, which
   * refuses the submission (nothing of it is submitted or logged). */
  WGPUCommandBuffer cb = NULL;
  ul_status s;
  uint64_t errors = atomic_load(&d->uncaptured_errors);
  if (cache_encode(d, c, &cb)) {
    s = UL_OK;
  } else {
    s = ul__cmd_encode(d, c->ops, c->count, c->label, true, &cb);
    if (!s) cache_build(d, c);
  }
  char why[256];
  if (!s && !ul__device_loss_pending(d) && ul__device_uncaptured_since(d, errors, why, sizeof why)) {
    c->cache.valid = false;
    s = ul__fail(UL_ERR_VALIDATION, "the implementation rejected the list: %s", why);
  }
  if (!s && ul__device_loss_pending(d)) s = ul__fail(UL_ERR_DEVICE_LOST, "lost while encoding");
  if (s && cb) {
    d->wgpu->CommandBufferRelease(cb);
    cb = NULL;
  }
  *out = cb;
  return s;
}
