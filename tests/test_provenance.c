/* Where a write's bytes came from (src/res/provenance.c), asked directly of
 * ul__prov_source: a file's range only when its bytes are proven to be the
 * file's at the call. The expected answers come from what the test did to
 * its own memory (mmap, mprotect, rename, fork), and the file's identity
 * from stat. No device is needed. */
#include "res/obj.h"
#include "ul_test.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define SIZE (64u * 4096u)

static char g_path[64];

/* A file of SIZE bytes (byte i = i * 7 + seed) in dir, its path in g_path;
 * an open fd, or -1. */
static int make_file(const char *dir, unsigned seed) {
  snprintf(g_path, sizeof g_path, "%s/ul-prov-XXXXXX", dir);
  int fd = mkstemp(g_path);
  if (fd < 0) return -1;
  uint8_t *v = malloc(SIZE);
  for (uint32_t i = 0; i < SIZE; i++) v[i] = (uint8_t)(i * 7u + seed);
  bool ok = write(fd, v, SIZE) == (ssize_t)SIZE;
  free(v);
  if (!ok) close(fd), fd = -1;
  return fd;
}

/* mmap at an address of its own for each `slot` (one no mapping of this
 * process had: nothing known about an earlier mapping there can answer for
 * this one), else anywhere. */
static void *map_at(int slot, size_t len, int prot, int flags, int fd, off_t off) {
  void *want = (void *)(uintptr_t)(0x5d0000000000ull + (uint64_t)slot * 0x10000000ull);
  void *m = mmap(want, len, prot, flags | MAP_FIXED_NOREPLACE, fd, off);
  return m != MAP_FAILED ? m : mmap(NULL, len, prot, flags, fd, off);
}

/* ul__prov_source's answer: the file's path (to free) or NULL, with its
 * offset. */
static char *source_of(const void *p, uint64_t n, uint64_t *off, uint64_t *ino) {
  ul__src_file *f = NULL;
  uint64_t hash = 0;
  *off = 0;
  if (ul__prov_source(p, n, &f, off, &hash) != UL_OK || !f) return NULL;
  char *path = strdup(f->path);
  if (ino) *ino = f->ino;
  ul__src_file_unref(f);
  return path;
}

/* A read-only mapping of a file is its range, at the right offset; the
 * heap, a write past the mapping's end, and a writable mapping are not. */
