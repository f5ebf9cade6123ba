// ctest-labels: threads
/* The allocation tracker (src/track/): accounting, peaks, groups, budget,
 * churn on a fake clock, reports (JSON checked by a validator below), hostile
 * labels, 100k objects, four threads, stale and double frees. */
#include "bench_internal.h"
#include "track/track.h"
#include "ul_test.h"

#include <pthread.h>

/* ---- a fake clock ---- */

static _Atomic uint64_t fake_ns;
static uint64_t fake_clock(void *user) {
  (void)user;
  return fake_ns;
}
static void fake_advance_ms(uint64_t ms) { fake_ns += ms * 1000000ull; }

static ul__tracker *new_tracker(uint64_t budget) {
  fake_ns = 1000000000ull;
  ul__track_config cfg = {.now_ns = fake_clock, .budget_bytes = budget};
  ul__tracker *tr = NULL;
  if (ul__track_create(&cfg, &tr) != UL_OK) return NULL;
  return tr;
}

static ul__track_desc buf(uint64_t size, const char *label, const char *file, int line,
                          const char *fn) {
  ul__track_desc d = {.kind = UL__TRACK_BUFFER, .size = size, .label = label,
                      .site = {file, line, fn}};
  return d;
}

/* ---- a JSON validator (RFC 8259, strict UTF-8) ---- */

typedef struct jp {
  const char *p;
  int depth;
} jp;

static bool j_value(jp *j);

static void j_ws(jp *j) {
  while (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t') j->p++;
}

static bool j_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool j_string(jp *j) {
  if (*j->p != '"') return false;
  const unsigned char *s = (const unsigned char *)j->p + 1;
  for (;;) {
    unsigned c = *s;
    if (c == '"') break;
    if (c < 0x20) return false; /* includes the terminating NUL */
    if (c == '\\') {
      s++;
      if (*s == 'u') {
        for (int i = 1; i <= 4; i++)
          if (!j_hex((char)s[i])) return false;
        s += 5;
      } else if (strchr("\"\\/bfnrt", *s) && *s) {
        s++;
      } else {
        return false;
      }
      continue;
    }
    int n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
          : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (!n) return false;
    for (int i = 1; i < n; i++)
      if (s[i] < 0x80 || s[i] > 0xBF) return false;
    if (c == 0xE0 && s[1] < 0xA0) return false;
    if (c == 0xED && s[1] > 0x9F) return false;
    if (c == 0xF0 && s[1] < 0x90) return false;
    if (c == 0xF4 && s[1] > 0x8F) return false;
    s += n;
  }
  j->p = (const char *)s + 1;
  return true;
}

static bool j_number(jp *j) {
  const char *p = j->p;
  if (*p == '-') p++;
  if (*p == '0') {
    p++;
  } else if (*p >= '1' && *p <= '9') {
    while (*p >= '0' && *p <= '9') p++;
  } else {
    return false;
  }
  if (*p == '.') {
    p++;
    if (!(*p >= '0' && *p <= '9')) return false;
    while (*p >= '0' && *p <= '9') p++;
  }
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-') p++;
    if (!(*p >= '0' && *p <= '9')) return false;
    while (*p >= '0' && *p <= '9') p++;
  }
  j->p = p;
  return true;
}

static bool j_seq(jp *j, char close, bool object) {
  j->p++;
  if (++j->depth > 64) return false;
  j_ws(j);
  if (*j->p == close) {
    j->p++;
    j->depth--;
    return true;
  }
  for (;;) {
    j_ws(j);
    if (object) {
      if (!j_string(j)) return false;
      j_ws(j);
      if (*j->p++ != ':') return false;
    }
    if (!j_value(j)) return false;
    j_ws(j);
    if (*j->p == ',') {
      j->p++;
      continue;
    }
    if (*j->p++ != close) return false;
    j->depth--;
    return true;
  }
}

static bool j_value(jp *j) {
  j_ws(j);
  switch (*j->p) {
  case '{': return j_seq(j, '}', true);
  case '[': return j_seq(j, ']', false);
  case '"': return j_string(j);
  case 't': return strncmp(j->p, "true", 4) == 0 ? (j->p += 4, true) : false;
  case 'f': return strncmp(j->p, "false", 5) == 0 ? (j->p += 5, true) : false;
  case 'n': return strncmp(j->p, "null", 4) == 0 ? (j->p += 4, true) : false;
  default: return j_number(j);
  }
}

static bool json_valid(const char *s) {
  if (!s) return false;
  jp j = {s, 0};
  j_ws(&j);
  if (*j.p != '{') return false;
  if (!j_value(&j)) return false;
  j_ws(&j);
  return *j.p == '\0';
}

/* ---- tests ---- */

static void test_validator_itself(void) {
  EXPECT_TRUE(json_valid("{\"a\":[1,-2.5e3,true,false,null,\"x\\u00e9\\n\"],\"b\":{}}"));
  EXPECT_TRUE(!json_valid("{\"a\":1,}"));
  EXPECT_TRUE(!json_valid("{\"a\":\"\x01\"}"));
  EXPECT_TRUE(!json_valid("{\"a\":\"\xff\"}"));
  EXPECT_TRUE(!json_valid("{\"a\":\"\xed\xa0\x80\"}")); /* a surrogate */
  EXPECT_TRUE(!json_valid("{\"a\":01}"));
  EXPECT_TRUE(!json_valid("{\"a\":1} x"));
}

