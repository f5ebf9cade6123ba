/* unlost serve: run a built-in workload in a loop on one device and expose
 * its health over HTTP (libmicrohttpd): /metrics (Prometheus text 0.0.4),
 * /metrics.json, /healthz (liveness of the device) and /readyz (readiness
 * to take work).
 *
 * Threads: the main thread waits for SIGINT/SIGTERM or the end of
 * --duration (the signals are blocked in every thread and taken with
 * sigtimedwait, so no handler runs anywhere); one worker thread runs the
 * workload; libmicrohttpd's own thread pool answers requests. The handlers
 * only read: ul_device_health, ul_device_get_state, ul_metrics and
 * ul_device_report are safe to call while the worker uses the device (the
 * report waits for a recovery in progress). Shutdown stops the daemon first
 * (no handler touches the device afterwards), then the worker, then
 * destroys the device and the env. */
#include "cli.h"
#include "page.h"
#include "workload.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

#ifdef UL_HAVE_MHD
#include <microhttpd.h>
#endif

static void serve_usage(FILE *f) {
  fprintf(f,
          "usage: unlost serve [--listen HOST:PORT] [--workload NAME] [--chaos SPEC]\n"
          "                    [--duration SECONDS] [--interval-ms MS] [--label NAME]\n"
          "                    [--fail-fast] [--open-wait-ms MS] [--consecutive-losses N]\n"
          "                    [--idle-timeout SECONDS]\n"
          "\n"
          "Runs a built-in workload in a loop on one device and serves its health\n"
          "over HTTP:\n"
          "  GET /metrics       Prometheus text format 0.0.4 (ul_metrics), plus\n"
          "                     unlost_serve_workload_runs_total{result=ok|error}\n"
          "  GET /metrics.json  the same numbers as JSON\n"
          "  GET /healthz       liveness: 200 \"ok\" unless the device FAILED for good\n"
          "                     (recovery gave up): then 503 and a one-line reason\n"
          "  GET /readyz        200 when the device is READY or FALLBACK, its breaker\n"
          "                     is not BROKEN or HALF_OPEN and a workload run has\n"
          "                     succeeded at least once; else 503 and the reason\n"
          "  GET /              the live report page (as `unlost report --html`):\n"
          "                     memory over time, events, losses with the work in\n"
          "                     flight, live objects (501 when built without jansson)\n"
          "  GET /report.json   the device's JSON report (ul_device_report)\n"
          "Any other path answers 404, any method but GET and HEAD 405.\n"
          "\n"
          "  --listen HOST:PORT   address to listen on (default: 127.0.0.1:9464, this\n"
          "                       host only). HOST is an IP literal: 127.0.0.1 (or\n"
          "                       localhost), [::1],\n"
          "                       or 0.0.0.0 / [::] for every interface (with a warning:\n"
          "                       other hosts can then reach it); multicast and\n"
          "                       broadcast addresses are refused. PORT is 1..65535,\n"
          "                       or 0 for a free port. Prints\n"
          "                       \"listening on http://HOST:PORT\" once listening.\n"
          "  --label NAME         printable UTF-8, at most 128 bytes\n"
          "  --workload NAME      built-in workload (default: basic)\n"
          "  --chaos SPEC         fault schedule, e.g. loss-every=50 or\n"
          "                       loss-rate=0.2,seed=3 (default: $UNLOST_CHAOS, else none)\n"
          "  --duration SECONDS   stop after this long (default: until SIGINT/SIGTERM)\n"
          "  --interval-ms MS     pause between workload runs (default: 100)\n"
          "  --idle-timeout SECONDS  close a connection idle this long, whole seconds\n"
          "                       1..3600 (default: 5)\n"
          "  --label NAME         the device's label in metrics (default: gpu0)\n"
          "  --fail-fast          a BROKEN device fails calls fast (UL_ERR_BREAKER_OPEN)\n"
          "                       instead of moving the work to the fallback adapter\n"
          "  --open-wait-ms MS    breaker's first wait before probing (default: 1000)\n"
          "  --consecutive-losses N  losses in a row that open the breaker (default: 3)\n"
          "\n"
          "Exit status: 0 stopped cleanly (signal or --duration), 1 failure (no\n"
          "device, cannot listen, built without libmicrohttpd), 2 usage error.\n");
}

/* ---- strict argument parsing ------------------------------------------------- */

/* A whole decimal number in [lo, hi]; no sign, no spaces, no junk. */
/* ---- the server's state -------------------------------------------------------- */

