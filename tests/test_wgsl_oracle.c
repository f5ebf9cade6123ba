/* An oracle for the reading of WGSL (src/res/wgsl.c, issue 36): random
 * valid compute shaders, generated from a grammar, run on the real
 * implementation, and every storage binding the GPU changed must be one the
 * reading calls written. A binding the reading wrongly calls read-only is
 * left out of checkpoints, and a recovered loss then returns wrong data with
 * Success; so a miss fails the test, printing the seed, the shader and the
 * binding.
 *
 * The generator spells each shader in every way WGSL's lexical grammar
 * allows: every blankspace code point between any two tokens, line comments
 * ended by any line break, nested block comments, identifiers with Unicode
 * letters, attributes in any order with hexadecimal or suffixed literals;
 * and it stores in many forms: through indices, members, pointers (`let`,
 * function parameters, pointer composite access), parentheses, `*&`, every
 * compound assignment, increments, atomics, inside helper functions and
 * control flow, next to shadowing locals and a user function named
 * arrayLength. Every store it plans executes once and changes its bytes,
 * and nothing else changes (checked: either way is a generator bug, as is a
 * shader the implementation rejects). Named forms, written by hand, run
 * first: each a way the reading could lose a store, covered whatever the
 * seeds.
 *
 * The implementation is Dawn itself, linked directly (tests/webgpu/wgpu_prog.h
 * opens it), on the CPU adapter: the oracle does not depend on the code it
 * checks.
 *
 * test_wgsl_oracle [--count N] [--seed S] [--plain] [--print] [--truth]:
 * shader i uses seed S+i, so a miss reported with seed X is reproduced by
 * `--seed X --count 1`; --plain spells every shader plainly (same
 * structure), --print writes the shaders to stdout (each ended by a NUL)
 * and runs nothing, --truth takes the generator's plan for the reading. */
#include "res/obj.h"
#include "ul_test.h"
#include "wgpu_prog.h"

#include <stdarg.h>

/* ---- text ------------------------------------------------------------------ */

typedef struct sb {
  char *p;
  size_t n, cap;
} sb;

static void sb_put(sb *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (b->n + n + 1 > cap) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      fprintf(stderr, "out of host memory\n");
      exit(1);
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}
static void sb_str(sb *b, const char *s) { sb_put(b, s, strlen(s)); }
static void sb_clear(sb *b) {
  b->n = 0;
  if (b->p) b->p[0] = 0;
}
static char sb_last(const sb *b) { return b->n ? b->p[b->n - 1] : 0; }

/* ---- the generator --------------------------------------------------------- */

#define CANARY 0xA5A5A5A5u
#define MAX_BIND 8
#define BUF_BYTES 64 /* every type below fits */
#define NAME_MAX_BYTES 64

enum kind { K_RW, K_RO, K_UNIFORM };
/* The types of storage bindings. Arrays have at least 4 elements: every
 * index used is below 4. */
enum shape { T_RTARR, T_FIXARR, T_ALIAS, T_STRUCT, T_ATOMARR, T_ATOMSTRUCT, T_COUNT };

typedef struct gbind {
  uint32_t group, binding;
  int kind, shape;
  bool store; /* planned: one store that executes and changes the bytes */
  char name[NAME_MAX_BYTES];
  char how[200]; /* the form of its store, for a report of misses */
} gbind;

typedef struct gen {
  uint64_t rng;  /* the structure: bindings, statements, forms */
  uint64_t lrng; /* the spelling: blanks, comments, names, literals */
  bool uni_names;    /* Unicode letters in identifiers */
  bool uni_blanks;   /* Unicode blankspace between tokens */
  bool uni_comments; /* Unicode in comments, and line comments ended by U+0085, U+2028, U+2029 */
  int fancy;       /* percent of separators that are more than one space */
  bool plain_attr; /* attributes as @group(0) with decimal literals */
  sb decls, fns, body;
  sb *cur;
  unsigned counter;
  int depth; /* helper functions being written (to bound their nesting) */
  int nest;  /* control-flow constructs open */
  gbind b[MAX_BIND];
  int nb;
  char s_name[NAME_MAX_BYTES], s_scalar[NAME_MAX_BYTES], s_arr[NAME_MAX_BYTES];
  char sa_name[NAME_MAX_BYTES], sa_atom[NAME_MAX_BYTES], sa_plain[NAME_MAX_BYTES];
  char alias[NAME_MAX_BYTES];
  char gid[NAME_MAX_BYTES]; /* the entry point's global_invocation_id (0 at run time) */
  bool user_array_length;   /* a user function named arrayLength shadows the builtin */
  bool have_ro_scalar;      /* a source of values that never change */
  int ro_index;             /* that binding */
  char how[200];            /* the form of the store being written */
  char consts[8][NAME_MAX_BYTES + 32]; /* module constants used as attributes */
  int nconst;
} gen;

/* splitmix64: deterministic per seed. The spelling draws from its own
 * stream, so that a shader regenerated in the plain style (--plain) has the
 * same structure: a miss that goes away there is a lexical one. */
static uint32_t next(uint64_t *state, uint32_t n) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return n ? (uint32_t)(z % n) : 0;
}
static uint32_t rnd(gen *g, uint32_t n) { return next(&g->rng, n); }
static uint32_t lrnd(gen *g, uint32_t n) { return next(&g->lrng, n); }
static bool chance(gen *g, uint32_t percent) { return rnd(g, 100) < percent; }
static bool lchance(gen *g, uint32_t percent) { return lrnd(g, 100) < percent; }
#define PICK(g, arr) ((arr)[rnd((g), UL__COUNT_OF(arr))])
#define LPICK(g, arr) ((arr)[lrnd((g), UL__COUNT_OF(arr))])

/* WGSL's blankspace and line breaks (lexical grammar), as UTF-8. */
static const char *const blank_ascii[] = {" ", "\t", "\n", "\r\n", "\v", "\f", "\r"};
static const char *const blank_uni[] = {"\xc2\x85", "\xe2\x80\x8e", "\xe2\x80\x8f", "\xe2\x80\xa8",
                                        "\xe2\x80\xa9"};
static const char *const break_ascii[] = {"\n", "\r\n", "\r", "\v", "\f"};
static const char *const break_uni[] = {"\xc2\x85", "\xe2\x80\xa8", "\xe2\x80\xa9"};

static const char *blank(gen *g) {
  if (g->uni_blanks && lchance(g, 40)) return LPICK(g, blank_uni);
  return LPICK(g, blank_ascii);
}
static const char *line_break(gen *g) {
  if (g->uni_comments && lchance(g, 50)) return LPICK(g, break_uni);
  return LPICK(g, break_ascii);
}

/* Comment text: words, code that is not code (a store in a comment writes
 * nothing), and Unicode. Never `*`, `/` or a line break. */
static void comment_text(gen *g, bool line) {
  static const char *const words[] = {"note", "x[0] = 1u;", "var<storage, read_write>", "@group(0)",
                                      "++", "fn f() {", "}", "arrayLength(&x)", "= ;", "<", ">"};
  static const char *const uni[] = {"\xc3\xa9t\xc3\xa9", "\xce\xb1\xce\xb2", "\xe4\xb8\xad\xe6\x96\x87",
                                    "\xe2\x80\xa8", "\xc2\x85"};
  int n = (int)lrnd(g, 4);
  for (int i = 0; i < n; i++) {
    sb_str(g->cur, " ");
    if (g->uni_comments && lchance(g, 30)) {
      const char *u = LPICK(g, uni);
      /* U+2028 and U+0085 end a line comment: only in block comments. */
      if (line && ((unsigned char)u[0] == 0xe2 || (unsigned char)u[0] == 0xc2)) u = "\xc3\x9f";
      sb_str(g->cur, u);
    } else {
      sb_str(g->cur, LPICK(g, words));
    }
  }
}

static void block_comment(gen *g, int depth) {
  sb_str(g->cur, "/*");
  comment_text(g, false);
  if (lchance(g, 30)) sb_str(g->cur, line_break(g)); /* a break does not end it */
  if (depth < 2 && lchance(g, 30)) {
    sb_str(g->cur, " ");
    block_comment(g, depth + 1);
    comment_text(g, false);
  }
  sb_str(g->cur, " */");
}

/* What goes between two tokens: at least one blank or comment, so that no
 * two tokens run together. */
static void sep(gen *g) {
  if (!lchance(g, (uint32_t)g->fancy)) {
    sb_str(g->cur, lchance(g, 90) ? " " : "\n  ");
    return;
  }
  int k = 1 + (int)lrnd(g, 3);
  for (int i = 0; i < k; i++) {
    uint32_t r = lrnd(g, 10);
    if (r < 5) {
      sb_str(g->cur, blank(g));
      continue;
    }
    char last = sb_last(g->cur);
    if (last == '/' || last == '*') sb_str(g->cur, " "); /* not `//` or `*` `/` */
    if (r < 8) {
      block_comment(g, 0);
    } else {
      sb_str(g->cur, "//");
      comment_text(g, true);
      sb_str(g->cur, line_break(g));
    }
  }
}

