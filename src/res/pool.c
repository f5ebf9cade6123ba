/* Generation-checked handles: id = tag(4) | generation(8) | slot(20). Slot 0
 * is never used, so id 0 is never valid; freed slots are reused in FIFO
 * order so that a stale handle's generation comes round late. */
#include "res/obj.h"
#include "chaos/chaos.h"

#define SLOT_BITS 20u
#define GEN_BITS 8u
#define SLOT_MASK ((1u << SLOT_BITS) - 1)
#define GEN_MASK ((1u << GEN_BITS) - 1)
#define MAX_SLOTS SLOT_MASK

static _Atomic uint32_t g_next_tag;

const char *ul__obj_kind_name(ul__obj_kind k) {
  return (unsigned)k < UL__OBJ_KIND_COUNT ? ul__track_kind_name(ul__obj_track_kind(k)) : "object";
}

/* Whether work kept for a replay still names `o` (the registry asks the
 * layer that keeps the work, through the hook it installed). */
static bool still_needed(ul_device *d, ul__obj *o) {
  return d->res->still_needed && d->res->still_needed(d, o);
}

static _Atomic uint64_t g_lost_marks; /* objects marked LOST, every device */

uint64_t ul__obj_state_gen(ul_device *d) { return d->res->destroys + atomic_load(&g_lost_marks); }

void ul__obj_mark_lost(ul__obj *o, const char *why) {
  if (!o || o->state == UL__OBJ_LOST) return;
  atomic_fetch_add(&g_lost_marks, 1);
  o->state = UL__OBJ_LOST;
  size_t n = strlen(why);
  if ((o->lost_why = malloc(n + 3))) {
    memcpy(o->lost_why, ": ", 2);
    memcpy(o->lost_why + 2, why, n + 1);
  }
  if (!o->destroyed) /* the program's own are worth a word; objects it destroyed are not */
    ul__log(UL__LOG_WARN, "%s '%s' is LOST: %s", ul__obj_kind_name(o->kind), o->label ? o->label : "", why);
}

const char *ul__obj_lost_why(const ul__obj *o) { return o->lost_why ? o->lost_why : ""; }

ul__track_kind ul__obj_track_kind(ul__obj_kind k) {
  switch (k) {
#define UL__OBJ_TRACK_CASE(name, track) \
  case UL__OBJ_##name: return UL__TRACK_##track;
    UL__OBJ_KIND_MAP(UL__OBJ_TRACK_CASE)
#undef UL__OBJ_TRACK_CASE
  default: return UL__TRACK_OTHER;
  }
}

uint32_t ul__res_new_tag(void) { return atomic_fetch_add(&g_next_tag, 1) % 15 + 1; }

static ul_status grow(ul__res *r) {
  uint32_t ncap = r->cap ? r->cap * 2 : 64;
  if (ncap > MAX_SLOTS + 1) ncap = MAX_SLOTS + 1;
  if (ncap <= r->cap) return ul__fail(UL_ERR_OUT_OF_MEMORY, "more than %u live objects", MAX_SLOTS);
  ul__obj **s = realloc(r->slots, sizeof *s * ncap);
  if (!s) return ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
  r->slots = s;
  uint8_t *g = realloc(r->gens, ncap);
  if (!g) return ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
  r->gens = g;
  uint32_t *q = realloc(r->freeq, sizeof *q * ncap);
  if (!q) return ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
  /* unwrap the ring into the new array */
  if (r->fq_count && r->fq_head + r->fq_count > r->fq_cap) {
    uint32_t first = r->fq_cap - r->fq_head;
    memmove(q + r->fq_cap, q, sizeof *q * (r->fq_count - first));
    memmove(q, q + r->fq_head, sizeof *q * first);
    memmove(q + first, q + r->fq_cap, sizeof *q * (r->fq_count - first));
    r->fq_head = 0;
  } else if (r->fq_count) {
    memmove(q, q + r->fq_head, sizeof *q * r->fq_count);
    r->fq_head = 0;
  }
  r->freeq = q;
  r->fq_cap = ncap;
  for (uint32_t i = r->cap; i < ncap; i++) {
    s[i] = NULL;
    g[i] = 0;
  }
  if (r->cap == 0) r->next_unused = 1;
  r->cap = ncap;
  return UL_OK;
}

