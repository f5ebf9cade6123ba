/* The layer's objects: allocation, the checks every entry point makes of
 * the handles it is given, references (the program's and other objects'),
 * and the end of each kind. A released object's memory is kept a while
 * (a quarantine of the last UL__WG_QUARANTINE objects) with its magic
 * turned dead, so that a program that uses a handle after its last Release
 * gets a validation error, not a use-after-free. */
#include "webgpu/wg.h"

#include <dlfcn.h>

_Thread_local int ul__wg_in_native;

static const char *const kind_names[] = {
    "object",
#define UL__WG_KIND_NAME(name, text) text,
    UL__WG_KIND_MAP(UL__WG_KIND_NAME)
#undef UL__WG_KIND_NAME
};

const char *ul__wg_kind_name(ul__wg_kind k) {
  return (unsigned)k < UL__COUNT_OF(kind_names) ? kind_names[k] : "object";
}

#define UL__WG_QUARANTINE 4096
static pthread_mutex_t g_quarantine_mu = PTHREAD_MUTEX_INITIALIZER;
static void *g_quarantine[UL__WG_QUARANTINE];
static uint32_t g_quarantine_next;

/* What leaves the quarantine is kept for the next object of its kind and
 * size (a program that makes a bind group per dispatch allocates none),
 * up to UL__WG_SPARE of a kind; none under a sanitizer (UL__WG_REUSE). */
#define UL__WG_SPARE 64
#define UL__WG_KINDS 32
static ul__wg_obj *g_spare[UL__WG_KINDS]; /* linked through their first word, under g_quarantine_mu */
static uint32_t g_nspare[UL__WG_KINDS];

void ul__wg_quarantine(void *p) {
  ul__wg_obj *o = p;
  o->magic = UL__WG_DEAD;
  pthread_mutex_lock(&g_quarantine_mu);
  ul__wg_obj *old = g_quarantine[g_quarantine_next];
  g_quarantine[g_quarantine_next] = o;
  g_quarantine_next = (g_quarantine_next + 1) % UL__WG_QUARANTINE;
  if (UL__WG_REUSE && old && old->size8 && old->kind < UL__WG_KINDS && g_nspare[old->kind] < UL__WG_SPARE) {
    uint32_t k = old->kind;
    *(ul__wg_obj **)old = g_spare[k];
    g_spare[k] = old;
    g_nspare[k]++;
    old = NULL;
  }
  pthread_mutex_unlock(&g_quarantine_mu);
  free(old);
}

void *ul__wg_new(ul__wg_kind kind, size_t size, ul__wg_device *dev) {
  ul__wg_obj *o = NULL;
  uint16_t size8 = size % 8 == 0 && size / 8 < UINT16_MAX ? (uint16_t)(size / 8) : 0;
  if ((uint32_t)kind < UL__WG_KINDS && size8) {
    pthread_mutex_lock(&g_quarantine_mu);
    ul__wg_obj *s = g_spare[kind];
    /* The first word links the list: the size is read from the second. */
    if (s && ((const ul__wg_obj *)s)->size8 == size8) {
      g_spare[kind] = *(ul__wg_obj **)s;
      g_nspare[kind]--;
      o = s;
    }
    pthread_mutex_unlock(&g_quarantine_mu);
    if (o) memset(o, 0, size);
  }
  if (!o && !(o = calloc(1, size))) return NULL;
  o->size8 = size8;
  o->magic = UL__WG_MAGIC;
  o->kind = kind;
  atomic_store(&o->refs, 1);
  atomic_store(&o->total, 1);
  o->dev = dev;
  if (dev) ul__wg_hold(dev);
  return o;
}

void *ul__wg_peek(const void *handle, ul__wg_kind kind) {
  const ul__wg_obj *o = handle;
  if (ul__wg_in_native) ul__wg_note_entry(); /* the implementation called in */
  if (!o || o->magic != UL__WG_MAGIC || o->kind != kind || atomic_load(&o->refs) <= 0) return NULL;
  return (void *)o;
}

