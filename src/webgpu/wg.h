/* Internal to unlost: the webgpu.h front door (libunlost-webgpu). Every
 * handle a program holds -- WGPUInstance, WGPUBuffer, ... -- points at one
 * of the layer's objects below, never at the implementation's: the layer
 * owns the native objects through the engine (the registry of src/res/),
 * so that handles outlive native devices. Each entry point checks its
 * handles (a NULL, released or foreign one is the API's own validation
 * error, never a crash), translates, enters the engine and leaves. */
#ifndef UL_WEBGPU_WG_H
#define UL_WEBGPU_WG_H

#include "engine/engine.h"
#include "exec/oplog.h"
#include "wgpu/wgpu_api.h"
#include "unlost_webgpu.h"

#include <sys/stat.h>

/* The layer's exported functions (the webgpu.h entry points and unlost's
 * own additions); everything else stays hidden in the library. */
#define UL__WG_EXPORT __attribute__((visibility("default")))

#define UL__WG_MAGIC 0x756c7767u /* "ulwg" */
/* Freed objects and command lists are kept for reuse, except under a
 * sanitizer, which should see every use after a free. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UL__WG_REUSE 0
#else
#define UL__WG_REUSE 1
#endif
#define UL__WG_DEAD 0xdeadd00du

/* X(NAME, "WebGPU type"): the kinds of the layer's objects. */
#define UL__WG_KIND_MAP(X)                                                                          \
  X(INSTANCE, "WGPUInstance") X(ADAPTER, "WGPUAdapter") X(DEVICE, "WGPUDevice") X(QUEUE, "WGPUQueue") \
  X(BUFFER, "WGPUBuffer") X(TEXTURE, "WGPUTexture") X(VIEW, "WGPUTextureView")                    \
  X(SAMPLER, "WGPUSampler") X(SHADER, "WGPUShaderModule") X(BGL, "WGPUBindGroupLayout")           \
  X(PLAYOUT, "WGPUPipelineLayout") X(PIPELINE, "WGPUComputePipeline") X(BIND_GROUP, "WGPUBindGroup") \
  X(QUERY_SET, "WGPUQuerySet") X(ENCODER, "WGPUCommandEncoder") X(PASS, "WGPUComputePassEncoder")  \
  X(CMDBUF, "WGPUCommandBuffer")
typedef enum ul__wg_kind {
  UL__WG_NONE = 0,
#define UL__WG_KIND_ENUM(name, text) UL__WG_##name,
  UL__WG_KIND_MAP(UL__WG_KIND_ENUM)
#undef UL__WG_KIND_ENUM
  UL__WG_KIND_COUNT
} ul__wg_kind;
const char *ul__wg_kind_name(ul__wg_kind k);

struct ul__wg_device;
struct ul__wg_instance;

/* The head of every object. The program's references and the references
 * of other objects (a bind group holds its buffers, a device its objects'
 * holder) are counted apart: the program's last Release makes the handle
 * dead to the program (a later use is a validation error), the last of
 * both frees the object and its engine object. */
typedef struct ul__wg_obj {
  uint32_t magic;
  uint32_t kind;
  _Atomic int refs;        /* the program's */
  _Atomic int total;       /* the program's and other objects' (the object lives while > 0) */
  struct ul__wg_device *dev; /* its device (holds one inner reference), or NULL */
  uint32_t id;             /* its engine object; 0: an error object (its create failed) */
  _Atomic bool destroyed;  /* Destroy was called (buffers, textures, query sets, devices) */
  uint16_t size8;          /* its allocation's size in 8-byte units (0: larger), for reuse */
} ul__wg_obj;

/* ---- futures (future.c) ---- */
typedef enum ul__wg_future_kind {
  UL__WGF_ADAPTER = 1, UL__WGF_DEVICE, UL__WGF_MAP, UL__WGF_WORK_DONE, UL__WGF_POP_SCOPE,
  UL__WGF_COMPILATION_INFO, UL__WGF_PIPELINE, UL__WGF_LOST,
} ul__wg_future_kind;

