/* Fuzz target for the chaos schedule parser (src/chaos/chaos.c):
 * ul__chaos_create(spec, real, &out) and ul__chaos_reschedule(c, spec).
 *
 * Each input is split at its first 0xFF byte (if any) into two schedules,
 * each NUL-terminated in a copy of its own: the first is given to
 * ul__chaos_create, the second to ul__chaos_reschedule of the table that
 * was created. The oracle: every call returns UL_OK, UL_ERR_INVALID_ARGUMENT
 * or UL_ERR_BUSY, never anything else; a failure leaves a non-empty
 * ul_last_error(); a second table while one is active is UL_ERR_BUSY (when
 * the schedule itself parses); nothing crashes or leaks (ASan/LSan). The
 * proc table given as `real` is zeroed: create never calls it.
 *
 * libFuzzer (clang), from the repository root, with SRCS = this file and
 * src/chaos/chaos.c src/core/{error,log,clock}.c (or link libunlost.a):
 *   clang -std=c11 -D_GNU_SOURCE -DUL_LIBFUZZER -g -O1
 *     -fsanitize=fuzzer,address,undefined -Iinclude -Isrc $SRCS -ldl -lpthread -lm
 *     -o fuzz_chaos_spec
 *   ./fuzz_chaos_spec -max_total_time=60 -max_len=16384 [corpus_dir]
 * (CMake: -DUL_LIBFUZZER=ON with clang builds it as fuzz_chaos_spec_libfuzzer.)
 * Standalone (gcc or clang, no libFuzzer; what CTest runs): generates
 * schedules from a grammar plus byte mutations for a bounded time and exits
 * 0 unless the oracle or a sanitizer fires; files and directories given as
 * arguments are replayed first (tests/fuzz_corpus/fuzz_chaos_spec/):
 *   ./fuzz_chaos_spec --seconds 10 [--seed N] [FILE|DIR ...]
 * On an oracle failure the input is written to ./crash-fuzz_chaos_spec-<n>. */
#include "chaos/chaos.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const ul__wgpu g_real; /* zeroed: the parser never calls it */

/* The input being run, for the reproducer written on failure. */
static const uint8_t *g_cur;
static size_t g_cur_size;
static unsigned g_crash_no;

static void save_input(const char *why) {
  char path[96];
  snprintf(path, sizeof path, "crash-fuzz_chaos_spec-%u", g_crash_no++);
  FILE *f = fopen(path, "wb");
  if (f) {
    if (g_cur_size) fwrite(g_cur, 1, g_cur_size, f);
    fclose(f);
  }
  fprintf(stderr, "fuzz_chaos_spec: %s; input (%zu bytes) saved to %s\n", why, g_cur_size, path);
}

static void show_spec(const char *what, const char *spec) {
  fprintf(stderr, "  %s(\"", what);
  for (const char *p = spec; *p && p - spec < 400; p++) {
    unsigned char ch = (unsigned char)*p;
    if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\') fputc(ch, stderr);
    else fprintf(stderr, "\\x%02x", ch);
  }
  fprintf(stderr, "%s\")\n", strlen(spec) > 400 ? "..." : "");
}

static void oracle_fail(const char *call, const char *spec, ul_status s, const char *why) {
  fprintf(stderr, "fuzz_chaos_spec: ORACLE FAILURE: %s\n", why);
  show_spec(call, spec);
  fprintf(stderr, "  -> %s (%d), last error \"%s\"\n", ul_status_name(s), (int)s, ul_last_error());
  save_input("oracle failure");
  abort();
}

