/*
 * unlost.h — the whole public API of unlost.
 *
 * unlost makes WebGPU compute programs survive GPU device loss and never leak
 * GPU memory. It sits on the standard WebGPU C API (webgpu.h), loaded at run
 * time from an implementation (the pinned Dawn by default).
 *
 * Everything under src/ is private. Conventions used throughout:
 *   - Every fallible call returns ul_status; UL_OK is 0. On failure,
 *     ul_last_error() holds the calling thread's message chain.
 *   - Descriptors are valid when zero-initialised, except where a field says
 *     it is required; each default is written next to its field.
 *   - Roots (ul_env, ul_device) are opaque pointers; resources are one-field
 *     value handles whose id 0 is never valid.
 *   - Destroy functions accept NULL or a zero handle and then do nothing.
 */
#ifndef UNLOST_H
#define UNLOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define UL_API
#else
#define UL_API __attribute__((visibility("default")))
#endif

/* ---- version ------------------------------------------------------------ */

#define UL_VERSION_MAJOR 0 /* major version of this header */
#define UL_VERSION_MINOR 1 /* minor version of this header */
#define UL_VERSION_PATCH 0 /* patch version of this header */
/* This header's version as one number, MAJOR * 10000 + MINOR * 100 + PATCH;
 * compare it with ul_version_number() of the loaded library. */
#define UL_VERSION_NUMBER \
  (UL_VERSION_MAJOR * 10000 + UL_VERSION_MINOR * 100 + UL_VERSION_PATCH)

/* The version of the library loaded at run time, as "MAJOR.MINOR.PATCH". */
UL_API const char *ul_version(void);
/* UL_VERSION_NUMBER of the library loaded at run time. */
UL_API int ul_version_number(void);

/* ---- status ------------------------------------------------------------- */

/* X(name, value, transient, text): every error status. A transient status
 * may succeed when the same call is tried again later (after recovery, after
 * memory is freed); a fatal one will not without a change by the caller.
 * UL_OK (0, "success") is not in the list. */
#define UL_STATUS_MAP(X)                                                          \
  X(DEVICE_LOST,       1, 1, "the device was lost and the data could not be restored") \
  X(OUT_OF_MEMORY,     2, 1, "out of memory (device, host, or unlost's budget)")  \
  X(VALIDATION,        3, 0, "the implementation rejected the call as invalid")   \
  X(SHADER_COMPILE,    4, 0, "the shader did not compile")                        \
  X(INVALID_HANDLE,    5, 0, "zero, stale, destroyed or foreign handle")          \
  X(INVALID_ARGUMENT,  6, 0, "invalid argument")                                  \
  X(NO_IMPLEMENTATION, 7, 0, "no usable webgpu.h implementation could be loaded") \
  X(NO_ADAPTER,        8, 1, "no suitable adapter")                               \
  X(TIMEOUT,           9, 1, "timed out")                                         \
  X(BREAKER_OPEN,     10, 1, "the device is BROKEN and fails fast")               \
  X(UNSUPPORTED,      11, 0, "not supported by this implementation or build")     \
  X(INTERNAL,         12, 0, "internal error")                                    \
  X(DEVICE_FAILED,    13, 0, "the device failed for good: recovery gave up")      \
  X(BUSY,             14, 1, "the object is in use")                              \
  X(IO,               15, 0, "file or system I/O failed")                         \
  X(FORMAT,           16, 0, "malformed input data")                              \
  X(WRONG_STATE,      17, 0, "the object is not in a state that allows this")        \
  X(LOG_FULL,         18, 1, "the operation log is full: no checkpoint could commit")

/* Result of every fallible call: UL_OK, or one of the UL_ERR_<name> codes
 * of UL_STATUS_MAP with its value. */
typedef enum ul_status {
  UL_OK = 0, /* success */
#define UL__STATUS_ENUM(name, value, transient, text) UL_ERR_##name = value,
  UL_STATUS_MAP(UL__STATUS_ENUM)
#undef UL__STATUS_ENUM
  UL_STATUS_COUNT_
} ul_status;

/* "UL_ERR_DEVICE_LOST" etc.; static text, never NULL ("UL_ERR_UNKNOWN" for a
 * value outside the list). */
UL_API const char *ul_status_name(ul_status s);
/* One-line description of the code itself (not of this occurrence). */
UL_API const char *ul_status_text(ul_status s);
/* True for statuses that may clear by themselves (see UL_STATUS_MAP). */
UL_API bool ul_status_is_transient(ul_status s);
/* The calling thread's last error as one line, outermost context first:
 * "create pipeline 'matmul': compile shader: 3:14: unresolved identifier 'x'".
 * Valid until the thread's next call into unlost. "" when there is none. */
UL_API const char *ul_last_error(void);
/* Status of the calling thread's last failed call (UL_OK when none). */
UL_API ul_status ul_last_status(void);
/* Clears the calling thread's error. */
UL_API void ul_clear_error(void);
/* The strict number grammar of unlost's settings and fault schedules, for
 * tools that take the same values: the whole text a decimal number in
 * [lo, hi] -- no sign, no spaces, no junk, no overflow, no NaN or infinity.
 * ul_parse_size also takes K, M, G, T (x1024^n, then nothing, B or iB).
 * UL_ERR_INVALID_ARGUMENT with a message quoting the text otherwise; *out
 * is written only on success. */
UL_API ul_status ul_parse_u64(const char *text, uint64_t lo, uint64_t hi, uint64_t *out);
/* ul_parse_u64 with a size suffix: K, M, G or T (x1024^n), then nothing, B or iB. */
UL_API ul_status ul_parse_size(const char *text, uint64_t lo, uint64_t hi, uint64_t *out);
/* A finite decimal number in [lo, hi]: an optional minus, digits, a fraction and an exponent allowed. */
UL_API ul_status ul_parse_f64(const char *text, double lo, double hi, double *out);
/* For code layered on unlost (a model loader, an engine, the CLI): its
 * failures go through the same per-thread error, so that its caller reads
 * one chain from ul_last_error(). ul_error_set replaces the message with
 * the formatted text; ul_error_wrap prepends "context: " to it (once: a
 * message that already starts with that context keeps it). Both set the
 * thread's status to s and return s. */
UL_API ul_status ul_error_set(ul_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prepends "context: " (formatted) to the thread's message, once; sets s and returns it. */
UL_API ul_status ul_error_wrap(ul_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));


/* ---- call sites ----------------------------------------------------------
 * Functions that create objects are macros that pass the caller's file, line
 * and function to the tracker at no cost (three static pointers). They are
 * variadic so that compound-literal descriptors, which contain commas, can
 * be passed directly. Call the `_at` form to pass a site of your own (e.g.
 * from a wrapper). */
/* Where an object was created, as the tracker and its reports show it.
 * unlost keeps the pointers, not copies: the strings must outlive the
 * device (string literals, as UL_SITE gives, do). */
typedef struct ul_site {
  const char *file;  /* source file */
  int line;          /* line in it */
  const char *func;  /* enclosing function */
} ul_site;
/* The caller's site (__FILE__, __LINE__, __func__) as a `const ul_site *`,
 * for the `_at` functions. */
#define UL_SITE (&(const ul_site){__FILE__, __LINE__, __func__})

/* ---- env: the loaded implementation and its instance ---------------------- */

/* The loaded implementation and its instance (opaque): made by
 * ul_env_create, released by ul_env_destroy after its devices. */
typedef struct ul_env ul_env;
/* A device that survives loss (opaque): unlost's wrapper over a native
 * WebGPU device, which it rebuilds after a loss. Made by ul_device_create,
 * released by ul_device_destroy. Its calls take the device's lock, so they
 * may come from several threads, except where a function says otherwise. */
typedef struct ul_device ul_device;

/* Levels of unlost's own log, written to stderr as "unlost warn: ..." or
 * passed to the program's ul_log_fn. The level is picked by
 * $UNLOST_LOG=error|warn|info|debug|none (unset or unknown: warn), with or
 * without a callback: lines above it are not made at all. */
typedef enum ul_log_level {
  UL_LOG_ERROR = 0,
  UL_LOG_WARN = 1,
  UL_LOG_INFO = 2,
  UL_LOG_DEBUG = 3,
} ul_log_level;

/* One line of unlost's log, as a ul_log_fn gets it; valid during the call
 * only. */
typedef struct ul_log_line {
  ul_log_level level;   /* error, warn, info or debug */
  /* The text, without the "unlost warn: " prefix or a final newline (a
   * leak report holds newlines of its own). */
  const char *message;
  /* Label of the device whose call or recovery logged the line ("device"
   * for a device made without one); NULL when the line is not about one
   * device, or was logged on a thread of unlost's own or outside the
   * device's calls (the text then names the device where it is about
   * one). */
  const char *device;
} ul_log_line;

