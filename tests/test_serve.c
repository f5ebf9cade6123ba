// ctest-labels: threads
/* `unlost serve`: the real CLI started as a child process, asked over a
 * loopback socket with a minimal HTTP/1.0 client (only the server uses a
 * maintained HTTP library). A clean run must become ready, expose metrics
 * that the strict Prometheus parser accepts, answer /healthz 200 and stop
 * cleanly on SIGTERM; a run whose device is lost over and over must answer
 * /readyz 503 (BROKEN) within a bounded time while /healthz stays 200, and
 * one whose recovery gives up /healthz 503 (FAILED). The server is killed on every path:
 * explicitly, and by PR_SET_PDEATHSIG if this test dies first. */
#include "unlost.h"

#include "prom_parse.h"
#include "serve_child.h"
#include "ul_test.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

/* Some sample of family `fam` carries device="gpu0". */
static bool has_family_for_device(const prom_doc *doc, const char *fam) {
  for (size_t i = 0; i < doc->n; i++) {
    const char *dev = prom_label_get(&doc->samples[i], "device");
    if (!strcmp(doc->samples[i].family, fam) && dev && !strcmp(dev, "gpu0")) return true;
  }
  return false;
}

/* Runs the CLI with args and returns its exit status (-1: no exit); its
 * stderr goes to errbuf (may be NULL). */
static int run_cli_err(const char *const *args, char *errbuf, size_t cap) {
  int fds[2];
  if (pipe(fds)) return -1;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) cli_child_exec(NULL, args, open("/dev/null", O_WRONLY), fds[1], fds);
  close(fds[1]);
  size_t len = 0;
  char sink[512];
  for (;;) {
    char *dst = errbuf && len + 1 < cap ? errbuf + len : sink;
    size_t room = errbuf && len + 1 < cap ? cap - len - 1 : sizeof sink;
    ssize_t k = read(fds[0], dst, room);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    if (dst != sink) len += (size_t)k;
  }
  if (errbuf && cap) errbuf[len] = '\0';
  close(fds[0]);
  int st;
  if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) return -1;
  return WEXITSTATUS(st);
}

static int run_cli(const char *const *args) { return run_cli_err(args, NULL, 0); }

/* ---- tests ---------------------------------------------------------------------- */

static void test_usage_errors(void) {
  EXPECT_EQ(run_cli((const char *const[]){"serve", "--help", NULL}), 0);
  /* Addresses a server cannot own, and labels that would break a format. */
  EXPECT_EQ(run_cli((const char *const[]){"serve", "--listen", "224.0.0.1:8080", NULL}), 2);
  EXPECT_EQ(run_cli((const char *const[]){"serve", "--listen", "255.255.255.255:8080", NULL}), 2);
  EXPECT_EQ(run_cli((const char *const[]){"serve", "--listen", "[ff02::1]:8080", NULL}), 2);
  EXPECT_EQ(run_cli((const char *const[]){"serve", "--listen", "127.0.0.1:0", "--label", "bad\xff", NULL}), 2);
  EXPECT_EQ(run_cli((const char *const[]){"serve", "--listen", "127.0.0.1:0", "--label", "two\nlines", NULL}), 2);
  /* The wildcard is served, with a warning on stderr. */
  char err[8192];
  int rc = run_cli_err((const char *const[]){"serve", "--listen", "0.0.0.0:0", "--duration", "0.2", NULL}, err,
                       sizeof err);
  if (rc != 0 && !(rc > 0 && only_unloaded_driver_leaks(err)))
    UL__FAIL_AT("serve --listen 0.0.0.0:0 exited %d: %s", rc, err);
  EXPECT_TRUE(strstr(err, "every interface") != NULL);
  /* Names are not resolved; localhost alone is taken, as 127.0.0.1. */
  EXPECT_EQ(run_cli((const char *const[]){"serve", "--listen", "example.com:8080", NULL}), 2);
  rc = run_cli_err((const char *const[]){"serve", "--listen", "localhost:0", "--duration", "0.2", NULL}, err,
                   sizeof err);
  if (rc != 0 && !(rc > 0 && only_unloaded_driver_leaks(err)))
    UL__FAIL_AT("serve --listen localhost:0 exited %d: %s", rc, err);
  EXPECT_EQ(run_cli((const char *const[]){"serve", "--listen", "127.0.0.1:65536", NULL}), 2);
  EXPECT_EQ(run_cli((const char *const[]){"serve", "--listen", "127.0.0.1:", NULL}), 2);
  EXPECT_EQ(run_cli((const char *const[]){"serve", "--listen", "127.0.0.1:-1", NULL}), 2);
  EXPECT_EQ(run_cli((const char *const[]){"serve", "--listen", "::1:8080", NULL}), 2);
  EXPECT_EQ(run_cli((const char *const[]){"serve", "--listen", "127.0.0.1:0", "--workload", "nope", NULL}), 2);
  EXPECT_EQ(run_cli((const char *const[]){"serve", "--listen", "127.0.0.1:0", "--interval-ms", "x", NULL}), 2);
}

