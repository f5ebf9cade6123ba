/* The standby device: the next recovery's native device, asked for ahead
 * on a thread of its own (and the SOURCE buffers filled on it ahead). */
#include "core/native.h"
#include "core/adapter.h"
#include "core/prefill.h"
#include "core/core.h"
#include "chaos/chaos.h"

#include <errno.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

/* ---- the standby device ----------------------------------------------------
 * A recovery spends most of its time asking for a new device (70-90 ms on
 * an H200). The standby is that device asked for ahead, on a thread of its
 * own, right after the device is created and after each recovery, so that
 * the next recovery begins on it. It is built through the implementation's
 * own table: fault schedules count the same calls whenever it is built, and
 * a recovery always waits for a standby being built rather than building a
 * second one beside it, so that a schedule sees the same calls every run.
 * A loss that takes the whole GPU (a reset) takes the standby too: its lost
 * callback marks it, and a recovery that finds it so builds as before (one
 * that comes later shows as a loss during the rebuild: another attempt). */
struct ul__standby {
  pthread_mutex_t mu; /* leaf; guards all below */
  pthread_cond_t cv;  /* the build ended */
  int mode;           /* UNLOST_STANDBY: 0 none, 1 on any adapter, 2 on GPU adapters */
  bool closed;        /* the device is being destroyed: none is started */
  bool running;       /* a build was started and is not collected yet */
  bool done;          /* it ended: `n` and `status` hold what it built */
  bool joined;        /* its thread was joined */
  pthread_t thread;
  ul__native n;
  ul_status status;
  /* A standby found lost by a recovery: released once that recovery is
   * over (a build waits for every teardown, so not before it builds). */
  ul__native corpse;
  ul__standby_counts counts;
  /* The SOURCE buffers to make ahead (ul__standby_source_*). */
  ul__prefill_src *sources;
  uint32_t nsources, sources_cap;
  uint64_t sources_gen;   /* bumped at every add: a fill under way looks again */
  uint64_t source_bytes;  /* their sizes, for the CPU adapter's threshold */
  /* A take or a close waits: a fill under way stops at its next chunk. */
  _Atomic bool wanted;
  /* Set when the device was destroyed with a build still under way (the
   * close did not wait for it): that build's thread, which reads the
   * device until it ends, releases what it built and frees the device's
   * memory with this (ul__standby_free_device). */
  void (*fin)(ul_device *);
};

/* On the CPU adapter, under the default mode, a standby pays only through
 * what it fills ahead (a new device there takes 10-20 ms, a restore about
 * 1 ms per MiB): it is built once the device's SOURCE buffers reach this. */
#define UL__STANDBY_CPU_SOURCE_BYTES (64ull << 20)

/* Whether a device on adapter `info` gets a standby under this mode. Not
 * under sb->mu. */
static bool standby_wanted(ul__standby *sb, const ul_adapter_info *info) {
  if (!sb->mode || info->is_fallback) return false;
  if (sb->mode == 1 || info->type != UL_ADAPTER_CPU) return true;
  pthread_mutex_lock(&sb->mu);
  bool enough = sb->source_bytes >= UL__STANDBY_CPU_SOURCE_BYTES;
  pthread_mutex_unlock(&sb->mu);
  return enough;
}

/* Device memory a standby on adapter `info` may fill ahead: the option, and
 * on the CPU adapter (whose device memory is the host's) at most a quarter
 * of the host's memory unless the option was set. */
static uint64_t prefill_budget(const ul_adapter_info *info) {
  uint64_t b = ul__opt_number(UL__OPT_STANDBY_PREFILL_MB) << 20;
  if (info->type == UL_ADAPTER_CPU && !ul__opt_text(UL__OPT_STANDBY_PREFILL_MB)) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) b = UL__MIN(b, (uint64_t)pages * (uint64_t)page / 4);
  }
  return b;
}

