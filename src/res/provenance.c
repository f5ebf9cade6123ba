/* Where a host-written buffer's bytes came from: the restore policy that
 * the webgpu.h front door chooses from use. While the GPU has never written
 * a buffer, its contents are what the program wrote into it, and each
 * range of them is kept as one extent: a range of a file when it is proven,
 * at the time of the write, that the bytes the program wrote are that
 * file's (as a model's weights mapped read-only are: no host copy, the
 * checks of SOURCE at restore), else a host copy of the bytes. A checkpoint
 * keeps the extents as they are (nothing is read back from the GPU); a
 * restore writes them back. Extents share their files and copies by
 * reference, so that a checkpoint's list costs no bytes.
 *
 * The proof asks the kernel about the address at the call, never a picture
 * of the mappings kept from earlier (a mapping can go and other memory take
 * its place at the same address): PROCMAP_QUERY names the mapping that
 * covers each part of the range, and /proc/self/pagemap says that none of
 * its pages is the process's own copy (a private mapping once writable). It
 * costs a few system calls whatever the number of mappings: one ioctl for
 * memory that is no file's (the heap), and for a file's range one ioctl per
 * mapping, a stat and one read of pagemap per 512 pages. Whatever cannot be
 * proven (an older kernel, no /proc) is copied: the copy is always right. */
#include "core/prefill.h"
#include "core/transfer.h"
#include "res/obj.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

/* ---- where an address's bytes come from, asked of the kernel ---- */

/* PROCMAP_QUERY (Linux 6.11): an ioctl on a file of /proc/<pid>/maps that
 * returns the mapping (VMA) covering an address. Declared here because
 * older kernel headers (Debian 12's linux-libc-dev) lack it; the layout is
 * struct procmap_query of include/uapi/linux/fs.h, the kernel's ABI
 * (Documentation/filesystems/proc.rst, "PROCMAP_QUERY"): 104 bytes, the
 * size that the ioctl number 0xc0686611 encodes. */
typedef struct procmap_query {
  uint64_t size;        /* in: sizeof this struct */
  uint64_t query_flags; /* in: PQ_* */
  uint64_t query_addr;  /* in */
  uint64_t vma_start, vma_end; /* out: [start, end) */
  uint64_t vma_flags;          /* out: PQ_VMA_* */
  uint64_t vma_page_size;      /* out */
  uint64_t vma_offset;         /* out: the file's offset at vma_start */
  uint64_t inode;              /* out: the file's inode, 0 when none */
  uint32_t dev_major, dev_minor; /* out: the file's device */
  uint32_t vma_name_size;      /* in: the name buffer's size; out: the name's, with its 0 */
  uint32_t build_id_size;      /* in/out: 0 (not asked) */
  uint64_t vma_name_addr;      /* in: the name buffer */
  uint64_t build_id_addr;      /* in: 0 */
} procmap_query;
_Static_assert(sizeof(procmap_query) == 104, "struct procmap_query is 104 bytes (include/uapi/linux/fs.h)");
#define PROCMAP_QUERY_IOCTL _IOWR('f', 17, procmap_query)
_Static_assert(PROCMAP_QUERY_IOCTL == 0xc0686611u, "PROCMAP_QUERY is _IOWR('f', 17, struct procmap_query)");
enum {
  PQ_VMA_READABLE = 0x01, /* both a VMA flag and a query filter */
  PQ_VMA_WRITABLE = 0x02,
  PQ_VMA_SHARED = 0x08,
  PQ_FILE_BACKED_VMA = 0x20, /* filter: a covering VMA without a file is ENOENT */
};

/* /proc/self/pagemap: 64 bits a page (Documentation/admin-guide/mm/pagemap.rst). */
#define PM_FILE (1ull << 61) /* a page of a file (or shared anonymous memory) */
#define PM_SWAP (1ull << 62)
#define PM_PRESENT (1ull << 63)

/* The files to ask through, of the process that opened them: a child after
 * fork has the parent's (they would describe its memory), so it opens its
 * own (fork's handlers mark them stale; a system call such as getpid at
 * each write would cost as much as the query). off: no proof possible here
 * (the kernel has no PROCMAP_QUERY, or /proc cannot be read): every write
 * is copied. */
static pthread_mutex_t g_q_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_q_once = PTHREAD_ONCE_INIT;
static int g_maps_fd = -1, g_pagemap_fd = -1;
static bool g_q_opened, g_q_off, g_q_said;

/* Held across fork, so that the child's copy of the mutex is not held by a
 * thread it does not have. */
static void q_prepare(void) { pthread_mutex_lock(&g_q_mu); }
static void q_parent(void) { pthread_mutex_unlock(&g_q_mu); }
static void q_child(void) {
  g_q_opened = false;
  pthread_mutex_unlock(&g_q_mu);
}
static void q_init(void) { pthread_atfork(q_prepare, q_parent, q_child); }

