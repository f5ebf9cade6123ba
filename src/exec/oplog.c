/* The operation log: writes, submissions and reads since the last
 * checkpoint, in queue order, replayed after a rebuild. */
#include "exec/oplog.h"
#include "exec/read.h"
#include "core/transfer.h"

typedef enum ul__entry_kind {
  UL__ENTRY_WRITE = 0,     /* a buffer write */
  UL__ENTRY_SUBMIT,
  UL__ENTRY_READ,
  UL__ENTRY_TEXTURE_WRITE, /* data: the region (UL__TR_WORDS u32), then the bytes */
  UL__ENTRY_WRITE_FILE,    /* a buffer write of a file's bytes; data: a file_write */
} ul__entry_kind;

typedef struct ul__entry {
  ul__entry_kind kind;
  uint32_t obj;            /* write: the buffer */
  uint64_t offset;         /* write: where; read: the read's id */
  uint64_t size;           /* write: bytes; submit: op count */
  void *data;              /* write: the bytes; submit: the ops */
} ul__entry;

/* A write whose bytes lie in a file (no copy of them is kept). */
typedef struct file_write {
  ul__src_file *file;
  uint64_t file_off, hash;
} file_write;

typedef struct ul__oplog {
  ul__entry *e;
  uint32_t count, cap;
  uint64_t bytes;
  uint64_t max_bytes;      /* checkpoint when the log holds more */
  uint32_t max_entries;
  uint64_t checkpoints;
  uint64_t partial;        /* of them, commits of asynchronous checkpoints (a prefix dropped) */
  /* One more each time the log is emptied: a bind group or pipeline whose
   * log_gen is this one was named by an entry since. */
  uint64_t gen;
  /* The oldest generation an entry still in the log may have marked: a
   * prefix dropped (ul__oplog_truncate_before) raises it. */
  uint64_t low_gen;
  bool replaying;
  /* The checkpoint under way (src/recover/snapshot.c owns it): copies
   * taken at a place in this log, kept across losses while valid. */
  void *checkpoint;
} ul__oplog;

ul_status ul__oplog_create(ul_device *d) {
  ul__oplog *l = calloc(1, sizeof *l);
  if (!l) return ul__fail(UL_ERR_OUT_OF_MEMORY, "operation log: out of host memory");
  l->max_bytes = ul__opt_number(UL__OPT_LOG_MAX_MB) << 20;
  l->max_entries = 1024;
  l->gen = l->low_gen = 1;
  d->res->log = l;
  d->res->still_needed = ul__oplog_names;
  return UL_OK;
}

static uint64_t entry_free(ul__entry *e) {
  uint64_t bytes = sizeof *e;
  if (e->kind == UL__ENTRY_WRITE_FILE) {
    ul__src_file_unref(((file_write *)e->data)->file);
    bytes += sizeof(file_write);
  } else if (e->kind == UL__ENTRY_SUBMIT) {
    bytes += sizeof(ul__op) * e->size;
  } else if (e->kind != UL__ENTRY_READ) {
    bytes += e->size;
  }
  if (e->kind == UL__ENTRY_WRITE) ul__chunk_unref(e->data);
  else free(e->data);
  return bytes;
}

static void truncate_log(ul__oplog *l) {
  for (uint32_t i = 0; i < l->count; i++) entry_free(&l->e[i]);
  l->count = 0;
  l->bytes = 0;
  l->gen++;
  l->low_gen = l->gen;
}

void ul__oplog_destroy(ul_device *d) {
  ul__oplog *l = d->res ? d->res->log : NULL;
  if (!l) return;
  truncate_log(l);
  free(l->e);
  free(l);
  d->res->log = NULL;
  d->res->still_needed = NULL;
}

static bool past_bound(const ul__oplog *l, uint64_t bytes) {
  if (l->count == 0) return false; /* an empty log takes any one entry */
  return l->bytes + bytes + sizeof(ul__entry) > l->max_bytes || l->count + 1 > l->max_entries;
}

