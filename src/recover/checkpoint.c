/* Checkpoints: the state a replay starts from, committed as a transaction. */
#include "recover/recover.h"
#include "exec/oplog.h"
#include "exec/read.h"
#include "core/transfer.h"

#define UL__CHECKPOINT_TIMEOUT_NS 60000000000ull

typedef struct snapshot {
  ul__obj *o;
  uint8_t *data;
} snapshot;

/* The LOG buffers and textures changed since the last checkpoint. */
static bool takes_part(const ul__obj *o) {
  if (!o || o->pending || o->destroyed || o->state != UL__OBJ_VALID) return false;
  if (o->kind == UL__OBJ_TEXTURE) return o->u.tex.restore == UL_RESTORE_LOG && o->u.tex.dirty && o->u.tex.fmt.copyable;
  if (o->kind != UL__OBJ_BUFFER) return false;
  const ul__buffer_data *b = &o->u.buf;
  /* A host-written buffer is not read back: its extents are the copy. */
  return b->restore == UL_RESTORE_LOG && b->dirty && !b->host_only &&
         !(b->usage & (UL_BUFFER_MAP_READ | UL_BUFFER_MAP_WRITE));
}

static uint64_t snapshot_bytes(const ul__obj *o) {
  return o->kind == UL__OBJ_TEXTURE ? ul__texture_all_bytes(o) : o->u.buf.size;
}

ul_status ul__checkpoint_locked(ul_device *d) {
  ul__res *r = d->res;
  if (d->recovering || r->rebuilding)
    return ul__fail(UL_ERR_WRONG_STATE, "checkpoint: device '%s' is recovering (not from a restore callback)",
                    d->label);
  if (ul__device_loss_pending(d)) return ul__fail(UL_ERR_DEVICE_LOST, "checkpoint: device '%s' is lost", d->label);
  if (ul__oplog_empty(d)) {
    ul__staging_trim(d);
    return UL_OK;
  }
  const uint64_t epoch = d->epoch;
  const uint64_t t0 = ul__now_ns();
  uint64_t kept = 0;
  uint32_t n = 0;
  for (uint32_t i = 1; i < r->next_unused && i < r->cap; i++) n += takes_part(r->slots[i]);
  snapshot *snap = calloc(n ? n : 1, sizeof *snap);
  if (!snap) return ul__fail(UL_ERR_OUT_OF_MEMORY, "checkpoint: out of host memory");
  ul_status s = UL_OK;
  uint32_t k = 0;
  /* 1. Read into fresh memory: the committed copies stay as they are. */
  for (uint32_t i = 1; i < r->next_unused && i < r->cap && !s; i++) {
    ul__obj *o = r->slots[i];
    if (!takes_part(o)) continue;
    snapshot *sn = &snap[k++];
    sn->o = o;
    uint64_t bytes = snapshot_bytes(o);
    kept += bytes;
    if (!(sn->data = malloc((size_t)bytes))) {
      s = ul__fail(UL_ERR_OUT_OF_MEMORY, "checkpoint '%s': no host memory for %llu bytes",
                   o->label ? o->label : "", (unsigned long long)bytes);
      break;
    }
    s = o->kind == UL__OBJ_TEXTURE ? ul__texture_download_all(d, o, sn->data, UL__CHECKPOINT_TIMEOUT_NS)
                                   : ul__buffer_download(d, o, 0, sn->data, bytes, UL__CHECKPOINT_TIMEOUT_NS);
    if (s) s = ul__wrap(s, "checkpoint '%s'", o->label ? o->label : "");
  }
  /* 2. Reads in flight get their data now: the log will not hold them. */
  if (!s) s = ul__reads_settle(d, UL__CHECKPOINT_TIMEOUT_NS);
  /* 3. Commit only if the device was there all along. */
  if (!s && (d->epoch != epoch || ul__device_loss_pending(d)))
    s = ul__fail(UL_ERR_DEVICE_LOST, "device '%s' lost during the checkpoint", d->label);
  if (s) {
    for (uint32_t i = 0; i < k; i++) free(snap[i].data);
    free(snap);
    return ul__wrap(s, "checkpoint (nothing committed)");
  }
  for (uint32_t i = 0; i < k; i++) {
    ul__obj *o = snap[i].o;
    uint8_t **committed = o->kind == UL__OBJ_TEXTURE ? &o->u.tex.checkpoint : &o->u.buf.checkpoint;
    free(*committed);
    *committed = snap[i].data;
    if (o->kind == UL__OBJ_TEXTURE) {
      o->u.tex.dirty = false;
    } else {
      o->u.buf.dirty = false;
      ul__prov_clear(&o->u.buf.prov_ckpt); /* read back: the copy is the restore now */
    }
  }
  /* Host-written buffers: where their bytes came from, as of now. A copy
   * that finds no memory leaves the buffer to be read back next time. */
  for (uint32_t i = 1; i < r->next_unused && i < r->cap; i++) {
    ul__obj *o = r->slots[i];
    if (!o || o->kind != UL__OBJ_BUFFER || o->pending || !o->u.buf.host_only || !o->u.buf.dirty) continue;
    if (ul__prov_copy(&o->u.buf.prov_ckpt, &o->u.buf.prov)) {
      o->u.buf.dirty = false;
    } else {
      o->u.buf.host_only = false;
      ul__prov_clear(&o->u.buf.prov);
    }
  }
  free(snap);
  /* SHADOW buffers, and MAP_WRITE ones with a host copy: the host copy is
   * the checkpoint. */
  for (uint32_t i = 1; i < r->next_unused && i < r->cap; i++) {
    ul__obj *o = r->slots[i];
    if (o && o->kind == UL__OBJ_BUFFER && !o->pending &&
        (o->u.buf.restore == UL_RESTORE_SHADOW || (o->u.buf.usage & UL_BUFFER_MAP_WRITE)) &&
        o->u.buf.checkpoint && o->u.buf.shadow)
      memcpy(o->u.buf.checkpoint, o->u.buf.shadow, (size_t)o->u.buf.size);
  }
  ul__oplog_truncate(d);
  ul__obj_free_deferred(d);
  ul__staging_trim(d);
  uint64_t t1 = ul__now_ns();
  ul__timeline_note(d, 0, &(ul__tl_event){.type = UL__TL_CHECKPOINT, .bytes = kept, .dur_ns = t1 - t0});
  return UL_OK;
}
