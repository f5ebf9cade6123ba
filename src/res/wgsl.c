/* Which bindings a WGSL module may write: a reading of its tokens, so that a
 * binding declared read_write but only ever read (as ggml declares its
 * weights) is not taken for GPU-written state.
 *
 * The reading may only err toward "written" (docs/webgpu.md, "Every
 * inference is sound"): a binding it calls read-only is left out of every
 * checkpoint, so one the kernel stores to would come back wrong after a
 * loss, with no error. Hence:
 * - The text is split into tokens by WGSL's lexical grammar: blankspace is
 *   every code point the grammar names (U+0085, U+200E, U+200F, U+2028 and
 *   U+2029 too), a line comment ends at any line break (\n, \v, \f, \r,
 *   U+0085, U+2028, U+2029), block comments nest, an identifier is a run of
 *   letters, digits, '_' and non-ASCII code points other than blankspace (in
 *   a valid module those are XID letters, part of the same identifier), and
 *   numbers must be whole WGSL literals. Anything else (a byte WGSL has no
 *   token for, a malformed UTF-8 sequence, an unclosed comment, a literal
 *   that is not one) makes the module unknown.
 * - A module-scope `var` with a binding is read-only only when proven:
 *   `var<uniform>`, `var<storage>` / `var<storage, read>`, a sampler or a
 *   sampled texture of a predeclared type the module does not redeclare,
 *   and a `var<storage, read_write>` none of whose uses can store. Any
 *   other binding (a storage texture, a type the reading does not know) is
 *   written. A binding number that is not an integer literal makes the
 *   module unknown.
 * - A use of a read_write variable can store when it is, after any number
 *   of indices, members, parentheses and dereferences around it, the left
 *   side of an assignment, a compound assignment, an increment or a
 *   decrement, or when its address is taken (`&`, whatever is done with the
 *   pointer: atomics, a pointer argument, a `let`) except as the argument
 *   of the builtin arrayLength (only while the module declares no function
 *   of that name). A local that shadows the variable is counted as the
 *   variable: more writes, never fewer. A member name after '.' is not a
 *   use.
 * Unknown means every binding may be written. */
#include "res/obj.h"

enum { TK_IDENT, TK_NUM, TK_PUNCT };

typedef struct tok {
  uint8_t kind;
  uint32_t off, len;
} tok;

typedef struct lexer {
  const char *s;
  size_t n;
  tok *t;
  size_t count, cap;
} lexer;