/* The bytes an object of `kind` needs: its union's own member, not the
 * largest (a buffer's data is 272 bytes, a bind group's 24: the program's
 * one-per-dispatch bind groups would each carry a buffer's). Nothing reads
 * a member of another kind's (ASan checks it in make sanitize). */
/* Freed records kept per kind for reuse; none under a sanitizer, which
 * should see every use after a free. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UL__OBJ_REUSE 0
#else
#define UL__OBJ_REUSE 1
#endif
#define UL__OBJ_SPARE 256

static size_t obj_size(ul__obj_kind kind) {
  size_t u;
  switch (kind) {
  case UL__OBJ_SHADER: u = sizeof(((ul__obj *)0)->u.sh); break;
  case UL__OBJ_BGL: u = sizeof(((ul__obj *)0)->u.bgl); break;
  case UL__OBJ_PLAYOUT: u = sizeof(((ul__obj *)0)->u.pl); break;
  case UL__OBJ_PIPELINE: u = sizeof(((ul__obj *)0)->u.pipe); break;
  case UL__OBJ_PIPELINE_BGL: u = sizeof(((ul__obj *)0)->u.pbgl); break;
  case UL__OBJ_BUFFER: u = sizeof(((ul__obj *)0)->u.buf); break;
  case UL__OBJ_TEXTURE: u = sizeof(((ul__obj *)0)->u.tex); break;
  case UL__OBJ_VIEW: u = sizeof(((ul__obj *)0)->u.view); break;
  case UL__OBJ_SAMPLER: u = sizeof(((ul__obj *)0)->u.smp); break;
  case UL__OBJ_QUERY_SET: u = sizeof(((ul__obj *)0)->u.qs); break;
  case UL__OBJ_BIND_GROUP: u = sizeof(((ul__obj *)0)->u.bg); break;
  default: return sizeof(ul__obj);
  }
  return offsetof(ul__obj, u) + u;
}

ul_status ul__obj_new(ul_device *d, ul__obj_kind kind, const char *label, const ul_site *site,
                      ul__obj **out) {
  ul__res *r = d->res;
  *out = NULL;
  ul__obj *o = r->spare_obj[kind];
  if (o) {
    r->spare_obj[kind] = *(ul__obj **)o;
    r->nspare[kind]--;
    memset(o, 0, obj_size(kind));
  } else if (!(o = calloc(1, obj_size(kind)))) {
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
  }
  if (label) {
    o->label = ul__strdup(label);
    if (!o->label) {
      free(o);
      return ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
    }
  }
  uint32_t slot;
  if (r->fq_count > 16 || (r->fq_count && r->next_unused >= r->cap)) {
    slot = r->freeq[r->fq_head];
    r->fq_head = (r->fq_head + 1) % r->fq_cap;
    r->fq_count--;
  } else {
    if (r->next_unused >= r->cap) {
      ul_status s = grow(r);
      if (s) {
        free(o->label);
        free(o);
        return s;
      }
    }
    slot = r->next_unused++;
  }
  o->id = (r->tag << (SLOT_BITS + GEN_BITS)) | ((uint32_t)r->gens[slot] << SLOT_BITS) | slot;
  o->kind = kind;
  o->epoch = d->epoch;
  if (site) o->site = *site;
  r->slots[slot] = o;
  r->live[kind]++;
  *out = o;
  return UL_OK;
}

/* Calls `fn` for each object `o` is built from and whose descriptor its
 * rebuild needs (a view's texture is not one: a view dies with its
 * texture). */