void *ul__wg_check_on(ul__wg_device *dv, const void *handle, ul__wg_kind kind, const char *what) {
  ul__wg_obj *o = ul__wg_peek(handle, kind);
  if (o) return o;
  const ul__wg_obj *x = handle;
  const char *why = !x                           ? "is NULL"
                    : x->magic == UL__WG_DEAD    ? "was released"
                    : x->magic != UL__WG_MAGIC   ? "is not an object of this library (made by another implementation?)"
                    : x->kind != (uint32_t)kind  ? "is of another type"
                    : "was released by the program";
  /* The error goes to the device of the call, or else to the device the
   * object names (a live object the program released, or of another type),
   * as the implementation's would. */
  ul__wg_device *to = dv;
  if (!to && x && x->magic == UL__WG_MAGIC && x->dev && atomic_load(&x->dev->h.total) > 0) to = x->dev;
  if (to)
    ul__wg_error(to, WGPUErrorType_Validation, "%s: the %s %s", what, ul__wg_kind_name(kind), why);
  else
    ul__log(UL__LOG_WARN, "misuse: %s: the %s %s", what, ul__wg_kind_name(kind), why);
  return NULL;
}

void *ul__wg_check(const void *handle, ul__wg_kind kind, const char *what) {
  return ul__wg_check_on(NULL, handle, kind, what);
}

void ul__wg_addref(void *p) {
  ul__wg_obj *o = p;
  atomic_fetch_add(&o->refs, 1);
  atomic_fetch_add(&o->total, 1);
}

static void finish(ul__wg_obj *o);

void ul__wg_release(void *p) {
  ul__wg_obj *o = p;
  if (atomic_fetch_sub(&o->refs, 1) <= 0) {
    atomic_fetch_add(&o->refs, 1); /* a release too many: ignored (reported by the check before) */
    return;
  }
  if (atomic_fetch_sub(&o->total, 1) == 1) finish(o);
}

bool ul__wg_revive(void *p) {
  ul__wg_obj *o = p;
  int t = atomic_load(&o->total);
  while (t > 0 && !atomic_compare_exchange_weak(&o->total, &t, t + 1)) {
  }
  if (t <= 0) return false;
  atomic_fetch_add(&o->refs, 1);
  return true;
}

pthread_mutex_t ul__wg_bgl_mu = PTHREAD_MUTEX_INITIALIZER;

void ul__wg_hold(void *p) { atomic_fetch_add(&((ul__wg_obj *)p)->total, 1); }

void ul__wg_unhold(void *p) {
  ul__wg_obj *o = p;
  if (atomic_fetch_sub(&o->total, 1) == 1) finish(o);
}

bool ul__wg_holds_add(ul__wg_holds *h, void *o) {
  if (!o) return true;
  /* One hold keeps an object alive: a program that sets the same bind
   * group or pipeline before each of its dispatches adds it once, not once
   * a dispatch (the last few entries are looked at, where a repeat is). */
  for (uint32_t i = h->count, k = 0; i > 0 && k < 8; i--, k++)
    if (h->objs[i - 1] == o) return true;
  if (!h->objs) {
    h->objs = h->inl;
    h->cap = UL__WG_HOLDS_INLINE;
  }
  if (h->count == h->cap) {
    uint32_t ncap = h->cap * 2;
    bool inl = h->objs == h->inl;
    ul__wg_obj **n = realloc(inl ? NULL : h->objs, sizeof *n * ncap);
    if (!n) return false;
    if (inl) memcpy(n, h->inl, sizeof *n * h->count);
    h->objs = n;
    h->cap = ncap;
  }
  h->objs[h->count++] = o;
  ul__wg_hold(o);
  return true;
}

void ul__wg_holds_clear(ul__wg_holds *h) {
  for (uint32_t i = 0; i < h->count; i++) ul__wg_unhold(h->objs[i]);
  if (h->objs != h->inl) free(h->objs);
  memset(h, 0, sizeof *h);
}

void ul__wg_holds_move(ul__wg_holds *dst, ul__wg_holds *src) {
  *dst = *src;
  if (src->objs == src->inl) dst->objs = dst->inl;
  memset(src, 0, sizeof *src);
}