/* Receives unlost's log lines instead of stderr. Calls never overlap (one
 * line at a time, in the order each thread logged them), on the thread
 * that logged the line: a thread of the program inside a call of unlost,
 * or one of unlost's own. Never with a device's lock held: lines logged
 * under it (a loss, a recovery) wait until the lock is released, and
 * arrive before the listener's events. The callback should return
 * promptly and must not call into unlost with an env, a device or a
 * handle (the thread may be in the middle of a call on that device);
 * ul_set_log_callback from inside it is UL_ERR_WRONG_STATE. Lines that
 * unlost logs during the callback go to stderr. The calling thread's
 * ul_last_error is the same after the callback as before it. */
typedef void (*ul_log_fn)(const ul_log_line *line, void *user);
/* Sends the log of the whole process to `fn` (with `user`) instead of
 * stderr; NULL sends it back to stderr. Once it returns, the callback it
 * replaced is not running and will not be called again. UL_ERR_WRONG_STATE
 * when called from the log callback (nothing changes). */
UL_API ul_status ul_set_log_callback(ul_log_fn fn, void *user);

/* How to create an env; all zero (or a NULL desc) gives the defaults. */
typedef struct ul_env_desc {
  /* Path of the webgpu.h implementation to load. NULL: $UNLOST_WEBGPU_LIB,
   * then the pinned Dawn of the build tree, then the one installed beside
   * libunlost. */
  const char *webgpu_lib;
  /* Accept Dawn's Null backend (which computes nothing) as an adapter.
   * Default false: an adapter on the Null backend is refused. */
  bool allow_null_backend;
  /* Fault injection for tests and `unlost chaos`: a schedule such as
   * "loss@12,loss-every=200,seed=3" (the grammar: `unlost chaos --help` and
   * docs/recovery.md). NULL: $UNLOST_CHAOS, else none. */
  const char *chaos;
} ul_env_desc;

/* Loads the implementation and creates its instance. On failure *out is
 * NULL and nothing is held: UL_ERR_NO_IMPLEMENTATION (no library, missing
 * symbol, wrong architecture; the message names the path and what to do),
 * UL_ERR_INVALID_ARGUMENT, UL_ERR_INTERNAL (instance creation failed).
 * desc may be NULL (all defaults). */
UL_API ul_status ul_env_create(const ul_env_desc *desc, ul_env **out);
/* Releases the instance. Devices of the env must be destroyed first: with
 * devices still alive it returns UL_ERR_BUSY and does nothing. NULL: UL_OK. */
UL_API ul_status ul_env_destroy(ul_env *env);

/* What ul_env_info_get reports. */
typedef struct ul_env_info {
  const char *implementation;  /* path of the loaded library (owned by env) */
  bool force_loss;             /* wgpuDeviceForceLoss is available */
  bool inject_error;           /* wgpuDeviceInjectError is available */
  bool timed_wait;             /* wgpuInstanceWaitAny accepts timeouts */
} ul_env_info;
/* Describes the env: the loaded library and which optional entry points it
 * has. UL_ERR_INVALID_ARGUMENT when env or out is NULL. */
UL_API ul_status ul_env_info_get(ul_env *env, ul_env_info *out);

/* Fault injection, for programs that drill their own recovery as `unlost
 * chaos` does. Only on an env created with a schedule (ul_env_desc.chaos
 * or $UNLOST_CHAOS; "seed=1" injects nothing): UL_ERR_WRONG_STATE
 * otherwise. ul_env_chaos_arm replaces the schedule with `spec` and sets
 * the counters to zero; a bad spec is UL_ERR_INVALID_ARGUMENT and keeps the
 * old schedule. ul_env_chaos_counts gives the WebGPU calls counted since
 * (a recovery's own calls are not) and the faults injected; either
 * pointer may be NULL. Faults go to the env's newest device: the one
 * created or recovered last (and none once that one is destroyed, until
 * another is created or recovers). */
UL_API ul_status ul_env_chaos_arm(ul_env *env, const char *spec);
/* The calls counted and the faults injected since the last arm (either pointer may be NULL). */
UL_API ul_status ul_env_chaos_counts(ul_env *env, uint64_t *calls, uint64_t *injected);

/* ---- device ----------------------------------------------------------------- */

/* The backend an adapter runs on (the values of WebGPU's WGPUBackendType). */
typedef enum ul_backend {
  UL_BACKEND_UNDEFINED = 0, UL_BACKEND_NULL, UL_BACKEND_WEBGPU, UL_BACKEND_D3D11,
  UL_BACKEND_D3D12, UL_BACKEND_METAL, UL_BACKEND_VULKAN, UL_BACKEND_OPENGL,
  UL_BACKEND_OPENGLES,
} ul_backend;
/* "vulkan", "null", ... */
UL_API const char *ul_backend_name(ul_backend b);

/* The kind of adapter, as the implementation reports it. */
typedef enum ul_adapter_type {
  UL_ADAPTER_UNKNOWN = 0, UL_ADAPTER_DISCRETE_GPU, UL_ADAPTER_INTEGRATED_GPU,
  UL_ADAPTER_CPU,
} ul_adapter_type;
/* "discrete-gpu", "integrated-gpu", "cpu", "unknown". */
UL_API const char *ul_adapter_type_name(ul_adapter_type t);

/* An adapter as the implementation describes it (ul_device_adapter_info). */
typedef struct ul_adapter_info {
  char name[128];          /* e.g. "NVIDIA H200", "llvmpipe (LLVM 19.1.7, 256 bits)" */
  char vendor[64];         /* vendor name; may be empty */
  char architecture[64];   /* architecture name; may be empty */
  char driver[128];        /* driver description */
  ul_backend backend;      /* UL_BACKEND_UNDEFINED for a value unlost does not know */
  ul_adapter_type type;    /* discrete GPU, integrated GPU, CPU or unknown */
  uint32_t vendor_id;      /* vendor ID reported by the implementation */
  uint32_t device_id;      /* device ID reported by the implementation */
  bool is_fallback;        /* obtained as the fallback (CPU) adapter */
} ul_adapter_info;

/* The limits unlost exposes. In ul_device_desc.required_limits a zero field
 * means the implementation's default, and UL_LIMIT_ADAPTER asks for the
 * adapter's maximum. */
#define UL_LIMIT_ADAPTER UINT64_MAX
/* Device limits (ul_device_limits, ul_device_desc.required_limits); each
 * field is the WebGPU limit of the same name. */
typedef struct ul_limits {
  uint64_t max_buffer_size;                        /* WebGPU's maxBufferSize */
  uint64_t max_storage_buffer_binding_size;        /* maxStorageBufferBindingSize */
  uint64_t max_uniform_buffer_binding_size;        /* maxUniformBufferBindingSize */
  uint64_t max_compute_workgroup_storage_size;     /* maxComputeWorkgroupStorageSize */
  uint64_t max_compute_invocations_per_workgroup;  /* maxComputeInvocationsPerWorkgroup */
  uint64_t max_compute_workgroup_size_x;           /* maxComputeWorkgroupSizeX */
  uint64_t max_compute_workgroup_size_y;           /* maxComputeWorkgroupSizeY */
  uint64_t max_compute_workgroup_size_z;           /* maxComputeWorkgroupSizeZ */
  uint64_t max_compute_workgroups_per_dimension;   /* maxComputeWorkgroupsPerDimension */
  uint64_t max_storage_buffers_per_shader_stage;   /* maxStorageBuffersPerShaderStage */
  uint64_t max_bind_groups;                        /* maxBindGroups */
  uint64_t max_bindings_per_bind_group;            /* maxBindingsPerBindGroup */
  uint64_t max_texture_dimension_2d;               /* maxTextureDimension2D */
  /* minStorageBufferOffsetAlignment: reported only; ignored in required_limits */
  uint64_t min_storage_buffer_offset_alignment;
  /* minUniformBufferOffsetAlignment: reported only; ignored in required_limits */
  uint64_t min_uniform_buffer_offset_alignment;
} ul_limits;

/* Where a device stands with respect to loss and recovery
 * (ul_device_get_state, ul_event.state). */
/* X(NAME, "text", meaning): the device's states. */
#define UL_DEVICE_STATE_MAP(X)                                                                     \
  X(READY, "READY", "working on the adapter it asked for")                                        \
  X(LOST, "LOST", "the native device was lost; recovery pending")                                 \
  X(RECOVERING, "RECOVERING", "a new device is being built")                                      \
  X(FALLBACK, "FALLBACK", "working, on the fallback (CPU) adapter")                               \
  X(FAILED, "FAILED", "recovery gave up; calls fail with UL_ERR_DEVICE_FAILED")
/* The device's states (UL_DEVICE_STATE_MAP gives each one's meaning). */
typedef enum ul_device_state {
#define UL__DEVICE_STATE_ENUM(name, text, meaning) UL_DEVICE_##name,
  UL_DEVICE_STATE_MAP(UL__DEVICE_STATE_ENUM)
#undef UL__DEVICE_STATE_ENUM
} ul_device_state;
/* "READY", "LOST", "RECOVERING", "FALLBACK", "FAILED". */
UL_API const char *ul_device_state_name(ul_device_state s);