static void for_parents(ul_device *d, const ul__obj *o, void (*fn)(ul_device *, ul__obj *)) {
  ul__obj *p;
  switch (o->kind) {
  case UL__OBJ_PIPELINE:
    if ((p = ul__obj_find(d, o->u.pipe.shader, UL__OBJ_SHADER))) fn(d, p);
    if (o->u.pipe.layout && (p = ul__obj_find(d, o->u.pipe.layout, UL__OBJ_PLAYOUT))) fn(d, p);
    break;
  case UL__OBJ_PIPELINE_BGL:
    if ((p = ul__obj_find(d, o->u.pbgl.pipeline, UL__OBJ_PIPELINE))) fn(d, p);
    break;
  case UL__OBJ_PLAYOUT:
    for (uint32_t i = 0; i < o->u.pl.count; i++)
      if (o->u.pl.groups[i] && (p = ul__obj_find(d, o->u.pl.groups[i], UL__OBJ_BGL))) fn(d, p);
    break;
  case UL__OBJ_BIND_GROUP: {
    const ul__bind_group_data *bd = &o->u.bg;
    if (bd->layout) {
      if ((p = ul__obj_find(d, bd->layout, UL__OBJ_BGL)) || (p = ul__obj_find(d, bd->layout, UL__OBJ_PIPELINE_BGL)))
        fn(d, p);
    } else if ((p = ul__obj_find(d, bd->pipeline, UL__OBJ_PIPELINE))) {
      fn(d, p);
    }
    for (uint32_t i = 0; i < bd->count; i++) {
      const ul__bg_entry *e = &bd->entries[i];
      p = e->buffer    ? ul__obj_find(d, e->buffer, UL__OBJ_BUFFER)
          : e->view    ? ul__obj_find(d, e->view, UL__OBJ_VIEW)
          : e->sampler ? ul__obj_find(d, e->sampler, UL__OBJ_SAMPLER)
                       : NULL;
      if (p) fn(d, p);
    }
    break;
  }
  default: break;
  }
}

static void hold(ul_device *d, ul__obj *p) {
  UL__UNUSED(d);
  p->dependents++;
}

void ul__obj_hold_parents(ul_device *d, ul__obj *o) {
  for_parents(d, o, hold);
  o->holds_parents = true;
}

static void let_go(ul_device *d, ul__obj *p) {
  if (!p->dependents) return;
  if (--p->dependents == 0 && p->destroyed && !still_needed(d, p)) {
    ul__obj_release_native(d, p);
    ul__obj_free(d, p);
  }
}

/* A destroyed object kept for its dependents goes with the last of them,
 * unless the log still names it. */
static void release_parents(ul_device *d, ul__obj *o) {
  if (!o->holds_parents) return;
  o->holds_parents = false;
  for_parents(d, o, let_go);
}

static void contents_done(ul_device *d, ul__obj *o);
static ul_status make_unmade(ul_device *d, ul__obj *o);

/* Takes a freed object's id out of the noted list: its slot's next object
 * may come round to the same id (the generation has 8 bits), and an id
 * listed twice would be committed twice by a checkpoint. */
static void forget_noted(ul__res *r, uint32_t id) {
  for (uint32_t i = 0; i < r->nnoted; i++) {
    if (r->noted[i] != id) continue;
    r->noted[i] = r->noted[--r->nnoted];
    return;
  }
}

void ul__obj_free(ul_device *d, ul__obj *o) {
  ul__res *r = d->res;
  if (o->noted) forget_noted(r, o->id);
  if (o->unrestored) contents_done(d, o);
  r->destroys++;
  uint32_t slot = o->id & SLOT_MASK;
  r->slots[slot] = NULL;
  r->gens[slot] = (uint8_t)((r->gens[slot] + 1) & GEN_MASK);
  r->freeq[(r->fq_head + r->fq_count) % r->fq_cap] = slot;
  r->fq_count++;
  if (!o->destroyed) r->live[o->kind]--;
  else r->deferred--;
  if (o->track_id) ul__track_free(r->tracker, o->track_id);
  if (o->kind == UL__OBJ_BUFFER && o->u.buf.source_path) ul__standby_source_remove(d, o->id);
  if (o->kind == UL__OBJ_BUFFER) ul__backing_let_go(d, o);
  release_parents(d, o);
  ul__obj_free_data(o);
  free(o->lost_why);
  free(o->label);
  ul__obj_kind k = o->kind;
  if (UL__OBJ_REUSE && (unsigned)k < UL__OBJ_KIND_COUNT && r->nspare[k] < UL__OBJ_SPARE) {
    *(ul__obj **)o = r->spare_obj[k];
    r->spare_obj[k] = o;
    r->nspare[k]++;
  } else {
    free(o);
  }
}

void ul__obj_spares_free(ul__res *r) {
  for (int k = 0; k < UL__OBJ_KIND_COUNT; k++) {
    while (r->spare_obj[k]) {
      ul__obj *n = *(ul__obj **)r->spare_obj[k];
      free(r->spare_obj[k]);
      r->spare_obj[k] = n;
    }
    r->nspare[k] = 0;
  }
}