#ifdef UL_HAVE_MHD
typedef struct serve_state {
  ul_device *dev;
  const char *label;
  workload_fn fn;
  unsigned interval_ms;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool stop; /* under mu */
  atomic_uint_fast64_t runs_ok, runs_failed;
  char last_error[256]; /* under mu */
} serve_state;

static void *worker_main(void *arg) {
  serve_state *st = arg;
  workload_result *res = malloc(sizeof *res);
  if (!res) {
    fprintf(stderr, "unlost serve: out of host memory\n");
    return NULL;
  }
  for (;;) {
    pthread_mutex_lock(&st->mu);
    bool stop = st->stop;
    pthread_mutex_unlock(&st->mu);
    if (stop) break;
    ul_status s = st->fn(st->dev, res);
    if (s == UL_OK) {
      atomic_fetch_add(&st->runs_ok, 1);
    } else {
      uint_fast64_t n = atomic_fetch_add(&st->runs_failed, 1);
      pthread_mutex_lock(&st->mu);
      snprintf(st->last_error, sizeof st->last_error, "%s: %s", ul_status_name(s), ul_last_error());
      pthread_mutex_unlock(&st->mu);
      /* Log the first failure and then every 100th, not one line per run. */
      if (n % 100 == 0)
        fprintf(stderr, "unlost serve: workload run failed (%llu so far): %s: %s\n",
                (unsigned long long)n + 1, ul_status_name(s), ul_last_error());
    }
    /* Wait interval_ms, or less when asked to stop. */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += st->interval_ms / 1000;
    until.tv_nsec += (long)(st->interval_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&st->mu);
    while (!st->stop) {
      int rc = pthread_cond_timedwait(&st->cv, &st->mu, &until);
      if (rc == ETIMEDOUT) break;
    }
    pthread_mutex_unlock(&st->mu);
  }
  free(res);
  return NULL;
}


/* Appends the serve tool's own counter family to the library's text. */
static char *metrics_with_runs(const char *lib, const serve_state *st) {
  char label[256];
  size_t k = 0;
  for (const char *p = st->label; *p && k + 3 < sizeof label; p++) {
    if (*p == '\\' || *p == '"') label[k++] = '\\', label[k++] = *p;
    else if (*p == '\n') label[k++] = '\\', label[k++] = 'n';
    else label[k++] = *p;
  }
  label[k] = '\0';
  unsigned long long ok = atomic_load(&st->runs_ok), bad = atomic_load(&st->runs_failed);
  const char *fmt =
      "# HELP unlost_serve_workload_runs_total Workload runs of `unlost serve` by result.\n"
      "# TYPE unlost_serve_workload_runs_total counter\n"
      "unlost_serve_workload_runs_total{device=\"%s\",result=\"ok\"} %llu\n"
      "unlost_serve_workload_runs_total{device=\"%s\",result=\"error\"} %llu\n";
  int extra = snprintf(NULL, 0, fmt, label, ok, label, bad);
  if (extra < 0) return NULL;
  size_t n = strlen(lib);
  char *out = malloc(n + (size_t)extra + 1);
  if (!out) return NULL;
  memcpy(out, lib, n);
  snprintf(out + n, (size_t)extra + 1, fmt, label, ok, label, bad);
  return out;
}

/* The live page of the report `json` (page.c), malloc'd; NULL without
 * jansson or when out of memory. */
static char *serve_page(const char *json, serve_state *st) {
#ifdef UL_HAVE_JANSSON
  json_error_t e;
  json_t *root = json_loads(json, 0, &e);
  if (!root) return NULL;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (f) {
    char title[160];
    snprintf(title, sizeof title, "unlost serve: %s", st->label);
    int rc = page_write(f, root, NULL, title);
    if (fclose(f) != 0 || rc != 0) {
      free(buf);
      buf = NULL;
    }
  }
  json_decref(root);
  return buf;
#else
  (void)json;
  (void)st;
  return NULL;
#endif
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, const char *type, char *body,
                             enum MHD_ResponseMemoryMode mode) {
  struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), body, mode);
  if (!r) {
    if (mode == MHD_RESPMEM_MUST_FREE) free(body);
    return MHD_NO;
  }
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
  enum MHD_Result ret = MHD_queue_response(c, code, r);
  MHD_destroy_response(r);
  return ret;
}

