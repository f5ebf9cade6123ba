/* The CLI's JSON output: documents built with jansson, written out. */
#include "cli.h"

bool cli_json_available(const char *who) {
#ifdef UL_HAVE_JANSSON
  (void)who;
  return true;
#else
  fprintf(stderr, "%s: --json: this build has no JSON writer: install jansson (Debian: libjansson-dev; "
                  "`make deps` installs it) and build again\n", who);
  return false;
#endif
}

#ifdef UL_HAVE_JANSSON
#include <errno.h>
#include <math.h>
#include <stdarg.h>

json_t *cli_json_real(double v, int decimals) {
  if (!isfinite(v)) return json_null();
  double scale = pow(10, decimals), r = round(v * scale) / scale;
  return json_real(isfinite(r) ? r : v);
}

json_t *cli_json_hex64(uint64_t v) {
  char hex[17];
  snprintf(hex, sizeof hex, "%016llx", (unsigned long long)v);
  return json_string(hex);
}

bool cli_json_set(json_t *o, const char *key, json_t *v) {
  return v && json_object_set_new(o, key, v) == 0;
}

bool cli_json_reals(json_t *o, int decimals, ...) {
  va_list ap;
  va_start(ap, decimals);
  bool ok = o != NULL;
  for (const char *key; (key = va_arg(ap, const char *));) ok &= cli_json_set(o, key, cli_json_real(va_arg(ap, double), decimals));
  va_end(ap);
  return ok;
}

bool cli_json_write(const char *who, const char *path, json_t *doc) {
  /* 15 significant digits: a real rounded to a few places prints as those
   * places ("12.5", not "12.500000000000002"). */
  char *text = doc ? json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) : NULL;
  json_decref(doc);
  if (!text) {
    fprintf(stderr, "%s: cannot write %s: out of memory\n", who, path);
    return false;
  }
  bool out = !strcmp(path, "-");
  FILE *f = out ? stdout : fopen(path, "w");
  bool ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
  if (f) ok &= out ? fflush(f) == 0 : fclose(f) == 0;
  if (!ok) fprintf(stderr, "%s: cannot write %s: %s\n", who, path, strerror(errno));
  free(text);
  return ok;
}
#endif
