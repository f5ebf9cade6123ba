/* Fuzz target for `unlost serve`'s HTTP request path: the real CLI as a
 * child process (tests/serve_child.h), fed generated requests on loopback,
 * each on its own connection, half-closed after sending. The oracle:
 * - every answer starts with a well-formed status line (HTTP/1.x NNN);
 * - a well-formed request (not mutated) gets the status its route gives:
 *   GET or HEAD of /metrics, /metrics.json, /healthz, /readyz, /report.json:
 *   200 or 503; of /: 200 (501 without jansson);
 *   any other path: 404; another method: 405 with "Allow: GET, HEAD";
 *   HEAD: no body;
 * - the connection ends within 4 s: the server runs with --idle-timeout 1,
 *   and some garbage (libmicrohttpd waits for more of a request it cannot
 *   parse) ends only so; those are counted apart;
 * - /healthz answers 200 within 1 s after every 25 requests;
 * - the server is alive throughout and exits 0 on SIGTERM (under
 *   ASan/UBSan: no error report).
 * Without libmicrohttpd the CLI cannot serve: exit 77 (a skip, for CTest).
 *
 *   ./fuzz_http --seconds 20 [--seed N] [FILE|DIR ...]
 * FILE: raw requests replayed first (tests/fuzz_corpus/fuzz_http/).
 * With -DUL_LIBFUZZER the driver is libFuzzer's: each input is one raw
 * request to a server started at the first. */
#include "serve_child.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static atomic_int g_failures;
static server g_srv;
static bool g_started;
static atomic_long g_sent, g_answered, g_closed_silently, g_idle_closed;
static pthread_mutex_t g_report_mu = PTHREAD_MUTEX_INITIALIZER;

static void report(const char *what, const uint8_t *req, size_t n) {
  pthread_mutex_lock(&g_report_mu);
  fprintf(stderr, "fuzz_http: %s for request \"", what);
  for (size_t i = 0; i < n && i < 300; i++) {
    unsigned char ch = req[i];
    if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\') fputc(ch, stderr);
    else fprintf(stderr, "\\x%02x", ch);
  }
  fprintf(stderr, "%s\"\n", n > 300 ? "..." : "");
  pthread_mutex_unlock(&g_report_mu);
  g_failures++;
}

/* Sends the request, half-closes, reads to EOF. Returns the bytes read, or
 * -1 when the connection did not end within timeout_s. */
static long exchange(const uint8_t *req, size_t n, char *resp, size_t cap, double timeout_s) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -2;
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)g_srv.port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr *)&a, sizeof a)) {
    close(fd);
    return -2;
  }
  struct timeval tv = {1, 0};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  size_t off = 0;
  while (off < n) {
    ssize_t k = send(fd, req + off, n - off, MSG_NOSIGNAL);
    if (k <= 0) break; /* the server may close early on garbage: fine */
    off += (size_t)k;
  }
  shutdown(fd, SHUT_WR);
  size_t len = 0;
  double until = now_s() + timeout_s;
  long result = -1;
  for (;;) {
    int left = (int)((until - now_s()) * 1000);
    if (left <= 0) break;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int r = poll(&p, 1, left);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    char sink[4096];
    char *dst = len + 1 < cap ? resp + len : sink;
    size_t room = len + 1 < cap ? cap - len - 1 : sizeof sink;
    ssize_t k = recv(fd, dst, room, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) { /* EOF, or a reset after garbage */
      result = (long)len;
      break;
    }
    if (dst == resp + len) len += (size_t)k;
  }
  resp[len < cap ? len : cap - 1] = '\0';
  close(fd);
  return result;
}

/* "HTTP/1.x NNN" at the start; the status, or 0. */
static int status_of(const char *resp) {
  if (strncmp(resp, "HTTP/1.", 7) || (resp[7] != '0' && resp[7] != '1') || resp[8] != ' ') return 0;
  for (int i = 9; i < 12; i++)
    if (resp[i] < '0' || resp[i] > '9') return 0;
  if (resp[12] != ' ' && resp[12] != '\r') return 0;
  int code = (resp[9] - '0') * 100 + (resp[10] - '0') * 10 + (resp[11] - '0');
  return code >= 100 && code <= 599 ? code : 0;
}

typedef struct expect {
  bool known;       /* well-formed: the route's status is known */
  int want_a, want_b; /* acceptable statuses */
  bool head;        /* no body */
  bool allow;       /* an Allow header */
} expect;

