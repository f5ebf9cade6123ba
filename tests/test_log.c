/* The log callback (ul_set_log_callback): lines reach it with their level,
 * text and device, UNLOST_LOG still filters them, nothing reaches stderr
 * while it is set and everything does again once it is reset; it is never
 * called with the device's lock held (a loss is logged under it), never
 * twice at once, and may not replace itself. */
// ctest-labels: threads
#include "core/core.h"
#include "internal.h"
#include "ul_test.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>

#define MAX_LINES 64

typedef struct recorder {
  int n;
  ul_log_level level[MAX_LINES];
  char message[MAX_LINES][256];
  char device[MAX_LINES][64];
  bool has_device[MAX_LINES];
  /* The device whose lock the callback must not be called under. */
  ul_device *watch;
  int under_lock; /* calls made while this thread held watch->mu */
  ul_status set_from_inside;
  bool try_set;
} recorder;

static void record(const ul_log_line *l, void *user) {
  recorder *r = user;
  if (r->watch) {
    /* Busy every time only when this thread holds it (another thread
     * holds it for moments at most). */
    bool held = true;
    for (int i = 0; i < 200 && held; i++) {
      if (pthread_mutex_trylock(&r->watch->mu) == 0) {
        pthread_mutex_unlock(&r->watch->mu);
        held = false;
      } else {
        ul__sleep_ns(1000000);
      }
    }
    r->under_lock += held;
  }
  if (r->try_set) r->set_from_inside = ul_set_log_callback(NULL, NULL);
  if (r->n >= MAX_LINES) return;
  r->level[r->n] = l->level;
  snprintf(r->message[r->n], sizeof r->message[0], "%s", l->message);
  r->has_device[r->n] = l->device != NULL;
  snprintf(r->device[r->n], sizeof r->device[0], "%s", l->device ? l->device : "");
  r->n++;
}

/* stderr into a file for the duration; stderr_end gives what was written. */
static int saved_fd = -1;
static char err_path[64];