static void test_alloc_free_accounting(void) {
  ul__tracker *tr = new_tracker(0);
  ASSERT_TRUE(tr);
  uint64_t a, b, c;
  ul__track_desc d = buf(1000, "a", "x.c", 1, "f");
  ASSERT_OK(ul__track_alloc(tr, &d, &a));
  d = buf(24, NULL, "x.c", 2, "f");
  ASSERT_OK(ul__track_alloc(tr, &d, &b));
  ul__track_desc t = {.kind = UL__TRACK_TEXTURE, .size = 4096, .size_estimated = true,
                      .label = "tex", .site = UL__TRACK_HERE, .owner = 77};
  ASSERT_OK(ul__track_alloc(tr, &t, &c));
  ASSERT_NE(a, 0);
  ASSERT_NE(b, 0);
  ASSERT_NE(c, 0);
  ASSERT_NE(a, b);
  ASSERT_TRUE(ul__track_is_live(tr, b));

  ul__track_stats s;
  ul__track_get_stats(tr, &s);
  ASSERT_EQ_U(s.total.live_objects, 3);
  ASSERT_EQ_U(s.total.live_bytes, 5120);
  ASSERT_EQ_U(s.total.created, 3);
  ASSERT_EQ_U(s.total.destroyed, 0);
  ASSERT_EQ_U(s.by_kind[UL__TRACK_BUFFER].live_objects, 2);
  ASSERT_EQ_U(s.by_kind[UL__TRACK_BUFFER].live_bytes, 1024);
  ASSERT_EQ_U(s.by_kind[UL__TRACK_TEXTURE].live_bytes, 4096);
  ASSERT_EQ_U(s.estimated_bytes, 4096);

  ASSERT_OK(ul__track_free(tr, a));
  ASSERT_OK(ul__track_free(tr, c));
  ASSERT_OK(ul__track_free(tr, 0)); /* zero id: no-op */
  ASSERT_TRUE(!ul__track_is_live(tr, a));
  ul__track_get_stats(tr, &s);
  ASSERT_EQ_U(s.total.live_objects, 1);
  ASSERT_EQ_U(s.total.live_bytes, 24);
  ASSERT_EQ_U(s.total.destroyed, 2);
  ASSERT_EQ_U(s.total.destroyed_bytes, 5096);
  ASSERT_EQ_U(s.estimated_bytes, 0);
  ASSERT_EQ_U(s.by_kind[UL__TRACK_TEXTURE].live_objects, 0);
  ASSERT_EQ_U(s.misuse, 0);
  ASSERT_OK(ul__track_free(tr, b));
  ul__track_get_stats(tr, &s);
  ASSERT_EQ_U(s.total.live_objects, 0);
  ASSERT_EQ_U(s.total.live_bytes, 0);

  ASSERT_STR_EQ(ul__track_kind_name(UL__TRACK_BIND_GROUP_LAYOUT), "bind group layout");
  ASSERT_STR_EQ(ul__track_kind_name((ul__track_kind)99), "unknown");
  d.kind = (ul__track_kind)99;
  uint64_t bad = 1;
  ASSERT_STATUS(ul__track_alloc(tr, &d, &bad), UL_ERR_INVALID_ARGUMENT);
  ASSERT_EQ_U(bad, 0);
  ul__track_destroy(tr);
  ul__track_destroy(NULL);
}

static void test_peak(void) {
  ul__tracker *tr = new_tracker(0);
  ASSERT_TRUE(tr);
  uint64_t ids[5];
  for (int i = 0; i < 5; i++) {
    ul__track_desc d = buf(100, "p", "p.c", 1, "f");
    ASSERT_OK(ul__track_alloc(tr, &d, &ids[i]));
  }
  for (int i = 0; i < 3; i++) ASSERT_OK(ul__track_free(tr, ids[i]));
  uint64_t big;
  ul__track_desc d = buf(1000, "big", "p.c", 2, "f");
  ASSERT_OK(ul__track_alloc(tr, &d, &big));
  ul__track_stats s;
  ul__track_get_stats(tr, &s);
  ASSERT_EQ_U(s.total.live_objects, 3);
  ASSERT_EQ_U(s.total.live_bytes, 1200);
  ASSERT_EQ_U(s.total.peak_objects, 5);
  ASSERT_EQ_U(s.total.peak_bytes, 1200); /* 500 at 5 objects; 1200 now */
  ASSERT_OK(ul__track_free(tr, big));
  ul__track_get_stats(tr, &s);
  ASSERT_EQ_U(s.total.peak_bytes, 1200);
  ASSERT_EQ_U(s.by_kind[UL__TRACK_BUFFER].peak_objects, 5);
  ul__track_destroy(tr);
}

static const ul__track_group *find_group(const ul__track_group *g, size_t n,
                                         const char *label, int line) {
  for (size_t i = 0; i < n; i++) {
    if (line && g[i].site.line != line) continue;
    if (label && (!g[i].label || strcmp(g[i].label, label) != 0)) continue;
    if (!label && line == 0 && g[i].label) continue;
    return &g[i];
  }
  return NULL;
}

