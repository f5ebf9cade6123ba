/* Internal to unlost: what every module shares — error chains, logging,
 * clocks, allocation, locks. Not part of the public API (include/unlost.h). */
#ifndef UL_INTERNAL_H
#define UL_INTERNAL_H

#include "unlost.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define UL__COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))
#define UL__MIN(a, b) ((a) < (b) ? (a) : (b))
#define UL__MAX(a, b) ((a) > (b) ? (a) : (b))
#define UL__PRINTF(f, a) __attribute__((format(printf, f, a)))
#define UL__UNUSED(x) (void)(x)

/* ---- errors (src/base/error.c) ----
 * The calling thread holds one error: a status and a message chain. A
 * failing function sets it with ul__fail(); each caller that adds context
 * uses ul__wrap(), which prepends "context: " so the outermost reads first. */
ul_status ul__fail(ul_status s, const char *fmt, ...) UL__PRINTF(2, 3);
ul_status ul__wrap(ul_status s, const char *fmt, ...) UL__PRINTF(2, 3);
/* The thread's error set aside and put back as it was, around work whose
 * own errors must not reach the caller (a bad option value, the health
 * monitor's bookkeeping). */
#define UL__ERROR_BYTES 2048
typedef struct ul__saved_error {
  ul_status status;
  char msg[UL__ERROR_BYTES];
} ul__saved_error;
void ul__error_save(ul__saved_error *e);
void ul__error_restore(const ul__saved_error *e);

/* ---- logging (src/base/log.c) ---- */
typedef enum ul__log_level {
  UL__LOG_ERROR = 0,
  UL__LOG_WARN = 1,
  UL__LOG_INFO = 2,
  UL__LOG_DEBUG = 3,
} ul__log_level;
void ul__log(ul__log_level level, const char *fmt, ...) UL__PRINTF(2, 3);
bool ul__log_enabled(ul__log_level level);
/* Sets the level (a ul__log_level, or -1: none) and returns the one it
 * replaces: for a test that must see what a level shows, whatever
 * UNLOST_LOG says. */
int ul__log_swap_level(int level);
/* Around a device's lock (ul__device_lock and the entries that take it):
 * lines logged in between wait for the program's callback until the
 * thread's outermost hold is released, after the unlock; they carry
 * `device_label` (kept by the caller while held). */
void ul__log_hold(const char *device_label);
void ul__log_release(void);
/* The calling thread's holds (0 between calls: for tests). */
unsigned ul__log_depth(void);

/* ---- time (src/base/clock.c) ---- */
/* Monotonic nanoseconds. */
uint64_t ul__now_ns(void);
/* The same clock read coarsely (CLOCK_MONOTONIC_COARSE: the last tick,
 * 1-4 ms old, for a fifth of the cost): for hot paths that need ms. */
uint64_t ul__now_coarse_ns(void);
void ul__sleep_ns(uint64_t ns);
/* `ns` from now on `clock` (CLOCK_MONOTONIC or CLOCK_REALTIME, as the
 * condition variable waited on uses), for pthread_cond_timedwait. */
struct timespec ul__deadline(clockid_t clock, uint64_t ns);

/* ---- host memory (src/base/alloc.c) ----
 * The allocation seam: unlost's own host allocations that a call can fail
 * on go through these, so that a test can fail them (SQLite's
 * test_malloc.c): after `n` more successful allocations every one fails
 * (`continuous`) or just the next one. n < 0 disarms. */
void *ul__malloc(size_t size);
void *ul__realloc(void *p, size_t size);
/* Room for one more of an array's elements: `p` holding n of *cap, each
 * `size` bytes. Returns p when there is room, else p grown to twice its
 * capacity (`first` when it has none) with *cap updated, or NULL when out
 * of host memory (p and *cap unchanged). */
void *ul__grow(void *p, uint32_t n, uint32_t *cap, size_t size, uint32_t first);
/* Whether the next allocation is to fail (the seam's countdown), for
 * memory unlost reuses instead of allocating: a reuse counts as an
 * allocation, so that injected failures reach its callers too. */
bool ul__malloc_should_fail(void);
void ul__malloc_fail_after(long n, bool continuous);
/* Allocations the seam refused so far. */
uint64_t ul__malloc_failures(void);

