/* The engine's front: the one interface both front doors use (src/api/,
 * unlost.h; src/webgpu/, webgpu.h). Each door checks its own rules,
 * translates its descriptors into the engine's (native descriptors with
 * handles as ids, specs), enters the device and calls these; the engine
 * makes, records and recovers. */
#ifndef UL_ENGINE_ENGINE_H
#define UL_ENGINE_ENGINE_H

#include "exec/cmd.h"
#include "recover/recover.h"

#include <sys/stat.h>

/* ---- a door's way in and out (src/engine/entry.c) ---- */
/* Enters device `d` for a call: locks it and makes it usable (a recorded
 * loss processed, recovery run when needed); on failure it is unlocked
 * again and the status says why (ul__device_enter). `gate` false skips the
 * breaker (waiting for work already submitted is always allowed). */
ul_status ul__engine_enter(ul_device *d);
ul_status ul__engine_enter_ex(ul_device *d, bool gate);
/* ul__device_enter_quiet (recover/recover.h) by the same way. */
ul_status ul__engine_enter_quiet(ul_device *d);
/* Locks `d` without recovery (a destroy, reads of state); unlocks after
 * an enter or a lock, delivering queued events with no lock held. */
void ul__engine_lock(ul_device *d);
void ul__engine_unlock(ul_device *d);
/* Whether a loss of `d` was recorded and not processed yet. */
bool ul__engine_loss_pending(ul_device *d);
/* An environment with the defaults (ul_env_create(NULL)), its end, and its
 * fault schedule's counts (ul_env_chaos_counts). The create logs, at info
 * level, that libunlost-webgpu is active and over which implementation. */
ul_status ul__engine_env_create(ul_env **out);
ul_status ul__engine_env_destroy(ul_env *env);
ul_status ul__engine_chaos_counts(ul_env *env, uint64_t *calls, uint64_t *injected);

/* Finishes a create whose descriptor was copied into `o` (pending): the
 * native object with retries, the tracker's record; frees `o` on failure
 * (src/engine/objects.c). Under d->mu. */
ul_status ul__obj_finish(ul_device *d, ul__obj *o, uint32_t *out);

/* A buffer as the engine makes it (src/engine/buffers.c): WebGPU's usage bits
 * as the program asked (unlost adds what its restore needs), the restore
 * policy and its source; source_stat is the SOURCE file's at the create. */
typedef struct ul__buffer_spec {
  const char *label;
  uint64_t size;
  uint64_t usage;
  ul_restore restore;
  const void *source_data;
  const char *source_path;
  uint64_t source_offset;
  const struct stat *source_stat;
  ul_restore_fn restore_fn;
  void *restore_user;
  const void *initial_data;
  /* LOG chosen from use: while the GPU never writes it, its contents come
   * back from where the program's writes came from (res/provenance.c). */
  bool from_use;
} ul__buffer_spec;
ul_status ul__buffer_create(ul_device *d, const ul__buffer_spec *spec, const ul_site *site, uint32_t *out);
/* Looks up usable buffer `id` under d->mu: its contents back if a rebuild
 * left them for their first use; UL_ERR_DEVICE_LOST when a loss took them. */
ul_status ul__buffer_get(ul_device *d, uint32_t id, const char *what, ul__obj **o);
/* Writes `size` bytes at `offset` of buffer `o` through the queue, as
 * every write is: recorded first (the log, after room is made; a SHADOW or
 * MAP_WRITE buffer's host copy), then uploaded; a loss meanwhile is
 * recovered from. The range was checked by the caller. *o may move (a
 * checkpoint that recovers): it is looked up again. */
ul_status ul__buffer_write(ul_device *d, uint32_t id, uint64_t offset, const void *data, uint64_t size);
/* Sets the restore policy of buffer `id` after its creation (spec's
 * restore and its source or callback; not SHADOW, not of a mappable
 * buffer). Under d->mu. */
ul_status ul__buffer_set_policy(ul_device *d, uint32_t id, const ul__buffer_spec *spec);
/* Unmaps buffer `id` (ul_buffer_unmap's work; the device entered). */
ul_status ul__buffer_unmap(ul_device *d, uint32_t id);

/* The engine's creates, which both front doors call: each takes the
 * native descriptor (handles as registry ids), copies it into a new
 * object, makes the native object with retries and tracks it; *out is the
 * new id (0 on failure). Under d->mu, the device entered.
 * src/engine/objects.c: */
ul_status ul__shader_create(ul_device *d, const char *wgsl, size_t len, const char *label, const ul_site *site,
                            uint32_t *out);
ul_status ul__bgl_create(ul_device *d, uint32_t count, const WGPUBindGroupLayoutEntry *entries, const char *label,
                         const ul_site *site, uint32_t *out);