static void check_answer(const uint8_t *req, size_t n, const expect *e, char *resp, size_t cap) {
  g_sent++;
  double t0 = now_s();
  long got = exchange(req, n, resp, cap, 4.0);
  if (now_s() - t0 > 0.9) g_idle_closed++;
  if (got == -2) {
    report("cannot connect to the server", req, n);
    return;
  }
  if (got < 0) {
    report("the connection did not end within 4 s", req, n);
    return;
  }
  if (got == 0) {
    g_closed_silently++;
    if (e->known) report("a well-formed request got no answer", req, n);
    return;
  }
  g_answered++;
  int code = status_of(resp);
  if (!code) {
    report("an answer without a well-formed status line", req, n);
    return;
  }
  if (!e->known) return;
  if (code != e->want_a && code != e->want_b) {
    char what[96];
    snprintf(what, sizeof what, "status %d (want %d%s%.0d)", code, e->want_a, e->want_b ? " or " : "", e->want_b);
    report(what, req, n);
    return;
  }
  const char *sep = strstr(resp, "\r\n\r\n");
  if (!sep) {
    report("an answer without the end of its headers", req, n);
    return;
  }
  if (e->head && sep[4]) report("a HEAD answer with a body", req, n);
  if (e->allow && !strstr(resp, "\r\nAllow: GET, HEAD\r\n")) report("a 405 without Allow: GET, HEAD", req, n);
  if (!strstr(resp, "\r\nCache-Control: no-store\r\n")) report("an answer without Cache-Control: no-store", req, n);
}

enum { RESP_CAP = 1 << 20 };

/* One request with a response buffer of its own (replays, libFuzzer). */
static void check_one(const uint8_t *req, size_t n, const expect *e) {
  char *resp = malloc(RESP_CAP);
  if (!resp) {
    report("out of memory", req, n);
    return;
  }
  check_answer(req, n, e, resp, RESP_CAP);
  free(resp);
}

static bool server_alive(void) {
  if (g_srv.reaped) return false;
  pid_t r = waitpid(g_srv.pid, &g_srv.status, WNOHANG);
  if (r == g_srv.pid) g_srv.reaped = true;
  return !g_srv.reaped;
}

static void check_health(void) {
  http_reply r = {0};
  double t0 = now_s();
  bool ok = http_get(g_srv.port, "/healthz", &r);
  double took = now_s() - t0;
  if (!ok || r.status != 200 || took > 1.0) {
    fprintf(stderr, "fuzz_http: /healthz %s (status %d) after %.3f s\n", ok ? "answered" : "did not answer",
            r.status, took);
    g_failures++;
  }
  http_reply_free(&r);
}

