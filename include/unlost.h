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

#define UL_VERSION_MAJOR 0
#define UL_VERSION_MINOR 1
#define UL_VERSION_PATCH 0
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
  X(WRONG_STATE,      17, 0, "the object is not in a state that allows this")

typedef enum ul_status {
  UL_OK = 0,
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


/* ---- call sites ----------------------------------------------------------
 * Functions that create objects are macros that pass the caller's file, line
 * and function to the tracker at no cost (three static pointers). Call the
 * `_at` form directly to pass a site of your own (e.g. from a wrapper). */
typedef struct ul_site {
  const char *file;
  int line;
  const char *func;
} ul_site;
#define UL_SITE (&(const ul_site){__FILE__, __LINE__, __func__})

/* ---- env: the loaded implementation and its instance ---------------------- */

typedef struct ul_env ul_env;
typedef struct ul_device ul_device;

typedef enum ul_log_level {
  UL_LOG_ERROR = 0,
  UL_LOG_WARN = 1,
  UL_LOG_INFO = 2,
  UL_LOG_DEBUG = 3,
} ul_log_level;

typedef struct ul_env_desc {
  /* Path of the webgpu.h implementation to load. NULL: $UNLOST_WEBGPU_LIB,
   * then the pinned Dawn of the build tree, then the one installed beside
   * libunlost. */
  const char *webgpu_lib;
  /* Accept Dawn's Null backend (which computes nothing) as an adapter.
   * Default false: an adapter on the Null backend is refused. */
  bool allow_null_backend;
  /* Fault injection for tests and `unlost chaos` (src/chaos/): a schedule in
   * the syntax of ul_chaos_parse(). NULL: $UNLOST_CHAOS, else none. */
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

typedef struct ul_env_info {
  const char *implementation;  /* path of the loaded library (owned by env) */
  bool force_loss;             /* wgpuDeviceForceLoss is available */
  bool inject_error;           /* wgpuDeviceInjectError is available */
  bool timed_wait;             /* wgpuInstanceWaitAny accepts timeouts */
} ul_env_info;
UL_API ul_status ul_env_info_get(ul_env *env, ul_env_info *out);

/* ---- device ----------------------------------------------------------------- */

typedef enum ul_backend {
  UL_BACKEND_UNDEFINED = 0, UL_BACKEND_NULL, UL_BACKEND_WEBGPU, UL_BACKEND_D3D11,
  UL_BACKEND_D3D12, UL_BACKEND_METAL, UL_BACKEND_VULKAN, UL_BACKEND_OPENGL,
  UL_BACKEND_OPENGLES,
} ul_backend;
/* "vulkan", "null", ... */
UL_API const char *ul_backend_name(ul_backend b);

typedef enum ul_adapter_type {
  UL_ADAPTER_UNKNOWN = 0, UL_ADAPTER_DISCRETE_GPU, UL_ADAPTER_INTEGRATED_GPU,
  UL_ADAPTER_CPU,
} ul_adapter_type;
/* "discrete-gpu", "integrated-gpu", "cpu", "unknown". */
UL_API const char *ul_adapter_type_name(ul_adapter_type t);

typedef struct ul_adapter_info {
  char name[128];          /* e.g. "NVIDIA H200", "llvmpipe (LLVM 19.1.7, 256 bits)" */
  char vendor[64];
  char architecture[64];
  char driver[128];        /* driver description */
  ul_backend backend;
  ul_adapter_type type;
  uint32_t vendor_id;
  uint32_t device_id;
  bool is_fallback;        /* obtained as the fallback (CPU) adapter */
} ul_adapter_info;

/* The limits unlost exposes. In ul_device_desc.required_limits a zero field
 * means the implementation's default, and UL_LIMIT_ADAPTER asks for the
 * adapter's maximum. */
#define UL_LIMIT_ADAPTER UINT64_MAX
typedef struct ul_limits {
  uint64_t max_buffer_size;
  uint64_t max_storage_buffer_binding_size;
  uint64_t max_uniform_buffer_binding_size;
  uint64_t max_compute_workgroup_storage_size;
  uint64_t max_compute_invocations_per_workgroup;
  uint64_t max_compute_workgroup_size_x;
  uint64_t max_compute_workgroup_size_y;
  uint64_t max_compute_workgroup_size_z;
  uint64_t max_compute_workgroups_per_dimension;
  uint64_t max_storage_buffers_per_shader_stage;
  uint64_t max_bind_groups;
  uint64_t max_bindings_per_bind_group;
  uint64_t max_texture_dimension_2d;
  uint64_t min_storage_buffer_offset_alignment;
  uint64_t min_uniform_buffer_offset_alignment;
} ul_limits;

typedef enum ul_device_state {
  UL_DEVICE_READY = 0,    /* working on the adapter it asked for */
  UL_DEVICE_LOST,         /* the native device was lost; recovery pending */
  UL_DEVICE_RECOVERING,   /* a new device is being built */
  UL_DEVICE_FALLBACK,     /* working, on the fallback (CPU) adapter */
  UL_DEVICE_FAILED,       /* recovery gave up; calls fail with UL_ERR_DEVICE_FAILED */
} ul_device_state;
/* "READY", "LOST", "RECOVERING", "FALLBACK", "FAILED". */
UL_API const char *ul_device_state_name(ul_device_state s);

typedef enum ul_event_kind {
  UL_EVENT_LOST = 0,      /* the native device was lost (reason, message) */
  UL_EVENT_RECOVERING,    /* recovery started */
  UL_EVENT_RETRY,         /* one attempt failed; the next after delay_ms */
  UL_EVENT_RECOVERED,     /* a new device works; epoch incremented */
  UL_EVENT_FALLBACK,      /* moved to the fallback adapter */
  UL_EVENT_FAILED,        /* recovery gave up */
} ul_event_kind;
UL_API const char *ul_event_kind_name(ul_event_kind k);

typedef struct ul_event {
  ul_event_kind kind;
  ul_device_state state;     /* the state after the event */
  uint64_t epoch;            /* the device's epoch after the event */
  uint32_t attempt;          /* recovery attempts so far (RETRY, RECOVERED, ...) */
  double since_loss_ms;      /* time since the loss was recorded */
  double delay_ms;           /* RETRY: back-off before the next attempt */
  const char *message;       /* why: the loss message or the last failure */
} ul_event;

/* Called after each transition, on the thread that caused it, with no
 * unlost lock held; it may call into unlost. `event` is valid during the
 * call only. */
typedef void (*ul_listener_fn)(ul_device *device, const ul_event *event, void *user);
/* Called once when recovery gives up (FAILED). It may, e.g., hand the work
 * to a remote service. Same rules as ul_listener_fn. */
typedef void (*ul_failed_fn)(ul_device *device, const char *why, void *user);

typedef struct ul_recovery_config {
  /* Attempts to get a new device on the same kind of adapter before the
   * fallback. 0: 5. UL_RECOVERY_NO_RETRY: none. */
  uint32_t max_retries;
  /* Back-off before attempt n (n >= 1): min(max, initial * 2^(n-1)) scaled by
   * a random factor in [1 - jitter, 1 + jitter]. 0: initial 50 ms, max 2000 ms,
   * jitter 0.2. A negative jitter means none. */
  uint32_t backoff_initial_ms;
  uint32_t backoff_max_ms;
  float jitter;
  /* Seed of the jitter's generator (0: from the clock). */
  uint64_t jitter_seed;
  /* Move to the fallback (CPU) adapter when the retries run out. */
  bool no_fallback;
  /* Time one adapter or device request may take. 0: 10000 ms. */
  uint32_t request_timeout_ms;
} ul_recovery_config;
#define UL_RECOVERY_NO_RETRY UINT32_MAX

typedef enum ul_power_preference {
  UL_POWER_HIGH_PERFORMANCE = 0, /* default */
  UL_POWER_LOW_POWER,
  UL_POWER_FALLBACK_ONLY,        /* ask for the fallback (CPU) adapter only */
} ul_power_preference;

typedef struct ul_device_desc {
  const char *label;                  /* NULL: "device" */
  ul_power_preference power;
  ul_limits required_limits;          /* zero fields: defaults */
  ul_recovery_config recovery;
  ul_listener_fn listener;            /* NULL: none */
  void *listener_user;
  ul_failed_fn on_failed;             /* NULL: none */
  void *on_failed_user;
  /* Refuse allocations beyond this many bytes of live GPU memory with
   * UL_ERR_OUT_OF_MEMORY before the driver is asked. 0: no budget. */
  uint64_t budget_bytes;
  /* Capture a backtrace for every tracked object (costly). */
  bool track_backtraces;
} ul_device_desc;

/* Requests an adapter (high-performance first, then the fallback adapter)
 * and a device with the required limits (checked against the adapter's).
 * On failure *out is NULL and nothing is held: UL_ERR_NO_ADAPTER (none, or
 * only Dawn's Null backend), UL_ERR_UNSUPPORTED (a limit above the
 * adapter's), UL_ERR_TIMEOUT, UL_ERR_INTERNAL. Thread-safe. */
#define ul_device_create(env, desc, out) ul_device_create_at(env, desc, out, UL_SITE)
UL_API ul_status ul_device_create_at(ul_env *env, const ul_device_desc *desc,
                                     ul_device **out, const ul_site *site);
/* Destroys every object still alive (reporting each as a leak with its label
 * and call site), writes the final report to $UNLOST_REPORT when set, and
 * releases the native device. NULL: nothing. Returns UL_ERR_BUSY when objects
 * were still alive (they are released all the same). Must not race with
 * other calls on the same device. */
UL_API ul_status ul_device_destroy(ul_device *device);

/* The current state; reading it never blocks on recovery. A loss that
 * happened but was not yet processed shows as LOST. */
UL_API ul_device_state ul_device_get_state(ul_device *device);
/* Increments on every rebuild of the native device; starts at 1. */
UL_API uint64_t ul_device_epoch(ul_device *device);
/* Recovers now if the device is LOST. On a device already working on the
 * fallback adapter, tries the preferred adapter once and moves every object
 * back to it when it answers (staying on the fallback when not). UL_OK when
 * the device works afterwards; UL_ERR_DEVICE_FAILED when recovery gave up. */
UL_API ul_status ul_device_recover(ul_device *device);
UL_API ul_status ul_device_adapter_info(ul_device *device, ul_adapter_info *out);
/* The limits in force on the current native device. */
UL_API ul_status ul_device_limits(ul_device *device, ul_limits *out);
/* Loses the native device on purpose through the implementation's own loss
 * path (Dawn's wgpuDeviceForceLoss), as a driver reset would. For tests and
 * drills. UL_ERR_UNSUPPORTED when the implementation lacks the extension. */
UL_API ul_status ul_device_force_loss(ul_device *device, const char *message);
/* Sets the time calls wait for an ongoing recovery before failing with
 * UL_ERR_TIMEOUT. Default 30000 ms. */
UL_API void ul_device_set_recovery_wait(ul_device *device, uint32_t ms);

#ifdef __cplusplus
}
#endif
#endif /* UNLOST_H */
