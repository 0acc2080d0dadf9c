/* SPDX-License-Identifier: Apache-2.0 */
/* events.c: the canonical event vocabulary and its registry.
 * Older-logger names are mapped once, while loading, so every table speaks one language. */
#include "rolltrace/rt-events.h"
#include "rolltrace/rt-text.h"

#include <string.h>

struct _RtEventRegistry {
  GMutex lock;
  GHashTable *ids;    /* canonical name -> GUINT_TO_POINTER (id + 1) */
  GPtrArray *names;   /* id -> canonical name (owned) */
  guint16 other_id;   /* RT_EVENT_NONE until the registry is full */
};

static const char *const known_names[RT_N_KNOWN_EVENTS] = {
  [RT_EV_PREPROCESSING] = "preprocessing_duration",
  [RT_EV_ASYNC_GENERATE] = "async_generate_duration",
  [RT_EV_SORTING] = "sorting_duration",
  [RT_EV_BARRIER_WAIT] = "barrier_wait_duration",
  [RT_EV_BROADCAST] = "broadcast_duration",
  [RT_EV_DATA_EXTRACTION] = "data_extraction_duration",
  [RT_EV_PADDING] = "padding_duration",
  [RT_EV_CONCATENATION] = "concatenation_duration",
  [RT_EV_BATCH_CONSTRUCTION] = "batch_construction_duration",
  [RT_EV_CACHE_FLUSH] = "cache_flush_duration",
  [RT_EV_FINAL_CONSTRUCTION] = "final_construction_duration",
  [RT_EV_TOTAL_STEP] = "total_step_duration",
  [RT_EV_REQUEST_COMPLETE] = "async_rollout_request_complete",
  [RT_EV_TURN_END] = "turn_end",
  [RT_EV_STEP_RESPONSE_LENGTH_STATS] = "step_response_length_stats",
};

/* Older logger name -> canonical name. `barrier` is handled apart: it only means
 * the step barrier when no request id comes with it. */
static const struct { const char *old_name, *new_name; } v1_names[] = {
  { "preprocessing", "preprocessing_duration" },
  { "async_generate", "async_generate_duration" },
  { "sorting", "sorting_duration" },
  { "broadcast", "broadcast_duration" },
  { "data_extraction", "data_extraction_duration" },
  { "padding", "padding_duration" },
  { "concatenation", "concatenation_duration" },
  { "batch_construction", "batch_construction_duration" },
  { "cache_flush", "cache_flush_duration" },
  { "final_construction", "final_construction_duration" },
  { "total", "total_step_duration" },
  { "engine_call", "turn_engine_call" },
  { "tool_parsing", "turn_tool_parsing" },
};

/* Names only the older logger writes, besides those above. */
static const char *const v1_only_names[] = { "running_state", "barrier" };

/* Names both generations write: the tool calls between turns (without extra in the older one).
 * They say nothing about the generation. */
static const char *const shared_names[] = {
  "tool_execution", "tool_response_processing", "tool_calling_state",
};

/* Names only the newer logger writes: its step-level names and its per-request sections. */
static const char *const v2_only_names[] = {
  "preprocessing_duration", "async_generate_duration", "sorting_duration",
  "barrier_wait_duration", "broadcast_duration", "data_extraction_duration",
  "padding_duration", "concatenation_duration", "batch_construction_duration",
  "cache_flush_duration", "final_construction_duration", "total_step_duration",
  "step_response_length_stats", "request_start", "pending_state_handling",
  "tool_creation_pending_state", "interaction_start_pending_state", "turn_start",
  "turn_pre_process", "engine_generate_setup", "engine_async_generate_actual",
  "turn_engine_call", "turn_tool_parsing", "turn_post_process", "turn_end",
  "interaction_response", "interacting_state", "main_loop", "reward_calculation",
  "finalization",
};

static gboolean
name_in (const char *name, const char *const *list, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (strcmp (name, list[i]) == 0)
      return TRUE;
  return FALSE;
}

const char *
rt_event_canonical_name (const char *name, gboolean has_request_id)
{
  if (strcmp (name, "barrier") == 0)
    return has_request_id ? NULL : "barrier_wait_duration";
  for (gsize i = 0; i < G_N_ELEMENTS (v1_names); i++)
    if (strcmp (name, v1_names[i].old_name) == 0)
      return v1_names[i].new_name;
  return NULL;
}