/* Starts the server (once). Returns 77 when the CLI has no HTTP server. */
static int start(void) {
  if (g_started) return 0;
  g_started = true;
  signal(SIGPIPE, SIG_IGN);
  const char *args[] = {"--listen", "127.0.0.1:0", "--interval-ms", "20", "--idle-timeout", "1", NULL};
  if (!server_start(&g_srv, args, 120)) {
    server_stop(&g_srv, SIGKILL, 5);
    char *err = slurp(g_srv.err_path);
    int rc = strstr(err, "without libmicrohttpd") ? 77 : 1;
    fprintf(stderr, "fuzz_http: %s: %s", rc == 77 ? "skip" : "the server did not start", err);
    free(err);
    unlink(g_srv.err_path);
    return rc;
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (start()) return 0;
  expect e = {0};
  check_one(data, size, &e);
  if (!server_alive()) {
    fprintf(stderr, "fuzz_http: the server died\n");
    abort(); /* libFuzzer keeps the input */
  }
  return 0;
}

#ifndef UL_LIBFUZZER
#include "fuzz_replay.h"

static uint64_t g_seed = 1;
static _Thread_local uint64_t t_rng;
static uint64_t rnd(void) { return fuzz_rnd(&t_rng); }

#define PICK(a) (a)[rnd() % (sizeof(a) / sizeof((a)[0]))]

/* Appends text, bounded. */
static void put(uint8_t *out, size_t cap, size_t *n, const char *s, size_t len) {
  if (*n + len > cap) len = cap - *n;
  memcpy(out + *n, s, len);
  *n += len;
}
static void put_str(uint8_t *out, size_t cap, size_t *n, const char *s) { put(out, cap, n, s, strlen(s)); }
#define PUTS(s) put_str(out, cap, &n, (s)) /* s evaluated once: it may be a PICK */

/* A request from the grammar's pieces. Well-formed ones fill `e`; the
 * rest (odd methods, versions, headers, bodies, bytes) expect only a
 * well-formed status line or a close. */
static size_t generate(uint8_t *out, size_t cap, expect *e) {
  static const char *const routes[] = {"/metrics", "/metrics.json", "/healthz", "/readyz", "/", "/report.json"};
  static const char *const others[] = {"/report.json/", "/index.html", "/metrics/", "/metricsjson", "/healthz?verbose=1", "//healthz",
                                       "/../etc/passwd", "/%00", "/metrics%2Ejson", "/readyz#x", "/\xc3\xa9",
                                       "/HEALTHZ", "*", "http://127.0.0.1/healthz", ""};
  static const char *const odd_methods[] = {"get", "GETT", "CONNECT", "TRACE", "PATCH", "OPTIONS", "G",
                                            "", " GET", "\x01\x02", "PRI"};
  static const char *const versions[] = {"HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/0.9", "HTTP/1.1x", "HTTP/",
                                         "", "http/1.1", "HTTP/1.01", "HTTP/9.9"};
  static const char *const headers[] = {
      "Content-Length: 5\r\n", "Content-Length: -1\r\n", "Content-Length: 99999999999999999999\r\n",
      "Content-Length: 3\r\nContent-Length: 4\r\n", "Transfer-Encoding: chunked\r\n",
      "Transfer-Encoding: gzip, chunked\r\n", "Connection: close\r\n", "Connection: keep-alive\r\n",
      "Expect: 100-continue\r\n", "NoColonHere\r\n", " folded: continuation\r\n", ": empty-name\r\n",
      "X-\x7f\x80: \xff\r\n", "Host:\r\n", "Host: a\r\nHost: b\r\n", "Range: bytes=0-1\r\n",
      "Accept-Encoding: gzip\r\n", "X-A: \0nul\r\n"};
  static const char *const bodies[] = {"hello", "0\r\n\r\n", "5\r\nhello\r\n0\r\n\r\n", "zz\r\n",
                                       "ffffffffffffffff\r\nx\r\n", "-1\r\n", ""};
  size_t n = 0;
  memset(e, 0, sizeof *e);
  bool mutate = rnd() % 3 == 0;
  uint64_t shape = rnd() % 10;
  if (shape < 5) {
    /* Well-formed: a method, a path, a version, Host, maybe a header that changes nothing. */
    uint64_t m = rnd() % 6;
    const char *method = m < 3 ? "GET" : m < 5 ? "HEAD" : (rnd() % 2 ? "POST" : "DELETE");
    bool known_route = rnd() % 3 != 0;
    const char *path = known_route ? PICK(routes) : PICK(others);
    PUTS(method);
    PUTS(" ");
    PUTS(path);
    PUTS(rnd() % 2 ? " HTTP/1.1\r\n" : " HTTP/1.0\r\n");
    PUTS("Host: 127.0.0.1\r\n");
    if (rnd() % 2) PUTS("Connection: close\r\n");
    if (rnd() % 3 == 0) PUTS("User-Agent: fuzz_http\r\n");
    PUTS("\r\n");
    /* Paths the server may see normalised or rejected by libmicrohttpd
     * itself (empty, "*", absolute form, fragments) are not judged. */
    bool judged = path[0] == '/' && !strchr(path, '#') && strncmp(path, "//", 2) && !strchr(path, '?') &&
                  !strchr(path, '%') && !strstr(path, "..");
    if (judged) {
      e->known = true;
      e->head = !strcmp(method, "HEAD");
      if (!strcmp(method, "GET") || e->head) {
        bool route = false;
        for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) route |= !strcmp(path, routes[i]);
        e->want_a = route ? 200 : 404;
        /* "/" is 501 in a build without jansson. */
        e->want_b = !route ? 0 : !strcmp(path, "/") ? 501 : 503;
      } else {
        e->want_a = 405;
        e->allow = true;
      }
    }
  } else if (shape < 8) {
    /* Odd pieces everywhere. */
    const char *method = rnd() % 3 ? PICK(odd_methods) : "GET";
    if (!strcmp(method, "G")) put(out, cap, &n, "G\0ET", 4); /* a NUL inside the method */
    else PUTS(method);
    PUTS(" ");
    PUTS(rnd() % 2 ? PICK(routes) : PICK(others));
    PUTS(" ");
    PUTS(PICK(versions));
    PUTS("\r\n");
    int k = (int)(rnd() % 6);
    for (int i = 0; i < k; i++) PUTS(PICK(headers));
    if (rnd() % 8 == 0)
      for (int i = 0; i < 3000; i++) PUTS("X-Many: header\r\n");
    if (rnd() % 8 == 0) {
      PUTS("X-Long: ");
      for (int i = 0; i < 9000; i++) PUTS("aaaaaaaa");
      PUTS("\r\n");
    }
    if (rnd() % 4) PUTS("\r\n");
    if (rnd() % 2) PUTS(PICK(bodies));
  } else if (shape < 9) {
    /* A long URL, or pipelined requests. */
    if (rnd() % 2) {
      PUTS("GET /");
      size_t len = (size_t)(rnd() % 70000);
      for (size_t i = 0; i < len && n < cap - 64; i++) out[n++] = (uint8_t)"abc/%.?=&"[rnd() % 9];
      PUTS(" HTTP/1.1\r\nHost: x\r\n\r\n");
    } else {
      int k = 1 + (int)(rnd() % 20);
      for (int i = 0; i < k; i++) {
        PUTS("GET ");
        PUTS(PICK(routes));
        PUTS(" HTTP/1.1\r\nHost: x\r\n\r\n");
      }
    }
  } else {
    /* Random bytes. */
    size_t len = (size_t)(rnd() % 512);
    for (size_t i = 0; i < len; i++) out[n++] = (uint8_t)rnd();
  }
  if (mutate && n) {
    int k = 1 + (int)(rnd() % 4);
    for (int i = 0; i < k; i++) out[rnd() % n] = (uint8_t)rnd();
    memset(e, 0, sizeof *e);
  }
  return n;
}

