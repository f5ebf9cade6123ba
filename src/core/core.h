/* Internal to unlost: the env and device objects shared by core, res and
 * exec. Lock order: env->mu, then device->mu, then any pool or tracker lock.
 * The loss-record lock in loss.c (ul__lost_lock) is taken inside WebGPU
 * callbacks (device lost, uncaptured error, work done) and by metrics; under
 * it a callback may record into the health monitor (its own mutex, and
 * device->hev_mu), and nothing else: it is never held across a call into
 * WebGPU or a user callback, and device->mu is never taken under it. No
 * unlost lock is held while a user callback runs: events are queued under
 * device->mu and delivered by ul__device_unlock(). */
#ifndef UL_CORE_H
#define UL_CORE_H

#include "internal.h"
#include "wgpu/procs.h"
#include "track/timeline.h"

struct ul__res;      /* src/res/res.h */
struct ul__health;   /* src/health/health.h */
struct ul__health_event;
struct ul__tracker;  /* src/track/track.h */

struct ul_env {
  pthread_mutex_t mu;
  ul__wgpu_lib lib;      /* the loaded implementation */
  const ul__wgpu *wgpu;  /* the table in use: lib.procs or the chaos wrapper */
  struct ul__chaos *chaos;
  WGPUInstance instance;
  /* A second instance that sees only the CPU (lavapipe) Vulkan driver, made
   * on first need: Dawn has no adapter enumeration and its "fallback
   * adapter" is SwiftShader only, so this is how the CPU adapter is found
   * on a machine that also has a GPU. Under mu. */
  WGPUInstance cpu_instance;
  bool cpu_instance_tried;
  bool timed_wait;
  bool allow_null_backend;
  int device_count;      /* under mu */
  /* Devices whose release did not finish by its deadline (a kernel that
   * never ends): their threads still run inside the implementation, so it
   * stays loaded and its instance alive for the rest of the process. */
  _Atomic unsigned abandoned_devices;
  /* Lost devices being released in the background after a recovery
   * (ul__native_release_async, async_jobs), under rel_mu; rel_cv signals
   * each end. */
  pthread_mutex_t rel_mu;
  pthread_cond_t rel_cv;
  /* Native devices being built and torn down, under rel_mu: the
   * implementation is never asked to build one device while it destroys
   * another (src/core/native.c). */
  unsigned building, tearing;
  struct ul__teardown *teardowns;
  /* Background releases, joined once ended (ul__native_releases_wait). */
  struct ul__async_release *async_jobs;
  /* Compiled pipelines kept across devices (src/core/blobcache.c); NULL
   * when off or not Dawn. Not for the CPU adapter unless blobs_on_cpu. */
  struct ul__blob_cache *blobs;
  bool blobs_on_cpu;
};

#define UL__MAX_PENDING_EVENTS 16

typedef struct ul__pending_event {
  ul_event ev;
  char message[256];
} ul__pending_event;

/* One submission of a command list, for loss forensics. */
#define UL__FLIGHTS 64
#define UL__LOSSES_KEPT 16
typedef struct ul__flight {
  uint64_t serial;        /* 0: an empty slot */
  uint64_t submitted_ns;
  uint64_t done_ns;       /* 0: not known finished; UINT64_MAX: lost with its device */
  const char *file;       /* the list's creation site */
  int line;
  char label[64];
  char pipelines[128];
} ul__flight;

/* What a device asks of the implementation beyond ul_device_desc (the
 * webgpu.h front door's devices): features and limits in WebGPU's terms,
 * and the program's Dawn toggles, asked of every native device it gets.
 * Owned by the device (deep copies). */
typedef struct ul__device_req {
  uint32_t feature_count;
  uint32_t *features;
  bool has_limits;
  WGPULimits limits;       /* nextInChain NULL */
  uint32_t enabled_count, disabled_count;
  char **enabled, **disabled;
} ul__device_req;
/* A deep copy of `src` into *dst; false when out of memory (nothing held). */
bool ul__device_req_copy(ul__device_req *dst, const ul__device_req *src);
void ul__device_req_free(ul__device_req *r);