typedef struct ul__wg_future ul__wg_future;
struct ul__wg_future {
  ul__wg_future *next;
  uint64_t id;
  ul__wg_future_kind kind;
  uint32_t mode;           /* WGPUCallbackMode */
  void *callback;          /* the program's, of the kind's type; may be NULL */
  void *u1, *u2;
  bool ready;              /* its outcome is known */
  bool fired;              /* its callback ran (or none was given) */
  bool firing;             /* taken by a thread that runs its callback */
  bool moving;             /* a thread moves its native part on (its creator first) */
  uint32_t holds;          /* threads that use it outside in->mu: not freed meanwhile */
  /* The outcome. */
  uint32_t status;
  uint32_t type;           /* pop scope: the error type; lost: the reason */
  void *object;            /* adapter, device or pipeline handed to the callback */
  char *message;           /* owned */
  WGPUCompilationInfo info; /* compilation info: messages owned */
  /* What is in flight for it on a native device (maps, work done). */
  struct ul__wg_device *dev; /* held (inner) while pending */
  ul__wg_obj *target;      /* the buffer of a map (held) */
  ul__ask ask;             /* the engine's ask of the native device */
  uint64_t map_mode;
  size_t map_offset, map_size;
};

/* ---- instances and adapters (instance.c) ---- */
typedef struct ul__wg_instance {
  ul__wg_obj h;
  ul_env *env;             /* shared by every instance of the process */
  pthread_mutex_t mu;      /* leaf: the futures below */
  ul__wg_future *futures;
  uint64_t next_future;
  bool timed;              /* the program asked for timed waits (timedWaitAnyEnable) */
  size_t timed_max;        /* the most futures a timed wait takes */
} ul__wg_instance;

typedef struct ul__wg_adapter {
  ul__wg_obj h;
  ul__wg_instance *instance; /* held (inner) */
  WGPUAdapter native;      /* for the program's questions (info, limits, features) */
  WGPUInstance native_instance;
  ul_power_preference power;
  char **enabled, **disabled; /* the program's Dawn toggles (owned) */
  uint32_t enabled_count, disabled_count;
  bool consumed;           /* a device was made from it */
} ul__wg_adapter;

/* ---- devices (wgpu_device.c) ---- */
typedef struct ul__wg_scope {
  uint32_t filter;         /* WGPUErrorFilter */
  uint32_t type;           /* the first error caught (WGPUErrorType_NoError: none) */
  char *message;
} ul__wg_scope;

typedef struct ul__wg_device {
  ul__wg_obj h;
  ul__wg_instance *instance; /* held (inner) */
  ul__wg_adapter *adapter;   /* held (inner) */
  ul_device *ud;             /* the engine's device */
  struct ul__wg_queue *queue; /* its one queue */
  pthread_mutex_t mu;        /* leaf: scopes, lost state, label */
  ul__wg_scope *scopes;      /* the error scopes, innermost last (owned) */
  uint32_t nscopes, scopes_cap;
  WGPUDeviceLostCallbackInfo lost_cb;
  WGPUUncapturedErrorCallbackInfo error_cb;
  uint32_t log_slot;         /* its logging callback's slot (logging.c, under its lock); 0: none */
  uint64_t lost_future;      /* the future of the lost callback (WGPUDevice GetLostFuture) */
  /* The work-done asked again after the last recovery, shared by every
   * pending work-done future (under the engine device's lock). */
  ul__work_redo redo;
  _Atomic bool lost;         /* the program has been told (it destroyed it, or unlost gave up) */
  /* Its buffers mapped or with a map pending (ul__wg_set_map_state keeps
   * it): while none is, a submit need not look at each buffer it uses. */
  atomic_uint maps_out;
  uint32_t lost_reason;      /* the reason it was told */
  uint32_t features_count;
  uint32_t *features;        /* as asked (owned) */
  WGPULimits limits;         /* as granted, within the layer's own bounds */
  /* The devices not yet freed (instance.c, under its lock): the chaos
   * report at exit counts what they went through. */
  struct ul__wg_device *live_prev, *live_next;
} ul__wg_device;

typedef struct ul__wg_queue {
  ul__wg_obj h;
} ul__wg_queue;

/* ---- resources (buffer.c, resource.c) ---- */
typedef enum ul__wg_map_state { UL__WG_UNMAPPED = 0, UL__WG_PENDING, UL__WG_MAPPED } ul__wg_map_state;

typedef struct ul__wg_buffer {
  ul__wg_obj h;
  uint64_t size;
  uint64_t usage;          /* as the program asked */
  ul__wg_map_state map_state; /* under ul__wg_buffer_mu(b) */
  uint64_t map_mode;       /* WGPUMapMode of the mapping */
  size_t map_offset, map_size;
  uint8_t *host;           /* mappedAtCreation: the bytes the program writes (owned) */
  uint8_t *map_base;       /* the mapping's first byte (host, or the engine's map_ptr) */
  uint64_t pending;        /* the future of a map under way */
  /* CALLBACK policy: the program's function (policy.c). */
  WGPUStatus (*restore_fn)(WGPUDevice device, WGPUBuffer buffer, void *user);
  void *restore_user;
} ul__wg_buffer;