static void test_groups_by_label_and_site(void) {
  ul__tracker *tr = new_tracker(0);
  ASSERT_TRUE(tr);
  uint64_t id;
  ul__track_desc w = buf(1000, "weights", "model.c", 10, "load");
  ul__track_desc k = buf(10, "kv", "model.c", 20, "step");
  for (int i = 0; i < 3; i++) ASSERT_OK(ul__track_alloc(tr, &w, &id));
  uint64_t kv[4];
  for (int i = 0; i < 4; i++) ASSERT_OK(ul__track_alloc(tr, &k, &kv[i]));
  ASSERT_OK(ul__track_free(tr, kv[0]));
  /* the same label from another site */
  ul__track_desc w2 = buf(5, "weights", "other.c", 10, "load");
  ASSERT_OK(ul__track_alloc(tr, &w2, &id));
  /* an unlabeled object */
  ul__track_desc u = buf(7, NULL, "other.c", 11, "x");
  ASSERT_OK(ul__track_alloc(tr, &u, &id));

  ul__track_group *g;
  size_t n;
  ASSERT_OK(ul__track_groups(tr, UL__TRACK_BY_SITE, &g, &n));
  ASSERT_EQ_U(n, 4);
  ASSERT_EQ_U(g[0].agg.live_bytes, 3000); /* largest first */
  ASSERT_STR_EQ(g[0].site.file, "model.c");
  ASSERT_STR_EQ(g[0].site.function, "load");
  ASSERT_STR_EQ(g[0].label, "weights");
  const ul__track_group *ks = find_group(g, n, "kv", 20);
  ASSERT_TRUE(ks);
  ASSERT_EQ_U(ks->agg.live_objects, 3);
  ASSERT_EQ_U(ks->agg.created, 4);
  ASSERT_EQ_U(ks->agg.destroyed, 1);
  ASSERT_EQ_U(ks->agg.peak_bytes, 40);
  free(g);

  ASSERT_OK(ul__track_groups(tr, UL__TRACK_BY_LABEL, &g, &n));
  ASSERT_EQ_U(n, 3); /* weights, kv, unlabeled */
  const ul__track_group *wl = find_group(g, n, "weights", 0);
  ASSERT_TRUE(wl);
  ASSERT_EQ_U(wl->agg.live_objects, 4);
  ASSERT_EQ_U(wl->agg.live_bytes, 3005);
  const ul__track_group *nl = find_group(g, n, NULL, 0);
  ASSERT_TRUE(nl);
  ASSERT_TRUE(nl->label == NULL);
  ASSERT_EQ_U(nl->agg.live_bytes, 7);
  free(g);

  /* Relabelling moves the object between label groups. */
  ASSERT_OK(ul__track_set_label(tr, kv[1], "a label longer than the inline buffer"));
  ASSERT_OK(ul__track_groups(tr, UL__TRACK_BY_LABEL, &g, &n));
  const ul__track_group *kl = find_group(g, n, "kv", 0);
  const ul__track_group *ll = find_group(g, n, "a label longer than the inline buffer", 0);
  ASSERT_TRUE(kl && ll);
  ASSERT_EQ_U(kl->agg.live_objects, 2);
  ASSERT_EQ_U(ll->agg.live_objects, 1);
  free(g);
  ASSERT_OK(ul__track_set_label(tr, kv[1], NULL));
  ASSERT_STATUS(ul__track_set_label(tr, kv[0], "x"), UL_ERR_INVALID_HANDLE);
  ul__track_destroy(tr); /* live objects and long labels are freed (ASan) */
}

/* The last site and label are remembered (a fast path): a label buffer
 * reused with other text, a label that is a prefix of the last one, the
 * same line in another function and the same site for another kind each
 * still get their own group. */
static void test_last_site_and_label_are_not_confused(void) {
  ul__tracker *tr = new_tracker(0);
  ASSERT_TRUE(tr);
  uint64_t id;
  char label[16] = "weights";
  ul__track_desc a = buf(100, label, "m.c", 5, "f");
  ASSERT_OK(ul__track_alloc(tr, &a, &id));
  ASSERT_OK(ul__track_alloc(tr, &a, &id));
  ul__track_desc p = buf(10, "weight", "m.c", 5, "f"); /* a prefix of the last */
  ASSERT_OK(ul__track_alloc(tr, &p, &id));
  ASSERT_OK(ul__track_alloc(tr, &a, &id)); /* "weights" again */
  strcpy(label, "kv"); /* the same pointer, other text */
  ASSERT_OK(ul__track_alloc(tr, &a, &id));
  ul__track_desc g2 = buf(1, "kv", "m.c", 5, "g"); /* the same line, another function */
  ASSERT_OK(ul__track_alloc(tr, &g2, &id));
  ul__track_desc t = g2;
  t.kind = UL__TRACK_TEXTURE; /* the same site, another kind */
  ASSERT_OK(ul__track_alloc(tr, &t, &id));
  ul__track_group *g;
  size_t n;
  ASSERT_OK(ul__track_groups(tr, UL__TRACK_BY_LABEL, &g, &n));
  ASSERT_EQ_U(n, 3);
  const ul__track_group *w = find_group(g, n, "weights", 0), *k = find_group(g, n, "kv", 0),
                        *pr = find_group(g, n, "weight", 0);
  ASSERT_TRUE(w && k && pr);
  ASSERT_EQ_U(w->agg.live_bytes, 300);
  ASSERT_EQ_U(k->agg.live_bytes, 102);
  ASSERT_EQ_U(pr->agg.live_bytes, 10);
  free(g);
  ASSERT_OK(ul__track_groups(tr, UL__TRACK_BY_SITE, &g, &n));
  ASSERT_EQ_U(n, 3); /* m.c:5 f; m.c:5 g (buffer); m.c:5 g (texture) */
  ul__track_stats st;
  ul__track_get_stats(tr, &st);
  ASSERT_EQ_U(st.by_kind[UL__TRACK_TEXTURE].live_bytes, 1);
  free(g);
  ul__track_destroy(tr);
}