#define FUZZ_CLIENTS 8
static double g_deadline;
static atomic_bool g_stop;
static atomic_long g_generated;

static void *client_main(void *arg) {
  t_rng = g_seed * 1000003u + (uint64_t)(uintptr_t)arg;
  /* Each client's request and response buffers, for all its requests. */
  uint8_t *buf = malloc(1 << 17);
  char *resp = malloc(RESP_CAP);
  while (buf && resp && !g_stop && !g_failures && now_s() < g_deadline) {
    expect e;
    size_t n = generate(buf, 1 << 17, &e);
    g_generated++;
    check_answer(buf, n, &e, resp, RESP_CAP);
  }
  free(resp);
  free(buf);
  return NULL;
}

int main(int argc, char **argv) {
  ul_test_watchdog(600);
  double seconds = 20;
  const char *paths[64];
  int npaths = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = atof(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) g_seed = strtoull(argv[++i], NULL, 10);
    else if (npaths < 64) paths[npaths++] = argv[i];
  }
  int rc = start();
  if (rc) return rc;
  /* The server answers at all before the fuzzing starts. */
  http_reply r = {0};
  if (!http_poll(g_srv.port, "/healthz", 200, 60, &r)) {
    fprintf(stderr, "fuzz_http: /healthz never answered 200 (last %d)\n", r.status);
    g_failures++;
  }
  http_reply_free(&r);
  for (int i = 0; i < npaths && !g_failures; i++) fuzz_replay(paths[i], 0);
  /* Clients in parallel: a request that parks its connection until the
   * idle timeout holds one of them, not the run. */
  g_deadline = now_s() + seconds;
  pthread_t threads[FUZZ_CLIENTS];
  int started = 0;
  for (int i = 0; i < FUZZ_CLIENTS; i++)
    if (!pthread_create(&threads[i], NULL, client_main, (void *)(uintptr_t)i)) started++;
  while (!g_failures && server_alive() && now_s() < g_deadline) {
    sleep_ms(250);
    check_health();
  }
  atomic_store(&g_stop, true);
  for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
  if (server_alive()) check_health();
  else {
    fprintf(stderr, "fuzz_http: the server died\n");
    g_failures++;
  }
  bool stopped = server_stop(&g_srv, SIGTERM, 30);
  int before = ul_test_failures;
  if (!stopped) {
    fprintf(stderr, "fuzz_http: the server did not stop within 30 s of SIGTERM\n");
    g_failures++;
  } else {
    expect_clean_exit(&g_srv);
  }
  g_failures += ul_test_failures - before;
  unlink(g_srv.err_path);
  printf("fuzz_http: %ld requests (%ld generated), %ld answered, %ld closed without an answer, %ld ended by the "
         "idle timeout, %d failure(s)\n",
         (long)g_sent, (long)g_generated, (long)g_answered, (long)g_closed_silently, (long)g_idle_closed,
         (int)g_failures);
  return g_failures ? 1 : 0;
}
#endif
