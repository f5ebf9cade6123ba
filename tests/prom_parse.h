/* Internal to unlost's tests: a strict parser and checker of the Prometheus
 * text exposition format 0.0.4, for the health module's exposition and for
 * `unlost serve`'s /metrics.
 *
 *   prom_doc doc;
 *   char err[256];
 *   if (prom_parse(text, &doc, err, sizeof err) != 0) fail(err);
 *   double v;
 *   prom_get(&doc, "unlost_device_state", "device=gpu0", &v);
 *   prom_free(&doc);
 *
 * Checked: every line ends in '\n'; metric and label name syntax; label
 * values quoted with only \\ \" \n escapes; no "__" label names; no repeated
 * label; sample values are floats (or +Inf, -Inf, NaN), optional integer
 * timestamp; at most one HELP and one TYPE per family, TYPE before the
 * family's first sample, known types; a family's samples are contiguous; no
 * duplicate series; counters are >= 0; histograms: per label set, buckets
 * with an `le` label in increasing order, cumulative counts that never
 * decrease, a last bucket le="+Inf" equal to _count, and a _sum. */
#ifndef UL_PROM_PARSE_H
#define UL_PROM_PARSE_H

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Not every includer uses every function. */
#define PROM__FN static __attribute__((unused))

#define PROM_MAX_NAME 200
#define PROM_MAX_VALUE 512
#define PROM_MAX_LABELS 16

typedef struct prom_label {
  char name[PROM_MAX_NAME];
  char value[PROM_MAX_VALUE];
} prom_label;

typedef struct prom_sample {
  char name[PROM_MAX_NAME];
  char family[PROM_MAX_NAME];
  int nlabels;
  prom_label labels[PROM_MAX_LABELS];
  double value;
  int line;
} prom_sample;

typedef struct prom_family {
  char name[PROM_MAX_NAME];
  char type[16]; /* "untyped" when no TYPE line */
  bool has_help, has_type, has_samples, closed;
} prom_family;

typedef struct prom_doc {
  prom_sample *samples;
  size_t n, cap;
  prom_family *fams;
  size_t nf, capf;
} prom_doc;

PROM__FN int prom__err(char *err, size_t cap, int line, const char *fmt, ...) {
  va_list ap;
  int k = snprintf(err, cap, "line %d: ", line);
  if (k < 0) k = 0;
  va_start(ap, fmt);
  if ((size_t)k < cap) vsnprintf(err + k, cap - (size_t)k, fmt, ap);
  va_end(ap);
  return -1;
}

PROM__FN void prom_free(prom_doc *doc) {
  free(doc->samples);
  free(doc->fams);
  memset(doc, 0, sizeof *doc);
}

PROM__FN bool prom__name_start(int c, bool colon) {
  return isalpha(c) || c == '_' || (colon && c == ':');
}
PROM__FN bool prom__name_char(int c, bool colon) {
  return isalnum(c) || c == '_' || (colon && c == ':');
}

/* Reads a name at *p into out; metric names may hold ':', label names not. */
PROM__FN bool prom__name(const char **p, char *out, bool colon) {
  const char *s = *p;
  if (!prom__name_start((unsigned char)*s, colon)) return false;
  size_t n = 0;
  while (prom__name_char((unsigned char)*s, colon)) {
    if (n + 1 >= PROM_MAX_NAME) return false;
    out[n++] = *s++;
  }
  out[n] = '\0';
  *p = s;
  return true;
}

PROM__FN bool prom_valid_metric_name(const char *s) {
  char tmp[PROM_MAX_NAME];
  const char *p = s;
  return prom__name(&p, tmp, true) && *p == '\0';
}

/* A float as Prometheus writes one: decimal or exponent form, or +Inf,
 * -Inf, Inf, NaN. No hex, no leading/trailing junk. */
PROM__FN bool prom__float(const char *s, size_t n, double *out) {
  char tmp[64];
  if (n == 0 || n >= sizeof tmp) return false;
  memcpy(tmp, s, n);
  tmp[n] = '\0';
  if (!strcmp(tmp, "+Inf") || !strcmp(tmp, "Inf")) {
    *out = INFINITY;
    return true;
  }
  if (!strcmp(tmp, "-Inf")) {
    *out = -INFINITY;
    return true;
  }
  if (!strcmp(tmp, "NaN")) {
    *out = NAN;
    return true;
  }
  for (size_t i = 0; i < n; i++)
    if (!(isdigit((unsigned char)tmp[i]) || strchr("+-.eE", tmp[i]))) return false;
  char *end;
  *out = strtod(tmp, &end);
  return *end == '\0' && end != tmp;
}