static void check(const char *call, const char *spec, ul_status s, bool busy_ok) {
  if (s == UL_OK) return;
  if (s != UL_ERR_INVALID_ARGUMENT && !(busy_ok && s == UL_ERR_BUSY))
    oracle_fail(call, spec, s, "status outside {UL_OK, UL_ERR_INVALID_ARGUMENT, UL_ERR_BUSY}");
  const char *e = ul_last_error();
  if (!e || !*e) oracle_fail(call, spec, s, "failure without a message in ul_last_error()");
  if (ul_last_status() != s) oracle_fail(call, spec, s, "ul_last_status() differs from the returned status");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  g_cur = data;
  g_cur_size = size;
  const uint8_t *sep = memchr(data, 0xFF, size);
  size_t n1 = sep ? (size_t)(sep - data) : size;
  size_t n2 = sep ? size - n1 - 1 : 0;
  /* Exact-size heap copies so that ASan sees any read past the NUL. */
  char *a = malloc(n1 + 1), *b = malloc(n2 + 1);
  if (!a || !b) {
    free(a);
    free(b);
    return 0;
  }
  memcpy(a, data, n1);
  a[n1] = '\0';
  if (n2) memcpy(b, sep + 1, n2);
  b[n2] = '\0';

  ul_clear_error();
  ul__chaos *c = NULL;
  ul_status s = ul__chaos_create(a, &g_real, &c);
  check("ul__chaos_create", a, s, false);
  if (s != UL_OK && c) oracle_fail("ul__chaos_create", a, s, "failed but set *out");
  if (s == UL_OK) {
    if (!c) oracle_fail("ul__chaos_create", a, s, "UL_OK without a table");
    if (!ul__chaos_procs(c)) oracle_fail("ul__chaos_procs", a, s, "no proc table");
    if (ul__chaos_calls(c) != 0 || ul__chaos_injected(c) != 0)
      oracle_fail("ul__chaos_calls", a, s, "counters not zero after create");
    /* One table per process: a second must be refused while c lives. */
    ul__chaos *c2 = NULL;
    ul_clear_error();
    ul_status s2 = ul__chaos_create(a, &g_real, &c2);
    if (s2 != UL_ERR_BUSY || c2) {
      ul__chaos_destroy(c2);
      oracle_fail("ul__chaos_create (second)", a, s2, "a second table was not refused with UL_ERR_BUSY");
    }
    check("ul__chaos_create (second)", a, s2, true);
    /* Reschedule with the second part, then with the first again (valid). */
    ul_clear_error();
    s2 = ul__chaos_reschedule(c, b);
    check("ul__chaos_reschedule", b, s2, false);
    ul_clear_error();
    s2 = ul__chaos_reschedule(c, a);
    if (s2 != UL_OK) oracle_fail("ul__chaos_reschedule", a, s2, "a schedule that created a table does not reschedule");
    ul__chaos_destroy(c);
  }
  free(a);
  free(b);
  return 0;
}

#ifndef UL_LIBFUZZER
#include "fuzz_replay.h"
/* ---- standalone driver: grammar + mutations for a bounded time ------------ */