/* The lock of b's map state: one of a fixed set shared by all buffers
 * (a mutex per buffer cost 40 bytes of every one). A leaf: nothing is
 * taken under it, so two buffers sharing one cannot deadlock. */
pthread_mutex_t *ul__wg_buffer_mu(const ul__wg_buffer *b);

/* The engine's spec of an explicit policy (policy.c); `st` holds a SOURCE
 * file's state. */
ul_status ul__wg_policy_spec(ul__wg_buffer *b, const ul_wgpu_restore *r, uint64_t size, ul__buffer_spec *spec,
                             struct stat *st);

typedef struct ul__wg_texture {
  ul__wg_obj h;
  WGPUTextureDescriptor desc; /* label and chain NULL; viewFormats NULL */
} ul__wg_texture;

typedef struct ul__wg_view {
  ul__wg_obj h;
  ul__wg_texture *texture; /* held (inner) */
} ul__wg_view;

typedef struct ul__wg_shader {
  ul__wg_obj h;
  char *wgsl;              /* owned: for the compilation info of a module that failed */
  size_t len;
} ul__wg_shader;

typedef struct ul__wg_bgl {
  ul__wg_obj h;
  struct ul__wg_pipeline *pipeline; /* a pipeline's layout: held (inner) */
  uint32_t group;
} ul__wg_bgl;

typedef struct ul__wg_pipeline {
  ul__wg_obj h;
  ul__wg_obj *shader, *layout; /* held (inner) */
  /* GetBindGroupLayout's answers, kept (not held: each clears its slot
   * when it goes) and handed out again, as the implementation does. */
  struct ul__wg_bgl *bgl[UL_MAX_BIND_GROUPS];
} ul__wg_pipeline;
/* Guards every pipeline's bgl[] (object.c, resource.c). */
extern pthread_mutex_t ul__wg_bgl_mu;

/* Objects a bind group, a pipeline layout or a command buffer holds. */
/* The objects an object holds. The first few live inline (a bind group
 * holds its layout and a buffer or two: no allocation); a holds list is
 * moved with ul__wg_holds_move, never copied. */
#define UL__WG_HOLDS_INLINE 4
typedef struct ul__wg_holds {
  ul__wg_obj **objs;
  uint32_t count, cap;
  ul__wg_obj *inl[UL__WG_HOLDS_INLINE];
} ul__wg_holds;

typedef struct ul__wg_group {
  ul__wg_obj h;
  ul__wg_holds holds;
} ul__wg_group;

typedef struct ul__wg_query_set {
  ul__wg_obj h;
  uint32_t type, count;
} ul__wg_query_set;

/* ---- encoding (encoder.c) ---- */
typedef struct ul__wg_cmdbuf ul__wg_cmdbuf;
typedef struct ul__wg_encoder {
  ul__wg_obj h;
  ul__op *ops;
  uint32_t count, cap;
  ul__wg_holds holds;
  char *label;
  char *error;             /* the first misuse recorded (Finish reports it) */
  bool finished;
  struct ul__wg_pass *pass; /* the pass open on it */
  ul_site site;
} ul__wg_encoder;

typedef struct ul__wg_pass {
  ul__wg_obj h;
  ul__wg_encoder *encoder; /* held (inner) */
  bool ended;
  uint32_t pipeline;
  uint32_t groups[UL_MAX_BIND_GROUPS];
  uint8_t dyn_count[UL_MAX_BIND_GROUPS];
  uint32_t dyn[UL_MAX_BIND_GROUPS][UL__MAX_DYNAMIC_OFFSETS];
} ul__wg_pass;

struct ul__wg_cmdbuf {
  ul__wg_obj h;
  ul__op *ops;
  uint32_t count, cap;
  ul__wg_holds holds;
  char *label;
  char *error;             /* invalid: why (submitting it is an error of error_type) */
  uint32_t error_type;     /* WGPUErrorType: Validation, or Internal for contents a loss took */
  ul__prepared prep; /* encoded at Finish (empty: encode at submit) */
  bool submitted;
  ul_site site;
};

/* ---- objects (object.c) ---- */
/* A new object of `kind` and `size` bytes (the head first), with one
 * program reference; on `dev`, which it holds. NULL when out of memory. */
void *ul__wg_new(ul__wg_kind kind, size_t size, ul__wg_device *dev);
/* The handle as an object of `kind` the program still holds, or NULL
 * (reported, as the implementation would, as a validation error on `dev`
 * when there is one to report to; `what` names the entry point). */
void *ul__wg_check(const void *handle, ul__wg_kind kind, const char *what);
/* The same for a handle given to a call on device `dv` (an argument):
 * the error goes to dv. */