void ul__obj_note_changed(ul_device *d, ul__obj *o) {
  ul__res *r = d->res;
  if (o && o->kind == UL__OBJ_BUFFER) o->u.buf.read_copy_valid = false; /* no longer what a map showed */
  if (!o || o->noted || r->noted_all) return;
  uint32_t *grown = ul__grow(r->noted, r->nnoted, &r->cap_noted, sizeof *r->noted, 64);
  if (!grown) { /* the next checkpoint looks at every object */
    r->noted_all = true;
    return;
  }
  r->noted = grown;
  r->noted[r->nnoted++] = o->id;
  o->noted = true;
}

ul__obj *ul__obj_find_any(ul_device *d, uint32_t id) {
  ul__res *r = d->res;
  uint32_t slot = id & SLOT_MASK;
  ul__obj *o = id && slot < r->cap ? r->slots[slot] : NULL;
  return o && o->id == id ? o : NULL;
}

bool ul__obj_noted(ul_device *d, uint32_t **out, uint32_t *n) {
  ul__res *r = d->res;
  *out = NULL;
  *n = 0;
  uint32_t most = r->noted_all ? r->next_unused : r->nnoted;
  uint32_t *v = malloc(sizeof *v * (most ? most : 1));
  if (!v) return false;
  uint32_t k = 0;
  if (r->noted_all) {
    for (uint32_t i = 1; i < r->next_unused && i < r->cap; i++)
      if (r->slots[i]) v[k++] = r->slots[i]->id;
  } else {
    if (r->nnoted) memcpy(v, r->noted, sizeof *v * r->nnoted); /* never allocated while empty */
    k = r->nnoted;
  }
  *out = v;
  *n = k;
  return true;
}

bool ul__obj_noted_take(ul_device *d, uint32_t **out, uint32_t *n, bool *all) {
  ul__res *r = d->res;
  *all = r->noted_all;
  if (!ul__obj_noted(d, out, n)) return false;
  for (uint32_t i = 0; i < r->nnoted; i++) {
    ul__obj *o = ul__obj_find_any(d, r->noted[i]);
    if (o) o->noted = false;
  }
  if (r->noted_all)
    for (uint32_t i = 1; i < r->next_unused && i < r->cap; i++)
      if (r->slots[i]) r->slots[i]->noted = false;
  r->nnoted = 0;
  r->noted_all = false;
  return true;
}

bool ul__obj_noted_all(ul_device *d) { return d->res->noted_all; }

static bool still_dirty(const ul__obj *o);

void ul__obj_note_ids(ul_device *d, const uint32_t *ids, uint32_t n, bool all, bool only_dirty) {
  if (all) d->res->noted_all = true;
  for (uint32_t i = 0; i < n; i++) {
    ul__obj *o = ul__obj_find_any(d, ids[i]);
    if (o && (!only_dirty || still_dirty(o))) ul__obj_note_changed(d, o);
  }
}

/* Whether `o` stays noted after a checkpoint: changed still (not taken:
 * out of memory for its record, say), or being created (the checkpoint
 * left it alone). */
static bool still_dirty(const ul__obj *o) {
  return o && (o->pending || (o->kind == UL__OBJ_BUFFER && o->u.buf.dirty) ||
               (o->kind == UL__OBJ_TEXTURE && o->u.tex.dirty));
}

void ul__obj_noted_settle(ul_device *d) {
  ul__res *r = d->res;
  if (r->noted_all) {
    /* Noted again from a full look, as far as memory allows. */
    r->noted_all = false;
    r->nnoted = 0;
    for (uint32_t i = 1; i < r->next_unused && i < r->cap; i++) {
      ul__obj *o = r->slots[i];
      if (!o) continue;
      o->noted = false;
      if (still_dirty(o)) ul__obj_note_changed(d, o);
    }
    return;
  }
  uint32_t w = 0;
  for (uint32_t i = 0; i < r->nnoted; i++) {
    ul__obj *o = ul__obj_find_any(d, r->noted[i]);
    if (!o) continue;
    if (still_dirty(o)) r->noted[w++] = o->id;
    else o->noted = false;
  }
  r->nnoted = w;
}

