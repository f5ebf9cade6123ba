/* Where a host-written buffer's bytes came from: the restore policy that
 * the webgpu.h front door chooses from use. While the GPU has never written
 * a buffer, its contents are what the program wrote into it, and each
 * range of them is kept as one extent: a range of a file when the bytes the
 * program wrote lay in a read-only mapping of that file (as a model's
 * weights do: no host copy, the checks of SOURCE), else a host copy of the
 * bytes. A checkpoint keeps the extents as they are (nothing is read back
 * from the GPU); a restore writes them back. Extents share their files and
 * copies by reference, so that a checkpoint's list costs no bytes. */
#include "core/prefill.h"
#include "core/transfer.h"
#include "res/obj.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the process's file mappings (/proc/self/maps) ---- */
typedef struct map_ent {
  uintptr_t start, end;
  uint64_t offset;
  char *path;
} map_ent;
static pthread_mutex_t g_maps_mu = PTHREAD_MUTEX_INITIALIZER;
static map_ent *g_maps;
static size_t g_nmaps;

/* Reads the read-only file mappings anew (under g_maps_mu). */
static void maps_reload(void) {
  for (size_t i = 0; i < g_nmaps; i++) free(g_maps[i].path);
  free(g_maps);
  g_maps = NULL;
  g_nmaps = 0;
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return;
  size_t cap = 0;
  char line[4096 + 256];
  while (fgets(line, sizeof line, f)) {
    unsigned long long s, e, off;
    char perms[8];
    int pathpos = 0;
    if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &off, &pathpos) < 4 || !pathpos) continue;
    /* Only read-only mappings of regular files: what the program reads there
     * is the file (a writable private mapping may differ from it). */
    if (perms[1] != '-' || line[pathpos] != '/') continue;
    char *nl = strchr(line + pathpos, '\n');
    if (nl) *nl = 0;
    if (strstr(line + pathpos, " (deleted)")) continue;
    if (g_nmaps == cap) {
      size_t ncap = cap ? cap * 2 : 64;
      map_ent *n = realloc(g_maps, sizeof *n * ncap);
      if (!n) break;
      g_maps = n;
      cap = ncap;
    }
    char *path = ul__strdup(line + pathpos);
    if (!path) break;
    g_maps[g_nmaps++] = (map_ent){(uintptr_t)s, (uintptr_t)e, off, path};
  }
  fclose(f);
}

/* The file and offset of [p, p+n) when it lies in one read-only mapping of
 * a regular file, and that file's state now; false otherwise. */
static bool file_range_of(const void *p, uint64_t n, char **path, uint64_t *file_off, struct stat *st) {
  uintptr_t a = (uintptr_t)p;
  bool found = false;
  pthread_mutex_lock(&g_maps_mu);
  for (int pass = 0; pass < 2 && !found; pass++) {
    if (pass) maps_reload(); /* a mapping made since the last reading */
    for (size_t i = 0; i < g_nmaps && !found; i++) {
      const map_ent *m = &g_maps[i];
      if (a < m->start || a >= m->end || n > m->end - a) continue;
      *file_off = m->offset + (a - m->start);
      *path = ul__strdup(m->path);
      found = *path != NULL;
    }
  }
  pthread_mutex_unlock(&g_maps_mu);
  if (!found) return false;
  if (stat(*path, st) != 0 || !S_ISREG(st->st_mode) || (uint64_t)st->st_size < *file_off + n) {
    free(*path);
    *path = NULL;
    return false;
  }
  return true;
}

/* ---- shared pieces ---- */

static void file_unref(ul__src_file *f) {
  if (f && atomic_fetch_sub(&f->refs, 1) == 1) {
    free(f->path);
    free(f);
  }
}

static void chunk_unref(ul__chunk *c) {
  if (c && atomic_fetch_sub(&c->refs, 1) == 1) free(c);
}

static void extent_ref(const ul__extent *e) {
  if (e->file) atomic_fetch_add(&e->file->refs, 1);
  if (e->chunk) atomic_fetch_add(&e->chunk->refs, 1);
}

static void extent_unref(ul__extent *e) {
  file_unref(e->file);
  chunk_unref(e->chunk);
  e->file = NULL;
  e->chunk = NULL;
}

