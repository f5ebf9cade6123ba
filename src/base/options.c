/* Every UNLOST_* environment variable the library reads, in one table (the
 * pattern of mimalloc's options[]): name, kind, range, default, and what it
 * does (with when it is read). See ul__opt in internal.h. */
#include "internal.h"

typedef enum opt_kind { OPT_TEXT, OPT_NUMBER, OPT_FLAG } opt_kind;

typedef struct opt_info {
  const char *name;
  opt_kind kind;
  uint64_t lo, hi, def; /* OPT_NUMBER */
  const char *what;
} opt_info;

static const opt_info options[UL__OPT_COUNT] = {
    [UL__OPT_LOG] = {"UNLOST_LOG", OPT_TEXT, 0, 0, 0,
                     "library log level: error, warn (default), info, debug or none"},
    [UL__OPT_WEBGPU_LIB] = {"UNLOST_WEBGPU_LIB", OPT_TEXT, 0, 0, 0,
                            "the webgpu.h implementation to load (read at ul_env_create)"},
    [UL__OPT_CPU_ICD] = {"UNLOST_CPU_ICD", OPT_TEXT, 0, 0, 0,
                         "the Vulkan ICD file of the CPU adapter (read at each adapter request)"},
    [UL__OPT_CHAOS] = {"UNLOST_CHAOS", OPT_TEXT, 0, 0, 0,
                       "a fault schedule for envs created without one (read at ul_env_create)"},
    [UL__OPT_REPORT] = {"UNLOST_REPORT", OPT_TEXT, 0, 0, 0,
                        "where a device writes its JSON report when destroyed"},
    [UL__OPT_BACKTRACES] = {"UNLOST_BACKTRACES", OPT_FLAG, 0, 0, 0,
                            "set: every device captures creation backtraces (read at device create)"},
    [UL__OPT_CHECKPOINT_ASYNC] = {"UNLOST_CHECKPOINT_ASYNC", OPT_NUMBER, 0, 1, 1,
                                  "1: checkpoints start from a quarter of the operation log's bound and commit once "
                                  "their copies arrive, while the program goes on; 0: every checkpoint waits for the "
                                  "queue (read at device create)"},
    [UL__OPT_EXEC_MARK] = {"UNLOST_EXEC_MARK", OPT_TEXT, 0, 0, 0,
                           "libunlost-webgpu: a file the library appends a line to as it is loaded into a process "
                           "(unlost exec sets it, to tell a layer that never loaded from a quiet run)"},
    [UL__OPT_LOG_MAX_MB] = {"UNLOST_LOG_MAX_MB", OPT_NUMBER, 1, 1u << 20, 64,
                            "operation log size that forces a checkpoint, MiB (read at device create)"},
    [UL__OPT_FILL_THREADS] = {"UNLOST_FILL_THREADS", OPT_NUMBER, 1, 16, 0,
                              "threads filling staging memory (default: online CPUs, at most 16)"},
    [UL__OPT_STANDBY] = {"UNLOST_STANDBY", OPT_NUMBER, 0, 2, 2,
                         "a device asked for ahead for the next recovery: 0 none, 1 on every adapter, 2 on "
                         "GPU adapters and on the CPU adapter once a device holds 64 MiB of file SOURCE "
                         "buffers (read at device create)"},
    [UL__OPT_STAGING_CHUNK_MB] = {"UNLOST_STAGING_CHUNK_MB", OPT_NUMBER, 1, 256, 0,
                                  "fixed staging chunk, MiB (default: 16..128 by upload size)"},
    [UL__OPT_PIPELINE_CACHE_MB] = {"UNLOST_PIPELINE_CACHE_MB", OPT_NUMBER, 0, 1u << 16, 64,
                                   "memory for compiled pipelines kept across devices, MiB; 0: none "
                                   "(read at ul_env_create)"},
    [UL__OPT_STANDBY_PREFILL_MB] = {"UNLOST_STANDBY_PREFILL_MB", OPT_NUMBER, 0, 1u << 24, 2048,
                                    "device memory a standby device may fill ahead with copies of large SOURCE "
                                    "buffers, MiB; 0: none; unset, at most a quarter of the host's memory on the CPU "
                                    "adapter (read at each fill)"},
    [UL__OPT_FILL_AHEAD] = {"UNLOST_FILL_AHEAD", OPT_NUMBER, 0, 2, 2,
                            "a recovery reads the first large SOURCE buffer's file into staging memory while it "
                            "makes the objects: 0 never, 1 on every adapter, 2 on GPU adapters (read at each "
                            "recovery)"},
    [UL__OPT_READ_DEADLINE_MS] = {"UNLOST_READ_DEADLINE_MS", OPT_NUMBER, 1, 86400000, 30000,
                                  "an asynchronous read not delivered this long after it was issued is answered "
                                  "with an error (UL_ERR_DEVICE_LOST naming the losses since, else "
                                  "UL_ERR_TIMEOUT) by the next ul_device_poll (read at each read)"},
    [UL__OPT_RECOVERY] = {"UNLOST_RECOVERY", OPT_NUMBER, 0, 1, 1,
                          "1: a lost device is recovered; 0: it fails at once, as without unlost (the control run "
                          "of a fault harness; read at each loss)"},
    [UL__OPT_CHAOS_REPORT] = {"UNLOST_CHAOS_REPORT", OPT_TEXT, 0, 0, 0,
                              "libunlost-webgpu: a file the last instance's release (or the exit, while one is alive) "
                              "appends the fault schedule's counts and the devices' recoveries, leaks and failures to (for a harness that runs a "
                              "program as a child)"},
    [UL__OPT_REBUILD_EAGER] = {"UNLOST_REBUILD_EAGER", OPT_FLAG, 0, 0, 0,
                               "set: a rebuild makes every object at once; unset, shaders, layouts, pipelines and "
                               "bind groups are made at their first use after it (read at each rebuild)"},
    [UL__OPT_RESTORE_EAGER] = {"UNLOST_RESTORE_EAGER", OPT_FLAG, 0, 0, 0,
                               "set: a rebuild puts back every buffer's and texture's contents before it returns; "
                               "unset, each at its first use after it (the replay's, a submission's, a read's), or "
                               "streamed behind the submissions, or before a checkpoint (read at each rebuild)"},
    [UL__OPT_RESTORE_STREAM_MB] = {"UNLOST_RESTORE_STREAM_MB", OPT_NUMBER, 0, 1u << 20, 64,
                                   "after each submission, contents still to put back after a rebuild are put back "
                                   "behind it, this many MiB at least (one object at least); 0: only at their use "
                                   "(read at each submission)"},
    [UL__OPT_HOST_BACKING] = {"UNLOST_HOST_BACKING", OPT_NUMBER, 0, 1, 1,
                              "1: on the CPU adapter, large buffers live in host memory that unlost keeps across "
                              "devices, so a recovery writes their contents in place; 0: in the implementation's "
                              "memory, new on each device (read at each device request)"},
    [UL__OPT_REBUILD_WINDOW_MS] = {"UNLOST_REBUILD_WINDOW_MS", OPT_NUMBER, 0, 86400000, 30000,
                                   "a device that spent more than half of this long, up to its latest loss, "
                                   "recovering gives up: the work moves to the fallback adapter (health monitor on, "
                                   "on_broken FALLBACK) or the device ends FAILED; 0: no such bound (read at each "
                                   "loss)"},
};