/* ---- options (src/base/options.c) ----
 * Every UNLOST_* environment variable the library reads is an entry of one
 * table: its name, kind, range, default and meaning. Numbers use the strict
 * grammar (ul__parse_u64); a bad value is warned about once, naming the
 * variable, and the default is used. Each is read where it applies (an
 * env, a device, a report), so that a program may set it between
 * creations; the log keeps UNLOST_LOG and staging.c the staging sizes and
 * fill threads after their first read (process-wide). */
typedef enum ul__opt {
  UL__OPT_LOG = 0,
  UL__OPT_WEBGPU_LIB,
  UL__OPT_CPU_ICD,
  UL__OPT_CHAOS,
  UL__OPT_REPORT,
  UL__OPT_BACKTRACES,
  UL__OPT_LOG_MAX_MB,
  UL__OPT_FILL_THREADS,
  UL__OPT_STANDBY,
  UL__OPT_STAGING_CHUNK_MB,
  UL__OPT_PIPELINE_CACHE_MB,
  UL__OPT_STANDBY_PREFILL_MB,
  UL__OPT_FILL_AHEAD,
  UL__OPT_READ_DEADLINE_MS,
  UL__OPT_RECOVERY,
  UL__OPT_CHAOS_REPORT,
  UL__OPT_REBUILD_EAGER,
  UL__OPT_RESTORE_EAGER,
  UL__OPT_RESTORE_STREAM_MB,
  UL__OPT_HOST_BACKING,
  UL__OPT_REBUILD_WINDOW_MS,
  UL__OPT_CHECKPOINT_ASYNC,
  UL__OPT_EXEC_MARK,
  UL__OPT_COUNT
} ul__opt;
/* The variable's name and meaning (static text; NULL out of range). */
const char *ul__opt_name(ul__opt o);
const char *ul__opt_what(ul__opt o);
/* Its text, NULL when unset or empty. */
const char *ul__opt_text(ul__opt o);
/* Set to anything non-empty. */
bool ul__opt_flag(ul__opt o);
/* A number option's value: the variable's, or the default (0: none). */
uint64_t ul__opt_number(ul__opt o);

/* ---- numbers ---- */
/* splitmix64: the one PRNG of the library (chaos schedules, breaker
 * jitter, retry backoff). Advances *state; never returns the same value
 * twice in 2^64 calls. */
static inline uint64_t ul__splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* A 64-bit content hash (not cryptographic): every byte counts, and a
 * change of any byte changes the result with probability ~1 - 2^-64 for
 * non-adversarial data. Chains through `h` (start with 0). */
static inline uint64_t ul__hash64(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  h ^= 0x243f6a8885a308d3ull + n;
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    h = (h ^ (w * 0x9fb21c651e98df25ull)) * 0xff51afd7ed558ccdull;
    h ^= h >> 29;
    p += 8;
    n -= 8;
  }
  uint64_t w = 0;
  memcpy(&w, p, n);
  h = (h ^ (w * 0x9fb21c651e98df25ull)) * 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 32);
}

/* ---- strings ---- */
/* strdup that accepts NULL (returns NULL) and reports OOM by NULL. */
char *ul__strdup(const char *s);
/* A malloc'd copy of n bytes; NULL for n 0 or out of memory. */
void *ul__memdup(const void *p, size_t n);

/* Strict numbers (parse.c): the whole text is a decimal number in
 * [lo, hi]; ul__parse_u64 with size_suffix takes K, M, G, T (x1024^n, with
 * an optional B or iB). UL_ERR_INVALID_ARGUMENT with a message quoting the
 * text otherwise (empty, sign, spaces, junk, overflow, NaN, infinity). */
ul_status ul__parse_u64(const char *text, uint64_t lo, uint64_t hi, bool size_suffix, uint64_t *out);
ul_status ul__parse_f64(const char *text, double lo, double hi, double *out);

/* Escaping (escape.c): the text of `s`, without quotes, as a JSON string
 * body (invalid UTF-8 as U+FFFD, controls as \u00XX), a Prometheus label
 * value (\\, \", \n escaped, invalid UTF-8 as U+FFFD) or plain text
 * (invalid bytes as \xXX), written through `put`. */
typedef enum ul__escape_mode { UL__ESCAPE_JSON, UL__ESCAPE_PROM, UL__ESCAPE_TEXT } ul__escape_mode;
typedef void (*ul__put_fn)(void *ctx, const char *s, size_t n);
void ul__escape(const char *s, ul__escape_mode mode, ul__put_fn put, void *ctx);

#endif