static ul_status append(ul__oplog *l, ul__entry e, uint64_t bytes) {
  /* The bound holds on every path: the public calls make room first (a
   * checkpoint); one that could not is refused here, never logged past it. */
  if (past_bound(l, bytes))
    return ul__fail(UL_ERR_LOG_FULL,
                    "the operation log is full (%u entries, %.1f MiB; its bound: %u entries, %.0f MiB) and no "
                    "checkpoint could commit to empty it; nothing was lost and this call did nothing",
                    l->count, (double)l->bytes / 1048576.0, l->max_entries, (double)l->max_bytes / 1048576.0);
  ul__entry *grown = ul__grow(l->e, l->count, &l->cap, sizeof *l->e, 64);
  if (!grown) return ul__fail(UL_ERR_OUT_OF_MEMORY, "operation log: out of host memory");
  l->e = grown;
  l->e[l->count++] = e;
  l->bytes += bytes + sizeof e;
  return UL_OK;
}

/* Marks `o` as named by the log's current generation: its destroy is
 * deferred until the log is emptied (ul__oplog_names). */
void ul__oplog_name(ul_device *d, ul__obj *o) {
  if (o) o->log_gen = d->res->log->gen;
}

static void name_id(ul_device *d, uint32_t id, ul__obj_kind kind) {
  if (id) ul__oplog_name(d, ul__obj_find(d, id, kind));
}

ul_status ul__oplog_write(ul_device *d, ul__obj *o, uint64_t offset, const void *data,
                          uint64_t size) {
  ul__oplog *l = d->res->log;
  o->u.buf.dirty = true;
  ul__obj_note_changed(d, o);
  if (l->replaying || d->res->restoring) return UL_OK;
  ul__chunk *c = ul__chunk_new(data, size);
  if (!c) return ul__fail(UL_ERR_OUT_OF_MEMORY, "operation log: no host memory for a write of %llu bytes",
                          (unsigned long long)size);
  ul_status s = ul__oplog_write_chunk(d, o, offset, c);
  ul__chunk_unref(c);
  return s;
}

ul_status ul__oplog_write_chunk(ul_device *d, ul__obj *o, uint64_t offset, ul__chunk *c) {
  ul__oplog *l = d->res->log;
  o->u.buf.dirty = true;
  ul__obj_note_changed(d, o);
  if (l->replaying || d->res->restoring) return UL_OK;
  ul__entry e = {UL__ENTRY_WRITE, o->id, offset, c->len, c};
  ul_status s = append(l, e, c->len);
  if (!s) {
    atomic_fetch_add(&c->refs, 1);
    ul__oplog_name(d, o);
  }
  return s;
}

ul_status ul__oplog_write_file(ul_device *d, ul__obj *o, uint64_t offset, uint64_t size, ul__src_file *file,
                               uint64_t file_off, uint64_t hash) {
  ul__oplog *l = d->res->log;
  o->u.buf.dirty = true;
  ul__obj_note_changed(d, o);
  if (l->replaying || d->res->restoring) return UL_OK;
  file_write *w = ul__malloc(sizeof *w);
  if (!w) return ul__fail(UL_ERR_OUT_OF_MEMORY, "operation log: out of host memory");
  atomic_fetch_add(&file->refs, 1);
  *w = (file_write){file, file_off, hash};
  ul__entry e = {UL__ENTRY_WRITE_FILE, o->id, offset, size, w};
  ul_status s = append(l, e, sizeof *w);
  if (s) {
    ul__src_file_unref(file);
    free(w);
  } else {
    ul__oplog_name(d, o);
  }
  return s;
}