static void stderr_begin(void) {
  fflush(stderr);
  snprintf(err_path, sizeof err_path, "/tmp/unlost-test-log-%d", (int)getpid());
  int fd = open(err_path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
  saved_fd = dup(2);
  dup2(fd, 2);
  close(fd);
}

static void stderr_end(char *out, size_t cap) {
  fflush(stderr);
  dup2(saved_fd, 2);
  close(saved_fd);
  out[0] = 0;
  FILE *f = fopen(err_path, "r");
  if (f) {
    size_t n = fread(out, 1, cap - 1, f);
    out[n] = 0;
    fclose(f);
  }
  unlink(err_path);
}

/* UNLOST_LOG=error (set in main before the first line) filters before the
 * callback; the level, text and device come through; stderr stays empty;
 * once reset, the lines go to stderr again. */
static void test_lines_level_and_stderr(void) {
  recorder r = {0};
  char err[4096];
  stderr_begin();
  ul_status s0 = ul_set_log_callback(record, &r);
  ul__log(UL__LOG_WARN, "a warning %d", 1);   /* above UNLOST_LOG=error */
  ul__log(UL__LOG_ERROR, "an error %d", 2);
  int old = ul__log_swap_level(UL__LOG_INFO);
  ul__log(UL__LOG_INFO, "info %s", "three");
  ul__log(UL__LOG_DEBUG, "debug four");       /* above info */
  ul__log_swap_level(old);
  ul__log(UL__LOG_INFO, "info five");         /* above error again */
  ul_status s1 = ul_set_log_callback(NULL, NULL);
  ul__log(UL__LOG_ERROR, "after the reset");
  stderr_end(err, sizeof err);
  ASSERT_OK(s0);
  ASSERT_OK(s1);
  ASSERT_EQ(r.n, 2);
  ASSERT_EQ(r.level[0], UL_LOG_ERROR);
  ASSERT_STR_EQ(r.message[0], "an error 2");
  ASSERT_TRUE(!r.has_device[0]); /* not logged under a device */
  ASSERT_EQ(r.level[1], UL_LOG_INFO);
  ASSERT_STR_EQ(r.message[1], "info three");
  ASSERT_STR_EQ(err, "unlost error: after the reset\n");
}

/* A loss is logged under the device's lock: the callback gets the line
 * after the unlock, with the device's label, and the thread's error is the
 * call's. */
static void test_loss_line_after_the_lock(void) {
  ul_env *env = NULL;
  ASSERT_OK(ul_env_create(NULL, &env));
  ul_device *dev = NULL;
  ul_device_desc dd = {.label = "logged", .health.disabled = true};
  ASSERT_OK(ul_device_create(env, &dd, &dev));
  recorder r = {.watch = dev};
  char err[4096];
  int old = ul__log_swap_level(UL__LOG_WARN);
  stderr_begin();
  ul_status s0 = ul_set_log_callback(record, &r);
  ul_status s1 = ul_device_force_loss(dev, "test_log: injected");
  ul_status s2 = ul_device_recover(dev);
  ul_status s3 = ul_set_log_callback(NULL, NULL);
  stderr_end(err, sizeof err);
  ul__log_swap_level(old);
  ASSERT_OK(s0);
  ASSERT_OK(s1);
  ASSERT_OK(s2);
  ASSERT_OK(s3);
  ASSERT_EQ(ul_device_epoch(dev), 2);
  ASSERT_GE(r.n, 1);
  int found = -1;
  for (int i = 0; i < r.n; i++)
    if (strstr(r.message[i], "test_log: injected")) found = i;
  ASSERT_GE(found, 0);
  ASSERT_EQ(r.level[found], UL_LOG_WARN);
  ASSERT_TRUE(r.has_device[found]);
  ASSERT_STR_EQ(r.device[found], "logged");
  ASSERT_CONTAINS(r.message[found], "device 'logged' lost");
  ASSERT_EQ(r.under_lock, 0);
  ASSERT_STR_EQ(err, "");
  ASSERT_OK(ul_device_destroy(dev));
  ASSERT_OK(ul_env_destroy(env));
}

/* Every way into a device and out of it releases the log's hold: between
 * calls the thread holds nothing (else its lines would wait for good), on
 * paths that succeed, fail, recover and destroy. */
static void on_read(ul_device *d, ul_status s, void *dst, void *user) {
  (void)d;
  (void)dst;
  *(ul_status *)user = s;
}

#define DEPTH0(call)                                                          \
  do {                                                                        \
    (void)(call);                                                             \
    if (ul__log_depth() != 0) {                                               \
      UL__FAIL_AT("%s left the log held (depth %u)", #call, ul__log_depth()); \
      ul_set_log_callback(NULL, NULL);                                        \
      ul__log_swap_level(old);                                                \
      return;                                                                 \
    }                                                                         \
  } while (0)

static void test_holds_balance(void) {
  recorder r = {0};
  int old = ul__log_swap_level(UL__LOG_WARN);
  ASSERT_OK(ul_set_log_callback(record, &r));
  ul_env *env = NULL;
  ul_device *dev = NULL;
  DEPTH0(ul_env_create(NULL, &env));
  ul_device_desc dd = {.label = "balance", .health.disabled = true};
  DEPTH0(ul_device_create(env, &dd, &dev));
  ul_buffer b = {0}, m = {0};
  uint32_t data[64], back[64] = {0};
  for (int i = 0; i < 64; i++) data[i] = (uint32_t)i * 7u;
  DEPTH0(ul_buffer_create(dev, &(ul_buffer_desc){.label = "b", .size = sizeof data}, &b));
  DEPTH0(ul_buffer_create(dev, &(ul_buffer_desc){.label = "m", .size = 256, .usage = UL_BUFFER_MAP_READ | UL_BUFFER_COPY_DST}, &m));
  DEPTH0(ul_buffer_write(dev, b, 0, data, sizeof data));
  DEPTH0(ul_buffer_write(dev, b, 1, data, 3)); /* fails: not aligned */
  DEPTH0(ul_device_checkpoint(dev));
  DEPTH0(ul_device_force_loss(dev, "balance: injected"));
  DEPTH0(ul_buffer_read(dev, b, 0, back, sizeof back, 0)); /* recovers first */
  ul_status rs = UL_ERR_INTERNAL;
  DEPTH0(ul_buffer_read_async(dev, b, 0, back, sizeof back, on_read, &rs));
  DEPTH0(ul_device_force_loss(dev, "balance: injected again"));
  for (int i = 0; i < 2000 && rs == UL_ERR_INTERNAL; i++) {
    DEPTH0(ul_device_poll(dev));
    ul__sleep_ns(1000000);
  }
  void *p = NULL;
  DEPTH0(ul_buffer_map(dev, m, UL_MAP_READ, 0, 256, 0, &p));
  DEPTH0(ul_buffer_unmap(dev, m));
  DEPTH0(ul_buffer_destroy(dev, m));
  DEPTH0(ul_buffer_destroy(dev, (ul_buffer){0}));
  DEPTH0(ul_device_destroy(dev)); /* with `b` alive: a leak report */
  DEPTH0(ul_env_destroy(env));
  ul__log_swap_level(old);
  ASSERT_OK(ul_set_log_callback(NULL, NULL));
  ASSERT_OK(rs);
  ASSERT_TRUE(!memcmp(back, data, sizeof data));
  /* The leak report of the destroy came through, about the device. */
  int leak = -1;
  for (int i = 0; i < r.n; i++)
    if (strstr(r.message[i], "destroyed with 1 live object")) leak = i;
  ASSERT_GE(leak, 0);
  ASSERT_STR_EQ(r.device[leak], "balance");
}

/* ul_set_log_callback from the callback is refused (no deadlock), and the
 * thread's error is kept across the callback. */
static void test_set_from_inside(void) {
  recorder r = {.try_set = true};
  ASSERT_OK(ul_set_log_callback(record, &r));
  ul_error_set(UL_ERR_IO, "the caller's error");
  ul__log(UL__LOG_ERROR, "one");
  ASSERT_EQ(r.n, 1);
  ASSERT_STATUS(r.set_from_inside, UL_ERR_WRONG_STATE);
  ASSERT_STATUS(ul_last_status(), UL_ERR_IO);
  ASSERT_STR_EQ(ul_last_error(), "the caller's error");
  r.try_set = false;
  ul__log(UL__LOG_ERROR, "two"); /* still set */
  ASSERT_EQ(r.n, 2);
  ASSERT_OK(ul_set_log_callback(NULL, NULL));
}

/* Threads log at once: calls never overlap, none is lost, and after the
 * reset none comes. */
typedef struct overlap {
  atomic_int inside, max_inside, calls;
} overlap;

static void count(const ul_log_line *l, void *user) {
  (void)l;
  overlap *o = user;
  int now = atomic_fetch_add(&o->inside, 1) + 1;
  int m = atomic_load(&o->max_inside);
  while (now > m && !atomic_compare_exchange_weak(&o->max_inside, &m, now)) {
  }
  ul__sleep_ns(20000);
  atomic_fetch_add(&o->calls, 1);
  atomic_fetch_sub(&o->inside, 1);
}

static void *log_loop(void *arg) {
  (void)arg;
  for (int i = 0; i < 200; i++) ul__log(UL__LOG_ERROR, "line %d", i);
  return NULL;
}

static void test_calls_never_overlap(void) {
  overlap o = {0};
  ASSERT_OK(ul_set_log_callback(count, &o));
  pthread_t t[4];
  for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, log_loop, NULL);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  ASSERT_OK(ul_set_log_callback(NULL, NULL));
  int calls = atomic_load(&o.calls);
  ASSERT_EQ(calls, 800);
  ASSERT_EQ(atomic_load(&o.max_inside), 1);
  char err[256];
  stderr_begin();
  ul__log(UL__LOG_ERROR, "after");
  stderr_end(err, sizeof err);
  ASSERT_EQ(atomic_load(&o.calls), 800);
  ASSERT_STR_EQ(err, "unlost error: after\n");
}

int main(void) {
  /* Read at the first line logged. */
  setenv("UNLOST_LOG", "error", 1);
  ul_test_watchdog(120);
  RUN_TEST(test_lines_level_and_stderr);
  RUN_TEST(test_loss_line_after_the_lock);
  RUN_TEST(test_holds_balance);
  RUN_TEST(test_set_from_inside);
  RUN_TEST(test_calls_never_overlap);
  TEST_MAIN_END();
}