static void test_clean_run(void) {
  server s;
  bool started = server_start(&s, (const char *const[]){"--listen", "127.0.0.1:0", "--workload", "basic",
                                                        "--duration", "20", "--interval-ms", "20", NULL},
                              30);
  http_reply r = {0};
  prom_doc doc = {0};
  if (!started) {
    UL__FAIL_AT("the server did not start");
    goto out;
  }
  if (!http_poll(s.port, "/readyz", 200, 30, &r)) {
    UL__FAIL_AT("/readyz never answered 200 (last: %d %s)", r.status, r.body ? r.body : "");
    goto out;
  }
  EXPECT_TRUE(!strcmp(r.body, "ready\n"));

  http_reply_free(&r);
  EXPECT_TRUE(http_get(s.port, "/metrics", &r));
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(strstr(r.head, "Content-Type: text/plain; version=0.0.4") != NULL);
  char err[256] = "";
  if (!r.body || prom_parse(r.body, &doc, err, sizeof err) != 0) {
    UL__FAIL_AT("prom_parse rejected /metrics: %s", err);
    goto out;
  }
  static const char *const fams[] = {"unlost_device_state",   "unlost_device_losses_total",
                                     "unlost_recoveries_total", "unlost_recovery_seconds",
                                     "unlost_live_objects",   "unlost_live_bytes",
                                     "unlost_breaker_state",  "unlost_submit_seconds"};
  for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++)
    if (!has_family_for_device(&doc, fams[i])) UL__FAIL_AT("/metrics lacks %s{device=\"gpu0\"}", fams[i]);
  double v = -1;
  EXPECT_TRUE(prom_get(&doc, "unlost_device_state", "device=gpu0", &v) && v == 0);
  EXPECT_TRUE(prom_get(&doc, "unlost_breaker_state", "device=gpu0", &v) && v == 0);
  EXPECT_TRUE(prom_get(&doc, "unlost_serve_workload_runs_total", "device=gpu0,result=ok", &v) && v >= 1);
  char version[64];
  snprintf(version, sizeof version, "version=%s", ul_version());
  EXPECT_TRUE(prom_get(&doc, "unlost_build_info", version, &v) && v == 1);

  http_reply_free(&r);
  EXPECT_TRUE(http_get(s.port, "/healthz", &r));
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.body && !strcmp(r.body, "ok\n"));

  http_reply_free(&r);
  EXPECT_TRUE(http_get(s.port, "/metrics.json", &r));
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(strstr(r.head, "Content-Type: application/json") != NULL);
  EXPECT_TRUE(r.body && !strncmp(r.body, "{\"devices\":[", 12) && strstr(r.body, "\"gpu0\""));

  /* The report page and its JSON. */
  http_reply_free(&r);
  EXPECT_TRUE(http_get(s.port, "/", &r));
#ifdef UL_HAVE_JANSSON_CLI
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(strstr(r.head, "Content-Type: text/html") != NULL);
  EXPECT_TRUE(r.body && !strncmp(r.body, "<!DOCTYPE html>", 15) && strstr(r.body, "data-series=\"kind\""));
#else
  EXPECT_EQ(r.status, 501);
#endif
  http_reply_free(&r);
  EXPECT_TRUE(http_get(s.port, "/report.json", &r));
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(strstr(r.head, "Content-Type: application/json") != NULL);
  EXPECT_TRUE(r.body && strstr(r.body, "\"timeline\":{") && strstr(r.body, "\"device\":{\"label\":\"gpu0\""));

  http_reply_free(&r);
  EXPECT_TRUE(http_get(s.port, "/nope", &r));
  EXPECT_EQ(r.status, 404);

  /* SIGTERM: the worker, the daemon, the device and the env stop; exit 0. */
  if (!server_stop(&s, SIGTERM, 20)) UL__FAIL_AT("the server did not stop within 20 s of SIGTERM");
  else expect_clean_exit(&s);