/* Group `group`'s layout of pipeline `pipeline` (GetBindGroupLayout). */
ul_status ul__pipeline_bgl_create(ul_device *d, uint32_t pipeline, uint32_t group, const char *label,
                                  const ul_site *site, uint32_t *out);
/* groups: BGL ids, 0 for an empty slot. A layout obtained from a pipeline
 * is UL_ERR_UNSUPPORTED here (a rebuild makes those after the pipelines). */
ul_status ul__playout_create(ul_device *d, uint32_t count, const uint32_t *groups, uint32_t immediate_size,
                             const char *label, const ul_site *site, uint32_t *out);
/* layout 0: "auto"; entry NULL: the module's only one. */
ul_status ul__pipeline_create(ul_device *d, uint32_t shader, uint32_t layout, const char *entry, size_t entry_len,
                              uint32_t constant_count, const WGPUConstantEntry *constants, const char *label,
                              const ul_site *site, uint32_t *out);
/* layout: a BGL or PIPELINE_BGL id; or 0 with group `group` of pipeline. */
ul_status ul__bind_group_create(ul_device *d, uint32_t layout, uint32_t pipeline, uint32_t group, uint32_t count,
                                const ul__bg_entry *entries, const char *label, const ul_site *site,
                                uint32_t *out);
ul_status ul__query_set_create(ul_device *d, uint32_t type, uint32_t count, const char *label, const ul_site *site,
                               uint32_t *out);
/* src/engine/objects.c: */
ul_status ul__texture_create(ul_device *d, const WGPUTextureDescriptor *nd, ul_restore restore, const char *label,
                             const ul_site *site, uint32_t *out);
ul_status ul__view_create(ul_device *d, uint32_t texture, const WGPUTextureViewDescriptor *nd, const char *label,
                          const ul_site *site, uint32_t *out);
/* Destroys texture `t` and its views (they die with it). Under d->mu. */
void ul__texture_destroy(ul_device *d, ul__obj *t);
/* Writes `region` of texture `id` (its UL__TR_WORDS words: origin, extent,
 * bytes per row, level, rows per image, aspect) from `size` bytes at
 * `data`, as every write is: recorded first (a LOG texture's log entry,
 * room made first; a SHADOW texture's host copy), then written through
 * the queue; an error the implementation reports for it is
 * UL_ERR_VALIDATION; a loss meanwhile is recovered from. The region was
 * checked by the caller. Under d->mu, the device entered. */
ul_status ul__texture_write(ul_device *d, uint32_t id, const uint32_t region[UL__TR_WORDS], const void *data,
                           uint64_t size, const char *what);
/* Destroys object `id` of `kind` if it still lives (a door's Destroy, or
 * the end of the door's object), with its views when `with_views` (a
 * texture's Destroy; its views die with it). Takes d->mu. */
void ul__destroy_by_id(ul_device *d, uint32_t id, ul__obj_kind kind, bool with_views);
/* unlost.h's destroy of an object with no dependents to mind: a NULL
 * device is an error, id 0 nothing, a stale or wrong handle an error (under
 * the device's lock; src/engine/objects.c). */
ul_status ul__destroy_simple(ul_device *d, uint32_t id, ul__obj_kind kind, const char *what);
/* WebGPU's value of a ul_format; 0 for an unknown one. */
uint32_t ul__engine_format(ul_format f);
ul_status ul__sampler_create(ul_device *d, const WGPUSamplerDescriptor *nd, const char *label, const ul_site *site,
                             uint32_t *out);

/* Commands encoded ahead of their submission (ul__ops_prepare): the
 * command buffer, the epoch and the native device it was encoded on (the
 * device names it for its release: one lost again during a rebuild is
 * adopted back under another epoch), and the objects' state generation
 * (ul__obj_state_gen) after the encode's check of every handle. */
typedef struct ul__prepared {
  WGPUCommandBuffer cb; /* NULL: none (the submit encodes) */
  uint64_t epoch;
  WGPUDevice device;
  uint64_t state_gen;
} ul__prepared;

/* Submits `n` ops (the device entered): room in the log, the check of
 * every handle, the encode -- or `prepared`'s command buffer, when it was
 * encoded from the same ops on this device's epoch (the caller keeps its
 * reference; its check is not made again while no object was destroyed or
 * lost since) -- the log, the submit. *serial (may be NULL) names it for
 * ul_device_wait (src/engine/submit.c). */
ul_status ul__ops_submit(ul_device *d, const ul__op *ops, uint32_t n, const char *label, const ul_site *site,
                         const ul__prepared *prepared, uint64_t *serial);