static void test_budget_refusal(void) {
  const uint64_t MiB = 1024 * 1024;
  ul__tracker *tr = new_tracker(64 * MiB);
  ASSERT_TRUE(tr);
  ul__track_desc d = buf(60 * MiB, "activations", "file.c", 10, "main");
  ASSERT_OK(ul__track_reserve(tr, &d));
  d.reserved = true;
  uint64_t act;
  ASSERT_OK(ul__track_alloc(tr, &d, &act));

  ul__track_desc w = buf(8 * MiB, "weights", "src/file.c", 12, "main");
  ASSERT_STATUS(ul__track_reserve(tr, &w), UL_ERR_OUT_OF_MEMORY);
  ASSERT_STR_EQ(ul_last_error(),
                "budget 64.0 MiB exceeded: live 60.0 MiB + requested 8.0 MiB for "
                "buffer 'weights' at file.c:12");

  /* A reservation counts against the budget until used or returned. */
  ul__track_desc s = buf(3 * MiB, "scratch", "file.c", 13, "main");
  ASSERT_OK(ul__track_reserve(tr, &s));
  ul__track_desc s2 = buf(2 * MiB, NULL, "file.c", 14, "main");
  ASSERT_STATUS(ul__track_reserve(tr, &s2), UL_ERR_OUT_OF_MEMORY);
  ASSERT_STR_EQ(ul_last_error(),
                "budget 64.0 MiB exceeded: live 60.0 MiB + reserved 3.0 MiB + "
                "requested 2.0 MiB for buffer at file.c:14");
  ul__track_stats st;
  ul__track_get_stats(tr, &st);
  ASSERT_EQ_U(st.reserved_bytes, 3 * MiB);
  ASSERT_EQ_U(st.budget_refusals, 2);
  ul__track_unreserve(tr, 3 * MiB); /* the driver refused it */
  ASSERT_OK(ul__track_reserve(tr, &s2));
  s2.reserved = true;
  uint64_t id;
  ASSERT_OK(ul__track_alloc(tr, &s2, &id));
  ul__track_get_stats(tr, &st);
  ASSERT_EQ_U(st.reserved_bytes, 0);
  ASSERT_EQ_U(st.total.live_bytes, 62 * MiB);

  /* Exactly the budget fits; one byte more does not; huge sizes do not wrap. */
  ul__track_desc e = buf(2 * MiB, "edge", "file.c", 15, "main");
  ASSERT_OK(ul__track_reserve(tr, &e));
  ul__track_unreserve(tr, e.size);
  e.size++;
  ASSERT_STATUS(ul__track_reserve(tr, &e), UL_ERR_OUT_OF_MEMORY);
  e.size = UINT64_MAX;
  ASSERT_STATUS(ul__track_reserve(tr, &e), UL_ERR_OUT_OF_MEMORY);

  ASSERT_OK(ul__track_free(tr, act));
  ASSERT_OK(ul__track_reserve(tr, &w)); /* fits once the activations are gone */
  ul__track_set_budget(tr, 0);
  e.size = UINT64_MAX / 2;
  ASSERT_OK(ul__track_reserve(tr, &e)); /* no budget */
  ul__track_destroy(tr);
}

static void churn_site(ul__tracker *tr, ul__track_desc *d, int n, uint64_t life_ms,
                       uint64_t gap_ms) {
  for (int i = 0; i < n; i++) {
    uint64_t id;
    if (ul__track_alloc(tr, d, &id) != UL_OK) return;
    fake_advance_ms(life_ms);
    ul__track_free(tr, id);
    fake_advance_ms(gap_ms);
  }
}

static void test_churn_fake_clock(void) {
  ul__tracker *tr = new_tracker(0);
  ASSERT_TRUE(tr);
  /* A: 100 uniform buffers, each living 1 ms: churns by the window rule. */
  ul__track_desc a = buf(256, "uniforms", "src/frame.c", 42, "frame");
  churn_site(tr, &a, 100, 1, 1);
  /* B: as many objects, long-lived: no churn. */
  ul__track_desc b = buf(256, "weights", "load.c", 7, "load");
  uint64_t ids[100];
  for (int i = 0; i < 100; i++) ASSERT_OK(ul__track_alloc(tr, &b, &ids[i]));
  fake_advance_ms(10000);
  for (int i = 0; i < 100; i++) ASSERT_OK(ul__track_free(tr, ids[i]));
  /* C: 40 bind groups, 10 per second, each living 1 ms: few per window, but
   * short lives on average. */
  ul__track_desc c = {.kind = UL__TRACK_BIND_GROUP, .label = "bg", .site = {"step.c", 9, "step"}};
  churn_site(tr, &c, 40, 1, 100);
  /* D: 40 objects, 5 per second, living 200 ms: no churn. */
  ul__track_desc d = buf(64, "staging", "io.c", 3, "io");
  churn_site(tr, &d, 40, 200, 0);

  ul__track_stats s;
  ul__track_get_stats(tr, &s);
  ASSERT_EQ_U(s.churning_sites, 2);
  ul__track_group *g;
  size_t n;
  ASSERT_OK(ul__track_groups(tr, UL__TRACK_BY_SITE, &g, &n));
  const ul__track_group *ga = find_group(g, n, NULL, 42), *gb = find_group(g, n, NULL, 7),
                        *gc = find_group(g, n, NULL, 9), *gd = find_group(g, n, NULL, 3);
  bool ok = ga && gb && gc && gd && ga->churning && !gb->churning && gc->churning &&
            !gd->churning;
  free(g);
  ASSERT_TRUE(ok);

  char *json = NULL, *text = NULL;
  ASSERT_OK(ul__track_report_json(tr, &json));
  ASSERT_TRUE(json_valid(json));
  const char *churn = strstr(json, "\"churn\":[");
  ASSERT_TRUE(churn);
  ASSERT_CONTAINS(churn,
                  "{\"site\":\"frame.c:42\",\"function\":\"frame\",\"kind\":\"buffer\","
                  "\"label\":\"uniforms\",\"creates\":100,\"destroys\":100,"
                  "\"short_lived\":100,\"max_in_window\":100,\"window_ms\":1000,");
  ASSERT_CONTAINS(churn,
                  "\"hint\":\"buffer created and destroyed 100 times in 1.0 s at "
                  "frame.c:42 (uniforms); reuse it, or use ul_ring / ul_buffer_pool\"");
  ASSERT_CONTAINS(churn,
                  "\"hint\":\"bind group created and destroyed 40 times at step.c:9 (bg), "
                  "living 1.0 ms on average; create it once and reuse it\"");
  const char *by_label = strstr(churn, "\"by_label\"");
  ASSERT_TRUE(by_label);
  /* B and D are in by_site, not in churn. */
  const char *in_b = strstr(churn, "load.c:7"), *in_d = strstr(churn, "io.c:3");
  EXPECT_TRUE(!in_b || in_b > by_label);
  EXPECT_TRUE(!in_d || in_d > by_label);
  ASSERT_CONTAINS(json, "\"site\":\"load.c:7\"");
  free(json);

  ASSERT_OK(ul__track_report_text(tr, &text));
  ASSERT_CONTAINS(text, "CHURN buffer created and destroyed 100 times in 1.0 s at frame.c:42 "
                        "(uniforms); reuse it, or use ul_ring / ul_buffer_pool\n");
  ASSERT_TRUE(!strstr(text, "load.c"));
  free(text);
  ul__track_destroy(tr);
}

