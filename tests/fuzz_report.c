/* Fuzz target for the report page (tools/unlost/page.c), which walks a
 * report that `unlost report` read from a file anyone may have edited.
 * Inputs: a real report of this build (a device with objects, a loss with
 * a submission in flight, a recovery and a checkpoint), mutated by
 * structure (any value replaced by another type, members removed, arrays
 * emptied or repeated, numbers made huge or negative, strings made long
 * or full of markup) and, for the parse path, by bytes. The oracle: no
 * crash or sanitizer report, page_write and page_diff finish, and no
 * string of the report reaches the page unescaped (an injected
 * "<script id=\"fz\">" must never appear as markup). Exit 77 without
 * jansson. */
#include "unlost.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef UL_HAVE_JANSSON
#include "page.h"
#include "fuzz_replay.h"

static uint64_t g_rng = 0x5eed;
static int g_failures;
static json_t *g_seed;
static const char *const k_markup = "<script id=\"fz\">x</script><img src=x onerror=1>&amp;\"'";

static uint64_t rnd(void) { return fuzz_rnd(&g_rng); }

static json_t *random_value(int depth) {
  switch (rnd() % (depth > 2 ? 6 : 8)) {
  case 0: return json_null();
  case 1: return json_true();
  case 2: return json_integer((json_int_t)(rnd() % 3 ? (int64_t)(rnd() % 2000) - 1000 : (int64_t)rnd()));
  case 3: return json_real(rnd() % 2 ? 1e308 : -1e-308 * (double)(rnd() % 100));
  case 4: return json_string(k_markup);
  case 5: {
    char s[300];
    size_t n = rnd() % sizeof s;
    for (size_t i = 0; i < n; i++) s[i] = "<>&\"' a\t\n\\/"[rnd() % 12];
    s[n] = 0;
    return json_string(s);
  }
  case 6: {
    json_t *a = json_array();
    for (int i = (int)(rnd() % 5); i > 0; i--) json_array_append_new(a, random_value(depth + 1));
    return a;
  }
  default: {
    json_t *o = json_object();
    static const char *const keys[] = {"t_ms", "type", "bytes", "text", "number", "label", "ms", "phases",
                                       "kind", "samples", "events", "in_flight_list", "live_bytes"};
    for (int i = (int)(rnd() % 4); i > 0; i--)
      json_object_set_new(o, keys[rnd() % (sizeof keys / sizeof keys[0])], random_value(depth + 1));
    return o;
  }
  }
}

/* One structural mutation somewhere under v. */
static void mutate(json_t *v, int depth) {
  if (json_is_object(v)) {
    size_t n = json_object_size(v);
    if (!n) return;
    size_t pick = rnd() % n, i = 0;
    const char *key;
    json_t *child;
    json_object_foreach(v, key, child) {
      if (i++ != pick) continue;
      uint64_t r = rnd() % 8;
      if (r == 0) json_object_del(v, key);
      else if (r == 1 || depth > 6) json_object_set_new(v, key, random_value(0));
      else mutate(child, depth + 1);
      return;
    }
  } else if (json_is_array(v)) {
    size_t n = json_array_size(v);
    uint64_t r = rnd() % 8;
    if (!n || r == 0) {
      json_array_append_new(v, random_value(0));
    } else if (r == 1) {
      json_array_clear(v);
    } else if (r == 2) {
      json_t *c = json_deep_copy(json_array_get(v, rnd() % n));
      for (int k = 0; k < 50 && c; k++) json_array_append(v, c);
      json_decref(c);
    } else if (r == 3) {
      json_array_set_new(v, rnd() % n, random_value(0));
    } else {
      mutate(json_array_get(v, rnd() % n), depth + 1);
    }
  }
}

static void check_page(json_t *root, json_t *older) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return;
  int rc = page_write(f, root, older, rnd() % 2 ? "fuzz" : k_markup);
  fclose(f);
  if (rc != 0) {
    g_failures++;
    fprintf(stderr, "fuzz_report: page_write failed\n");
  } else if (buf && strstr(buf, "<script id=\"fz\">")) {
    g_failures++;
    fuzz_report("fuzz_report", "a report string reached the page as markup", strstr(buf, "<script id=\"fz\">"));
  }
  free(buf);
  page_growth g[64];
  if (older) (void)page_diff(root, older, g, 64);
}

/* Bytes: parsed with jansson like `unlost report`, then the page. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  json_error_t e;
  json_t *root = json_loadb((const char *)data, size, 0, &e);
  if (root) {
    check_page(root, g_seed);
    json_decref(root);
  }
  return 0;
}

/* A real report: objects, a checkpoint, a loss with work in flight, a
 * recovery. */