/* ul__ops_submit for a caller with no status to hear a loss from (the
 * webgpu.h door): made again after a recovery while a pending loss is what
 * stopped it (16 times at most); then `p` (may be NULL or empty; the
 * caller's) is released and emptied. */
ul_status ul__ops_submit_through(ul_device *d, const ul__op *ops, uint32_t n, const char *label, const ul_site *site,
                                 ul__prepared *p);
/* Encodes `n` ops ahead of their submission (the device entered): on
 * success *p holds the command buffer, or is empty when a loss came
 * meanwhile (the submit encodes again). An error the implementation
 * reports is UL_ERR_VALIDATION. */
ul_status ul__ops_prepare(ul_device *d, const ul__op *ops, uint32_t n, const char *label, ul__prepared *p);
/* Releases what ul__ops_prepare made, and empties *p (on the thread that
 * destroys its device when that device goes in the background). Takes
 * d->mu. */
void ul__ops_prepared_release(ul_device *d, ul__prepared *p);

/* ul_cmd_submit's work (the device entered): room in the log, the encode
 * of list `c` with retries, the log, the submit; *serial (may be NULL)
 * names it (src/engine/submit.c). */
ul_status ul__cmd_submit(ul_device *d, ul_cmd *c, uint64_t *serial);

/* ---- answers asked of the native device (src/engine/async.c) ---- */
/* One ask for a door's future: the implementation's record of the answer
 * (its callback's), its native future, the epoch of the device asked. */
typedef struct ul__ask {
  ul__cb *cb;
  WGPUFuture native;
  uint64_t epoch;
  bool started; /* asked, the answer not taken yet */
  bool asked;   /* asked of a device once: a new ask is a re-ask after a
                 * loss (recovery work, not a program call) */
} ul__ask;
/* The work-done asked again after the last recovery, shared by every
 * pending work-done of a device (its door keeps one; under d->mu). */
typedef struct ul__work_redo {
  ul__cb *cb;
  WGPUFuture native;
  uint64_t epoch;
} ul__work_redo;
/* Drops the reference an ask or a redo holds. */
void ul__ask_clear(ul__ask *a);
void ul__work_redo_clear(ul__work_redo *redo);
/* Moves a work-done ask on (not entered): asks the current device (again,
 * as recovery work, after a loss), waits up to wait_ns (0: the events
 * processed once) and takes the answer. *done when the work submitted
 * before the first ask ran on the device (a recovered one: after the
 * replay); UL_OK without *done while it has not (a loss since: asked
 * again at the next advance). An error is the gate's (nothing asked), or
 * UL_ERR_OUT_OF_MEMORY (no record for the answer; last error not set). */
ul_status ul__work_done_advance(ul_device *d, ul__ask *a, ul__work_redo *redo, uint64_t wait_ns, bool *done);
/* Where a map stands after an advance. */
typedef enum ul__map_step {
  UL__MAP_PENDING, /* not answered yet (a loss since: asked again at the next advance) */
  UL__MAP_MAPPED,  /* answered: `ptr` (NULL with a size: no mapped range, unmapped) */
  UL__MAP_REFUSED, /* the gate refused it (status `s`, the last error): nothing asked */
  UL__MAP_LOST,    /* the buffer's contents were lost in a loss: `message` */
  UL__MAP_FAILED,  /* the implementation answered `status` (or no memory for the ask): `message` */
} ul__map_step;
typedef struct ul__map_outcome {
  ul__map_step step;
  ul_status s;
  uint32_t status; /* WGPUMapAsyncStatus */
  void *ptr;
  char message[984];
} ul__map_outcome;
/* Moves a map of buffer `id` on (not entered; `mode` a WGPUMapMode, the
 * range checked by the caller): asks the current device for it (again,
 * as recovery work, after a loss; a loss recorded meanwhile is recovered
 * from first, the replay refilling the buffer), waits up to wait_ns (0:
 * the events processed once) and takes the answer: mapped, the engine's
 * buffer is (as ul_buffer_map leaves it) and the device made progress. */
void ul__map_advance(ul_device *d, uint32_t id, ul__ask *a, uint64_t mode, size_t offset, size_t size,
                     uint64_t wait_ns, ul__map_outcome *m);
/* Ends the mapping of buffer `id`, or the native map still on its way
 * (not entered): through ul__buffer_unmap; or, the device being gone for
 * the caller (`device_gone`), with nothing written back and the last error
 * kept. */
ul_status ul__map_end(ul_device *d, uint32_t id, bool device_gone);
/* An ask whose answer the caller's own callback records: its native
 * future, the instance to wait on, the epoch of the device asked. */