/* What a ul_event reports. */
/* X(NAME, "text", meaning): what a listener is told. */
#define UL_EVENT_KIND_MAP(X)                                                                       \
  X(LOST, "lost", "the native device was lost (reason, message)")                                 \
  X(RECOVERING, "recovering", "recovery started")                                                 \
  X(RETRY, "retry", "one attempt failed; the next after delay_ms")                                \
  X(RECOVERED, "recovered", "a new device works; epoch incremented")                              \
  X(FALLBACK, "fallback", "moved to the fallback adapter")                                        \
  X(FAILED, "failed", "recovery gave up")                                                         \
  X(HEALTH, "health", "the health monitor changed state (ul_event.health)")
/* What an event reports (UL_EVENT_KIND_MAP gives each one's meaning). */
typedef enum ul_event_kind {
#define UL__EVENT_KIND_ENUM(name, text, meaning) UL_EVENT_##name,
  UL_EVENT_KIND_MAP(UL__EVENT_KIND_ENUM)
#undef UL__EVENT_KIND_ENUM
} ul_event_kind;

/* The health monitor's states (see ul_health_config). */
typedef enum ul_health_state {
  UL_HEALTH_HEALTHY = 0,  /* working as expected */
  UL_HEALTH_DEGRADED,     /* slow, memory near the budget, or a few faults: still used */
  UL_HEALTH_BROKEN,       /* the breaker is open: calls fail fast or run on the fallback */
  UL_HEALTH_HALF_OPEN,    /* after the open wait: probe calls decide */
} ul_health_state;
/* "HEALTHY", "DEGRADED", "BROKEN", "HALF_OPEN". */
UL_API const char *ul_health_state_name(ul_health_state s);
/* "lost", "recovering", "retry", "recovered", "fallback", "failed",
 * "health"; static text. "unknown" for any other value. */
UL_API const char *ul_event_kind_name(ul_event_kind k);

/* One transition of a device, passed to its ul_listener_fn. */
typedef struct ul_event {
  ul_event_kind kind;        /* what happened */
  ul_device_state state;     /* the state after the event */
  uint64_t epoch;            /* the device's epoch after the event */
  uint32_t attempt;          /* recovery attempts so far (RETRY, RECOVERED, ...) */
  double since_loss_ms;      /* time since the loss was recorded */
  double delay_ms;           /* RETRY: back-off before the next attempt */
  const char *message;       /* why: the loss message or the last failure */
  ul_health_state health;    /* HEALTH: the new health state */
} ul_event;

/* Called after each transition, on the thread that caused it, with no
 * unlost lock held; it may call into unlost. `event` is valid during the
 * call only. */
typedef void (*ul_listener_fn)(ul_device *device, const ul_event *event, void *user);
/* Called once when recovery gives up (FAILED). It may, e.g., hand the work
 * to a remote service. Same rules as ul_listener_fn. */
typedef void (*ul_failed_fn)(ul_device *device, const char *why, void *user);

/* How a device recovers after a loss (ul_device_desc.recovery). All zero:
 * the defaults given with each field. Recovery never goes on for ever:
 * one loss is met by at most max_retries + 1 attempts on the preferred
 * adapter, then one on the fallback, then FAILED; and a device whose
 * recoveries follow each other with no call getting through in between (16
 * in a row: every try lost again before it completed) gives up at the
 * next loss: with the health monitor on and on_broken UL_BROKEN_FALLBACK it
 * moves to the fallback adapter once, otherwise (or when it stalls again)
 * it ends FAILED. A call recovers at most 4 times before it returns
 * UL_ERR_DEVICE_LOST saying so (a checkpoint longer: see
 * ul_device_checkpoint). */
typedef struct ul_recovery_config {
  /* Attempts to get a new device on the same kind of adapter before the
   * fallback. 0: 5. UL_RECOVERY_NO_RETRY: none. */
  uint32_t max_retries;
  /* Back-off before attempt n (n >= 1): min(max, initial * 2^(n-1)) scaled by
   * a random factor in [1 - jitter, 1 + jitter]. 0: initial 50 ms, max 2000 ms,
   * jitter 0.2. A negative jitter means none. */
  uint32_t backoff_initial_ms;
  uint32_t backoff_max_ms;  /* cap of the back-off. 0: 2000 ms */
  float jitter;             /* 0: 0.2; negative: none; above 1: UL_ERR_INVALID_ARGUMENT */
  /* Seed of the jitter's generator (0: from the clock). */
  uint64_t jitter_seed;
  /* true: do not move to the fallback (CPU) adapter when the retries run
   * out (nor try it when ul_device_create finds no preferred adapter).
   * Default false: move to it. */
  bool no_fallback;
  /* Time one adapter or device request may take. 0: 10000 ms. */
  uint32_t request_timeout_ms;
} ul_recovery_config;
/* ul_recovery_config.max_retries value for no retry on the same kind of
 * adapter: straight to the fallback (unless no_fallback). */
#define UL_RECOVERY_NO_RETRY UINT32_MAX

/* What a BROKEN device does with calls. */
typedef enum ul_broken_policy {
  UL_BROKEN_FALLBACK = 0,  /* default: move the work to the fallback adapter */
  UL_BROKEN_FAIL_FAST,     /* calls fail with UL_ERR_BREAKER_OPEN until probes succeed */
} ul_broken_policy;

/* The health monitor: a sliding window of outcomes (ok, validation error,
 * out-of-memory, internal error, loss, timeout) and latencies of
 * submissions and reads. Validation errors are program bugs and never make
 * a device sick; out-of-memory first empties unlost's buffer pools. "P95
 * above slow_ms" is decided as "more than 5 % of timed calls slower". */
typedef struct ul_health_config {
  bool disabled;                /* no monitor: the device is always HEALTHY */
  ul_broken_policy on_broken;   /* what BROKEN does with calls. 0: UL_BROKEN_FALLBACK */
  uint32_t window_ms;           /* 0: 10000, in 10 buckets */
  uint32_t min_calls;           /* calls in the window before rates count. 0: 20 */
  uint32_t slow_ms;             /* a call slower than this is slow. 0: 200 */
  float fault_rate_broken;      /* device-fault rate that opens the breaker. 0: 0.5 */
  uint32_t consecutive_losses;  /* losses or timeouts in a row that open it. 0: 3 */
  uint32_t open_wait_ms;        /* first wait before probing; doubles per trip. 0: 1000 */
  uint32_t open_wait_max_ms;    /* 0: 60000 */
  uint32_t probes;              /* successful probes that close it. 0: 3 */
  /* A submission not finished within this is overdue (a TIMEOUT). 0: 2000 */
  uint32_t submit_deadline_ms;
  /* Declare a device with an overdue submission hung: lose it on purpose
   * and recover on a new device, as the OS would after a TDR. The overdue
   * submission is not replayed (it would hang the new device too): what it
   * may write becomes LOST (its use is UL_ERR_DEVICE_LOST naming it). */
  bool declare_hung;
  uint64_t seed;                /* jitter of the open wait. 0: fixed */
} ul_health_config;

/* Which adapter ul_device_create asks for (ul_device_desc.power). */
typedef enum ul_power_preference {
  UL_POWER_HIGH_PERFORMANCE = 0, /* default */
  UL_POWER_LOW_POWER,
  UL_POWER_FALLBACK_ONLY,        /* ask for the fallback (CPU) adapter only */
} ul_power_preference;

/* How to create a device; all zero (or a NULL desc) gives the defaults. */
typedef struct ul_device_desc {
  const char *label;                  /* NULL: "device" */
  ul_power_preference power;          /* 0: UL_POWER_HIGH_PERFORMANCE */
  ul_limits required_limits;          /* zero fields: defaults */
  ul_recovery_config recovery;        /* zero: the defaults of ul_recovery_config */
  ul_listener_fn listener;            /* NULL: none */
  void *listener_user;               /* passed to listener as `user` */
  ul_failed_fn on_failed;             /* NULL: none */
  void *on_failed_user;              /* passed to on_failed as `user` */
  /* Refuse allocations beyond this many bytes of live GPU memory with
   * UL_ERR_OUT_OF_MEMORY before the driver is asked. 0: no budget. */
  uint64_t budget_bytes;
  /* Capture a backtrace for every tracked object (costly). */
  bool track_backtraces;
  ul_health_config health;            /* zero: the monitor on, with its defaults */
  /* The timeline in the report (ul_device_report, `unlost report`): a
   * ring of samples of live bytes per kind and of events (creates and
   * destroys of objects of at least timeline_min_bytes, losses,
   * recoveries with their phases, moves, checkpoints, health changes,
   * budget refusals, churn). timeline_bytes: the ring's size (0: 2 MiB,
   * 256 bytes a record; the oldest are dropped, and counted, when full);
   * timeline_min_bytes 0: 64 KiB; timeline_off: no timeline. */
  uint64_t timeline_bytes;
  uint64_t timeline_min_bytes; /* creates and destroys smaller than this are not events (0: 64 KiB) */
  bool timeline_off;           /* no timeline */
} ul_device_desc;