struct ul_device {
  ul_env *env;
  ul__device_req *req;     /* NULL: unlost.h's device */
  const ul__wgpu *wgpu;
  pthread_mutex_t mu;      /* serializes every call into WebGPU for this device */
  char *label;
  ul_device_desc desc;     /* copy; desc.label points at `label` */
  ul_site site;

  /* native objects of the current epoch (under mu) */
  WGPUInstance instance;   /* the instance the current device came from (not owned) */
  WGPUAdapter adapter;
  WGPUDevice device;
  WGPUQueue queue;
  /* Lost devices held while a buffer keeps a mapping made on one of them
   * (releasing the last reference would free the mapped memory). */
  WGPUDevice *kept_devices;
  struct ul__native_ctx **kept_ctx; /* each kept device's (a reference): its release hooks */
  uint32_t kept_count, kept_cap;
  WGPULimits limits;
  ul_adapter_info info;
  uint64_t epoch;          /* epoch of the current native device */
  uint64_t epoch_seq;      /* last epoch handed out (epochs never repeat) */
  _Atomic int state;       /* ul_device_state */
  bool on_fallback;
  bool synchronized; /* the current native device's (ul__native.synchronized) */
  bool host_mapped;  /* the current native device's (ul__native.host_mapped) */
  bool hung;         /* the current native device was declared hung (ul__native.hung) */
  bool destroying;
  /* The program's logging callback (webgpu.h door), set on every native
   * device this device adopts (under mu). */
#if !UL_WGPU_STABLE /* Dawn's, not in the stable header */
  WGPULoggingCallbackInfo logging;
#endif
  uint32_t recovery_wait_ms;
  uint64_t rng;            /* jitter generator state */

  /* loss record, written by the lost callback under a leaf lock in loss.c */
  _Atomic bool lost;
  uint32_t lost_reason;
  uint64_t lost_at_ns;
  char lost_message[256];
  uint64_t losses_total;       /* under the loss-record lock */
  uint64_t recoveries_total;   /* under the loss-record lock and mu */
  uint64_t recovery_ns_total;  /* from each loss to its recovery, summed; the same */
  _Atomic uint64_t uncaptured_errors;
  char uncaptured_message[984]; /* the last one's (under g_lost_mu) */
  uint32_t uncaptured_type;      /* the last one's WGPUErrorType (under g_lost_mu) */
  /* Set (under mu) between ul__scope_push and ul__scope_pop: an uncaptured
   * error then belongs to the call in the scope, which reports it. */
  _Atomic bool in_scope;
  uint64_t scope_mark; /* uncaptured_errors at the push (under mu) */

  /* events queued under mu, delivered after unlock */
  ul__pending_event pending[UL__MAX_PENDING_EVENTS];
  int pending_count;
  /* Set while a thread recovers the device; it may drop mu to run the
   * program's restore callbacks, and other callers wait on `recovered`. */
  bool recovering;
  pthread_t recovering_thread;
  pthread_cond_t recovered;
  /* Liveness (src/recover/gate.c), under mu: recoveries since a call last
   * got through; whether a stall already moved the work to the fallback. */
  uint32_t stalled_recoveries;
  bool stall_moved;
  /* Time spent recovering (gate.c), under mu: nanoseconds per bucket of
   * UNLOST_REBUILD_WINDOW_MS / UL__REBUILD_BUCKETS, each with the index of
   * the bucket of time it holds; the window starts no earlier than
   * rebuild_origin_ns (the first loss, or the last move for this rule). */
  uint64_t rebuild_busy_ns[20], rebuild_busy_at[20];
  uint64_t rebuild_origin_ns;
  uint64_t entry_epoch; /* the epoch the last call entered (ul__device_enter) */
  /* Sixteenths of the log's bound at which a checkpoint to make room last
   * failed (src/engine/commit.c), under mu. */
  uint32_t log_soft_tried;
  /* The same for an asynchronous checkpoint that would not start (its
   * copies too large, a texture changed): not tried again at every call
   * until the log grows by another sixteenth or a checkpoint commits. */
  uint32_t log_async_tried;
  bool no_async_checkpoints; /* UNLOST_CHECKPOINT_ASYNC=0 at its create */