static void how(gen *g, const char *tag) {
  size_t n = strlen(g->how);
  snprintf(g->how + n, sizeof g->how - n, "%s%s", n ? " " : "", tag);
}

static void tok(gen *g, const char *t) {
  sep(g);
  sb_str(g->cur, t);
}
static void tokf(gen *g, const char *fmt, ...) {
  char buf[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  tok(g, buf);
}

/* A fresh identifier: ASCII or with Unicode letters (XID_Start first,
 * XID_Continue after, a combining mark included), always ending in `_<n>`
 * so that it is no keyword, reserved word or predeclared name. */
static void new_name(gen *g, char *out) {
  static const char *const start_uni[] = {"\xc3\xa9", "\xc3\x9f", "\xce\xb1", "\xce\xa9", "\xd0\xb6",
                                          "\xe5\x8f\x98", "\xe4\xb8\xad", "_\xc3\xa9"};
  static const char *const cont_uni[] = {"\xc3\xa9", "\xc3\x9f", "\xcf\x88", "\xe4\xb8\xad",
                                         "\xcc\x81" /* U+0301 combining acute */,
                                         "\xc2\xb7" /* U+00B7 middle dot */, "\xd9\xa3" /* U+0663 */};
  static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  char *o = out;
  if (g->uni_names && lchance(g, 50)) {
    o += sprintf(o, "%s", LPICK(g, start_uni));
  } else {
    if (lchance(g, 15)) *o++ = '_';
    *o++ = letters[lrnd(g, sizeof letters - 1)];
  }
  int n = (int)lrnd(g, 4);
  for (int i = 0; i < n; i++) {
    if (g->uni_names && lchance(g, 40))
      o += sprintf(o, "%s", LPICK(g, cont_uni));
    else
      *o++ = alnum[lrnd(g, sizeof alnum - 1)];
  }
  sprintf(o, "_%u", g->counter++);
}

/* An integer literal with value v: decimal or hexadecimal, with or without
 * a suffix. */
static void int_lit(gen *g, uint32_t v, bool plain) {
  if (plain) {
    tokf(g, "%u", v);
    return;
  }
  switch (lrnd(g, 6)) {
  case 0: tokf(g, "%u", v); break;
  case 1: tokf(g, "%uu", v); break;
  case 2: tokf(g, "%ui", v); break;
  case 3: tokf(g, "0x%x", v); break;
  case 4: tokf(g, "0X%Xu", v); break;
  default: tokf(g, "0x%xi", v); break;
  }
}

static void u32_lit(gen *g, uint32_t v) {
  if (lchance(g, 50))
    tokf(g, "%uu", v);
  else
    tokf(g, "0x%xu", v);
}

/* ---- types and declarations ------------------------------------------------ */

static void emit_type(gen *g, int shape) {
  switch (shape) {
  case T_RTARR: tok(g, "array"); tok(g, "<"); tok(g, "u32"); tok(g, ">"); break;
  case T_FIXARR:
    tok(g, "array"); tok(g, "<"); tok(g, "u32"); tok(g, ","); tok(g, lchance(g, 50) ? "4" : "4u"); tok(g, ">");
    break;
  case T_ALIAS: tok(g, g->alias); break;
  case T_STRUCT: tok(g, g->s_name); break;
  case T_ATOMARR:
    tok(g, "array"); tok(g, "<"); tok(g, "atomic"); tok(g, "<"); tok(g, "u32"); tok(g, ">"); tok(g, ",");
    tok(g, "4"); tok(g, ">");
    break;
  case T_ATOMSTRUCT: tok(g, g->sa_name); break;
  }
}

static void emit_attr(gen *g, const char *name, uint32_t v) {
  tok(g, "@");
  if (g->plain_attr) {
    /* `@group(0)` as one piece: what a plain program writes. */
    sb_str(g->cur, name);
    sb_str(g->cur, "(");
    char buf[16];
    snprintf(buf, sizeof buf, "%u)", v);
    sb_str(g->cur, buf);
    return;
  }
  tok(g, name);
  tok(g, "(");
  uint32_t r = lrnd(g, 100);
  if (r < 4 && g->nconst < 8) {
    /* A module constant (declared anywhere at module scope). */
    char c[NAME_MAX_BYTES];
    new_name(g, c);
    tok(g, c);
    snprintf(g->consts[g->nconst], sizeof g->consts[0], "const %s = %uu;\n", c, v);
    g->nconst++;
  } else if (r < 8) {
    /* A constant expression. */
    int_lit(g, v + 2, true);
    tok(g, "-");
    tok(g, "2");
  } else {
    int_lit(g, v, false);
  }
  if (lchance(g, 10)) tok(g, ",");
  tok(g, ")");
}

static void emit_binding_decl(gen *g, const gbind *b) {
  if (lchance(g, 50)) {
    emit_attr(g, "group", b->group);
    emit_attr(g, "binding", b->binding);
  } else {
    emit_attr(g, "binding", b->binding);
    emit_attr(g, "group", b->group);
  }
  tok(g, "var");
  tok(g, "<");
  if (b->kind == K_UNIFORM) {
    tok(g, "uniform");
  } else {
    tok(g, "storage");
    if (b->kind == K_RW) {
      tok(g, ",");
      tok(g, "read_write");
    } else if (lchance(g, 70)) {
      tok(g, ",");
      tok(g, "read");
    }
    if (!g->plain_attr && lchance(g, 10)) tok(g, ",");
  }
  tok(g, ">");
  tok(g, b->name);
  tok(g, ":");
  if (b->kind == K_UNIFORM) {
    if (lchance(g, 50)) {
      tok(g, "vec4u");
    } else {
      tok(g, "vec4"); tok(g, "<"); tok(g, "u32"); tok(g, ">");
    }
  } else {
    emit_type(g, b->shape);
  }
  tok(g, ";");
  sb_str(g->cur, "\n");
}

/* ---- expressions ------------------------------------------------------------ */

/* An index below 4; `gid.x` is 0 in the one invocation, and only the entry
 * point has it. */
static void emit_index(gen *g, bool in_main) {
  uint32_t v = rnd(g, 4);
  switch (rnd(g, in_main ? 4 : 3)) {
  case 0: u32_lit(g, v); break;
  case 1: tok(g, "("); u32_lit(g, v + 4); tok(g, "&"); tok(g, "3u"); tok(g, ")"); break;
  case 2: tokf(g, "%u", v); break;
  default: tok(g, "("); tok(g, g->gid); tok(g, "."); tok(g, "x"); tok(g, "+"); u32_lit(g, v); tok(g, ")"); break;
  }
}

/* A read of the value source (a read-only or uniform binding, filled with
 * the canary and never changed). */
static void emit_ro_read(gen *g) {
  const gbind *r = &g->b[g->ro_index];
  tok(g, r->name);
  if (r->kind == K_UNIFORM) {
    if (chance(g, 50)) {
      tok(g, ".");
      tok(g, chance(g, 50) ? "x" : "w");
    } else {
      tok(g, "[");
      tok(g, "1");
      tok(g, "]");
    }
    return;
  }
  switch (r->shape) {
  case T_STRUCT:
    tok(g, ".");
    if (chance(g, 50)) {
      tok(g, g->s_scalar);
    } else {
      tok(g, g->s_arr); tok(g, "["); tok(g, "2u"); tok(g, "]");
    }
    break;
  default: tok(g, "["); tok(g, "1u"); tok(g, "]"); break;
  }
}

/* A u32 value that is never the canary. */
static void emit_value(gen *g) {
  if (!g->have_ro_scalar || chance(g, 40)) {
    u32_lit(g, 1 + rnd(g, 200));
    return;
  }
  tok(g, "(");
  emit_ro_read(g);
  switch (rnd(g, 4)) {
  case 0: tok(g, "^"); u32_lit(g, 1 + rnd(g, 255)); break;
  case 1: tok(g, "&"); tok(g, "0xFFu"); break; /* bitwise & next to a name */
  case 2: tok(g, "+"); u32_lit(g, 1 + rnd(g, 255)); break;
  default: tok(g, ">>"); tok(g, "3u"); break;
  }
  tok(g, ")");
}

/* The compound assignments, each with an operand that changes the canary
 * (0xA5A5A5A5: bit 1 clear, not a multiple of 7). */
static const char *const compound_ops[][2] = {
    {"+=", "1u"}, {"-=", "1u"}, {"*=", "3u"}, {"/=", "2u"}, {"%=", "7u"},
    {"&=", "0xFFu"}, {"|=", "2u"}, {"^=", "1u"}, {"<<=", "1u"}, {">>=", "1u"},
};

/* A statement storing into the u32 place just emitted (the caller wrote the
 * left-hand side). */
static void emit_store_tail(gen *g) {
  switch (rnd(g, 3)) {
  case 0: how(g, "="); tok(g, "="); emit_value(g); break;
  case 1: {
    const char *op = chance(g, 50) ? "++" : "--";
    how(g, op);
    tok(g, op);
    break;
  }
  default: {
    int i = (int)rnd(g, UL__COUNT_OF(compound_ops));
    how(g, compound_ops[i][0]);
    tok(g, compound_ops[i][0]);
    tok(g, compound_ops[i][1]);
    break;
  }
  }
  tok(g, ";");
}

/* Base expressions of a place: how the left-hand side reaches variable `name`
 * (B_NAME .. B_DEREF_ADDR) or pointer `name` (B_PTR_*). */
enum base { B_NAME, B_PAREN, B_DEREF_ADDR, B_PTR_DEREF, B_PTR_DIRECT };

static void emit_base(gen *g, const char *name, int base) {
  static const char *const tags[] = {"x", "(x)", "(*&x)", "(*p)", "p"};
  how(g, tags[base]);
  switch (base) {
  case B_NAME: tok(g, name); break;
  case B_PAREN: tok(g, "("); tok(g, name); tok(g, ")"); break;
  case B_DEREF_ADDR: tok(g, "("); tok(g, "*"); tok(g, "&"); tok(g, name); tok(g, ")"); break;
  case B_PTR_DEREF: tok(g, "("); tok(g, "*"); tok(g, name); tok(g, ")"); break;
  case B_PTR_DIRECT: tok(g, name); break; /* pointer composite access */
  }
}

/* A u32 place inside a value of `shape` reached through `base` (not for
 * the atomic array). */
static void emit_place(gen *g, int shape, const char *name, int base, bool in_main) {
  emit_base(g, name, base);
  switch (shape) {
  case T_STRUCT:
    tok(g, ".");
    if (chance(g, 50)) {
      how(g, ".m");
      tok(g, g->s_scalar);
    } else {
      how(g, ".a[i]");
      tok(g, g->s_arr); tok(g, "["); emit_index(g, in_main); tok(g, "]");
    }
    break;
  case T_ATOMSTRUCT: how(g, ".m"); tok(g, "."); tok(g, g->sa_plain); break;
  default: how(g, "[i]"); tok(g, "["); emit_index(g, in_main); tok(g, "]"); break;
  }
}

/* An atomic place's address: &X[i], &X.m, &(*p)[i], &p[i]. */
static void emit_atomic_addr(gen *g, int shape, const char *name, int base, bool in_main) {
  tok(g, "&");
  emit_base(g, name, base);
  if (shape == T_ATOMARR) {
    tok(g, "["); emit_index(g, in_main); tok(g, "]");
  } else {
    tok(g, "."); tok(g, g->sa_atom);
  }
}

/* An atomic store (or read-modify-write) at the atomic place of `name`. */
static void emit_atomic_store(gen *g, int shape, const char *name, int base, bool in_main) {
  switch (rnd(g, 6)) {
  case 0:
    how(g, "atomicStore");
    tok(g, "atomicStore"); tok(g, "("); emit_atomic_addr(g, shape, name, base, in_main); tok(g, ",");
    u32_lit(g, 5); tok(g, ")"); tok(g, ";");
    break;
  case 1:
    how(g, "atomicExchange");
    tok(g, "_"); tok(g, "=");
    tok(g, "atomicExchange"); tok(g, "("); emit_atomic_addr(g, shape, name, base, in_main); tok(g, ",");
    u32_lit(g, 9); tok(g, ")"); tok(g, ";");
    break;
  case 2: {
    /* A compare-exchange in a loop: weak may fail spuriously. */
    char r[NAME_MAX_BYTES];
    new_name(g, r);
    how(g, "atomicCompareExchangeWeak");
    tok(g, "loop"); tok(g, "{");
    tok(g, "let"); tok(g, r); tok(g, "=");
    tok(g, "atomicCompareExchangeWeak"); tok(g, "("); emit_atomic_addr(g, shape, name, base, in_main);
    tok(g, ","); tokf(g, "0x%Xu", CANARY); tok(g, ","); u32_lit(g, 3); tok(g, ")"); tok(g, ";");
    tok(g, "if"); tok(g, r); tok(g, "."); tok(g, "exchanged"); tok(g, "||");
    tok(g, "("); tok(g, r); tok(g, "."); tok(g, "old_value"); tok(g, "!="); tokf(g, "0x%Xu", CANARY);
    tok(g, ")"); tok(g, "{"); tok(g, "break"); tok(g, ";"); tok(g, "}");
    tok(g, "}");
    break;
  }
  default: {
    static const char *const rmw[][2] = {{"atomicAdd", "1u"}, {"atomicSub", "1u"}, {"atomicMax", "0xFFFFFFFFu"},
                                         {"atomicMin", "0u"}, {"atomicAnd", "0xFu"}, {"atomicOr", "2u"},
                                         {"atomicXor", "1u"}};
    int i = (int)rnd(g, UL__COUNT_OF(rmw));
    how(g, rmw[i][0]);
    bool phony = chance(g, 50);
    if (phony) {
      tok(g, "_");
      tok(g, "=");
    }
    tok(g, rmw[i][0]); tok(g, "("); emit_atomic_addr(g, shape, name, base, in_main); tok(g, ",");
    tok(g, rmw[i][1]); tok(g, ")"); tok(g, ";");
    break;
  }
  }
}

/* The type of a pointer to a binding of `shape`: ptr<storage, T, read_write>. */
static void emit_ptr_type(gen *g, int shape) {
  tok(g, "ptr"); tok(g, "<"); tok(g, "storage"); tok(g, ","); emit_type(g, shape); tok(g, ",");
  tok(g, "read_write"); tok(g, ">");
}

static bool atomic_shape(int shape) { return shape == T_ATOMARR || shape == T_ATOMSTRUCT; }

/* Another binding's name, for a parameter or member that reuses it (NULL
 * when there is none). */
static const char *other_global(gen *g, const gbind *not_this) {
  const gbind *o = &g->b[rnd(g, (uint32_t)g->nb)];
  return o == not_this ? NULL : o->name;
}

/* Another binding's name for a local or parameter that hides it, never the
 * value source (which the values read). */
static const char *hiding_name(gen *g, const gbind *not_this) {
  const char *o = other_global(g, not_this);
  if (o && g->have_ro_scalar && !strcmp(o, g->b[g->ro_index].name)) o = NULL;
  return o;
}

/* `let p = &X;`, perhaps named like another global (in a block of its own,
 * which *close says to end), perhaps copied on (`let q = p;`): the name of
 * the pointer to store through is left in p. */
static void emit_let_ptr(gen *g, const gbind *b, char *p, bool *close) {
  const char *o = chance(g, 25) ? hiding_name(g, b) : NULL;
  *close = o != NULL;
  if (o) {
    how(g, "{let-p(named-as-global)=&x");
    tok(g, "{");
    snprintf(p, NAME_MAX_BYTES, "%s", o);
  } else {
    how(g, "let-p=&x");
    new_name(g, p);
  }
  tok(g, "let"); tok(g, p); tok(g, "="); tok(g, "&"); tok(g, b->name); tok(g, ";");
  if (chance(g, 30)) {
    char q[NAME_MAX_BYTES];
    new_name(g, q);
    how(g, "let-q=p");
    tok(g, "let"); tok(g, q); tok(g, "="); tok(g, p); tok(g, ";");
    snprintf(p, NAME_MAX_BYTES, "%s", q);
  }
}



/* One store into binding b, in the current function (in_main: the entry
 * point, which has gid). */
static void emit_store_here(gen *g, const gbind *b, bool in_main) {
  int form = (int)rnd(g, 8);
  if (atomic_shape(b->shape)) {
    /* Atomics: through the name, `*&`, parentheses or a let pointer. */
    if (b->shape == T_ATOMSTRUCT && chance(g, 25)) {
      emit_place(g, b->shape, b->name, (int)rnd(g, 3), in_main);
      emit_store_tail(g);
      return;
    }
    if (form < 5) {
      emit_atomic_store(g, b->shape, b->name, (int)rnd(g, 3), in_main);
    } else {
      char p[NAME_MAX_BYTES];
      bool close;
      emit_let_ptr(g, b, p, &close);
      emit_atomic_store(g, b->shape, p, chance(g, 50) ? B_PTR_DEREF : B_PTR_DIRECT, in_main);
      if (close) tok(g, "}");
    }
    return;
  }
  switch (form) {
  case 0: case 1: case 2:
    emit_place(g, b->shape, b->name, (int)rnd(g, 3), in_main);
    emit_store_tail(g);
    break;
  case 3: {
    /* let p = &X; then (*p)[i] or p[i] */
    char p[NAME_MAX_BYTES];
    bool close;
    emit_let_ptr(g, b, p, &close);
    emit_place(g, b->shape, p, chance(g, 50) ? B_PTR_DEREF : B_PTR_DIRECT, in_main);
    emit_store_tail(g);
    if (close) tok(g, "}");
    break;
  }
  case 4: {
    /* let q = &X[i]; *q = v; */
    char q[NAME_MAX_BYTES];
    new_name(g, q);
    how(g, "let-q=&x[i];*q");
    tok(g, "let"); tok(g, q); tok(g, "="); tok(g, "&"); emit_place(g, b->shape, b->name, B_NAME, in_main);
    tok(g, ";");
    tok(g, "*"); tok(g, q); emit_store_tail(g);
    break;
  }
  case 5:
    /* *&X[i] = v; and (X[i]) = v; */
    if (chance(g, 50)) {
      how(g, "*&x[i]");
      tok(g, "*"); tok(g, "&"); emit_place(g, b->shape, b->name, B_NAME, in_main);
    } else {
      how(g, "(x[i])");
      tok(g, "("); emit_place(g, b->shape, b->name, B_NAME, in_main); tok(g, ")");
    }
    emit_store_tail(g);
    break;
  case 6:
    if (b->shape == T_FIXARR || b->shape == T_ALIAS) {
      /* The whole variable. */
      how(g, "x=whole");
      tok(g, b->name); tok(g, "=");
      if (b->shape == T_ALIAS) {
        tok(g, g->alias); tok(g, "("); tok(g, ")"); /* zero */
      } else {
        tok(g, "array"); tok(g, "<"); tok(g, "u32"); tok(g, ","); tok(g, "4"); tok(g, ">");
        tok(g, "("); u32_lit(g, 1); tok(g, ","); u32_lit(g, 2); tok(g, ","); u32_lit(g, 3); tok(g, ",");
        u32_lit(g, 4); tok(g, ")");
      }
      tok(g, ";");
      break;
    }
    /* fall through */
  default:
    emit_place(g, b->shape, b->name, B_NAME, in_main);
    emit_store_tail(g);
    break;
  }
}

/* A local named like global `name`, stored to in an inner scope: it is not
 * the global (a reading may call the global written; the other way round,
 * a store to the global after the scope, would be a miss). */
static void emit_shadow(gen *g, const char *name) {
  how(g, "shadow-scope-before");
  tok(g, "{");
  if (chance(g, 50)) {
    tok(g, "var"); tok(g, name); tok(g, "="); u32_lit(g, 1); tok(g, ";");
    tok(g, name); tok(g, "+="); u32_lit(g, 2); tok(g, ";");
    tok(g, "_"); tok(g, "="); tok(g, name); tok(g, ";");
  } else {
    tok(g, "let"); tok(g, name); tok(g, "="); u32_lit(g, 1); tok(g, ";");
    tok(g, "_"); tok(g, "="); tok(g, name); tok(g, ";");
  }
  tok(g, "}");
}

static void emit_store_in_context(gen *g, const gbind *b, bool in_main);

/* A control-flow construct whose body runs exactly once, around the store. */
static void emit_control(gen *g, const gbind *b, bool in_main) {
  switch (rnd(g, 7)) {
  case 0: /* if with a comparison that holds */
    how(g, "if");
    tok(g, "if"); tok(g, "("); u32_lit(g, 1); tok(g, PICK(g, ((const char *const[]){"<=", "!=", "<"})));
    u32_lit(g, 2); tok(g, ")"); tok(g, "{");
    emit_store_in_context(g, b, in_main);
    tok(g, "}");
    break;
  case 1:
    how(g, "else");
    tok(g, "if"); tok(g, "false"); tok(g, "{"); tok(g, "}"); tok(g, "else"); tok(g, "{");
    emit_store_in_context(g, b, in_main);
    tok(g, "}");
    break;
  case 2:
    how(g, "loop");
    tok(g, "loop"); tok(g, "{");
    emit_store_in_context(g, b, in_main);
    tok(g, "break"); tok(g, ";"); tok(g, "}");
    break;
  case 3: {
    char i[NAME_MAX_BYTES];
    new_name(g, i);
    how(g, "for");
    tok(g, "for"); tok(g, "("); tok(g, "var"); tok(g, i); tok(g, "="); tok(g, "0u"); tok(g, ";");
    tok(g, i); tok(g, "<"); tok(g, "1u"); tok(g, ";"); tok(g, i); tok(g, "++"); tok(g, ")"); tok(g, "{");
    emit_store_in_context(g, b, in_main);
    tok(g, "}");
    break;
  }
  case 4: {
    char k[NAME_MAX_BYTES];
    new_name(g, k);
    tok(g, "var"); tok(g, k); tok(g, "="); tok(g, "0u"); tok(g, ";");
    how(g, "while");
    tok(g, "while"); tok(g, "("); tok(g, k); tok(g, ">="); tok(g, "0u"); tok(g, "&&"); tok(g, k);
    tok(g, "=="); tok(g, "0u"); tok(g, ")"); tok(g, "{");
    tok(g, k); tok(g, "="); tok(g, k); tok(g, "+"); tok(g, "1u"); tok(g, ";");
    emit_store_in_context(g, b, in_main);
    tok(g, "}");
    break;
  }
  case 5:
    how(g, "switch");
    tok(g, "switch"); tok(g, "("); tok(g, "2u"); tok(g, ")"); tok(g, "{");
    tok(g, "case"); tok(g, "1u"); tok(g, ","); tok(g, "3u"); tok(g, ":"); tok(g, "{"); tok(g, "}");
    tok(g, "case"); tok(g, "2u"); tok(g, "{");
    emit_store_in_context(g, b, in_main);
    tok(g, "}");
    tok(g, "default"); tok(g, "{"); tok(g, "}");
    tok(g, "}");
    break;
  default:
    how(g, "block");
    tok(g, "{");
    emit_store_in_context(g, b, in_main);
    tok(g, "}");
    break;
  }
}

/* A function that stores through its pointer parameter (into g->fns);
 * its name in fname. */
static void emit_ptr_store_fn(gen *g, const gbind *b, char *fname) {
  char q[NAME_MAX_BYTES];
  new_name(g, fname);
  new_name(g, q);
  sb *saved = g->cur;
  sb fn = {0};
  g->cur = &fn;
  tok(g, "fn"); tok(g, fname); tok(g, "("); tok(g, q); tok(g, ":"); emit_ptr_type(g, b->shape); tok(g, ")");
  tok(g, "{");
  if (atomic_shape(b->shape)) {
    emit_atomic_store(g, b->shape, q, chance(g, 50) ? B_PTR_DEREF : B_PTR_DIRECT, false);
  } else {
    emit_place(g, b->shape, q, chance(g, 50) ? B_PTR_DEREF : B_PTR_DIRECT, false);
    emit_store_tail(g);
  }
  tok(g, "}");
  sb_str(&fn, "\n");
  sb_str(&g->fns, fn.p);
  free(fn.p);
  g->cur = saved;
}

/* A helper function holding the store, written to g->fns, and its call
 * here. */
static void emit_helper(gen *g, const gbind *b, bool in_main) {
  char fname[NAME_MAX_BYTES], pname[NAME_MAX_BYTES];
  new_name(g, fname);
  sb *saved = g->cur;
  sb fn = {0};
  g->cur = &fn;
  g->depth++;
  int saved_nest = g->nest;
  g->nest = 0;
  int kind = (int)rnd(g, 4);
  bool returns = chance(g, 30);
  bool o_param = false;
  tok(g, "fn");
  tok(g, fname);
  tok(g, "(");
  if (kind >= 2) {
    /* A pointer parameter, sometimes named like another global (which it
     * then hides inside the function). */
    const char *o = chance(g, 30) ? hiding_name(g, b) : NULL;
    o_param = o != NULL;
    if (o)
      snprintf(pname, sizeof pname, "%s", o);
    else
      new_name(g, pname);
    tok(g, pname);
    tok(g, ":");
    if (kind == 3 && !atomic_shape(b->shape)) {
      tok(g, "ptr"); tok(g, "<"); tok(g, "storage"); tok(g, ","); tok(g, "u32"); tok(g, ",");
      tok(g, "read_write"); tok(g, ">");
    } else {
      kind = 2;
      emit_ptr_type(g, b->shape);
    }
  }
  tok(g, ")");
  if (returns) {
    tok(g, "->");
    tok(g, "u32");
  }
  tok(g, "{");
  how(g, kind < 2 ? "helper{" : kind == 3 ? "helper(p:ptr<u32>){*p" : "helper(p:ptr<T>){");
  if (o_param) how(g, "param-named-as-global");
  if (kind < 2) {
    emit_store_in_context(g, b, false);
  } else if (kind == 3) {
    tok(g, "*"); tok(g, pname); emit_store_tail(g);
  } else if (chance(g, 25)) {
    /* The pointer passed on to another function, which stores. */
    char inner[NAME_MAX_BYTES];
    how(g, "forward(p){");
    emit_ptr_store_fn(g, b, inner);
    how(g, "}");
    tok(g, inner); tok(g, "("); tok(g, pname); tok(g, ")"); tok(g, ";");
  } else if (atomic_shape(b->shape)) {
    emit_atomic_store(g, b->shape, pname, chance(g, 50) ? B_PTR_DEREF : B_PTR_DIRECT, false);
  } else {
    emit_place(g, b->shape, pname, chance(g, 50) ? B_PTR_DEREF : B_PTR_DIRECT, false);
    emit_store_tail(g);
  }
  if (returns) {
    tok(g, "return"); u32_lit(g, 1); tok(g, ";");
  }
  tok(g, "}");
  how(g, "}");
  sb_str(&fn, "\n");
  g->depth--;
  g->nest = saved_nest;
  sb_str(&g->fns, fn.p);
  free(fn.p);
  g->cur = saved;

  /* The call. */
  if (returns) {
    if (chance(g, 50)) {
      tok(g, "_");
    } else {
      char t[NAME_MAX_BYTES];
      new_name(g, t);
      tok(g, "let"); tok(g, t);
    }
    tok(g, "=");
  }
  tok(g, fname);
  tok(g, "(");
  if (kind == 2) {
    tok(g, "&");
    tok(g, b->name);
  } else if (kind == 3) {
    tok(g, "&");
    emit_place(g, b->shape, b->name, B_NAME, in_main);
  }
  tok(g, ")");
  tok(g, ";");
}

static void emit_store_in_context(gen *g, const gbind *b, bool in_main) {
  /* A local of the same name in a scope that ends before the store. */
  if (chance(g, 10)) emit_shadow(g, b->name);
  uint32_t r = rnd(g, 100);
  if (r < 25 && g->nest < 3) {
    g->nest++;
    emit_control(g, b, in_main);
    g->nest--;
  } else if (r < 50 && g->depth < 2) {
    emit_helper(g, b, in_main);
  } else {
    emit_store_here(g, b, in_main);
  }
}

/* A use of binding b that only reads it. */
static void emit_read(gen *g, const gbind *b, bool in_main) {
  if (b->kind == K_UNIFORM) {
    tok(g, "_"); tok(g, "="); tok(g, b->name); tok(g, "."); tok(g, chance(g, 50) ? "y" : "z"); tok(g, ";");
    return;
  }
  if (atomic_shape(b->shape)) {
    if (chance(g, 50)) {
      tok(g, "_");
    } else {
      char t[NAME_MAX_BYTES];
      new_name(g, t);
      tok(g, "let"); tok(g, t);
    }
    tok(g, "="); tok(g, "atomicLoad"); tok(g, "("); emit_atomic_addr(g, b->shape, b->name, B_NAME, in_main);
    tok(g, ")"); tok(g, ";");
    return;
  }
  switch (rnd(g, 5)) {
  case 0:
    tok(g, "_"); tok(g, "="); emit_place(g, b->shape, b->name, chance(g, 70) ? B_NAME : B_PAREN, in_main);
    tok(g, ";");
    break;
  case 1: {
    char t[NAME_MAX_BYTES];
    new_name(g, t);
    tok(g, "let"); tok(g, t); tok(g, "="); emit_place(g, b->shape, b->name, B_NAME, in_main);
    tok(g, PICK(g, ((const char *const[]){"+", "&", "|", "*", "<<"}))); u32_lit(g, 1); tok(g, ";");
    tok(g, "_"); tok(g, "="); tok(g, t); tok(g, ";");
    break;
  }
  case 2:
    /* Comparisons: `<=`, `>=`, `==`, `!=` right after the place. */
    tok(g, "if"); tok(g, "("); emit_place(g, b->shape, b->name, B_NAME, in_main);
    tok(g, PICK(g, ((const char *const[]){"<=", ">=", "==", "!=", "<", ">"})));
    u32_lit(g, 3); tok(g, ")"); tok(g, "{"); tok(g, "_"); tok(g, "="); tok(g, "0u"); tok(g, ";"); tok(g, "}");
    break;
  case 3:
    if (b->shape == T_RTARR && !g->user_array_length) {
      tok(g, "_"); tok(g, "="); tok(g, "arrayLength"); tok(g, "("); tok(g, "&"); tok(g, b->name); tok(g, ")");
      tok(g, ";");
      break;
    }
    /* fall through */
  default: {
    /* A read in a helper function. */
    char fname[NAME_MAX_BYTES];
    new_name(g, fname);
    sb *saved = g->cur;
    g->cur = &g->fns;
    tok(g, "fn"); tok(g, fname); tok(g, "("); tok(g, ")"); tok(g, "->"); tok(g, "u32"); tok(g, "{");
    tok(g, "return"); emit_place(g, b->shape, b->name, B_NAME, false); tok(g, ";"); tok(g, "}");
    sb_str(g->cur, "\n");
    g->cur = saved;
    tok(g, "_"); tok(g, "="); tok(g, fname); tok(g, "("); tok(g, ")"); tok(g, ";");
    break;
  }
  }
}

/* The user function named arrayLength (shadowing the builtin), which
 * stores through its pointer parameter; `_ = arrayLength(&x)` then writes. */
static void emit_user_array_length(gen *g, const gbind *b) {
  sb *saved = g->cur;
  g->cur = &g->fns;
  char p[NAME_MAX_BYTES];
  new_name(g, p);
  tok(g, "fn"); tok(g, "arrayLength"); tok(g, "("); tok(g, p); tok(g, ":"); emit_ptr_type(g, T_RTARR);
  tok(g, ")"); tok(g, "->"); tok(g, "u32"); tok(g, "{");
  emit_place(g, T_RTARR, p, chance(g, 50) ? B_PTR_DEREF : B_PTR_DIRECT, false);
  emit_store_tail(g);
  tok(g, "return"); tok(g, "0u"); tok(g, ";"); tok(g, "}");
  sb_str(g->cur, "\n");
  g->cur = saved;
  (void)b;
}

/* Generates shader `seed` into g (text: g->decls); plain: in the plain
 * style, with the same structure. */
static void generate(gen *g, uint64_t seed, bool plain) {
  sb decls = g->decls, fns = g->fns, body = g->body;
  sb_clear(&decls);
  sb_clear(&fns);
  sb_clear(&body);
  memset(g, 0, sizeof *g);
  g->decls = decls;
  g->fns = fns;
  g->body = body;
  g->rng = seed * 0x2545F4914F6CDD1Dull + 1;
  g->lrng = seed * 0x9E3779B97F4A7C15ull + 7;
  /* Styles: plain (ASCII names, one space or a line break between every
   * two tokens, attributes as programs write them), ASCII with every
   * spelling the grammar allows, Unicode in comments, Unicode
   * everywhere. */
  uint32_t style = lrnd(g, 10);
  if (plain) style = 0;
  /* Unicode: in comments only (what a reading that gives up on non-ASCII
   * code must still follow), or everywhere. */
  g->uni_comments = style >= 7;
  g->uni_names = g->uni_blanks = style >= 8;
  g->plain_attr = style < 3;
  g->fancy = style < 3 ? 0 : (int)(5 + lrnd(g, 30));

  /* Bindings: 2 to 6 storage, perhaps a uniform; groups 0 and 1. */
  int n = 2 + (int)rnd(g, 5);
  bool uniform = chance(g, 40);
  bool used[2][8] = {{false}};
  for (int i = 0; i < n + (uniform ? 1 : 0); i++) {
    gbind *b = &g->b[g->nb++];
    do {
      b->group = rnd(g, 2);
      b->binding = rnd(g, 8);
    } while (used[b->group][b->binding]);
    used[b->group][b->binding] = true;
    new_name(g, b->name);
    if (i == n) {
      b->kind = K_UNIFORM;
      continue;
    }
    b->kind = chance(g, 70) ? K_RW : K_RO;
    if (b->kind == K_RW) {
      b->shape = (int)rnd(g, T_COUNT);
      b->store = chance(g, 60);
    } else {
      b->shape = (int)rnd(g, T_ATOMARR);
    }
  }
  g->ro_index = -1;
  for (int i = 0; i < g->nb; i++)
    if (g->b[i].kind != K_RW && g->ro_index < 0) g->ro_index = i;
  g->have_ro_scalar = g->ro_index >= 0;

  /* Types: member names sometimes a global's name. */
  g->cur = &g->decls;
  new_name(g, g->s_name);
  new_name(g, g->sa_name);
  new_name(g, g->alias);
  char *members[] = {g->s_scalar, g->s_arr, g->sa_atom, g->sa_plain};
  for (size_t i = 0; i < UL__COUNT_OF(members); i++) {
    const char *o = chance(g, 25) ? other_global(g, NULL) : NULL;
    if (o && (i % 2 == 0 || strcmp(o, members[i - 1])))
      snprintf(members[i], NAME_MAX_BYTES, "%s", o);
    else
      new_name(g, members[i]);
  }
  if (lchance(g, 30)) sep(g); /* blankspace or a comment first */
  tok(g, "struct"); tok(g, g->s_name); tok(g, "{");
  tok(g, g->s_scalar); tok(g, ":"); tok(g, "u32"); tok(g, ",");
  tok(g, g->s_arr); tok(g, ":"); emit_type(g, T_FIXARR); if (lchance(g, 50)) tok(g, ",");
  tok(g, "}");
  sb_str(g->cur, "\n");
  tok(g, "struct"); tok(g, g->sa_name); tok(g, "{");
  tok(g, g->sa_atom); tok(g, ":"); tok(g, "atomic"); tok(g, "<"); tok(g, "u32"); tok(g, ">"); tok(g, ",");
  tok(g, g->sa_plain); tok(g, ":"); tok(g, "u32");
  tok(g, "}");
  sb_str(g->cur, "\n");
  tok(g, "alias"); tok(g, g->alias); tok(g, "="); tok(g, "array"); tok(g, "<"); tok(g, "u32"); tok(g, ",");
  tok(g, "8"); tok(g, ">"); tok(g, ";");
  sb_str(g->cur, "\n");
  for (int i = 0; i < g->nb; i++) emit_binding_decl(g, &g->b[i]);

  /* The user arrayLength: for one stored runtime array, sometimes. */
  int ual = -1;
  for (int i = 0; i < g->nb; i++)
    if (g->b[i].kind == K_RW && g->b[i].store && g->b[i].shape == T_RTARR && ual < 0 && chance(g, 40)) ual = i;
  if (ual >= 0) {
    g->user_array_length = true;
    emit_user_array_length(g, &g->b[ual]);
  }

  /* The entry point's body: for each binding its reads, its store and
   * shadows, in a random order. */
  g->cur = &g->body;
  new_name(g, g->gid);
  enum { I_READ, I_STORE, I_SHADOW };
  struct item { int kind, b; } items[64];
  int ni = 0;
  for (int i = 0; i < g->nb; i++) {
    int reads = (int)rnd(g, 3);
    for (int k = 0; k < reads; k++) items[ni++] = (struct item){I_READ, i};
    if (g->b[i].store) items[ni++] = (struct item){I_STORE, i};
    if (chance(g, 8)) items[ni++] = (struct item){I_SHADOW, i};
  }
  for (int i = ni - 1; i > 0; i--) {
    int j = (int)rnd(g, (uint32_t)i + 1);
    struct item t = items[i];
    items[i] = items[j];
    items[j] = t;
  }
  for (int i = 0; i < ni; i++) {
    const gbind *b = &g->b[items[i].b];
    sb_str(g->cur, "\n ");
    if (items[i].kind == I_READ) {
      emit_read(g, b, true);
    } else if (items[i].kind == I_SHADOW) {
      emit_shadow(g, b->name);
    } else if (items[i].b == ual) {
      snprintf(g->b[ual].how, sizeof g->b[ual].how, "user-fn-arrayLength(p){p[i]op}");
      tok(g, "_"); tok(g, "="); tok(g, "arrayLength"); tok(g, "("); tok(g, "&"); tok(g, b->name); tok(g, ")");
      tok(g, ";");
    } else {
      g->how[0] = 0;
      emit_store_in_context(g, b, true);
      snprintf(g->b[items[i].b].how, sizeof g->b[items[i].b].how, "%s", g->how);
    }
  }

  /* The module: declarations, helpers, the entry point. */
  g->cur = &g->decls;
  sb_str(g->cur, g->fns.p ? g->fns.p : "");
  bool compute_first = lchance(g, 50);
  if (!compute_first) emit_attr(g, "workgroup_size", 1);
  tok(g, "@");
  if (g->plain_attr)
    sb_str(g->cur, "compute");
  else
    tok(g, "compute");
  if (compute_first) emit_attr(g, "workgroup_size", 1);
  char entry[NAME_MAX_BYTES];
  new_name(g, entry);
  tok(g, "fn"); tok(g, entry); tok(g, "(");
  tok(g, "@"); tok(g, "builtin"); tok(g, "("); tok(g, "global_invocation_id"); tok(g, ")");
  tok(g, g->gid); tok(g, ":"); tok(g, "vec3u"); tok(g, ")"); tok(g, "{");
  sb_str(g->cur, g->body.p ? g->body.p : "");
  tok(g, "}");
  sb_str(g->cur, "\n");
  for (int i = 0; i < g->nconst; i++) sb_str(g->cur, g->consts[i]); /* used before: fine at module scope */
  if (lchance(g, 30)) sep(g);
  sb_str(g->cur, "\n");
}

/* ---- the implementation ---------------------------------------------------- */

typedef struct gpu {
  wp_ctx c;
  WGPUBuffer buf[MAX_BIND];
  WGPUBuffer staging;
} gpu;

typedef struct scope_result {
  atomic_bool done;
  WGPUErrorType type;
  char message[4096];
} scope_result;

static void on_pop(WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView message, void *u1,
                   void *u2) {
  (void)u2;
  scope_result *r = u1;
  r->type = status == WGPUPopErrorScopeStatus_Success ? type : WGPUErrorType_Unknown;
  snprintf(r->message, sizeof r->message, "%.*s", wp_sv_len(message), message.data ? message.data : "");
  atomic_store(&r->done, true);
}

/* Runs g's shader once: fills every buffer with the canary, dispatches one
 * invocation and reads every buffer back. 1: ran, changed[i] says whether
 * binding i changed; 0: the implementation rejected it (message in `why`);
 * -1: the implementation failed otherwise. */
static int run_shader(gpu *d, const gen *g, const char *text, bool *changed, char *why, size_t why_cap) {
  wp_ctx *c = &d->c;
  WGPUBindGroupLayoutEntry le[2][MAX_BIND];
  WGPUBindGroupEntry be[2][MAX_BIND];
  size_t ln[2] = {0, 0};
  for (int i = 0; i < g->nb; i++) {
    const gbind *b = &g->b[i];
    WGPUBufferBindingType t = b->kind == K_RW   ? WGPUBufferBindingType_Storage
                              : b->kind == K_RO ? WGPUBufferBindingType_ReadOnlyStorage
                                                : WGPUBufferBindingType_Uniform;
    uint64_t size = b->kind == K_UNIFORM ? 16 : BUF_BYTES;
    le[b->group][ln[b->group]] = wp_layout_buffer(b->binding, t, false, 0);
    be[b->group][ln[b->group]] = wp_bind_buffer(b->binding, d->buf[i], 0, size);
    ln[b->group]++;
  }
  WGPUBindGroupLayout bgl[2];
  for (int k = 0; k < 2; k++) {
    WGPUBindGroupLayoutDescriptor ld = {.entryCount = ln[k], .entries = le[k]};
    bgl[k] = wgpuDeviceCreateBindGroupLayout(c->device, &ld);
  }
  WGPUPipelineLayoutDescriptor pld = {.bindGroupLayoutCount = 2, .bindGroupLayouts = bgl};
  WGPUPipelineLayout pl = wgpuDeviceCreatePipelineLayout(c->device, &pld);

  wgpuDevicePushErrorScope(c->device, WGPUErrorFilter_Validation);
  WGPUShaderModule m = wp_shader(c, "oracle", text);
  WGPUComputePipelineDescriptor pd = {.layout = pl, .compute = {.module = m, .entryPoint = {NULL, WGPU_STRLEN}}};
  WGPUComputePipeline pipe = wgpuDeviceCreateComputePipeline(c->device, &pd);
  scope_result *sr = wp_alloc(sizeof *sr);
  WGPUPopErrorScopeCallbackInfo cb = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_pop, .userdata1 = sr};
  bool waited = wp_wait(c, wgpuDevicePopErrorScope(c->device, cb), "the shader's error scope");
  int rc = 1;
  if (!waited) {
    rc = -1; /* sr stays allocated: its callback may still come */
    snprintf(why, why_cap, "the error scope never completed");
  } else if (sr->type != WGPUErrorType_NoError) {
    rc = 0;
    snprintf(why, why_cap, "%s", sr->message);
  }
  if (waited) free(sr);
  if (rc == 1) {
    uint32_t canary[BUF_BYTES / 4];
    for (size_t i = 0; i < UL__COUNT_OF(canary); i++) canary[i] = CANARY;
    WGPUBindGroup bg[2];
    for (int k = 0; k < 2; k++) bg[k] = wp_bind_group(c, "oracle", bgl[k], be[k], ln[k]);
    for (int i = 0; i < g->nb; i++)
      wgpuQueueWriteBuffer(c->queue, d->buf[i], 0, canary, g->b[i].kind == K_UNIFORM ? 16 : BUF_BYTES);
    WGPUCommandEncoder enc = wp_encoder(c, "oracle");
    WGPUComputePassDescriptor cpd = {0};
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, &cpd);
    wgpuComputePassEncoderSetPipeline(pass, pipe);
    for (int k = 0; k < 2; k++) wgpuComputePassEncoderSetBindGroup(pass, (uint32_t)k, bg[k], 0, NULL);
    wgpuComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
    for (int i = 0; i < g->nb; i++)
      wgpuCommandEncoderCopyBufferToBuffer(enc, d->buf[i], 0, d->staging, (uint64_t)i * BUF_BYTES,
                                           g->b[i].kind == K_UNIFORM ? 16 : BUF_BYTES);
    wp_submit(c, enc);
    uint8_t back[MAX_BIND * BUF_BYTES];
    if (!wp_map_read(c, d->staging, 0, (size_t)g->nb * BUF_BYTES, back)) {
      rc = -1;
      snprintf(why, why_cap, "reading the buffers back failed");
    } else {
      for (int i = 0; i < g->nb; i++)
        changed[i] = memcmp(back + (size_t)i * BUF_BYTES, canary, g->b[i].kind == K_UNIFORM ? 16 : BUF_BYTES) != 0;
    }
    for (int k = 0; k < 2; k++) wgpuBindGroupRelease(bg[k]);
  }
  wgpuComputePipelineRelease(pipe);
  wgpuShaderModuleRelease(m);
  wgpuPipelineLayoutRelease(pl);
  for (int k = 0; k < 2; k++) wgpuBindGroupLayoutRelease(bgl[k]);
  return rc;
}

