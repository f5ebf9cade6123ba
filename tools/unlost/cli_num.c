/* The CLI's option values: the library's strict number parser (ul_parse_*),
 * with the command and option named in the message. */
#include "cli.h"

bool cli_u64(const char *cmd, const char *opt, const char *value, uint64_t lo, uint64_t hi, uint64_t *out) {
  if (!ul_parse_u64(value, lo, hi, out)) return true;
  fprintf(stderr, "unlost %s: %s: %s\n", cmd, opt, ul_last_error());
  return false;
}

bool cli_size(const char *cmd, const char *opt, const char *value, uint64_t lo, uint64_t hi, uint64_t *out) {
  if (!ul_parse_size(value, lo, hi, out)) return true;
  fprintf(stderr, "unlost %s: %s: %s\n", cmd, opt, ul_last_error());
  return false;
}

bool cli_f64(const char *cmd, const char *opt, const char *value, double lo, double hi, double *out) {
  if (!ul_parse_f64(value, lo, hi, out)) return true;
  fprintf(stderr, "unlost %s: %s: %s\n", cmd, opt, ul_last_error());
  return false;
}

bool cli_int(const char *cmd, const char *opt, const char *value, int lo, int hi, int *out) {
  uint64_t v;
  if (!cli_u64(cmd, opt, value, (uint64_t)lo, (uint64_t)hi, &v)) return false;
  *out = (int)v;
  return true;
}

bool cli_parse_u64(const char *value, uint64_t lo, uint64_t hi, uint64_t *out) {
  return !ul_parse_u64(value, lo, hi, out);
}

bool cli_parse_f64(const char *value, double lo, double hi, double *out) { return !ul_parse_f64(value, lo, hi, out); }