static gboolean
is_shared_name (const char *name)
{
  return name_in (name, shared_names, G_N_ELEMENTS (shared_names));
}

static RtSchemaFlags
schema_of (const char *name)
{
  if (is_shared_name (name))
    return RT_SCHEMA_NEITHER;
  for (gsize i = 0; i < G_N_ELEMENTS (v1_names); i++)
    if (strcmp (name, v1_names[i].old_name) == 0)
      return RT_SCHEMA_V1;
  if (name_in (name, v1_only_names, G_N_ELEMENTS (v1_only_names)))
    return RT_SCHEMA_V1;
  if (name_in (name, v2_only_names, G_N_ELEMENTS (v2_only_names)))
    return RT_SCHEMA_V2;
  return RT_SCHEMA_NEITHER;
}

const char *const *
rt_event_known_names (void)
{
  static gsize done;
  static const char **names;
  if (g_once_init_enter (&done))
    {
      /* the newer names first, then what only the older logger writes; each once */
      static const char *const others[] = { "async_rollout_request_complete", "engine_async_generate" };
      GPtrArray *all = g_ptr_array_new ();
      const char *const *lists[] = { v2_only_names, shared_names, others, v1_only_names };
      gsize lens[] = { G_N_ELEMENTS (v2_only_names), G_N_ELEMENTS (shared_names), G_N_ELEMENTS (others),
                       G_N_ELEMENTS (v1_only_names) };
      for (gsize l = 0; l < G_N_ELEMENTS (lists); l++)
        for (gsize i = 0; i < lens[l]; i++)
          if (!g_ptr_array_find_with_equal_func (all, lists[l][i], g_str_equal, NULL))
            g_ptr_array_add (all, (gpointer) lists[l][i]);
      for (gsize i = 0; i < G_N_ELEMENTS (v1_names); i++)
        if (!g_ptr_array_find_with_equal_func (all, v1_names[i].old_name, g_str_equal, NULL))
          g_ptr_array_add (all, (gpointer) v1_names[i].old_name);
      g_ptr_array_add (all, NULL);
      names = (const char **) g_ptr_array_free (all, FALSE);
      g_once_init_leave (&done, 1);
    }
  return names;
}

const char *
rt_step_event_name (RtEventId id)
{
  g_return_val_if_fail (id < RT_N_KNOWN_EVENTS, NULL);
  return known_names[id];
}

RtEventRegistry *
rt_event_registry_new (void)
{
  RtEventRegistry *reg = g_new0 (RtEventRegistry, 1);
  g_mutex_init (&reg->lock);
  reg->ids = g_hash_table_new (g_str_hash, g_str_equal);
  reg->names = g_ptr_array_new_with_free_func (g_free);
  reg->other_id = RT_EVENT_NONE;
  for (guint i = 0; i < RT_N_KNOWN_EVENTS; i++)
    {
      char *name = g_strdup (known_names[i]);
      g_ptr_array_add (reg->names, name);
      g_hash_table_insert (reg->ids, name, GUINT_TO_POINTER (i + 1));
    }
  return reg;
}

void
rt_event_registry_free (RtEventRegistry *reg)
{
  if (reg == NULL)
    return;
  g_hash_table_unref (reg->ids);
  g_ptr_array_unref (reg->names);
  g_mutex_clear (&reg->lock);
  g_free (reg);
}

/* `known`: a name of either logger generation, which always gets an id of its own,
 * so that answers about the real sections never depend on which other names came first. */
static guint16
intern_canonical_locked (RtEventRegistry *reg, const char *canonical, gboolean known)
{
  gpointer found = g_hash_table_lookup (reg->ids, canonical);
  if (found != NULL)
    return (guint16) (GPOINTER_TO_UINT (found) - 1);
  if (reg->other_id != RT_EVENT_NONE && !known)
    return reg->other_id;
  if (reg->names->len >= RT_EVENT_NAMES_MAX && !known)
    {
      /* full: this name and every later new one count as one "other" name (which
       * is also how a cache made of such a trace names its last id) */
      found = g_hash_table_lookup (reg->ids, RT_EVENT_OTHER_NAME);
      reg->other_id = found ? (guint16) (GPOINTER_TO_UINT (found) - 1) : (guint16) reg->names->len;
      if (found == NULL)
        {
          char *other = g_strdup (RT_EVENT_OTHER_NAME);
          g_ptr_array_add (reg->names, other);
          g_hash_table_insert (reg->ids, other, GUINT_TO_POINTER (reg->other_id + 1));
        }
      return reg->other_id;
    }
  char *copy = g_strdup (canonical);
  guint id = reg->names->len;
  g_ptr_array_add (reg->names, copy);
  g_hash_table_insert (reg->ids, copy, GUINT_TO_POINTER (id + 1));
  return (guint16) id;
}

