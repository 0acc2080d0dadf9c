/* SPDX-License-Identifier: Apache-2.0 */
/* test-analyses-time.c: where a step's time goes (overview, events, turns, turn-dist) as library
 * calls on the hand-checked fixtures, with the answers worked out in fixtures/README.md. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-error.h"
#include "test-util.h"

#define EPS 1e-9

static GString *
json_of (const RtTable *table)
{
  GString *out = g_string_new (NULL);
  RtJsonWriter w;
  rt_jw_init (&w, out);
  rt_table_write_json (table, &w);
  return out;
}

static char *
tsv_header (const RtTable *table)
{
  g_autoptr (GString) tsv = rt_table_tsv (table);
  return g_strndup (tsv->str, strcspn (tsv->str, "\n"));
}

/* ---- the request iterator ---- */

static void
test_step_requests_walks_every_file (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("hand-v2");
  const char *want[2][4] = { { "a", "b", "c", NULL }, { "d", NULL } };
  for (guint si = 0; si < 2; si++)
    {
      RtStepRequests it;
      rt_step_requests_init (&it, t, si);
      guint n = 0;
      for (const RtRequest *q; (q = rt_step_requests_next (&it)) != NULL; n++)
        g_assert_cmpstr (rt_request_id (t, q), ==, want[si][n]);
      g_assert_null (want[si][n]);
      g_assert_null (rt_step_requests_next (&it));   /* stays at the end */
    }
}

/* ---- overview ---- */

static void
test_overview_hand_v2 (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("hand-v2");
  g_autoptr (RtOverview) o = rt_overview_analyse (t, NULL, NULL);
  g_assert_cmpuint (o->steps->len, ==, 2);
  const RtOverviewStep *s1 = &g_array_index (o->steps, RtOverviewStep, 0);
  const RtOverviewStep *s2 = &g_array_index (o->steps, RtOverviewStep, 1);
  /* rollout = the longest total: 17 s and 12 s; step 2 starts 60 s after step 1 */
  g_assert_cmpfloat_with_epsilon (s1->rollout_s, 17, EPS);
  g_assert_cmpfloat_with_epsilon (s2->rollout_s, 12, EPS);
  g_assert_cmpfloat_with_epsilon (s1->interval_s, 60, EPS);
  g_assert_cmpfloat_with_epsilon (s1->outside_s, 43, EPS);
  g_assert_true (isnan (s2->interval_s));   /* the last step has no next start */
  g_assert_true (isnan (s2->outside_s));
  g_assert_cmpfloat_with_epsilon (o->rollout_mean, 14.5, EPS);
  g_assert_cmpfloat_with_epsilon (o->interval_mean, 60, EPS);
  /* the outside time and the shares only over the steps with both figures, step 1 alone: not
   * the mean interval (1 step) less the mean rollout (2 steps), 45.5 s, which is no step's */
  g_assert_cmpuint (o->n_both, ==, 1);
  g_assert_cmpfloat_with_epsilon (o->outside_mean, 43, EPS);
  g_assert_cmpfloat_with_epsilon (o->rollout_share, 17.0 / 60, EPS);
  /* two values lie exactly one std from their mean: no outlier */
  g_assert_false (o->any_outlier);
  g_assert_false (o->with_train);
  g_assert_true (isnan (s1->train_step_s));
}

static void
test_overview_interval_reaches_unselected_step (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("hand-v2");
  g_autoptr (RtStepSet) only1 = rt_test_steps ("1");
  g_autoptr (RtOverview) o = rt_overview_analyse (t, only1, NULL);
  g_assert_cmpuint (o->steps->len, ==, 1);
  /* the next step's start counts even though step 2 is not selected */
  g_assert_cmpfloat_with_epsilon (g_array_index (o->steps, RtOverviewStep, 0).interval_s, 60, EPS);
  g_assert_cmpfloat_with_epsilon (o->rollout_mean, 17, EPS);
}