ul_status ul__oplog_write_texture(ul_device *d, ul__obj *o, const uint32_t region[UL__TR_WORDS], const void *data,
                                  uint64_t size) {
  ul__oplog *l = d->res->log;
  o->u.tex.dirty = true;
  ul__obj_note_changed(d, o);
  o->u.tex.written = true;
  if (l->replaying || d->res->restoring) return UL_OK;
  uint8_t *copy = ul__malloc((size_t)size + UL__TR_WORDS * sizeof(uint32_t));
  if (!copy) return ul__fail(UL_ERR_OUT_OF_MEMORY, "operation log: no host memory for a texture write of %llu bytes",
                             (unsigned long long)size);
  memcpy(copy, region, UL__TR_WORDS * sizeof(uint32_t));
  memcpy(copy + UL__TR_WORDS * sizeof(uint32_t), data, (size_t)size);
  ul__entry e = {UL__ENTRY_TEXTURE_WRITE, o->id, 0, size, copy};
  ul_status s = append(l, e, size);
  if (s) free(copy);
  else ul__oplog_name(d, o);
  return s;
}

ul_status ul__oplog_read(ul_device *d, uint64_t id, bool *logged) {
  ul__oplog *l = d->res->log;
  *logged = false;
  if (l->replaying || d->res->restoring) return UL_OK;
  ul__entry e = {UL__ENTRY_READ, 0, id, 0, NULL};
  ul_status s = append(l, e, 0);
  *logged = !s;
  return s;
}

void ul__oplog_truncate(ul_device *d) {
  ul__oplog *l = d->res->log;
  truncate_log(l);
  l->checkpoints++;
}

uint64_t ul__oplog_mark(ul_device *d) { return ++d->res->log->gen; }

void ul__oplog_truncate_before(ul_device *d, uint32_t at, uint64_t mark) {
  ul__oplog *l = d->res->log;
  if (at > l->count) at = l->count;
  uint64_t gone = 0;
  for (uint32_t i = 0; i < at; i++) gone += entry_free(&l->e[i]);
  memmove(l->e, l->e + at, sizeof *l->e * (l->count - at));
  l->count -= at;
  /* A submission whose ops were dropped (size 0) counted its bytes when
   * logged: the sum is bounded below. */
  l->bytes = gone < l->bytes ? l->bytes - gone : 0;
  if (l->count == 0) l->bytes = 0;
  l->low_gen = mark;
  l->checkpoints++;
  l->partial++;
}

bool ul__oplog_reads_settled_before(ul_device *d, uint32_t at) {
  const ul__oplog *l = d->res->log;
  for (uint32_t i = 0; i < at && i < l->count; i++)
    if (l->e[i].kind == UL__ENTRY_READ && !ul__read_collect_id(d, l->e[i].offset)) return false;
  return true;
}

bool ul__oplog_would_exceed(ul_device *d, uint64_t bytes) { return past_bound(d->res->log, bytes); }

void ul__oplog_usage(ul_device *d, ul__oplog_fill *out) {
  const ul__oplog *l = d->res->log;
  out->entries = l->count;
  out->bytes = l->bytes;
  out->max_entries = l->max_entries;
  out->max_bytes = l->max_bytes;
}

void **ul__oplog_checkpoint_slot(ul_device *d) { return &d->res->log->checkpoint; }

/* Whether `op` may change `o`: it names it, or binds it through a bind
 * group (a buffer, or a texture through a view). Conservative: every
 * binding counts as written. */
static bool op_may_touch(ul_device *d, const ul__op *op, const ul__obj *o) {
  if (op->buf_a == o->id || op->buf_b == o->id || op->texture == o->id || op->texture_b == o->id) return true;
  for (uint32_t g = 0; g < op->group_count; g++) {
    const ul__obj *bg = ul__obj_find(d, op->groups[g], UL__OBJ_BIND_GROUP);
    if (!bg) return true; /* unknown: assume the worst */
    const ul__bind_group_data *bd = &bg->u.bg;
    for (uint32_t k = 0; k < bd->count; k++) {
      if (bd->entries[k].buffer == o->id) return true;
      if (bd->entries[k].view) {
        const ul__obj *v = ul__obj_find(d, bd->entries[k].view, UL__OBJ_VIEW);
        if (!v || v->u.view.texture == o->id) return true;
      }
    }
  }
  return false;
}

