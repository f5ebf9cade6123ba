/* Internal to unlost: resource objects and the handle pool (src/res/).
 * Every object keeps a deep copy of its descriptor so that it can be
 * rebuilt on another device; `native` belongs to `epoch`. */
#ifndef UL_RES_OBJ_H
#define UL_RES_OBJ_H

#include "core/transfer.h"
#include "res/res.h"
#include "track/track.h"

/* In rebuild order: what an object refers to comes before it. */
/* X(NAME, TRACK_KIND): the registry's kinds, parents before the objects
 * built from them (a rebuild creates in this order, a teardown releases in
 * the reverse), each with the tracker's kind, whose name is its name in
 * every message and report (ul__obj_kind_name). */
#define UL__OBJ_KIND_MAP(X)                                                              \
  X(SHADER, SHADER_MODULE) X(BGL, BIND_GROUP_LAYOUT) X(PLAYOUT, PIPELINE_LAYOUT)        \
  X(PIPELINE, COMPUTE_PIPELINE) X(PIPELINE_BGL, BIND_GROUP_LAYOUT) X(BUFFER, BUFFER)      \
  X(TEXTURE, TEXTURE) X(VIEW, TEXTURE_VIEW) X(SAMPLER, SAMPLER) X(QUERY_SET, QUERY_SET)   \
  X(BIND_GROUP, BIND_GROUP)
typedef enum ul__obj_kind {
#define UL__OBJ_KIND_ENUM(name, track) UL__OBJ_##name,
  UL__OBJ_KIND_MAP(UL__OBJ_KIND_ENUM)
#undef UL__OBJ_KIND_ENUM
  UL__OBJ_KIND_COUNT,
} ul__obj_kind;

typedef enum ul__obj_state {
  UL__OBJ_VALID = 0,
  UL__OBJ_LOST,      /* contents could not be restored: use is UL_ERR_DEVICE_LOST */
} ul__obj_state;

/* Where host-written bytes came from (provenance.c): a file, shared by
 * the extents that read it, with its state when the program wrote them. */
typedef struct ul__src_file {
  _Atomic int refs;
  char *path;
  uint64_t size, ino, dev;
  int64_t mtime_ns;
} ul__src_file;
/* A host copy of written bytes, shared by reference. */
typedef struct ul__chunk {
  _Atomic int refs;
  uint32_t cls; /* its size class in the chunk cache (provenance.c), or CHUNK_NO_CLASS */
  uint64_t len;
  uint8_t bytes[];
} ul__chunk;
/* One range of a buffer: from a file (file, file_off, hash of its bytes as
 * SOURCE hashes them) or from a host copy (chunk, chunk_off). */
typedef struct ul__extent {
  uint64_t off, len;
  ul__src_file *file;
  uint64_t file_off, hash;
  ul__chunk *chunk;
  uint64_t chunk_off;
} ul__extent;
/* The extents of a buffer, sorted and not overlapping; ranges in none of
 * them are zeros. */
typedef struct ul__prov {
  ul__extent *e;
  uint32_t n, cap;
  uint64_t bytes;
} ul__prov;

/* The largest MAP_READ buffer whose last full mapping is kept (read_copy). */
#define UL__READ_COPY_MAX (4u << 20)

