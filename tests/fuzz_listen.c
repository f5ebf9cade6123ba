/* Fuzz target for `unlost serve`'s --listen parser and --label check
 * (tools/unlost/listen.c), against reference parsers written here from the
 * grammar (RFC 4291 text form for IPv6, dotted quads for IPv4, UTF-8 by
 * code point): both agree on accept or reject, an accepted address has the
 * reference's bytes, port and flags, a rejection says why, and nothing
 * crashes (ASan/UBSan).
 *
 * The input is "ADDRESS\nLABEL" (either part may be absent).
 * Standalone (what CTest runs): replays files and directories given as
 * arguments, then generates inputs from the grammar's pieces plus byte
 * mutations for a bounded time:
 *   ./fuzz_listen --seconds 5 [--seed N] [FILE|DIR ...]
 * With -DUL_LIBFUZZER (clang -fsanitize=fuzzer) the driver is libFuzzer's. */
#include "cli.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include "fuzz_replay.h"

static int g_failures;

static void report(const char *what, const char *text) {
  fuzz_report("fuzz_listen", what, text);
  g_failures++;
}

/* ---- references ---- */

/* a.b.c.d: four decimal parts 0..255, no leading zeros, nothing else. */
static bool ref_ipv4(const char *t, size_t n, uint8_t out[4]) {
  size_t i = 0;
  for (int part = 0; part < 4; part++) {
    if (part) {
      if (i >= n || t[i] != '.') return false;
      i++;
    }
    size_t d = 0;
    unsigned v = 0;
    while (i + d < n && isdigit((unsigned char)t[i + d]) && d < 4) v = v * 10 + (unsigned)(t[i + d++] - '0');
    if (d == 0 || d > 3 || v > 255 || (d > 1 && t[i] == '0')) return false;
    out[part] = (uint8_t)v;
    i += d;
  }
  return i == n;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Groups of 1..4 hex digits separated by ':', at most one "::" standing
 * for one or more zero groups, optionally a dotted quad as the last 32
 * bits; 128 bits in all. Split into the text before and after "::". */
static bool ref_groups(const char *t, size_t n, uint16_t *g, int *count, bool allow_v4) {
  *count = 0;
  if (n == 0) return true;
  size_t i = 0;
  for (;;) {
    /* A dotted quad where the rest has a '.'. */
    size_t end = i;
    while (end < n && t[end] != ':') end++;
    if (allow_v4 && end == n && memchr(t + i, '.', n - i)) {
      uint8_t q[4];
      if (*count > 6 || !ref_ipv4(t + i, n - i, q)) return false;
      g[(*count)++] = (uint16_t)(q[0] << 8 | q[1]);
      g[(*count)++] = (uint16_t)(q[2] << 8 | q[3]);
      return true;
    }
    size_t d = end - i;
    if (d == 0 || d > 4 || *count >= 8) return false;
    unsigned v = 0;
    for (size_t k = 0; k < d; k++) {
      int h = hexval(t[i + k]);
      if (h < 0) return false;
      v = v * 16 + (unsigned)h;
    }
    g[(*count)++] = (uint16_t)v;
    if (end == n) return true;
    i = end + 1;
    if (i == n) return false; /* a trailing single ':' */
  }
}

static bool ref_ipv6(const char *t, size_t n, uint8_t out[16]) {
  uint16_t head[8], tail[8];
  int nh = 0, nt = 0;
  const char *dc = NULL;
  for (size_t i = 0; i + 1 < n; i++)
    if (t[i] == ':' && t[i + 1] == ':') {
      dc = t + i;
      break;
    }
  if (dc) {
    size_t hn = (size_t)(dc - t), tn = n - hn - 2;
    if (memmem(dc + 2, tn, "::", 2) || (tn && dc[2] == ':')) return false;
    if (!ref_groups(t, hn, head, &nh, false) || !ref_groups(dc + 2, tn, tail, &nt, true)) return false;
    if (nh + nt > 7) return false;
  } else {
    if (!ref_groups(t, n, head, &nh, true) || nh != 8) return false;
  }
  uint16_t all[8] = {0};
  for (int i = 0; i < nh; i++) all[i] = head[i];
  for (int i = 0; i < nt; i++) all[8 - nt + i] = tail[i];
  for (int i = 0; i < 8; i++) {
    out[2 * i] = (uint8_t)(all[i] >> 8);
    out[2 * i + 1] = (uint8_t)all[i];
  }
  return true;
}

typedef struct ref_addr {
  int family;
  uint8_t bytes[16];
  unsigned port;
  bool wildcard;
  char host[64];
} ref_addr;

static bool ref_port(const char *t, unsigned *out) {
  size_t n = strlen(t);
  if (n == 0 || n > 5) return false;
  unsigned v = 0;
  for (size_t i = 0; i < n; i++) {
    if (!isdigit((unsigned char)t[i])) return false;
    v = v * 10 + (unsigned)(t[i] - '0');
  }
  if (v > 65535) return false;
  *out = v;
  return true;
}

static bool ref_listen(const char *s, ref_addr *a) {
  memset(a, 0, sizeof *a);
  const char *host, *port;
  size_t hn;
  if (s[0] == '[') {
    const char *close = strchr(s, ']');
    if (!close || close[1] != ':') return false;
    host = s + 1;
    hn = (size_t)(close - host);
    port = close + 2;
    a->family = AF_INET6;
    if (hn == 0 || hn >= sizeof a->host || !ref_ipv6(host, hn, a->bytes)) return false;
    if (a->bytes[0] == 0xFF) return false; /* multicast */
    static const uint8_t zero[16];
    a->wildcard = !memcmp(a->bytes, zero, 16);
  } else {
    const char *colon = strrchr(s, ':');
    if (!colon) return false;
    host = s;
    hn = (size_t)(colon - s);
    port = colon + 1;
    a->family = AF_INET;
    if (hn == 9 && !memcmp(host, "localhost", 9)) { /* the one name: this host's loopback */
      host = "127.0.0.1";
      hn = 9;
    }
    if (hn == 0 || hn >= sizeof a->host || !ref_ipv4(host, hn, a->bytes)) return false;
    if (a->bytes[0] >= 224 && a->bytes[0] <= 239) return false; /* multicast */
    if (a->bytes[0] == 255 && a->bytes[1] == 255 && a->bytes[2] == 255 && a->bytes[3] == 255) return false;
    a->wildcard = !(a->bytes[0] | a->bytes[1] | a->bytes[2] | a->bytes[3]);
  }
  memcpy(a->host, host, hn);
  return ref_port(port, &a->port);
}

/* UTF-8 decoded to code points: the shortest form only, no surrogates,
 * nothing past U+10FFFF; printable: no C0 or C1 control, no DEL. */
static bool ref_label(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > 128) return false;
  const unsigned char *p = (const unsigned char *)s;
  for (size_t i = 0; i < n;) {
    unsigned c = p[i], len, cp;
    if (c < 0x80) len = 1, cp = c;
    else if ((c & 0xE0) == 0xC0) len = 2, cp = c & 0x1F;
    else if ((c & 0xF0) == 0xE0) len = 3, cp = c & 0x0F;
    else if ((c & 0xF8) == 0xF0) len = 4, cp = c & 0x07;
    else return false;
    if (i + len > n) return false;
    for (unsigned k = 1; k < len; k++) {
      if ((p[i + k] & 0xC0) != 0x80) return false;
      cp = cp << 6 | (p[i + k] & 0x3F);
    }
    static const unsigned min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_cp[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) return false;
    i += len;
  }
  return true;
}