  struct ul__native_ctx *native_ctx; /* callback context of `device` */
  struct ul__res *res;         /* resource registry (src/res) */
  /* health (src/recover/vitals.c) */
  struct ul__health *health;   /* NULL when disabled */
  void *recovery_hist;         /* ul__prom_hist of recovery seconds */
  pthread_mutex_t hev_mu;      /* leaf: guards the health events below */
  ul_health_state hev_state[UL__MAX_PENDING_EVENTS];
  char hev_reason[UL__MAX_PENDING_EVENTS][112];
  /* Written under hev_mu (the monitor's listener may run on a WebGPU
   * callback thread); atomic so that ul__device_unlock may look at it
   * without the lock before taking it. */
  atomic_int hev_count;
  uint64_t last_watchdog_ns;
  bool moved_for_health;       /* on the fallback because the GPU was BROKEN */
  _Atomic uint64_t last_submit_serial; /* newest submission the monitor follows */
  /* Submissions are followed to their end one at a time (vitals.c): the
   * followed one covers every submission before it (the queue runs in
   * order). Under the device lock, but wd_armed, which the done callback
   * clears. */
  atomic_bool wd_armed;        /* a followed submission is in flight */
  uint64_t wd_epoch;           /* the epoch wd_armed and wd_uncovered are of */
  uint64_t wd_newest;          /* newest submission */
  uint32_t wd_uncovered;       /* submissions since the followed one, not covered yet */
  /* Bumped when the health monitor asks for eviction (memory pressure):
   * each buffer pool empties its free list when it sees a new value. */
  _Atomic uint32_t evict_generation;
  struct ul__tracker *tracker; /* accounting (src/track) */
  /* Loss forensics (src/core/forensics.c), under the loss-record lock:
   * the last UL__FLIGHTS submissions of command lists, and the last
   * UL__LOSSES_KEPT losses with what was in flight. */
  ul__flight flights[UL__FLIGHTS];
  uint64_t flights_head;            /* submissions ever noted */
  ul_loss_info *losses;             /* [UL__LOSSES_KEPT], allocated at the first loss */
  uint64_t losses_noted;            /* losses ever noted */
  bool loss_forced;                 /* the newest was noted by a forced loss that is not recorded yet */
  /* The phases of the last rebuild (recover/), for the timeline. */
  ul__tl_phases phases;
  /* The queue (src/core/transfer.c, staging.c), under mu. */
  uint64_t submit_serial;      /* last serial handed out */
  uint64_t done_serial;        /* every submission up to this one finished */
  struct ul__staging *staging; /* reused staging buffers */
  uint64_t staging_ahead_bytes;   /* upload bytes filled ahead (ul__staging_ahead) */
  uint64_t staging_ahead_dropped; /* fills ahead released before their upload came */
  /* Buffers that keep a mapping made on a device since lost: such a device
   * is released, not destroyed (that would free the mapped memory the
   * program still holds), and kept until none is left (under mu). */
  uint32_t maps_kept;
  /* The device asked for ahead, for the next recovery (standby.c). */
  struct ul__standby *standby;
  /* SOURCE buffers made and filled on the standby the current device came
   * from, for its first rebuild (ul__prefill_take; under mu). */
  struct ul__prefill *prefills;
  uint64_t prefill_taken;  /* rebuilt buffers that took one */
  uint64_t prefill_used;   /* ... whose contents were the file's still: no restore */
  /* Restore on demand (res/pool.c; under mu): objects a rebuild left for
   * their first use and their bytes, still to put back; and those put back
   * at a use, by the stream behind the submissions, before a checkpoint. */
  uint64_t restore_pending, restore_pending_bytes;
  uint64_t restored_at_use, restored_streamed, restored_flushed;
  /* The same for the metrics, read without mu: objects put back on demand,
   * tries a loss interrupted, bytes still to put back. */
  _Atomic uint64_t restored_total, restore_interrupted_total, restore_pending_gauge;
  /* The next standby is built once the contents a recovery left for their
   * first use are back: building it (and filling it ahead) beside them
   * would take the bus and the CPU from them (under mu). */
  bool standby_after_restore;
};