PROM__FN prom_family *prom__family(prom_doc *doc, const char *name, bool create) {
  for (size_t i = 0; i < doc->nf; i++)
    if (!strcmp(doc->fams[i].name, name)) return &doc->fams[i];
  if (!create) return NULL;
  if (doc->nf == doc->capf) {
    size_t cap = doc->capf ? doc->capf * 2 : 16;
    prom_family *f = realloc(doc->fams, cap * sizeof *f);
    if (!f) return NULL;
    doc->fams = f;
    doc->capf = cap;
  }
  prom_family *f = &doc->fams[doc->nf++];
  memset(f, 0, sizeof *f);
  snprintf(f->name, sizeof f->name, "%s", name);
  snprintf(f->type, sizeof f->type, "untyped");
  return f;
}

PROM__FN bool prom__ends(const char *s, const char *suffix, char *base) {
  size_t n = strlen(s), k = strlen(suffix);
  if (n <= k || strcmp(s + n - k, suffix) != 0) return false;
  memcpy(base, s, n - k);
  base[n - k] = '\0';
  return true;
}

/* The family a sample name belongs to: a histogram's or summary's suffixed
 * series map to the declared base family. */
PROM__FN prom_family *prom__family_of(prom_doc *doc, const char *name) {
  static const char *const suffixes[] = {"_bucket", "_sum", "_count"};
  char base[PROM_MAX_NAME];
  for (size_t i = 0; i < 3; i++) {
    if (!prom__ends(name, suffixes[i], base)) continue;
    prom_family *f = prom__family(doc, base, false);
    if (f && (!strcmp(f->type, "histogram") || (!strcmp(f->type, "summary") && i > 0))) return f;
  }
  return prom__family(doc, name, true);
}

PROM__FN const char *prom_label_get(const prom_sample *s, const char *name) {
  for (int i = 0; i < s->nlabels; i++)
    if (!strcmp(s->labels[i].name, name)) return s->labels[i].value;
  return NULL;
}

/* Same labels, ignoring `skip` (may be NULL). */
PROM__FN bool prom__same_labels(const prom_sample *a, const prom_sample *b, const char *skip) {
  int na = 0, nb = 0;
  for (int i = 0; i < a->nlabels; i++) {
    if (skip && !strcmp(a->labels[i].name, skip)) continue;
    na++;
    const char *v = prom_label_get(b, a->labels[i].name);
    if (!v || strcmp(v, a->labels[i].value)) return false;
  }
  for (int i = 0; i < b->nlabels; i++)
    if (!(skip && !strcmp(b->labels[i].name, skip))) nb++;
  return na == nb;
}

PROM__FN int prom__sample(prom_doc *doc, const char *p, const char *eol, int line, char *err,
                        size_t cap) {
  prom_sample s;
  memset(&s, 0, sizeof s);
  s.line = line;
  if (!prom__name(&p, s.name, true)) return prom__err(err, cap, line, "bad metric name");
  if (*p == '{') {
    p++;
    while (*p != '}') {
      if (s.nlabels == PROM_MAX_LABELS) return prom__err(err, cap, line, "too many labels");
      prom_label *l = &s.labels[s.nlabels];
      if (!prom__name(&p, l->name, false)) return prom__err(err, cap, line, "bad label name");
      if (!strncmp(l->name, "__", 2))
        return prom__err(err, cap, line, "reserved label name '%s'", l->name);
      for (int i = 0; i < s.nlabels; i++)
        if (!strcmp(s.labels[i].name, l->name))
          return prom__err(err, cap, line, "label '%s' repeated", l->name);
      if (*p++ != '=') return prom__err(err, cap, line, "expected '=' after label name");
      if (*p++ != '"') return prom__err(err, cap, line, "label value is not quoted");
      size_t n = 0;
      for (;;) {
        if (p >= eol) return prom__err(err, cap, line, "unterminated label value");
        char c = *p++;
        if (c == '"') break;
        if (c == '\\') {
          char e = *p++;
          if (e == '\\' || e == '"')
            c = e;
          else if (e == 'n')
            c = '\n';
          else
            return prom__err(err, cap, line, "bad escape '\\%c' in label value", e);
        }
        if (n + 1 >= PROM_MAX_VALUE) return prom__err(err, cap, line, "label value too long");
        l->value[n++] = c;
      }
      l->value[n] = '\0';
      s.nlabels++;
      if (*p == ',') {
        p++;
        if (*p == '}') return prom__err(err, cap, line, "trailing ',' in labels");
      } else if (*p != '}') {
        return prom__err(err, cap, line, "expected ',' or '}' after label value");
      }
    }
    p++;
  }
  if (*p != ' ') return prom__err(err, cap, line, "expected one space before the value");
  p++;
  const char *v = p;
  while (p < eol && *p != ' ') p++;
  if (!prom__float(v, (size_t)(p - v), &s.value))
    return prom__err(err, cap, line, "bad sample value '%.*s'", (int)(p - v), v);
  if (p < eol) {
    p++;
    const char *ts = p;
    if (*p == '-') p++;
    while (p < eol && isdigit((unsigned char)*p)) p++;
    if (p == ts || p != eol) return prom__err(err, cap, line, "bad timestamp");
  }

  prom_family *f = prom__family_of(doc, s.name);
  if (!f) return prom__err(err, cap, line, "out of memory");
  if (f->closed)
    return prom__err(err, cap, line, "family '%s' continues after another family", f->name);
  for (size_t i = 0; i < doc->nf; i++)
    if (&doc->fams[i] != f && doc->fams[i].has_samples) doc->fams[i].closed = true;
  f->has_samples = true;
  snprintf(s.family, sizeof s.family, "%s", f->name);
  if (!strcmp(f->type, "counter") && !(s.value >= 0))
    return prom__err(err, cap, line, "counter '%s' is negative or NaN", s.name);
  for (size_t i = 0; i < doc->n; i++)
    if (!strcmp(doc->samples[i].name, s.name) && prom__same_labels(&doc->samples[i], &s, NULL))
      return prom__err(err, cap, line, "duplicate series '%s' (first at line %d)", s.name,
                       doc->samples[i].line);
  if (doc->n == doc->cap) {
    size_t ncap = doc->cap ? doc->cap * 2 : 64;
    prom_sample *ns = realloc(doc->samples, ncap * sizeof *ns);
    if (!ns) return prom__err(err, cap, line, "out of memory");
    doc->samples = ns;
    doc->cap = ncap;
  }
  doc->samples[doc->n++] = s;
  return 0;
}

