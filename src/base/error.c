/* Status names and the per-thread error chain. */
#include "internal.h"

static _Thread_local struct {
  ul_status status;
  char msg[UL__ERROR_BYTES];
} tls_err;

const char *ul_status_name(ul_status s) {
  switch (s) {
  case UL_OK: return "UL_OK";
#define UL__NAME(name, value, transient, text) \
  case UL_ERR_##name: return "UL_ERR_" #name;
    UL_STATUS_MAP(UL__NAME)
#undef UL__NAME
  default: return "UL_ERR_UNKNOWN";
  }
}

const char *ul_status_text(ul_status s) {
  switch (s) {
  case UL_OK: return "success";
#define UL__TEXT(name, value, transient, text) \
  case UL_ERR_##name: return text;
    UL_STATUS_MAP(UL__TEXT)
#undef UL__TEXT
  default: return "unknown status";
  }
}

bool ul_status_is_transient(ul_status s) {
  switch (s) {
#define UL__TRANSIENT(name, value, transient, text) \
  case UL_ERR_##name: return transient;
    UL_STATUS_MAP(UL__TRANSIENT)
#undef UL__TRANSIENT
  default: return false;
  }
}

const char *ul_last_error(void) { return tls_err.msg; }
ul_status ul_last_status(void) { return tls_err.status; }

void ul_clear_error(void) {
  tls_err.status = UL_OK;
  tls_err.msg[0] = '\0';
}

void ul__error_save(ul__saved_error *e) {
  e->status = tls_err.status;
  memcpy(e->msg, tls_err.msg, sizeof e->msg);
}

void ul__error_restore(const ul__saved_error *e) {
  tls_err.status = e->status;
  memcpy(tls_err.msg, e->msg, sizeof tls_err.msg);
}

static ul_status vfail(ul_status s, const char *fmt, va_list ap) {
  vsnprintf(tls_err.msg, sizeof tls_err.msg, fmt, ap);
  tls_err.status = s;
  return s;
}

static ul_status vwrap(ul_status s, const char *fmt, va_list ap) {
  char ctx[512];
  int n = vsnprintf(ctx, sizeof ctx, fmt, ap);
  if (n < 0) return s;
  size_t clen = strlen(ctx);
  size_t old = strnlen(tls_err.msg, sizeof tls_err.msg);
  /* "ctx: old", truncating the innermost end when the buffer is full; a
   * message that already starts with this context keeps it once. */
  if (old > clen + 1 && !memcmp(tls_err.msg, ctx, clen) && tls_err.msg[clen] == ':' && tls_err.msg[clen + 1] == ' ') {
    tls_err.status = s;
    return s;
  }
  if (old == 0) {
    snprintf(tls_err.msg, sizeof tls_err.msg, "%s", ctx);
  } else if (clen + 2 < sizeof tls_err.msg) {
    size_t keep = UL__MIN(old, sizeof tls_err.msg - clen - 3);
    memmove(tls_err.msg + clen + 2, tls_err.msg, keep);
    tls_err.msg[clen + 2 + keep] = '\0';
    memcpy(tls_err.msg, ctx, clen);
    tls_err.msg[clen] = ':';
    tls_err.msg[clen + 1] = ' ';
  }
  tls_err.status = s;
  return s;
}

#define UL__VA_FORWARD(fn)   \
  va_list ap;                \
  va_start(ap, fmt);         \
  ul_status r = fn(s, fmt, ap); \
  va_end(ap);                \
  return r

ul_status ul__fail(ul_status s, const char *fmt, ...) { UL__VA_FORWARD(vfail); }
ul_status ul__wrap(ul_status s, const char *fmt, ...) { UL__VA_FORWARD(vwrap); }
ul_status ul_error_set(ul_status s, const char *fmt, ...) { UL__VA_FORWARD(vfail); }
ul_status ul_error_wrap(ul_status s, const char *fmt, ...) { UL__VA_FORWARD(vwrap); }

char *ul__strdup(const char *s) { return s ? ul__memdup(s, strlen(s) + 1) : NULL; }

void *ul__memdup(const void *p, size_t n) {
  void *d = n ? malloc(n) : NULL;
  if (d) memcpy(d, p, n);
  return d;
}

void ul_free(void *p) { free(p); }
