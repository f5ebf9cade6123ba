/* Internal to unlost: recorded commands (src/exec/commands.c). */
#ifndef UL_EXEC_CMD_H
#define UL_EXEC_CMD_H

#include "res/obj.h"

typedef enum ul__op_kind {
  UL__OP_DISPATCH = 0,
  UL__OP_DISPATCH_INDIRECT,
  UL__OP_COPY_BUFFER,
  UL__OP_CLEAR_BUFFER,
  UL__OP_COPY_BUFFER_TO_TEXTURE,
  UL__OP_COPY_TEXTURE_TO_BUFFER,
  /* From webgpu.h's encoders: */
  UL__OP_COPY_TEXTURE_TO_TEXTURE,
  UL__OP_RESOLVE_QUERY_SET,  /* query_set, query_first, query_count into buf_b at off_b */
  UL__OP_PASS_BEGIN,         /* a compute pass; with query_set: timestamps at query_first
                                (beginning) and query_count (end), WGPU_QUERY_SET_INDEX_UNDEFINED
                                for none */
  UL__OP_PASS_END,
  UL__OP_WRITE_TIMESTAMP,    /* query_set at query_first (inside a pass when one is open) */
} ul__op_kind;

/* Dynamic offsets per dispatch, over all its groups: the defaults of
 * maxDynamicUniformBuffersPerPipelineLayout (8) and ...Storage... (4). */
#define UL__MAX_DYNAMIC_OFFSETS 12

typedef struct ul__op {
  ul__op_kind kind;
  uint32_t pipeline;
  uint32_t groups[UL_MAX_BIND_GROUPS];
  uint32_t group_count;
  uint32_t x, y, z;            /* dispatch size, or copy extent */
  uint32_t buf_a, buf_b;       /* src/dst buffers, indirect args */
  uint64_t off_a, off_b, size;
  uint32_t texture;            /* a copy's texture (the source of a texture-to-texture copy) */
  uint32_t bytes_per_row;
  /* webgpu.h's extras, zero from unlost.h's lists (level 0, the origin,
   * every aspect, rows of the extent's height): */
  uint32_t texture_b;          /* a texture-to-texture copy's destination */
  uint32_t rows_per_image;     /* 0: the extent's height */
  uint32_t mip_a, mip_b;       /* of texture, texture_b */
  uint32_t origin_a[3], origin_b[3];
  uint32_t aspect_a, aspect_b; /* 0: All */
  uint32_t query_set, query_first, query_count;
  /* Dispatches: the dynamic offsets of each group, packed group after
   * group (group g's start after those of groups 0..g-1). */
  uint8_t dyn_count[UL_MAX_BIND_GROUPS];
  uint32_t dyn[UL__MAX_DYNAMIC_OFFSETS];
} ul__op;

/* What the last successful encode of a list resolved, reused while
 * nothing was recorded, destroyed, marked lost or rebuilt since
 * (ul__obj_state_gen, the epoch): the fast path of a list submitted again
 * and again. Dispatch-only lists. */
typedef struct ul__enc_cache {
  bool valid;
  uint64_t version, epoch, state_gen; /* state_gen: ul__obj_state_gen when built */
  void **pipe;            /* [count] native pipelines */
  void **group;           /* [count * UL_MAX_BIND_GROUPS] native bind groups */
  ul__obj **dirty;        /* buffers and textures the list may write */
  uint32_t ndirty;
} ul__enc_cache;

struct ul_cmd {
  ul_device *device;
  char *label;
  ul__op *ops;
  uint32_t count, cap;
  uint64_t version;       /* bumped by every record and reset */
  uint64_t track_id;
  ul__enc_cache cache;
  const char *site_file; /* ul_cmd_create's site, for loss forensics */
  int site_line;
  uint64_t pipes_version; /* `version` when pipes was made (0: never) */
  char pipes[128];        /* labels of the pipelines it dispatches */
};

/* Checks every handle of `n` ops as the encode does (live; an object
 * whose contents were lost is UL_ERR_DEVICE_LOST unless the replay runs),
 * without encoding anything. Under d->mu. */
ul_status ul__cmd_check(ul_device *d, const ul__op *ops, uint32_t n);
/* Marks what the ops may write as changed since the last checkpoint (the
 * encode does it too; for work encoded elsewhere). Under d->mu. */
void ul__cmd_mark_written(ul_device *d, const ul__op *ops, uint32_t n);
/* Encodes `n` ops into one command buffer on the current device. Checks
 * every handle first: an op that refers to a destroyed object (directly or
 * through a bind group) is UL_ERR_INVALID_HANDLE and nothing is encoded.
 * With mark_written, marks the LOG buffers the ops may write as dirty: an
 * encode ahead of its submission (ul__ops_prepare) does not, since nothing
 * is written until the submit, which marks them (a MAP_READ buffer marked
 * at a Finish had every asynchronous checkpoint started before its submit
 * find it changed after its place). Under d->mu. */
ul_status ul__cmd_encode(ul_device *d, const ul__op *ops, uint32_t n, const char *label, bool mark_written,
                         WGPUCommandBuffer *out);
/* Replay: an op that reads an object whose contents were lost (LOST)
 * cannot do what it did, so it is left out and what it may write becomes
 * LOST too (in op order, so the loss spreads to the ops after it). Returns
 * how many ops stay, moved to the front of `ops`. Under d->mu. */
uint32_t ul__cmd_drop_lost(ul_device *d, ul__op *ops, uint32_t n);
/* Makes every buffer and texture the ops may write LOST; `why` names the
 * cause in the log. Under d->mu. */
void ul__cmd_mark_written_lost(ul_device *d, const ul__op *ops, uint32_t n, const char *why);

/* For the submit (src/engine/submit.c): whether the list dispatches a
 * pipeline for the first time (its compile is kept out of latency windows),
 * and one try of its encode -- from the encode cache when it holds -- refused with
 * UL_ERR_VALIDATION when the implementation rejects it and
 * UL_ERR_DEVICE_LOST when the device was lost meanwhile (*out NULL then). */
bool ul__cmd_first_use(ul_device *d, ul_cmd *c);
/* The same for any ops (marks their pipelines used). */
bool ul__ops_first_use(ul_device *d, const ul__op *ops, uint32_t n);
/* The labels of the pipelines the ops dispatch into buf (as
 * ul__cmd_pipelines). */
void ul__ops_pipelines(ul_device *d, const ul__op *ops, uint32_t n, char *buf, size_t cap);
/* The labels of the pipelines the list dispatches, ", " between, each
 * once (cut to fit; kept until the list changes). Under d->mu. */
const char *ul__cmd_pipelines(ul_device *d, ul_cmd *c);
ul_status ul__cmd_encode_list(ul_device *d, ul_cmd *c, WGPUCommandBuffer *out);

#endif