typedef struct ul__buffer_data {
  uint64_t size;
  uint64_t wgpu_usage;
  uint32_t usage;          /* as the caller asked */
  ul_restore restore;
  const void *source_data; /* SOURCE: borrowed */
  char *source_path;       /* SOURCE: owned, absolute */
  uint64_t source_offset;
  uint64_t source_file_size; /* SOURCE file: its size and modification time at */
  int64_t source_mtime_ns;   /* create; a restore refuses a file that changed */
  uint64_t source_hash;      /* SOURCE file: hash of what the first read read, when */
  uint64_t prefill_hash;     /* source_hashed (all of it to 1 MiB, else UL__SOURCE_SAMPLES blocks) */
  /* SOURCE file on the CPU adapter: its range mapped read-only by the
   * first restore and kept (address space, not memory: the pages are the
   * page cache's) for the next ones while it is the same file (buffer_restore.c). */
  void *source_map;
  size_t source_map_len;
  uint64_t source_map_dev, source_map_ino;
  /* On the CPU adapter: the host pages it lives in across devices
   * (res/backing.c), and whether its native buffer is made over them
   * (on_backing). */
  struct ul__backing *backing;
  ul_restore_fn restore_fn;
  void *restore_user;
  uint8_t *shadow;         /* SHADOW: host copy of every write */
  uint8_t *checkpoint;     /* LOG: contents at the last checkpoint (NULL: zeros) */
  /* MAP_READ: what the program's last mapping of it all showed, taken at
   * its unmap (up to UL__READ_COPY_MAX bytes); valid (read_copy_valid)
   * until the buffer is changed again (ul__obj_note_changed): a checkpoint
   * takes it instead of mapping the buffer. */
  uint8_t *read_copy;
  uint64_t read_copy_epoch; /* taken on this device epoch: valid on it only */
  void *map_ptr;
  uint64_t map_offset, map_size;
  /* A native map started for the program and not yet seen to end (the
   * webgpu.h front door's MapAsync, map_started): a checkpoint cannot map
   * it itself, but may wait for it (map_cb: its record, a reference of its
   * own; map_future, map_epoch: the native future and the device it was
   * started on; map_cb_off, map_cb_size: its range) and read the mapping. */
  struct ul__cb *map_cb;
  WGPUFuture map_future;
  uint64_t map_epoch;
  size_t map_cb_off, map_cb_size;
  /* A mapping that outlived its device: the lost device's buffer, kept
   * (not destroyed) so that map_ptr stays valid until ul_buffer_unmap. */
  WGPUBuffer map_old;
  /* The policy chosen from use (the webgpu.h front door's LOG buffers):
   * while the GPU never wrote it (host_only), its contents are where the
   * program's writes came from (prov), which a checkpoint keeps
   * (prov_ckpt) instead of reading them back; the first GPU write makes it
   * a plain LOG buffer (prov_ckpt stays its restore until a checkpoint
   * reads it back). */
  ul__prov prov, prov_ckpt;
  uint32_t map_mode;       /* WGPUMapMode of the mapping */
  /* The flags, together (a buffer's record is per buffer the program has). */
  bool source_hashed;
  /* Its native buffer was made and filled ahead on the standby, from the
   * file whose sample hash was prefill_hash: the restore checks the file
   * as always and, the same, copies nothing (ul__buffer_restore). */
  bool prefilled;
  bool on_backing;
  bool read_copy_valid;
  bool dirty;              /* LOG: changed since the last checkpoint */
  bool mapped;
  bool map_started;
  bool from_use, host_only;
} ul__buffer_data;

/* The engine keeps every object's descriptor in WebGPU's own terms (the
 * native descriptor, deep-copied, handles as registry ids), whichever front
 * door made it: unlost.h's calls translate their descriptors into these,
 * the webgpu.h front door copies the program's. */

/* A texture format's copy unit (format.c): bytes of one block of bw x bh
 * texels; copyable: its whole contents can be read and written by buffer
 * copies (a color format, or depth16/32 and stencil8 through their one
 * aspect), so a checkpoint can keep it. */
typedef struct ul__format_info {
  uint32_t block_bytes, bw, bh;
  bool copyable;
} ul__format_info;
/* false for an unknown format (*out zeroed). */
bool ul__format_info_of(uint32_t wgpu_format, ul__format_info *out);

typedef struct ul__texture_data {
  WGPUTextureDescriptor nd; /* label NULL; viewFormats owned (nd.viewFormats) */
  ul_restore restore;
  ul__format_info fmt;
  uint64_t bytes;          /* estimate */
  uint8_t *shadow;         /* SHADOW: host copy of level 0 */
  /* LOG: every level at the last checkpoint, tightly packed level after
   * level (NULL: zeros), and whether it changed since. */
  uint8_t *checkpoint;
  bool dirty;
  /* Written since its create (by a copy, a kernel or a write): one that
   * cannot be checkpointed (fmt.copyable false) is LOST after a loss. */
  bool written;
} ul__texture_data;