/* ---- named forms --------------------------------------------------------------- */

/* Forms written by hand, each one way the reading could lose a store, run
 * the same way before the random shaders: they stay covered whatever the
 * seeds. Bindings: (0, 0) `x` and (0, 1) `s` read_write, (0, 2) `r` read;
 * `stored` says which of x (1) and s (2) the shader stores to. */
#define FORM_DECLS(X, S) FORM_DECLS_TYPED(X, "array<u32>", S)
#define FORM_DECLS_TYPED(X, XT, S)                                                        \
  "struct T { m: u32, a: array<u32, 4> }\n"                                              \
  "@group(0) @binding(0) var<storage, read_write> " X ": " XT ";\n"                      \
  "@group(0) @binding(1) var<storage, read_write> " S ": T;\n"                           \
  "@group(0) @binding(2) var<storage, read> r: array<u32>;\n"
#define FORM_MAIN(BODY) "@compute @workgroup_size(1) fn main() { _ = r[0]; " BODY " }\n"
#define FORM(BODY) FORM_DECLS("x", "s") FORM_MAIN(BODY)

static const struct named_form {
  const char *label, *wgsl;
  unsigned stored;
} named_forms[] = {
    {"plain store", FORM("x[0] = 1u; _ = s.m;"), 1},
    {"line comment ended by CR", FORM("// c\r x[0] = 1u;"), 1},
    {"line comment ended by VT", FORM("// c\v x[0] = 1u;"), 1},
    {"line comment ended by FF", FORM("// c\f x[0] = 1u;"), 1},
    {"line comment ended by U+0085", FORM("// c\xc2\x85 x[0] = 1u;"), 1},
    {"line comment ended by U+2028", FORM("// c\xe2\x80\xa8 x[0] = 1u;"), 1},
    {"line comment ended by U+2029", FORM("// c\xe2\x80\xa9 s.m = 1u;"), 2},
    {"U+2028 between name and [", FORM("x\xe2\x80\xa8[0] = 1u;"), 1},
    {"U+200E between ] and =", FORM("x[0]\xe2\x80\x8e= 1u;"), 1},
    {"U+200F between ] and +=", FORM("x[1]\xe2\x80\x8f+= 1u;"), 1},
    {"U+0085 between member and ++", FORM("s.m\xc2\x85++;"), 2},
    {"U+2029 between ( and name", FORM("(\xe2\x80\xa9x)[0] = 1u;"), 1},
    {"U+2028 between & and name", FORM("let p = &\xe2\x80\xa8x; (*p)[0] = 1u;"), 1},
    {"blank after .", FORM("s. m = 1u;"), 2},
    {"line break after .", FORM("s.\n  a[1] = 1u;"), 2},
    {"comment after .", FORM("s./* c */m = 1u;"), 2},
    {"comment in (*p)", FORM("let p = &x; ( /* c */ * /* c */ p ) [0] = 1u;"), 1},
    {"long comment inside var<...>",
     "@group(0) @binding(0) var</* a comment longer than sixty-four bytes, which is not unusual at all */storage, "
     "read_write> x: array<u32>;\n"
     "@group(0) @binding(1) var<storage, read_write> s: array<u32>;\n"
     "@group(0) @binding(2) var<storage, read> r: array<u32>;\n" FORM_MAIN("x[0] = 1u;"), 1},
    {"long blank run inside var<...>",
     "@group(0) @binding(0) var<storage,\n                                                                "
     "read_write> x: array<u32>;\n"
     "@group(0) @binding(1) var<storage, read_write> s: array<u32>;\n"
     "@group(0) @binding(2) var<storage, read> r: array<u32>;\n" FORM_MAIN("x[0] = 1u;"), 1},
    {"user function named arrayLength",
     FORM_DECLS("x", "s") "fn arrayLength(p: ptr<storage, array<u32>, read_write>) -> u32 { p[0] = 7u; return 0u; }\n"
     FORM_MAIN("_ = arrayLength(&x);"), 1},
    {"user function named atomicLoad",
     FORM_DECLS_TYPED("x", "array<atomic<u32>>", "s")
     "fn atomicLoad(p: ptr<storage, atomic<u32>, read_write>) -> u32 { atomicStore(p, 5u); return 0u; }\n"
     FORM_MAIN("_ = atomicLoad(&x[1]);"), 1},
    {"non-ASCII letter inside a name",
     FORM_DECLS("x\xc3\xa9", "s") FORM_MAIN("x\xc3\xa9[0] = 1u;"), 1},
    {"combining mark inside a name",
     FORM_DECLS("x\xcc\x81", "s") FORM_MAIN("x\xcc\x81[0] = 1u;"), 1},
    {"name starting with a non-ASCII letter",
     FORM_DECLS("\xce\xb1x", "s") FORM_MAIN("\xce\xb1x[0] = 1u;"), 1},
    {"pointer copied: let q = p", FORM("let p = &x; let q = p; q[0] = 1u;"), 1},
    {"let pointer named like a global", FORM("{ let s = &x; s[0] = 1u; } _ = s.m;"), 1},
    {"parameter named like a global",
     FORM_DECLS("x", "s") "fn h(s: ptr<storage, array<u32>, read_write>) { s[1] = 2u; }\n" FORM_MAIN("h(&x);"), 1},
    {"pointer passed on",
     FORM_DECLS("x", "s") "fn a(p: ptr<storage, T, read_write>) { b(p); }\n"
     "fn b(q: ptr<storage, T, read_write>) { (*q).a[2] = 3u; }\n" FORM_MAIN("a(&s);"), 2},
    {"pointer to an element", FORM("let p = &s.a; p[3] = 9u;"), 2},
    {"local hiding the global, then the global", FORM("{ var x = 1u; x += 1u; _ = x; } x[0] = 5u;"), 1},
    {"*& and parentheses", FORM("*&x[0] = 1u; ((s)).m = 2u;"), 3},
};