/* The code point at s[i] (UTF-8, of `*len` bytes); -1 when malformed. */
static int32_t utf8_at(const char *src, size_t n, size_t i, size_t *len) {
  const unsigned char *s = (const unsigned char *)src;
  unsigned c = s[i];
  if (c < 0x80) {
    *len = 1;
    return (int32_t)c;
  }
  size_t k;
  uint32_t cp, min;
  if ((c & 0xE0) == 0xC0) k = 2, cp = c & 0x1F, min = 0x80;
  else if ((c & 0xF0) == 0xE0) k = 3, cp = c & 0x0F, min = 0x800;
  else if ((c & 0xF8) == 0xF0) k = 4, cp = c & 0x07, min = 0x10000;
  else return -1;
  if (i + k > n) return -1;
  for (size_t j = 1; j < k; j++) {
    if ((s[i + j] & 0xC0) != 0x80) return -1;
    cp = cp << 6 | (s[i + j] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
  *len = k;
  return (int32_t)cp;
}

static bool line_break(int32_t c) {
  return c == '\n' || c == '\v' || c == '\f' || c == '\r' || c == 0x85 || c == 0x2028 || c == 0x2029;
}

static bool blankspace(int32_t c) { return c == ' ' || c == '\t' || line_break(c) || c == 0x200E || c == 0x200F; }

static bool ascii_ident(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_hex(int c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/* Digits of a class from *i; how many. */
static size_t digits(const char *s, size_t n, size_t *i, bool hex) {
  size_t k = 0;
  while (*i < n && (hex ? is_hex(s[*i]) : is_digit(s[*i]))) (*i)++, k++;
  return k;
}

/* Whether s[0..n) is one whole WGSL numeric literal. */
static bool literal_valid(const char *s, size_t n) {
  size_t i = 0;
  bool hex = n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  if (hex) i = 2;
  size_t whole = digits(s, n, &i, hex), frac = 0;
  bool dot = false, exp = false;
  if (i < n && s[i] == '.') {
    dot = true;
    i++;
    frac = digits(s, n, &i, hex);
  }
  if (!whole && !frac) return false;
  if (i < n && (hex ? (s[i] == 'p' || s[i] == 'P') : (s[i] == 'e' || s[i] == 'E'))) {
    exp = true;
    i++;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    if (!digits(s, n, &i, false)) return false;
  }
  if (hex && dot && !exp && i == n) return true; /* 0x1.8: a hex float needs no exponent */
  bool flt = dot || exp;
  if (!flt && !hex && whole > 1 && s[0] == '0') return false; /* no leading zeros on integers */
  if (i == n) return true;
  char suf = s[i++];
  if (i != n) return false;
  if (suf == 'i' || suf == 'u') return !flt;
  if (suf == 'f' || suf == 'h') return hex ? exp : (flt || !(whole > 1 && s[0] == '0'));
  return false;
}

static bool push(lexer *lx, uint8_t kind, size_t off, size_t len) {
  if (lx->count == lx->cap) {
    size_t cap = lx->cap ? lx->cap * 2 : 256;
    tok *t = realloc(lx->t, cap * sizeof *t);
    if (!t) return false;
    lx->t = t;
    lx->cap = cap;
  }
  lx->t[lx->count++] = (tok){kind, (uint32_t)off, (uint32_t)len};
  return true;
}

/* Splits the module into tokens; false when it cannot (unknown). */
static bool lex(lexer *lx) {
  static const char *const punct3[] = {"<<=", ">>="};
  static const char *const punct2[] = {"->", "&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "+=", "-=",
                                       "*=", "/=", "%=", "&=", "|=", "^=", "++", "--"};
  static const char punct1[] = "&|^~!()[]{},.:;=<>+-*/%@";
  const char *s = lx->s;
  size_t n = lx->n;
  if (n > UINT32_MAX) return false;
  size_t i = 0;
  while (i < n) {
    size_t cl;
    int32_t c = utf8_at(s, n, i, &cl);
    if (c < 0) return false;
    if (blankspace(c)) {
      i += cl;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      for (i += 2; i < n;) {
        int32_t d = utf8_at(s, n, i, &cl);
        if (d < 0) return false;
        if (line_break(d)) break;
        i += cl;
      }
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      size_t depth = 0;
      for (;;) {
        if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
          depth++;
          i += 2;
        } else if (i + 1 < n && s[i] == '*' && s[i + 1] == '/') {
          i += 2;
          if (!--depth) break;
        } else if (i < n) {
          i++;
        } else {
          return false; /* unclosed */
        }
      }
      continue;
    }
    if (is_digit(c) || (c == '.' && i + 1 < n && is_digit(s[i + 1]))) {
      size_t st = i;
      bool hex = c == '0' && i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'X');
      while (i < n) {
        char d = s[i];
        if (ascii_ident(d) || d == '.') {
          i++;
        } else if ((d == '+' || d == '-') &&
                   (hex ? (s[i - 1] == 'p' || s[i - 1] == 'P') : (s[i - 1] == 'e' || s[i - 1] == 'E'))) {
          i++;
        } else {
          break;
        }
      }
      if (!literal_valid(s + st, i - st)) return false;
      if (i < n && (unsigned char)s[i] >= 0x80) {
        int32_t d = utf8_at(s, n, i, &cl);
        if (d < 0 || !blankspace(d)) return false; /* a literal glued to a letter */
      }
      if (!push(lx, TK_NUM, st, i - st)) return false;
      continue;
    }
    if (ascii_ident(c) || c >= 0x80) {
      size_t st = i;
      while (i < n) {
        int32_t d = utf8_at(s, n, i, &cl);
        if (d < 0) return false;
        if (!(d < 0x80 ? ascii_ident(d) : !blankspace(d))) break;
        i += cl;
      }
      if (!push(lx, TK_IDENT, st, i - st)) return false;
      continue;
    }
    size_t pl = 0;
    for (size_t k = 0; k < UL__COUNT_OF(punct3) && !pl; k++)
      if (i + 3 <= n && !memcmp(s + i, punct3[k], 3)) pl = 3;
    for (size_t k = 0; k < UL__COUNT_OF(punct2) && !pl; k++)
      if (i + 2 <= n && !memcmp(s + i, punct2[k], 2)) pl = 2;
    if (!pl && c && strchr(punct1, c)) pl = 1;
    if (!pl) return false; /* a byte WGSL has no token for */
    if (!push(lx, TK_PUNCT, i, pl)) return false;
    i += pl;
  }
  return true;
}

/* ---- questions about tokens ---- */

typedef struct reading {
  const char *s;
  const tok *t;
  size_t n;
} reading;

static bool is(const reading *r, size_t i, const char *text) {
  if (i >= r->n) return false;
  size_t l = strlen(text);
  return r->t[i].len == l && !memcmp(r->s + r->t[i].off, text, l);
}

static bool same(const reading *r, size_t i, size_t j) {
  return r->t[i].len == r->t[j].len && !memcmp(r->s + r->t[i].off, r->s + r->t[j].off, r->t[i].len);
}

static bool is_ident(const reading *r, size_t i) { return i < r->n && r->t[i].kind == TK_IDENT; }

/* Past the group that opens at token i ('(' or '['); n when unbalanced. */
static size_t skip_group(const reading *r, size_t i) {
  size_t depth = 0;
  for (; i < r->n; i++) {
    if (is(r, i, "(") || is(r, i, "[")) depth++;
    else if ((is(r, i, ")") || is(r, i, "]")) && !--depth) return i + 1;
  }
  return r->n;
}

/* Whether token i ends an operand, so that a '&' or '*' after it is a
 * binary operator (after anything else they are unary). */
static bool ends_operand(const reading *r, size_t i) {
  if (i >= r->n) return false;
  if (r->t[i].kind == TK_NUM || is(r, i, ")") || is(r, i, "]")) return true;
  if (r->t[i].kind != TK_IDENT) return false;
  static const char *const kw[] = {"return", "case", "if", "while", "switch", "const_assert", "else", "loop"};
  for (size_t k = 0; k < UL__COUNT_OF(kw); k++)
    if (is(r, i, kw[k])) return false;
  return true;
}

static bool assigns(const reading *r, size_t i) {
  static const char *const ops[] = {"=",  "+=", "-=", "*=",  "/=",  "%=", "&=",
                                    "|=", "^=", "<<=", ">>=", "++", "--"};
  for (size_t k = 0; k < UL__COUNT_OF(ops); k++)
    if (is(r, i, ops[k])) return true;
  return false;
}

/* Whether the module declares `name` itself (a function, type, constant or
 * variable of that name shadows a predeclared one). */
static bool declared(const reading *r, const char *name) {
  static const char *const kw[] = {"fn", "alias", "struct", "const", "override", "let", "var"};
  for (size_t i = 0; i + 1 < r->n; i++) {
    if (!is(r, i + 1, name)) continue;
    for (size_t k = 0; k < UL__COUNT_OF(kw); k++)
      if (is(r, i, kw[k])) return true;
    if (is(r, i, ">") || is(r, i, ",") || is(r, i, "(")) {
      /* `var<...> name`, or a parameter `name:` */
      if (is(r, i + 2, ":")) return true;
    }
  }
  return false;
}

/* Whether the use of a variable at token i may store into it. */
static bool use_writes(const reading *r, size_t i, bool array_length_is_builtin) {
  size_t lo = i, hi = i + 1; /* the expression [lo, hi) around the use */
  for (;;) {
    /* indices and members after it */
    for (;;) {
      if (is(r, hi, "[")) hi = skip_group(r, hi);
      else if (is(r, hi, ".") && is_ident(r, hi + 1)) hi += 2;
      else break;
      if (hi >= r->n) return true;
    }
    if (lo == 0) break;
    if (is(r, lo - 1, "&") || is(r, lo - 1, "&&")) {
      if (lo >= 2 && ends_operand(r, lo - 2)) break; /* a binary and */
      /* its address: only arrayLength(&x) is known to read */
      bool call = array_length_is_builtin && lo >= 3 && is(r, lo - 2, "(") && is(r, lo - 3, "arrayLength") &&
                  is(r, lo - 1, "&") && (is(r, hi, ")") || (is(r, hi, ",") && is(r, hi + 1, ")")));
      return !call;
    }
    if (is(r, lo - 1, "*") && !(lo >= 2 && ends_operand(r, lo - 2))) {
      lo--; /* a dereference */
      continue;
    }
    if (is(r, lo - 1, "(") && is(r, hi, ")")) {
      lo--;
      hi++;
      continue;
    }
    break;
  }
  if (lo > 0 && (is(r, lo - 1, "++") || is(r, lo - 1, "--"))) return true;
  return assigns(r, hi);
}

/* Whether the read_write variable declared at token decl is stored to. */
static bool var_written(const reading *r, size_t decl, bool array_length_is_builtin) {
  for (size_t i = 0; i < r->n; i++) {
    if (i == decl || !same(r, i, decl)) continue;
    if (i > 0 && is(r, i - 1, ".")) continue; /* a member of that name */
    if (use_writes(r, i, array_length_is_builtin)) return true;
  }
  return false;
}

/* The value of attribute `@name(literal)` among [first, last); -1: absent,
 * -2: present but not an integer literal. */
static int64_t attr_value(const reading *r, size_t first, size_t last, const char *name) {
  for (size_t i = first; i + 1 < last; i++) {
    if (!is(r, i, "@") || !is(r, i + 1, name)) continue;
    if (!is(r, i + 2, "(") || i + 3 >= last || r->t[i + 3].kind != TK_NUM) return -2;
    size_t close = is(r, i + 4, ",") ? i + 5 : i + 4;
    if (!is(r, close, ")")) return -2;
    const char *s = r->s + r->t[i + 3].off;
    size_t len = r->t[i + 3].len;
    if (len && (s[len - 1] == 'u' || s[len - 1] == 'i')) len--;
    bool hex = len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    uint64_t v = 0;
    for (size_t k = hex ? 2 : 0; k < len; k++) {
      int d = is_digit(s[k]) ? s[k] - '0' : hex && is_hex(s[k]) ? (s[k] | 0x20) - 'a' + 10 : -1;
      if (d < 0) return -2; /* a float */
      v = v * (hex ? 16 : 10) + (uint64_t)d;
      if (v > UINT32_MAX) return -2;
    }
    return (int64_t)v;
  }
  return -1;
}

/* Whether a handle-space binding of type token `ty` is only read: a
 * sampler or a sampled texture, by its predeclared name. */
static bool handle_read_only(const reading *r, size_t ty) {
  static const char *const ro[] = {"sampler",
                                   "sampler_comparison",
                                   "texture_1d",
                                   "texture_2d",
                                   "texture_2d_array",
                                   "texture_3d",
                                   "texture_cube",
                                   "texture_cube_array",
                                   "texture_multisampled_2d",
                                   "texture_depth_2d",
                                   "texture_depth_2d_array",
                                   "texture_depth_cube",
                                   "texture_depth_cube_array",
                                   "texture_depth_multisampled_2d",
                                   "texture_external"};
  for (size_t k = 0; k < UL__COUNT_OF(ro); k++)
    if (is(r, ty, ro[k])) return !declared(r, ro[k]);
  return false;
}

typedef enum { B_READ, B_WRITTEN, B_USES, B_UNKNOWN } binding_kind;

/* What the module-scope `var` at token v (its name at *name) binds. */
static binding_kind classify(const reading *r, size_t v, size_t *name) {
  size_t i = v + 1;
  size_t space = SIZE_MAX, access = SIZE_MAX;
  if (is(r, i, "<")) {
    if (!is_ident(r, i + 1)) return B_UNKNOWN;
    space = i + 1;
    i += 2;
    if (is(r, i, ",") && is_ident(r, i + 1)) {
      access = i + 1;
      i += 2;
    }
    if (is(r, i, ",")) i++;
    if (!is(r, i, ">")) return B_UNKNOWN;
    i++;
  }
  if (!is_ident(r, i)) return B_UNKNOWN;
  *name = i;
  if (space == SIZE_MAX) {
    if (!is(r, i + 1, ":") || !is_ident(r, i + 2)) return B_UNKNOWN;
    return handle_read_only(r, i + 2) ? B_READ : B_WRITTEN;
  }
  if (is(r, space, "uniform")) return access == SIZE_MAX ? B_READ : B_UNKNOWN;
  if (!is(r, space, "storage")) return B_UNKNOWN; /* a binding in private or workgroup space is not WGSL */
  if (access == SIZE_MAX || is(r, access, "read")) return B_READ;
  if (is(r, access, "read_write")) return B_USES;
  return B_WRITTEN;
}

static ul__wgsl_writes *analyze_tokens(const reading *r) {
  ul__wgsl_writes *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  bool array_length_is_builtin = !declared(r, "arrayLength");
  size_t depth = 0, attrs = 0; /* where the attributes before the token begin */
  for (size_t i = 0; i < r->n; i++) {
    if (is(r, i, "{")) depth++;
    if (is(r, i, "}")) {
      if (!depth) goto unknown;
      depth--;
    }
    if (is(r, i, "@") && is_ident(r, i + 1)) {
      size_t end = is(r, i + 2, "(") ? skip_group(r, i + 2) : i + 2;
      if (end >= r->n) goto unknown;
      i = end - 1;
      continue;
    }
    if (depth || !is(r, i, "var")) {
      attrs = i + 1;
      continue;
    }
    int64_t g = attr_value(r, attrs, i, "group"), b = attr_value(r, attrs, i, "binding");
    size_t name = 0;
    binding_kind k = classify(r, i, &name);
    attrs = i + 1;
    if (g == -1 && b == -1) {
      if (k == B_UNKNOWN) continue; /* var<private>, var<workgroup> */
      goto unknown;                 /* a resource without a binding is not WGSL */
    }
    if (g < 0 || b < 0 || k == B_UNKNOWN) goto unknown;
    if (k == B_READ || (k == B_USES && !var_written(r, name, array_length_is_builtin))) continue;
    if (w->count == UL__WGSL_MAX_WRITES) goto unknown;
    w->group[w->count] = (uint32_t)g;
    w->binding[w->count] = (uint32_t)b;
    w->count++;
  }
  if (depth) goto unknown;
  w->known = true;
  return w;
unknown:
  free(w);
  return NULL;
}

ul__wgsl_writes *ul__wgsl_analyze(const char *src, size_t n) {
  lexer lx = {src, n, NULL, 0, 0};
  ul__wgsl_writes *w = NULL;
  if (lex(&lx)) {
    reading r = {src, lx.t, lx.count};
    w = analyze_tokens(&r);
  }
  free(lx.t);
  return w;
}

bool ul__wgsl_may_write(const ul__wgsl_writes *w, uint32_t group, uint32_t binding) {
  if (!w || !w->known) return true;
  for (uint32_t i = 0; i < w->count; i++)
    if (w->group[i] == group && w->binding[i] == binding) return true;
  return false;
}