typedef struct ul__view_data {
  uint32_t texture;
  WGPUTextureViewDescriptor nd; /* label NULL */
} ul__view_data;

typedef struct ul__sampler_data {
  WGPUSamplerDescriptor nd; /* label NULL */
} ul__sampler_data;

/* The storage bindings a WGSL module may write (wgsl.c): a conservative
 * reading of its text. */
#define UL__WGSL_MAX_WRITES 64
typedef struct ul__wgsl_writes {
  bool known;
  uint32_t count;
  uint32_t group[UL__WGSL_MAX_WRITES], binding[UL__WGSL_MAX_WRITES];
} ul__wgsl_writes;
/* NULL when the reading cannot tell (or out of memory): every binding may
 * be written. */
ul__wgsl_writes *ul__wgsl_analyze(const char *src, size_t n);
/* Whether binding (group, binding) may be written (true for NULL). */
bool ul__wgsl_may_write(const ul__wgsl_writes *w, uint32_t group, uint32_t binding);

/* The strings of shaders and pipelines keep the length they came with: a
 * NUL inside one is the program's (the implementation answers it), never
 * where the string ends. */
typedef struct ul__shader_data {
  char *wgsl;              /* owned; wgsl_len bytes (and a NUL after them) */
  size_t wgsl_len;
  ul__wgsl_writes *writes; /* owned; NULL: any binding may be written */
} ul__shader_data;

typedef struct ul__bgl_data {
  uint32_t count;
  WGPUBindGroupLayoutEntry *entries; /* owned; nextInChain NULL */
} ul__bgl_data;

/* A layout obtained from a pipeline (GetBindGroupLayout): made again from
 * the rebuilt pipeline. */
typedef struct ul__pipeline_bgl_data {
  uint32_t pipeline, group;
} ul__pipeline_bgl_data;

typedef struct ul__playout_data {
  uint32_t count;
  uint32_t *groups;        /* owned: BGL ids (0: an empty slot) */
  uint32_t immediate_size;
} ul__playout_data;

typedef struct ul__pipeline_data {
  uint32_t shader, layout; /* layout 0: "auto" */
  char *entry;             /* owned; NULL: the module's only entry point */
  size_t entry_len;
  uint32_t constant_count;
  char **constant_keys;    /* owned */
  size_t *constant_key_lens; /* owned */
  double *constant_values; /* owned */
  bool first_use_done;
} ul__pipeline_data;

/* A bind group entry: WebGPU's, with handles as ids (exactly one of
 * buffer, view, sampler). */
typedef struct ul__bg_entry {
  uint32_t binding;
  uint32_t buffer, view, sampler;
  uint64_t offset, size;   /* size WGPU_WHOLE_SIZE: to the end */
} ul__bg_entry;

typedef struct ul__bind_group_data {
  /* The layout: a BGL or PIPELINE_BGL id, or else group `group` of
   * pipeline `pipeline` (unlost.h's bind groups made from a pipeline). */
  uint32_t layout;
  uint32_t pipeline, group;
  uint32_t count;
  ul__bg_entry *entries;   /* owned */
  /* A submit's check found every binding good at this state generation
   * (ul__obj_state_gen) and device epoch: looked at again only when either
   * moved (src/exec/commands.c, check_group). */
  bool good;
  uint64_t good_gen, good_epoch;
} ul__bind_group_data;

typedef struct ul__query_set_data {
  uint32_t type, count;
} ul__query_set_data;