ul__obj *ul__obj_find(ul_device *d, uint32_t id, ul__obj_kind kind) {
  ul__res *r = d->res;
  uint32_t slot = id & SLOT_MASK;
  if (!id || (id >> (SLOT_BITS + GEN_BITS)) != r->tag || slot >= r->cap) return NULL;
  ul__obj *o = r->slots[slot];
  return o && o->id == id && o->kind == kind ? o : NULL;
}

ul_status ul__obj_get(ul_device *d, uint32_t id, ul__obj_kind kind, const char *what,
                      ul__obj **out) {
  ul__res *r = d->res;
  *out = NULL;
  const char *kn = ul__obj_kind_name(kind);
  if (id == 0)
    return ul__fail(UL_ERR_INVALID_HANDLE, "%s: zero %s handle", what, kn);
  uint32_t slot = id & SLOT_MASK;
  uint32_t tag = id >> (SLOT_BITS + GEN_BITS);
  ul_status s = UL_OK;
  if (tag != r->tag) {
    s = ul__fail(UL_ERR_INVALID_HANDLE, "%s: %s handle 0x%08x belongs to another device", what,
                 kn, id);
  } else if (slot >= r->cap || !r->slots[slot] || r->slots[slot]->id != id ||
             (r->slots[slot]->destroyed && !r->rebuilding && !r->realizing)) {
    s = ul__fail(UL_ERR_INVALID_HANDLE, "%s: %s handle 0x%08x is stale (destroyed)", what, kn, id);
  } else if (r->slots[slot]->kind != kind) {
    s = ul__fail(UL_ERR_INVALID_HANDLE, "%s: handle 0x%08x is a %s, not a %s", what, id,
                 ul__obj_kind_name(r->slots[slot]->kind), kn);
  }
  if (s) {
    ul__log(UL__LOG_WARN, "misuse: %s", ul_last_error());
    return s;
  }
  /* Not made on this device yet; or destroyed by the program (its native
   * object released) while something still to be made from it needs it. */
  ul__obj *o = r->slots[slot];
  if (!r->lookup_plain &&
      (o->unbuilt || (r->realizing && o->destroyed && !o->native && ul__obj_kind_deferrable(kind))) &&
      (s = ul__obj_realize(d, o)))
    return s;
  /* A buffer a rebuild left to be made at its first use: something made
   * from it needs it now (its contents come at their own use). */
  if (o->unrestored && !o->native && !o->destroyed && !r->lookup_plain && (s = make_unmade(d, o))) return s;
  *out = r->slots[slot];
  return UL_OK;
}

bool ul__obj_kind_deferrable(ul__obj_kind k) {
  switch (k) {
  case UL__OBJ_SHADER:
  case UL__OBJ_BGL:
  case UL__OBJ_PLAYOUT:
  case UL__OBJ_PIPELINE:
  case UL__OBJ_PIPELINE_BGL:
  case UL__OBJ_BIND_GROUP: return true;
  default: return false;
  }
}

ul_status ul__obj_realize(ul_device *d, ul__obj *o) {
  if (!o->unbuilt && (o->native || !o->destroyed)) return UL_OK;
  ul__res *r = d->res;
  if (o->native) ul__obj_release_native(d, o);
  /* The parents are looked up even where the program destroyed them: an
   * object built from them keeps them (as in a rebuild). The descriptors
   * were all valid once; an error the implementation reports for this
   * one is seen by the call that looked it up (uncaptured errors). */
  r->realizing++;
  /* Part of the recovery, made later: a fault schedule counts it so. */
  if (d->env->chaos) ul__chaos_recovering(d->env->chaos, true);
  ul_status s = ul__obj_create_native_unscoped(d, o);
  if (d->env->chaos) ul__chaos_recovering(d->env->chaos, false);
  r->realizing--;
  if (!s && !o->native)
    s = ul__fail(UL_ERR_INTERNAL, "%s '%s': no object", ul__obj_kind_name(o->kind), o->label ? o->label : "");
  if (s) {
    ul__obj_release_native(d, o);
    return ul__wrap(s, "make %s '%s' again", ul__obj_kind_name(o->kind), o->label ? o->label : "");
  }
  o->unbuilt = false;
  o->epoch = d->epoch;
  return UL_OK;
}