/* Requests an adapter (high-performance first, then the fallback adapter)
 * and a device with the required limits (checked against the adapter's).
 * On failure *out is NULL and nothing is held: UL_ERR_NO_ADAPTER (none, or
 * only Dawn's Null backend), UL_ERR_UNSUPPORTED (a limit above the
 * adapter's), UL_ERR_TIMEOUT, UL_ERR_INTERNAL. Thread-safe. */
#define ul_device_create(env, ...) ul_device_create_at(env, __VA_ARGS__, UL_SITE)
UL_API ul_status ul_device_create_at(ul_env *env, const ul_device_desc *desc,
                                     ul_device **out, const ul_site *site);
/* Destroys every object still alive (reporting each as a leak with its label
 * and call site), writes the final report to $UNLOST_REPORT when set, and
 * releases the native device. Asynchronous reads still queued are answered
 * first (see ul_buffer_read_async). NULL: nothing. Returns UL_ERR_BUSY when objects
 * were still alive (they are released all the same), UL_ERR_TIMEOUT when the
 * implementation did not release the device within twice the submit
 * deadline (work that never ends: the device is abandoned to a thread, and
 * the implementation stays loaded until the process exits). Must not race
 * with other calls on the same device. */
UL_API ul_status ul_device_destroy(ul_device *device);

/* The current state; reading it never blocks on recovery. A loss that
 * happened but was not yet processed shows as LOST. */
UL_API ul_device_state ul_device_get_state(ul_device *device);
/* Increments on every rebuild of the native device; starts at 1. */
UL_API uint64_t ul_device_epoch(ul_device *device);
/* Recoveries onto a new native device so far (a recovery that tried
 * several times counts once; the epoch counts every attempt). 0 for NULL. */
UL_API uint64_t ul_device_recoveries(ul_device *d);
/* Recovers now if the device is LOST. On a device already working on the
 * fallback adapter, tries the preferred adapter once and moves every object
 * back to it when it answers (staying on the fallback when not). UL_OK when
 * the device works afterwards; UL_ERR_DEVICE_FAILED when recovery gave up. */
UL_API ul_status ul_device_recover(ul_device *device);
/* The adapter of the current native device; it may change after a
 * recovery or a move to or from the fallback. UL_ERR_INVALID_ARGUMENT when
 * device or out is NULL. */
UL_API ul_status ul_device_adapter_info(ul_device *device, ul_adapter_info *out);
/* The limits in force on the current native device. */
UL_API ul_status ul_device_limits(ul_device *device, ul_limits *out);
/* Loses the native device on purpose through the implementation's own loss
 * path (Dawn's wgpuDeviceForceLoss), as a driver reset would. For tests and
 * drills. UL_OK only when this call lost a working native device (one a
 * recovery on another thread is rebuilding counts: that recovery starts
 * again). UL_ERR_BUSY, and nothing is done, when the device is already lost:
 * a loss is recorded and not yet recovered from (pending, or a recovery
 * waits for its new native device); count only UL_OK as a forced loss.
 * UL_ERR_DEVICE_FAILED when the device failed for good; UL_ERR_UNSUPPORTED
 * when the implementation lacks the extension. */
UL_API ul_status ul_device_force_loss(ul_device *device, const char *message);
/* Sets the time calls wait for an ongoing recovery before failing with
 * UL_ERR_TIMEOUT. Default 30000 ms. */
UL_API void ul_device_set_recovery_wait(ul_device *device, uint32_t ms);


/* ---- resources -------------------------------------------------------------
 * Handles are values: a slot index (20 bits), a generation (8 bits) and a
 * device tag (4 bits) in 32 bits. A zero, stale, destroyed or other device's
 * handle is answered with UL_ERR_INVALID_HANDLE (and the misuse is logged
 * with the call that made it), never a crash. Limits of the scheme: freed
 * slots are reused oldest first, so a stale handle can only alias a new
 * object after its slot was reused 256 times; devices are told apart by 15
 * tags, so a handle of another device is recognised as foreign only while
 * fewer than 16 devices were created after it. */
/* A buffer (ul_buffer_create). */
typedef struct ul_buffer { uint32_t id; /* 0: none */ } ul_buffer;
/* A texture (ul_texture_create). */
typedef struct ul_texture { uint32_t id; /* 0: none */ } ul_texture;
/* A view of a texture (ul_texture_view_create). */
typedef struct ul_texture_view { uint32_t id; /* 0: none */ } ul_texture_view;
/* A sampler (ul_sampler_create). */
typedef struct ul_sampler { uint32_t id; /* 0: none */ } ul_sampler;
/* A compiled WGSL module (ul_shader_create). */
typedef struct ul_shader { uint32_t id; /* 0: none */ } ul_shader;
/* A bind group layout (ul_bind_group_layout_create). */
typedef struct ul_bind_group_layout { uint32_t id; /* 0: none */ } ul_bind_group_layout;
/* A pipeline layout (ul_pipeline_layout_create). */
typedef struct ul_pipeline_layout { uint32_t id; /* 0: none */ } ul_pipeline_layout;
/* A compute pipeline (ul_compute_pipeline_create). */
typedef struct ul_compute_pipeline { uint32_t id; /* 0: none */ } ul_compute_pipeline;
/* A bind group (ul_bind_group_create). */
typedef struct ul_bind_group { uint32_t id; /* 0: none */ } ul_bind_group;

/* How an object's contents come back after a device loss. */
/* X(NAME, "text"): how an object's contents come back after a loss.
 *   LOG (default): GPU-written state: the last checkpoint plus a replay of
 *     every write and submission since (see ul_device_checkpoint).
 *   NONE: scratch and outputs: zero-filled.
 *   SOURCE: immutable data (weights): re-read from the memory range or file
 *     range named in the descriptor. No host copy is kept.
 *   SHADOW: small host-written state: a host copy of every write is kept.
 *   CALLBACK: the program refills the object from its ul_restore_fn. */
#define UL_RESTORE_MAP(X) \
  X(LOG, "log") X(NONE, "none") X(SOURCE, "source") X(SHADOW, "shadow") X(CALLBACK, "callback")
/* How a buffer's contents come back after a loss (see above). */
typedef enum ul_restore {
#define UL__RESTORE_ENUM(name, text) UL_RESTORE_##name,
  UL_RESTORE_MAP(UL__RESTORE_ENUM)
#undef UL__RESTORE_ENUM
} ul_restore;
/* "log", "none", "source", "shadow", "callback"; static text, "unknown"
 * for any other value. */
UL_API const char *ul_restore_name(ul_restore r);

/* CALLBACK policy: called after the object was recreated on a new device
 * (contents zero), with no unlost lock held; it refills the buffer with
 * ul_buffer_write or by running work. A non-OK return makes the object
 * LOST: later use returns UL_ERR_DEVICE_LOST. */
typedef ul_status (*ul_restore_fn)(ul_device *device, ul_buffer buffer, void *user);

/* Buffer usage bits (the values of WebGPU's WGPUBufferUsage). */
enum {
  UL_BUFFER_MAP_READ = 0x1,
  UL_BUFFER_MAP_WRITE = 0x2,
  UL_BUFFER_COPY_SRC = 0x4,
  UL_BUFFER_COPY_DST = 0x8,
  UL_BUFFER_UNIFORM = 0x40,
  UL_BUFFER_STORAGE = 0x80,
  UL_BUFFER_INDIRECT = 0x100,
};

/* How to create a buffer; zero fields take the defaults given. */
typedef struct ul_buffer_desc {
  const char *label;       /* copied; NULL: no label */
  uint64_t size;           /* required; bytes, a multiple of 4 */
  /* UL_BUFFER_* bits. 0: STORAGE | COPY_SRC | COPY_DST. unlost adds COPY_SRC
   * and COPY_DST where its restore policy needs them. */
  uint32_t usage;
  ul_restore restore;      /* 0: UL_RESTORE_LOG */
  /* SOURCE: `size` bytes at source_data (borrowed: must stay valid and
   * unchanged while the buffer lives), or at source_offset in the file
   * source_path (copied; mapped read-only when needed, never held in host
   * memory). Also the initial contents. */
  const void *source_data;
  const char *source_path;   /* SOURCE: file to read from; NULL: use source_data */
  uint64_t source_offset;    /* SOURCE: byte offset in source_path */
  /* CALLBACK: the refill function and its argument. */
  ul_restore_fn restore_fn;
  void *restore_user;       /* passed to restore_fn as `user` */
  /* Optional initial contents (`size` bytes, copied) for the other policies. */
  const void *initial_data;
} ul_buffer_desc;

/* Creates a buffer. UL_ERR_INVALID_ARGUMENT (size 0 or not a multiple of
 * 4, unknown usage bits, a SOURCE without a source, a file too short),
 * UL_ERR_OUT_OF_MEMORY (the budget, or the device), UL_ERR_VALIDATION,
 * UL_ERR_IO (source file). */