/* 200 with JSON that unlost allocated (released here). */
static enum MHD_Result reply_json(struct MHD_Connection *c, char *text) {
  enum MHD_Result ret = reply(c, 200, "application/json", text, MHD_RESPMEM_MUST_COPY);
  ul_free(text);
  return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned code, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf - 1, fmt, ap);
  va_end(ap);
  /* One line, whatever the reason text held. */
  for (char *p = buf; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
  strcat(buf, "\n");
  return reply(c, code, "text/plain; charset=utf-8", buf, MHD_RESPMEM_MUST_COPY);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_size, void **con_cls) {
  (void)version;
  (void)upload_data;
  serve_state *st = cls;
  /* A request body, if any, is ignored: GET and HEAD only. */
  if (*upload_size) {
    *upload_size = 0;
    return MHD_YES;
  }
  (void)con_cls;
  bool head = !strcmp(method, MHD_HTTP_METHOD_HEAD);
  if (!head && strcmp(method, MHD_HTTP_METHOD_GET)) {
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen("method not allowed\n"), (void *)"method not allowed\n",
                                        MHD_RESPMEM_PERSISTENT);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_METHOD_NOT_ALLOWED, r);
    MHD_destroy_response(r);
    return ret;
  }
  if (!strcmp(url, "/metrics") || !strcmp(url, "/metrics.json")) {
    bool json = url[8] == '.';
    char *text = NULL;
    ul_device *devs[1] = {st->dev};
    ul_status s = ul_metrics(devs, 1, json ? UL_METRICS_JSON : UL_METRICS_PROMETHEUS, &text);
    if (s) return reply_text(c, 500, "metrics failed: %s: %s", ul_status_name(s), ul_last_error());
    if (json) return reply_json(c, text);
    char *all = metrics_with_runs(text, st);
    ul_free(text);
    if (!all) return reply_text(c, 500, "metrics failed: out of host memory");
    return reply(c, 200, "text/plain; version=0.0.4; charset=utf-8", all, MHD_RESPMEM_MUST_FREE);
  }
  if (!strcmp(url, "/healthz")) {
    ul_health_snapshot h;
    ul_status s = ul_device_health(st->dev, &h);
    if (s) return reply_text(c, 503, "unhealthy: health unavailable: %s", ul_status_name(s));
    /* Liveness fails only when a restart is the cure (docs/kubernetes.md):
     * the device FAILED for good. A BROKEN or HALF_OPEN breaker is the
     * readiness probe's matter: recovery and its probes bring it back. */
    ul_device_state ds = ul_device_get_state(st->dev);
    if (ds == UL_DEVICE_FAILED) return reply_text(c, 503, "unhealthy: device FAILED (recovery gave up)");
    if (h.state == UL_HEALTH_BROKEN || h.state == UL_HEALTH_HALF_OPEN)
      return reply_text(c, 200, "ok (%s, recovering: /readyz fails until it is back)", ul_health_state_name(h.state));
    return reply_text(c, 200, "ok");
  }
  if (!strcmp(url, "/readyz")) {
    ul_device_state ds = ul_device_get_state(st->dev);
    if (ds != UL_DEVICE_READY && ds != UL_DEVICE_FALLBACK)
      return reply_text(c, 503, "not ready: device %s", ul_device_state_name(ds));
    ul_health_snapshot h;
    if (ul_device_health(st->dev, &h) == UL_OK && (h.state == UL_HEALTH_BROKEN || h.state == UL_HEALTH_HALF_OPEN))
      return reply_text(c, 503, "not ready: %s (%s)", ul_health_state_name(h.state),
                        h.reason[0] ? h.reason : "no reason recorded");
    if (atomic_load(&st->runs_ok) == 0) {
      char last[256];
      pthread_mutex_lock(&st->mu);
      snprintf(last, sizeof last, "%s", st->last_error);
      pthread_mutex_unlock(&st->mu);
      return reply_text(c, 503, "not ready: no workload run has succeeded yet%s%s", last[0] ? "; last: " : "",
                        last);
    }
    return reply_text(c, 200, "ready");
  }
  if (!strcmp(url, "/report.json") || !strcmp(url, "/")) {
    /* The device's report (it waits out a recovery in progress: the
     * report reads the device's objects under its lock). */
    char *json = NULL;
    ul_status s = ul_device_report(st->dev, UL_REPORT_JSON, &json);
    if (s) return reply_text(c, 500, "report failed: %s: %s", ul_status_name(s), ul_last_error());
    if (url[1] == 'r') return reply_json(c, json);
    char *page = serve_page(json, st);
    ul_free(json);
    if (!page) return reply_text(c, 501, "page unavailable: built without jansson (Debian: libjansson-dev)");
    return reply(c, 200, "text/html; charset=utf-8", page, MHD_RESPMEM_MUST_FREE);
  }
  return reply_text(c, 404, "not found");
}