static bool same_source(const ul__prefill_src *a, const ul__prefill_src *b) {
  return a->id == b->id && a->usage == b->usage && a->size == b->size && a->offset == b->offset &&
         a->file_size == b->file_size && a->mtime_ns == b->mtime_ns && a->path && b->path &&
         !strcmp(a->path, b->path);
}

static bool ctx_lost(ul__native_ctx *c) {
  pthread_mutex_lock(&ul__lost_mu);
  bool lost = c->lost;
  pthread_mutex_unlock(&ul__lost_mu);
  return lost;
}

/* One empty submission on standby `n`, from its own thread: the first
 * submission on a device pays for what the device did before (measured on
 * the H200: 17-21 ms after 1 GiB of queue writes, where a tick did not
 * help), and that first one would otherwise be the replay's or the
 * restore's, inside the recovery. */
static void standby_warm(ul_device *d, ul__native *n) {
  const ul__wgpu *raw = &d->env->lib.procs;
  uint64_t t0 = ul__now_ns();
  WGPUCommandEncoder e = raw->DeviceCreateCommandEncoder(n->device, NULL);
  WGPUCommandBuffer cb = e ? raw->CommandEncoderFinish(e, NULL) : NULL;
  if (cb) raw->QueueSubmit(n->queue, 1, &cb);
  if (cb) raw->CommandBufferRelease(cb);
  if (e) raw->CommandEncoderRelease(e);
  ul__log(UL__LOG_DEBUG, "device '%s': the standby's first submission took %.1f ms", d->label,
          (double)(ul__now_ns() - t0) / 1e6);
}

/* Makes and fills the registered SOURCE buffers on standby `n` that it
 * does not hold yet, within the prefill budget, until a take or a close
 * wants the standby; looks again while sources are added meanwhile. Drops
 * what it holds for buffers destroyed since. A failed one is left out: its
 * rebuild restores it. */
static uint64_t prefills_bytes(const ul__prefill *p);
static void standby_prefill(ul_device *d, ul__standby *sb, ul__native *n) {
  const ul__wgpu *raw = &d->env->lib.procs;
  uint64_t budget = prefill_budget(&n->info);
  if (!budget) return;
  uint64_t t0 = ul__now_ns(), made = 0, filled = 0, gen;
  do {
    pthread_mutex_lock(&sb->mu);
    gen = sb->sources_gen;
    uint32_t count = sb->nsources;
    ul__prefill_src *list = count ? calloc(count, sizeof *list) : NULL;
    for (uint32_t i = 0; list && i < count; i++) {
      list[i] = sb->sources[i];
      list[i].path = ul__strdup(sb->sources[i].path);
      list[i].label = sb->sources[i].label ? ul__strdup(sb->sources[i].label) : NULL;
    }
    pthread_mutex_unlock(&sb->mu);
    /* Held for a buffer no longer registered: gone. */
    for (ul__prefill **pp = &n->prefills; *pp;) {
      bool live = false;
      for (uint32_t i = 0; list && i < count && !live; i++) live = same_source(&(*pp)->src, &list[i]);
      if (live) {
        pp = &(*pp)->next;
        continue;
      }
      ul__prefill *gone = *pp;
      *pp = gone->next;
      ul__prefill_free(raw, gone);
    }
    uint64_t used = prefills_bytes(n->prefills);
    for (uint32_t i = 0; list && i < count && !atomic_load(&sb->wanted); i++) {
      ul__prefill_src *src = &list[i];
      bool held = false;
      for (const ul__prefill *p = n->prefills; p && !held; p = p->next) held = same_source(&p->src, src);
      if (held || !src->path || src->size > budget - UL__MIN(used, budget)) continue;
      unsigned errors = atomic_load(&n->ctx->standby_errors);
      ul__prefill *p = NULL;
      ul_status s = ul__prefill_make(raw, d->env, n->instance, n->device, n->queue, src, &sb->wanted, &p);
      if (!s && (atomic_load(&n->ctx->standby_errors) != errors || ctx_lost(n->ctx))) {
        ul__prefill_free(raw, p);
        s = UL_ERR_INTERNAL;
      }
      if (s) {
        ul__log(UL__LOG_DEBUG, "device '%s': buffer %u not made ahead: %s", d->label, src->id, ul_last_error());
        if (ctx_lost(n->ctx)) break;
        continue;
      }
      p->next = n->prefills;
      n->prefills = p;
      used += p->src.size;
      filled += p->src.size;
      made++;
    }
    for (uint32_t i = 0; list && i < count; i++) ul__prefill_src_clear(&list[i]);
    free(list);
    pthread_mutex_lock(&sb->mu);
    bool again = sb->sources_gen != gen;
    pthread_mutex_unlock(&sb->mu);
    if (!again || atomic_load(&sb->wanted) || ctx_lost(n->ctx)) break;
  } while (true);
  if (made) standby_warm(d, n);
  if (made)
    ul__log(UL__LOG_INFO, "device '%s': %llu SOURCE buffer(s), %.1f MiB, made and filled on the standby in %.1f ms",
            d->label, (unsigned long long)made, (double)filled / 1048576.0, (double)(ul__now_ns() - t0) / 1e6);
  pthread_mutex_lock(&sb->mu);
  sb->counts.prefilled += made;
  sb->counts.prefilled_bytes += filled;
  pthread_mutex_unlock(&sb->mu);
}