#define ul_buffer_create(dev, ...) ul_buffer_create_at(dev, __VA_ARGS__, UL_SITE)
UL_API ul_status ul_buffer_create_at(ul_device *device, const ul_buffer_desc *desc,
                                     ul_buffer *out, const ul_site *site);
/* Destroys the buffer (WebGPU's rules: a mapped buffer is unmapped and its
 * mapped pointer becomes invalid; a pending map completes with an error).
 * The memory is returned once the queue has finished with it (see
 * ul_device_wait_idle). A zero handle is a no-op; a stale one is
 * UL_ERR_INVALID_HANDLE. */
UL_API ul_status ul_buffer_destroy(ul_device *device, ul_buffer buffer);
/* Writes `size` bytes at `offset` (both multiples of 4) through the queue:
 * ordered with submissions. Small writes use the queue's write; large ones a
 * mapped staging buffer. `data` is copied before the call returns. */
UL_API ul_status ul_buffer_write(ul_device *device, ul_buffer buffer, uint64_t offset,
                                 const void *data, uint64_t size);
/* Reads `size` bytes at `offset` into `dst` once all work submitted before
 * the call has finished. Blocks up to timeout_ms (0: 30000 ms):
 * UL_ERR_TIMEOUT after that. */
UL_API ul_status ul_buffer_read(ul_device *device, ul_buffer buffer, uint64_t offset,
                                void *dst, uint64_t size, uint32_t timeout_ms);
/* Asynchronous read: `done` is called with the status once `dst` holds the
 * data (or the read failed), from ul_device_poll on this device, with no
 * unlost lock held. `dst` must stay valid until then. */
typedef void (*ul_read_fn)(ul_device *device, ul_status status, void *dst, void *user);
/* Starts an asynchronous read; `done` gets `user`. The copy is submitted,
 * ordered after the work already submitted, and the call returns at once;
 * ul_device_poll delivers it when it has arrived. Reads are delivered in
 * the order they were issued. A read caught by a device loss is done again
 * by the recovery's replay at its place in the queue, so it gets the
 * contents it would have had without the loss.
 * Every read accepted is answered exactly once, never left pending: a read
 * not delivered within its deadline ($UNLOST_READ_DEADLINE_MS after the
 * call, default 30000 ms) is answered by the next ul_device_poll with
 * UL_ERR_DEVICE_LOST when the device was lost since it was issued (the
 * message says how often), else UL_ERR_TIMEOUT; on a device that failed
 * for good with UL_ERR_DEVICE_FAILED; at ul_device_destroy, during the
 * call, with its data if it had arrived, else UL_ERR_WRONG_STATE (`done`
 * must not call into the device then). Returns UL_OK once queued (the
 * read's own status goes to `done`); UL_ERR_INVALID_ARGUMENT (NULL device
 * or done, NULL dst with a size, a range outside the buffer, a mappable
 * buffer), UL_ERR_INVALID_HANDLE, UL_ERR_OUT_OF_MEMORY, UL_ERR_LOG_FULL
 * (see ul_device_checkpoint). */
UL_API ul_status ul_buffer_read_async(ul_device *device, ul_buffer buffer, uint64_t offset,
                                      void *dst, uint64_t size, ul_read_fn done, void *user);
/* Maps a MAP_READ or MAP_WRITE buffer (WebGPU's mapAsync + getMappedRange),
 * waiting up to timeout_ms (0: 30000 ms). The pointer is valid until
 * ul_buffer_unmap or ul_buffer_destroy, device losses included: a mapping
 * made before a loss keeps its memory, and at unmap what was written
 * through it reaches the rebuilt buffer. A map caught by a loss recovers
 * and maps the rebuilt buffer (filled by the replay). */
typedef enum ul_map_mode { UL_MAP_READ = 1, UL_MAP_WRITE = 2 } ul_map_mode;
/* Maps `size` bytes at `offset` (multiples of 4) and stores the pointer in
 * *ptr (NULL on failure). UL_ERR_INVALID_ARGUMENT (range, or a buffer
 * without the usage bit the mode needs), UL_ERR_WRONG_STATE (already
 * mapped), UL_ERR_INVALID_HANDLE, UL_ERR_TIMEOUT, UL_ERR_VALIDATION (the
 * implementation refused the map), UL_ERR_DEVICE_LOST. */
UL_API ul_status ul_buffer_map(ul_device *device, ul_buffer buffer, ul_map_mode mode,
                               uint64_t offset, uint64_t size, uint32_t timeout_ms, void **ptr);
/* Unmaps a buffer mapped by ul_buffer_map; the pointer becomes invalid.
 * For a SHADOW or LOG buffer with MAP_WRITE usage the host copy takes
 * exactly the mapped range. UL_ERR_WRONG_STATE when not mapped,
 * UL_ERR_INVALID_HANDLE; UL_ERR_DEVICE_LOST / UL_ERR_DEVICE_FAILED, naming
 * the buffer, when a mapping kept past a loss could not be copied into the
 * rebuilt buffer because recovery gave up. */
UL_API ul_status ul_buffer_unmap(ul_device *device, ul_buffer buffer);
/* The buffer's size in bytes into *size (0 on failure).
 * UL_ERR_INVALID_HANDLE, UL_ERR_INVALID_ARGUMENT (NULL device or size). */
UL_API ul_status ul_buffer_size(ul_device *device, ul_buffer buffer, uint64_t *size);

/* ---- textures, views, samplers ---- */
/* Texel formats of textures and storage-texture bindings. */
typedef enum ul_format {
  UL_FORMAT_R32_FLOAT = 0, /* default */
  UL_FORMAT_R32_UINT,
  UL_FORMAT_RG32_FLOAT,
  UL_FORMAT_RGBA8_UNORM,
  UL_FORMAT_RGBA16_FLOAT,
  UL_FORMAT_RGBA32_FLOAT,
  UL_FORMAT_RGBA32_UINT,
  UL_FORMAT_R8_UNORM,
  UL_FORMAT_COUNT_,
} ul_format;
/* Bytes per texel of a format; 0 for an unknown one. */
UL_API uint32_t ul_format_bytes(ul_format f);

/* Texture usage bits (the values of WebGPU's WGPUTextureUsage). */
enum {
  UL_TEXTURE_COPY_SRC = 0x1,
  UL_TEXTURE_COPY_DST = 0x2,
  UL_TEXTURE_SAMPLED = 0x4,
  UL_TEXTURE_STORAGE = 0x8,
};

/* How to create a texture; zero fields take the defaults given. */
typedef struct ul_texture_desc {
  const char *label;       /* copied; NULL: no label */
  uint32_t width;          /* required */
  uint32_t height;         /* 0: 1 */
  uint32_t depth;          /* depth (3D) or array layers (2D). 0: 1 */
  bool is_3d;              /* a 3D texture rather than a 2D array */
  ul_format format;        /* 0: R32_FLOAT */
  uint32_t usage;          /* UL_TEXTURE_* bits. 0: SAMPLED | STORAGE | COPY_SRC | COPY_DST */
  uint32_t mip_levels;     /* 0: 1 */
  /* LOG (default: every level and layer from the last checkpoint, then the
   * replay of writes and submissions), NONE, SHADOW (a host copy of the
   * writes to level 0). */
  ul_restore restore;
} ul_texture_desc;
/* Creates a texture; COPY_SRC and COPY_DST are always added (restore needs
 * them), and its tracked size is an estimate. UL_ERR_INVALID_ARGUMENT
 * (width 0, unknown format or usage bits, a policy other than LOG, NONE or
 * SHADOW, a dimension above 65536 or more than 16 levels),
 * UL_ERR_OUT_OF_MEMORY (the budget, the device, or the SHADOW host copy),
 * UL_ERR_VALIDATION. */
#define ul_texture_create(dev, ...) ul_texture_create_at(dev, __VA_ARGS__, UL_SITE)
UL_API ul_status ul_texture_create_at(ul_device *device, const ul_texture_desc *desc,
                                      ul_texture *out, const ul_site *site);
/* Destroys the texture; its views become invalid (UL_ERR_INVALID_HANDLE). */
UL_API ul_status ul_texture_destroy(ul_device *device, ul_texture texture);
/* Writes a region of mip level 0: `bytes_per_row` of 0 means tightly packed. */
UL_API ul_status ul_texture_write(ul_device *device, ul_texture texture, uint32_t x, uint32_t y,
                                  uint32_t z, uint32_t width, uint32_t height, uint32_t depth,
                                  const void *data, uint64_t size, uint32_t bytes_per_row);
/* Reads a region of mip level 0, tightly packed, into dst. */
UL_API ul_status ul_texture_read(ul_device *device, ul_texture texture, uint32_t x, uint32_t y,
                                 uint32_t z, uint32_t width, uint32_t height, uint32_t depth,
                                 void *dst, uint64_t size, uint32_t timeout_ms);