/* ---- the oracle ---- */

static void check_listen(const char *text) {
  cli_listen_addr a;
  ref_addr r;
  char why[256] = "";
  bool ok = cli_parse_listen(text, &a, why, sizeof why);
  bool ref = ref_listen(text, &r);
  if (ok != ref) {
    report(ok ? "listen accepted what the grammar rejects" : "listen rejected a valid address", text);
    return;
  }
  if (!ok) {
    if (!why[0]) report("listen rejection without a reason", text);
    return;
  }
  bool same = a.family == r.family && a.port == r.port && a.wildcard == r.wildcard && !strcmp(a.host, r.host);
  if (a.family == AF_INET)
    same = same && a.v4.sin_family == AF_INET && ntohs(a.v4.sin_port) == r.port &&
           !memcmp(&a.v4.sin_addr.s_addr, r.bytes, 4);
  else
    same = same && a.v6.sin6_family == AF_INET6 && ntohs(a.v6.sin6_port) == r.port &&
           !memcmp(a.v6.sin6_addr.s6_addr, r.bytes, 16);
  if (!same) report("listen result differs from the reference", text);
}

static void check_label(const char *text) {
  if (cli_label_ok(text) != ref_label(text))
    report(ref_label(text) ? "label rejected a valid one" : "label accepted an invalid one", text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char buf[512];
  size_t n = size < sizeof buf - 1 ? size : sizeof buf - 1;
  memcpy(buf, data, n);
  buf[n] = '\0';
  char *nl = memchr(buf, '\n', n);
  if (nl) {
    *nl = '\0';
    check_label(nl + 1);
  }
  check_listen(buf);
  return 0;
}

#ifndef UL_LIBFUZZER

static uint64_t g_rng = 1;
static uint64_t rnd(void) { return fuzz_rnd(&g_rng); }

#define PICK(a) (a)[rnd() % (sizeof(a) / sizeof((a)[0]))]

/* An address from the grammar's pieces, a newline, a label from UTF-8
 * pieces; then, sometimes, a byte mutated. */
static size_t generate(char *out, size_t cap) {
  static const char *const hosts[] = {"127.0.0.1", "0.0.0.0", "255.255.255.255", "224.0.0.1", "239.9.9.9",
                                      "10.0.0.01", "256.1.1.1", "1.2.3", "1.2.3.4.5", "[::1]", "[::]", "[ff02::1]",
                                      "[fe80::1%lo]", "[::ffff:127.0.0.1]", "[1:2:3:4:5:6:7:8]",
                                      "[1:2:3:4:5:6:7:8:9]", "[1::2::3]", "[:::]", "[12345::]", "[::1.2.3.4]",
                                      "[1:2:3:4:5:6:1.2.3.4]", "[1:2:3:4:5:6:7:1.2.3.4]", "localhost", "", "[",
                                      "]", "::1", "[::1", "1.2.3.4]", "[g::]", "[::0001]", "[1::]", "[::1:]"};
  static const char *const ports[] = {":0", ":1", ":9464", ":65535", ":65536", ":-1", ": 80", ":", ":080",
                                      ":99999999999", "", ":80x", "::80", ":+80"};
  static const char *const label[] = {"gpu0", "a", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
                                      "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                                      "\xc2\x85", "\xc2\xa0", "\x7f", "\t", " ", "\xff", "\xe2\x82",
                                      "\xef\xbf\xbf", "\xf0\x90\x80\x80", "\"", "\\"};
  size_t n = 0;
  if (rnd() % 4 == 0) {
    /* Random groups and quads, for what the lists do not hold. */
    n += (size_t)snprintf(out + n, cap - n, "[");
    int groups = (int)(rnd() % 10);
    for (int i = 0; i < groups && n < cap / 2; i++)
      n += (size_t)snprintf(out + n, cap - n, i ? (rnd() % 6 ? ":%x" : "::%x") : "%x",
                            (unsigned)(rnd() >> (rnd() % 64)) & 0x1ffff);
    n += (size_t)snprintf(out + n, cap - n, "]");
  } else if (rnd() % 3 == 0) {
    n += (size_t)snprintf(out + n, cap - n, "%u.%u.%u.%u", (unsigned)(rnd() % 300), (unsigned)(rnd() % 300),
                          (unsigned)(rnd() % 300), (unsigned)(rnd() % 300));
  } else {
    n += (size_t)snprintf(out + n, cap - n, "%s", PICK(hosts));
  }
  n += (size_t)snprintf(out + n, cap - n, "%s", PICK(ports));
  if (rnd() % 2) {
    n += (size_t)snprintf(out + n, cap - n, "\n");
    int parts = 1 + (int)(rnd() % 6);
    for (int i = 0; i < parts && n < cap - 8; i++) n += (size_t)snprintf(out + n, cap - n, "%s", PICK(label));
  }
  if (n && rnd() % 4 == 0) out[rnd() % n] = (char)(rnd() % 255 + 1);
  out[n] = '\0';
  return n;
}

int main(int argc, char **argv) {
  return fuzz_drive("fuzz_listen", argc, argv, &g_rng, &g_failures, generate, 400);
}
#endif