/* Under g_q_mu: the files open for this process, or false. */
static bool query_open(void) {
  if (g_q_opened) return !g_q_off;
  if (g_maps_fd >= 0) close(g_maps_fd);
  if (g_pagemap_fd >= 0) close(g_pagemap_fd);
  g_q_opened = true;
  g_maps_fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  g_pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  g_q_off = g_maps_fd < 0 || g_pagemap_fd < 0;
  if (g_q_off && !g_q_said) {
    g_q_said = true;
    ul__log(UL__LOG_DEBUG, "/proc/self/maps or pagemap cannot be read (%s): writes from files' mappings are copied",
            strerror(errno));
  }
  return !g_q_off;
}

/* Under g_q_mu: the mapping covering address a when it is a readable,
 * not writable mapping of a file; false otherwise (ENOENT: none, or no
 * file's). With name, asks for its file's name too. */
static bool query_vma(uintptr_t a, procmap_query *q, char *name, size_t name_cap) {
  memset(q, 0, sizeof *q);
  q->size = sizeof *q;
  q->query_flags = PQ_FILE_BACKED_VMA | PQ_VMA_READABLE;
  q->query_addr = a;
  if (name) {
    q->vma_name_size = (uint32_t)name_cap;
    q->vma_name_addr = (uintptr_t)name;
  }
  if (ioctl(g_maps_fd, PROCMAP_QUERY_IOCTL, q) != 0) {
    if (errno == ENOTTY || errno == EINVAL) {
      /* A kernel before 6.11: nothing to ask (reading all of maps at
       * each write is what this replaces); copies from now on. */
      g_q_off = true;
      if (!g_q_said) {
        g_q_said = true;
        ul__log(UL__LOG_DEBUG, "the kernel has no PROCMAP_QUERY (%s): writes from files' mappings are copied",
                strerror(errno));
      }
    }
    return false;
  }
  return q->vma_start <= a && a < q->vma_end && q->inode && !(q->vma_flags & PQ_VMA_WRITABLE) &&
         (!name || q->vma_name_size > 1);
}

/* Under g_q_mu: whether every page of [a, a+n) reads as its file does. A
 * present page must be a page of the file (PM_FILE): a private mapping
 * that was writable may hold the process's own copies (anonymous pages,
 * present or swapped out), even once read-only again. A page not there at
 * all (neither present nor swapped) is read from the file when touched,
 * except in a private mapping of tmpfs or hugetlbfs, where userfaultfd can
 * fill it with other bytes (is_private_shm: such a mapping). */
static bool pages_are_files(uintptr_t a, uint64_t n, bool is_private_shm) {
  uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE);
  uint64_t first = a / ps, last = (a + n - 1) / ps;
  uint64_t pm[512];
  for (uint64_t at = first; at <= last;) {
    size_t k = (size_t)UL__MIN(last - at + 1, (uint64_t)(sizeof pm / sizeof *pm));
    if (pread(g_pagemap_fd, pm, k * 8, (off_t)(at * 8)) != (ssize_t)(k * 8)) return false;
    for (size_t i = 0; i < k; i++) {
      if (pm[i] & PM_FILE) continue;
      if (pm[i] & (PM_PRESENT | PM_SWAP) || is_private_shm) return false;
    }
    at += k;
  }
  return true;
}

/* The file and offset of [p, p+n) when it is proven now that its bytes are
 * that file's, with that file's state now; false otherwise. Proven: each
 * part of the range lies in a readable, not writable mapping of one file
 * (following mappings at following offsets of it), the file at the
 * mappings' name is that file (device and inode: not another put at the
 * name since, not deleted), a regular file that holds the range, and no
 * page of the range is the process's own copy (pages_are_files). */
static bool file_range_of(const void *p, uint64_t n, char **path, uint64_t *file_off, struct stat *st) {
  uintptr_t a = (uintptr_t)p;
  char name[PATH_MAX];
  procmap_query q, first;
  struct statfs fs;
  bool ok = false, is_private = false, shm;
  pthread_once(&g_q_once, q_init);
  pthread_mutex_lock(&g_q_mu);
  if (!query_open() || !query_vma(a, &first, name, sizeof name)) goto out;
  name[sizeof name - 1] = 0;
  *file_off = first.vma_offset + (a - first.vma_start);
  is_private = !(first.vma_flags & PQ_VMA_SHARED);
  /* A range over several mappings (a file's mapping split by mprotect or
   * madvise): each the same file, at the offset that follows. */
  for (q = first; q.vma_end - a < n;) {
    uint64_t at = q.vma_end;
    if (!query_vma((uintptr_t)at, &q, NULL, 0) || q.vma_start != at || q.inode != first.inode ||
        q.dev_major != first.dev_major || q.dev_minor != first.dev_minor ||
        q.vma_offset != *file_off + (at - a))
      goto out;
    if (!(q.vma_flags & PQ_VMA_SHARED)) is_private = true;
  }
  if (stat(name, st) != 0 || !S_ISREG(st->st_mode) || (uint64_t)st->st_ino != first.inode ||
      major(st->st_dev) != first.dev_major || minor(st->st_dev) != first.dev_minor ||
      (uint64_t)st->st_size < *file_off + n)
    goto out;
  /* (Not known to be neither: taken for one.) */
  shm = is_private && (statfs(name, &fs) != 0 || (unsigned long)fs.f_type == TMPFS_MAGIC ||
                       (unsigned long)fs.f_type == HUGETLBFS_MAGIC);
  ok = pages_are_files(a, n, shm);
out:
  pthread_mutex_unlock(&g_q_mu);
  if (ok && !(*path = ul__strdup(name))) ok = false;
  return ok;
}

