/* SPDX-License-Identifier: Apache-2.0 */
/* test-events.c: the older logger's names map onto the canonical ones, and schemas are told apart.
 * the format's mapping of older names (docs/input.md), pinned down name by name. */
#include "rolltrace/rt-events.h"

#include <string.h>

static void
test_older_step_names_gain_duration (void)
{
  const char *pairs[][2] = {
    { "preprocessing", "preprocessing_duration" }, { "async_generate", "async_generate_duration" },
    { "sorting", "sorting_duration" }, { "broadcast", "broadcast_duration" },
    { "data_extraction", "data_extraction_duration" }, { "padding", "padding_duration" },
    { "concatenation", "concatenation_duration" }, { "batch_construction", "batch_construction_duration" },
    { "cache_flush", "cache_flush_duration" }, { "final_construction", "final_construction_duration" },
    { "total", "total_step_duration" }, { "engine_call", "turn_engine_call" },
    { "tool_parsing", "turn_tool_parsing" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (pairs); i++)
    g_assert_cmpstr (rt_event_canonical_name (pairs[i][0], FALSE), ==, pairs[i][1]);
}

static void
test_barrier_means_the_step_barrier_only_without_request_id (void)
{
  g_assert_cmpstr (rt_event_canonical_name ("barrier", FALSE), ==, "barrier_wait_duration");
  g_assert_null (rt_event_canonical_name ("barrier", TRUE));
}

static void
test_canonical_names_stay (void)
{
  g_assert_null (rt_event_canonical_name ("total_step_duration", FALSE));
  g_assert_null (rt_event_canonical_name ("async_rollout_request_complete", TRUE));
  g_assert_null (rt_event_canonical_name ("running_state", FALSE));
}

static void
test_registry_maps_both_generations_to_one_id (void)
{
  g_autoptr (RtEventRegistry) reg = rt_event_registry_new ();
  RtSchemaFlags schema;
  g_assert_cmpuint (rt_event_registry_intern (reg, "total", 5, FALSE, &schema), ==, RT_EV_TOTAL_STEP);
  g_assert_cmpint (schema, ==, RT_SCHEMA_V1);
  g_assert_cmpuint (rt_event_registry_intern (reg, "total_step_duration", 19, FALSE, &schema), ==, RT_EV_TOTAL_STEP);
  g_assert_cmpint (schema, ==, RT_SCHEMA_V2);
  g_assert_cmpuint (rt_event_registry_intern (reg, "barrier", 7, FALSE, &schema), ==, RT_EV_BARRIER_WAIT);
  g_assert_cmpint (schema, ==, RT_SCHEMA_V1);
  rt_event_registry_intern (reg, "async_rollout_request_complete", 30, TRUE, &schema);
  g_assert_cmpint (schema, ==, RT_SCHEMA_NEITHER);
  /* both loggers write the tool calls (the older one without extra) */
  rt_event_registry_intern (reg, "tool_execution", 14, FALSE, &schema);
  g_assert_cmpint (schema, ==, RT_SCHEMA_NEITHER);
  rt_event_registry_intern (reg, "tool_calling_state", 18, TRUE, &schema);
  g_assert_cmpint (schema, ==, RT_SCHEMA_NEITHER);
}

/* Both generations write the tool calls between turns (the older one without extra): their
 * names tell no generation, so an older-logger trace with tool calls is not "mixed". They are
 * still known names, which never fall into "(other event names)". */
static void
test_tool_names_belong_to_both_generations (void)
{
  g_autoptr (RtEventRegistry) reg = rt_event_registry_new ();
  RtSchemaFlags schema = RT_SCHEMA_V1;
  const char *const names[] = { "tool_execution", "tool_response_processing", "tool_calling_state" };
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    {
      rt_event_registry_intern (reg, names[i], strlen (names[i]), FALSE, &schema);
      g_assert_cmpint (schema, ==, RT_SCHEMA_NEITHER);
      gboolean listed = FALSE;
      for (const char *const *n = rt_event_known_names (); *n != NULL; n++)
        listed |= g_str_equal (*n, names[i]);
      g_assert_true (listed);
    }
}

static void
test_unknown_names_get_stable_new_ids (void)
{
  g_autoptr (RtEventRegistry) reg = rt_event_registry_new ();
  RtSchemaFlags schema;
  guint16 a = rt_event_registry_intern (reg, "my_custom_section_xyz", 21, TRUE, &schema);
  guint16 b = rt_event_registry_intern (reg, "my_custom_section_xyz", 21, FALSE, &schema);
  g_assert_cmpuint (a, ==, b);
  g_assert_cmpuint (a, >=, RT_N_KNOWN_EVENTS);
  g_assert_cmpstr (rt_event_registry_name (reg, a), ==, "my_custom_section_xyz");
  /* the length is honoured: the name need not end in a NUL */
  guint16 c = rt_event_registry_intern (reg, "turn_endXYZ", 8, TRUE, &schema);
  g_assert_cmpuint (c, ==, RT_EV_TURN_END);
}

static void
test_lookup_accepts_older_names (void)
{
  g_autoptr (RtEventRegistry) reg = rt_event_registry_new ();
  g_assert_cmpuint (rt_event_registry_lookup (reg, "total"), ==, RT_EV_TOTAL_STEP);
  g_assert_cmpuint (rt_event_registry_lookup (reg, "barrier"), ==, RT_EV_BARRIER_WAIT);
  g_assert_cmpuint (rt_event_registry_lookup (reg, "never_logged"), ==, RT_EVENT_NONE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/events/older-step-names-gain-duration", test_older_step_names_gain_duration);
  g_test_add_func ("/events/barrier-without-request-id", test_barrier_means_the_step_barrier_only_without_request_id);
  g_test_add_func ("/events/canonical-names-stay", test_canonical_names_stay);
  g_test_add_func ("/events/registry-maps-both-generations", test_registry_maps_both_generations_to_one_id);
  g_test_add_func ("/events/tool-names-belong-to-both", test_tool_names_belong_to_both_generations);
  g_test_add_func ("/events/unknown-names-get-stable-ids", test_unknown_names_get_stable_new_ids);
  g_test_add_func ("/events/lookup-accepts-older-names", test_lookup_accepts_older_names);
  return g_test_run ();
}
