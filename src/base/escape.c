/* Escaping text for JSON, Prometheus label values and plain text, shared by
 * every writer of the library: whatever the bytes (invalid UTF-8, control
 * characters, quotes), the output is valid in its format. */
#include "internal.h"

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0 when s starts an invalid one.
 * s is NUL-terminated, and NUL is never a continuation byte. */
static size_t utf8_len(const unsigned char *s) {
  unsigned c = s[0];
#define CONT(b) ((b) >= 0x80 && (b) <= 0xBF)
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return CONT(s[1]) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return s[1] >= lo && s[1] <= hi && CONT(s[2]) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return s[1] >= lo && s[1] <= hi && CONT(s[2]) && CONT(s[3]) ? 4 : 0;
  }
  return 0;
#undef CONT
}

void ul__escape(const char *str, ul__escape_mode mode, ul__put_fn put, void *ctx) {
  const unsigned char *s = (const unsigned char *)str;
  while (*s) {
    /* Copy the longest run that needs no escape in one go. */
    const unsigned char *run = s;
    size_t n;
    while (*s >= 0x20 && *s != '"' && *s != '\\' && *s != 0x7f &&
           (n = utf8_len(s)) != 0 &&
           !(n == 3 && s[0] == 0xE2 && s[1] == 0x80 && (s[2] == 0xA8 || s[2] == 0xA9)))
      s += n;
    if (s > run) put(ctx, (const char *)run, (size_t)(s - run));
    if (!*s) break;
    unsigned c = *s;
    const char *e = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n" : NULL;
    if (!e && mode != UL__ESCAPE_PROM)
      e = c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == '\b' ? "\\b" : c == '\f' ? "\\f" : NULL;
    if (e) {
      put(ctx, e, strlen(e));
      s++;
      continue;
    }
    char tmp[8];
    if (c < 0x20 || c == 0x7f) {
      /* Prometheus has no \\u escape: a control byte becomes a space. */
      if (mode == UL__ESCAPE_PROM) put(ctx, " ", 1);
      else put(ctx, tmp, (size_t)snprintf(tmp, sizeof tmp, "\\u%04x", c));
      s++;
    } else if (c == 0xE2 && utf8_len(s) == 3) {
      /* U+2028 and U+2029: valid JSON, but they end lines in JavaScript. */
      if (mode == UL__ESCAPE_PROM) put(ctx, (const char *)s, 3);
      else put(ctx, tmp, (size_t)snprintf(tmp, sizeof tmp, "\\u%04x", s[2] == 0xA8 ? 0x2028u : 0x2029u));
      s += 3;
    } else {
      /* An invalid byte: the replacement character in JSON and Prometheus,
       * the byte's value in text, so that nothing invalid reaches the output. */
      if (mode == UL__ESCAPE_JSON) put(ctx, "\\ufffd", 6);
      else if (mode == UL__ESCAPE_PROM) put(ctx, "\xef\xbf\xbd", 3);
      else put(ctx, tmp, (size_t)snprintf(tmp, sizeof tmp, "\\x%02x", c));
      s++;
    }
  }
}

