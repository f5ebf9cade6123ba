/* Library log: errors and warnings to stderr by default; UNLOST_LOG=
 * error|warn|info|debug|none sets the level. */
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

void ul__log(ul__log_level level, const char *fmt, ...) {
  static const char *names[] = {"error", "warn", "info", "debug"};
  if (!ul__log_enabled(level)) return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(stderr, "unlost %s: %s\n", names[level], line);
}