static void
test_overview_train_columns (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("hand-v2");
  g_autofree char *log_path = g_build_filename (RT_FIXTURES_DIR, "train", "console.log", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (RtTrainLog) train = rt_train_log_read (log_path, &error);
  g_assert_no_error (error);

  g_autoptr (RtOverview) with = rt_overview_analyse (t, NULL, train);
  g_assert_true (with->with_train);
  /* timing_s/step 90, 110; timing_s/gen 50, then 70 (the restart's value wins) */
  const RtOverviewStep *s1 = &g_array_index (with->steps, RtOverviewStep, 0);
  const RtOverviewStep *s2 = &g_array_index (with->steps, RtOverviewStep, 1);
  g_assert_cmpfloat (s1->train_step_s, ==, 90);
  g_assert_cmpfloat (s1->train_gen_s, ==, 50);
  g_assert_cmpfloat (s2->train_step_s, ==, 110);
  g_assert_cmpfloat (s2->train_gen_s, ==, 70);

  /* the TSV has the trainer's columns either way, the JSON only with a log */
  g_autoptr (RtOverview) without = rt_overview_analyse (t, NULL, NULL);
  g_autoptr (RtTable) tw = rt_overview_table (with);
  g_autoptr (RtTable) tn = rt_overview_table (without);
  const char *header = "step\trollout_s\tinterval_s\toutside_s\trollout_outlier\tinterval_outlier\t"
                       "timing_s/step\ttiming_s/gen";
  g_autofree char *hw = tsv_header (tw);
  g_autofree char *hn = tsv_header (tn);
  g_assert_cmpstr (hw, ==, header);
  g_assert_cmpstr (hn, ==, header);
  g_autoptr (GString) jw = json_of (tw);
  g_autoptr (GString) jn = json_of (tn);
  g_assert_nonnull (strstr (jw->str, "\"rollout_outlier\": false, \"interval_outlier\": false, "
                                     "\"train_step_s\": 90.0, \"train_gen_s\": 50.0}"));
  g_assert_null (strstr (jn->str, "train_"));
  g_assert_nonnull (strstr (jn->str, "\"interval_outlier\": false}"));
  /* booleans are 0/1 in the TSV */
  g_autoptr (GString) tsv = rt_table_tsv (tn);
  g_assert_cmpstr (strchr (tsv->str, '\n') + 1, ==, "1\t17.0\t60.0\t43.0\t0\t0\tNaN\tNaN\n2\t12.0\tNaN\tNaN\t0\t0\tNaN\tNaN\n");
}

static void
test_overview_empty_without_totals (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("hand-v2");
  g_autoptr (RtStepSet) none = rt_test_steps ("5-");
  g_autoptr (RtOverview) o = rt_overview_analyse (t, none, NULL);
  g_assert_cmpuint (o->steps->len, ==, 0);
  g_assert_true (isnan (o->rollout_mean));
  g_assert_false (o->any_outlier);
}

/* ---- events ---- */

static void
test_events_shares_hand_v2 (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("hand-v2");
  g_autoptr (RtEvents) ev = rt_events_analyse (t, NULL);
  g_assert_cmpuint (ev->steps->len, ==, 2);
  const RtEventsStep *s1 = &g_array_index (ev->steps, RtEventsStep, 0);
  const RtEventsStep *s2 = &g_array_index (ev->steps, RtEventsStep, 1);
  g_assert_cmpfloat_with_epsilon (s1->total_mean_s, 16, EPS);
  g_assert_cmpfloat_with_epsilon (s1->pct[RT_EV_PREPROCESSING], 12.5, EPS);
  g_assert_cmpfloat_with_epsilon (s1->pct[RT_EV_ASYNC_GENERATE], 65.625, EPS);
  g_assert_cmpfloat_with_epsilon (s1->pct[RT_EV_BARRIER_WAIT], 15.625, EPS);
  g_assert_true (isnan (s1->pct[RT_EV_PADDING]));
  g_assert_true (isnan (s1->pct[RT_EV_TOTAL_STEP]));
  g_assert_cmpfloat_with_epsilon (s2->pct[RT_EV_PADDING], 6.25, EPS);
  g_assert_cmpfloat_with_epsilon (s2->pct[RT_EV_PREPROCESSING], 100.0 / 12, EPS);
  /* a share averages over the steps that have the section: the barrier only step 1 */
  g_assert_cmpfloat_with_epsilon (ev->mean_pct[RT_EV_PREPROCESSING], (12.5 + 100.0 / 12) / 2, EPS);
  g_assert_cmpfloat_with_epsilon (ev->mean_pct[RT_EV_PADDING], 6.25, EPS);
  g_assert_cmpfloat_with_epsilon (ev->barrier_pct, 15.625, EPS);
  g_assert_true (isnan (ev->mean_pct[RT_EV_SORTING]));
}

static void
test_events_table_pct_group (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("hand-v2");
  g_autoptr (RtStepSet) only2 = rt_test_steps ("2");
  g_autoptr (RtEvents) ev = rt_events_analyse (t, only2);
  g_assert_true (isnan (ev->barrier_pct));   /* step 2 has no barrier line */
  g_autoptr (RtTable) table = rt_events_table (ev);
  /* a column per section before total_step_duration, in RtEventId order */
  g_assert_cmpuint (rt_table_n_columns (table), ==, 2 + RT_EV_TOTAL_STEP);
  g_assert_cmpint (rt_table_find (table, rt_step_event_name (RT_EV_TOTAL_STEP)), ==, -1);
  g_autofree char *header = tsv_header (table);
  g_assert_true (g_str_has_prefix (header, "step\ttotal_mean_s\tpreprocessing_duration\t"));
  g_autoptr (GString) json = json_of (table);
  g_assert_true (g_str_has_prefix (json->str, "[{\"step\": 2, \"total_mean_s\": 12.0, \"pct\": {\"preprocessing_duration\": 8.33"));
  g_assert_nonnull (strstr (json->str, "\"padding_duration\": 6.25"));
  g_assert_true (g_str_has_suffix (json->str, "}}]"));
}

/* ---- turns ---- */

static const RtTurnsRow *
turn_row (const RtTurns *turns, guint i)
{
  return &g_array_index (turns->turns, RtTurnsRow, i);
}

static void
test_turns_hand_v2 (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("hand-v2");
  g_autoptr (RtTurns) turns = rt_turns_analyse (t, NULL);
  g_assert_cmpuint (turns->turns->len, ==, 3);
  /* turn 0 = {a 3.5 (from its turn_end lines), b 4, c 2, d 10} */
  const RtTurnsRow *t0 = turn_row (turns, 0);
  g_assert_cmpint (t0->turn, ==, 0);
  g_assert_cmpuint (t0->count, ==, 4);
  g_assert_cmpfloat_with_epsilon (t0->mean_s[RT_TURN_TOTAL], 4.875, EPS);
  g_assert_cmpfloat_with_epsilon (t0->mean_s[RT_TURN_ENGINE_CALL], 4.25, EPS);
  g_assert_cmpfloat_with_epsilon (t0->mean_s[RT_TURN_PRE_PROCESS], 0.375, EPS);
  g_assert_cmpfloat_with_epsilon (t0->mean_s[RT_TURN_POST_PROCESS], 0.25, EPS);
  const RtTurnsRow *t1 = turn_row (turns, 1);
  g_assert_cmpuint (t1->count, ==, 2);
  g_assert_cmpfloat_with_epsilon (t1->mean_s[RT_TURN_PRE_PROCESS], 0.5, EPS);
  g_assert_cmpfloat_with_epsilon (t1->mean_s[RT_TURN_ENGINE_CALL], 3.5, EPS);
  const RtTurnsRow *t2 = turn_row (turns, 2);
  g_assert_cmpint (t2->turn, ==, 2);
  g_assert_cmpuint (t2->count, ==, 1);
  g_assert_cmpfloat_with_epsilon (t2->mean_s[RT_TURN_ENGINE_CALL], 5, EPS);
  g_assert_cmpfloat_with_epsilon (t2->mean_s[RT_TURN_POST_PROCESS], 1, EPS);
  g_assert_cmpfloat_with_epsilon (t2->mean_s[RT_TURN_TOOL_PARSING], 0.5, EPS);

  g_autoptr (RtTable) table = rt_turns_table (turns);
  g_autofree char *header = tsv_header (table);
  g_assert_cmpstr (header, ==, "turn\tcount\tpre_process\tengine_call\tpost_process\ttool_parsing\ttotal");
  g_assert_cmpfloat (rt_table_get_number (table, 2, rt_table_find (table, "tool_parsing")), ==, 0.5);
}

static void
test_turns_selected_and_absent (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("hand-v2");
  g_autoptr (RtStepSet) only2 = rt_test_steps ("2");
  g_autoptr (RtTurns) turns = rt_turns_analyse (t, only2);
  g_assert_cmpuint (turns->turns->len, ==, 1);
  g_assert_cmpuint (turn_row (turns, 0)->count, ==, 1);
  g_assert_cmpfloat_with_epsilon (turn_row (turns, 0)->mean_s[RT_TURN_ENGINE_CALL], 10, EPS);

  /* the older logger writes no turn timings: an empty result, not an error */
  g_autoptr (RtTrace) v1 = rt_test_load_fixture ("hand-v1");
  g_autoptr (RtTurns) none = rt_turns_analyse (v1, NULL);
  g_assert_cmpuint (none->turns->len, ==, 0);
}

/* Records with every part and records without some, mixed within one turn index: a part's
 * mean is over the records that have it, the count over all of them. */
static void
test_turns_parts_missing_in_some_records (void)
{
  GString *lines = g_string_new (NULL);
  /* turn 0: four records; engine_call missing in the second, tool_parsing in the third and
   * every part but total in the fourth; turn 1: one record with nothing but its index */
  const char *timings[] = {
    "[{\"turn\": 0, \"total_duration\": 4, \"pre_process_duration\": 1, \"engine_call_duration\": 2, "
    "\"post_process_duration\": 0.5, \"tool_parsing_duration\": 0.25}]",
    "[{\"turn\": 0, \"total_duration\": 8, \"pre_process_duration\": 3, "
    "\"post_process_duration\": 1.5, \"tool_parsing_duration\": 0.75}, {\"turn\": 1}]",
    "[{\"turn\": 0, \"total_duration\": 6, \"pre_process_duration\": 2, \"engine_call_duration\": 4, "
    "\"post_process_duration\": 1}]",
    "[{\"turn\": 0, \"total_duration\": 2}]",
  };
  for (guint i = 0; i < G_N_ELEMENTS (timings); i++)
    g_string_append_printf (lines, "{\"event\": \"async_rollout_request_complete\", \"timestamp\": "
                            "\"2025-01-01T10:00:10\", \"duration_sec\": 9, \"extra\": {\"request_id\": "
                            "\"r%u\", \"turn_timings\": %s}}\n", i, timings[i]);
  g_autofree char *dir = rt_test_experiment_new (lines->str);
  g_string_free (lines, TRUE);
  {
    g_autoptr (RtTrace) t = rt_test_load (dir);
    g_autoptr (RtTurns) turns = rt_turns_analyse (t, NULL);
    g_assert_cmpuint (turns->turns->len, ==, 2);
    const RtTurnsRow *t0 = turn_row (turns, 0);
    g_assert_cmpuint (t0->count, ==, 4);
    g_assert_cmpfloat (t0->mean_s[RT_TURN_TOTAL], ==, 5);               /* (4+8+6+2)/4 */
    g_assert_cmpfloat (t0->mean_s[RT_TURN_PRE_PROCESS], ==, 2);         /* (1+3+2)/3 */
    g_assert_cmpfloat (t0->mean_s[RT_TURN_ENGINE_CALL], ==, 3);         /* (2+4)/2 */
    g_assert_cmpfloat (t0->mean_s[RT_TURN_POST_PROCESS], ==, 1);        /* (0.5+1.5+1)/3 */
    g_assert_cmpfloat (t0->mean_s[RT_TURN_TOOL_PARSING], ==, 0.5);      /* (0.25+0.75)/2 */
    const RtTurnsRow *t1 = turn_row (turns, 1);
    g_assert_cmpuint (t1->count, ==, 1);
    for (int p = 0; p < RT_N_TURN_PARTS; p++)
      g_assert_true (isnan (t1->mean_s[p]));
  }
  rt_test_experiment_remove (dir);
}

/* ---- turn-dist ---- */

static void
assert_bin (const GArray *bins, gint32 turns, guint count, double mean_s)
{
  const RtTurnBin *b = rt_turn_bins_find (bins, turns);
  g_assert_nonnull (b);
  g_assert_cmpuint (b->count, ==, count);
  g_assert_cmpfloat_with_epsilon (b->mean_s, mean_s, EPS);
}

static void
test_turn_dist_hand_v2 (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("hand-v2");
  g_autoptr (RtTurnDist) d = rt_turn_dist_analyse (t, NULL);
  g_assert_cmpuint (d->steps->len, ==, 2);
  const RtTurnDistStep *s1 = &g_array_index (d->steps, RtTurnDistStep, 0);
  g_assert_cmpuint (s1->requests, ==, 3);
  assert_bin (s1->bins, 1, 1, 4);
  assert_bin (s1->bins, 2, 1, 8);
  assert_bin (s1->bins, 3, 1, 12);
  g_assert_null (rt_turn_bins_find (s1->bins, 4));
  g_assert_null (rt_turn_bins_find (s1->bins, 0));
  /* all: 1 turn x 2 (b 4 s, d 10 s) */
  g_assert_cmpuint (d->all->len, ==, 3);
  assert_bin (d->all, 1, 2, 7);

  /* the pivots: a column per number of turns; a step without one has 0 and NaN */
  g_autoptr (RtTable) counts = rt_turn_dist_counts_table (d);
  g_autoptr (RtTable) means = rt_turn_dist_mean_table (d);
  g_autoptr (GString) ct = rt_table_tsv (counts);
  g_autoptr (GString) mt = rt_table_tsv (means);
  g_assert_cmpstr (ct->str, ==, "step\t1\t2\t3\n1\t1\t1\t1\n2\t1\t0\t0\n");
  g_assert_cmpstr (mt->str, ==, "step\t1\t2\t3\n1\t4.0\t8.0\t12.0\n2\t10.0\tNaN\tNaN\n");

  /* the JSON nests each step's bins */
  g_autoptr (RtTable) st = rt_turn_dist_steps_table (d);
  const RtTable *by = rt_table_get_table (st, 1, rt_table_find (st, "by_turns"));
  g_assert_nonnull (by);
  g_assert_cmpuint (rt_table_n_rows (by), ==, 1);
  g_autoptr (GString) json = json_of (st);
  g_assert_cmpstr (json->str, ==,
                   "[{\"step\": 1, \"requests\": 3, \"by_turns\": [{\"turns\": 1, \"count\": 1, \"mean_s\": 4.0}, "
                   "{\"turns\": 2, \"count\": 1, \"mean_s\": 8.0}, {\"turns\": 3, \"count\": 1, \"mean_s\": 12.0}]}, "
                   "{\"step\": 2, \"requests\": 1, \"by_turns\": [{\"turns\": 1, \"count\": 1, \"mean_s\": 10.0}]}]");
}

/* A step whose complete requests all lack `turns` still has its rows, whole: the TSV
 * writer once left such a row as "1<TAB>" with no newline. */
static void
test_turn_dist_requests_without_turns (void)
{
  const char *lines =
    "{\"event\": \"async_rollout_request_complete\", \"timestamp\": \"2025-01-01T10:00:10\", "
    "\"duration_sec\": 8, \"extra\": {\"request_id\": \"a\"}}\n";
  g_autofree char *dir = rt_test_experiment_new (lines);
  {
    g_autoptr (RtTrace) t = rt_test_load (dir);
    g_autoptr (RtTurnDist) d = rt_turn_dist_analyse (t, NULL);
    g_assert_cmpuint (d->steps->len, ==, 1);
    g_assert_cmpuint (g_array_index (d->steps, RtTurnDistStep, 0).requests, ==, 1);
    g_assert_cmpuint (d->all->len, ==, 0);
    g_autoptr (RtTable) counts = rt_turn_dist_counts_table (d);
    g_autoptr (RtTable) means = rt_turn_dist_mean_table (d);
    g_autoptr (GString) ct = rt_table_tsv (counts);
    g_autoptr (GString) mt = rt_table_tsv (means);
    g_assert_cmpstr (ct->str, ==, "step\n1\n");
    g_assert_cmpstr (mt->str, ==, "step\n1\n");
  }
  rt_test_experiment_remove (dir);
}

/* Numbers of turns small and large (kept apart while counting: the small by their number,
 * the large in a sorted list) come out as one list, ascending, each bin its own. */
static void
test_turn_dist_small_and_large_numbers (void)
{
  GString *lines = g_string_new (NULL);
  const struct { const char *id; const char *turns; int seconds; } reqs[] = {
    { "a", "2147483647", 8 }, { "b", "63", 2 }, { "c", "0", 1 }, { "d", "64", 4 },
    { "e", "63", 6 }, { "f", "1000", 5 }, { "g", "64", 10 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (reqs); i++)
    g_string_append_printf (lines, "{\"event\": \"async_rollout_request_complete\", \"timestamp\": "
                            "\"2025-01-01T10:00:10\", \"duration_sec\": %d, \"extra\": {\"request_id\": "
                            "\"%s\", \"turns\": %s}}\n", reqs[i].seconds, reqs[i].id, reqs[i].turns);
  g_autofree char *dir = rt_test_experiment_new (lines->str);
  g_string_free (lines, TRUE);
  {
    g_autoptr (RtTrace) t = rt_test_load (dir);
    g_autoptr (RtTurnDist) d = rt_turn_dist_analyse (t, NULL);
    const gint32 order[] = { 0, 63, 64, 1000, 2147483647 };
    g_assert_cmpuint (d->all->len, ==, G_N_ELEMENTS (order));
    for (guint i = 0; i < G_N_ELEMENTS (order); i++)
      g_assert_cmpint (g_array_index (d->all, RtTurnBin, i).turns, ==, order[i]);
    assert_bin (d->all, 0, 1, 1);
    assert_bin (d->all, 63, 2, 4);
    assert_bin (d->all, 64, 2, 7);
    assert_bin (d->all, 1000, 1, 5);
    assert_bin (d->all, 2147483647, 1, 8);
    const RtTurnDistStep *st = &g_array_index (d->steps, RtTurnDistStep, 0);
    g_assert_cmpuint (st->bins->len, ==, G_N_ELEMENTS (order));
    assert_bin (st->bins, 64, 2, 7);
  }
  rt_test_experiment_remove (dir);
}

/* The mean over all steps adds the durations request by request, in the trace's order, as
 * one sum: not each step's sum added to the others' (0.1 + (0.2 + 0.3) rounds otherwise),
 * and the counts of the steps add up. */
static void
test_turn_dist_all_sums_request_by_request (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("rt-test-XXXXXX", &error);
  g_assert_no_error (error);
  const struct { const char *step, *id; const char *seconds; } reqs[][2] = {
    { { "step_1", "a", "0.1" }, { NULL, NULL, NULL } },
    { { "step_2", "b", "0.2" }, { "step_2", "c", "0.3" } },
  };
  for (guint i = 0; i < G_N_ELEMENTS (reqs); i++)
    {
      g_autofree char *step = g_build_filename (dir, reqs[i][0].step, NULL);
      g_autofree char *file = g_build_filename (step, "worker_0.jsonl", NULL);
      g_assert_cmpint (g_mkdir (step, 0700), ==, 0);
      g_autoptr (GString) lines = g_string_new (NULL);
      for (guint k = 0; k < 2 && reqs[i][k].id != NULL; k++)
        g_string_append_printf (lines, "{\"event\": \"async_rollout_request_complete\", \"timestamp\": "
                                "\"2025-01-01T10:00:10\", \"duration_sec\": %s, \"extra\": {\"request_id\": "
                                "\"%s\", \"turns\": 2}}\n", reqs[i][k].seconds, reqs[i][k].id);
      g_file_set_contents (file, lines->str, -1, &error);
      g_assert_no_error (error);
    }
  {
    g_autoptr (RtTrace) t = rt_test_load (dir);
    g_autoptr (RtTurnDist) d = rt_turn_dist_analyse (t, NULL);
    volatile double a = 0.1, b = 0.2, c = 0.3;   /* (as the parser reads them) */
    double in_order = ((0.0 + a) + b) + c, by_step = (0.0 + a) + ((0.0 + b) + c);
    g_assert_cmpfloat (in_order, !=, by_step);   /* the test tells them apart */
    g_assert_cmpuint (d->all->len, ==, 1);
    const RtTurnBin *all = rt_turn_bins_find (d->all, 2);
    g_assert_nonnull (all);
    g_assert_cmpuint (all->count, ==, 3);
    g_assert_cmpuint (all->n_timed, ==, 3);
    g_assert_cmpfloat (all->sum_s, ==, in_order);
    g_assert_cmpfloat (all->mean_s, ==, in_order / 3);
    g_assert_cmpuint (d->steps->len, ==, 2);
    const RtTurnBin *second = rt_turn_bins_find (g_array_index (d->steps, RtTurnDistStep, 1).bins, 2);
    g_assert_cmpuint (second->count, ==, 2);
    g_assert_cmpfloat (second->sum_s, ==, (0.0 + b) + c);
  }
  rt_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analyses/step-requests/walks-every-file", test_step_requests_walks_every_file);
  g_test_add_func ("/analyses/turn-dist/all-sums-request-by-request", test_turn_dist_all_sums_request_by_request);
  g_test_add_func ("/analyses/overview/hand-v2", test_overview_hand_v2);
  g_test_add_func ("/analyses/overview/interval-reaches-unselected-step", test_overview_interval_reaches_unselected_step);
  g_test_add_func ("/analyses/overview/train-columns", test_overview_train_columns);
  g_test_add_func ("/analyses/overview/empty-without-totals", test_overview_empty_without_totals);
  g_test_add_func ("/analyses/events/shares-hand-v2", test_events_shares_hand_v2);
  g_test_add_func ("/analyses/events/table-pct-group", test_events_table_pct_group);
  g_test_add_func ("/analyses/turns/hand-v2", test_turns_hand_v2);
  g_test_add_func ("/analyses/turns/selected-and-absent", test_turns_selected_and_absent);
  g_test_add_func ("/analyses/turns/parts-missing-in-some-records", test_turns_parts_missing_in_some_records);
  g_test_add_func ("/analyses/turn-dist/hand-v2", test_turn_dist_hand_v2);
  g_test_add_func ("/analyses/turn-dist/requests-without-turns", test_turn_dist_requests_without_turns);
  g_test_add_func ("/analyses/turn-dist/small-and-large-numbers", test_turn_dist_small_and_large_numbers);
  return g_test_run ();
}