typedef struct counts counts;
static void check(gpu *d, const gen *g, const char *label, const char *text, uint64_t seed, counts *n,
                  bool plain, bool *failed);

static void run_named_forms(gpu *d, counts *n, bool *failed) {
  gen g = {0};
  g.nb = 3;
  g.b[0] = (gbind){.group = 0, .binding = 0, .kind = K_RW, .shape = T_RTARR, .name = "x"};
  g.b[1] = (gbind){.group = 0, .binding = 1, .kind = K_RW, .shape = T_STRUCT, .name = "s"};
  g.b[2] = (gbind){.group = 0, .binding = 2, .kind = K_RO, .shape = T_RTARR, .name = "r"};
  for (size_t i = 0; i < UL__COUNT_OF(named_forms); i++) {
    const struct named_form *f = &named_forms[i];
    g.b[0].store = f->stored & 1;
    g.b[1].store = (f->stored & 2) != 0;
    snprintf(g.b[0].how, sizeof g.b[0].how, "%s", f->label);
    snprintf(g.b[1].how, sizeof g.b[1].how, "%s", f->label);
    check(d, &g, f->label, f->wgsl, 0, n, true, failed);
  }
}

/* ---- the test ---------------------------------------------------------------- */

typedef struct counts {
  unsigned generated, compiled, rejected, known, ascii, ascii_known;
  unsigned rw_unchanged_known, proven_ro, changed, misses, unchanged_planned, unplanned, impossible;
  bool broken; /* the implementation failed: stop */
} counts;

