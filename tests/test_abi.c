/* ABI conformance: every struct declared in src/wgpu/wgpu.h has the size and
 * member offsets of the loaded implementation, read from its debug info with
 * pahole (Debian package dwarves). */
#include "internal.h"
#include "ul_test.h"
#include "wgpu/wgpu_api.h"

#include <ctype.h>
#include <stddef.h>

typedef struct layout {
  char names[64][64];
  long offsets[64];
  int n;
  long size;
} layout;

static int read_layout(const char *lib, const char *type, layout *out) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "pahole -C 'cimport.struct_%s' '%s' 2>&1", type, lib);
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  memset(out, 0, sizeof *out);
  out->size = -1;
  char line[1024];
  int depth = 0;
  while (fgets(line, sizeof line, p)) {
    if (strchr(line, '{')) depth++;
    if (strstr(line, "/* size:")) {
      out->size = strtol(strstr(line, "/* size:") + 8, NULL, 10);
      continue;
    }
    char *c = strstr(line, "/*");
    if (depth != 1 || !c || !strchr(line, ';')) continue;
    /* member name: the identifier just before "__attribute__" or ';' */
    char *end = strstr(line, " __attribute__");
    if (!end || end > c) end = strchr(line, ';');
    while (end > line && (end[-1] == ' ' || end[-1] == '\t')) end--;
    char *start = end;
    while (start > line && (isalnum((unsigned char)start[-1]) || start[-1] == '_')) start--;
    if (end - start <= 0 || end - start >= 64 || out->n >= 64) continue;
    memcpy(out->names[out->n], start, (size_t)(end - start));
    out->offsets[out->n] = strtol(c + 2, NULL, 10);
    out->n++;
  }
  int rc = pclose(p);
  return rc == 0 && out->size >= 0 ? 0 : -1;
}

static int checked_structs, checked_members;

static void check_struct(const char *lib, const char *type, size_t size) {
  layout l;
  if (read_layout(lib, type, &l) != 0) {
    UL__FAIL_AT("pahole found no struct %s in %s", type, lib);
    return;
  }
  if ((long)size != l.size) UL__FAIL_AT("sizeof(%s): ours %zu, implementation %ld", type, size, l.size);
  checked_structs++;
}

static void check_member(const char *lib, const char *type, const char *member, size_t off) {
  layout l;
  if (read_layout(lib, type, &l) != 0) return; /* reported by check_struct */
  for (int i = 0; i < l.n; i++) {
    if (!strcmp(l.names[i], member)) {
      if ((long)off != l.offsets[i])
        UL__FAIL_AT("offsetof(%s, %s): ours %zu, implementation %ld", type, member, off,
                    l.offsets[i]);
      checked_members++;
      return;
    }
  }
  UL__FAIL_AT("%s has no member %s in the implementation", type, member);
}

static void test_structs_match_implementation(void) {
  const char *lib = getenv("UNLOST_WEBGPU_LIB");
  if (!lib || !*lib) lib = UL_DAWN_LIB;
  ASSERT_EQ(system("command -v pahole >/dev/null 2>&1"), 0);
#define X(T) check_struct(lib, #T, sizeof(T));
#define M(T, m) check_member(lib, #T, #m, offsetof(T, m));
  UL__WGPU_ABI_STRUCTS(X, M)
#undef X
#undef M
  printf("checked %d structs, %d members\n", checked_structs, checked_members);
  ASSERT_GE(checked_structs, 40);
  ASSERT_GE(checked_members, 150);
}

static void test_detects_a_mismatch(void) {
  /* The checker itself must be able to fail: a wrong offset is reported. */
  int before = ul_test_failures;
  check_member(UL_DAWN_LIB, "WGPULimits", "maxImmediateSize", 144);
  ASSERT_EQ(ul_test_failures, before + 1);
  ul_test_failures = before;
}

/* The list of entry points (wgpu/wgpu_api.h) is the implementation's: every
 * wgpu* symbol it exports is in the list, and every name in the list is
 * exported. The front door defines the whole list, so a program's call can
 * never reach the implementation with one of the layer's objects. */
static int ours_has(const char *name) {
  static const char *const ours[] = {
#define X(Ret, Name, params, args) "wgpu" #Name,
      UL__WGPU_API(X)
#undef X
  };
  for (size_t i = 0; i < sizeof ours / sizeof *ours; i++)
    if (!strcmp(ours[i], name)) return 1;
  return 0;
}

static void test_entry_points_match_implementation(void) {
  const char *lib = getenv("UNLOST_WEBGPU_LIB");
  if (!lib || !*lib) lib = UL_DAWN_LIB;
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "nm -D --defined-only '%s' 2>/dev/null", lib);
  FILE *p = popen(cmd, "r");
  ASSERT_TRUE(p != NULL);
  char line[512];
  int exported = 0, missing = 0;
  while (p && fgets(line, sizeof line, p)) {
    char addr[64], kind[8], name[256];
    if (sscanf(line, "%63s %7s %255s", addr, kind, name) != 3 || strcmp(kind, "T") || strncmp(name, "wgpu", 4))
      continue;
    exported++;
    if (!ours_has(name)) {
      UL__FAIL_AT("the implementation exports %s, which wgpu/wgpu_api.h does not list", name);
      missing++;
    }
  }
  if (p) pclose(p);
  int listed = 0;
#define X(Ret, Name, params, args) listed++;
  UL__WGPU_API(X)
#undef X
  printf("the implementation exports %d wgpu* functions; our list has %d\n", exported, listed);
  ASSERT_EQ(missing, 0);
  ASSERT_EQ(exported, listed);
  ASSERT_TRUE(!ours_has("wgpuNotAFunction")); /* the lookup can say no */
}

int main(void) {
  RUN_TEST(test_structs_match_implementation);
  RUN_TEST(test_entry_points_match_implementation);
  RUN_TEST(test_detects_a_mismatch);
  TEST_MAIN_END();
}