/* A bind group per dispatch is WebGPU's design (ggml's backend makes one
 * per dispatch): its churn is counted and reported, not warned about on
 * stderr; a buffer's still is. stderr is caught in a file. */
static void test_churn_warns_only_for_costly_kinds(void) {
  ul__tracker *tr = new_tracker(0);
  ASSERT_TRUE(tr);
  char path[] = "/tmp/ul_churn_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_TRUE(fd >= 0);
  fflush(stderr);
  int saved = dup(2);
  ASSERT_TRUE(saved >= 0 && dup2(fd, 2) == 2);
  int level = ul__log_swap_level(UL__LOG_WARN); /* the suite runs with UNLOST_LOG=error */
  ul__track_desc g = {.kind = UL__TRACK_BIND_GROUP, .label = "per dispatch", .site = {"ggml.c", 11, "dispatch"}};
  churn_site(tr, &g, 100, 1, 1);
  ul__track_desc b = buf(256, "uniforms", "frame.c", 12, "frame");
  churn_site(tr, &b, 100, 1, 1);
  fflush(stderr);
  ul__log_swap_level(level);
  dup2(saved, 2);
  close(saved);
  char out[4096] = {0};
  ssize_t got = pread(fd, out, sizeof out - 1, 0);
  close(fd);
  unlink(path);
  ASSERT_TRUE(got > 0);
  ul__track_stats s;
  ul__track_get_stats(tr, &s);
  EXPECT_EQ(s.churning_sites, 2); /* both counted */
  EXPECT_TRUE(strstr(out, "churn: buffer created and destroyed") != NULL);
  EXPECT_TRUE(strstr(out, "churn: bind group") == NULL);
  ul__track_destroy(tr);
}

static void test_churn_window_slides(void) {
  /* 32 short lives per window never trip the default threshold (> 32),
   * however long it goes on, when the windows do not overlap. */
  ul__tracker *tr = new_tracker(0);
  ASSERT_TRUE(tr);
  ul__track_config cfg = {.now_ns = fake_clock, .churn_min_avg_lifetime_ns = 1};
  ul__track_destroy(tr);
  ASSERT_OK(ul__track_create(&cfg, &tr));
  ul__track_desc a = buf(1, "slow", "s.c", 1, "f");
  for (int sec = 0; sec < 5; sec++) {
    churn_site(tr, &a, 30, 1, 0);
    fake_advance_ms(2000);
  }
  ul__track_stats s;
  ul__track_get_stats(tr, &s);
  ASSERT_EQ_U(s.churning_sites, 0);
  churn_site(tr, &a, 33, 1, 0);
  ul__track_get_stats(tr, &s);
  ASSERT_EQ_U(s.churning_sites, 1);
  ul__track_destroy(tr);
}

static void test_reports_and_hostile_labels(void) {
  ul__tracker *tr = new_tracker(64ull << 20);
  ASSERT_TRUE(tr);
  uint64_t id;
  ul__track_desc w = buf(4ull << 20, "weights", "src/model.c", 88, "load_model");
  w.owner = 12345;
  ASSERT_OK(ul__track_alloc(tr, &w, &id));
  static const char *hostile[] = {
      "quote\" back\\slash",
      "new\nline\ttab\r\b\f",
      "ctl\x01\x1f\x7f",
      "bad \xff\xfe utf8 \xc0\xaf overlong \xed\xa0\x80 surrogate \xf4\x90\x80\x80 big",
      "cut \xe2\x82",
      "ok caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xe2\x80\xa8",
      "</script><script>alert(1)</script>",
      "",
  };
  for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
    ul__track_desc h = buf(10 + i, hostile[i], "evil\"\n.c", 1, "f\"n");
    ASSERT_OK(ul__track_alloc(tr, &h, &id));
  }
  char longlabel[3000];
  memset(longlabel, 'L', sizeof longlabel - 1);
  longlabel[sizeof longlabel - 1] = '\0';
  ul__track_desc l = buf(1, longlabel, "x.c", 2, "f");
  ASSERT_OK(ul__track_alloc(tr, &l, &id));
  fake_advance_ms(3200);

  char *json = NULL;
  ASSERT_OK(ul__track_report_json(tr, &json));
  bool valid = json_valid(json);
  if (!valid) fprintf(stderr, "invalid JSON:\n%s\n", json);
  EXPECT_TRUE(valid);
  ASSERT_CONTAINS(json, "{\"live_objects\":10,\"live_bytes\":4194413,");
  ASSERT_CONTAINS(json, "\"budget_bytes\":67108864,");
  ASSERT_CONTAINS(json,
                  "{\"kind\":\"buffer\",\"label\":\"weights\",\"size\":4194304,"
                  "\"size_estimated\":false,\"site\":\"model.c:88\",\"file\":\"src/model.c\","
                  "\"line\":88,\"function\":\"load_model\",\"age_ms\":3200,\"owner\":12345,"
                  "\"backtrace\":[]}");
  ASSERT_CONTAINS(json, "\"label\":\"quote\\\" back\\\\slash\"");
  ASSERT_CONTAINS(json, "\"label\":\"new\\nline\\ttab\\r\\b\\f\"");
  ASSERT_CONTAINS(json, "\"label\":\"ctl\\u0001\\u001f\\u007f\"");
  ASSERT_CONTAINS(json, "\"label\":\"bad \\ufffd\\ufffd utf8 \\ufffd\\ufffd overlong "
                        "\\ufffd\\ufffd\\ufffd surrogate \\ufffd\\ufffd\\ufffd\\ufffd big\"");
  ASSERT_CONTAINS(json, "\"label\":\"cut \\ufffd\\ufffd\"");
  ASSERT_CONTAINS(json, "\"label\":\"ok caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \\u2028\"");
  ASSERT_CONTAINS(json, "\"site\":\"evil\\\"\\n.c:1\",\"file\":\"evil\\\"\\n.c\"");
  ASSERT_CONTAINS(json, "\"function\":\"f\\\"n\"");
  ASSERT_CONTAINS(json, "\"label\":\"\"");
  /* Long labels are cut at 1023 bytes. */
  char cut[1100];
  snprintf(cut, sizeof cut, "\"label\":\"%.*s\"", 1023, longlabel);
  ASSERT_CONTAINS(json, cut);
  free(json);

  char *text = NULL;
  ASSERT_OK(ul__track_report_text(tr, &text));
  ASSERT_CONTAINS(text, "unlost allocations: 10 live objects, 4.0 MiB (peak 10 objects, "
                        "4.0 MiB); 10 created, 0 destroyed; budget 64.0 MiB, 0 refused\n");
  ASSERT_CONTAINS(text, "UNFREED buffer 'weights' 4.0 MiB created at model.c:88 in "
                        "load_model, 3.2 s ago\n");
  ASSERT_CONTAINS(text, "UNFREED buffer 'new\\nline\\ttab\\r\\b\\f' 11 B created at");
  ASSERT_CONTAINS(text, "'bad \\xff\\xfe utf8");
  /* One line per object plus the header: no label can add a line. */
  int lines = 0;
  for (const char *p = text; *p; p++) lines += *p == '\n';
  ASSERT_EQ(lines, 11);
  free(text);
  ul__track_destroy(tr);
}

