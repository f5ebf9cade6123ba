/* Which storage buffers a WGSL module may write: a conservative reading of
 * its text, so that a binding declared read_write but only ever read (as
 * ggml declares its weights) is not taken for GPU-written state. A
 * read_write variable counts as written when any use of it could store:
 * an assignment to it or through an index or member of it, an increment,
 * its address taken anywhere but in arrayLength(), or a use the reading
 * does not understand. Storage textures count as written. Anything the
 * reading cannot follow (a binding number that is not a literal, an
 * unbalanced bracket) makes the whole module "unknown": every binding may
 * be written. */
#include "res/obj.h"

#include <ctype.h>

/* The module's text without comments (block comments nest in WGSL), as
 * spaces, so that offsets stay. */
static char *strip_comments(const char *src, size_t n) {
  char *t = malloc(n + 1);
  if (!t) return NULL;
  memcpy(t, src, n);
  t[n] = 0;
  for (size_t i = 0; i < n; i++) {
    if (t[i] == '/' && i + 1 < n && t[i + 1] == '/') {
      while (i < n && t[i] != '\n') t[i++] = ' ';
    } else if (t[i] == '/' && i + 1 < n && t[i + 1] == '*') {
      int depth = 0;
      while (i < n) {
        if (t[i] == '/' && i + 1 < n && t[i + 1] == '*') {
          depth++;
          t[i] = t[i + 1] = ' ';
          i += 2;
        } else if (t[i] == '*' && i + 1 < n && t[i + 1] == '/') {
          depth--;
          t[i] = t[i + 1] = ' ';
          i += 2;
          if (!depth) break;
        } else {
          if (t[i] != '\n') t[i] = ' ';
          i++;
        }
      }
      i--;
    }
  }
  return t;
}

static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

static const char *skip_ws(const char *p) {
  while (*p && isspace((unsigned char)*p)) p++;
  return p;
}

/* Past a balanced (..), [..] or <..> group starting at p (NULL: unbalanced). */
static const char *skip_group(const char *p, char open, char close) {
  int depth = 0;
  for (; *p; p++) {
    if (*p == open) depth++;
    else if (*p == close && --depth == 0) return p + 1;
  }
  return NULL;
}

/* The value of an attribute such as @group(3) written just before `at`,
 * searching back to the previous ';' or '}' (the declaration's start). */
static bool attr_before(const char *text, const char *at, const char *name, uint32_t *out) {
  const char *start = at;
  while (start > text && start[-1] != ';' && start[-1] != '}' && start[-1] != '{') start--;
  size_t nl = strlen(name);
  for (const char *p = start; p < at; p++) {
    if (*p != '@' || strncmp(p + 1, name, nl) || ident_char(p[1 + nl])) continue;
    const char *q = skip_ws(p + 1 + nl);
    if (*q != '(') return false;
    q = skip_ws(q + 1);
    if (!isdigit((unsigned char)*q)) return false; /* an expression: not followed */
    char *end;
    unsigned long v = strtoul(q, &end, 10);
    if (*skip_ws(end) == 'u' || *skip_ws(end) == 'i') end = (char *)skip_ws(end) + 1;
    if (*skip_ws(end) != ')') return false;
    *out = (uint32_t)v;
    return true;
  }
  return false;
}

