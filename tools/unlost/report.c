/* unlost report: reads a JSON report (ul_device_report_write,
 * $UNLOST_REPORT) with jansson and prints a summary; --html writes the
 * self-contained page (page.c), --diff compares with an older report. */
#include "cli.h"
#include "page.h"

#include <errno.h>
#include <string.h>

static void report_usage(FILE *f) {
  fprintf(f,
          "usage: unlost report FILE.json [--html OUT.html] [--diff OLDER.json]\n"
          "\n"
          "Summarizes a report written by ul_device_report_write or $UNLOST_REPORT:\n"
          "memory by kind, the top sites, churn, each loss with the work that was in\n"
          "flight, each recovery with its phases, and the timeline's size.\n"
          "\n"
          "  --html OUT.html   also write one self-contained page (no network): memory\n"
          "                    over time by kind or label, every event on the same time\n"
          "                    axis, the losses, live objects, top and churning sites\n"
          "  --diff OLDER.json what grew since an older report (kinds, labels, sites)\n"
          "\n"
          "Exit status: 0 done, 1 a file could not be read or written, 2 usage error.\n");
}

#ifdef UL_HAVE_JANSSON

static json_t *load(const char *path) {
  json_error_t e;
  json_t *root = json_load_file(path, 0, &e);
  if (!root) {
    fprintf(stderr, "unlost report: %s: line %d, column %d: %s\n", path, e.line, e.column, e.text);
    return NULL;
  }
  if (!json_is_object(root) || !json_is_object(json_object_get(root, "by_kind"))) {
    fprintf(stderr, "unlost report: %s: not an unlost report (no \"by_kind\" object)\n", path);
    json_decref(root);
    return NULL;
  }
  return root;
}

static double num(json_t *o, const char *key) {
  json_t *v = json_object_get(o, key);
  return json_is_number(v) ? json_number_value(v) : 0.0;
}

static const char *str(json_t *o, const char *key) {
  const char *s = json_string_value(json_object_get(o, key));
  return s ? s : "";
}

/* Printed with every control byte but the newline as '?': a label in a
 * report is anyone's text, and must not drive the terminal. */
static void print_clean(const char *text, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)text[i];
    putchar((ch < 0x20 && ch != '\n') || ch == 0x7f ? '?' : ch);
  }
}

static void summary_to(FILE *out, json_t *root);

static void summary(json_t *root) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return;
  summary_to(f, root);
  fclose(f);
  print_clean(buf, len);
  free(buf);
}

