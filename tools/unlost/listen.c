/* The serve command's --listen and --label values, apart from the server
 * so that tests/fuzz_listen.c can drive them without libmicrohttpd. */
#include "cli.h"

#include <arpa/inet.h>

/* HOST:PORT with HOST an IPv4 literal or a bracketed IPv6 literal. Writes
 * what is wrong into why. */
bool cli_parse_listen(const char *s, cli_listen_addr *a, char *why, size_t cap) {
  memset(a, 0, sizeof *a);
  const char *colon;
  char host[INET6_ADDRSTRLEN + 2];
  if (s[0] == '[') {
    const char *close = strchr(s, ']');
    if (!close || close[1] != ':') {
      snprintf(why, cap, "expected [IPv6]:PORT");
      return false;
    }
    size_t n = (size_t)(close - s - 1);
    if (n == 0 || n >= sizeof host) {
      snprintf(why, cap, "bad IPv6 address");
      return false;
    }
    memcpy(host, s + 1, n);
    host[n] = '\0';
    colon = close + 1;
    a->family = AF_INET6;
  } else {
    colon = strrchr(s, ':');
    if (!colon) {
      snprintf(why, cap, "expected HOST:PORT");
      return false;
    }
    size_t n = (size_t)(colon - s);
    if (memchr(s, ':', n)) {
      snprintf(why, cap, "an IPv6 address goes in brackets: [::1]:PORT");
      return false;
    }
    if (n == 0 || n >= sizeof host) {
      snprintf(why, cap, "missing or too long HOST");
      return false;
    }
    memcpy(host, s, n);
    host[n] = '\0';
    /* The one name taken (no resolver on this path): this host's loopback. */
    if (!strcmp(host, "localhost")) snprintf(host, sizeof host, "127.0.0.1");
    a->family = AF_INET;
  }
  uint64_t port;
  if (!cli_parse_u64(colon + 1, 0, 65535, &port)) {
    snprintf(why, cap, "PORT must be a number in 0..65535 (0: any free port)");
    return false;
  }
  a->port = (unsigned)port;
  if (a->family == AF_INET) {
    a->v4.sin_family = AF_INET;
    a->v4.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &a->v4.sin_addr) != 1) {
      snprintf(why, cap, "HOST '%s' is not an IPv4 literal or localhost (names are not resolved)", host);
      return false;
    }
  } else {
    a->v6.sin6_family = AF_INET6;
    a->v6.sin6_port = htons((uint16_t)port);
    if (inet_pton(AF_INET6, host, &a->v6.sin6_addr) != 1) {
      snprintf(why, cap, "HOST '%s' is not an IPv6 literal", host);
      return false;
    }
  }
  /* Addresses a server cannot own; the wildcard is allowed, with a word. */
  if (a->family == AF_INET) {
    uint32_t v = ntohl(a->v4.sin_addr.s_addr);
    if ((v >> 28) == 0xE || v == 0xFFFFFFFFu) {
      snprintf(why, cap, "HOST '%s' is a %s address: serve on a local unicast one", host,
               v == 0xFFFFFFFFu ? "broadcast" : "multicast");
      return false;
    }
    a->wildcard = v == 0;
  } else {
    if (a->v6.sin6_addr.s6_addr[0] == 0xFF) {
      snprintf(why, cap, "HOST '%s' is a multicast address: serve on a local unicast one", host);
      return false;
    }
    static const uint8_t any[16] = {0};
    a->wildcard = !memcmp(a->v6.sin6_addr.s6_addr, any, 16);
  }
  snprintf(a->host, sizeof a->host, "%s", host);
  return true;
}

/* Well-formed UTF-8 by the byte ranges of the Unicode standard's table
 * 3-7 (no overlong forms, no surrogates, nothing past U+10FFFF), printable:
 * no C0 or C1 control and no DEL. */
bool cli_label_ok(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > 128) return false;
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    unsigned c = p[0];
    int k;
    unsigned lo = 0x80, hi = 0xBF; /* the second byte's range */
    if (c < 0x80) k = 1;
    else if (c >= 0xC2 && c <= 0xDF) k = 2;
    else if (c >= 0xE0 && c <= 0xEF) k = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4) k = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else return false;
    if (k == 1 && (c < 0x20 || c == 0x7F)) return false;
    if (k == 2 && c == 0xC2 && p[1] <= 0x9F) return false; /* U+0080..U+009F: C1 controls */
    if (k > 1 && (p[1] < lo || p[1] > hi)) return false;
    for (int j = 2; j < k; j++)
      if ((p[j] & 0xC0) != 0x80) return false;
    p += k;
  }
  return true;
}