static void test_report_limits_and_file(void) {
  ul__track_config cfg = {.now_ns = fake_clock, .report_max_live = 3};
  ul__tracker *tr;
  ASSERT_OK(ul__track_create(&cfg, &tr));
  for (int i = 1; i <= 10; i++) {
    uint64_t id;
    ul__track_desc d = buf((uint64_t)i * 100, "x", "r.c", 1, "f");
    ASSERT_OK(ul__track_alloc(tr, &d, &id));
  }
  char *json, *text;
  ASSERT_OK(ul__track_report_json(tr, &json));
  EXPECT_TRUE(json_valid(json));
  ASSERT_CONTAINS(json, "\"live\":[{\"kind\":\"buffer\",\"label\":\"x\",\"size\":1000,");
  ASSERT_CONTAINS(json, "\"live_omitted\":7,\"live_omitted_bytes\":2800,");
  free(json);
  ASSERT_OK(ul__track_report_text(tr, &text));
  ASSERT_CONTAINS(text, "... and 7 more live objects, 2.7 KiB\n");
  free(text);

  char path[128];
  snprintf(path, sizeof path, "/tmp/ul_test_track_%ld.json", (long)getpid());
  ASSERT_OK(ul__track_write_json(tr, path));
  FILE *f = fopen(path, "r");
  ASSERT_TRUE(f);
  static char back[1 << 16];
  size_t n = fread(back, 1, sizeof back - 1, f);
  fclose(f);
  back[n] = '\0';
  remove(path);
  EXPECT_TRUE(json_valid(back));
  ASSERT_CONTAINS(back, "\"live_objects\":10,");
  ASSERT_STATUS(ul__track_write_json(tr, "/nonexistent-dir/x/report.json"), UL_ERR_IO);
  ASSERT_CONTAINS(ul_last_error(), "write allocation report /nonexistent-dir/x/report.json: open");
  ASSERT_STATUS(ul__track_write_json(tr, NULL), UL_ERR_INVALID_ARGUMENT);
  ul__track_destroy(tr);
}

static void test_empty_report(void) {
  ul__tracker *tr = new_tracker(0);
  ASSERT_TRUE(tr);
  char *json, *text;
  ASSERT_OK(ul__track_report_json(tr, &json));
  EXPECT_TRUE(json_valid(json));
  ASSERT_CONTAINS(json, "\"live\":[],");
  ASSERT_CONTAINS(json, "\"by_site\":[],\"churn\":[],\"by_label\":[],\"timeline\":{");
  ASSERT_CONTAINS(json, "\"records\":0,\"dropped\":0,");
  ASSERT_CONTAINS(json, "\"events\":[]}}");
  free(json);
  ASSERT_OK(ul__track_report_text(tr, &text));
  ASSERT_CONTAINS(text, "unlost allocations: 0 live objects, 0 B");
  free(text);
  ul__track_destroy(tr);
}

static void test_stale_and_double_free(void) {
  ul__tracker *tr = new_tracker(0);
  ASSERT_TRUE(tr);
  uint64_t a, b;
  ul__track_desc d = buf(8, "a", "m.c", 1, "f");
  ASSERT_OK(ul__track_alloc(tr, &d, &a));
  ASSERT_OK(ul__track_free(tr, a));
  ASSERT_STATUS(ul__track_free(tr, a), UL_ERR_INVALID_HANDLE); /* double free */
  ASSERT_OK(ul__track_alloc(tr, &d, &b));                      /* reuses the slot */
  ASSERT_NE(a, b);
  ASSERT_STATUS(ul__track_free(tr, a), UL_ERR_INVALID_HANDLE); /* stale id */
  ASSERT_TRUE(ul__track_is_live(tr, b));
  ASSERT_STATUS(ul__track_free(tr, 0xdeadbeefcafeull), UL_ERR_INVALID_HANDLE);
  ASSERT_STATUS(ul__track_free(tr, 0xffffffff00000000ull), UL_ERR_INVALID_HANDLE);
  ASSERT_STATUS(ul__track_free(tr, UINT64_MAX), UL_ERR_INVALID_HANDLE);
  ASSERT_STATUS(ul__track_free(NULL, b), UL_ERR_INVALID_ARGUMENT);
  ul__track_stats s;
  ul__track_get_stats(tr, &s);
  ASSERT_EQ_U(s.misuse, 5);
  ASSERT_EQ_U(s.total.live_objects, 1);
  ASSERT_EQ_U(s.total.destroyed, 1);
  char *text;
  ASSERT_OK(ul__track_report_text(tr, &text));
  ASSERT_CONTAINS(text, "MISUSE 5 frees of stale, freed or unknown records\n");
  free(text);
  ASSERT_OK(ul__track_free(tr, b));
  ul__track_destroy(tr);
}