/* How to create a view of a texture. */
typedef struct ul_texture_view_desc {
  const char *label;       /* copied; NULL: no label */
  ul_texture texture;      /* required */
  uint32_t base_mip;       /* first mip level. 0: level 0 */
  uint32_t mip_count;      /* 0: the rest */
  uint32_t base_layer;     /* first array layer. 0: layer 0 */
  uint32_t layer_count;    /* 0: the rest */
} ul_texture_view_desc;
/* Creates a view: 3D for a 3D texture, 2D when it covers one layer (or the
 * texture has one), else a 2D array. It dies with its texture.
 * UL_ERR_INVALID_HANDLE (texture), UL_ERR_INVALID_ARGUMENT,
 * UL_ERR_VALIDATION. */
#define ul_texture_view_create(dev, ...) ul_texture_view_create_at(dev, __VA_ARGS__, UL_SITE)
UL_API ul_status ul_texture_view_create_at(ul_device *device, const ul_texture_view_desc *desc,
                                           ul_texture_view *out, const ul_site *site);
/* Destroys the view. A zero handle is a no-op; a stale one is
 * UL_ERR_INVALID_HANDLE. */
UL_API ul_status ul_texture_view_destroy(ul_device *device, ul_texture_view view);

/* How to create a sampler; all zero: nearest filtering, clamp to edge. */
typedef struct ul_sampler_desc {
  const char *label;       /* copied; NULL: no label */
  bool linear;             /* linear filtering; default nearest */
  bool repeat;             /* repeat addressing; default clamp to edge */
} ul_sampler_desc;
/* Creates a sampler; the filter and address mode apply to every axis and
 * to mip levels. desc may be NULL (defaults). UL_ERR_INVALID_ARGUMENT,
 * UL_ERR_VALIDATION. */
#define ul_sampler_create(dev, ...) ul_sampler_create_at(dev, __VA_ARGS__, UL_SITE)
UL_API ul_status ul_sampler_create_at(ul_device *device, const ul_sampler_desc *desc,
                                      ul_sampler *out, const ul_site *site);
/* Destroys the sampler. A zero handle is a no-op; a stale one is
 * UL_ERR_INVALID_HANDLE. */
UL_API ul_status ul_sampler_destroy(ul_device *device, ul_sampler sampler);

/* ---- shaders, layouts, pipelines, bind groups ---- */
/* How to create a shader module. */
typedef struct ul_shader_desc {
  const char *label;       /* copied; NULL: no label */
  const char *wgsl;        /* required; copied */
} ul_shader_desc;
/* Compiles WGSL. UL_ERR_SHADER_COMPILE with the compiler's message, which
 * names line and column ("3:14 error: unresolved identifier 'x'"). */
#define ul_shader_create(dev, ...) ul_shader_create_at(dev, __VA_ARGS__, UL_SITE)
UL_API ul_status ul_shader_create_at(ul_device *device, const ul_shader_desc *desc,
                                     ul_shader *out, const ul_site *site);
/* Destroys the shader module. A zero handle is a no-op; a stale one is
 * UL_ERR_INVALID_HANDLE. */
UL_API ul_status ul_shader_destroy(ul_device *device, ul_shader shader);

/* What a binding of a bind group layout holds; every binding is visible to
 * the compute stage. */
typedef enum ul_binding_type {
  UL_BINDING_STORAGE = 0,          /* read_write storage buffer (default) */
  UL_BINDING_READ_ONLY_STORAGE,    /* read-only storage buffer */
  UL_BINDING_UNIFORM,              /* uniform buffer */
  UL_BINDING_SAMPLER,              /* non-filtering sampler */
  UL_BINDING_TEXTURE,              /* sampled float texture, 2D */
  UL_BINDING_STORAGE_TEXTURE,      /* write-only storage texture, 2D */
} ul_binding_type;

/* Most entries in a bind group layout or a bind group. */
#define UL_MAX_BINDINGS 16
/* One binding of a bind group layout. */
typedef struct ul_layout_entry {
  uint32_t binding;                /* the WGSL `@binding` number */
  ul_binding_type type;            /* 0: UL_BINDING_STORAGE */
  ul_format format;                /* STORAGE_TEXTURE only */
} ul_layout_entry;
/* How to create a bind group layout. */
typedef struct ul_bind_group_layout_desc {
  const char *label;               /* copied; NULL: no label */
  uint32_t entry_count;            /* at most UL_MAX_BINDINGS */
  ul_layout_entry entries[UL_MAX_BINDINGS]; /* the first entry_count are used */
} ul_bind_group_layout_desc;
/* Creates a bind group layout (the descriptor is copied).
 * UL_ERR_INVALID_ARGUMENT (too many entries, unknown type or format),
 * UL_ERR_VALIDATION. */
#define ul_bind_group_layout_create(dev, ...) ul_bind_group_layout_create_at(dev, __VA_ARGS__, UL_SITE)
UL_API ul_status ul_bind_group_layout_create_at(ul_device *device,
                                                const ul_bind_group_layout_desc *desc,
                                                ul_bind_group_layout *out, const ul_site *site);
/* Destroys the layout. A zero handle is a no-op; a stale one is
 * UL_ERR_INVALID_HANDLE. */
UL_API ul_status ul_bind_group_layout_destroy(ul_device *device, ul_bind_group_layout layout);

/* Most bind groups in a pipeline layout, and per dispatch. */
#define UL_MAX_BIND_GROUPS 4
/* How to create a pipeline layout. */
typedef struct ul_pipeline_layout_desc {
  const char *label;               /* copied; NULL: no label */
  uint32_t group_count;            /* at most UL_MAX_BIND_GROUPS */
  ul_bind_group_layout groups[UL_MAX_BIND_GROUPS]; /* groups[i] is `@group(i)` */
} ul_pipeline_layout_desc;
/* Creates a pipeline layout (the descriptor is copied).
 * UL_ERR_INVALID_ARGUMENT (too many groups), UL_ERR_INVALID_HANDLE (a
 * group layout), UL_ERR_VALIDATION. */
#define ul_pipeline_layout_create(dev, ...) ul_pipeline_layout_create_at(dev, __VA_ARGS__, UL_SITE)
UL_API ul_status ul_pipeline_layout_create_at(ul_device *device, const ul_pipeline_layout_desc *desc,
                                              ul_pipeline_layout *out, const ul_site *site);
/* Destroys the layout. A zero handle is a no-op; a stale one is
 * UL_ERR_INVALID_HANDLE. */
UL_API ul_status ul_pipeline_layout_destroy(ul_device *device, ul_pipeline_layout layout);

/* Most override constants per compute pipeline. */
#define UL_MAX_CONSTANTS 8
/* A value for one WGSL `override` constant of a pipeline. */
typedef struct ul_constant {
  const char *name;                /* a WGSL `override` name */
  double value;                    /* the value it takes */
} ul_constant;
/* How to create a compute pipeline. */
typedef struct ul_compute_pipeline_desc {
  const char *label;               /* copied; NULL: no label */
  ul_shader shader;                /* required */
  const char *entry;               /* NULL: "main" */
  ul_pipeline_layout layout;       /* zero: derived from the shader ("auto") */
  uint32_t constant_count;         /* at most UL_MAX_CONSTANTS */
  ul_constant constants[UL_MAX_CONSTANTS]; /* names are copied; each needs one */
} ul_compute_pipeline_desc;
/* Creates a compute pipeline (entry and constant names are copied).
 * UL_ERR_INVALID_ARGUMENT (too many constants, a constant without a name),
 * UL_ERR_INVALID_HANDLE (shader or layout), UL_ERR_VALIDATION. */
#define ul_compute_pipeline_create(dev, ...) ul_compute_pipeline_create_at(dev, __VA_ARGS__, UL_SITE)
UL_API ul_status ul_compute_pipeline_create_at(ul_device *device,
                                               const ul_compute_pipeline_desc *desc,
                                               ul_compute_pipeline *out, const ul_site *site);
/* Destroys the pipeline. A zero handle is a no-op; a stale one is
 * UL_ERR_INVALID_HANDLE. */
UL_API ul_status ul_compute_pipeline_destroy(ul_device *device, ul_compute_pipeline pipeline);

/* One resource of a bind group: exactly one of buffer, view and sampler
 * is non-zero. */