/* ---- callback records (src/core/callback.c) ----
 * The outcome of one WebGPU callback: the one record type for every
 * callback unlost waits for (maps, queue work done, error scopes, adapter
 * and device requests). Shared by the waiter and the callback, each holding
 * a reference: a callback may fire after its wait timed out or its buffer
 * was destroyed (at the latest when the instance is released), so the last
 * one to let go frees it. */
typedef struct ul__cb {
  _Atomic int refs;
  _Atomic bool done;   /* set last, with release order */
  uint32_t status;
  uint32_t type;       /* an error scope's error type; a request's: 0 adapter, 1 device */
  void *object;        /* a request's adapter or device */
  struct ul__cb *next; /* adapter.c: abandoned requests */
  /* Sized so the whole record stays within malloc's per-thread cache
   * (1 KiB): three are made per create, for its error scopes. Longer
   * messages are cut. */
  char message[984];
} ul__cb;
_Static_assert(sizeof(ul__cb) <= 1024, "ul__cb outgrew malloc's thread cache");
/* A record with two references: the waiter's and the callback's. */
ul__cb *ul__cb_new(void);
void ul__cb_unref(ul__cb *c);
/* What every callback does: records the outcome, marks it done, drops
 * the callback's reference. */
void ul__cb_finish(ul__cb *c, uint32_t status, uint32_t type, void *object, WGPUStringView message);
/* The callback of every (status, message) record: maps and queue work done
 * (WGPUBufferMapCallback and WGPUQueueWorkDoneCallback have one shape). */
void ul__cb_on_status(uint32_t status, WGPUStringView message, void *u1, void *u2);

/* ---- loss forensics (src/core/forensics.c) ---- */
/* Notes a submission of a command list (under mu). */
void ul__flight_begin(ul_device *d, uint64_t serial, const char *label, const char *file, int line,
                      const char *pipelines);
/* Marks every submission up to `serial` finished (the queue runs in
 * order): the first under the loss-record lock, the second under mu. */
void ul__flight_done_through_locked(ul_device *d, uint64_t serial, uint64_t now);
void ul__flight_done_upto(ul_device *d, uint64_t serial, uint64_t now);
/* At a loss of the current native device (under the loss-record lock):
 * what was in flight, into the device's list of losses. */
void ul__forensics_loss_locked(ul_device *d, uint64_t epoch, uint32_t reason, uint64_t at_ns,
                               const char *message);
/* Before a forced loss (under mu): takes the snapshot now; the loss that
 * follows fills in the implementation's message. */
void ul__forensics_loss_forced(ul_device *d, const char *message);
/* After the forced loss's request: a snapshot that no loss followed is
 * dropped. */
void ul__forensics_loss_forced_done(ul_device *d);
/* The device's latest loss into *out (number 0: none). */
void ul__forensics_last(ul_device *d, ul_loss_info *out);
/* "'matmul' (model.c:212) had run 2.31 s" for the oldest submission in
 * flight of `li`, or "nothing was in flight (last finished: 'x' ...)". */
void ul__forensics_line(const ul_loss_info *li, char *buf, size_t cap);
/* The "losses" member of the report, into a malloc'd string (NULL when
 * out of memory). */
char *ul__forensics_json(ul_device *d);

/* Locks without recovery (for destroy and reads of state). */
void ul__device_lock(ul_device *d);
/* Unlocks and delivers queued events with no lock held. */
void ul__device_unlock(ul_device *d);
/* Queues an event (under mu). */
void ul__device_emit(ul_device *d, ul_event_kind kind, uint32_t attempt,
                     double delay_ms, const char *message);