static uint64_t prefills_bytes(const ul__prefill *p) {
  uint64_t n = 0;
  for (; p; p = p->next) n += p->src.size;
  return n;
}

/* Frees `sb`, releasing the standby it holds, if any. */
static void standby_free(ul_device *d, ul__standby *sb) {
  if (sb->n.device || sb->n.adapter) ul__standby_release(d, &sb->n);
  for (uint32_t i = 0; i < sb->nsources; i++) ul__prefill_src_clear(&sb->sources[i]);
  free(sb->sources);
  pthread_cond_destroy(&sb->cv);
  pthread_mutex_destroy(&sb->mu);
  free(sb);
}

/* The end of a build's thread: what it built (`n`, status `s`) handed to
 * the device, or, when the device was destroyed meanwhile, released with
 * the device's memory (the thread is detached then). */
static void standby_end(ul_device *d, ul__standby *sb, ul__native *n, ul_status s) {
  pthread_mutex_lock(&sb->mu);
  sb->n = *n;
  sb->status = s;
  sb->done = true;
  void (*fin)(ul_device *) = sb->fin;
  pthread_cond_broadcast(&sb->cv);
  pthread_mutex_unlock(&sb->mu);
  if (!fin) return;
  ul__log(UL__LOG_INFO, "device '%s': the abandoned standby build ended; released", d->label);
  d->standby = NULL;
  standby_free(d, sb);
  fin(d);
}

static void *standby_main(void *arg) {
  ul_device *d = arg;
  ul__standby *sb = d->standby;
  ul__native n;
  ul_status s = ul__native_build_on(d, &d->env->lib.procs, true, false, 0, &n);
  if (!s && (!n.synchronized || !standby_wanted(sb, &n.info))) {
    /* Not one a recovery may use: it could not be torn down beside the
     * program's calls, or it is the CPU adapter where only GPUs get one. */
    ul__standby_release(d, &n);
    s = ul__fail(UL_ERR_NO_ADAPTER, "the standby came from an adapter that does not get one");
  }
  if (!s) standby_prefill(d, sb, &n);
  if (!s && !n.prefills) standby_warm(d, &n); /* a fill warms it itself */
  if (s) ul__log(UL__LOG_INFO, "device '%s': no standby device: %s", d->label, ul_last_error());
  pthread_mutex_lock(&sb->mu);
  if (s) sb->counts.failed++;
  else sb->counts.built++;
  pthread_mutex_unlock(&sb->mu);
  standby_end(d, sb, &n, s);
  return NULL;
}

/* Fills, on the standby already built, the SOURCE buffers registered
 * since (ul__standby_source_add), and hands it back as it was. */