static bool ascii_only(const char *s) {
  for (; *s; s++)
    if ((unsigned char)*s >= 0x80) return false;
  return true;
}

static bool truth; /* --truth */

static void print_shader(const char *text) {
  fprintf(stderr, "---- shader ----\n%s\n---- end ----\n", text);
}

static void check(gpu *d, const gen *g, const char *label, const char *text, uint64_t seed, counts *n,
                  bool plain, bool *failed) {
  char what[160], why[4096];
  if (label)
    snprintf(what, sizeof what, "named form \"%s\"", label);
  else
    snprintf(what, sizeof what, "seed %llu", (unsigned long long)seed);
  n->generated++;
  bool changed[MAX_BIND] = {false};
  int r = run_shader(d, g, text, changed, why, sizeof why);
  if (r < 0) {
    fprintf(stderr, "%s: %s\n", what, why);
    n->broken = true;
    *failed = true;
    return;
  }
  if (r == 0) {
    if (!n->rejected++) {
      fprintf(stderr, "%s: the implementation rejected the shader (a generator bug):\n%s\n", what, why);
      print_shader(text);
    }
    return;
  }
  n->compiled++;
  bool ascii = ascii_only(text);
  ul__wgsl_writes *w;
  if (truth) {
    /* The generator's own plan as the reading: what a sound and exact
     * reading would say (--truth checks the harness and the verdict). */
    w = calloc(1, sizeof *w);
    if (!w) exit(1);
    w->known = true;
    for (int i = 0; i < g->nb; i++)
      if (g->b[i].store) {
        w->group[w->count] = g->b[i].group;
        w->binding[w->count++] = g->b[i].binding;
      }
  } else {
    w = ul__wgsl_analyze(text, strlen(text));
  }
  n->ascii += ascii;
  n->known += w != NULL;
  n->ascii_known += ascii && w != NULL;
  for (int i = 0; i < g->nb; i++) {
    const gbind *b = &g->b[i];
    bool may = ul__wgsl_may_write(w, b->group, b->binding);
    n->changed += changed[i];
    if (changed[i] && b->kind != K_RW) {
      n->impossible++;
      fprintf(stderr, "%s: binding (%u, %u) is not read_write, yet it changed\n", what, b->group, b->binding);
      *failed = true;
    }
    if (changed[i] && !may) {
      n->misses++;
      /* Lexical or not: the same shader in the plain style. */
      const char *cause = "";
      if (!label && !plain) {
        gen pg = {0};
        generate(&pg, seed, true);
        ul__wgsl_writes *pw = ul__wgsl_analyze(pg.decls.p, strlen(pg.decls.p));
        cause = ul__wgsl_may_write(pw, b->group, b->binding) ? " (lexical: not in the plain style)"
                                                              : " (also in the plain style)";
        free(pw);
        free(pg.decls.p);
        free(pg.fns.p);
        free(pg.body.p);
      }
      fprintf(stderr, "MISS %s binding (%u, %u) store: %s%s%s\n", what, b->group, b->binding,
              b->how[0] ? b->how : "-", cause, ascii ? " [ASCII]" : " [Unicode]");
      if (n->misses <= 3) {
        fprintf(stderr, "MISS: %s: the GPU stored to binding (group %u, binding %u) `%s`, which the reading "
                "calls not written\n", what, b->group, b->binding, b->name);
        print_shader(text);
      }
    }
    if (!b->store && changed[i]) {
      if (!n->unplanned++) {
        fprintf(stderr, "%s: binding (%u, %u) `%s` changed without a planned store (a generator bug)\n", what,
                b->group, b->binding, b->name);
        print_shader(text);
      }
    }
    if (b->store && !changed[i]) {
      if (!n->unchanged_planned++) {
        fprintf(stderr, "%s: the store planned to binding (%u, %u) `%s` changed nothing (a generator bug)\n", what,
                b->group, b->binding, b->name);
        print_shader(text);
      }
    }
    if (w && b->kind == K_RW && !changed[i]) {
      n->rw_unchanged_known++;
      n->proven_ro += !may;
    }
  }
  free(w);
}