/* True when a loss was recorded and not yet processed (any thread). */
bool ul__device_loss_pending(ul_device *d);
/* Records a loss of the current native device that arrived as an error
 * (a map or wait that says the device is lost) as if the lost callback had
 * run; a loss already recorded is kept. */
void ul__device_note_loss(ul_device *d, const char *message);

/* The leaf lock that guards loss records and callback contexts, for the
 * callbacks of src/recover/vitals.c. */
void ul__lost_lock(void);
void ul__lost_unlock(void);
/* The callback context of the current native device: a reference for a
 * callback that may fire later; the owner is NULL once the device let go. */
/* A native device with what belongs to it (native.c). */
typedef struct ul__native {
  WGPUInstance instance;
  WGPUAdapter adapter;
  WGPUDevice device;
  WGPUQueue queue;
  WGPULimits limits;
  ul_adapter_info info;
  struct ul__native_ctx *ctx;
  uint64_t adapter_ns; /* how long the adapter request took */
  /* The implementation serializes the calls on this device itself (Dawn's
   * ImplicitDeviceSynchronization): its teardown may run on a thread of
   * its own while the program still releases objects made on it. */
  bool synchronized;
  /* Buffers over host memory may be made on it (res/backing.c). */
  bool host_mapped;
  /* Declared hung: its teardown waits for work that never ends, so no
   * build waits for it. */
  bool hung;
  /* A standby's: SOURCE buffers made and filled on it ahead (prefill.h). */
  struct ul__prefill *prefills;
} ul__native;
/* The members a ul_device holds of its current native device under the
 * same names (ul__native_adopt, ul__native_current). */
#define UL__NATIVE_SHARED(X) X(instance) X(adapter) X(device) X(queue) X(limits) X(info) X(synchronized) X(host_mapped)
/* Requests an adapter (the fallback one when asked) and a device for
 * epoch `epoch`, bounded by the recovery config's request timeout. On
 * failure nothing is held. No lock held. */
ul_status ul__native_build(ul_device *d, bool fallback, uint64_t epoch, ul__native *n);
/* Releases `n` like ul__native_release, but destroys its device and
 * releases its adapter on a thread of its own, not waited for: a recovery
 * does not wait for the lost device's teardown (60-110 ms on an H200).
 * Only for a device the implementation synchronizes (n->synchronized) and
 * none of whose mappings is kept; any other is released here. Under mu. */
void ul__native_release_async(ul_device *d, ul__native *n);
/* Releases command buffer `cb`, encoded on native device `on`: now, or,
 * when that device is being destroyed in the background, on the thread
 * destroying it, after the destroy. (By device, not epoch: a device lost
 * again during a rebuild is adopted back under the attempt's epoch.)
 * Under mu. */
void ul__native_cmdbuf_release(ul_device *d, WGPUCommandBuffer cb, WGPUDevice on);
/* Waits until the env's background releases ended, up to the device's
 * release deadline; those still running then are counted abandoned. */
void ul__native_releases_wait(ul_device *d);
/* Makes `n` the device's current native device (the epoch chosen). */
void ul__native_adopt(ul_device *d, ul__native *n, uint64_t epoch);
/* The device's current native device, as a ul__native. */
void ul__native_current(ul_device *d, ul__native *n);
/* Releases `n` (bounded: a device that does not let go is abandoned to a
 * thread; one a kept mapping needs is held). */
void ul__native_release(ul_device *d, ul__native *n);
/* ---- the standby device (standby.c) ----
 * A native device asked for ahead on a thread of its own, for the next
 * recovery to begin on. UNLOST_STANDBY: 0 none, 1 on any adapter, 2 (the
 * default) on GPU adapters; Dawn only. */