void *ul__wg_check_on(ul__wg_device *dv, const void *handle, ul__wg_kind kind, const char *what);
/* The same, quiet: no report (for getters that answer 0 for a bad handle). */
void *ul__wg_peek(const void *handle, ul__wg_kind kind);
void ul__wg_addref(void *o);
/* The end of an object's memory: its magic turned dead, kept a while so
 * that a handle used after its last release is seen, then freed. */
void ul__wg_quarantine(void *o);
/* A new reference for the program to an object that may be going: false
 * when nothing holds it any more (it is being freed). */
bool ul__wg_revive(void *o);
void ul__wg_release(void *o);
/* References held by other objects. */
void ul__wg_hold(void *o);
void ul__wg_unhold(void *o);
/* A set of held objects (a bind group's, a command buffer's). */
bool ul__wg_holds_add(ul__wg_holds *h, void *o);
void ul__wg_holds_clear(ul__wg_holds *h);
/* Moves src's list into dst (empty before); src is left empty. */
void ul__wg_holds_move(ul__wg_holds *dst, ul__wg_holds *src);
/* The program's call site, interned (for the tracker: call sites outlive
 * devices). */
const ul_site *ul__wg_site(void *return_address);
/* A label into a NUL-terminated copy in buf (cut to fit). */
const char *ul__wg_label(WGPUStringView v, char *buf, size_t cap);
/* Walks the chain of a descriptor of type `on` as the implementation
 * validates one: no sType twice (a cycle repeats one; the implementation
 * refuses a duplicate) and at most UL__WG_CHAIN_MAX structs. False, with
 * the reason in `why`, when refused. Every walk of a program's chain comes
 * after it, and so ends. */
#define UL__WG_CHAIN_MAX 64
/* A tell that the program was built on another webgpu.h revision
 * (revision.c): said once, and every later instance and adapter request
 * is refused. */
void ul__wg_foreign(const char *tell);
/* The implementation's log messages queued for the program's logging
 * callbacks, delivered when this thread holds no unlost lock (logging.c);
 * the device's callback given up (at its end). */
void ul__wg_logs_deliver(void);
void ul__wg_logging_end(struct ul__wg_device *dv);
bool ul__wg_foreign_seen(void);
bool ul__wg_chain_ok(const WGPUChainedStruct *c, const char *on, char *why, size_t cap);
/* Set while this thread is inside a call of the implementation the layer
 * made (guard.c); an entry of the layer then is counted. */
extern _Thread_local int ul__wg_in_native;
void ul__wg_note_entry(void);
/* The env's table wrapped so (one per process: the env is shared). */
const ul__wgpu *ul__wg_guard(const ul__wgpu *inner);

/* ---- errors and the device's state (wgpu_device.c) ---- */
/* Reports an error of `type` (WGPUErrorType) to the innermost error scope
 * whose filter takes it, or else to the uncaptured-error callback (run on
 * this thread, no lock held). Nothing once the device is lost to the
 * program. */
void ul__wg_error(ul__wg_device *dv, uint32_t type, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* While set on a thread, the errors of calls on `dv` go here instead of to
 * the program's scopes and callback (an asynchronous create answers them
 * through its future). */
typedef struct ul__wg_capture {
  ul__wg_device *dv;
  uint32_t type;           /* 0: none yet */
  char msg[1024];
} ul__wg_capture;
extern _Thread_local ul__wg_capture *ul__wg_capturing;
/* An engine status as the program hears it: validation for misuse,
 * out-of-memory, internal for the rest; UL_ERR_DEVICE_FAILED makes the
 * device lost to the program (its lost callback). `what` is the call. */
void ul__wg_report(ul__wg_device *dv, ul_status s, const char *what);
/* Tells the program the device is lost (once): its lost callback, its lost
 * future, every pending future answered. */
void ul__wg_device_lose(ul__wg_device *dv, uint32_t reason, const char *message);
/* Enters the engine's device (recovering when needed); on failure the
 * status is reported (`what`) and false returned (no lock held). Quiet
 * (false) once the device is lost to the program. */
bool ul__wg_enter(ul__wg_device *dv, const char *what);
void ul__wg_leave(ul__wg_device *dv);
/* The device of an object the program gave (its own check first). */
static inline ul__wg_device *ul__wg_dev(void *o) { return o ? ((ul__wg_obj *)o)->dev : NULL; }
/* Counts what a device went through (instance.c; UNLOST_CHAOS_REPORT):
 * ul__wg_device_gone as the device is freed, before its engine device is
 * destroyed (its recoveries and whether it failed move from the live
 * devices to the process's counts), then whether that destroy leaked it. */