/* The engine's kind of a layer object with an engine object. */
static bool engine_kind(ul__wg_kind k, ul__obj_kind *out) {
  switch (k) {
  case UL__WG_BUFFER: *out = UL__OBJ_BUFFER; return true;
  case UL__WG_TEXTURE: *out = UL__OBJ_TEXTURE; return true;
  case UL__WG_VIEW: *out = UL__OBJ_VIEW; return true;
  case UL__WG_SAMPLER: *out = UL__OBJ_SAMPLER; return true;
  case UL__WG_SHADER: *out = UL__OBJ_SHADER; return true;
  case UL__WG_PLAYOUT: *out = UL__OBJ_PLAYOUT; return true;
  case UL__WG_PIPELINE: *out = UL__OBJ_PIPELINE; return true;
  case UL__WG_BIND_GROUP: *out = UL__OBJ_BIND_GROUP; return true;
  case UL__WG_QUERY_SET: *out = UL__OBJ_QUERY_SET; return true;
  default: return false;
  }
}

/* Destroys the engine object of `o` (its device outlives it: `o` holds it). */
static void engine_destroy(ul__wg_obj *o) {
  ul__obj_kind k;
  if (!o->id || !o->dev) return;
  if (o->kind == UL__WG_BGL) k = ((ul__wg_bgl *)o)->pipeline ? UL__OBJ_PIPELINE_BGL : UL__OBJ_BGL;
  else if (!engine_kind(o->kind, &k)) return;
  ul__destroy_by_id(o->dev->ud, o->id, k, false);
  o->id = 0;
}

/* The end of an object: nothing holds it any more. */
static void finish(ul__wg_obj *o) {
  ul__wg_device *dev = o->dev;
  switch (o->kind) {
  case UL__WG_INSTANCE: ul__wg_instance_free((ul__wg_instance *)o); return;
  case UL__WG_ADAPTER: ul__wg_adapter_free((ul__wg_adapter *)o); return;
  case UL__WG_DEVICE: ul__wg_device_free((ul__wg_device *)o); return;
  case UL__WG_BUFFER:
    if (!atomic_load(&o->destroyed)) engine_destroy(o);
    ul__wg_buffer_free((ul__wg_buffer *)o);
    break;
  case UL__WG_TEXTURE:
  case UL__WG_QUERY_SET:
    if (!atomic_load(&o->destroyed)) engine_destroy(o);
    break;
  case UL__WG_VIEW:
    engine_destroy(o);
    if (((ul__wg_view *)o)->texture) ul__wg_unhold(((ul__wg_view *)o)->texture);
    break;
  case UL__WG_BGL: {
    ul__wg_bgl *l = (ul__wg_bgl *)o;
    engine_destroy(o);
    if (l->pipeline) {
      pthread_mutex_lock(&ul__wg_bgl_mu);
      if (l->group < UL_MAX_BIND_GROUPS && l->pipeline->bgl[l->group] == l) l->pipeline->bgl[l->group] = NULL;
      pthread_mutex_unlock(&ul__wg_bgl_mu);
      ul__wg_unhold(l->pipeline);
    }
    break;
  }
  case UL__WG_PIPELINE: {
    ul__wg_pipeline *p = (ul__wg_pipeline *)o;
    engine_destroy(o);
    if (p->shader) ul__wg_unhold(p->shader);
    if (p->layout) ul__wg_unhold(p->layout);
    break;
  }
  case UL__WG_BIND_GROUP:
  case UL__WG_PLAYOUT:
    engine_destroy(o);
    ul__wg_group_free((ul__wg_group *)o);
    break;
  case UL__WG_SHADER:
    engine_destroy(o);
    free(((ul__wg_shader *)o)->wgsl);
    break;
  case UL__WG_ENCODER: ul__wg_encoder_free((ul__wg_encoder *)o); break;
  case UL__WG_CMDBUF: ul__wg_cmdbuf_free((ul__wg_cmdbuf *)o); break;
  case UL__WG_PASS:
    if (((ul__wg_pass *)o)->encoder) ul__wg_unhold(((ul__wg_pass *)o)->encoder);
    break;
  default: engine_destroy(o); break;
  }
  ul__wg_quarantine(o);
  /* A queue is its device's (it does not hold the device back). */
  if (dev && o->kind != UL__WG_QUEUE) ul__wg_unhold(dev);
}

/* ---- call sites ---- */
typedef struct site_ent {
  void *ra;
  ul_site site;
} site_ent;
static pthread_mutex_t g_sites_mu = PTHREAD_MUTEX_INITIALIZER;
static site_ent *g_sites;
static uint32_t g_sites_cap, g_sites_count;
static const ul_site g_unknown_site = {"(unknown)", 0, "(unknown)"};