typedef struct ul__obj {
  uint32_t id;
  ul__obj_kind kind;
  ul__obj_state state;
  /* Live objects built from this one (a pipeline from its shader, a bind
   * group from its layout, pipeline and resources), and whether this one
   * counts itself in its parents' (holds_parents, from a successful create
   * on). */
  uint32_t dependents;
  uint64_t epoch;          /* epoch of `native` */
  /* Bind groups and pipelines: the operation log's generation when a
   * logged submission last named it (ul__oplog_names). */
  uint64_t log_gen;
  uint64_t track_id;
  char *label;
  char *lost_why;          /* LOST: what lost it (owned), for the refusals' messages */
  ul_site site;
  void *native;            /* WGPUBuffer, WGPUTexture, ... */
  bool pending;            /* being created: rebuild leaves it alone */
  /* Left unbuilt by a rebuild (a kind that holds no contents: shaders,
   * layouts, pipelines, bind groups): `native` is made from the descriptor
   * at its first lookup on this epoch (ul__obj_realize), so that a
   * recovery pays only for what the program uses again. */
  bool unbuilt;
  /* Buffers and textures made again by a rebuild whose contents are put
   * back at their first use on this epoch (ul__obj_contents), or by the
   * stream behind the submissions (ul__restore_stream), or before a
   * checkpoint (ul__restore_all): restore on demand. */
  bool unrestored;
  /* Destroyed by the program while the operation log still names it or
   * objects built from it live: the handle is dead and the native object
   * released, but the descriptor is kept so that a rebuild or a replay can
   * use it; freed once neither needs it. */
  bool destroyed;
  /* In the device's list of objects changed since the last checkpoint
   * (ul__obj_note_changed). */
  bool noted;
  bool holds_parents;
  union {
    ul__buffer_data buf;
    ul__texture_data tex;
    ul__view_data view;
    ul__sampler_data smp;
    ul__shader_data sh;
    ul__bgl_data bgl;
    ul__pipeline_bgl_data pbgl;
    ul__playout_data pl;
    ul__pipeline_data pipe;
    ul__bind_group_data bg;
    ul__query_set_data qs;
  } u;
} ul__obj;

typedef struct ul__res ul__res;
struct ul__res {
  /* Host pages of ended buffers that the implementation still holds
   * (backing.c): a new buffer of the same size takes them. */
  struct ul__backing *spare[8];
  uint32_t spare_n;
  ul__obj **slots;         /* index 0 unused */
  uint8_t *gens;
  uint32_t cap;
  uint32_t *freeq;         /* FIFO of free slots: reuse is spread out */
  /* Freed records kept for reuse, by kind (pool.c): a program that makes
   * and releases a bind group per dispatch allocates none. */
  struct ul__obj *spare_obj[UL__OBJ_KIND_COUNT];
  uint32_t nspare[UL__OBJ_KIND_COUNT];
  uint32_t fq_head, fq_count, fq_cap;
  uint32_t next_unused;
  uint32_t tag;            /* 1..15, distinguishes devices */
  uint32_t live[UL__OBJ_KIND_COUNT];
  ul__tracker *tracker;
  uint64_t staging_threshold;
  struct ul__reads *reads; /* asynchronous reads in flight (src/exec/reads.c) */
  uint64_t rebuilds;
  bool rebuilding;         /* lookups see destroyed objects (for the replay) */
  uint32_t realizing;      /* the same, while an unbuilt object's parents are made */
  bool restoring;          /* a restore callback runs: its writes are not logged */
  bool lookup_plain;       /* lookups make nothing (a destroy; a use that makes and fills it itself) */
  uint32_t deferred;       /* destroyed objects kept for the log */
  uint64_t destroys;       /* objects destroyed so far (in ul__obj_state_gen) */
  struct ul__oplog *log;   /* src/exec/oplog.c */
  /* The buffers and textures changed since the last checkpoint (their
   * ids, each once: ul__obj.noted), which are all a checkpoint looks at,
   * so that its cost follows what changed, not how many objects live.
   * `noted_all`: one could not be noted (no memory): it looks at all. */
  uint32_t *noted;
  uint32_t nnoted, cap_noted;
  bool noted_all;
  /* Installed by the operation log (exec/): whether work it keeps for a
   * replay names `o`, so that a destroyed `o` must be kept for it. */
  bool (*still_needed)(ul_device *d, ul__obj *o);
};

const char *ul__obj_kind_name(ul__obj_kind k);