void ul__prov_clear(ul__prov *p) {
  for (uint32_t i = 0; i < p->n; i++) extent_unref(&p->e[i]);
  free(p->e);
  memset(p, 0, sizeof *p);
}

bool ul__prov_copy(ul__prov *dst, const ul__prov *src) {
  ul__prov n = {0};
  if (src->n) {
    if (!(n.e = malloc(sizeof *n.e * src->n))) return false;
    memcpy(n.e, src->e, sizeof *n.e * src->n);
    n.n = n.cap = src->n;
    for (uint32_t i = 0; i < n.n; i++) extent_ref(&n.e[i]);
  }
  n.bytes = src->bytes;
  ul__prov_clear(dst);
  *dst = n;
  return true;
}

/* The hash SOURCE uses: every byte to 1 MiB, else UL__SOURCE_SAMPLES
 * blocks at the same places as ul__source_hash_fd. */
static uint64_t mem_hash(const uint8_t *p, uint64_t size) {
  if (size <= (1ull << 20)) return ul__hash64(0, p, (size_t)size);
  uint64_t h = 0, span = size - UL__SOURCE_BLOCK;
  for (unsigned i = 0; i < UL__SOURCE_SAMPLES; i++) {
    uint64_t at = i == UL__SOURCE_SAMPLES - 1 ? span : span / (UL__SOURCE_SAMPLES - 1) * i;
    h = ul__hash64(h, p + at, UL__SOURCE_BLOCK);
  }
  return h;
}

/* Makes room for [off, off+len) in the sorted, non-overlapping list: the
 * extents it covers go, those it cuts are trimmed (split in two when it
 * falls inside one). Returns the index where the new extent goes, or -1
 * when out of memory (the list unchanged). */
static long cut(ul__prov *p, uint64_t off, uint64_t len) {
  uint64_t end = off + len;
  if (p->n + 2 > p->cap) {
    uint32_t ncap = p->cap ? p->cap * 2 : 8;
    while (ncap < p->n + 2) ncap *= 2;
    ul__extent *e = realloc(p->e, sizeof *e * ncap);
    if (!e) return -1;
    p->e = e;
    p->cap = ncap;
  }
  uint32_t i = 0;
  while (i < p->n && p->e[i].off + p->e[i].len <= off) i++;
  uint32_t at = i;
  if (i < p->n && p->e[i].off < off && p->e[i].off + p->e[i].len > end) {
    /* Inside one extent: it becomes two, with a hole for the new one. */
    ul__extent right = p->e[i];
    uint64_t skip = end - right.off;
    right.off = end;
    right.len -= skip;
    right.file_off += skip;
    right.chunk_off += skip;
    extent_ref(&right);
    p->e[i].len = off - p->e[i].off;
    memmove(&p->e[i + 2], &p->e[i + 1], sizeof *p->e * (p->n - i - 1));
    p->e[i + 1] = right;
    p->n++;
    p->bytes -= len;
    return (long)i + 1;
  }
  if (i < p->n && p->e[i].off < off) { /* its head stays */
    p->bytes -= p->e[i].off + p->e[i].len - off;
    p->e[i].len = off - p->e[i].off;
    at = ++i;
  }
  uint32_t j = i;
  while (j < p->n && p->e[j].off + p->e[j].len <= end) {
    p->bytes -= p->e[j].len;
    extent_unref(&p->e[j]);
    j++;
  }
  if (j < p->n && p->e[j].off < end) { /* its tail stays */
    uint64_t skip = end - p->e[j].off;
    p->bytes -= skip;
    p->e[j].off = end;
    p->e[j].len -= skip;
    p->e[j].file_off += skip;
    p->e[j].chunk_off += skip;
  }
  memmove(&p->e[i], &p->e[j], sizeof *p->e * (p->n - j));
  p->n -= j - i;
  return (long)at;
}

ul_status ul__prov_source(const void *data, uint64_t len, ul__src_file **file, uint64_t *file_off, uint64_t *hash) {
  *file = NULL;
  char *path = NULL;
  struct stat st;
  /* Small writes are copied: a file's checks cost more than their bytes. */
  if (len < 4096 || !file_range_of(data, len, &path, file_off, &st)) return UL_OK;
  ul__src_file *f = calloc(1, sizeof *f);
  if (!f) {
    free(path);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
  }
  atomic_store(&f->refs, 1);
  f->path = path;
  f->size = (uint64_t)st.st_size;
  f->mtime_ns = ul__stat_mtime_ns(&st);
  f->ino = (uint64_t)st.st_ino;
  f->dev = (uint64_t)st.st_dev;
  *hash = mem_hash(data, len);
  *file = f;
  return UL_OK;
}