static void *standby_topup_main(void *arg) {
  ul_device *d = arg;
  ul__standby *sb = d->standby;
  pthread_mutex_lock(&sb->mu);
  ul__native n = sb->n;
  memset(&sb->n, 0, sizeof sb->n);
  pthread_mutex_unlock(&sb->mu);
  standby_prefill(d, sb, &n);
  standby_end(d, sb, &n, UL_OK);
  return NULL;
}

ul_status ul__standby_init(ul_device *d) {
  ul__standby *sb = calloc(1, sizeof *sb);
  if (!sb) return ul__fail(UL_ERR_OUT_OF_MEMORY, "standby: out of host memory");
  pthread_mutex_init(&sb->mu, NULL);
  ul__cond_init_monotonic(&sb->cv);
  /* Dawn only: the standby is torn down beside the program's calls. */
  sb->mode = d->env->lib.procs.DeviceForceLoss ? (int)ul__opt_number(UL__OPT_STANDBY) : 0;
  d->standby = sb;
  return UL_OK;
}

/* The lost standby a recovery left, if any, released now. */
static void standby_bury(ul_device *d) {
  ul__standby *sb = d->standby;
  pthread_mutex_lock(&sb->mu);
  ul__native corpse = sb->corpse;
  memset(&sb->corpse, 0, sizeof sb->corpse);
  pthread_mutex_unlock(&sb->mu);
  if (corpse.device || corpse.adapter) ul__standby_release(d, &corpse);
}

void ul__standby_start(ul_device *d) {
  ul__standby *sb = d->standby;
  if (!sb) return;
  standby_bury(d);
  if (!standby_wanted(sb, &d->info)) return;
  pthread_mutex_lock(&sb->mu);
  if (!sb->closed && !sb->running) {
    sb->done = false;
    sb->joined = false;
    atomic_store(&sb->wanted, false);
    sb->running = pthread_create(&sb->thread, NULL, standby_main, d) == 0;
  }
  pthread_mutex_unlock(&sb->mu);
}

/* The standby thread's result once it ended, joined (under sb->mu): true
 * with *n when it built one. Waits at most `ns` for a build under way. */
static bool standby_collect_locked(ul_device *d, uint64_t ns, ul__native *n) {
  ul__standby *sb = d->standby;
  if (!sb->running) return false;
  struct timespec until = ul__deadline(CLOCK_MONOTONIC, ns);
  while (!sb->done && pthread_cond_timedwait(&sb->cv, &sb->mu, &until) == 0) {
  }
  if (!sb->done) return false; /* still asking: left to the next collect */
  if (!sb->joined) pthread_join(sb->thread, NULL); /* it only returns now */
  sb->joined = true;
  sb->running = false;
  sb->done = false;
  if (sb->status) return false;
  *n = sb->n;
  memset(&sb->n, 0, sizeof sb->n);
  return true;
}

static uint64_t standby_wait_ns(const ul_device *d) {
  /* A build waits for a teardown at most the release deadline, then asks
   * for an adapter and a device, each within the request timeout. */
  return ul__device_release_deadline_ns(d) + 2 * ul__request_timeout_ns(d);
}