uint64_t ul__obj_contents_bytes(const ul__obj *o) {
  if (o->kind == UL__OBJ_BUFFER) return o->u.buf.size;
  uint64_t n = 0;
  for (uint32_t l = 0; l < o->u.tex.nd.mipLevelCount; l++) n += ul__texture_level_bytes(o, l);
  return n;
}

/* Nothing waits for its contents any more: the staging memory goes as a
 * rebuild's end would have let it go, and the next standby is built. */
static void none_left(ul_device *d) {
  if (d->res->rebuilding) return;
  ul__staging_trim(d);
  if (d->standby_after_restore) {
    d->standby_after_restore = false;
    ul__standby_start(d);
  }
}

/* The object no longer waits for its contents (put back, or gone). */
static void contents_done(ul_device *d, ul__obj *o) {
  o->unrestored = false;
  uint64_t n = ul__obj_contents_bytes(o);
  d->restore_pending -= d->restore_pending > 0;
  d->restore_pending_bytes -= UL__MIN(d->restore_pending_bytes, n);
  atomic_store(&d->restore_pending_gauge, d->restore_pending_bytes);
  if (!d->restore_pending) none_left(d);
}

/* A buffer a rebuild left to be made at its first use, made now (empty). */
static ul_status make_unmade(ul_device *d, ul__obj *o) {
  if (d->env->chaos) ul__chaos_recovering(d->env->chaos, true);
  ul_status s = ul__obj_create_native(d, o);
  if (d->env->chaos) ul__chaos_recovering(d->env->chaos, false);
  if (!s) o->epoch = d->epoch;
  return s;
}

/* ul__obj_contents's work; *put says whether contents went back (for the
 * callers' counts). */
static ul_status put_back(ul_device *d, ul__obj *o, bool *put) {
  *put = false;
  if (!o->unrestored) return UL_OK;
  if (o->epoch != d->epoch)
    /* Of a lost device: the next rebuild makes it again and decides again. */
    return ul__fail(UL_ERR_DEVICE_LOST, "%s '%s' belongs to a lost device", ul__obj_kind_name(o->kind),
                    o->label ? o->label : "");
  if (ul__device_loss_pending(d)) return ul__fail(UL_ERR_DEVICE_LOST, "the device was lost");
  if (!o->native) {
    if (o->destroyed) { /* released, its log done: nothing to put back */
      contents_done(d, o);
      return UL_OK;
    }
    ul_status sm = make_unmade(d, o);
    if (sm) return sm;
  }
  /* Part of the recovery, done later: a fault schedule counts it so. */
  if (d->env->chaos) ul__chaos_recovering(d->env->chaos, true);
  ul_status s = o->kind == UL__OBJ_BUFFER ? ul__buffer_restore(d, o) : ul__texture_restore(d, o);
  if (d->env->chaos) ul__chaos_recovering(d->env->chaos, false);
  if (!s && ul__device_loss_pending(d)) s = ul__fail(UL_ERR_DEVICE_LOST, "lost while its contents were put back");
  if (s == UL_ERR_DEVICE_LOST) atomic_fetch_add(&d->restore_interrupted_total, 1);
  if (s == UL_ERR_DEVICE_LOST) return ul__wrap(s, "restore %s '%s'", ul__obj_kind_name(o->kind), o->label ? o->label : "");
  if (s && o->kind == UL__OBJ_BUFFER && (o->u.buf.source_path || o->u.buf.prov_ckpt.n)) {
    /* A source file that went or changed loses this buffer only, as in a
     * rebuild: its use says so. */
    ul__obj_mark_lost(o, ul_last_error());
    s = UL_OK;
  }
  if (s) return ul__wrap(s, "restore %s '%s'", ul__obj_kind_name(o->kind), o->label ? o->label : "");
  atomic_fetch_add(&d->restored_total, 1);
  *put = true;
  contents_done(d, o);
  return UL_OK;
}

ul_status ul__obj_contents(ul_device *d, ul__obj *o) {
  bool put;
  ul_status s = put_back(d, o, &put);
  if (put && !d->res->rebuilding) d->restored_at_use++;
  return s;
}

/* The next object left for its first use, in handle order. */
static ul__obj *next_unrestored(ul_device *d) {
  ul__res *r = d->res;
  for (uint32_t i = 1; d->restore_pending && i < r->next_unused && i < r->cap; i++)
    if (r->slots[i] && r->slots[i]->unrestored) return r->slots[i];
  return NULL;
}