out:
  prom_free(&doc);
  http_reply_free(&r);
  if (started || s.pid > 0) server_stop(&s, SIGKILL, 5);
  if (s.err_path[0]) unlink(s.err_path);
}

static void test_broken_device(void) {
  /* A loss every 30 WebGPU calls (the basic workload makes about 400):
   * three losses in a row open the breaker; fail-fast keeps it open and
   * the long open wait keeps probes away while the test looks. */
  server s;
  bool started = server_start(&s, (const char *const[]){"--listen", "127.0.0.1:0", "--workload", "basic",
                                                        "--duration", "20", "--interval-ms", "20",
                                                        "--chaos", "loss-every=30", "--fail-fast",
                                                        "--open-wait-ms", "5000", NULL},
                              30);
  http_reply r = {0};
  prom_doc doc = {0};
  if (!started) {
    UL__FAIL_AT("the server did not start");
    goto out;
  }
  /* BROKEN (the breaker open): not ready, but alive -- a restart would
   * not help, recovery brings it back (docs/kubernetes.md). */
  bool broken = false;
  for (int i = 0; i < 150 && !broken; i++) { /* 15 s */
    http_reply_free(&r);
    broken = http_get(s.port, "/readyz", &r) && r.status == 503 && r.body && strstr(r.body, "BROKEN");
    if (!broken) usleep(100000);
  }
  if (!broken) {
    UL__FAIL_AT("/readyz never answered 503 BROKEN under loss-every=30 (last: %d %s)", r.status,
                r.body ? r.body : "");
    goto out;
  }
  /* One line that says why. */
  EXPECT_TRUE(!strncmp(r.body, "not ready: BROKEN", 17));
  EXPECT_TRUE(strchr(r.body, '\n') == r.body + r.body_len - 1);
  printf("# /readyz: %s", r.body);
  http_reply_free(&r);
  EXPECT_TRUE(http_get(s.port, "/healthz", &r));
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.body && !strncmp(r.body, "ok (BROKEN", 10));
  if (r.body) printf("# /healthz: %s", r.body);

  http_reply_free(&r);
  EXPECT_TRUE(http_get(s.port, "/metrics", &r));
  EXPECT_EQ(r.status, 200);
  char err[256] = "";
  if (!r.body || prom_parse(r.body, &doc, err, sizeof err) != 0) {
    UL__FAIL_AT("prom_parse rejected /metrics under chaos: %s", err);
    goto out;
  }
  double losses = 0;
  EXPECT_TRUE(prom_get(&doc, "unlost_device_losses_total", "device=gpu0", &losses) && losses >= 1);

  if (!server_stop(&s, SIGTERM, 20)) UL__FAIL_AT("the server did not stop within 20 s of SIGTERM");
  else expect_clean_exit(&s);
out:
  prom_free(&doc);
  http_reply_free(&r);
  if (started || s.pid > 0) server_stop(&s, SIGKILL, 5);
  if (s.err_path[0]) unlink(s.err_path);
}

static void test_failed_device(void) {
  /* Every recovery's device request refused: the device FAILS for good,
   * and only then does liveness fail (a restart is the cure). */
  server s;
  bool started = server_start(&s, (const char *const[]){"--listen", "127.0.0.1:0", "--workload", "basic",
                                                        "--duration", "20", "--interval-ms", "20",
                                                        "--chaos", "loss-every=30,recovery-fail=all", NULL},
                              30);
  http_reply r = {0};
  if (!started) {
    UL__FAIL_AT("the server did not start");
    goto out;
  }
  if (!http_poll(s.port, "/healthz", 503, 15, &r)) {
    UL__FAIL_AT("/healthz never answered 503 with recovery refused (last: %d %s)", r.status, r.body ? r.body : "");
    goto out;
  }
  EXPECT_TRUE(r.body && !strncmp(r.body, "unhealthy: device FAILED", 24));
  if (r.body) printf("# /healthz: %s", r.body);
  http_reply_free(&r);
  EXPECT_TRUE(http_get(s.port, "/readyz", &r));
  EXPECT_EQ(r.status, 503);
  if (!server_stop(&s, SIGTERM, 20)) UL__FAIL_AT("the server did not stop within 20 s of SIGTERM");
out:
  http_reply_free(&r);
  if (started || s.pid > 0) server_stop(&s, SIGKILL, 5);
  if (s.err_path[0]) unlink(s.err_path);
}