static uint64_t xorshift(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void test_many_objects(void) {
  enum { N = 100000 };
  ul__tracker *tr = new_tracker(0);
  ASSERT_TRUE(tr);
  uint64_t *ids = malloc(N * sizeof *ids);
  ASSERT_TRUE(ids);
  char label[32];
  for (int i = 0; i < N; i++) {
    snprintf(label, sizeof label, "obj %d", i); /* beyond the label cap */
    ul__track_desc d = buf((uint64_t)(i % 1000) + 1, label, "many.c", 1 + i % 50, "f");
    if (ul__track_alloc(tr, &d, &ids[i]) != UL_OK) {
      free(ids);
      ASSERT_OK(ul_last_status());
    }
  }
  ul__track_stats s;
  ul__track_get_stats(tr, &s);
  ASSERT_EQ_U(s.total.live_objects, N);
  uint64_t bytes = s.total.live_bytes;
  ul__track_group *g;
  size_t n;
  ASSERT_OK(ul__track_groups(tr, UL__TRACK_BY_LABEL, &g, &n));
  EXPECT_TRUE(n <= 4096);
  const ul__track_group *other = find_group(g, n, "(other labels)", 0);
  EXPECT_TRUE(other && other->agg.live_objects == (uint64_t)N - (4096 - 2));
  free(g);
  ASSERT_OK(ul__track_groups(tr, UL__TRACK_BY_SITE, &g, &n));
  EXPECT_EQ(n, 50);
  free(g);
  /* free in a random order */
  uint64_t seed = 88172645463325252ull;
  for (int i = N - 1; i > 0; i--) {
    int j = (int)(xorshift(&seed) % (uint64_t)(i + 1));
    uint64_t t = ids[i];
    ids[i] = ids[j];
    ids[j] = t;
  }
  int failed = 0;
  for (int i = 0; i < N; i++) failed += ul__track_free(tr, ids[i]) != UL_OK;
  free(ids);
  ASSERT_EQ(failed, 0);
  ul__track_get_stats(tr, &s);
  ASSERT_EQ_U(s.total.live_objects, 0);
  ASSERT_EQ_U(s.total.live_bytes, 0);
  ASSERT_EQ_U(s.total.peak_bytes, bytes);
  ASSERT_EQ_U(s.total.destroyed, N);
  ASSERT_EQ_U(s.misuse, 0);
  ul__track_destroy(tr);
}

typedef struct worker_arg {
  ul__tracker *tr;
  int index;
  int failures;
} worker_arg;

static void *worker(void *p) {
  worker_arg *w = p;
  uint64_t ring[16] = {0};
  char label[16];
  snprintf(label, sizeof label, "thread %d", w->index);
  for (int i = 0; i < 20000; i++) {
    uint64_t *slot = &ring[i % 16];
    if (*slot && ul__track_free(w->tr, *slot) != UL_OK) w->failures++;
    ul__track_desc d = buf(64, label, "thr.c", w->index, "worker");
    if (ul__track_alloc(w->tr, &d, slot) != UL_OK) w->failures++;
    if (i % 1000 == 0) {
      ul__track_desc r = buf(1, NULL, "thr.c", 100, "worker");
      if (ul__track_reserve(w->tr, &r) != UL_OK) w->failures++;
      ul__track_unreserve(w->tr, 1);
      ul__track_free(w->tr, *slot ^ (1ull << 63)); /* wrong generation: misuse */
    }
  }
  for (int i = 0; i < 16; i++)
    if (ring[i] && ul__track_free(w->tr, ring[i]) != UL_OK) w->failures++;
  return NULL;
}

static void test_threads(void) {
  ul__track_config cfg = {.backtraces = false};
  ul__tracker *tr;
  ASSERT_OK(ul__track_create(&cfg, &tr));
  pthread_t th[4];
  worker_arg args[4];
  for (int i = 0; i < 4; i++) {
    args[i] = (worker_arg){tr, i + 1, 0};
    ASSERT_EQ(pthread_create(&th[i], NULL, worker, &args[i]), 0);
  }
  int reports = 0;
  for (int i = 0; i < 20; i++) {
    char *json = NULL;
    ul__track_stats s;
    ul__track_get_stats(tr, &s);
    if (ul__track_report_json(tr, &json) == UL_OK && json_valid(json)) reports++;
    free(json);
  }
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < 4; i++) EXPECT_EQ(args[i].failures, 0);
  EXPECT_EQ(reports, 20);
  ul__track_stats s;
  ul__track_get_stats(tr, &s);
  ASSERT_EQ_U(s.total.live_objects, 0);
  ASSERT_EQ_U(s.total.created, 80000);
  ASSERT_EQ_U(s.total.destroyed, 80000);
  ASSERT_EQ_U(s.reserved_bytes, 0);
  ASSERT_EQ_U(s.misuse, 80);
  ul__track_destroy(tr);
}

static void test_backtraces(void) {
  ul__track_config cfg = {.now_ns = fake_clock, .backtraces = true, .backtrace_depth = 8};
  ul__tracker *tr;
  ASSERT_OK(ul__track_create(&cfg, &tr));
  uint64_t id, id2;
  ul__track_desc d = buf(4096, "bt", "bt.c", 1, "f");
  ASSERT_OK(ul__track_alloc(tr, &d, &id));
  ASSERT_OK(ul__track_alloc(tr, &d, &id2));
  ASSERT_OK(ul__track_free(tr, id));
  char *json, *text;
  ASSERT_OK(ul__track_report_json(tr, &json));
  EXPECT_TRUE(json_valid(json));
  ASSERT_CONTAINS(json, "\"backtrace\":[\"");
  free(json);
  ASSERT_OK(ul__track_report_text(tr, &text));
  ASSERT_CONTAINS(text, "\n    ");
  free(text);
  ul__track_destroy(tr);
}