ul_status ul__restore_all(ul_device *d) {
  ul_status s = UL_OK;
  for (ul__obj *o; !s && (o = next_unrestored(d));) {
    bool put;
    s = put_back(d, o, &put);
    d->restored_flushed += put;
  }
  if (!next_unrestored(d)) {
    d->restore_pending = d->restore_pending_bytes = 0;
    atomic_store(&d->restore_pending_gauge, 0);
    none_left(d);
  }
  return s;
}

void ul__restore_stream(ul_device *d, uint64_t budget) {
  uint64_t went = 0;
  for (ul__obj *o; went < budget && !d->res->rebuilding && (o = next_unrestored(d));) {
    uint64_t n = ul__obj_contents_bytes(o);
    bool put;
    if (put_back(d, o, &put)) return; /* left for its use to meet */
    d->restored_streamed += put;
    went += n ? n : 1;
  }
}

void ul__buffer_drop_kept_map(ul_device *d, ul__obj *o) {
  WGPUBuffer old = o->u.buf.map_old;
  if (!old) return;
  o->u.buf.map_old = NULL;
  d->maps_kept--;
  d->wgpu->BufferUnmap(old);
  d->wgpu->BufferDestroy(old);
  d->wgpu->BufferRelease(old);
  if (!d->maps_kept) ul__device_release_kept(d);
}

void ul__obj_release_native(ul_device *d, ul__obj *o) {
  const ul__wgpu *w = d->wgpu;
  if (!o->native) {
    if (o->kind == UL__OBJ_BUFFER && (o->destroyed || !d->res->rebuilding)) ul__buffer_drop_kept_map(d, o);
    return;
  }
  switch (o->kind) {
  case UL__OBJ_SHADER: w->ShaderModuleRelease(o->native); break;
  case UL__OBJ_BGL:
  case UL__OBJ_PIPELINE_BGL: w->BindGroupLayoutRelease(o->native); break;
  case UL__OBJ_QUERY_SET:
    w->QuerySetDestroy(o->native);
    w->QuerySetRelease(o->native);
    break;
  case UL__OBJ_PLAYOUT: w->PipelineLayoutRelease(o->native); break;
  case UL__OBJ_PIPELINE: w->ComputePipelineRelease(o->native); break;
  case UL__OBJ_BUFFER:
    if (o->u.buf.mapped && !o->destroyed && d->res->rebuilding && !o->u.buf.map_old) {
      /* The program holds a mapping of this buffer: the implementation
       * keeps a lost device's mapped memory until the buffer goes, so the
       * buffer is kept, and with it the pointer, until ul_buffer_unmap. */
      o->u.buf.map_old = o->native;
      d->maps_kept++;
      break;
    }
    w->BufferDestroy(o->native);
    w->BufferRelease(o->native);
    o->u.buf.on_backing = false;
    if (o->u.buf.map_old && !o->destroyed && d->res->rebuilding) break; /* the mapping lives on */
    ul__buffer_drop_kept_map(d, o);
    o->u.buf.mapped = false;
    o->u.buf.map_ptr = NULL;
    break;
  case UL__OBJ_TEXTURE:
    w->TextureDestroy(o->native);
    w->TextureRelease(o->native);
    break;
  case UL__OBJ_VIEW: w->TextureViewRelease(o->native); break;
  case UL__OBJ_SAMPLER: w->SamplerRelease(o->native); break;
  case UL__OBJ_BIND_GROUP: w->BindGroupRelease(o->native); break;
  default: break;
  }
  o->native = NULL;
}

ul_status ul__obj_create_native_unscoped(ul_device *d, ul__obj *o) {
  ul_status s;
  switch (o->kind) {
  case UL__OBJ_SHADER: s = ul__shader_create_native(d, o); break;
  case UL__OBJ_BGL: s = ul__bgl_create_native(d, o); break;
  case UL__OBJ_PLAYOUT: s = ul__playout_create_native(d, o); break;
  case UL__OBJ_PIPELINE: s = ul__pipeline_create_native(d, o); break;
  case UL__OBJ_BUFFER: s = ul__buffer_create_native(d, o); break;
  case UL__OBJ_TEXTURE: s = ul__texture_create_native(d, o); break;
  case UL__OBJ_VIEW: s = ul__view_create_native(d, o); break;
  case UL__OBJ_SAMPLER: s = ul__sampler_create_native(d, o); break;
  case UL__OBJ_BIND_GROUP: s = ul__bind_group_create_native(d, o); break;
  case UL__OBJ_PIPELINE_BGL: s = ul__pipeline_bgl_create_native(d, o); break;
  case UL__OBJ_QUERY_SET: s = ul__query_set_create_native(d, o); break;
  default: s = ul__fail(UL_ERR_INTERNAL, "unknown object kind");
  }
  return s;
}

