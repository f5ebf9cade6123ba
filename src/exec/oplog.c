/* The operation log: writes and submissions since the last checkpoint, in
 * queue order, replayed after a rebuild. */
#include "exec/oplog.h"
#include "exec/staging.h"

typedef struct ul__entry {
  bool is_write;
  uint32_t obj;            /* write: the buffer */
  uint64_t offset;
  uint64_t size;           /* write: bytes; submit: op count */
  void *data;              /* write: the bytes; submit: the ops */
} ul__entry;

typedef struct ul__oplog {
  ul__entry *e;
  uint32_t count, cap;
  uint64_t bytes;
  uint64_t max_bytes;      /* checkpoint when the log holds more */
  uint32_t max_entries;
  uint64_t checkpoints;
  bool replaying;
} ul__oplog;

ul_status ul__oplog_create(ul_device *d) {
  ul__oplog *l = calloc(1, sizeof *l);
  if (!l) return ul__fail(UL_ERR_OUT_OF_MEMORY, "operation log: out of host memory");
  const char *mb = getenv("UNLOST_LOG_MAX_MB");
  l->max_bytes = (mb && atoi(mb) > 0 ? (uint64_t)atoi(mb) : 64) << 20;
  l->max_entries = 1024;
  d->res->log = l;
  return UL_OK;
}

static void truncate_log(ul__oplog *l) {
  for (uint32_t i = 0; i < l->count; i++) free(l->e[i].data);
  l->count = 0;
  l->bytes = 0;
}

void ul__oplog_destroy(ul_device *d) {
  ul__oplog *l = d->res ? d->res->log : NULL;
  if (!l) return;
  truncate_log(l);
  free(l->e);
  free(l);
  d->res->log = NULL;
}

static ul_status append(ul__oplog *l, ul__entry e, uint64_t bytes) {
  if (l->count == l->cap) {
    uint32_t ncap = l->cap ? l->cap * 2 : 64;
    ul__entry *n = realloc(l->e, sizeof *n * ncap);
    if (!n) return ul__fail(UL_ERR_OUT_OF_MEMORY, "operation log: out of host memory");
    l->e = n;
    l->cap = ncap;
  }
  l->e[l->count++] = e;
  l->bytes += bytes + sizeof e;
  return UL_OK;
}

ul_status ul__oplog_write(ul_device *d, ul__obj *o, uint64_t offset, const void *data,
                          uint64_t size) {
  ul__oplog *l = d->res->log;
  o->u.buf.dirty = true;
  if (l->replaying || d->res->restoring) return UL_OK;
  void *copy = malloc((size_t)size);
  if (!copy) return ul__fail(UL_ERR_OUT_OF_MEMORY, "operation log: no host memory for a write of %llu bytes",
                             (unsigned long long)size);
  memcpy(copy, data, (size_t)size);
  ul__entry e = {true, o->id, offset, size, copy};
  ul_status s = append(l, e, size);
  if (s) free(copy);
  return s;
}

ul_status ul__oplog_submit(ul_device *d, const ul__op *ops, uint32_t n) {
  ul__oplog *l = d->res->log;
  /* Work a restore callback submits rebuilds state the callback can build
   * again: not logged, or the replay would run it a second time. */
  if (l->replaying || d->res->restoring || n == 0) return UL_OK;
  void *copy = malloc(sizeof *ops * n);
  if (!copy) return ul__fail(UL_ERR_OUT_OF_MEMORY, "operation log: out of host memory");
  memcpy(copy, ops, sizeof *ops * n);
  ul__entry e = {false, 0, 0, n, copy};
  ul_status s = append(l, e, sizeof *ops * n);
  if (s) free(copy);
  return s;
}

static bool op_names(const ul__op *op, uint32_t id) {
  if (op->buf_a == id || op->buf_b == id || op->pipeline == id || op->texture == id) return true;
  for (uint32_t g = 0; g < op->group_count; g++)
    if (op->groups[g] == id) return true;
  return false;
}

/* Whether a replay of the log could need `o`: it is named by an entry, or
 * it is something a named object is built from (buffers and views in bind
 * groups, shaders and layouts of pipelines). The second is decided
 * conservatively: any object of those kinds while the log names anything. */
