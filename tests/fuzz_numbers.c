/* Fuzz target for the strict number parser every CLI option and the fault
 * spec use (src/base/parse.c): ul__parse_u64 (with and without size
 * suffixes) and ul__parse_f64, against reference parsers written here from
 * the documented grammar (a different construction: a scan that classifies
 * the text first, then arithmetic in 128 bits). The oracle: both agree on
 * accept or reject and on the value; a rejection leaves a message; nothing
 * crashes (ASan/UBSan).
 *
 * Standalone (what CTest runs): replays files and directories given as
 * arguments (tests/fuzz_corpus/fuzz_numbers/), then generates numbers from
 * a grammar plus byte mutations for a bounded time:
 *   ./fuzz_numbers --seconds 5 [--seed N] [FILE|DIR ...]
 * With -DUL_LIBFUZZER (clang -fsanitize=fuzzer) the driver is libFuzzer's. */
#include "internal.h"

#include <ctype.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>

#include "fuzz_replay.h"

static int g_failures;

static void report(const char *what, const char *text) {
  fuzz_report("fuzz_numbers", what, text);
  g_failures++;
}

/* Reference: digits, then (with suffixes) one of K M G T k m g t, then
 * nothing, "B" or "iB". */
static bool ref_u64(const char *t, bool sizes, uint64_t lo, uint64_t hi, uint64_t *out) {
  size_t n = strlen(t), d = 0;
  while (d < n && isdigit((unsigned char)t[d])) d++;
  if (d == 0) return false;
  unsigned shift = 0;
  size_t rest = d;
  if (rest < n && sizes) {
    const char *units = "kmgt";
    const char *u = strchr(units, tolower((unsigned char)t[rest]));
    if (!u || !t[rest]) return false;
    shift = 10u * (unsigned)(u - units + 1);
    rest++;
    if (strcmp(t + rest, "") && strcmp(t + rest, "B") && strcmp(t + rest, "iB")) return false;
    rest = n;
  }
  if (rest != n) return false;
  unsigned __int128 v = 0;
  for (size_t i = 0; i < d; i++) {
    v = v * 10 + (unsigned)(t[i] - '0');
    if (v > UINT64_MAX) return false;
  }
  v <<= shift;
  if (v > UINT64_MAX || v < lo || v > hi) return false;
  *out = (uint64_t)v;
  return true;
}

/* Reference: [-] digits [. digits] | [-] . digits, then [e [+-] digits],
 * finite, in range. */
static bool ref_f64(const char *t, double lo, double hi, double *out) {
  const char *p = t;
  if (*p == '-') p++;
  size_t before = strspn(p, "0123456789");
  p += before;
  size_t after = 0;
  if (*p == '.') {
    after = strspn(p + 1, "0123456789");
    p += 1 + after;
  }
  if (before + after == 0) return false;
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-') p++;
    size_t e = strspn(p, "0123456789");
    if (!e) return false;
    p += e;
  }
  if (*p) return false;
  double v = strtod(t, NULL);
  if (!isfinite(v) || v < lo || v > hi) return false;
  *out = v;
  return true;
}

static void check_one(const char *text) {
  static const uint64_t bounds[][2] = {{0, UINT64_MAX}, {1, 1ull << 40}, {4096, 64ull << 30}, {0, 1000000}};
  for (size_t b = 0; b < sizeof bounds / sizeof bounds[0]; b++)
    for (int sizes = 0; sizes < 2; sizes++) {
      uint64_t got = 0, want = 0;
      bool ok = ul__parse_u64(text, bounds[b][0], bounds[b][1], sizes, &got) == UL_OK;
      bool ref = ref_u64(text, sizes, bounds[b][0], bounds[b][1], &want);
      if (ok != ref) report(ok ? "u64 accepted what the grammar rejects" : "u64 rejected a valid number", text);
      else if (ok && got != want) report("u64 value differs", text);
      else if (!ok && !*ul_last_error()) report("u64 rejection without a message", text);
    }
  static const double fb[][2] = {{0.0, 1.0}, {-1e300, 1e300}, {1e-9, 100.0}};
  for (size_t b = 0; b < sizeof fb / sizeof fb[0]; b++) {
    double got = 0, want = 0;
    bool ok = ul__parse_f64(text, fb[b][0], fb[b][1], &got) == UL_OK;
    bool ref = ref_f64(text, fb[b][0], fb[b][1], &want);
    if (ok != ref) report(ok ? "f64 accepted what the grammar rejects" : "f64 rejected a valid number", text);
    else if (ok && got != want) report("f64 value differs", text);
    else if (!ok && !*ul_last_error()) report("f64 rejection without a message", text);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char buf[512];
  size_t n = size < sizeof buf - 1 ? size : sizeof buf - 1;
  memcpy(buf, data, n);
  buf[n] = '\0';
  check_one(buf);
  return 0;
}

#ifndef UL_LIBFUZZER

static uint64_t g_rng = 1;
static uint64_t rnd(void) { return fuzz_rnd(&g_rng); }

/* A number from the grammar's pieces, then mutated. */
static size_t generate(char *out, size_t cap) {
  static const char *const pieces[] = {"0", "1", "9", "18446744073709551615", "18446744073709551616", "4096",
                                       "-", "+", ".", "e", "E", "e-", "e+", "K", "M", "G", "T", "k", "iB",
                                       "B", "x", " ", "nan", "inf", "1e308", "99999999999999999999"};
  size_t n = 0;
  int parts = 1 + (int)(rnd() % 5);
  for (int i = 0; i < parts && n < cap - 32; i++) {
    uint64_t r = rnd() % 3;
    if (r == 0) n += (size_t)snprintf(out + n, cap - n, "%llu", (unsigned long long)(rnd() >> (rnd() % 64)));
    else n += (size_t)snprintf(out + n, cap - n, "%s", pieces[rnd() % (sizeof pieces / sizeof pieces[0])]);
  }
  if (n && rnd() % 4 == 0) out[rnd() % n] = (char)(rnd() % 256 ? rnd() % 256 : 1);
  out[n] = '\0';
  return strlen(out);
}

int main(int argc, char **argv) {
  return fuzz_drive("fuzz_numbers", argc, argv, &g_rng, &g_failures, generate, 256);
}
#endif