typedef struct ul__native_ask {
  WGPUFuture native;
  WGPUInstance instance;
  uint64_t epoch;
} ul__native_ask;
/* Asks for the compilation messages of shader `id` (or of `wgsl`, compiled
 * again only for them when the shader kept no native module) through
 * `ci`, on a device that works (a recorded loss recovered from first; not
 * entered). *asked false: there was no module to ask. An error is the
 * gate's. */
ul_status ul__shader_info_ask(ul_device *d, uint32_t id, const char *wgsl, size_t len,
                              WGPUCompilationInfoCallbackInfo ci, ul__native_ask *q, bool *asked);
/* Waits up to timeout_ns for `done` (set by the ask's callback); the last
 * error is kept. */
ul_status ul__native_ask_wait(ul_device *d, const ul__native_ask *q, _Atomic bool *done, uint64_t timeout_ns);
/* Whether the device asked is gone (lost since, or replaced): its answer
 * says nothing. Takes d->mu. */
bool ul__native_ask_moved(ul_device *d, const ul__native_ask *q);
/* Brackets unlost's own recovery work on `d` (a pending future's re-ask
 * after a loss): a fault schedule does not count its calls as the
 * program's. */
void ul__recovery_work(ul_device *d, bool on);
/* Lets the implementation run its callbacks (ProcessEvents), at most
 * every 250 us; ul__pump_every: at most every min_ns (the pumps of all
 * callers together). */
void ul__pump(ul_env *env, WGPUInstance inst);
void ul__pump_every(ul_env *env, WGPUInstance inst, uint64_t min_ns);

/* ul_device_create with what the device asks of the implementation in
 * WebGPU's terms (NULL: as ul_device_create); `req` is copied
 * (src/engine/lifecycle.c). */
ul_status ul__device_create_req(ul_env *env, const ul_device_desc *desc, const ul__device_req *req, ul_device **out,
                                const ul_site *site);

/* Destroys device `d` (ul_device_destroy's work): the reads still queued
 * answered, the log, the objects (UL_ERR_BUSY when any were left), the
 * native device; `d` is freed (src/engine/lifecycle.c). */
ul_status ul__device_destroy(ul_device *d);
/* The caller ends its device: the native one is destroyed, and its loss
 * says "destroyed", which the engine never recovers from. Takes d->mu. */
void ul__device_destroy_native(ul_device *d);
/* Sets `info` as the logging callback of d's native device, and of every
 * native device a recovery gives it after (src/engine/lifecycle.c). The
 * implementation may call it on any thread, inside any of its calls: with
 * an unlost lock held, too. */
#if !UL_WGPU_STABLE
void ul__device_set_logging(ul_device *d, WGPULoggingCallbackInfo info);
#endif
/* The limits of `d`'s native device, as the implementation reported them.
 * Takes d->mu. */
WGPULimits ul__device_limits_native(ul_device *d);
/* The native adapter the engine's first device of `env` with `power` gets
 * (FALLBACK_ONLY: the CPU instance's when the main one has none), and
 * *instance the instance it came from; UL_ERR_NO_ADAPTER when only Dawn's
 * Null backend answers (unless the environment allows it). */
ul_status ul__adapter_for(ul_env *env, ul_power_preference power, WGPUAdapter *adapter, WGPUInstance *instance);
/* The recoveries device `d` went through (0 for NULL). */
uint64_t ul__device_recoveries(ul_device *d);
/* The same, and the time from each of those losses to the recovery that
 * followed, summed, into *recovery_ns (read together). */
uint64_t ul__device_recoveries_ns(ul_device *d, uint64_t *recovery_ns);
/* Loses device `d` through the implementation (ul_device_force_loss's
 * work; takes d->mu itself, not the gate): UL_ERR_UNSUPPORTED without
 * wgpuDeviceForceLoss, UL_ERR_DEVICE_FAILED for a device that failed for
 * good, UL_ERR_BUSY when it is lost already (no loss was forced). */
ul_status ul__device_force_loss(ul_device *d, const char *message);

/* The checkpoint (src/recover/snapshot.c) under its retry policy: after
 * a loss, recover and try again while the attempts get somewhere (at most
 * UL__MAX_RETRIES_PER_CALL fruitless recoveries in a row): the public
 * checkpoint (src/engine/commit.c). */
ul_status ul__checkpoint_retry(ul_device *d);
/* Makes room in the operation log for an entry of `bytes`: checkpoints
 * first when the entry would take the log past its bounds, so that the
 * bound holds on every path that grows the log. UL_OK without a
 * checkpoint during a recovery (nothing is logged then). */
ul_status ul__checkpoint_make_room(ul_device *d, uint64_t bytes);

#endif