static void summary_to(FILE *out, json_t *root) {
  char a[32], b[32];
  json_t *dev = json_object_get(root, "device");
  fprintf(out, "device      %s on %s (%s, epoch %.0f)\n", str(dev, "label"), str(dev, "adapter"), str(dev, "state"),
         num(dev, "epoch"));
  page_fmt_bytes(a, sizeof a, num(root, "live_bytes"));
  page_fmt_bytes(b, sizeof b, num(root, "peak_bytes"));
  fprintf(out, "memory      live %s in %.0f objects, peak %s; created %.0f, destroyed %.0f\n", a,
         num(root, "live_objects"), b, num(root, "created"), num(root, "destroyed"));
  const char *k;
  json_t *v;
  json_object_foreach(json_object_get(root, "by_kind"), k, v) {
    if (num(v, "created") == 0) continue;
    page_fmt_bytes(a, sizeof a, num(v, "live_bytes"));
    page_fmt_bytes(b, sizeof b, num(v, "peak_bytes"));
    fprintf(out, "  %-18s live %10s  peak %10s  %6.0f live of %.0f created\n", k, a, b, num(v, "live_objects"),
           num(v, "created"));
  }
  json_t *sites = json_object_get(root, "by_site");
  fprintf(out, "top sites   by live bytes\n");
  for (size_t i = 0; i < json_array_size(sites) && i < 5; i++) {
    json_t *s = json_array_get(sites, i);
    page_fmt_bytes(a, sizeof a, num(s, "live_bytes"));
    fprintf(out, "  %-24s %10s  %s '%s'%s\n", str(s, "site"), a, str(s, "kind"), str(s, "label"),
           json_is_true(json_object_get(s, "churning")) ? "  (churning)" : "");
  }
  json_t *churn = json_object_get(root, "churn");
  for (size_t i = 0; i < json_array_size(churn); i++) fprintf(out, "churn       %s\n", str(json_array_get(churn, i), "hint"));
  json_t *losses = json_object_get(root, "losses");
  fprintf(out, "losses      %.0f\n", num(root, "losses_total"));
  for (size_t i = 0; i < json_array_size(losses); i++) {
    json_t *l = json_array_get(losses, i);
    const char *m = str(l, "message");
    fprintf(out, "  loss %.0f  lost %s: %.*s\n", num(l, "number"), str(l, "summary"), (int)strcspn(m, "\r\n"), m);
    json_t *fl = json_object_get(l, "in_flight_list");
    for (size_t j = 0; j < json_array_size(fl); j++) {
      json_t *s = json_array_get(fl, j);
      fprintf(out, "    in flight  #%.0f '%s' (%s; %s) for %.1f ms\n", num(s, "serial"), str(s, "label"), str(s, "site"),
             str(s, "pipelines"), num(s, "ms"));
    }
  }
  json_t *tl = json_object_get(root, "timeline");
  json_t *events = json_object_get(tl, "events");
  for (size_t i = 0; i < json_array_size(events); i++) {
    json_t *e = json_array_get(events, i);
    if (strcmp(str(e, "type"), "recovery")) continue;
    json_t *p = json_object_get(e, "phases");
    fprintf(out, "recovery    at %.1f ms: %.1f ms (device %.1f, objects %.1f, contents %.1f, callbacks %.1f, "
           "replay %.1f)\n",
           num(e, "t_ms"), num(e, "ms"), num(p, "device_ms"), num(p, "objects_ms"), num(p, "contents_ms"),
           num(p, "callbacks_ms"), num(p, "replay_ms"));
  }
  fprintf(out, "timeline    %.0f records over %.1f ms (%.0f dropped), %zu events, %zu samples\n", num(tl, "records"),
         num(tl, "now_ms"), num(tl, "dropped"), json_array_size(events),
         json_array_size(json_object_get(tl, "samples")));
}

int cmd_report(int argc, char **argv) {
  const char *in = NULL, *html = NULL, *older = NULL;
  const cli_opt opts[] = {CLI_O("html", CLI_TEXT, &html), CLI_O("diff", CLI_TEXT, &older), {0}};
  int first;
  int prc = cli_parse("report", argc, argv, opts, 0, report_usage, &first);
  if (prc) return prc == 1 ? 0 : 2;
  if (first < argc) in = argv[first];
  if (first + 1 < argc) {
    fprintf(stderr, "unlost report: one report at a time ('%s' too)\n", argv[first + 1]);
    report_usage(stderr);
    return 2;
  }
  if (!in) {
    report_usage(stderr);
    return 2;
  }
  json_t *root = load(in), *old = NULL;
  if (!root) return 1;
  if (older && !(old = load(older))) {
    json_decref(root);
    return 1;
  }
  summary(root);
  int rc = 0;
  if (old) {
    page_growth g[64];
    size_t n = page_diff(root, old, g, sizeof g / sizeof g[0]);
    printf("grown since %s: %s\n", older, n ? "" : "nothing");
    for (size_t i = 0; i < n; i++) {
      char a[32], b[32];
      page_fmt_bytes(a, sizeof a, g[i].before);
      page_fmt_bytes(b, sizeof b, g[i].now);
      printf("  %-6s %-28s %10s -> %s\n", g[i].what, g[i].name, a, b);
    }
  }
  if (html) {
    FILE *f = fopen(html, "w");
    char title[256];
    snprintf(title, sizeof title, "unlost report: %s", in);
    bool ok = f && page_write(f, root, old, title) == 0;
    if (f && fclose(f) != 0) ok = false;
    if (!ok) {
      fprintf(stderr, "unlost report: write %s: %s\n", html, strerror(errno));
      rc = 1;
    } else {
      printf("page        %s\n", html);
    }
  }
  json_decref(old);
  json_decref(root);
  return rc;
}

#else

int cmd_report(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      report_usage(stdout);
      return 0;
    }
  fprintf(stderr, "unlost report: this build has no JSON reader: install jansson (Debian: libjansson-dev; "
                  "`make deps` installs it) and rebuild\n");
  return 1;
}

#endif