static uint64_t rnd(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define CAP 20000

typedef struct sbuf {
  uint8_t *p;
  size_t n;
} sbuf;

static void put(sbuf *b, const char *s) {
  size_t l = strlen(s);
  if (b->n + l > CAP) l = CAP - b->n;
  memcpy(b->p + b->n, s, l);
  b->n += l;
}

static void put_rep(sbuf *b, const char *s, size_t times) {
  while (times-- && b->n < CAP) put(b, s);
}

static const char *const k_faults[] = {"loss", "oom", "validation", "LOSS", "los", "lossx", ""};
static const char *const k_keys[] = {"gpu-fail", "adapter-fail", "device-fail", "loss-rate",
                                     "loss-every", "seed", "gpu_fail", "seedx", "", "loss"};
static const char *const k_values[] = {
    "0", "1", "2", "64", "all", "ALL", "al", "-1", "-0", "+1", " 1", "1 ", "01", "0x10", "1e3",
    "4294967294", "4294967295", "4294967296", "18446744073709551615", "18446744073709551616",
    "99999999999999999999999999999", "9223372036854775807", "9223372036854775808",
    "0.5", "1.0", "1.0000001", "-0.0", "nan", "NaN", "inf", "-inf", "1e-320", "0x1p-1",
    "1e308", "", "=", "@", "1@2", "1=2", "\t1", "1\n"};
static const char *const k_seps[] = {",", ",,", ", ", " ,", ",,,,,,", " ", "", "\t,", ",\0"};

static const char *pick(uint64_t *s, const char *const *t, size_t n) { return t[rnd(s) % n]; }
#define PICK(s, t) pick(s, t, sizeof t / sizeof t[0])

static void gen_item(uint64_t *s, sbuf *b) {
  switch (rnd(s) % 5) {
  case 0:
  case 1:
    put(b, PICK(s, k_faults));
    put(b, rnd(s) % 8 ? "@" : "=");
    put(b, PICK(s, k_values));
    break;
  case 2:
  case 3:
    put(b, PICK(s, k_keys));
    put(b, rnd(s) % 8 ? "=" : "@");
    put(b, PICK(s, k_values));
    break;
  default: { /* a random number of the right shape */
    char num[48];
    snprintf(num, sizeof num, "%s@%llu", PICK(s, k_faults), (unsigned long long)(rnd(s) >> (rnd(s) % 64)));
    put(b, num);
  }
  }
}

static size_t gen(uint64_t *s, uint8_t *buf) {
  sbuf b = {buf, 0};
  switch (rnd(s) % 10) {
  case 0: { /* lengths around the 4096 limit */
    static const size_t lens[] = {4095, 4096, 4097, 8192, 19000};
    size_t l = lens[rnd(s) % 5];
    if (rnd(s) % 2) put_rep(&b, ",", l);
    else if (rnd(s) % 2) put_rep(&b, " ", l);
    else {
      put(&b, "seed=");
      put_rep(&b, "9", l - 5);
    }
    break;
  }
  case 1: { /* around the 64-point limit */
    size_t n = 60 + rnd(s) % 8;
    for (size_t i = 0; i < n; i++) {
      char it[40];
      snprintf(it, sizeof it, "%s@%zu,", k_faults[rnd(s) % 3], i + 1);
      put(&b, it);
    }
    break;
  }
  case 2: /* repeated separators only */
    put_rep(&b, PICK(s, k_seps), 1 + rnd(s) % 300);
    break;
  default: {
    size_t n = 1 + rnd(s) % 8;
    for (size_t i = 0; i < n; i++) {
      if (i) put(&b, PICK(s, k_seps));
      gen_item(s, &b);
    }
    if (rnd(s) % 4 == 0) { /* a second schedule for reschedule */
      if (b.n < CAP) buf[b.n++] = 0xFF;
      size_t m = 1 + rnd(s) % 4;
      for (size_t i = 0; i < m; i++) {
        if (i) put(&b, ",");
        gen_item(s, &b);
      }
    }
  }
  }
  return b.n;
}

static size_t mutate(uint64_t *s, uint8_t *buf, size_t n) {
  int steps = (int)(rnd(s) % 4);
  for (int k = 0; k < steps; k++) {
    switch (rnd(s) % 6) {
    case 0:
      if (n) buf[rnd(s) % n] ^= (uint8_t)(1u << (rnd(s) % 8));
      break;
    case 1:
      if (n) buf[rnd(s) % n] = (uint8_t)rnd(s);
      break;
    case 2: { /* insert a special byte */
      static const uint8_t sp[] = {',', '@', '=', ' ', '\0', 0xFF, '-', '.', '9', 'e'};
      if (n < CAP) {
        size_t at = n ? rnd(s) % (n + 1) : 0;
        memmove(buf + at + 1, buf + at, n - at);
        buf[at] = sp[rnd(s) % sizeof sp];
        n++;
      }
      break;
    }
    case 3:
      if (n) n = rnd(s) % n;
      break;
    case 4: /* delete a byte */
      if (n) {
        size_t at = rnd(s) % n;
        memmove(buf + at, buf + at + 1, n - at - 1);
        n--;
      }
      break;
    default: /* duplicate a chunk at the end */
      if (n) {
        size_t a = rnd(s) % n, l = rnd(s) % 64;
        if (a + l > n) l = n - a;
        if (n + l <= CAP) {
          memmove(buf + n, buf + a, l);
          n += l;
        }
      }
    }
  }
  return n;
}


static void on_signal(int sig) {
  static const char msg[] = "fuzz_chaos_spec: fatal signal; input saved to crash-fuzz_chaos_spec-sig\n";
  int fd = open("crash-fuzz_chaos_spec-sig", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    ssize_t w = write(fd, g_cur, g_cur_size);
    (void)w;
    close(fd);
  }
  ssize_t w = write(2, msg, sizeof msg - 1);
  (void)w;
  signal(sig, SIG_DFL);
  raise(sig);
}

void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));
static void on_sanitizer_death(void) { save_input("sanitizer report"); }

