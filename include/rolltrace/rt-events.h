/* SPDX-License-Identifier: Apache-2.0 */
/* rt-events.h: canonical event names and the registry that interns them.
 * Both logger generations map onto one set of names, so analyzers never see the older ones. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The step-level sections come first and in the order the logger writes them, so
 * that a step x worker table can index them directly by id. */
typedef enum {
  RT_EV_PREPROCESSING = 0,
  RT_EV_ASYNC_GENERATE,
  RT_EV_SORTING,
  RT_EV_BARRIER_WAIT,
  RT_EV_BROADCAST,
  RT_EV_DATA_EXTRACTION,
  RT_EV_PADDING,
  RT_EV_CONCATENATION,
  RT_EV_BATCH_CONSTRUCTION,
  RT_EV_CACHE_FLUSH,
  RT_EV_FINAL_CONSTRUCTION,
  RT_EV_TOTAL_STEP,
  RT_N_STEP_EVENTS,
  /* Named because the loader treats them specially. */
  RT_EV_REQUEST_COMPLETE = RT_N_STEP_EVENTS,
  RT_EV_TURN_END,
  RT_EV_STEP_RESPONSE_LENGTH_STATS,
  RT_N_KNOWN_EVENTS
} RtEventId;

#define RT_EVENT_NONE G_MAXUINT16

/* A trace logs a few dozen event names. The registry keeps at most this many
 * distinct ones, so that tables indexed by event stay small whatever the input;
 * every name past them shares the one id of RT_EVENT_OTHER_NAME. */
#define RT_EVENT_NAMES_MAX 1024   /* besides the names of both logger generations, which always have one */
#define RT_EVENT_OTHER_NAME "(other event names)"

/* Which logger generation a name belongs to; names both write are neither. */
typedef enum {
  RT_SCHEMA_NEITHER = 0,
  RT_SCHEMA_V1 = 1 << 0,
  RT_SCHEMA_V2 = 1 << 1,
} RtSchemaFlags;

typedef struct _RtEventRegistry RtEventRegistry;

RtEventRegistry *rt_event_registry_new (void);
void rt_event_registry_free (RtEventRegistry *reg);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtEventRegistry, rt_event_registry_free)

/* Maps a raw name as logged (older or newer generation) to its canonical id,
 * interning names never seen before. Thread-safe. `has_request_id` decides
 * what `barrier` means. `schema` receives the generation the raw name implies. */
guint16 rt_event_registry_intern (RtEventRegistry *reg,
                                  const char *name,
                                  gsize len,
                                  gboolean has_request_id,
                                  RtSchemaFlags *schema);

/* Canonical id of a name given on a command line (older names accepted), or
 * RT_EVENT_NONE when the trace never logged it. */
guint16 rt_event_registry_lookup (RtEventRegistry *reg, const char *name);

const char *rt_event_registry_name (RtEventRegistry *reg, guint16 id);

/* The `most` names of the registry closest to `name` (those that start with it, then those that
 * hold it, then the others; each by fewest edits, then in byte order),
 * ", "-separated, control characters made spaces: what to offer for a name it does not hold. */
char *rt_event_registry_closest (RtEventRegistry *reg, const char *name, guint most);

/* The id every name past RT_EVENT_NAMES_MAX maps to, or RT_EVENT_NONE while the
 * registry has room. */
guint16 rt_event_registry_other_id (RtEventRegistry *reg);
guint rt_event_registry_size (RtEventRegistry *reg);

/* Every event name the format gives (docs/input.md), of both logger generations (newer names first), each
 * once, NULL-terminated; static. For completion and documentation. */
const char *const *rt_event_known_names (void);

/* The canonical name of a step-level event, without a registry. */
const char *rt_step_event_name (RtEventId id);

/* Canonical name for a raw name, or NULL when the name is already canonical.
 * Exposed for the tests of the mapping. */
const char *rt_event_canonical_name (const char *name, gboolean has_request_id);

G_END_DECLS