static uint32_t site_slot(void *ra, uint32_t cap) {
  uint64_t h = (uint64_t)(uintptr_t)ra * 0x9e3779b97f4a7c15ull;
  return (uint32_t)(h >> 32) & (cap - 1);
}

const ul_site *ul__wg_site(void *ra) {
  pthread_mutex_lock(&g_sites_mu);
  if (g_sites_cap) {
    for (uint32_t i = site_slot(ra, g_sites_cap);; i = (i + 1) & (g_sites_cap - 1)) {
      if (!g_sites[i].ra) break;
      if (g_sites[i].ra == ra) {
        pthread_mutex_unlock(&g_sites_mu);
        return &g_sites[i].site;
      }
    }
  }
  /* New: named after the module and the function that called (the
   * program's debug info is not read: module+offset is exact and cheap).
   * Entries are never freed, nor moved once handed out: the table only
   * grows by a new array, the old one kept. */
  if (g_sites_count * 2 >= g_sites_cap) {
    uint32_t ncap = g_sites_cap ? g_sites_cap * 2 : 256;
    site_ent *n = calloc(ncap, sizeof *n);
    if (!n) {
      pthread_mutex_unlock(&g_sites_mu);
      return &g_unknown_site;
    }
    /* The strings move with copies; the old array stays (sites handed out
     * point into it and stay valid). */
    for (uint32_t i = 0; i < g_sites_cap; i++) {
      if (!g_sites[i].ra) continue;
      uint32_t j = site_slot(g_sites[i].ra, ncap);
      while (n[j].ra) j = (j + 1) & (ncap - 1);
      n[j] = g_sites[i];
    }
    g_sites = n; /* the old array is leaked on purpose */
    g_sites_cap = ncap;
  }
  Dl_info info;
  char func[160], file[330];
  if (ra && dladdr(ra, &info) && info.dli_fname) {
    const char *base = strrchr(info.dli_fname, '/');
    if (info.dli_sname)
      snprintf(func, sizeof func, "%s+0x%zx", info.dli_sname, (size_t)((char *)ra - (char *)info.dli_saddr));
    else
      snprintf(func, sizeof func, "0x%zx", (size_t)((char *)ra - (char *)info.dli_fbase));
    /* Reports print a site as file:line; without the program's debug info
     * the module and the caller's address say where. */
    snprintf(file, sizeof file, "%s(%s)", base ? base + 1 : info.dli_fname, func);
  } else {
    snprintf(file, sizeof file, "(unknown)");
    snprintf(func, sizeof func, "%p", ra);
  }
  uint32_t i = site_slot(ra, g_sites_cap);
  while (g_sites[i].ra) i = (i + 1) & (g_sites_cap - 1);
  g_sites[i].ra = ra;
  g_sites[i].site.file = ul__strdup(file);
  g_sites[i].site.func = ul__strdup(func);
  g_sites[i].site.line = 0;
  if (!g_sites[i].site.file || !g_sites[i].site.func) {
    g_sites[i].site = g_unknown_site;
  }
  g_sites_count++;
  const ul_site *s = &g_sites[i].site;
  pthread_mutex_unlock(&g_sites_mu);
  return s;
}

bool ul__wg_chain_ok(const WGPUChainedStruct *c, const char *on, char *why, size_t cap) {
  WGPUSType seen[UL__WG_CHAIN_MAX];
  size_t n = 0;
  for (; c; c = c->next) {
    if (n == UL__WG_CHAIN_MAX) {
      snprintf(why, cap, "more than %d chained structs on %s chain", UL__WG_CHAIN_MAX, on);
      return false;
    }
    for (size_t i = 0; i < n; i++)
      if (seen[i] == c->sType) {
        snprintf(why, cap, "Duplicate chained struct of type 0x%x found on %s chain", (unsigned)c->sType, on);
        return false;
      }
    seen[n++] = c->sType;
  }
  return true;
}

const char *ul__wg_label(WGPUStringView v, char *buf, size_t cap) {
  if (!v.data) return NULL;
  ul__sv_copy(v, buf, cap);
  return buf;
}
