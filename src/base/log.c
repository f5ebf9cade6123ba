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

/* Lines logged while the thread holds a device's lock wait in `buf`
 * (records of level, label and message, each NUL-ended) until the lock is
 * released: the callback never runs under it. The labels of the devices
 * held, innermost last (deeper holds keep the fourth's). */
#define HELD_MAX (64u << 10)
#define HELD_LABELS 4
typedef struct held_state {
  bool in_cb; /* the thread is in the callback */
  unsigned depth;
  const char *labels[HELD_LABELS];
  char *buf;
  size_t len, cap;
  unsigned dropped;
} held_state;
static _Thread_local held_state T;

static const char *held_label(void) {
  return T.depth ? T.labels[UL__MIN(T.depth, HELD_LABELS) - 1] : NULL;
}

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
  T.in_cb = true;
  fn(&(const ul_log_line){.level = (ul_log_level)level, .message = line, .device = label}, cb_user);
  T.in_cb = false;
  ul__error_restore(&e);
  pthread_mutex_unlock(&cb_mu);
  return true;
}

static void hold(ul__log_level level, const char *line) {
  const char *label = held_label();
  if (!label) label = "";
  size_t ll = strlen(label) + 1, ml = strlen(line) + 1, need = T.len + 1 + ll + ml;
  if (need > T.cap) {
    size_t cap = T.cap ? T.cap * 2 : 2048;
    while (cap < need) cap *= 2;
    char *p = cap <= HELD_MAX ? realloc(T.buf, cap) : NULL;
    if (!p) {
      T.dropped++;
      return;
    }
    T.buf = p;
    T.cap = cap;
  }
  T.buf[T.len] = (char)level;
  memcpy(T.buf + T.len + 1, label, ll);
  memcpy(T.buf + T.len + 1 + ll, line, ml);
  T.len = need;
}

void ul__log_hold(const char *device_label) {
  if (T.depth < HELD_LABELS) T.labels[T.depth] = device_label;
  T.depth++;
}

unsigned ul__log_depth(void) { return T.depth; }

void ul__log_release(void) {
  if (T.depth > 0) T.depth--;
  if (T.depth > 0 || T.in_cb || (!T.len && !T.dropped)) return;
  /* Taken off the thread first: the callback's own calls may hold more. */
  char *p = T.buf;
  size_t n = T.len;
  unsigned dropped = T.dropped;
  T.buf = NULL;
  T.len = T.cap = 0;
  T.dropped = 0;
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
  if (T.in_cb) return ul__fail(UL_ERR_WRONG_STATE, "set log callback: called from the log callback");
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
  if (atomic_load(&cb_set) && !T.in_cb) {
    if (T.depth > 0) {
      hold(level, line);
      return;
    }
    if (deliver(level, NULL, line)) return;
  }
  to_stderr(level, line);
}
