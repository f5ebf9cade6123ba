/* The tracker's timeline: a bounded ring of samples (live bytes per kind)
 * and events (large creates and destroys, losses, recoveries with their
 * phases, checkpoints, health transitions, moves, budget refusals, churn),
 * on the tracker's clock. Written under the tracker's lock; the report
 * copies it out as the "timeline" member of the JSON report. */
#ifndef UL_TRACK_TIMELINE_H
#define UL_TRACK_TIMELINE_H

#include <stdint.h>

/* X(NAME, "text"): what a timeline event is; "text" is its name in the
 * report and the page (data-event="..."). */
#define UL__TL_TYPE_MAP(X)      \
  X(SAMPLE, "sample")           \
  X(CREATE, "create")           \
  X(DESTROY, "destroy")         \
  X(LOSS, "loss")               \
  X(RECOVERING, "recovering")   \
  X(RETRY, "retry")             \
  X(RECOVERY, "recovery")       \
  X(FAILED, "failed")           \
  X(MOVE, "move")               \
  X(HEALTH, "health")           \
  X(CHECKPOINT, "checkpoint")   \
  X(BUDGET, "budget")           \
  X(CHURN, "churn")

typedef enum ul__tl_type {
#define UL__TL_TYPE_ENUM(name, text) UL__TL_##name,
  UL__TL_TYPE_MAP(UL__TL_TYPE_ENUM)
#undef UL__TL_TYPE_ENUM
  UL__TL_TYPE_COUNT
} ul__tl_type;

const char *ul__tl_type_name(ul__tl_type t);

/* The phases of one recovery, in ns (UL__TL_RECOVERY). */
typedef struct ul__tl_phases {
  uint64_t adapter;   /* the adapter request (part of device) */
  uint64_t device;    /* new adapter and device */
  uint64_t objects;   /* objects recreated, pipelines compiled */
  uint64_t contents;  /* contents restored by policy */
  uint64_t callbacks; /* the program's restore callbacks */
  uint64_t replay;    /* the operation log replayed */
  uint64_t release;   /* the lost device released */
} ul__tl_phases;

/* What an event carries besides its time and type. */
typedef struct ul__tl_event {
  ul__tl_type type;
  uint8_t kind;         /* CREATE/DESTROY: the ul__track_kind */
  uint64_t bytes;       /* CREATE/DESTROY: size; CHECKPOINT: bytes kept */
  uint64_t dur_ns;      /* RECOVERY: loss to recovered; CHECKPOINT: time */
  uint64_t number;      /* LOSS: the device's loss number; others: 0 */
  ul__tl_phases phases; /* RECOVERY */
  const char *text;     /* label, message or reason; cut to fit */
} ul__tl_event;

#endif