typedef struct ul__standby ul__standby;
typedef struct ul__standby_counts {
  int mode;
  bool ready;      /* one is built and not taken */
  bool pending;    /* one is being built or ready: a take gets its result */
  uint64_t built;  /* builds that gave one */
  uint64_t failed; /* builds that gave none */
  uint64_t used;   /* recoveries that began on one */
  uint64_t dead;   /* recoveries that found it lost as well */
  uint64_t prefilled;       /* SOURCE buffers made and filled ahead on standbys */
  uint64_t prefilled_bytes; /* their bytes, in all */
  uint64_t ready_bytes;     /* those on the standby built and not taken */
} ul__standby_counts;
/* At create (the option read), before the first start. */
ul_status ul__standby_init(ul_device *d);
/* Starts building one unless one is built or being built (after create
 * and after each recovery, with the device's adapter current). */
void ul__standby_start(ul_device *d);
/* For a recovery's first attempt, no lock held: the standby into *n for
 * epoch `epoch` (waiting for a build under way), or false: none, or lost
 * as well (then released). */
bool ul__standby_take(ul_device *d, uint64_t epoch, ul__native *n);
/* At destroy, no lock held: waits (bounded) for a build under way,
 * releases it. A build that outlasts the wait is left running. */
void ul__standby_close(ul_device *d);
/* The last step of a destroy: `fin` frees the device's memory, now, or,
 * when the close left a build running (which reads the device), by that
 * build's thread once it ends. */
void ul__standby_free_device(ul_device *d, void (*fin)(ul_device *));
void ul__standby_get_counts(ul_device *d, ul__standby_counts *out);
/* For tests and benchmarks: waits up to `ns` for a standby being built;
 * true when one is built and not taken (false at once when none is). */
bool ul__standby_wait_ready(ul_device *d, uint64_t ns);
/* For tests and benchmarks: makes the standby lost (waiting for its
 * build), as a reset of the whole GPU would. */
ul_status ul__standby_lose(ul_device *d);
/* The SOURCE buffers a standby makes and fills ahead, within
 * UNLOST_STANDBY_PREFILL_MB: registered at a buffer's create, gone when it
 * is freed. Best effort (out of memory: none made ahead). A leaf lock. */
void ul__standby_source_add(ul_device *d, uint32_t id, const char *label, uint64_t usage, uint64_t size,
                            const char *path, uint64_t offset, uint64_t file_size, int64_t mtime_ns);
void ul__standby_source_remove(ul_device *d, uint32_t id);
/* The buffer made ahead for object `id` on the current device, unlinked
 * (the caller frees it), or NULL. Under mu. */
struct ul__prefill *ul__prefill_take(ul_device *d, uint32_t id);
/* Frees those left on the device (after a rebuild's objects; at destroy). */
void ul__prefills_drop(ul_device *d);

/* The recorded loss's reason and message; marking the device lost (a
 * failed move); counting a recovery (for metrics). Under the loss lock. */
void ul__device_loss_info(ul_device *d, uint32_t *reason, char *msg, size_t cap);
void ul__device_set_lost(ul_device *d, const char *message);
void ul__device_count_recovery(ul_device *d);
/* How long a native device's release may take before it is abandoned. */
uint64_t ul__device_release_deadline_ns(const ul_device *d);

struct ul__native_ctx *ul__native_ctx_ref(ul_device *d);
void ul__native_ctx_unref(struct ul__native_ctx *c);
/* The implementation's lost callback ran for it: nothing runs on it any more. */
bool ul__native_ctx_drained(struct ul__native_ctx *c);
/* Calls fn(arg) once the native device is released (on the releasing
 * thread, no lock held), or never when it is not seen released (a device
 * abandoned to a thread). False, and nothing registered, without memory. */
bool ul__native_ctx_on_release(struct ul__native_ctx *c, void (*fn)(void *), void *arg);
/* Drops the hooks of fn not run yet whose gone(arg) is true (gone frees what
 * arg holds; it runs under an unlost lock and calls nothing else). */