/* ---- shared pieces ---- */

static void file_unref(ul__src_file *f) {
  if (f && atomic_fetch_sub(&f->refs, 1) == 1) {
    free(f->path);
    free(f);
  }
}

/* ---- the chunk cache ----
 * Host copies of writes come and go with the log: every small upload
 * allocates one and a checkpoint frees hundreds at once. Through malloc
 * that cost more than the copy (the heap's top was given back to the
 * kernel and faulted in again, page by page). Freed chunks of up to 64 KiB
 * are kept by size class (powers of two from 256 bytes), up to
 * CHUNK_CACHE_BYTES for the process, and reused. */
#define CHUNK_MIN_SHIFT 8
#define CHUNK_MAX_SHIFT 16
#define CHUNK_CLASSES (CHUNK_MAX_SHIFT - CHUNK_MIN_SHIFT + 1)
#define CHUNK_NO_CLASS UINT32_MAX
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CHUNK_REUSE 0 /* a sanitizer sees every use after a free */
#else
#define CHUNK_REUSE 1
#endif
#define CHUNK_CACHE_BYTES (16u << 20)

typedef union cached_chunk {
  union cached_chunk *next;
  ul__chunk c;
} cached_chunk;

static pthread_mutex_t g_chunk_mu = PTHREAD_MUTEX_INITIALIZER;
static cached_chunk *g_chunk_free[CHUNK_CLASSES];
static size_t g_chunk_cached; /* bytes, under g_chunk_mu */

static uint32_t chunk_class(size_t bytes) {
  uint32_t k = CHUNK_MIN_SHIFT;
  while (k <= CHUNK_MAX_SHIFT && ((size_t)1 << k) < bytes) k++;
  return k <= CHUNK_MAX_SHIFT ? k - CHUNK_MIN_SHIFT : CHUNK_NO_CLASS;
}

static ul__chunk *chunk_alloc(size_t bytes) {
  uint32_t cls = chunk_class(bytes);
  ul__chunk *c = NULL;
  if (cls != CHUNK_NO_CLASS) {
    if (ul__malloc_should_fail()) return NULL;
    pthread_mutex_lock(&g_chunk_mu);
    cached_chunk *h = g_chunk_free[cls];
    if (h) {
      g_chunk_free[cls] = h->next;
      g_chunk_cached -= (size_t)1 << (cls + CHUNK_MIN_SHIFT);
    }
    pthread_mutex_unlock(&g_chunk_mu);
    c = h ? &h->c : malloc((size_t)1 << (cls + CHUNK_MIN_SHIFT));
  } else {
    c = ul__malloc(bytes);
  }
  if (c) c->cls = cls;
  return c;
}

static void chunk_free(ul__chunk *c) {
  if (c->cls != CHUNK_NO_CLASS) {
    size_t size = (size_t)1 << (c->cls + CHUNK_MIN_SHIFT);
    pthread_mutex_lock(&g_chunk_mu);
    if (CHUNK_REUSE && g_chunk_cached + size <= CHUNK_CACHE_BYTES) {
      cached_chunk *h = (cached_chunk *)c;
      uint32_t cls = c->cls;
      h->next = g_chunk_free[cls];
      g_chunk_free[cls] = h;
      g_chunk_cached += size;
      c = NULL;
    }
    pthread_mutex_unlock(&g_chunk_mu);
  }
  free(c);
}

static void chunk_unref(ul__chunk *c) {
  if (c && atomic_fetch_sub(&c->refs, 1) == 1) chunk_free(c);
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
  /* Writes under 64 KiB are copied without asking: the proof's system
   * calls (about 3 us) cost as much as such a copy, and a uniform or a
   * token's input written at every step must cost what Dawn's own copy
   * does, not a round trip into the kernel. */
  if (len < UL__PROV_MIN_FILE || !file_range_of(data, len, &path, file_off, &st)) return UL_OK;
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

ul__chunk *ul__chunk_new(const void *data, uint64_t len) {
  ul__chunk *c = len > SIZE_MAX - sizeof *c ? NULL : chunk_alloc(sizeof *c + (size_t)len);
  if (!c) return NULL;
  atomic_store(&c->refs, 1);
  c->len = len;
  memcpy(c->bytes, data, (size_t)len);
  return c;
}

void ul__chunk_unref(ul__chunk *c) { chunk_unref(c); }

ul_status ul__prov_write(ul__prov *p, uint64_t off, uint64_t len, ul__src_file *file, uint64_t file_off,
                         uint64_t hash, ul__chunk *chunk) {
  ul__extent e = {off, len, NULL, 0, 0, NULL, 0};
  if (file) {
    e.file = file;
    e.file_off = file_off;
    e.hash = hash;
  } else {
    e.chunk = chunk;
  }
  extent_ref(&e);
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