static atomic_bool warned[UL__OPT_COUNT];

static bool valid(ul__opt o) { return (unsigned)o < UL__OPT_COUNT; }

const char *ul__opt_name(ul__opt o) { return valid(o) ? options[o].name : NULL; }
const char *ul__opt_what(ul__opt o) { return valid(o) ? options[o].what : NULL; }

const char *ul__opt_text(ul__opt o) {
  if (!valid(o)) return NULL;
  const char *e = getenv(options[o].name);
  return e && *e ? e : NULL;
}

bool ul__opt_flag(ul__opt o) { return ul__opt_text(o) != NULL; }

uint64_t ul__opt_number(ul__opt o) {
  if (!valid(o) || options[o].kind != OPT_NUMBER) return 0;
  const opt_info *i = &options[o];
  const char *e = ul__opt_text(o);
  if (!e) return i->def;
  /* The strict grammar; a bad value is a warning (once) and the default,
   * never a failure of whatever call read it: the thread's error is kept. */
  ul__saved_error keep;
  ul__error_save(&keep);
  uint64_t v = i->def, parsed;
  if (!ul__parse_u64(e, i->lo, i->hi, false, &parsed)) v = parsed;
  else if (!atomic_exchange(&warned[o], true))
    ul__log(UL__LOG_WARN, "%s: %s; using the default", i->name, ul_last_error());
  ul__error_restore(&keep);
  return v;
}