ul_status ul__prov_write(ul__prov *p, uint64_t off, const void *data, uint64_t len, ul__src_file *file,
                         uint64_t file_off, uint64_t hash) {
  ul__extent e = {off, len, NULL, 0, 0, NULL, 0};
  if (file) {
    atomic_fetch_add(&file->refs, 1);
    e.file = file;
    e.file_off = file_off;
    e.hash = hash;
  } else {
    ul__chunk *c = malloc(sizeof *c + (size_t)len);
    if (!c) return ul__fail(UL_ERR_OUT_OF_MEMORY, "no host memory for a copy of %llu bytes", (unsigned long long)len);
    atomic_store(&c->refs, 1);
    c->len = len;
    memcpy(c->bytes, data, (size_t)len);
    e.chunk = c;
  }
  long at = cut(p, off, len);
  if (at < 0) {
    extent_unref(&e);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
  }
  memmove(&p->e[at + 1], &p->e[at], sizeof *p->e * (p->n - (uint32_t)at));
  p->e[at] = e;
  p->n++;
  p->bytes += len;
  return UL_OK;
}

void ul__src_file_unref(ul__src_file *f) { file_unref(f); }

ul_status ul__src_file_upload(ul_device *d, WGPUBuffer dst, uint64_t dst_off, const ul__src_file *f, uint64_t file_off,
                              uint64_t len, uint64_t hash) {
  int fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return ul__fail(UL_ERR_IO, "source '%s': %s", f->path, strerror(errno));
  struct stat st;
  ul_status s = UL_OK;
  if (fstat(fd, &st) != 0 || (uint64_t)st.st_size != f->size || ul__stat_mtime_ns(&st) != f->mtime_ns ||
      (uint64_t)st.st_ino != f->ino || (uint64_t)st.st_dev != f->dev) {
    s = ul__fail(UL_ERR_IO,
                 "source '%s' changed since the program wrote its bytes (size, time or inode): its contents would not "
                 "be the buffer's",
                 f->path);
  } else if (len <= (1ull << 20)) {
    uint8_t *tmp = malloc((size_t)len ? (size_t)len : 1);
    if (!tmp) s = ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
    else if (pread(fd, tmp, (size_t)len, (off_t)file_off) != (ssize_t)len)
      s = ul__fail(UL_ERR_IO, "source '%s': short read", f->path);
    else if (ul__hash64(0, tmp, (size_t)len) != hash)
      s = ul__fail(UL_ERR_IO, "source '%s' changed since the program wrote its bytes (other contents)", f->path);
    else
      d->wgpu->QueueWriteBuffer(d->queue, dst, dst_off, tmp, (size_t)len);
    free(tmp);
  } else {
    uint64_t h = 0;
    if ((s = ul__source_hash_fd(fd, file_off, len, &h))) s = ul__wrap(s, "source '%s'", f->path);
    else if (h != hash)
      s = ul__fail(UL_ERR_IO, "source '%s' changed since the program wrote its bytes (other contents)", f->path);
    else {
      posix_fadvise(fd, (off_t)file_off, (off_t)len, POSIX_FADV_SEQUENTIAL);
      ul__fill fill = {NULL, fd, file_off};
      s = ul__staging_upload_from(d, dst, dst_off, &fill, len);
    }
  }
  close(fd);
  return s;
}

ul_status ul__prov_restore(ul_device *d, ul__obj *o, const ul__prov *p) {
  for (uint32_t i = 0; i < p->n; i++) {
    const ul__extent *e = &p->e[i];
    ul_status s;
    if (e->file) {
      s = ul__src_file_upload(d, o->native, e->off, e->file, e->file_off, e->len, e->hash);
    } else {
      s = ul__buffer_upload(d, o, e->off, e->chunk->bytes + e->chunk_off, e->len);
    }
    if (s) return s;
  }
  return UL_OK;
}