PROM__FN int prom__comment(prom_doc *doc, const char *p, const char *eol, int line, char *err,
                         size_t cap) {
  bool help = !strncmp(p, "# HELP ", 7), type = !strncmp(p, "# TYPE ", 7);
  if (!help && !type) return 0; /* a plain comment */
  p += 7;
  char name[PROM_MAX_NAME];
  if (!prom__name(&p, name, true)) return prom__err(err, cap, line, "bad metric name in comment");
  prom_family *f = prom__family(doc, name, true);
  if (!f) return prom__err(err, cap, line, "out of memory");
  if (help) {
    if (f->has_help) return prom__err(err, cap, line, "second HELP for '%s'", name);
    f->has_help = true;
    if (p < eol && *p != ' ') return prom__err(err, cap, line, "expected a space after the name");
    for (const char *q = p; q < eol; q++)
      if (*q == '\\' && q + 1 < eol && (q[1] == '\\' || q[1] == 'n'))
        q++;
      else if (*q == '\\')
        return prom__err(err, cap, line, "bad escape in HELP");
    return 0;
  }
  if (f->has_type) return prom__err(err, cap, line, "second TYPE for '%s'", name);
  if (f->has_samples) return prom__err(err, cap, line, "TYPE for '%s' after its samples", name);
  if (*p != ' ') return prom__err(err, cap, line, "expected a space after the name");
  p++;
  static const char *const types[] = {"counter", "gauge", "histogram", "summary", "untyped"};
  size_t n = (size_t)(eol - p);
  for (size_t i = 0; i < 5; i++)
    if (strlen(types[i]) == n && !strncmp(p, types[i], n)) {
      snprintf(f->type, sizeof f->type, "%s", types[i]);
      f->has_type = true;
      return 0;
    }
  return prom__err(err, cap, line, "unknown type '%.*s'", (int)n, p);
}