void ul__wg_device_gone(ul__wg_device *dv, uint64_t recoveries, uint64_t recovery_ns, bool failed);
void ul__wg_count_leaked(void);
/* Frees a device once nothing holds it (object.c calls it). */
void ul__wg_device_free(ul__wg_device *dv);
void ul__wg_adapter_free(ul__wg_adapter *a);
void ul__wg_instance_free(ul__wg_instance *in);

/* ---- futures (future.c) ---- */
/* A new future of `kind` on `in` with the program's callback info;
 * NULL when out of memory. Registered (under in->mu). */
ul__wg_future *ul__wg_future_new(ul__wg_instance *in, ul__wg_future_kind kind, uint32_t mode, void *callback,
                                 void *u1, void *u2);
/* The same, moved on by the calling thread (`moving`) until it hands it on
 * with ul__wg_future_let_go: no other thread moves it on or frees it
 * meanwhile (maps and work done, whose creator fills in and starts it). */
ul__wg_future *ul__wg_future_new_held(ul__wg_instance *in, ul__wg_future_kind kind, uint32_t mode, void *callback,
                                      void *u1, void *u2);
/* The same from a webgpu.h callback info (its mode, callback and two
 * userdata). */
#define UL__WG_FUTURE_OF(in, kind, info) \
  ul__wg_future_new(in, kind, (info).mode, (void *)(info).callback, (info).userdata1, (info).userdata2)
/* The start of an entry point that answers through a future: `handle`
 * checked as a `kind` (*obj: the door's object, NULL for a wrong handle)
 * and the future made from the program's callback info on its instance
 * (held: as ul__wg_future_new_held). NULL when either fails: the call
 * returns a null future. */
ul__wg_future *ul__wg_future_for(const void *handle, ul__wg_kind kind, const char *what, ul__wg_future_kind fk,
                                 bool held, uint32_t mode, void *callback, void *u1, void *u2, void **obj);
#define UL__WG_FUTURE_FOR(handle, kind, what, fk, held, info, obj)                                              \
  ul__wg_future_for(handle, kind, what, fk, held, (info).mode, (void *)(info).callback, (info).userdata1, \
                    (info).userdata2, (void **)(obj))
/* Ends the hold: a ready AllowSpontaneous callback runs now; a future
 * whose callback ran meanwhile is freed. `f` may be gone after. */
void ul__wg_future_let_go(ul__wg_instance *in, ul__wg_future *f);
/* Drops a hold taken under in->mu (f->holds++) by a thread that uses a
 * future outside the lock; `f` may be gone after. */
void ul__wg_future_unhold(ul__wg_instance *in, ul__wg_future *f);
/* Its outcome: status, message (copied), object. Callbacks of futures
 * that allow it run at once. */
void ul__wg_future_resolve(ul__wg_instance *in, ul__wg_future *f, uint32_t status, uint32_t type, void *object,
                           const char *message);
/* Advances what is pending (maps, work done) without waiting, and runs the
 * callbacks that ProcessEvents may run (AllowProcessEvents, or only
 * AllowSpontaneous when `spontaneous_only`). */
void ul__wg_progress(ul__wg_instance *in, bool spontaneous_only);
/* Answers the pending futures of `dv` (its loss): maps and work done. */
void ul__wg_futures_fail_device(ul__wg_instance *in, ul__wg_device *dv, const char *why);
/* Frees every future (instance release). */
void ul__wg_futures_free(ul__wg_instance *in);
WGPUFuture ul__wg_future_id(const ul__wg_future *f);

/* ---- buffers (wgpu_buffer.c) ---- */
void ul__wg_buffer_free(ul__wg_buffer *b);
/* Sets b's map state (under its map lock) and keeps the device's count of
 * buffers not unmapped. */
void ul__wg_set_map_state(ul__wg_buffer *b, ul__wg_map_state st);
/* The map of a future (future.c drives it): started, checked, finished. */
bool ul__wg_map_advance(ul__wg_instance *in, ul__wg_future *f, uint64_t wait_ns);
/* A map's callback is about to run: its outcome becomes the buffer's state. */
void ul__wg_map_told(ul__wg_future *f);
bool ul__wg_work_done_advance(ul__wg_instance *in, ul__wg_future *f, uint64_t wait_ns);

/* ---- encoding (encoder.c) ---- */
void ul__wg_encoder_free(ul__wg_encoder *e);
void ul__wg_cmdbuf_free(ul__wg_cmdbuf *c);
const char *ul__wg_cmdbuf_mapped(const ul__wg_cmdbuf *c);
void ul__wg_group_free(ul__wg_group *g);

#endif