typedef struct ul_bind_entry {
  uint32_t binding;                /* the WGSL `@binding` number */
  ul_buffer buffer;                /* one of buffer, view, sampler */
  uint64_t offset;                 /* buffer: first byte bound */
  uint64_t size;                   /* 0: to the end of the buffer */
  ul_texture_view view;            /* a texture view */
  ul_sampler sampler;              /* a sampler */
} ul_bind_entry;
/* How to create a bind group. */
typedef struct ul_bind_group_desc {
  const char *label;               /* copied; NULL: no label */
  /* The layout: an explicit one, or group `group` of an "auto" pipeline. */
  ul_bind_group_layout layout;
  ul_compute_pipeline pipeline;    /* used when layout is zero */
  uint32_t group;                  /* with pipeline: the `@group` index */
  uint32_t entry_count;            /* at most UL_MAX_BINDINGS */
  ul_bind_entry entries[UL_MAX_BINDINGS]; /* the first entry_count are used */
} ul_bind_group_desc;
/* Creates a bind group (the descriptor is copied). UL_ERR_INVALID_ARGUMENT
 * (too many entries, neither layout nor pipeline, an entry without exactly
 * one resource), UL_ERR_INVALID_HANDLE, UL_ERR_VALIDATION (e.g. the
 * pipeline has no such group). */
#define ul_bind_group_create(dev, ...) ul_bind_group_create_at(dev, __VA_ARGS__, UL_SITE)
UL_API ul_status ul_bind_group_create_at(ul_device *device, const ul_bind_group_desc *desc,
                                         ul_bind_group *out, const ul_site *site);
/* Destroys the bind group. A zero handle is a no-op; a stale one is
 * UL_ERR_INVALID_HANDLE. */
UL_API ul_status ul_bind_group_destroy(ul_device *device, ul_bind_group group);

/* ---- command lists -----------------------------------------------------------
 * A command list records compute work as data; ul_cmd_submit encodes it into
 * WebGPU, so the same list can be encoded again on another device after a
 * loss. Recording checks handles at once; a list is used by one thread at a
 * time. */
/* A command list (opaque). */
typedef struct ul_cmd ul_cmd;
/* Creates an empty command list for `device`; `label` (may be NULL) is
 * copied. The list is tracked like an object (reports, live counts) and must
 * be destroyed before its device. UL_ERR_INVALID_ARGUMENT,
 * UL_ERR_OUT_OF_MEMORY. */
#define ul_cmd_create(dev, ...) ul_cmd_create_at(dev, __VA_ARGS__, UL_SITE)
UL_API ul_status ul_cmd_create_at(ul_device *device, const char *label, ul_cmd **out,
                                  const ul_site *site);
/* Frees the list and its commands. NULL: no-op. */
UL_API void ul_cmd_destroy(ul_cmd *cmd);
/* Forgets the recorded commands; the list can be recorded again. */
UL_API void ul_cmd_reset(ul_cmd *cmd);
/* Records a dispatch of x * y * z workgroups of `pipeline`, with groups[i]
 * bound as `@group(i)` (group_count at most UL_MAX_BIND_GROUPS).
 * UL_ERR_INVALID_HANDLE, UL_ERR_INVALID_ARGUMENT, UL_ERR_OUT_OF_MEMORY. */
UL_API ul_status ul_cmd_dispatch(ul_cmd *cmd, ul_compute_pipeline pipeline,
                                 const ul_bind_group *groups, uint32_t group_count,
                                 uint32_t x, uint32_t y, uint32_t z);
/* As ul_cmd_dispatch, with the workgroup counts read on the GPU from
 * `args` at `offset` (a multiple of 4). */
UL_API ul_status ul_cmd_dispatch_indirect(ul_cmd *cmd, ul_compute_pipeline pipeline,
                                          const ul_bind_group *groups, uint32_t group_count,
                                          ul_buffer args, uint64_t offset);
/* Records a copy of `size` bytes from src to dst; offsets and size are
 * multiples of 4 (else UL_ERR_INVALID_ARGUMENT). UL_ERR_INVALID_HANDLE. */
UL_API ul_status ul_cmd_copy_buffer(ul_cmd *cmd, ul_buffer src, uint64_t src_offset,
                                    ul_buffer dst, uint64_t dst_offset, uint64_t size);
/* Records zeroing `size` bytes at `offset` (multiples of 4; size 0: to the
 * end). UL_ERR_INVALID_ARGUMENT, UL_ERR_INVALID_HANDLE. */
UL_API ul_status ul_cmd_clear_buffer(ul_cmd *cmd, ul_buffer buffer, uint64_t offset,
                                     uint64_t size);
/* Copies between a buffer (rows of bytes_per_row, a multiple of 256) and a
 * region of a texture's mip level 0. */
UL_API ul_status ul_cmd_copy_buffer_to_texture(ul_cmd *cmd, ul_buffer src, uint64_t offset,
                                               uint32_t bytes_per_row, ul_texture dst,
                                               uint32_t width, uint32_t height, uint32_t depth);
/* The reverse copy: a width x height x depth region at the origin of the
 * texture's mip level 0 into rows of bytes_per_row (a multiple of 256). */
UL_API ul_status ul_cmd_copy_texture_to_buffer(ul_cmd *cmd, ul_texture src, uint32_t width,
                                               uint32_t height, uint32_t depth, ul_buffer dst,
                                               uint64_t offset, uint32_t bytes_per_row);
/* Encodes and submits the list; the list stays recorded and can be
 * submitted again. *serial (may be NULL) identifies the submission for
 * ul_device_wait. A bind group or pipeline that refers to a destroyed object
 * is reported here (UL_ERR_INVALID_HANDLE), before anything is submitted. */
UL_API ul_status ul_cmd_submit(ul_device *device, ul_cmd *cmd, uint64_t *serial);

/* Waits until submission `serial` (0: everything submitted so far) has
 * finished on the GPU, up to timeout_ms (0: 30000 ms). */
UL_API ul_status ul_device_wait(ul_device *device, uint64_t serial, uint32_t timeout_ms);
/* Waits until the queue is idle, so that the memory of destroyed objects
 * has been returned. */
UL_API ul_status ul_device_wait_idle(ul_device *device, uint32_t timeout_ms);
/* Copies the LOG buffers written since the last checkpoint back to the host
 * and empties the operation log, as one transaction: the copies go to fresh
 * memory and are committed, with the log emptied, only if the device was
 * not lost meanwhile (a loss during a checkpoint leaves the previous one and
 * the whole log; this call then recovers and checkpoints again).
 * Asynchronous reads in flight get their data first (delivered later by
 * ul_device_poll as usual). A checkpoint is resumable: what an attempt
 * read is kept across a loss (and across calls while no later work may have
 * changed it), so after the recovery only the rest is read; it still
 * commits one point of the queue. The call goes on through losses while its
 * attempts read something new (at most 4 recoveries in a row that read
 * nothing, 64 in all). unlost also checkpoints by itself on the calls that
 * add to the log: from a quarter of its bound of 64 MiB ($UNLOST_LOG_MAX_MB)
 * or 1024 entries on, without waiting (the copies are recorded where the
 * queue stands and commit, with the log's entries before that place, once
 * they have arrived; $UNLOST_CHECKPOINT_ASYNC=0 turns that off), and from
 * three quarters on by waiting for the queue, as this call does (an
 * asynchronous checkpoint under way ends first). The log never grows past its bound:
 * at the bound a call that would add to it (write, submit, asynchronous
 * read, create with initial data) is refused with UL_ERR_LOG_FULL, doing
 * nothing and losing nothing, when no checkpoint could commit; it may be
 * called again later. UL_ERR_WRONG_STATE from a restore callback (the
 * recovery's replay still needs the log), UL_ERR_OUT_OF_MEMORY (host
 * copies), UL_ERR_DEVICE_LOST when losses kept it from committing (nothing
 * committed, no data lost), UL_ERR_DEVICE_FAILED when recovery gave up. */
UL_API ul_status ul_device_checkpoint(ul_device *device);
/* Delivers completed asynchronous reads, and answers those past their
 * deadline or of a device that failed for good (see ul_buffer_read_async).
 * Never blocks on the GPU (it may run a recovery of a lost device, which is
 * bounded). Returns how many were delivered. */
UL_API int ul_device_poll(ul_device *device);

/* ---- what replaces churn: a buffer pool and a ring -------------------------
 * A pool keeps released buffers by size class (powers of two from 256 B)
 * and hands them out again, so a program that needs a temporary buffer per
 * frame stops creating and destroying one. Not thread-safe: one thread per
 * pool. */
/* A buffer pool (opaque). */
typedef struct ul_buffer_pool ul_buffer_pool;
/* How to create a buffer pool; zero fields take the defaults given. */
typedef struct ul_buffer_pool_desc {
  const char *label;       /* label of the pooled buffers; NULL: "pool" */
  uint32_t usage;          /* 0: STORAGE | COPY_SRC | COPY_DST */
  ul_restore restore;      /* 0: LOG. NONE suits scratch buffers. */
  /* Bytes kept in free buffers beyond which released ones are destroyed.
   * 0: 64 MiB. */
  uint64_t max_free_bytes;
} ul_buffer_pool_desc;
/* Creates an empty pool on `device`: no buffer is made before the first
 * acquire. desc may be NULL (defaults); the label is copied. Destroy the
 * pool before its device. UL_ERR_INVALID_ARGUMENT, UL_ERR_OUT_OF_MEMORY. */
UL_API ul_status ul_buffer_pool_create(ul_device *device, const ul_buffer_pool_desc *desc,
                                       ul_buffer_pool **out);
