/* SPDX-License-Identifier: Apache-2.0 */
/* test-analyses-requests.c: rt_requests_analyse on hand-checked traces: the step's durations,
 * the slowest in order with their phases, and the leaf-phase breakdown with what is left over. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "rolltrace/rt-analyses.h"
#include "test-util.h"

static const char *
slow_id (const RtTrace *t, const RtRequests *r, guint i)
{
  return rt_request_id (t, rt_trace_request (t, g_array_index (r->slowest, RtSlowRequest, i).request));
}

static char *
json_row (const RtTable *table)
{
  GString *out = g_string_new (NULL);
  RtJsonWriter w;
  rt_jw_init (&w, out);
  rt_table_write_json_row (table, 0, &w);
  return g_string_free (out, FALSE);
}

/* fixtures/README.md: step 1 of hand-v2 has c (12 s, worker 1), a (8 s) and b (4 s). */
static void
test_step_durations_and_slowest_order (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("hand-v2");
  g_autoptr (RtRequests) r = rt_requests_analyse (t, 0, -1, 10);
  g_assert_cmpint (r->step, ==, 1);
  g_assert_cmpuint (r->summary.count, ==, 3);
  g_assert_cmpfloat_with_epsilon (r->summary.mean, 8, 1e-12);
  g_assert_cmpfloat_with_epsilon (r->summary.std, sqrt (32.0 / 3), 1e-12);
  g_assert_cmpfloat_with_epsilon (r->summary.p90, 11.2, 1e-12);
  g_assert_cmpfloat (g_array_index (r->durations, double, 0), ==, 4);   /* ascending */
  g_assert_cmpfloat (g_array_index (r->durations, double, 2), ==, 12);
  g_assert_cmpuint (r->slowest->len, ==, 3);
  g_assert_cmpstr (slow_id (t, r, 0), ==, "c");
  g_assert_cmpstr (slow_id (t, r, 1), ==, "a");
  g_assert_cmpstr (slow_id (t, r, 2), ==, "b");

  /* fewer kept than there are: the first of that same order */
  for (guint top = 1; top <= 2; top++)
    {
      g_autoptr (RtRequests) few = rt_requests_analyse (t, 0, -1, top);
      g_assert_cmpuint (few->slowest->len, ==, top);
      for (guint i = 0; i < top; i++)
        g_assert_cmpstr (slow_id (t, few, i), ==, slow_id (t, r, i));
    }
}

/* --worker 0 --top 1: only a and b count ({4, 8}: mean 6, std 2, P90 7.6); a is the slowest. */
static void
test_worker_and_top (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("hand-v2");
  g_autoptr (RtRequests) r = rt_requests_analyse (t, 0, 0, 1);
  g_assert_cmpuint (r->summary.count, ==, 2);
  g_assert_cmpfloat_with_epsilon (r->summary.mean, 6, 1e-12);
  g_assert_cmpfloat_with_epsilon (r->summary.std, 2, 1e-12);
  g_assert_cmpfloat_with_epsilon (r->summary.p90, 7.6, 1e-12);
  g_assert_cmpuint (r->slowest->len, ==, 1);
  g_assert_cmpstr (slow_id (t, r, 0), ==, "a");

  g_autoptr (RtTable) cdf = rt_requests_cdf_table (r);
  g_autofree char *json = json_row (cdf);
  g_assert_cmpstr (json, ==, "{\"count\": 2, \"mean\": 6.0, \"std\": 2.0, \"min\": 4.0, \"max\": 8.0, "
                             "\"p50\": 6.0, \"p90\": 7.6, \"p95\": 7.8, \"p99\": 7.96}");
}

/* Phases of a: turn_engine_call 3, turn_end 3.5 + 4 = 7.5, complete 8; request_start has no
 * duration, so no phase. In JSON each request's phases are an object of its own keys. */