void ul__native_ctx_prune(struct ul__native_ctx *c, void (*fn)(void *), bool (*gone)(void *));
/* Hooks registered and not run yet. */
uint32_t ul__native_ctx_hook_count(struct ul__native_ctx *c);
ul_device *ul__native_ctx_owner(struct ul__native_ctx *c, uint64_t *epoch);

/* Health (src/recover/vitals.c). All but the first two under d->mu. */
ul_status ul__device_health_init(ul_device *d);
void ul__device_health_fini(ul_device *d);
ul_status ul__device_health_gate(ul_device *d);
void ul__device_health_loss(ul_device *d);
void ul__device_health_recovered(ul_device *d, double seconds);
void ul__device_health_submitted(ul_device *d, uint64_t serial, bool first_use);
/* Follows the newest submission when none is followed and some are not
 * covered yet (at a call's entry, under the device lock). */
void ul__device_follow_uncovered(ul_device *d);
/* An error from an error scope (late=false: the call that made it knows
 * it), or one that arrived late through the uncaptured-error callback. */
void ul__device_health_error(ul_device *d, ul_status s, bool late);
void ul__device_health_read(ul_device *d, ul_status s, uint64_t latency_ns);
/* Moves queued health events into the device's event list (under d->mu). */
void ul__device_health_events(ul_device *d);

/* Waits for `future` (flag set by its callback) up to timeout_ns, using
 * timed WaitAny when the instance supports it and polling otherwise. */
ul_status ul__env_wait(ul_env *env, WGPUInstance inst, WGPUFuture future, _Atomic bool *done,
                       uint64_t timeout_ns);
/* The same through table `w`. */
ul_status ul__env_wait_with(ul_env *env, const ul__wgpu *w, WGPUInstance inst, WGPUFuture future,
                            _Atomic bool *done, uint64_t timeout_ns);
/* ---- the pipeline store (src/core/blobcache.c) ---- */
typedef struct ul__blob_cache ul__blob_cache;
typedef struct ul__blob_stats {
  size_t bytes, cap;
  uint64_t hits, misses, stores, dropped;
} ul__blob_stats;
/* A store of at most `cap` bytes; NULL when cap is 0 or out of memory. */
ul__blob_cache *ul__blob_cache_new(size_t cap);
void ul__blob_cache_free(ul__blob_cache *c);
/* Fills `desc` to chain into a device descriptor ahead of `next`. */
#if !UL_WGPU_STABLE /* Dawn's cache descriptor: no cache in a stable build */
void ul__blob_cache_chain(ul__blob_cache *c, WGPUDawnCacheDeviceDescriptor *desc, WGPUChainedStruct *next);
#endif
void ul__blob_cache_stats(ul__blob_cache *c, ul__blob_stats *out);

/* The CPU-only instance (see ul_env.cpu_instance); NULL when there is none. */
WGPUInstance ul__env_cpu_instance(ul_env *env);

/* Around WebGPU calls whose errors a caller must hear (under mu): pop
 * returns the first error the implementation reported since push -- out
 * of memory, validation, internal -- as a status with its message,
 * prefixed by `what` (no prefix when NULL). No WebGPU error scope is
 * opened: Dawn reports an error with none open to the uncaptured-error
 * callback during the call that made it (src/core/scope.c). */
void ul__scope_push(ul_device *d);
ul_status ul__scope_pop(ul_device *d, const char *what);

/* Whether the implementation reported an uncaptured error since the count
 * was `mark` (d->uncaptured_errors); its message into msg. Dawn reports
 * them during the call that caused them, so a check after a call names
 * that call's error. */
bool ul__device_uncaptured_since(ul_device *d, uint64_t mark, char *msg, size_t cap);
/* The same, with the last one's WGPUErrorType into *type. */
bool ul__device_uncaptured_since_typed(ul_device *d, uint64_t mark, char *msg, size_t cap, uint32_t *type);
/* Releases the devices kept for mappings; called once none is kept. */
void ul__device_release_kept(ul_device *d);

#endif