/* Makes a buffer or texture LOST for `why` (kept for the messages of the
 * calls refused from now on: ul__obj_lost_why), with a warning when the
 * program still holds it. The first reason stays. */
void ul__obj_mark_lost(ul__obj *o, const char *why);
/* Moves whenever an object of `d` is destroyed or any object is marked
 * LOST: a check of handles made at an unchanged generation (and epoch)
 * would find what it found then. Both doors skip their check on it: the
 * unlost.h command list's encode cache, the webgpu.h submit of what Finish
 * encoded. */
uint64_t ul__obj_state_gen(ul_device *d);
/* ": why" of a LOST object, or "" (for "... lost its contents%s"). */
const char *ul__obj_lost_why(const ul__obj *o);
ul__track_kind ul__obj_track_kind(ul__obj_kind k);

/* Allocates an object and its handle (under d->mu). */
ul_status ul__obj_new(ul_device *d, ul__obj_kind kind, const char *label, const ul_site *site,
                      ul__obj **out);
/* Frees the object and its slot (the native object must be released). */
void ul__obj_free(ul_device *d, ul__obj *o);
/* Looks a handle up; UL_ERR_INVALID_HANDLE (logged) when it is zero, stale,
 * destroyed, of another kind, or of another device. `what` names the call. */
ul_status ul__obj_get(ul_device *d, uint32_t id, ul__obj_kind kind, const char *what,
                      ul__obj **out);
/* Notes that buffer or texture `o` changed (it is dirty, or its host copy
 * is new): the next checkpoint looks at it. Every change a checkpoint must
 * see goes through here. */
void ul__obj_note_changed(ul_device *d, ul__obj *o);
/* The ids of the objects the next checkpoint looks at, into *out
 * (malloc'd; *n of them): those noted, or every object when one could not
 * be. false when out of memory. */
bool ul__obj_noted(ul_device *d, uint32_t **out, uint32_t *n);
/* The object of `id` whatever its kind (destroyed ones kept for the log
 * included), or NULL. */
ul__obj *ul__obj_find_any(ul_device *d, uint32_t id);
/* After a checkpoint committed: only the objects still dirty stay noted. */
void ul__obj_noted_settle(ul_device *d);
/* ul__obj_noted, and the list emptied: what changes from here on is noted
 * afresh (an asynchronous checkpoint tells the changes after its place in
 * the queue from those before). *all: every object was listed because one
 * could not be noted. false when out of memory (nothing emptied). */
bool ul__obj_noted_take(ul_device *d, uint32_t **out, uint32_t *n, bool *all);
/* Notes the objects of ids[0..n) again (a taken list given back); with
 * `only_dirty`, those still changed or being created only. */
void ul__obj_note_ids(ul_device *d, const uint32_t *ids, uint32_t n, bool all, bool only_dirty);
/* Whether every object counts as noted (the list could not grow). */
bool ul__obj_noted_all(ul_device *d);
/* The quiet lookup for internal use: the object named by `id` (destroyed
 * ones kept for the log included), or NULL; logs nothing. */
ul__obj *ul__obj_find(ul_device *d, uint32_t id, ul__obj_kind kind);
/* Releases a mapping kept past its device's loss (map_old), if any. */
void ul__buffer_drop_kept_map(ul_device *d, ul__obj *o);
/* The program's destroy: frees `o`, or keeps it for the operation log. */
void ul__obj_destroy(ul_device *d, ul__obj *o);
/* Counts `o` among the dependents of what it is built from (after a
 * successful create). */
void ul__obj_hold_parents(ul_device *d, ul__obj *o);
/* Frees the records kept for reuse (the registry's end). */
void ul__obj_spares_free(struct ul__res *r);
/* Frees every object kept for the log that no entry names any more (after
 * a checkpoint). */
void ul__obj_free_deferred(ul_device *d);
/* Releases the native object of `o` (no-op when none). */
void ul__obj_release_native(ul_device *d, ul__obj *o);
/* Creates the native object of `o` on the current device (under d->mu),
 * inside error scopes; restores nothing. */