int main(int argc, char **argv) {
  double seconds = 10;
  uint64_t seed = now_ns();
  uint64_t replayed = 0;
  signal(SIGSEGV, on_signal);
  signal(SIGBUS, on_signal);
  signal(SIGFPE, on_signal);
  signal(SIGILL, on_signal);
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(on_sanitizer_death);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = atof(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
    else if (argv[i][0] == '-') {
      fprintf(stderr, "usage: %s [--seconds N] [--seed N] [FILE|DIR ...]\n", argv[0]);
      return 2;
    } else replayed += fuzz_replay(argv[i], 0);
  }
  /* Fixed inputs: every documented item, and the edges. */
  static const char *const fixed[] = {
      "", ",", "loss@1", "oom@2,validation@3", "gpu-fail=all", "gpu-fail=4294967294",
      "gpu-fail=4294967295", "adapter-fail=1,device-fail=2", "loss-rate=0.25,seed=7",
      "loss-rate=1", "loss-rate=1.0000001", "loss-rate=nan", "loss-every=10", "seed=0",
      "seed=18446744073709551615", "seed=18446744073709551616", "loss@0", "loss@-1", "loss@",
      "@1", "=1", "loss", "unknown=1", " loss@1 , oom@2 ", "loss@1\xff" "oom@2"};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
    LLVMFuzzerTestOneInput((const uint8_t *)fixed[i], strlen(fixed[i]));
  uint8_t *buf = malloc(CAP + 1), *prev = malloc(CAP + 1);
  if (!buf || !prev) return 1;
  size_t prev_n = 0;
  printf("fuzz_chaos_spec: seed %llu, %.0f s, %llu replayed\n", (unsigned long long)seed, seconds,
         (unsigned long long)replayed);
  fflush(stdout);
  uint64_t s = seed, runs = 0, ok = 0, end = now_ns() + (uint64_t)(seconds * 1e9);
  while (now_ns() < end) {
    for (int k = 0; k < 64; k++) {
      size_t n;
      if (prev_n && rnd(&s) % 3 == 0) {
        memcpy(buf, prev, prev_n);
        n = mutate(&s, buf, prev_n);
      } else {
        n = gen(&s, buf);
        if (rnd(&s) % 2) n = mutate(&s, buf, n);
      }
      LLVMFuzzerTestOneInput(buf, n);
      /* Keep schedules that parse as seeds for mutation. */
      buf[n] = '\0';
      ul__chaos *c = NULL;
      if (!memchr(buf, 0xFF, n) && ul__chaos_create((const char *)buf, &g_real, &c) == UL_OK) {
        ul__chaos_destroy(c);
        memcpy(prev, buf, n);
        prev_n = n;
        ok++;
      }
      runs++;
    }
  }
  printf("fuzz_chaos_spec: %llu inputs (%.0f/s, %llu parsed), no failure\n", (unsigned long long)runs,
         runs / (seconds > 0 ? seconds : 1), (unsigned long long)ok);
  free(buf);
  free(prev);
  return 0;
}
#endif