/* Slow clients (slowloris) on loopback: N connections that each send a
 * request one byte at a time, every 500 ms, and never finish it. /healthz,
 * asked on a new connection meanwhile, answers within 1 s every time. */
static void slowloris(int clients) {
  server s;
  bool started = server_start(&s, (const char *const[]){"--listen", "127.0.0.1:0", "--duration", "40",
                                                        "--interval-ms", "50", NULL},
                              30);
  int *fd = calloc((size_t)clients, sizeof *fd);
  http_reply r = {0};
  if (!started || !fd) {
    UL__FAIL_AT("the server did not start");
    goto out;
  }
  if (!http_poll(s.port, "/healthz", 200, 15, &r)) {
    UL__FAIL_AT("/healthz never answered 200 before the slow clients came");
    goto out;
  }
  int open_fds = 0;
  for (int i = 0; i < clients; i++) {
    fd[i] = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)s.port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd[i] >= 0 && connect(fd[i], (struct sockaddr *)&a, sizeof a) == 0) open_fds++;
  }
  printf("# %d slow clients connected\n", open_fds);
  EXPECT_EQ(open_fds, clients);
  static const char req[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaa";
  double worst = 0;
  int probes = 0, answered = 0;
  for (size_t k = 0; k < 16; k++) {
    for (int i = 0; i < clients; i++)
      if (fd[i] >= 0) (void)!send(fd[i], req + (k % (sizeof req - 1)), 1, MSG_NOSIGNAL);
    double t0 = now_s();
    http_reply_free(&r);
    bool ok = http_get(s.port, "/healthz", &r);
    double dt = now_s() - t0;
    probes++;
    if (ok && r.status == 200) answered++;
    if (dt > worst) worst = dt;
    sleep_ms(500);
  }
  printf("# %d clients: %d of %d probes answered 200, slowest %.3f s\n", clients, answered, probes, worst);
  EXPECT_EQ(answered, probes);
  EXPECT_TRUE(worst < 1.0);
  for (int i = 0; i < clients; i++)
    if (fd[i] >= 0) close(fd[i]);
  if (!server_stop(&s, SIGTERM, 20)) UL__FAIL_AT("the server did not stop within 20 s of SIGTERM");
  else expect_clean_exit(&s);
out:
  free(fd);
  http_reply_free(&r);
  if (started || s.pid > 0) server_stop(&s, SIGKILL, 5);
  if (s.err_path[0]) unlink(s.err_path);
}

static void test_slowloris_64(void) { slowloris(64); }
static void test_slowloris_256(void) { slowloris(256); }

/* --duration: the server stops by itself and exits 0. */
static void test_duration(void) {
  char err[4096];
  int rc = run_cli_err((const char *const[]){"serve", "--listen", "127.0.0.1:0", "--duration", "0.5", NULL},
                       err, sizeof err);
  if (rc != 0 && !(rc > 0 && only_unloaded_driver_leaks(err)))
    UL__FAIL_AT("serve --duration 0.5 exited %d: %s", rc, err);
}

int main(void) {
  ul_test_watchdog(240);
  signal(SIGPIPE, SIG_IGN);
  if (access(CLI, X_OK) != 0) {
    printf("FAIL: %s is missing\n", CLI);
    return 1;
  }
  char err[4096];
  if (run_cli_err((const char *const[]){"serve", "--listen", "127.0.0.1:0", "--duration", "0.01", NULL}, err,
                  sizeof err) == 1 &&
      strstr(err, "without libmicrohttpd")) {
    printf("skip: %s", err); /* the CLI was built without an HTTP server */
    return 77;           /* CTest's SKIP_RETURN_CODE: a skip, not a pass */
  }
  RUN_TEST(test_usage_errors);
  RUN_TEST(test_duration);
  RUN_TEST(test_clean_run);
  RUN_TEST(test_broken_device);
  RUN_TEST(test_failed_device);
  RUN_TEST(test_slowloris_64);
  RUN_TEST(test_slowloris_256);
  TEST_MAIN_END();
}