bool ul__oplog_may_touch_since(ul_device *d, uint32_t from, const ul__obj *o) {
  const ul__oplog *l = d->res->log;
  for (uint32_t i = from; i < l->count; i++) {
    const ul__entry *e = &l->e[i];
    if (e->kind == UL__ENTRY_READ) continue;
    if (e->kind == UL__ENTRY_WRITE || e->kind == UL__ENTRY_TEXTURE_WRITE || e->kind == UL__ENTRY_WRITE_FILE) {
      if (e->obj == o->id) return true;
      continue;
    }
    const ul__op *ops = e->data;
    for (uint64_t k = 0; k < e->size; k++)
      if (op_may_touch(d, &ops[k], o)) return true;
  }
  return false;
}

uint32_t ul__oplog_count(ul_device *d) { return d->res->log->count; }

bool ul__oplog_empty(ul_device *d) { return d->res->log->count == 0; }

ul_status ul__oplog_submit(ul_device *d, const ul__op *ops, uint32_t n) {
  ul__oplog *l = d->res->log;
  /* Work a restore callback submits rebuilds state the callback can build
   * again: not logged, or the replay would run it a second time. */
  if (l->replaying || d->res->restoring || n == 0) return UL_OK;
  void *copy = ul__malloc(sizeof *ops * n);
  if (!copy) return ul__fail(UL_ERR_OUT_OF_MEMORY, "operation log: out of host memory");
  memcpy(copy, ops, sizeof *ops * n);
  /* offset: the serial the submission will get (it is submitted next). */
  ul__entry e = {UL__ENTRY_SUBMIT, 0, d->submit_serial + 1, n, copy};
  ul_status s = append(l, e, sizeof *ops * n);
  if (s) {
    free(copy);
    return s;
  }
  for (uint32_t i = 0; i < n; i++) {
    const ul__op *op = &ops[i];
    name_id(d, op->pipeline, UL__OBJ_PIPELINE);
    for (uint32_t g = 0; g < op->group_count; g++) name_id(d, op->groups[g], UL__OBJ_BIND_GROUP);
    name_id(d, op->buf_a, UL__OBJ_BUFFER);
    name_id(d, op->buf_b, UL__OBJ_BUFFER);
    name_id(d, op->texture, UL__OBJ_TEXTURE);
    name_id(d, op->texture_b, UL__OBJ_TEXTURE);
    name_id(d, op->query_set, UL__OBJ_QUERY_SET);
  }
  return UL_OK;
}

void ul__oplog_unsubmit(ul_device *d) {
  ul__oplog *l = d->res->log;
  if (!l->count || l->e[l->count - 1].kind != UL__ENTRY_SUBMIT) return;
  ul__entry *e = &l->e[--l->count];
  l->bytes -= sizeof(ul__op) * e->size + sizeof *e;
  free(e->data);
}

bool ul__oplog_drop_submission(ul_device *d, uint64_t serial, const char *why) {
  ul__oplog *l = d->res->log;
  for (uint32_t i = 0; i < l->count; i++) {
    ul__entry *e = &l->e[i];
    if (e->kind != UL__ENTRY_SUBMIT || e->offset != serial || e->size == 0) continue;
    ul__cmd_mark_written_lost(d, e->data, (uint32_t)e->size, why);
    e->size = 0; /* never replayed */
    return true;
  }
  return false;
}

/* Whether a replay of the log could need `o`: an entry names it. What a
 * named object is built from (buffers and views in bind groups, shaders
 * and layouts of pipelines) is kept by its dependents count instead. */