bool ul__oplog_names(ul_device *d, ul__obj *o) {
  ul__oplog *l = d->res->log;
  if (!l || l->count == 0) return false;
  if (o->kind != UL__OBJ_BIND_GROUP && o->kind != UL__OBJ_PIPELINE) return true;
  for (uint32_t i = 0; i < l->count; i++) {
    const ul__entry *e = &l->e[i];
    if (e->is_write) {
      if (e->obj == o->id) return true;
      continue;
    }
    const ul__op *ops = e->data;
    for (uint64_t k = 0; k < e->size; k++)
      if (op_names(&ops[k], o->id)) return true;
  }
  return false;
}

ul_status ul__oplog_replay(ul_device *d) {
  ul__oplog *l = d->res->log;
  l->replaying = true;
  ul_status s = UL_OK;
  for (uint32_t i = 0; i < l->count && !s; i++) {
    const ul__entry *e = &l->e[i];
    if (e->is_write) {
      ul__obj *o;
      if (ul__obj_get(d, e->obj, UL__OBJ_BUFFER, "replay write", &o)) {
        s = ul__wrap(UL_ERR_INTERNAL, "replay write");
        break;
      }
      if (!o->native) continue; /* being created: its creator writes it */
      s = ul__buffer_upload(d, o, e->offset, e->data, e->size);
    } else {
      WGPUCommandBuffer cb;
      s = ul__cmd_encode(d, e->data, (uint32_t)e->size, "replay", &cb);
      if (!s) {
        ul__queue_submit(d, cb);
        d->wgpu->CommandBufferRelease(cb);
      }
    }
    if (!s && ul__device_loss_pending(d)) s = ul__fail(UL_ERR_DEVICE_LOST, "lost during replay");
  }
  l->replaying = false;
  return s ? ul__wrap(s, "replay the operation log (%u entries)", l->count) : UL_OK;
}

ul_status ul__oplog_checkpoint(ul_device *d) {
  ul__oplog *l = d->res->log;
  ul__res *r = d->res;
  if (l->count == 0) {
    ul__staging_trim(d);
    return UL_OK;
  }
  ul_status s = UL_OK;
  for (uint32_t i = 1; i < r->next_unused && i < r->cap && !s; i++) {
    ul__obj *o = r->slots[i];
    if (!o || o->kind != UL__OBJ_BUFFER || o->pending || o->destroyed) continue;
    ul__buffer_data *b = &o->u.buf;
    if (b->restore != UL_RESTORE_LOG || !b->dirty || (b->usage & (UL_BUFFER_MAP_READ | UL_BUFFER_MAP_WRITE)))
      continue;
    if (!b->checkpoint && !(b->checkpoint = malloc((size_t)b->size)))
      return ul__fail(UL_ERR_OUT_OF_MEMORY, "checkpoint '%s': no host memory for %llu bytes",
                      o->label ? o->label : "", (unsigned long long)b->size);
    s = ul__buffer_download(d, o, 0, b->checkpoint, b->size, 60000000000ull);
    if (!s) b->dirty = false;
  }
  if (s) return ul__wrap(s, "checkpoint");
  /* SHADOW buffers: the host copy is the checkpoint. */
  for (uint32_t i = 1; i < r->next_unused && i < r->cap; i++) {
    ul__obj *o = r->slots[i];
    if (o && o->kind == UL__OBJ_BUFFER && !o->pending && o->u.buf.restore == UL_RESTORE_SHADOW &&
        o->u.buf.checkpoint && o->u.buf.shadow)
      memcpy(o->u.buf.checkpoint, o->u.buf.shadow, (size_t)o->u.buf.size);
  }
  truncate_log(l);
  ul__obj_free_deferred(d);
  ul__staging_trim(d);
  l->checkpoints++;
  return UL_OK;
}

ul_status ul__oplog_maybe_checkpoint(ul_device *d) {
  ul__oplog *l = d->res->log;
  if (l->bytes <= l->max_bytes && l->count <= l->max_entries) return UL_OK;
  return ul__oplog_checkpoint(d);
}

uint64_t ul__oplog_bytes(ul_device *d) { return d->res && d->res->log ? d->res->log->bytes : 0; }