/* A buffer of at least `size` bytes (its class); contents are undefined. */
UL_API ul_status ul_buffer_pool_acquire(ul_buffer_pool *pool, uint64_t size, ul_buffer *out);
/* Gives a buffer back for reuse (it is not destroyed). */
UL_API ul_status ul_buffer_pool_release(ul_buffer_pool *pool, ul_buffer buffer);
/* Destroys every free buffer; returns the bytes freed. */
UL_API uint64_t ul_buffer_pool_trim(ul_buffer_pool *pool);
/* Destroys the pool and every buffer it made, free or not. NULL: no-op. */
UL_API void ul_buffer_pool_destroy(ul_buffer_pool *pool);

/* A ring: one buffer cut into aligned slices handed out in turn, for
 * per-frame uniforms and staging. Each push goes through the queue, so it
 * is ordered after the work already submitted: overwriting a slice that an
 * earlier submission reads is safe. */
/* A ring (opaque). */
typedef struct ul_ring ul_ring;
/* How to create a ring. */
typedef struct ul_ring_desc {
  const char *label;       /* NULL: "ring" */
  uint64_t size;           /* required: total bytes */
  uint32_t usage;          /* 0: UNIFORM | COPY_DST */
  uint32_t alignment;      /* of each slice; 0: 256 (the uniform offset alignment) */
} ul_ring_desc;
/* Creates a ring and its buffer (restore policy LOG). Not thread-safe: one
 * thread per ring. UL_ERR_INVALID_ARGUMENT (NULL desc, an alignment that is
 * not a power of two >= 4, a size of 0 or not a multiple of the alignment),
 * and the statuses of ul_buffer_create. */
UL_API ul_status ul_ring_create(ul_device *device, const ul_ring_desc *desc, ul_ring **out);
/* Copies `size` bytes into the next slice; *buffer and *offset say where
 * they are (bind that range). UL_ERR_INVALID_ARGUMENT when size exceeds the ring. */
UL_API ul_status ul_ring_push(ul_ring *ring, const void *data, uint64_t size, ul_buffer *buffer,
                              uint64_t *offset);
/* Destroys the ring and its buffer. NULL: no-op. */
UL_API void ul_ring_destroy(ul_ring *ring);

/* ---- health and metrics ---------------------------------------------------- */
/* Latencies of one kind of call over the health window. */
typedef struct ul_latency {
  uint64_t count;               /* timed calls in the window */
  /* Median, from a log-bucket histogram (within 4.5 %), as are p95 and p99. */
  double p50_ms;
  double p95_ms;                /* 95th percentile */
  double p99_ms;                /* 99th percentile */
  double max_ms;                /* slowest call */
} ul_latency;
/* The health monitor's state and counters (ul_device_health). */
typedef struct ul_health_snapshot {
  ul_health_state state;        /* current state */
  double time_in_state_s;       /* seconds in the current state */
  uint32_t trips;               /* trip level (sets the open wait; decays) */
  uint64_t trips_total;         /* trips to BROKEN since creation */
  double open_wait_left_s;      /* BROKEN: until probing starts */
  uint64_t window_calls;        /* outcomes in the window that count (all but validation) */
  uint64_t window_faults;       /* internal errors, losses and timeouts in the window */
  uint64_t window_slow;         /* timed calls in the window slower than slow_ms */
  double fault_rate;            /* window_faults / window_calls; 0 if none */
  double slow_rate;             /* slow share of the timed calls in the window; 0 if none */
  ul_latency submit;            /* latencies of submissions (those followed: one at a time) */
  ul_latency read;              /* latencies of reads */
  uint64_t ok;                  /* outcomes since creation: successes */
  uint64_t validation;          /* validation errors */
  uint64_t out_of_memory;       /* out-of-memory errors */
  uint64_t internal;            /* internal errors */
  uint64_t losses;              /* device losses */
  uint64_t timeouts;            /* timeouts */
  uint64_t pending;             /* submissions not yet known to be finished */
  char reason[112];             /* why the last transition happened */
} ul_health_snapshot;
/* A snapshot of the device's health monitor; all zero (HEALTHY) when the
 * monitor is disabled. UL_ERR_INVALID_ARGUMENT, UL_ERR_OUT_OF_MEMORY. */
UL_API ul_status ul_device_health(ul_device *device, ul_health_snapshot *out);

/* Output format of ul_metrics. */
typedef enum ul_metrics_format {
  UL_METRICS_PROMETHEUS = 0,    /* text exposition format 0.0.4 */
  UL_METRICS_JSON,              /* JSON */
} ul_metrics_format;
/* Metrics of `count` devices, each series labelled device="<label>":
 * unlost_device_state, unlost_device_losses_total, unlost_recoveries_total,
 * unlost_recovery_seconds, unlost_live_objects, unlost_live_bytes,
 * unlost_breaker_state, unlost_submit_seconds and more. *out is allocated:
 * release it with ul_free(). */
UL_API ul_status ul_metrics(ul_device *const *devices, size_t count, ul_metrics_format format,
                            char **out);

/* ---- accounting ----------------------------------------------------------- */
/* The tracker's totals for one device (ul_device_memory_stats). Objects are
 * the tracked ones: resources and command lists. */
typedef struct ul_memory_stats {
  uint64_t live_objects;           /* objects alive now */
  uint64_t live_bytes;             /* their bytes (textures: estimated) */
  uint64_t peak_objects;           /* highest live_objects so far */
  uint64_t peak_bytes;             /* highest live_bytes so far */
  uint64_t created;                /* objects created over the device's life */
  uint64_t destroyed;              /* objects destroyed over the device's life */
  uint64_t budget_bytes;           /* the budget; 0: none */
  uint64_t churning_sites;         /* call sites found churning so far */
  uint64_t log_bytes;              /* memory held by the operation log */
} ul_memory_stats;
/* The device's memory counters. UL_ERR_INVALID_ARGUMENT when device or out
 * is NULL. */
UL_API ul_status ul_device_memory_stats(ul_device *device, ul_memory_stats *out);
/* ---- loss forensics ----
 * What the device was doing when it was lost: the submissions not known
 * to be finished (the work that was running, or queued behind it), and the
 * last ones that finished, with their times. */
/* How many submissions a ul_loss_info lists of each kind. */
#define UL_LOSS_SUBMISSIONS 8
/* One submission of a command list (ul_cmd_submit). */
typedef struct ul_submission_info {
  uint64_t serial;           /* as ul_cmd_submit returned it */
  char label[64];            /* the command list's label; "" for none */
  const char *file;          /* where the list was created (ul_cmd_create's site) */
  int line;                  /* and its line */
  char pipelines[128];       /* labels of the pipelines it dispatches, ", " between */
  /* In flight: from its submit to the loss. Finished: from its submit to
   * the moment its completion was seen (an upper bound of its GPU time). */
  double ms;
} ul_submission_info;
/* A device's latest loss: when, why, and the submissions it caught. */
typedef struct ul_loss_info {
  uint64_t number;           /* 1 for the device's first loss; 0: none yet */
  uint64_t epoch;            /* the epoch of the native device that was lost */
  uint64_t at_ns;            /* when it was recorded (monotonic clock) */
  uint32_t reason;           /* WGPUDeviceLostReason */
  char message[256];         /* the implementation's message */
  uint32_t in_flight;        /* submissions not known finished at the loss */
  uint32_t in_flight_listed; /* the oldest, in in_flight_list (at most 8) */
  ul_submission_info in_flight_list[UL_LOSS_SUBMISSIONS]; /* oldest first */
  uint32_t finished_listed;  /* the last that finished, newest first */
  ul_submission_info finished_list[UL_LOSS_SUBMISSIONS]; /* newest first */
} ul_loss_info;
/* The device's latest loss (out->number 0 when it was never lost). The
 * log line of a loss says the same ("lost while 'matmul' (model.c:212) had
 * run 2.31 s"), and the report lists the last 16 under "losses".
 * UL_ERR_INVALID_ARGUMENT when device or out is NULL. */
UL_API ul_status ul_device_last_loss(ul_device *device, ul_loss_info *out);

/* Format of ul_device_report. */
typedef enum ul_report_format { UL_REPORT_TEXT = 0, UL_REPORT_JSON } ul_report_format;
/* The tracker's report: live objects with label, size and call site, totals
 * per kind, label and site, churn warnings. *out is allocated: release it
 * with ul_free(). */
UL_API ul_status ul_device_report(ul_device *device, ul_report_format format, char **out);
/* Releases memory that unlost allocated for the caller (reports). NULL: no-op. */
UL_API void ul_free(void *p);
/* Writes the JSON report to `path` (atomically). */
UL_API ul_status ul_device_report_write(ul_device *device, const char *path);
/* Changes the budget (0: none). */
UL_API ul_status ul_device_set_budget(ul_device *device, uint64_t bytes);

#ifdef __cplusplus
}
#endif
#endif /* UNLOST_H */