ul_status ul__obj_create_native(ul_device *d, ul__obj *o);
/* The same without error scopes: the caller holds one scope around many
 * creations (the rebuild). Sets o->epoch when an object was returned. */
ul_status ul__obj_create_native_unscoped(ul_device *d, ul__obj *o);
/* True for the kinds a rebuild may leave unbuilt (they hold no contents). */
bool ul__obj_kind_deferrable(ul__obj_kind k);
/* Makes an unbuilt object's native on the current device, its parents
 * first (under d->mu). UL_OK at once for any other object. ul__obj_get
 * calls it: every use of an object's native goes through a lookup. */
ul_status ul__obj_realize(ul_device *d, ul__obj *o);
/* Puts back the contents of a buffer or texture a rebuild left for its
 * first use (o->unrestored), as the rebuild would have; UL_OK at once for
 * any other object. A source that went or changed makes `o` LOST (UL_OK:
 * its use says so); UL_ERR_DEVICE_LOST when the device was lost meanwhile
 * (the next rebuild leaves it for its first use again). Every use of a
 * buffer's or texture's contents calls it first -- a submission that names
 * it, a read, a write, a map, the replay, a checkpoint -- and nothing else
 * does: a lookup, a bind group or a view made from it, a destroy (under
 * d->mu). The public calls use ul__obj_use, which recovers from a loss. */
ul_status ul__obj_contents(ul_device *d, ul__obj *o);
/* The bytes of a buffer's or texture's contents (every level). */
uint64_t ul__obj_contents_bytes(const ul__obj *o);
/* Puts back every object's contents left for their first use. */
ul_status ul__restore_all(ul_device *d);
/* Puts back the contents of objects left for their first use, in handle
 * order, until at least `budget` bytes went (one object at least), behind
 * the work submitted so far: the stream after each submission. Failures
 * are left for the objects' uses to meet. */
void ul__restore_stream(ul_device *d, uint64_t budget);
/* The destroy of objects with no contents (texture_restore.c). */
/* WebGPU's value of a ul_format; 0 for an unknown one (texture_restore.c). */
uint32_t ul__format_wgpu(ul_format f);
/* The size of mip level `level` of texture `o` (a level halves width and
 * height, and the depth of a 3D texture; array layers stay). */
void ul__texture_level_extent(const ul__obj *o, uint32_t level, uint32_t *w, uint32_t *h, uint32_t *depth);
/* A tag for a new device's handles, 1..15 (pool.c). */
uint32_t ul__res_new_tag(void);
/* Tracker bookkeeping around a create. */
ul_status ul__obj_track(ul_device *d, ul__obj *o, uint64_t bytes, bool estimated);

/* A map started for the program on buffer `o`'s native buffer
 * (buffer_restore.c): noted with a reference to its record `cb`, or forgotten
 * (it ended, or the buffer goes). */
void ul__buffer_map_note(ul_device *d, ul__obj *o, struct ul__cb *cb, WGPUFuture native, size_t off, size_t size);
void ul__buffer_map_forget(ul__obj *o);

/* Provenance (provenance.c). */
void ul__prov_clear(ul__prov *p);
/* *dst becomes a copy of src (sharing its files and copies); false when out
 * of memory (*dst unchanged). */
bool ul__prov_copy(ul__prov *dst, const ul__prov *src);
/* Writes smaller than this are always copied (no proof is asked for). */
#define UL__PROV_MIN_FILE 65536u
/* Whether the bytes of [data, data+len) are proven, now, to be a file's
 * (they lie in a read-only mapping of it and none of its pages is the
 * process's own copy): then *file is a new reference to it, with the
 * range's offset and its hash as SOURCE hashes a file (*file NULL
 * otherwise: the caller keeps a copy). */
ul_status ul__prov_source(const void *data, uint64_t len, ul__src_file **file, uint64_t *file_off, uint64_t *hash);
/* Records a write of `len` bytes at `off`: of `file` at file_off when
 * given, else of host copy `chunk` (either referenced, not copied). */