bool ul__standby_take(ul_device *d, uint64_t epoch, ul__native *out) {
  ul__standby *sb = d->standby;
  if (!sb) return false;
  ul__native n;
  uint64_t t0 = ul__now_ns();
  atomic_store(&sb->wanted, true);
  pthread_mutex_lock(&sb->mu);
  bool asked = sb->running;
  bool got = standby_collect_locked(d, standby_wait_ns(d), &n);
  pthread_mutex_unlock(&sb->mu);
  if (asked)
    ul__log(UL__LOG_INFO, "device '%s': %s the standby device after %.1f ms", d->label,
            got ? "took" : "did not take", (double)(ul__now_ns() - t0) / 1e6);
  if (!got) return false;
  pthread_mutex_lock(&ul__lost_mu);
  bool dead = n.ctx->lost;
  if (!dead) {
    n.ctx->standby = false; /* from here on its loss is the device's */
    n.ctx->epoch = epoch;
  }
  pthread_mutex_unlock(&ul__lost_mu);
  ul__native earlier = {0};
  pthread_mutex_lock(&sb->mu);
  if (dead) {
    sb->counts.dead++;
    earlier = sb->corpse; /* none: the last recovery's was released at its end */
    sb->corpse = n;
  } else {
    sb->counts.used++;
  }
  pthread_mutex_unlock(&sb->mu);
  if (earlier.device || earlier.adapter) ul__standby_release(d, &earlier);
  if (dead) {
    ul__log(UL__LOG_INFO, "device '%s': the standby device was lost as well; building a new one", d->label);
    return false;
  }
  *out = n;
  return true;
}

void ul__standby_close(ul_device *d) {
  ul__standby *sb = d->standby;
  if (!sb) return;
  ul__native n;
  uint64_t t0 = ul__now_ns();
  atomic_store(&sb->wanted, true);
  pthread_mutex_lock(&sb->mu);
  sb->closed = true;
  bool asked = sb->running;
  bool got = standby_collect_locked(d, standby_wait_ns(d), &n);
  bool left = sb->running; /* a build that did not end in time keeps sb */
  pthread_mutex_unlock(&sb->mu);
  standby_bury(d);
  if (asked)
    ul__log(UL__LOG_INFO, "device '%s': standby closed after %.1f ms", d->label, (double)(ul__now_ns() - t0) / 1e6);
  if (got) ul__standby_release(d, &n);
  if (left) {
    /* Its thread still asks the implementation for a device and reads d
     * meanwhile: sb stays, and the device's memory is freed when the build
     * ends (ul__standby_free_device). The env stays loaded for it. */
    ul__log(UL__LOG_WARN, "device '%s': the standby device's request did not end in time; abandoned", d->label);
    atomic_fetch_add(&d->env->abandoned_devices, 1);
    return;
  }
  d->standby = NULL;
  standby_free(d, sb);
}

void ul__standby_free_device(ul_device *d, void (*fin)(ul_device *)) {
  ul__standby *sb = d->standby;
  if (sb) { /* a build left by ul__standby_close */
    pthread_mutex_lock(&sb->mu);
    bool later = !sb->done;
    if (later) sb->fin = fin;
    pthread_t t = sb->thread;
    pthread_mutex_unlock(&sb->mu);
    if (later) {
      pthread_detach(t); /* valid until joined or detached, ended or not */
      return;
    }
    pthread_join(t, NULL); /* it ended meanwhile */
    d->standby = NULL;
    standby_free(d, sb);
  }
  fin(d);
}

void ul__standby_get_counts(ul_device *d, ul__standby_counts *out) {
  memset(out, 0, sizeof *out);
  ul__standby *sb = d->standby;
  if (!sb) return;
  pthread_mutex_lock(&sb->mu);
  *out = sb->counts;
  out->mode = sb->mode;
  out->ready = sb->running && sb->done && !sb->status;
  out->ready_bytes = out->ready ? prefills_bytes(sb->n.prefills) : 0;
  out->pending = sb->running;
  pthread_mutex_unlock(&sb->mu);
}

bool ul__standby_wait_ready(ul_device *d, uint64_t ns) {
  ul__standby *sb = d->standby;
  if (!sb) return false;
  struct timespec until = ul__deadline(CLOCK_MONOTONIC, ns);
  pthread_mutex_lock(&sb->mu);
  while (sb->running && !sb->done && pthread_cond_timedwait(&sb->cv, &sb->mu, &until) == 0) {
  }
  bool ready = sb->running && sb->done && !sb->status;
  pthread_mutex_unlock(&sb->mu);
  return ready;
}