ul_status ul__obj_create_native(ul_device *d, ul__obj *o) {
  ul__scope_push(d);
  ul_status s = ul__obj_create_native_unscoped(d, o);
  /* Always pop what was pushed; a failure before the call wins. The words
   * of a message are made only for a failure: this is every create's path. */
  ul__saved_error keep;
  if (s) ul__error_save(&keep);
  ul_status sp = ul__scope_pop(d, NULL);
  char what[192];
  if (s || sp || ul__device_loss_pending(d))
    snprintf(what, sizeof what, "create %s '%s'", ul__obj_kind_name(o->kind), o->label ? o->label : "");
  if (s) {
    ul__obj_release_native(d, o);
    ul__error_restore(&keep);
    return ul__wrap(s, "%s", what);
  }
  if (sp) {
    ul__obj_release_native(d, o);
    return ul__wrap(sp, "%s", what);
  }
  if (ul__device_loss_pending(d)) {
    ul__obj_release_native(d, o);
    return ul__fail(UL_ERR_DEVICE_LOST, "%s: the device was lost", what);
  }
  if (!o->native) return ul__fail(UL_ERR_INTERNAL, "%s: the implementation returned no object", what);
  o->epoch = d->epoch;
  return UL_OK;
}

ul_status ul__obj_track(ul_device *d, ul__obj *o, uint64_t bytes, bool estimated) {
  ul__track_desc td = {0};
  td.kind = ul__obj_track_kind(o->kind);
  td.size = bytes;
  td.size_estimated = estimated;
  td.label = o->label;
  td.site.file = o->site.file;
  td.site.line = o->site.line;
  td.site.function = o->site.func;
  td.owner = o->id;
  return ul__track_alloc(d->res->tracker, &td, &o->track_id);
}

void ul__obj_destroy(ul_device *d, ul__obj *o) {
  ul__obj_release_native(d, o);
  if (o->kind == UL__OBJ_BUFFER) ul__backing_discard(d, o);
  if (!o->dependents && !still_needed(d, o)) {
    ul__obj_free(d, o);
    return;
  }
  ul__res *r = d->res;
  if (o->kind == UL__OBJ_BUFFER && o->u.buf.restore == UL_RESTORE_SOURCE && o->u.buf.source_data &&
      !o->u.buf.shadow) {
    /* Kept for the log, a SOURCE buffer of borrowed memory takes a copy of
     * it: the memory is the program's again once the buffer is destroyed,
     * and a rebuild must not read it then. */
    void *copy = malloc((size_t)o->u.buf.size);
    if (copy) {
      memcpy(copy, o->u.buf.source_data, (size_t)o->u.buf.size);
      o->u.buf.shadow = copy; /* owned: freed with the object */
      o->u.buf.source_data = copy;
    } else {
      o->u.buf.restore = UL_RESTORE_NONE; /* nothing is read from it again */
      o->u.buf.source_data = NULL;
      ul__obj_mark_lost(o, "its source memory was given back at its destroy and could not be copied");
    }
  }
  r->destroys++;
  o->destroyed = true;
  r->live[o->kind]--;
  r->deferred++;
  if (o->track_id) ul__track_free(r->tracker, o->track_id);
  o->track_id = 0;
}

void ul__obj_free_deferred(ul_device *d) {
  ul__res *r = d->res;
  for (uint32_t i = 1; r->deferred && i < r->next_unused && i < r->cap; i++) {
    ul__obj *o = r->slots[i];
    if (o && o->destroyed && !o->dependents && !still_needed(d, o)) { /* kept for dependents: they free it */
      ul__obj_release_native(d, o);
      ul__obj_free(d, o);
    }
  }
}