guint16
rt_event_registry_intern (RtEventRegistry *reg,
                          const char *name,
                          gsize len,
                          gboolean has_request_id,
                          RtSchemaFlags *schema)
{
  char buf[128];
  g_autofree char *heap = NULL;
  const char *cname;

  if (len < sizeof buf)
    {
      memcpy (buf, name, len);
      buf[len] = '\0';
      cname = buf;
    }
  else
    cname = heap = g_strndup (name, len);

  *schema = schema_of (cname);
  const char *canonical = rt_event_canonical_name (cname, has_request_id);
  if (canonical == NULL)
    canonical = cname;

  g_mutex_lock (&reg->lock);
  gboolean known = *schema != RT_SCHEMA_NEITHER || is_shared_name (cname);
  guint16 id = intern_canonical_locked (reg, canonical, known);
  g_mutex_unlock (&reg->lock);
  return id;
}

guint16
rt_event_registry_lookup (RtEventRegistry *reg, const char *name)
{
  const char *canonical = rt_event_canonical_name (name, FALSE);
  g_mutex_lock (&reg->lock);
  gpointer found = g_hash_table_lookup (reg->ids, canonical ? canonical : name);
  g_mutex_unlock (&reg->lock);
  return found ? (guint16) (GPOINTER_TO_UINT (found) - 1) : RT_EVENT_NONE;
}

const char *
rt_event_registry_name (RtEventRegistry *reg, guint16 id)
{
  const char *name = NULL;
  g_mutex_lock (&reg->lock);
  if (id < reg->names->len)
    name = g_ptr_array_index (reg->names, id);
  g_mutex_unlock (&reg->lock);
  return name;
}

guint
rt_event_registry_size (RtEventRegistry *reg)
{
  g_mutex_lock (&reg->lock);
  guint n = reg->names->len;
  g_mutex_unlock (&reg->lock);
  return n;
}

guint16
rt_event_registry_other_id (RtEventRegistry *reg)
{
  g_mutex_lock (&reg->lock);
  guint16 id = reg->other_id;
  g_mutex_unlock (&reg->lock);
  return id;
}

typedef struct {
  guint kind;           /* 0: the name starts with the text asked for, 1: holds it, 2: neither */
  guint distance;       /* rt_edit_distance */
  const char *name;
} NameDistance;

static int
compare_name_distances (gconstpointer a, gconstpointer b)
{
  const NameDistance *x = a, *y = b;
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  if (x->distance != y->distance)
    return x->distance < y->distance ? -1 : 1;
  return strcmp (x->name, y->name);
}

char *
rt_event_registry_closest (RtEventRegistry *reg, const char *name, guint most)
{
  g_autoptr (GArray) found = g_array_new (FALSE, FALSE, sizeof (NameDistance));
  g_mutex_lock (&reg->lock);
  for (guint i = 0; i < reg->names->len; i++)
    if ((guint16) i != reg->other_id)
      {
        NameDistance nd = { .name = g_ptr_array_index (reg->names, i) };
        nd.kind = g_str_has_prefix (nd.name, name) ? 0 : strstr (nd.name, name) != NULL ? 1 : 2;
        nd.distance = rt_edit_distance (name, nd.name, G_MAXUINT - 1);
        g_array_append_val (found, nd);
      }
  g_array_sort (found, compare_name_distances);
  g_autoptr (GString) out = g_string_new (NULL);
  for (guint i = 0; i < found->len && i < most; i++)
    {
      if (i > 0)
        g_string_append (out, ", ");
      rt_tsv_append_text (out, g_array_index (found, NameDistance, i).name);
    }
  g_mutex_unlock (&reg->lock);
  return g_string_free (g_steal_pointer (&out), FALSE);
}