ul_status ul__standby_lose(ul_device *d) {
  ul__standby *sb = d->standby;
  const ul__wgpu *raw = &d->env->lib.procs;
  if (!sb || !raw->DeviceForceLoss) return ul__fail(UL_ERR_UNSUPPORTED, "standby: none to lose");
  ul__native n;
  pthread_mutex_lock(&sb->mu);
  bool got = standby_collect_locked(d, standby_wait_ns(d), &n);
  if (got) {
    /* Put back as it was, lost: a reset that took every device. */
    raw->DeviceForceLoss(n.device, WGPUDeviceLostReason_Unknown, ul__sv("unlost: the standby is lost too"));
    sb->n = n;
    sb->status = UL_OK;
    sb->done = true;
    sb->running = true; /* joined already */
  }
  pthread_mutex_unlock(&sb->mu);
  return got ? UL_OK : ul__fail(UL_ERR_NO_ADAPTER, "standby: none was built");
}

void ul__standby_source_add(ul_device *d, uint32_t id, const char *label, uint64_t usage, uint64_t size,
                            const char *path, uint64_t offset, uint64_t file_size, int64_t mtime_ns) {
  ul__standby *sb = d->standby;
  if (!sb || !sb->mode) return;
  ul__prefill_src src = {id, ul__strdup(path), label ? ul__strdup(label) : NULL, usage, size, offset,
                         file_size, mtime_ns};
  if (!src.path || (label && !src.label)) {
    ul__prefill_src_clear(&src);
    return;
  }
  pthread_mutex_lock(&sb->mu);
  ul__prefill_src *grown = ul__grow(sb->sources, sb->nsources, &sb->sources_cap, sizeof *sb->sources, 8);
  if (grown) sb->sources = grown;
  bool topup = false;
  if (sb->nsources < sb->sources_cap) {
    sb->sources[sb->nsources++] = src;
    memset(&src, 0, sizeof src);
    sb->sources_gen++;
    sb->source_bytes += size;
    /* A standby built and idle fills it now: a program's weights come
     * after its device, and the first loss should find them made ahead.
     * (A fill under way sees the new generation and looks again.) */
    if (!sb->closed && sb->running && sb->done && !sb->status) {
      if (!sb->joined) pthread_join(sb->thread, NULL); /* it has returned or is returning */
      sb->joined = true;
      sb->done = false;
      atomic_store(&sb->wanted, false);
      topup = pthread_create(&sb->thread, NULL, standby_topup_main, d) == 0;
      if (topup) sb->joined = false;
      else sb->done = true; /* left as it was */
    }
  }
  bool none = !sb->running && !sb->closed;
  pthread_mutex_unlock(&sb->mu);
  ul__prefill_src_clear(&src);
  /* The CPU adapter gets one once its SOURCE buffers are large enough. */
  if (none && !topup && standby_wanted(sb, &d->info)) ul__standby_start(d);
}

void ul__standby_source_remove(ul_device *d, uint32_t id) {
  ul__standby *sb = d->standby;
  if (!sb) return;
  ul__prefill_src gone = {0};
  pthread_mutex_lock(&sb->mu);
  for (uint32_t i = 0; i < sb->nsources; i++) {
    if (sb->sources[i].id != id) continue;
    gone = sb->sources[i];
    sb->source_bytes -= UL__MIN(sb->source_bytes, gone.size);
    sb->sources[i] = sb->sources[--sb->nsources];
    break;
  }
  pthread_mutex_unlock(&sb->mu);
  ul__prefill_src_clear(&gone);
}

ul__prefill *ul__prefill_take(ul_device *d, uint32_t id) {
  for (ul__prefill **pp = &d->prefills; *pp; pp = &(*pp)->next) {
    if ((*pp)->src.id != id) continue;
    ul__prefill *p = *pp;
    *pp = p->next;
    p->next = NULL;
    return p;
  }
  return NULL;
}

/* Through the implementation's own table, made ahead or not: a fault
 * schedule counts the same calls either way. */
void ul__prefills_drop(ul_device *d) { ul__prefills_free(&d->env->lib.procs, &d->prefills); }

