/* Library log: errors and warnings to stderr by default, or to the
 * program's ul_log_fn (ul_set_log_callback); UNLOST_LOG=
 * error|warn|info|debug|none sets the level either way. */
#include "internal.h"

static atomic_int log_level = -2; /* -2: not read yet */

static int read_level(void) {
  const char *e = ul__opt_text(UL__OPT_LOG);
  if (!e) return UL__LOG_WARN;
  if (!strcmp(e, "none")) return -1;
  if (!strcmp(e, "error")) return UL__LOG_ERROR;
  if (!strcmp(e, "warn")) return UL__LOG_WARN;
  if (!strcmp(e, "info")) return UL__LOG_INFO;
  if (!strcmp(e, "debug")) return UL__LOG_DEBUG;
  return UL__LOG_WARN;
}

bool ul__log_enabled(ul__log_level level) {
  int l = atomic_load_explicit(&log_level, memory_order_relaxed);
  if (l == -2) {
    l = read_level();
    atomic_store_explicit(&log_level, l, memory_order_relaxed);
  }
  return (int)level <= l;
}

int ul__log_swap_level(int level) {
  ul__log_enabled(UL__LOG_ERROR); /* read it first */
  return atomic_exchange_explicit(&log_level, level, memory_order_relaxed);
}

/* ---- the program's callback ----
 * cb_mu is held while the callback runs: calls never overlap, and once
 * ul_set_log_callback returns the old callback is not running and will not
 * run again (its `user` may be freed). */
static pthread_mutex_t cb_mu = PTHREAD_MUTEX_INITIALIZER;
static ul_log_fn cb_fn;
static void *cb_user;
static atomic_bool cb_set; /* cb_fn != NULL, read without cb_mu */
static _Thread_local bool in_cb;

/* Lines logged while the thread holds a device's lock wait here (records
 * of level, label and message, each NUL-ended) until the lock is released:
 * the callback never runs under it. */
#define HELD_MAX (64u << 10)
static _Thread_local unsigned held_depth;
static _Thread_local const char *held_label;
static _Thread_local char *held;
static _Thread_local size_t held_len, held_cap;
static _Thread_local unsigned held_dropped;

static const char *const level_names[] = {"error", "warn", "info", "debug"};

static void to_stderr(ul__log_level level, const char *line) {
  fprintf(stderr, "unlost %s: %s\n", level_names[level], line);
}

/* False when no callback is set (then the line goes to stderr). */
static bool deliver(ul__log_level level, const char *label, const char *line) {
  pthread_mutex_lock(&cb_mu);
  ul_log_fn fn = cb_fn;
  if (!fn) {
    pthread_mutex_unlock(&cb_mu);
    return false;
  }
  /* The thread may be inside a call of unlost: its error is the call's. */
  ul__saved_error e;
  ul__error_save(&e);
  in_cb = true;
  fn(&(const ul_log_line){.level = (ul_log_level)level, .message = line, .device = label}, cb_user);
  in_cb = false;
  ul__error_restore(&e);
  pthread_mutex_unlock(&cb_mu);
  return true;
}

static void hold(ul__log_level level, const char *line) {
  const char *label = held_label ? held_label : "";
  size_t ll = strlen(label) + 1, ml = strlen(line) + 1, need = held_len + 1 + ll + ml;
  if (need > held_cap) {
    size_t cap = held_cap ? held_cap * 2 : 2048;
    while (cap < need) cap *= 2;
    char *p = cap <= HELD_MAX ? realloc(held, cap) : NULL;
    if (!p) {
      held_dropped++;
      return;
    }
    held = p;
    held_cap = cap;
  }
  held[held_len] = (char)level;
  memcpy(held + held_len + 1, label, ll);
  memcpy(held + held_len + 1 + ll, line, ml);
  held_len = need;
}

void ul__log_hold(const char *device_label) {
  held_depth++;
  held_label = device_label;
}

void ul__log_release(void) {
  if (held_depth > 0) held_depth--;
  if (held_depth > 0 || in_cb) return;
  held_label = NULL;
  if (!held_len && !held_dropped) return;
  /* Taken off the thread first: the callback's own calls may hold more. */
  char *p = held;
  size_t n = held_len;
  unsigned dropped = held_dropped;
  held = NULL;
  held_len = held_cap = 0;
  held_dropped = 0;
  for (size_t i = 0; i < n;) {
    ul__log_level level = (ul__log_level)p[i];
    const char *label = p + i + 1;
    const char *line = label + strlen(label) + 1;
    if (!deliver(level, label[0] ? label : NULL, line)) to_stderr(level, line);
    i = (size_t)(line + strlen(line) + 1 - p);
  }
  free(p);
  if (dropped) {
    char line[96];
    snprintf(line, sizeof line, "%u log line(s) dropped: no host memory to hold them", dropped);
    if (!deliver(UL__LOG_WARN, NULL, line)) to_stderr(UL__LOG_WARN, line);
  }
}

ul_status ul_set_log_callback(ul_log_fn fn, void *user) {
  if (in_cb) return ul__fail(UL_ERR_WRONG_STATE, "set log callback: called from the log callback");
  pthread_mutex_lock(&cb_mu);
  cb_fn = fn;
  cb_user = fn ? user : NULL;
  atomic_store(&cb_set, fn != NULL);
  pthread_mutex_unlock(&cb_mu);
  return UL_OK;
}

void ul__log(ul__log_level level, const char *fmt, ...) {
  if (!ul__log_enabled(level)) return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  /* A line the callback's own calls log goes to stderr: the callback is
   * not entered twice. */
  if (atomic_load(&cb_set) && !in_cb) {
    if (held_depth > 0) {
      hold(level, line);
      return;
    }
    if (deliver(level, held_label, line)) return;
  }
  to_stderr(level, line);
}