bool ul__oplog_names(ul_device *d, ul__obj *o) {
  ul__oplog *l = d->res->log;
  if (!l || l->count == 0) return false;
  /* A texture can be bound through a view, which is not built upon it (a
   * view dies with its texture): kept while the log holds anything. */
  if (o->kind == UL__OBJ_TEXTURE) return true;
  /* Each entry marks what it names (ul__oplog_name: a write's buffer or
   * texture, a read's buffer, a submission's pipelines, bind groups,
   * buffers, textures and query sets): no scan (a program that makes a
   * bind group per dispatch releases thousands while the log holds a
   * thousand entries), and what no entry names is freed at its destroy
   * (a buffer made and released between checkpoints costs nothing after).
   * What a named object is built from is kept by its dependents count.
   * Conservative: an entry taken out again leaves the mark. */
  return o->log_gen >= l->low_gen;
}

/* The buffer a write entry names, made and filled first if a rebuild left
 * it for its first use; an error when it is gone (never: the log holds
 * what it names). */
static ul_status replay_target(ul_device *d, const ul__entry *e, ul__obj **out) {
  *out = ul__obj_find(d, e->obj, UL__OBJ_BUFFER);
  if (!*out) return ul__fail(UL_ERR_INTERNAL, "replay write: buffer 0x%08x is gone", e->obj);
  return ul__obj_contents(d, *out);
}

ul_status ul__oplog_replay(ul_device *d) {
  ul__oplog *l = d->res->log;
  l->replaying = true;
  ul_status s = UL_OK;
  for (uint32_t i = 0; i < l->count && !s; i++) {
    const ul__entry *e = &l->e[i];
    if (e->kind == UL__ENTRY_READ) {
      s = ul__read_replay(d, e->offset);
    } else if (e->kind == UL__ENTRY_TEXTURE_WRITE) {
      ul__obj *t = ul__obj_find(d, e->obj, UL__OBJ_TEXTURE);
      if (!t) {
        s = ul__fail(UL_ERR_INTERNAL, "replay texture write: texture 0x%08x is gone", e->obj);
        break;
      }
      if (t->native && !(s = ul__obj_contents(d, t)))
        s = ul__texture_write_region(d, t, e->data, (const uint8_t *)e->data + UL__TR_WORDS * sizeof(uint32_t),
                                     e->size);
    } else if (e->kind == UL__ENTRY_WRITE_FILE) {
      ul__obj *o;
      if ((s = replay_target(d, e, &o))) break;
      if (!o->native || o->state == UL__OBJ_LOST) continue;
      const file_write *w = e->data;
      s = ul__src_file_upload(d, o->native, e->offset, w->file, w->file_off, e->size, w->hash);
      if (s && s != UL_ERR_DEVICE_LOST) {
        /* The file changed: this buffer only is LOST (its use says so). */
        ul__obj_mark_lost(o, ul_last_error());
        s = UL_OK;
      }
    } else if (e->kind == UL__ENTRY_WRITE) {
      ul__obj *o;
      if ((s = replay_target(d, e, &o))) break;
      if (!o->native) continue; /* being created: its creator writes it */
      s = ul__buffer_upload(d, o, e->offset, ((const ul__chunk *)e->data)->bytes, e->size);
    } else {
      WGPUCommandBuffer cb;
      /* Work that read lost contents is left out; what it wrote is LOST. */
      if (e->size == 0) continue; /* dropped: work declared hung */
      uint32_t n = ul__cmd_drop_lost(d, e->data, (uint32_t)e->size);
      l->e[i].size = n; /* left out of later replays too: those objects stay LOST */
      if (n == 0) continue;
      s = ul__cmd_encode(d, e->data, n, "replay", true, &cb);
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

uint64_t ul__oplog_checkpoints(ul_device *d) { return d && d->res && d->res->log ? d->res->log->checkpoints : 0; }

uint64_t ul__oplog_checkpoints_async(ul_device *d) { return d && d->res && d->res->log ? d->res->log->partial : 0; }

uint64_t ul__oplog_bytes(ul_device *d) { return d->res && d->res->log ? d->res->log->bytes : 0; }

