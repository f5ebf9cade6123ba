/* Text for reports: a growing string buffer, JSON and text escaping of
 * user-given strings (labels), and human sizes and durations. */
#include "track_int.h"

static bool sb_reserve(ul__track_sb *sb, size_t extra) {
  if (sb->oom) return false;
  if (sb->len + extra + 1 <= sb->cap) return true;
  size_t ncap = sb->cap ? sb->cap : 256;
  while (ncap < sb->len + extra + 1) {
    if (ncap > SIZE_MAX / 2) {
      sb->oom = true;
      return false;
    }
    ncap *= 2;
  }
  char *p = realloc(sb->p, ncap);
  if (!p) {
    sb->oom = true;
    return false;
  }
  sb->p = p;
  sb->cap = ncap;
  return true;
}

void ul__track_sb_putn(ul__track_sb *sb, const char *s, size_t n) {
  if (!sb_reserve(sb, n)) return;
  memcpy(sb->p + sb->len, s, n);
  sb->len += n;
  sb->p[sb->len] = '\0';
}

void ul__track_sb_puts(ul__track_sb *sb, const char *s) {
  ul__track_sb_putn(sb, s, strlen(s));
}

void ul__track_sb_printf(ul__track_sb *sb, const char *fmt, ...) {
  if (sb->oom) return;
  va_list ap;
  va_start(ap, fmt);
  char small[256];
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) {
    sb->oom = true;
    return;
  }
  if ((size_t)n < sizeof small) {
    ul__track_sb_putn(sb, small, (size_t)n);
    return;
  }
  if (!sb_reserve(sb, (size_t)n)) return;
  va_start(ap, fmt);
  vsnprintf(sb->p + sb->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  sb->len += (size_t)n;
}

char *ul__track_sb_take(ul__track_sb *sb) {
  if (sb->oom) {
    ul__track_sb_free(sb);
    return NULL;
  }
  if (!sb->p && !sb_reserve(sb, 0)) return NULL;
  char *p = sb->p;
  p[sb->len] = '\0';
  sb->p = NULL;
  sb->len = sb->cap = 0;
  return p;
}

void ul__track_sb_free(ul__track_sb *sb) {
  free(sb->p);
  sb->p = NULL;
  sb->len = sb->cap = 0;
}

static void sb_put(void *ctx, const char *p, size_t n) { ul__track_sb_putn(ctx, p, n); }

static void escape(ul__track_sb *sb, const char *str, bool json) {
  ul__escape(str, json ? UL__ESCAPE_JSON : UL__ESCAPE_TEXT, sb_put, sb);
}

void ul__track_sb_json_str(ul__track_sb *sb, const char *s) {
  if (!s) {
    ul__track_sb_puts(sb, "null");
    return;
  }
  ul__track_sb_putn(sb, "\"", 1);
  escape(sb, s, true);
  ul__track_sb_putn(sb, "\"", 1);
}

void ul__track_sb_text_str(ul__track_sb *sb, const char *s) {
  if (s) escape(sb, s, false);
}

void ul__track_fmt_bytes(char *buf, size_t n, uint64_t bytes) {
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) {
    snprintf(buf, n, "%llu B", (unsigned long long)bytes);
    return;
  }
  double v = (double)bytes / 1024.0;
  size_t u = 0;
  while (v >= 1024.0 && u + 1 < UL__COUNT_OF(units)) {
    v /= 1024.0;
    u++;
  }
  snprintf(buf, n, "%.1f %s", v, units[u]);
}

void ul__track_fmt_duration(char *buf, size_t n, uint64_t ns) {
  double v = (double)ns;
  if (ns < 1000ull)
    snprintf(buf, n, "%llu ns", (unsigned long long)ns);
  else if (ns < 1000000ull)
    snprintf(buf, n, "%.1f us", v / 1e3);
  else if (ns < 1000000000ull)
    snprintf(buf, n, "%.1f ms", v / 1e6);
  else if (ns < 60000000000ull)
    snprintf(buf, n, "%.1f s", v / 1e9);
  else if (ns < 3600000000000ull)
    snprintf(buf, n, "%.1f min", v / 60e9);
  else
    snprintf(buf, n, "%.1f h", v / 3600e9);
}

const char *ul__track_basename(const char *file) {
  if (!file) return "?";
  const char *slash = strrchr(file, '/');
  return slash ? slash + 1 : file;
}