/* Whether the use of a variable at [p, p+len) may store into it. */
static bool use_writes(const char *text, const char *p, size_t len) {
  /* Its address: arrayLength(&x) only reads. */
  const char *b = p;
  while (b > text && isspace((unsigned char)b[-1])) b--;
  if (b > text && b[-1] == '&') {
    const char *c = b - 1;
    while (c > text && isspace((unsigned char)c[-1])) c--;
    if (c > text && c[-1] == '(') {
      const char *w = c - 1;
      while (w > text && isspace((unsigned char)w[-1])) w--;
      const char *we = w;
      while (w > text && ident_char(w[-1])) w--;
      if (we - w == 11 && !strncmp(w, "arrayLength", 11)) return false;
    }
    return true;
  }
  if (b > text && b[-1] == '(') return true; /* (x)... = : not followed */
  /* Past its indices and members. */
  const char *q = skip_ws(p + len);
  for (;;) {
    if (*q == '[') {
      if (!(q = skip_group(q, '[', ']'))) return true;
      q = skip_ws(q);
    } else if (*q == '.' && ident_char(q[1])) {
      q++;
      while (ident_char(*q)) q++;
      q = skip_ws(q);
    } else {
      break;
    }
  }
  if (q[0] == '=' && q[1] != '=') return true;
  if ((q[0] == '+' && q[1] == '+') || (q[0] == '-' && q[1] == '-')) return true;
  static const char *const ops[] = {"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
  for (size_t i = 0; i < UL__COUNT_OF(ops); i++)
    if (!strncmp(q, ops[i], strlen(ops[i]))) return true;
  /* An increment written before it. */
  if (b - 2 >= text && ((b[-1] == '+' && b[-2] == '+') || (b[-1] == '-' && b[-2] == '-'))) return true;
  return false;
}

/* Whether variable `name` (of `len` bytes, declared at decl) is stored to. */
static bool var_written(const char *text, const char *decl, const char *name, size_t len) {
  for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
    if ((p > text && ident_char(p[-1])) || ident_char(p[len])) continue;
    if (p == decl) continue;
    if (use_writes(text, p, len)) return true;
  }
  return false;
}

ul__wgsl_writes *ul__wgsl_analyze(const char *src, size_t n) {
  char *t = strip_comments(src, n);
  if (!t) return NULL;
  ul__wgsl_writes *w = calloc(1, sizeof *w);
  if (!w) {
    free(t);
    return NULL;
  }
  bool unknown = false;
  for (const char *p = strstr(t, "var"); p && !unknown; p = strstr(p + 3, "var")) {
    if ((p > t && ident_char(p[-1])) || ident_char(p[3])) continue;
    const char *q = skip_ws(p + 3);
    if (*q != '<') continue; /* a function's variable, or one without an address space */
    const char *end = skip_group(q, '<', '>');
    if (!end) {
      unknown = true;
      break;
    }
    bool storage = false, rw = false;
    char space[64];
    size_t sl = (size_t)(end - q - 2) < sizeof space - 1 ? (size_t)(end - q - 2) : sizeof space - 1;
    memcpy(space, q + 1, sl);
    space[sl] = 0;
    storage = strstr(space, "storage") != NULL;
    rw = strstr(space, "read_write") != NULL;
    if (!storage || !rw) continue;
    const char *name = skip_ws(end);
    size_t len = 0;
    while (ident_char(name[len])) len++;
    if (!len) {
      unknown = true;
      break;
    }
    uint32_t g, bnd;
    if (!attr_before(t, p, "group", &g) || !attr_before(t, p, "binding", &bnd)) {
      unknown = true;
      break;
    }
    char nm[128];
    if (len >= sizeof nm) {
      unknown = true;
      break;
    }
    memcpy(nm, name, len);
    nm[len] = 0;
    if (!var_written(t, name, nm, len)) continue;
    if (w->count == UL__WGSL_MAX_WRITES) {
      unknown = true;
      break;
    }
    w->group[w->count] = g;
    w->binding[w->count] = bnd;
    w->count++;
  }
  /* Storage textures: written, wherever they are bound (not followed). */
  for (const char *p = strstr(t, "texture_storage_"); p && !unknown; p = strstr(p + 1, "texture_storage_")) {
    const char *decl = p;
    while (decl > t && decl[-1] != ';' && decl[-1] != '}' && decl[-1] != '{') decl--;
    uint32_t g, bnd;
    if (!attr_before(t, p, "group", &g) || !attr_before(t, p, "binding", &bnd)) {
      unknown = true;
      break;
    }
    if (w->count == UL__WGSL_MAX_WRITES) {
      unknown = true;
      break;
    }
    w->group[w->count] = g;
    w->binding[w->count] = bnd;
    w->count++;
  }
  free(t);
  if (unknown) {
    free(w);
    return NULL;
  }
  w->known = true;
  return w;
}

bool ul__wgsl_may_write(const ul__wgsl_writes *w, uint32_t group, uint32_t binding) {
  if (!w || !w->known) return true;
  for (uint32_t i = 0; i < w->count; i++)
    if (w->group[i] == group && w->binding[i] == binding) return true;
  return false;
}