static void test_bench(void) {
  double plain = 0, bt = 0;
  ASSERT_OK(ul__track_bench(false, 200000, &plain));
  ASSERT_OK(ul__track_bench(true, 20000, &bt));
  printf("track: %.0f ns per alloc+free pair, %.0f ns with backtraces\n", plain, bt);
  ASSERT_STATUS(ul__track_bench(false, 0, &plain), UL_ERR_INVALID_ARGUMENT);
}

/* The timeline on the fake clock: samples at most once per interval while
 * bytes change (and before every event), events for objects of at least
 * the threshold, notes from other layers, and a full ring dropping its
 * oldest records and counting them. */
static void test_timeline(void) {
  fake_ns = 1000000000ull;
  ul__track_config cfg = {.now_ns = fake_clock, .timeline_bytes = 16 * 256,
                          .timeline_min_bytes = 1000, .timeline_interval_ns = 10000000ull};
  ul__tracker *tr = NULL;
  ASSERT_OK(ul__track_create(&cfg, &tr));
  uint64_t a, b, c;
  ASSERT_OK(ul__track_alloc(tr, &(ul__track_desc){.kind = UL__TRACK_BUFFER, .size = 100, .label = "small"}, &a));
  fake_advance_ms(1);
  ASSERT_OK(ul__track_alloc(tr, &(ul__track_desc){.kind = UL__TRACK_BUFFER, .size = 200, .label = "small2"}, &b));
  fake_advance_ms(1);
  ASSERT_OK(ul__track_alloc(tr, &(ul__track_desc){.kind = UL__TRACK_TEXTURE, .size = 5000, .label = "big"}, &c));
  fake_advance_ms(20);
  ul__track_note(tr, 0, &(ul__tl_event){.type = UL__TL_LOSS, .number = 1, .text = "lost while 'x'"});
  ASSERT_OK(ul__track_free(tr, c));
  char *json;
  ASSERT_OK(ul__track_report_json(tr, &json));
  EXPECT_TRUE(json_valid(json));
  /* First alloc: a sample (the first record); the second within 10 ms:
   * none of its own; the big one: a sample with both smalls first, then
   * its event. Times are ms since the tracker was made. */
  ASSERT_CONTAINS(json, "\"samples\":[[0.000,100,1,100,0,");
  ASSERT_CONTAINS(json, "[2.000,5300,3,300,5000,");
  ASSERT_CONTAINS(json, "{\"t_ms\":2.000,\"type\":\"create\",\"kind\":\"texture\",\"bytes\":5000,\"text\":\"big\"}");
  ASSERT_CONTAINS(json, "{\"t_ms\":22.000,\"type\":\"loss\",\"number\":1,\"text\":\"lost while 'x'\"}");
  ASSERT_CONTAINS(json, "{\"t_ms\":22.000,\"type\":\"destroy\",\"kind\":\"texture\",\"bytes\":5000,");
  ASSERT_TRUE(strstr(json, "\"text\":\"small\"") == NULL); /* under the threshold */
  ASSERT_CONTAINS(json, "\"dropped\":0,");
  /* The last sample is the report's moment: 300 bytes live. */
  ASSERT_CONTAINS(json, "[22.000,300,2,300,0,");
  free(json);
  /* A budget refusal is an event too. */
  ul__track_set_budget(tr, 1000);
  ASSERT_STATUS(ul__track_reserve(tr, &(ul__track_desc){.kind = UL__TRACK_BUFFER, .size = 5000, .label = "huge"}),
                UL_ERR_OUT_OF_MEMORY);
  ul__track_set_budget(tr, 0);
  ASSERT_OK(ul__track_report_json(tr, &json));
  ASSERT_CONTAINS(json, "{\"t_ms\":22.000,\"type\":\"budget\",\"kind\":\"buffer\",\"bytes\":5000,\"text\":\"huge\"}");
  free(json);
  /* Overfill the ring: 40 events into 16 records. */
  for (int i = 0; i < 40; i++) {
    fake_advance_ms(1);
    ul__track_note(tr, 0, &(ul__tl_event){.type = UL__TL_CHECKPOINT, .bytes = (uint64_t)i + 1});
  }
  ASSERT_OK(ul__track_report_json(tr, &json));
  EXPECT_TRUE(json_valid(json));
  ASSERT_CONTAINS(json, "\"capacity\":16,\"records\":16,");
  ASSERT_TRUE(strstr(json, "\"dropped\":0,") == NULL);
  ASSERT_CONTAINS(json, "\"bytes\":40,"); /* the newest kept */
  ASSERT_TRUE(strstr(json, "\"bytes\":24,") == NULL); /* the oldest gone */
  ASSERT_TRUE(strstr(json, "\"type\":\"loss\"") == NULL);
  free(json);
  ASSERT_OK(ul__track_free(tr, a));
  ASSERT_OK(ul__track_free(tr, b));
  ul__track_destroy(tr);
}

int main(void) {
  ul_test_watchdog(120);
  RUN_TEST(test_validator_itself);
  RUN_TEST(test_alloc_free_accounting);
  RUN_TEST(test_peak);
  RUN_TEST(test_groups_by_label_and_site);
  RUN_TEST(test_last_site_and_label_are_not_confused);
  RUN_TEST(test_budget_refusal);
  RUN_TEST(test_churn_fake_clock);
  RUN_TEST(test_churn_warns_only_for_costly_kinds);
  RUN_TEST(test_churn_window_slides);
  RUN_TEST(test_reports_and_hostile_labels);
  RUN_TEST(test_report_limits_and_file);
  RUN_TEST(test_empty_report);
  RUN_TEST(test_timeline);
  RUN_TEST(test_stale_and_double_free);
  RUN_TEST(test_many_objects);
  RUN_TEST(test_threads);
  RUN_TEST(test_backtraces);
  RUN_TEST(test_bench);
  TEST_MAIN_END();
}