static char *real_report(void) {
  ul_env *env = NULL;
  ul_device *dev = NULL;
  char *json = NULL;
  if (ul_env_create(NULL, &env) || ul_device_create(env, &(ul_device_desc){.label = "fuzz<dev>"}, &dev)) return NULL;
  static const char *wgsl = "@group(0) @binding(0) var<storage, read_write> d: array<u32>;\n"
                            "@compute @workgroup_size(1) fn main() { d[0] = d[0] + 1u; }\n";
  ul_buffer b, big;
  ul_shader sh;
  ul_compute_pipeline p;
  ul_bind_group bg;
  ul_cmd *c = NULL;
  uint32_t init[64] = {0};
  if (!ul_buffer_create(dev, &(ul_buffer_desc){.label = "a<b>&c", .size = sizeof init, .initial_data = init}, &b) &&
      !ul_buffer_create(dev, &(ul_buffer_desc){.label = "big", .size = 1 << 20}, &big) &&
      !ul_shader_create(dev, &(ul_shader_desc){.label = "s", .wgsl = wgsl}, &sh) &&
      !ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.label = "p\"q", .shader = sh}, &p) &&
      !ul_bind_group_create(dev, &(ul_bind_group_desc){.pipeline = p, .entry_count = 1,
          .entries = {{.binding = 0, .buffer = b}}}, &bg) &&
      !ul_cmd_create(dev, "list<1>", &c) && !ul_cmd_dispatch(c, p, &bg, 1, 1, 1, 1)) {
    ul_cmd_submit(dev, c, NULL);
    ul_device_checkpoint(dev);
    ul_cmd_submit(dev, c, NULL);
    ul_device_force_loss(dev, "fuzz <loss>");
    ul_device_wait_idle(dev, 0);
    ul_device_report(dev, UL_REPORT_JSON, &json);
    ul_cmd_destroy(c);
    ul_bind_group_destroy(dev, bg);
    ul_compute_pipeline_destroy(dev, p);
    ul_shader_destroy(dev, sh);
    ul_buffer_destroy(dev, big);
    ul_buffer_destroy(dev, b);
  }
  ul_device_destroy(dev);
  ul_env_destroy(env);
  return json;
}

#ifndef UL_LIBFUZZER
int main(int argc, char **argv) {
  double seconds = 5;
  const char *saved[16];
  int nsaved = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = atof(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) g_rng = strtoull(argv[++i], NULL, 10);
    else if (nsaved < 16) saved[nsaved++] = argv[i];
  }
  /* The seed comes from a child process: the fuzzer itself never loads
   * the implementation, so its leak check at exit is about page.c alone
   * (the implementation's own exit-time leftovers are not this target's;
   * the library's leak checks are the other tests'). */
  int fds[2];
  if (pipe(fds)) return 1;
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    char *t = real_report();
    size_t n = t ? strlen(t) : 0;
    for (size_t off = 0; off < n;) {
      ssize_t w = write(fds[1], t + off, n - off);
      if (w <= 0) break;
      off += (size_t)w;
    }
    _exit(t ? 0 : 1);
  }
  close(fds[1]);
  size_t cap = 1 << 16, tlen0 = 0;
  char *text = malloc(cap);
  for (ssize_t r; text && (r = read(fds[0], text + tlen0, cap - tlen0 - 1)) > 0;) {
    tlen0 += (size_t)r;
    if (tlen0 + 1 == cap) text = realloc(text, cap *= 2);
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (text) text[tlen0] = 0;
  json_error_t e;
  if (!text || !WIFEXITED(status) || WEXITSTATUS(status) || !(g_seed = json_loads(text, 0, &e))) {
    fprintf(stderr, "fuzz_report: no seed report from the child (status %d)\n", status);
    free(text);
    return 1;
  }
  /* Saved inputs, then the generated ones. */
  for (int i = 0; i < nsaved; i++) fuzz_replay(saved[i], 0);
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  long runs = 0;
  size_t tlen = strlen(text);
  do {
    if (rnd() % 4 == 0) {
      /* Bytes: a flip, a cut or an insertion in the seed's text. */
      char *m = malloc(tlen + 16);
      if (!m) break;
      memcpy(m, text, tlen);
      size_t n = tlen;
      for (int k = (int)(rnd() % 4) + 1; k > 0; k--) {
        uint64_t r = rnd() % 3;
        if (r == 0) m[rnd() % n] = (char)(rnd() % 256);
        else if (r == 1) n = rnd() % n + 1;
        else if (n + 1 < tlen + 16) {
          size_t at = rnd() % n;
          memmove(m + at + 1, m + at, n - at);
          m[at] = "{}[],:\"0-e"[rnd() % 10];
          n++;
        }
      }
      LLVMFuzzerTestOneInput((const uint8_t *)m, n);
      free(m);
    } else {
      json_t *root = json_deep_copy(g_seed);
      for (int k = (int)(rnd() % 6) + 1; k > 0; k--) mutate(root, 0);
      json_t *older = rnd() % 2 ? json_deep_copy(g_seed) : NULL;
      if (older && rnd() % 2) mutate(older, 0);
      check_page(root, older);
      json_decref(older);
      json_decref(root);
    }
    runs++;
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while (!g_failures && (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
  printf("fuzz_report: %ld inputs, %d failure(s)\n", runs, g_failures);
  json_decref(g_seed);
  free(text);
  return g_failures ? 1 : 0;
}
#endif

#else
int main(void) {
  printf("SKIP: built without jansson (Debian: libjansson-dev; `make deps` installs it)\n");
  return 77;
}
#endif