ul_status ul__prov_write(ul__prov *p, uint64_t off, uint64_t len, ul__src_file *file, uint64_t file_off,
                         uint64_t hash, ul__chunk *chunk);
/* A host copy of `len` bytes at `data` (one reference), NULL when out of
 * memory; shared by the operation log and a buffer's extents. */
ul__chunk *ul__chunk_new(const void *data, uint64_t len);
void ul__chunk_unref(ul__chunk *c);
/* Writes the extents back into the rebuilt buffer (a file that changed is
 * UL_ERR_IO naming it). */
ul_status ul__prov_restore(ul_device *d, ul__obj *o, const ul__prov *p);
/* Uploads `len` bytes of file `f` at file_off into dst at dst_off, checked
 * as SOURCE checks its file (size, time, inode, the hash). */
ul_status ul__src_file_upload(ul_device *d, WGPUBuffer dst, uint64_t dst_off, const ul__src_file *f,
                              uint64_t file_off, uint64_t len, uint64_t hash);
void ul__src_file_unref(ul__src_file *f);

/* Per-kind native constructors (buffer.c, texture.c, pipeline.c). */
ul_status ul__buffer_create_native(ul_device *d, ul__obj *o);

/* ---- buffers over host memory kept across devices (backing.c) ---- */
typedef struct ul__backing ul__backing;
/* Larger buffers only: small ones cost little to fault in. */
#define UL__BACKING_MIN (1ull << 20)
/* Whether `o`, made with `bd` on the current device, lives in host pages
 * of its own (the CPU adapter, UNLOST_HOST_BACKING, a large buffer that
 * is not mappable). */
bool ul__backing_wanted(const ul_device *d, const ul__obj *o, const WGPUBufferDescriptor *bd);
/* Makes o's native buffer over its pages (the ones it had, reused when
 * nothing else may use them, else new ones). False, and nothing made,
 * without host memory for them: the implementation's memory then. */
bool ul__backing_create_native(ul_device *d, ul__obj *o, const WGPUBufferDescriptor *bd);
/* Writes o's bytes in place, with no work of the device: only for a
 * native buffer that no work has used yet (a restore before first use).
 * False when o's native buffer is not over its pages. */
bool ul__backing_write(ul__obj *o, uint64_t offset, const void *data, uint64_t size);
/* o's pages when its native buffer is over them, else NULL (same rule). */
void *ul__backing_pages(ul__obj *o);
/* At o's destroy (its native buffer released; the object may be kept for
 * the log): its physical pages go once the work before it is done. */
void ul__backing_discard(ul_device *d, ul__obj *o);
/* At o's end: its pages go once nothing uses them. */
void ul__backing_let_go(ul_device *d, ul__obj *o);
/* At the registry's end: the spare pages go. */
void ul__backing_spares_free(ul_device *d);
/* Buffers made over host pages on one device, at most (then the
 * implementation's memory; tests lower it). */
extern uint32_t ul__backing_records_max;
/* Host memory mapped for buffers now, every device. */
extern _Atomic uint64_t ul__backing_live_bytes;
ul_status ul__texture_create_native(ul_device *d, ul__obj *o);
ul_status ul__view_create_native(ul_device *d, ul__obj *o);
ul_status ul__sampler_create_native(ul_device *d, ul__obj *o);
ul_status ul__shader_create_native(ul_device *d, ul__obj *o);
ul_status ul__bgl_create_native(ul_device *d, ul__obj *o);
ul_status ul__playout_create_native(ul_device *d, ul__obj *o);
ul_status ul__pipeline_create_native(ul_device *d, ul__obj *o);
ul_status ul__bind_group_create_native(ul_device *d, ul__obj *o);
ul_status ul__pipeline_bgl_create_native(ul_device *d, ul__obj *o);
ul_status ul__query_set_create_native(ul_device *d, ul__obj *o);
void ul__obj_free_data(ul__obj *o);
/* A bind group layout by id: a BGL or a PIPELINE_BGL (descriptors.c); as
 * ul__obj_get otherwise. */
ul_status ul__layout_get(ul_device *d, uint32_t id, const char *what, ul__obj **out);