static void mhd_log(void *cls, const char *fmt, va_list ap) {
  (void)cls;
  fputs("unlost serve: http: ", stderr);
  vfprintf(stderr, fmt, ap);
}

#endif /* UL_HAVE_MHD */

int cmd_serve(int argc, char **argv) {
  const char *listen = NULL, *workload = "basic", *chaos = NULL, *label = "gpu0";
  double duration = 0;
  uint64_t interval_ms = 100, open_wait_ms = 0, consecutive = 0, idle_timeout_s = 5;
  bool fail_fast = false;
  const cli_opt opts[] = {CLI_O("fail-fast", CLI_FLAG, &fail_fast),
                          CLI_O("listen", CLI_TEXT, &listen),
                          CLI_O("workload", CLI_TEXT, &workload),
                          CLI_O("chaos", CLI_TEXT, &chaos),
                          CLI_O("label", CLI_TEXT, &label),
                          {"duration", CLI_F64, &duration, .flo = 1e-6, .fhi = 1e7},
                          {"interval-ms", CLI_U64, &interval_ms, .hi = 3600000},
                          {"idle-timeout", CLI_U64, &idle_timeout_s, .lo = 1, .hi = 3600},
                          {"open-wait-ms", CLI_U64, &open_wait_ms, .lo = 1, .hi = 3600000},
                          {"consecutive-losses", CLI_U64, &consecutive, .lo = 1, .hi = 1000000},
                          {0}};
  int prc = cli_parse("serve", argc, argv, opts, CLI_NO_OPERANDS, serve_usage, NULL);
  if (prc) return prc == 1 ? 0 : 2;
  if (!listen) listen = "127.0.0.1:9464"; /* this host only, unless told otherwise */
  if (!cli_label_ok(label)) {
    fprintf(stderr, "unlost serve: --label must be printable UTF-8 of 1 to 128 bytes\n");
    return 2;
  }
  cli_listen_addr addr;
  char why[160];
  if (!cli_parse_listen(listen, &addr, why, sizeof why)) {
    fprintf(stderr, "unlost serve: bad --listen '%s': %s\n", listen, why);
    return 2;
  }
  if (addr.wildcard)
    fprintf(stderr, "unlost serve: warning: listening on every interface (%s): other hosts can reach "
                    "/metrics and /healthz; use 127.0.0.1 or [::1] to keep it on this host\n", listen);
  workload_fn fn = workload_find(workload);
  if (!fn) {
    fprintf(stderr, "unlost serve: unknown workload '%s' (known: %s)\n", workload, workload_names);
    return 2;
  }
#ifndef UL_HAVE_MHD
  (void)fn;
  (void)label;
  (void)chaos;
  (void)duration;
  (void)fail_fast;
  fprintf(stderr, "unlost serve: this unlost was built without libmicrohttpd; install it "
                  "(Debian: libmicrohttpd-dev) and rebuild\n");
  return 1;
#else
  /* Signals are taken by sigtimedwait on this thread only: block them
   * before any thread starts, so every thread inherits the mask. */
  sigset_t sigs, old;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &sigs, &old);
  signal(SIGPIPE, SIG_IGN);

  int rc = 1;
  ul_env *env = NULL;
  ul_device *dev = NULL;
  struct MHD_Daemon *d = NULL;
  serve_state st;
  memset(&st, 0, sizeof st);
  pthread_mutex_init(&st.mu, NULL);
  pthread_cond_init(&st.cv, NULL);
  bool worker_started = false;
  pthread_t worker;

  ul_env_desc ed = {.chaos = chaos};
  ul_status s = ul_env_create(&ed, &env);
  if (s) {
    fprintf(stderr, "unlost serve: %s: %s\n", ul_status_name(s), ul_last_error());
    goto done;
  }
  ul_device_desc dd = {.label = label};
  /* A service recovers quickly and keeps trying. */
  dd.recovery.backoff_initial_ms = 10;
  dd.recovery.backoff_max_ms = 500;
  dd.health.on_broken = fail_fast ? UL_BROKEN_FAIL_FAST : UL_BROKEN_FALLBACK;
  dd.health.open_wait_ms = (uint32_t)open_wait_ms;
  dd.health.consecutive_losses = (uint32_t)consecutive;
  s = ul_device_create(env, &dd, &dev);
  if (s) {
    fprintf(stderr, "unlost serve: %s: %s\n", ul_status_name(s), ul_last_error());
    goto done;
  }
  /* Calls during a recovery fail after 10 s rather than 30: shutdown waits
   * for the worker's current call. */
  ul_device_set_recovery_wait(dev, 10000);

  st.dev = dev;
  st.label = label;
  st.fn = fn;
  st.interval_ms = (unsigned)interval_ms;

  /* Slow clients must not take the health endpoints off the air: the
   * poll threads (epoll) serve many connections each, an idle connection
   * is closed after --idle-timeout (5 s), and the connection budget is what the descriptor
   * limit allows (raised to its hard limit), up to 4096. */
  struct rlimit nofile;
  unsigned int conn_limit = 64;
  if (getrlimit(RLIMIT_NOFILE, &nofile) == 0) {
    rlim_t want = nofile.rlim_max == RLIM_INFINITY || nofile.rlim_max > 8192 ? 8192 : nofile.rlim_max;
    if (nofile.rlim_cur < want) {
      nofile.rlim_cur = want;
      setrlimit(RLIMIT_NOFILE, &nofile);
      getrlimit(RLIMIT_NOFILE, &nofile);
    }
    if (nofile.rlim_cur > 128) conn_limit = (unsigned int)(nofile.rlim_cur - 64 < 4096 ? nofile.rlim_cur - 64 : 4096);
  }
  unsigned flags = MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
  if (addr.family == AF_INET6) flags |= MHD_USE_IPv6;
  const struct sockaddr *sa =
      addr.family == AF_INET6 ? (const struct sockaddr *)&addr.v6 : (const struct sockaddr *)&addr.v4;
  d = MHD_start_daemon(flags, (uint16_t)addr.port, NULL, NULL, on_request, &st,
                       MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
                       MHD_OPTION_SOCK_ADDR, sa,
                       MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)4,
                       MHD_OPTION_CONNECTION_LIMIT, conn_limit,
                       MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)idle_timeout_s,
                       MHD_OPTION_END);
  if (!d) {
    fprintf(stderr, "unlost serve: cannot listen on %s (address in use or not local?)\n", listen);
    goto done;
  }
  unsigned port = addr.port;
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
  if (info && info->port) port = info->port;
  if (!port) {
    fprintf(stderr, "unlost serve: could not learn the port the daemon bound\n");
    goto done;
  }

  if (pthread_create(&worker, NULL, worker_main, &st)) {
    fprintf(stderr, "unlost serve: cannot start the worker thread\n");
    goto done;
  }
  worker_started = true;

  printf(addr.family == AF_INET6 ? "listening on http://[%s]:%u\n" : "listening on http://%s:%u\n",
         addr.host, port);
  fflush(stdout);

  struct timespec t0, now;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    struct timespec wait = {0, 200000000L};
    if (duration > 0) {
      clock_gettime(CLOCK_MONOTONIC, &now);
      double left = duration - ((double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9);
      if (left <= 0) {
        fprintf(stderr, "unlost serve: --duration reached, stopping\n");
        break;
      }
      if (left < 0.2) wait.tv_nsec = (long)(left * 1e9) + 1;
    }
    int sig = sigtimedwait(&sigs, NULL, &wait);
    if (sig == SIGINT || sig == SIGTERM) {
      fprintf(stderr, "unlost serve: %s, stopping\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
      break;
    }
  }
  rc = 0;

done:
  if (d) MHD_stop_daemon(d);
  if (worker_started) {
    pthread_mutex_lock(&st.mu);
    st.stop = true;
    pthread_cond_broadcast(&st.cv);
    pthread_mutex_unlock(&st.mu);
    pthread_join(worker, NULL);
  }
  if (dev) {
    s = ul_device_destroy(dev);
    if (s && s != UL_ERR_BUSY) {
      fprintf(stderr, "unlost serve: destroy device: %s: %s\n", ul_status_name(s), ul_last_error());
    } else if (s == UL_ERR_BUSY) {
      fprintf(stderr, "unlost serve: the workload leaked objects (released at exit)\n");
    }
  }
  if (env) ul_env_destroy(env);
  if (rc == 0)
    fprintf(stderr, "unlost serve: %llu workload runs ok, %llu failed\n",
            (unsigned long long)atomic_load(&st.runs_ok), (unsigned long long)atomic_load(&st.runs_failed));
  pthread_cond_destroy(&st.cv);
  pthread_mutex_destroy(&st.mu);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
#endif
}