int main(int argc, char **argv) {
  /* About half a minute on 2 cores; under a sanitizer a third of it, as
   * the other tests do (each shader costs several times more there). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  unsigned count = 100;
#else
  unsigned count = 300;
#endif
  uint64_t seed = 1;
  bool plain = false, print = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--plain")) {
      plain = true; /* every shader in the plain style */
      continue;
    }
    if (!strcmp(argv[i], "--truth")) {
      truth = true; /* the generator's plan as the reading */
      continue;
    }
    if (!strcmp(argv[i], "--print")) {
      print = true; /* every shader generated on stdout, each ended by a NUL; nothing run */
      continue;
    }
    if (!strcmp(argv[i], "--count") && i + 1 < argc && wp_parse_count(argv[i + 1], 100000000, &count)) {
      i++;
    } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
      seed = strtoull(argv[++i], NULL, 0);
    } else {
      fprintf(stderr, "usage: %s [--count N] [--seed S] [--plain] [--print] [--truth]\n", argv[0]);
      return 2;
    }
  }
  ul_test_current = "test_wgsl_oracle";
  if (print) {
    gen g = {0};
    for (unsigned s = 0; s < count; s++) {
      generate(&g, seed + s, plain);
      fwrite(g.decls.p, 1, g.decls.n + 1, stdout);
    }
    free(g.decls.p);
    free(g.fns.p);
    free(g.body.p);
    return 0;
  }
  /* A shader takes 0.1 s on 2 idle cores, 0.2 s on busy ones. */
  ul_test_watchdog(count < 1000 ? 600 : 120 + count / 2);

  gpu d;
  char *no_args[] = {argv[0], NULL};
  int rc = wp_start(&d.c, "test_wgsl_oracle", 1, no_args);
  if (!rc) rc = wp_open_device(&d.c, NULL, 0, NULL);
  if (rc) return wp_end(&d.c, rc);
  for (int i = 0; i < MAX_BIND; i++)
    d.buf[i] = wp_buffer(&d.c, "binding",
                         WGPUBufferUsage_Storage | WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst |
                             WGPUBufferUsage_CopySrc,
                         BUF_BYTES);
  d.staging = wp_buffer(&d.c, "staging", WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst,
                        MAX_BIND * BUF_BYTES);

  counts n = {0}, nf = {0};
  gen g = {0};
  bool failed = false;
  double t0 = wp_now_s();
  run_named_forms(&d, &nf, &failed);
  printf("wgsl oracle: %u named forms, %u compiled, %u known, %u changed bindings, %u misses\n", nf.generated,
         nf.compiled, nf.known, nf.changed, nf.misses);
  if (nf.misses) printf("FAIL: %u named form(s) stored where the reading saw no store\n", nf.misses);
  if (nf.rejected || nf.unchanged_planned || nf.unplanned)
    printf("FAIL: a named form is wrong (rejected, or its stores not the ones it says)\n");
  failed |= nf.misses || nf.rejected || nf.unchanged_planned || nf.unplanned;
  for (unsigned s = 0; s < count && !n.broken; s++) {
    generate(&g, seed + s, plain);
    check(&d, &g, NULL, g.decls.p, seed + s, &n, plain, &failed);
  }
  double secs = wp_now_s() - t0;
  printf("wgsl oracle: seeds %llu..%llu: %u generated, %u compiled, %u rejected, %u known (%u of %u ASCII-only), "
         "%u of %u unchanged read_write bindings proven read-only, %u changed bindings, %u misses, %u planned "
         "stores unchanged, %u unplanned changes (%.1f s)\n",
         (unsigned long long)seed, (unsigned long long)(seed + count - 1), n.generated, n.compiled, n.rejected,
         n.known, n.ascii_known, n.ascii, n.proven_ro, n.rw_unchanged_known, n.changed, n.misses,
         n.unchanged_planned, n.unplanned, secs);

  /* The verdict. A miss is the failure this test exists for. The others
   * keep it honest: a generator that writes shaders the implementation
   * rejects (more than 1 in 100: a rare corner of the implementation is
   * tolerated, a systematic mistake is not) or stores that change nothing
   * checks less than it claims; and a reading that gives up on most plain
   * ASCII shaders, or never proves a read_write binding read-only, passes
   * vacuously (with unknown every binding counts as written). The bars are
   * low on purpose -- a quarter of the ASCII shaders known, one binding
   * proven read-only -- since every ASCII shader carries many forms a
   * careful reading may give up on; they only apply from 50 shaders on. */
  if (n.misses) {
    printf("FAIL: %u binding(s) stored by the GPU but called not written by the reading\n", n.misses);
    failed = true;
  }
  if (n.rejected * 100 > n.generated) {
    printf("FAIL: the implementation rejected %u of %u generated shaders\n", n.rejected, n.generated);
    failed = true;
  }
  if (n.unchanged_planned || n.unplanned) {
    printf("FAIL: %u planned store(s) changed nothing, %u binding(s) changed without one\n", n.unchanged_planned,
           n.unplanned);
    failed = true;
  }
  if (n.generated >= 50) {
    if (n.ascii_known * 4 < n.ascii) {
      printf("FAIL: vacuous: only %u of %u ASCII-only shaders known to the reading\n", n.ascii_known, n.ascii);
      failed = true;
    }
    if (!n.proven_ro) {
      printf("FAIL: vacuous: no read_write binding ever proven read-only\n");
      failed = true;
    }
    if (!n.changed) {
      printf("FAIL: vacuous: no binding ever changed\n");
      failed = true;
    }
  }
  for (int i = 0; i < MAX_BIND; i++) wgpuBufferRelease(d.buf[i]);
  wgpuBufferRelease(d.staging);
  free(g.decls.p);
  free(g.fns.p);
  free(g.body.p);
  d.c.workload_done = false;
  ul_test_failures += failed;
  return wp_end(&d.c, ul_test_failures ? WP_FAIL : 0);
}