static void
test_phases_of_a_request (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("hand-v2");
  g_autoptr (RtRequests) r = rt_requests_analyse (t, 0, 0, 1);
  const RtSlowRequest *a = &g_array_index (r->slowest, RtSlowRequest, 0);
  g_autoptr (RtTable) slow = rt_requests_slow_table (t, a);
  g_autofree char *json = json_row (slow);
  g_assert_cmpstr (json, ==, "{\"request_id\": \"a\", \"worker\": 0, \"total_s\": 8.0, \"turns\": 2, "
                             "\"response_length\": 100, \"finish_reason\": \"STOP\", \"phases\": "
                             "{\"turn_engine_call\": 3.0, \"turn_end\": 7.5, \"async_rollout_request_complete\": 8.0}}");
  g_autoptr (RtTable) phases = rt_request_phases_table (t, a);
  g_autoptr (GString) tsv = rt_table_tsv (phases);
  /* each phase under the one that holds its first line: the request (00:02-00:10) holds turn
   * 0's turn_end (00:02.5-00:06), which holds the engine call (00:03-00:06) */
  g_assert_cmpstr (tsv->str, ==, "phase\tseconds\tdepth\tinside\n"
                                 "async_rollout_request_complete\t8.0\t0\tNaN\n"
                                 "turn_end\t7.5\t1\tasync_rollout_request_complete\n"
                                 "turn_engine_call\t3.0\t2\tturn_end\n");
  /* no leaf phase in this fixture: the whole duration is "other" */
  g_assert_cmpuint (r->leaves->len, ==, 0);
  g_autoptr (RtTable) top = rt_requests_top_table (t, r);
  g_autoptr (GString) top_tsv = rt_table_tsv (top);
  g_assert_cmpstr (top_tsv->str, ==, "request\tother (not broken down)\n1. w0 8s STOP\t8.0\n");
}

/* A step with no request on the worker asked: an empty result, not an error. */
static void
test_no_request_is_an_empty_result (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("hand-v2");
  g_autoptr (RtRequests) r = rt_requests_analyse (t, 1, 1, 10);   /* step 2 has no worker 1 */
  g_assert_cmpuint (r->summary.count, ==, 0);
  g_assert_cmpuint (r->durations->len, ==, 0);
  g_assert_cmpuint (r->slowest->len, ==, 0);
}

#define LINE(event, duration, request) \
  "{\"timestamp\": \"2025-01-01T10:00:01\", \"event\": \"" event "\", \"duration_sec\": " duration \
  ", \"extra\": {\"request_id\": \"" request "\"}, \"workid\": 0, \"step\": 1}\n"
#define COMPLETE(duration, request) \
  "{\"timestamp\": \"2025-01-01T10:00:09\", \"event\": \"async_rollout_request_complete\", \"duration_sec\": " \
  duration ", \"extra\": {\"request_id\": \"" request "\", \"finish_reason\": \"FinishReasonTypeEnum.STOP\"}, " \
  "\"workid\": 0, \"step\": 1}\n"

/* x (10 s) spent 1 s in pre-processing and 2 + 3 s generating: 4 s are not broken down;
 * y (2 s) has 3 s of leaf phases (they overlap in the log): the rest is 0, never negative.
 * Only the leaf phases that occur are columns, in stacking order; the tool call, which
 * contains other phases, is none. */
static void
test_leaf_breakdown_and_rest (void)
{
  g_autofree char *dir = rt_test_experiment_new (
              LINE ("engine_async_generate_actual", "2.0", "x") LINE ("turn_pre_process", "1.0", "x")
              LINE ("engine_async_generate_actual", "3.0", "x") LINE ("tool_calling_state", "4.0", "x")
              COMPLETE ("10.0", "x")
              LINE ("engine_async_generate_actual", "3.0", "y") COMPLETE ("2.0", "y"));
  g_autoptr (RtTrace) t = rt_test_load (dir);
  g_autoptr (RtRequests) r = rt_requests_analyse (t, 0, -1, 10);
  g_assert_cmpuint (r->slowest->len, ==, 2);
  g_assert_cmpuint (r->leaves->len, ==, 2);
  g_autoptr (RtTable) top = rt_requests_top_table (t, r);
  g_autoptr (GString) tsv = rt_table_tsv (top);
  g_assert_cmpstr (tsv->str, ==,
                   "request\tturn_pre_process\tengine_async_generate_actual\tother (not broken down)\n"
                   "1. w0 10s STOP\t1.0\t5.0\t4.0\n"
                   "2. w0 2s STOP\t0.0\t3.0\t0.0\n");
  rt_test_experiment_remove (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analyses/requests/step-durations-and-slowest-order", test_step_durations_and_slowest_order);
  g_test_add_func ("/analyses/requests/worker-and-top", test_worker_and_top);
  g_test_add_func ("/analyses/requests/phases-of-a-request", test_phases_of_a_request);
  g_test_add_func ("/analyses/requests/no-request-is-an-empty-result", test_no_request_is_an_empty_result);
  g_test_add_func ("/analyses/requests/leaf-breakdown-and-rest", test_leaf_breakdown_and_rest);
  return g_test_run ();
}
