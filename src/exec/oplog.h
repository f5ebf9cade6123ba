/* Internal to unlost: the operation log (src/exec/oplog.c). In queue order,
 * every write to a LOG buffer and every submission since the last
 * checkpoint, replayed after a rebuild so that GPU-written state is what it
 * would have been without the loss. */
#ifndef UL_EXEC_OPLOG_H
#define UL_EXEC_OPLOG_H

#include "exec/cmd.h"

ul_status ul__oplog_create(ul_device *d);
void ul__oplog_destroy(ul_device *d);
/* Records a write (the data is copied). */
ul_status ul__oplog_write(ul_device *d, ul__obj *o, uint64_t offset, const void *data,
                          uint64_t size);
/* Records a write of chunk `c`'s bytes (referenced, not copied: the
 * chunk may be shared, as with a host-written buffer's extents). */
ul_status ul__oplog_write_chunk(ul_device *d, ul__obj *o, uint64_t offset, ul__chunk *c);
/* Records a write of `size` bytes at `offset` that lie in `file` at
 * file_off (referenced; no copy): the replay reads them from the file with
 * SOURCE's checks. */
ul_status ul__oplog_write_file(ul_device *d, ul__obj *o, uint64_t offset, uint64_t size, ul__src_file *file,
                               uint64_t file_off, uint64_t hash);
/* Records a write of a region of a LOG texture (the data is copied; the
 * region as ul__texture_write_region takes it). */
ul_status ul__oplog_write_texture(ul_device *d, ul__obj *o, const uint32_t region[UL__TR_WORDS], const void *data,
                                  uint64_t size);
/* Records an asynchronous read (*logged false: not logged, as in a
 * restore callback or the replay). */
ul_status ul__oplog_read(ul_device *d, uint64_t id, bool *logged);
/* Records a submission (the ops are copied). */
ul_status ul__oplog_submit(ul_device *d, const ul__op *ops, uint32_t n);
/* Takes the last entry back when it is a submission: one the
 * implementation refused (nothing of it ran, so nothing may be replayed). */
void ul__oplog_unsubmit(ul_device *d);
/* Drops submission `serial` from the log (work that never ended: replaying
 * it would hang the next device too) and makes what it may write LOST, so
 * their use says so. False when the log no longer holds it. */
bool ul__oplog_drop_submission(ul_device *d, uint64_t serial, const char *why);
/* Marks `o` as named by an entry of the log (a read of it). */
void ul__oplog_name(ul_device *d, ul__obj *o);
/* Whether a replay could need `o` (then its destroy is deferred). */
bool ul__oplog_names(ul_device *d, ul__obj *o);
/* Replays the log on the current device, after contents were restored. */
ul_status ul__oplog_replay(ul_device *d);
/* Whether an entry of `bytes` more would take the log past its bounds
 * (an empty log takes any one entry). */
bool ul__oplog_would_exceed(ul_device *d, uint64_t bytes);
/* How full the log is, against its bounds. */
typedef struct ul__oplog_fill {
  uint32_t entries, max_entries;
  uint64_t bytes, max_bytes;
} ul__oplog_fill;
void ul__oplog_usage(ul_device *d, ul__oplog_fill *out);
/* Entries in the log; positions in it are stable until it is emptied or
 * a prefix of it goes (ul__oplog_truncate_before). */
uint32_t ul__oplog_count(ul_device *d);
/* Whether an entry at position `from` or later may change `o` (a write to
 * it, or work that names or binds it: conservatively, any binding). */
bool ul__oplog_may_touch_since(ul_device *d, uint32_t from, const ul__obj *o);
/* Where the checkpoint under way keeps its state (recover/ owns what it
 * points to and frees it: ul__checkpoint_forget before ul__oplog_destroy). */
void **ul__oplog_checkpoint_slot(ul_device *d);
bool ul__oplog_empty(ul_device *d);
/* Empties the log: the commit of a checkpoint (src/recover/snapshot.c). */
void ul__oplog_truncate(ul_device *d);
/* A place in the log for an asynchronous checkpoint: what entries logged
 * from here on name is told apart from what those before named. Returns
 * the mark, for ul__oplog_truncate_before. */
uint64_t ul__oplog_mark(ul_device *d);
/* Drops the entries before position `at` (the commit of an asynchronous
 * checkpoint taken there; `mark` is what ul__oplog_mark returned when the
 * log held `at` entries): the rest move to the front. */
void ul__oplog_truncate_before(ul_device *d, uint32_t at, uint64_t mark);
/* Whether every read logged before position `at` has its data (tries to
 * collect those whose map ended; waits for nothing). */
bool ul__oplog_reads_settled_before(ul_device *d, uint32_t at);
uint64_t ul__oplog_bytes(ul_device *d);
/* Checkpoints committed so far (truncations of the log). */
uint64_t ul__oplog_checkpoints(ul_device *d);
/* Of them, asynchronous ones (ul__oplog_truncate_before). */
uint64_t ul__oplog_checkpoints_async(ul_device *d);

#endif