static void test_read_only_mapping(void) {
  int fd = make_file("/tmp", 1);
  ASSERT_TRUE(fd >= 0);
  struct stat st;
  ASSERT_EQ(fstat(fd, &st), 0);
  uint8_t *map = map_at(1, SIZE - 8192, PROT_READ, MAP_SHARED, fd, 8192);
  ASSERT_TRUE(map != MAP_FAILED);
  uint64_t off, ino = 0;
  char *path = source_of(map + 100, 4096 * 20, &off, &ino);
  ASSERT_TRUE(path != NULL);
  ASSERT_STR_EQ(path, g_path);
  ASSERT_EQ_U(off, 8192 + 100);
  ASSERT_EQ_U(ino, (uint64_t)st.st_ino);
  free(path);
  /* Past the mapping's end (the next pages are no part of it). */
  EXPECT_TRUE(source_of(map + 4096, SIZE - 8192, &off, NULL) == NULL);
  /* Small writes are copied whatever they are. */
  EXPECT_TRUE(source_of(map, 65532, &off, NULL) == NULL);
  uint8_t *heap = malloc(SIZE);
  memset(heap, 1, SIZE);
  EXPECT_TRUE(source_of(heap, SIZE, &off, NULL) == NULL);
  free(heap);
  munmap(map, SIZE - 8192);
  /* Writable and shared: the program can change the file under it. */
  map = map_at(2, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ASSERT_TRUE(map != MAP_FAILED);
  EXPECT_TRUE(source_of(map, SIZE, &off, NULL) == NULL);
  munmap(map, SIZE);
  close(fd);
  unlink(g_path);
}

/* The name now holds another file (renamed over it), or none: the mapping's
 * bytes are no file's that a restore could read. */
static void test_file_replaced_or_deleted(void) {
  int fd = make_file("/tmp", 2);
  ASSERT_TRUE(fd >= 0);
  uint8_t *map = map_at(3, SIZE, PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  ASSERT_TRUE(map != MAP_FAILED);
  char first[64];
  snprintf(first, sizeof first, "%s", g_path);
  uint64_t off;
  char *path = source_of(map, SIZE, &off, NULL);
  EXPECT_TRUE(path != NULL);
  free(path);
  int fd2 = make_file("/tmp", 3); /* the same size, other bytes */
  ASSERT_TRUE(fd2 >= 0);
  close(fd2);
  ASSERT_EQ(rename(g_path, first), 0);
  EXPECT_TRUE(source_of(map, SIZE, &off, NULL) == NULL);
  unlink(first);
  EXPECT_TRUE(source_of(map, SIZE, &off, NULL) == NULL);
  munmap(map, SIZE);
}

/* A private mapping is the file's until a page of it is the process's own
 * (written while writable), even once read-only again. */
static void test_private_mapping(void) {
  int fd = make_file("/tmp", 4);
  ASSERT_TRUE(fd >= 0);
  uint8_t *map = map_at(4, SIZE, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  ASSERT_TRUE(map != MAP_FAILED);
  uint64_t off;
  char *path = source_of(map, SIZE, &off, NULL);
  EXPECT_TRUE(path != NULL);
  free(path);
  ASSERT_EQ(mprotect(map, SIZE, PROT_READ | PROT_WRITE), 0);
  map[SIZE / 2] ^= 0xff; /* one page of sixty-four */
  ASSERT_EQ(mprotect(map, SIZE, PROT_READ), 0);
  EXPECT_TRUE(source_of(map, SIZE, &off, NULL) == NULL);
  /* The pages around it are still the file's. */
  path = source_of(map, SIZE / 2, &off, NULL);
  EXPECT_TRUE(path != NULL);
  free(path);
  munmap(map, SIZE);
  unlink(g_path);
}

/* A private mapping of tmpfs: a page not yet in memory could be filled by
 * userfaultfd, so it is the file's only once every page is in memory. */
static void test_private_tmpfs(void) {
  int fd = make_file("/dev/shm", 5);
  if (fd < 0) {
    printf("(no /dev/shm: skipped)\n");
    return;
  }
  uint8_t *map = map_at(5, SIZE, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  ASSERT_TRUE(map != MAP_FAILED);
  uint64_t off;
  EXPECT_TRUE(source_of(map, SIZE, &off, NULL) == NULL);
  volatile uint8_t sum = 0;
  for (uint32_t i = 0; i < SIZE; i += 4096) sum += map[i];
  (void)sum;
  char *path = source_of(map, SIZE, &off, NULL);
  EXPECT_TRUE(path != NULL);
  free(path);
  munmap(map, SIZE);
  unlink(g_path);
}

/* After fork the child asks about its own memory, not its parent's: the
 * parent keeps its read-only mapping of a file while the child puts
 * anonymous memory at that address. */
static void test_child_after_fork(void) {
  int fd = make_file("/tmp", 6);
  ASSERT_TRUE(fd >= 0);
  uint8_t *map = map_at(6, SIZE, PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  ASSERT_TRUE(map != MAP_FAILED);
  uint64_t off;
  char *path = source_of(map, SIZE, &off, NULL); /* the parent has asked */
  EXPECT_TRUE(path != NULL);
  free(path);
  pid_t pid = fork();
  ASSERT_TRUE(pid >= 0);
  if (pid == 0) {
    void *m = mmap(map, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (m != map) _exit(2);
    memset(m, 9, SIZE);
    char *p = source_of(m, SIZE, &off, NULL);
    _exit(p ? 1 : 0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status)) printf("the child took anonymous memory for its parent's file\n");
  munmap(map, SIZE);
  unlink(g_path);
}

/* A kernel without PROCMAP_QUERY (before 6.11), made here by a seccomp
 * filter in a child that answers that ioctl ENOTTY: every write is copied. */
static void test_kernel_without_the_query(void) {
  int fd = make_file("/tmp", 7);
  ASSERT_TRUE(fd >= 0);
  uint8_t *map = map_at(7, SIZE, PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  ASSERT_TRUE(map != MAP_FAILED);
  pid_t pid = fork();
  ASSERT_TRUE(pid >= 0);
  if (pid == 0) {
    /* The request is the ioctl's second argument: its low 32 bits. */
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xc0686611u, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOTTY),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof f / sizeof f[0]), f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) _exit(3);
    uint64_t off;
    int got = 0;
    for (int i = 0; i < 2; i++) got += source_of(map, SIZE, &off, NULL) != NULL;
    _exit(got ? 1 : 0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
    printf("(seccomp unavailable: skipped)\n");
  } else {
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  munmap(map, SIZE);
  unlink(g_path);
}

int main(void) {
  ul_test_watchdog(60);
  RUN_TEST(test_read_only_mapping);
  RUN_TEST(test_file_replaced_or_deleted);
  RUN_TEST(test_private_mapping);
  RUN_TEST(test_private_tmpfs);
  RUN_TEST(test_child_after_fork);
  RUN_TEST(test_kernel_without_the_query);
  TEST_MAIN_END();
}
