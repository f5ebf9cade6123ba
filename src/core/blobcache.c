/* Compiled pipelines kept across native devices. Dawn asks its embedder
 * for a key-value store (DawnCacheDeviceDescriptor) and keeps there what a
 * pipeline cost to build: the shader translated for the backend and the
 * driver's pipeline cache. A device rebuilt after a loss finds its
 * pipelines there and skips the compilation (on an H200, a compute
 * pipeline of a fresh device took 34.6 ms, one found here 1.4 ms).
 *
 * One store per env, shared by its devices (keys name the adapter, so a
 * move to the CPU adapter misses and fills its own entries). Bounded: a
 * store that would pass the limit is dropped, nothing is evicted. The
 * implementation may call in from its own threads: the store has its own
 * lock, a leaf, held only while copying bytes. */
#include "core/core.h"

#define UL__BLOB_BUCKETS 256

typedef struct blob {
  struct blob *next;
  uint64_t hash;
  size_t key_size, value_size;
  unsigned char bytes[]; /* the key, then the value */
} blob;

struct ul__blob_cache {
  pthread_mutex_t mu;
  blob *buckets[UL__BLOB_BUCKETS];
  ul__blob_stats st; /* bytes held, the bound, the counts */
};

#if !UL_WGPU_STABLE
static blob *find_locked(ul__blob_cache *c, uint64_t h, const void *key, size_t ks, blob ***link) {
  blob **l = &c->buckets[h % UL__BLOB_BUCKETS];
  for (; *l; l = &(*l)->next)
    if ((*l)->hash == h && (*l)->key_size == ks && !memcmp((*l)->bytes, key, ks)) break;
  if (link) *link = l;
  return *l;
}
#endif

#if !UL_WGPU_STABLE /* Dawn's cache callbacks */
/* Dawn asks for the size first (value NULL), then for the bytes. */
static size_t blob_load(const void *key, size_t ks, void *value, size_t vs, void *user) {
  ul__blob_cache *c = user;
  if (!c || !key) return 0;
  uint64_t h = ul__hash64(0, key, ks);
  pthread_mutex_lock(&c->mu);
  blob *b = find_locked(c, h, key, ks, NULL);
  size_t n = b ? b->value_size : 0;
  if (b && value && vs >= n) {
    memcpy(value, b->bytes + ks, n);
    c->st.hits++;
  } else if (!b && !value) {
    c->st.misses++;
  }
  pthread_mutex_unlock(&c->mu);
  return n;
}

static void blob_store(const void *key, size_t ks, const void *value, size_t vs, void *user) {
  ul__blob_cache *c = user;
  if (!c || !key || !value || ks > SIZE_MAX / 2 || vs > SIZE_MAX / 2 - ks - sizeof(blob)) return;
  uint64_t h = ul__hash64(0, key, ks);
  blob *nb = malloc(sizeof *nb + ks + vs);
  if (!nb) return;
  nb->hash = h;
  nb->key_size = ks;
  nb->value_size = vs;
  memcpy(nb->bytes, key, ks);
  memcpy(nb->bytes + ks, value, vs);
  pthread_mutex_lock(&c->mu);
  blob **link;
  blob *old = find_locked(c, h, key, ks, &link);
  size_t after = c->st.bytes - (old ? old->key_size + old->value_size : 0) + ks + vs;
  if (after > c->st.cap) {
    c->st.dropped++;
    pthread_mutex_unlock(&c->mu);
    free(nb);
    return;
  }
  nb->next = old ? old->next : NULL;
  *link = nb;
  c->st.bytes = after;
  c->st.stores++;
  pthread_mutex_unlock(&c->mu);
  free(old);
}
#endif

ul__blob_cache *ul__blob_cache_new(size_t cap) {
  if (!cap) return NULL;
  ul__blob_cache *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  pthread_mutex_init(&c->mu, NULL);
  c->st.cap = cap;
  return c;
}

void ul__blob_cache_free(ul__blob_cache *c) {
  if (!c) return;
  for (int i = 0; i < UL__BLOB_BUCKETS; i++) {
    for (blob *b = c->buckets[i], *n; b; b = n) {
      n = b->next;
      free(b);
    }
  }
  pthread_mutex_destroy(&c->mu);
  free(c);
}

#if !UL_WGPU_STABLE
void ul__blob_cache_chain(ul__blob_cache *c, WGPUDawnCacheDeviceDescriptor *desc, WGPUChainedStruct *next) {
  memset(desc, 0, sizeof *desc);
  desc->chain.next = next;
  desc->chain.sType = WGPUSType_DawnCacheDeviceDescriptor;
  desc->isolationKey = ul__sv("unlost");
  desc->loadDataFunction = blob_load;
  desc->storeDataFunction = blob_store;
  desc->functionUserdata = c;
}
#endif

void ul__blob_cache_stats(ul__blob_cache *c, ul__blob_stats *out) {
  memset(out, 0, sizeof *out);
  if (!c) return;
  pthread_mutex_lock(&c->mu);
  *out = c->st;
  pthread_mutex_unlock(&c->mu);
}
