/* Strict number parsing, shared by the fault-spec parser and every command
 * of the CLI: the whole text is the number, in range, or it is an error
 * that quotes the text. No sign, no spaces, no empty text, no trailing
 * junk, no NaN or infinity; sizes may carry a binary suffix. */
#include "internal.h"

#include <math.h>

ul_status ul__parse_u64(const char *text, uint64_t lo, uint64_t hi, bool size_suffix, uint64_t *out) {
  if (!text || !*text) return ul__fail(UL_ERR_INVALID_ARGUMENT, "an empty value is not a number");
  const char *p = text;
  uint64_t v = 0;
  for (; *p >= '0' && *p <= '9'; p++) {
    uint64_t digit = (uint64_t)(*p - '0');
    if (v > (UINT64_MAX - digit) / 10)
      return ul__fail(UL_ERR_INVALID_ARGUMENT, "'%s' is too large (at most %llu)", text, (unsigned long long)hi);
    v = v * 10 + digit;
  }
  if (p == text) return ul__fail(UL_ERR_INVALID_ARGUMENT, "'%s' is not a whole number", text);
  if (*p && size_suffix) {
    static const char units[] = "KMGT";
    const char *u = strchr(units, *p >= 'a' ? *p - 32 : *p);
    if (u && *u) {
      unsigned shift = 10u * (unsigned)(u - units + 1);
      p++;
      if (!strcmp(p, "iB") || !strcmp(p, "B")) p += strlen(p);
      if (v > (UINT64_MAX >> shift))
        return ul__fail(UL_ERR_INVALID_ARGUMENT, "'%s' is too large (at most %llu)", text, (unsigned long long)hi);
      v <<= shift;
    }
  }
  if (*p)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "'%s' is not a whole number%s", text,
                    size_suffix ? " (with an optional K, M, G or T)" : "");
  if (v < lo || v > hi)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "%s is out of range (%llu to %llu)", text, (unsigned long long)lo,
                    (unsigned long long)hi);
  *out = v;
  return UL_OK;
}

ul_status ul__parse_f64(const char *text, double lo, double hi, double *out) {
  if (!text || !*text) return ul__fail(UL_ERR_INVALID_ARGUMENT, "an empty value is not a number");
  /* Digits, one point, an exponent: strtod alone would take spaces, signs,
   * hex, "nan" and "inf". */
  const char *p = text;
  bool digits = false;
  if (*p == '-') p++;
  while (*p >= '0' && *p <= '9') p++, digits = true;
  if (*p == '.')
    for (p++; *p >= '0' && *p <= '9'; p++) digits = true;
  if (digits && (*p == 'e' || *p == 'E')) {
    p++;
    if (*p == '+' || *p == '-') p++;
    if (!(*p >= '0' && *p <= '9')) digits = false;
    while (*p >= '0' && *p <= '9') p++;
  }
  if (!digits || *p) return ul__fail(UL_ERR_INVALID_ARGUMENT, "'%s' is not a number", text);
  double v = strtod(text, NULL); /* overflow gives infinity; underflow a tiny value, which is fine */
  if (!isfinite(v) || v < lo || v > hi)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "%s is out of range (%g to %g)", text, lo, hi);
  *out = v;
  return UL_OK;
}

ul_status ul_parse_u64(const char *text, uint64_t lo, uint64_t hi, uint64_t *out) {
  return ul__parse_u64(text, lo, hi, false, out);
}

ul_status ul_parse_size(const char *text, uint64_t lo, uint64_t hi, uint64_t *out) {
  return ul__parse_u64(text, lo, hi, true, out);
}

ul_status ul_parse_f64(const char *text, double lo, double hi, double *out) {
  return ul__parse_f64(text, lo, hi, out);
}