/* Bytes of mip level `level` of texture `o`, tightly packed, and of all its
 * levels (texture_restore.c). */
uint64_t ul__texture_level_bytes(const ul__obj *o, uint32_t level);
uint64_t ul__texture_all_bytes(const ul__obj *o);
/* Reads every level of texture `o` into `dst` (ul__texture_all_bytes of
 * it), waiting for the queue; nothing reaches dst after a loss. */
ul_status ul__texture_download_all(ul_device *d, ul__obj *o, uint8_t *dst, uint64_t timeout_ns);
/* Reads a region of level 0 into `dst` (rows of w texels, tightly packed),
 * waiting up to timeout_ns; nothing reaches dst after a loss (texture_restore.c). */
ul_status ul__texture_read_region(ul_device *d, ul__obj *o, uint32_t x, uint32_t y, uint32_t z, uint32_t w,
                                  uint32_t h, uint32_t depth, void *dst, uint64_t timeout_ns);
/* A region of one level of a texture as a write names it (the operation
 * log keeps it beside the bytes): origin, extent, the bytes' row pitch and
 * rows per image (0: the extent's height in blocks), the level and the
 * aspect (0: all). */
enum { UL__TR_X, UL__TR_Y, UL__TR_Z, UL__TR_W, UL__TR_H, UL__TR_DEPTH, UL__TR_BPR, UL__TR_MIP, UL__TR_ROWS,
       UL__TR_ASPECT, UL__TR_WORDS };
/* Writes a region through the queue (texture_restore.c). */
ul_status ul__texture_write_region(ul_device *d, ul__obj *t, const uint32_t region[UL__TR_WORDS], const void *data,
                                   uint64_t size);
/* Every usage bit a ul_buffer_desc may carry. */
#define UL__ALL_BUFFER_USAGE                                                          \
  (UL_BUFFER_MAP_READ | UL_BUFFER_MAP_WRITE | UL_BUFFER_COPY_SRC | UL_BUFFER_COPY_DST | \
   UL_BUFFER_UNIFORM | UL_BUFFER_STORAGE | UL_BUFFER_INDIRECT)
/* A wait's limit: `ms`, or 30 s for 0. */
#define UL__DEFAULT_TIMEOUT_NS 30000000000ull
static inline uint64_t ul__timeout_ns(uint32_t ms) { return ms ? (uint64_t)ms * 1000000ull : UL__DEFAULT_TIMEOUT_NS; }
/* MAP_WRITE buffers cannot be written by the queue: a SHADOW one gets its
 * host copy through a mapping at creation (after a loss too). */
bool ul__buffer_filled_at_creation(const ul__buffer_data *b);
/* Restores the contents of a rebuilt buffer or texture by its policy. */
ul_status ul__buffer_restore(ul_device *d, ul__obj *o);
ul_status ul__texture_restore(ul_device *d, ul__obj *o);
/* For the rebuild, before it makes the objects: begins reading a large
 * SOURCE buffer's file into staging memory for its restore
 * (ul__staging_ahead). 1: begun; 0: this buffer's restore moves nothing
 * through staging (or fails first: the file is not as it was); -1: it
 * does, and nothing was begun (from memory, or no staging buffer). */
int ul__buffer_restore_ahead(ul_device *d, ul__obj *o);
/* Writes up to this size go through wgpuQueueWriteBuffer; larger ones
 * through the device's staging ring (or, a large SOURCE file, a buffer over
 * its pages). */
#define UL__STAGING_THRESHOLD (1ull << 20)
/* Uploads `size` bytes at `offset` through the queue (staging for large). */
ul_status ul__buffer_upload(ul_device *d, ul__obj *o, uint64_t offset, const void *data,
                            uint64_t size);
/* Copies `size` bytes at `offset` of the buffer to host memory, waiting
 * for the queue (under d->mu). */
ul_status ul__buffer_download(ul_device *d, ul__obj *o, uint64_t offset, void *dst,
                              uint64_t size, uint64_t timeout_ns);

#endif