PROM__FN int prom__check_histograms(const prom_doc *doc, char *err, size_t cap) {
  for (size_t fi = 0; fi < doc->nf; fi++) {
    const prom_family *f = &doc->fams[fi];
    if (strcmp(f->type, "histogram")) continue;
    char bucket[PROM_MAX_NAME + 8], sum[PROM_MAX_NAME + 8], count[PROM_MAX_NAME + 8];
    snprintf(bucket, sizeof bucket, "%s_bucket", f->name);
    snprintf(sum, sizeof sum, "%s_sum", f->name);
    snprintf(count, sizeof count, "%s_count", f->name);
    for (size_t i = 0; i < doc->n; i++) {
      const prom_sample *s = &doc->samples[i];
      if (strcmp(s->family, f->name)) continue;
      if (strcmp(s->name, bucket) && strcmp(s->name, sum) && strcmp(s->name, count))
        return prom__err(err, cap, s->line, "'%s' in histogram '%s' is not _bucket, _sum or _count",
                         s->name, f->name);
      if (strcmp(s->name, bucket)) {
        if (prom_label_get(s, "le")) return prom__err(err, cap, s->line, "'le' outside _bucket");
        continue;
      }
      if (!prom_label_get(s, "le")) return prom__err(err, cap, s->line, "_bucket without 'le'");
      /* Check each label set once, at its first bucket. */
      bool first = true;
      for (size_t j = 0; j < i && first; j++)
        if (!strcmp(doc->samples[j].name, bucket) && prom__same_labels(&doc->samples[j], s, "le"))
          first = false;
      if (!first) continue;
      double prev_le = -INFINITY, prev_count = 0, inf_count = -1;
      for (size_t j = i; j < doc->n; j++) {
        const prom_sample *b = &doc->samples[j];
        if (strcmp(b->name, bucket) || !prom__same_labels(b, s, "le")) continue;
        const char *les = prom_label_get(b, "le");
        double le;
        if (!prom__float(les, strlen(les), &le) || isnan(le))
          return prom__err(err, cap, b->line, "bad le \"%s\"", les);
        if (!(le > prev_le)) return prom__err(err, cap, b->line, "le \"%s\" not increasing", les);
        if (!(b->value >= prev_count) || b->value != floor(b->value))
          return prom__err(err, cap, b->line, "bucket count %g below the one before (%g) or not whole",
                           b->value, prev_count);
        prev_le = le;
        prev_count = b->value;
        if (isinf(le)) inf_count = b->value;
      }
      if (inf_count < 0) return prom__err(err, cap, s->line, "%s: no le=\"+Inf\" bucket", bucket);
      const prom_sample *c = NULL, *sm = NULL;
      for (size_t j = 0; j < doc->n; j++) {
        if (!strcmp(doc->samples[j].name, count) && prom__same_labels(&doc->samples[j], s, "le"))
          c = &doc->samples[j];
        if (!strcmp(doc->samples[j].name, sum) && prom__same_labels(&doc->samples[j], s, "le"))
          sm = &doc->samples[j];
      }
      if (!c || !sm) return prom__err(err, cap, s->line, "%s: missing _count or _sum", f->name);
      if (c->value != inf_count)
        return prom__err(err, cap, c->line, "%s %g != +Inf bucket %g", count, c->value, inf_count);
    }
  }
  return 0;
}

/* 0 when `text` is valid; else -1 with the reason in err. On success the
 * caller frees doc with prom_free; on failure doc is already freed. */
PROM__FN int prom_parse(const char *text, prom_doc *doc, char *err, size_t cap) {
  memset(doc, 0, sizeof *doc);
  if (cap) err[0] = '\0';
  int line = 0, rc = 0;
  const char *p = text;
  while (*p && rc == 0) {
    line++;
    const char *eol = strchr(p, '\n');
    if (!eol) {
      rc = prom__err(err, cap, line, "the last line does not end in a newline");
      break;
    }
    for (const char *q = p; q < eol; q++)
      if (*q == '\0' || *q == '\r') rc = prom__err(err, cap, line, "NUL or CR in line");
    if (rc) break;
    if (p == eol)
      ; /* empty line */
    else if (*p == '#')
      rc = prom__comment(doc, p, eol, line, err, cap);
    else
      rc = prom__sample(doc, p, eol, line, err, cap);
    p = eol + 1;
  }
  if (rc == 0) rc = prom__check_histograms(doc, err, cap);
  if (rc) prom_free(doc);
  return rc;
}

/* Finds the sample `name` whose labels are exactly `labels`, written
 * "k=v,k2=v2" ("" for none; values may not hold ',' or '='). */
PROM__FN const prom_sample *prom_find(const prom_doc *doc, const char *name, const char *labels) {
  prom_sample want;
  memset(&want, 0, sizeof want);
  const char *p = labels;
  while (p && *p && want.nlabels < PROM_MAX_LABELS) {
    const char *eq = strchr(p, '='), *end = strchr(p, ',');
    if (!eq) return NULL;
    if (!end) end = p + strlen(p);
    prom_label *l = &want.labels[want.nlabels++];
    snprintf(l->name, sizeof l->name, "%.*s", (int)(eq - p), p);
    snprintf(l->value, sizeof l->value, "%.*s", (int)(end - eq - 1), eq + 1);
    p = *end ? end + 1 : end;
  }
  for (size_t i = 0; i < doc->n; i++)
    if (!strcmp(doc->samples[i].name, name) && prom__same_labels(&doc->samples[i], &want, NULL))
      return &doc->samples[i];
  return NULL;
}

PROM__FN bool prom_get(const prom_doc *doc, const char *name, const char *labels, double *v) {
  const prom_sample *s = prom_find(doc, name, labels);
  if (s) *v = s->value;
  return s != NULL;
}

PROM__FN const prom_family *prom_family_get(const prom_doc *doc, const char *name) {
  for (size_t i = 0; i < doc->nf; i++)
    if (!strcmp(doc->fams[i].name, name)) return &doc->fams[i];
  return NULL;
}

#endif
