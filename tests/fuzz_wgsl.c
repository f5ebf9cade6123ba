/* Fuzz target for the WGSL reading (src/res/wgsl.c), which tells which
 * bindings a module may store to. The oracle is the generator's own
 * knowledge: modules are built token by token from a small grammar, with
 * every kind of blankspace and comment WGSL allows between two tokens, and
 * the generator knows whether it put a store to `x` (binding 0) in; when it
 * did, the reading must call binding 0 written or the module unknown. A
 * reading that says read-only there would leave GPU-written contents out of
 * checkpoints. Byte mutations of the generated text then check that nothing
 * crashes on malformed input (ASan/UBSan). The GPU itself is the oracle of
 * test_wgsl_oracle; this one runs without a device, fast.
 *
 * Standalone (what CTest runs): replays files and directories given as
 * arguments, then generates for a bounded time:
 *   ./fuzz_wgsl --seconds 5 [--seed N] [FILE|DIR ...]
 * With -DUL_LIBFUZZER (clang -fsanitize=fuzzer) the driver is libFuzzer's. */
#include "res/obj.h"

#include "fuzz_replay.h"

static int g_failures;

/* A saved or mutated input: only that the reading returns (no crash), and
 * that what it returns is well formed. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* The first byte says whether the generator put a store in ('S'). */
  bool store = size > 0 && data[0] == 'S';
  const char *text = size ? (const char *)data + 1 : "";
  size_t n = size ? size - 1 : 0;
  ul__wgsl_writes *w = ul__wgsl_analyze(text, n);
  if (w && w->count > UL__WGSL_MAX_WRITES) {
    char *t = strndup(text, n);
    fuzz_report("fuzz_wgsl", "more writes than the bound", t ? t : "");
    free(t);
    g_failures++;
  }
  if (store && !ul__wgsl_may_write(w, 0, 0)) {
    char *t = strndup(text, n);
    fuzz_report("fuzz_wgsl", "a store to binding 0 was not seen", t ? t : "");
    free(t);
    g_failures++;
  }
  free(w);
  return 0;
}

#ifndef UL_LIBFUZZER

static uint64_t g_rng = 1;
static uint64_t rnd(void) { return fuzz_rnd(&g_rng); }

/* What may stand between two tokens; comments start after a space, so that
 * none glues to a '/' of the code. */
static const char *const g_sep[] = {
    " ",      "\t",           "\n",           "\r\n",         "\v",          "\f",      "\xc2\x85",
    "\xe2\x80\x8e", "\xe2\x80\x8f", "\xe2\x80\xa8", "\xe2\x80\xa9", " /* c */", " /* a /* b */ c */",
    " // c\n", " // c\xe2\x80\xa8", " // c\xe2\x80\xa9", " // c\xc2\x85", " // c\r", " // c\v",
};

/* Statements, as tokens separated by '|'. Reads first, then stores. */
static const char *const g_reads[] = {
    "let|a|=|x|[|0u|]|;",        "let|b|=|y|[|0u|]|&|x|[|1u|]|;", "_|=|x|[|2u|]|;",
    "let|c|=|x|[|0u|]|<=|y|[|1u|]|;", "let|d|=|arrayLength|(|&|x|)|;",  "if|(|x|[|0u|]|==|0u|)|{|}",
    "let|e|=|(|x|[|1u|]|)|;",    "let|f|=|x|[|0u|]|>=|1u|;",      "let|g|=|x|[|x|[|0u|]|&|3u|]|;",
};
static const char *const g_stores[] = {
    "x|[|0u|]|=|1u|;",   "x|[|1u|]|+=|2u|;",       "x|[|2u|]|++|;",          "x|[|0u|]|>>=|1u|;",
    "(|x|)|[|1u|]|=|3u|;", "let|p|=|&|x|;|(|*|p|)|[|0u|]|=|4u|;", "atomicAdd|(|&|v|[|0u|]|,|1u|)|;",
    "x|[|3u|]|^=|5u|;",  "*|&|x|=|array|<|u32|,|4|>|(|)|;", "for|(|x|[|0u|]|=|0u|;|x|[|0u|]|<|2u|;|x|[|0u|]|++|)|{|}",
};

static bool g_full; /* a piece did not fit: the module is not what was meant */

static size_t put(char *out, size_t n, size_t cap, const char *s) {
  size_t l = strlen(s);
  if (n + l >= cap) {
    g_full = true;
    return n;
  }
  memcpy(out + n, s, l);
  return n + l;
}

/* Appends the tokens of `stmt` with random separators. */
static size_t put_tokens(char *out, size_t n, size_t cap, const char *stmt) {
  char tok[64];
  for (const char *p = stmt; *p;) {
    size_t l = strcspn(p, "|");
    if (l >= sizeof tok) l = sizeof tok - 1;
    memcpy(tok, p, l);
    tok[l] = 0;
    n = put(out, n, cap, tok);
    /* mostly one code point, a comment now and then */
    n = put(out, n, cap, g_sep[rnd() % 4 ? rnd() % 11 : rnd() % UL__COUNT_OF(g_sep)]);
    p += l + (p[l] == '|');
  }
  return n;
}

static size_t generate(char *out, size_t cap) {
  bool store = rnd() % 2;
  g_full = false;
  size_t n = put(out, 0, cap, store ? "S" : "R");
  /* Binding 0 is x; a store through v (an atomic array, binding 0 too in
   * its own module variant) counts as x's. */
  bool atomic = store && rnd() % 4 == 0;
  n = put_tokens(out, n, cap,
                 atomic ? "@|group|(|0|)|@|binding|(|0u|)|var|<|storage|,|read_write|>|v|:|array|<|atomic|<|u32|>|,|4|>|;"
                        : "@|group|(|0|)|@|binding|(|0x0|)|var|<|storage|,|read_write|>|x|:|array|<|u32|,|4|>|;");
  n = put_tokens(out, n, cap, "@|binding|(|1|)|@|group|(|0|)|var|<|storage|,|read_write|>|y|:|array|<|u32|,|4|>|;");
  n = put_tokens(out, n, cap, "@|compute|@|workgroup_size|(|1|)|fn|main|(|)|{");
  int reads = (int)(rnd() % 3);
  for (int i = 0; i < reads && !atomic; i++) n = put_tokens(out, n, cap, g_reads[rnd() % UL__COUNT_OF(g_reads)]);
  if (store) {
    const char *s = atomic ? g_stores[6] : g_stores[rnd() % UL__COUNT_OF(g_stores)];
    if (!atomic && s == g_stores[6]) s = g_stores[0];
    n = put_tokens(out, n, cap, s);
  }
  n = put(out, n, cap, "}");
  if (g_full) return 0; /* no room: not the module meant */
  /* A byte mutation now and then: then only "no crash" holds. */
  if (n > 1 && rnd() % 4 == 0) {
    out[0] = 'R';
    out[1 + rnd() % (n - 1)] = (char)(rnd() % 256);
  }
  out[n] = 0;
  return n;
}

int main(int argc, char **argv) { return fuzz_drive("fuzz_wgsl", argc, argv, &g_rng, &g_failures, generate, 512); }
#endif
