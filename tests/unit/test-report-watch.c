/* SPDX-License-Identifier: Apache-2.0 */
/* test-report-watch.c: what rt-report --watch keeps between rounds (RtReportMemo): a round reads
 * the steps after those kept, and its tail, what-if, turn and findings' figures are those of a
 * report of the tree as it is, whether steps were appended, changed or removed. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "report-private.h"
#include "test-util.h"

/* The worker files the steps are made of, taken in turn: four steps of fixtures with tails. */
static const char *const sources[] = {
  "why-tail/differ/step_1", "whatif/step_1", "why-tail/differ/step_2", "whatif/step_2", "whatif/step_3",
};

/* EXP/step_N holds a copy of the files of source `k`. */
static void
make_step (const char *exp, int step, guint k)
{
  g_autofree char *from = g_build_filename (RT_FIXTURES_DIR, sources[k % G_N_ELEMENTS (sources)], NULL);
  g_autofree char *name = g_strdup_printf ("step_%d", step);
  g_autofree char *to = g_build_filename (exp, name, NULL);
  g_assert_cmpint (g_mkdir_with_parents (to, 0700), ==, 0);
  g_autoptr (GDir) dir = g_dir_open (from, 0, NULL);
  g_assert_nonnull (dir);
  const char *file;
  while ((file = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *src = g_build_filename (from, file, NULL), *dst = g_build_filename (to, file, NULL);
      g_autofree char *text = NULL;
      gsize len;
      g_assert_true (g_file_get_contents (src, &text, &len, NULL));
      g_assert_true (g_file_set_contents (dst, text, (gssize) len, NULL));
    }
}

/* Everything the report reads of the tail and the what-if replay, as text. */
static char *
figures (const RtTail *tail, const GPtrArray *whatif)
{
  GString *out = g_string_new (NULL);
  g_autoptr (RtTable) steps = rt_tail_steps_table (tail);
  rt_table_tsv_append (steps, out, TRUE);
  g_string_append_printf (out, "attributed %u\n", tail->attributed_steps);
  for (guint c = 0; c <= RT_N_TAIL_CAUSES; c++)
    g_string_append_printf (out, "cause %u: %u %u\n", c, tail->tail_dominant[c], tail->last_dominant[c]);
  for (guint i = 0; i < tail->steps->len; i++)
    {
      const RtTailStep *ts = &g_array_index (tail->steps, RtTailStep, i);
      g_string_append_printf (out, "step %d index %u last %s\n", ts->step, ts->step_index,
                              ts->last_request_id ? ts->last_request_id : "-");
    }
  for (guint p = 0; p < whatif->len; p++)
    {
      const RtWhatif *w = g_ptr_array_index (whatif, p);
      g_autoptr (RtTable) table = rt_whatif_steps_table (w);
      rt_table_tsv_append (table, out, TRUE);
      g_string_append_printf (out, "%u %u %u %u %.17g %.17g %.17g %.17g ks %.17g %.17g %.17g %.17g\n",
                              w->steps_predicted, w->steps_unknown, w->requests, w->cut, w->recorded_s,
                              w->predicted_s, w->saved_s, w->saved_share, w->ks_turns[0], w->ks_turns[1],
                              w->ks_tokens[0], w->ks_tokens[1]);
    }
  return g_string_free (out, FALSE);
}

/* The distribution of turns, as text. */
static void
append_turn_dist (GString *out, const RtTurnDist *d)
{
  RtTable *tables[] = { rt_turn_dist_steps_table (d), rt_turn_dist_counts_table (d), rt_turn_dist_mean_table (d),
                        rt_turn_dist_bins_table (d->all) };
  for (guint i = 0; i < G_N_ELEMENTS (tables); i++)
    {
      rt_table_tsv_append (tables[i], out, TRUE);
      rt_table_free (tables[i]);
    }
  for (guint i = 0; i < d->steps->len; i++)
    g_string_append_printf (out, "turns of step %d index %u\n", g_array_index (d->steps, RtTurnDistStep, i).step,
                            g_array_index (d->steps, RtTurnDistStep, i).step_index);
}

/* The findings' walk over the requests, as text: the slowest by id. */
static void
append_walk (GString *out, const RtTrace *t, const RtRequestWalk *walk)
{
  guint64 complete, length;
  g_autoptr (GArray) slowest = NULL;
  rt_request_walk_counts (walk, &complete, &length, &slowest);
  g_string_append_printf (out, "complete %" G_GUINT64_FORMAT " at length %" G_GUINT64_FORMAT "\n", complete, length);
  for (guint k = 0; k < slowest->len; k++)
    {
      const RtRequest *q = rt_trace_request (t, g_array_index (slowest, guint, k));
      g_string_append_printf (out, "slow %d %d %s %.17g\n", q->step, q->worker, rt_request_id (t, q), q->total_s);
    }
}

/* A round of `memo` over EXP as it is now: it reads `want_read` steps, and its figures are
 * those of a round without a memo. Returns them. */
static char *
round_of (const char *exp, const RtStepSet *steps, RtReportMemo *memo, guint want_read)
{
  g_autoptr (RtTrace) t = rt_test_load (exp);
  g_autoptr (RtTail) tail = NULL, fresh_tail = NULL;
  g_autoptr (GPtrArray) whatif = NULL, fresh_whatif = NULL;
  rt_report_tail_whatif (t, steps, memo, &tail, &whatif);
  rt_report_tail_whatif (t, steps, NULL, &fresh_tail, &fresh_whatif);
  g_autoptr (RtTurnDist) dist = rt_report_turn_dist (t, steps, memo);
  g_autoptr (RtTurnDist) fresh_dist = rt_turn_dist_analyse (t, steps);
  g_autoptr (RtRequestWalk) walk = rt_report_request_walk (t, steps, memo);
  g_autoptr (RtRequestWalk) fresh_walk = rt_report_request_walk (t, steps, NULL);
  g_assert_cmpuint (rt_report_memo_steps_read (memo, RT_REPORT_KEPT_TAIL_WHATIF), ==, want_read);
  g_assert_cmpuint (rt_report_memo_steps_read (memo, RT_REPORT_KEPT_TURN_DIST), ==, want_read);
  g_assert_cmpuint (rt_report_memo_steps_read (memo, RT_REPORT_KEPT_WALK), ==, want_read);
  GString *got = g_string_new (NULL);
  g_autoptr (GString) want = g_string_new (NULL);
  g_autofree char *tail_got = figures (tail, whatif), *tail_want = figures (fresh_tail, fresh_whatif);
  g_string_append (got, tail_got);
  g_string_append (want, tail_want);
  append_turn_dist (got, dist);
  append_turn_dist (want, fresh_dist);
  append_walk (got, t, walk);
  append_walk (want, t, fresh_walk);
  g_assert_cmpstr (got->str, ==, want->str);
  return g_string_free (got, FALSE);
}

static void
test_rounds_read_what_changed (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *exp = g_dir_make_tmp ("rt-watch-XXXXXX", &error);
  g_assert_no_error (error);
  for (int step = 1; step <= 6; step++)
    make_step (exp, step, (guint) step - 1);
  g_autoptr (RtReportMemo) memo = rt_report_memo_new ();
  /* the first round reads all; it keeps all but the last two */
  g_autofree char *first = round_of (exp, NULL, memo, 6);
  g_assert_nonnull (strstr (first, "step 6 index 5"));
  /* nothing changed: the two left open are read again */
  g_autofree char *same = round_of (exp, NULL, memo, 2);
  g_assert_cmpstr (same, ==, first);
  /* a step appended: it and the two before */
  make_step (exp, 7, 6);
  g_autofree char *appended = round_of (exp, NULL, memo, 3);
  g_assert_nonnull (strstr (appended, "step 7 index 6"));
  /* a step kept was rewritten (a log rotated): every step again, and the new figures */
  g_autofree char *file = g_build_filename (exp, "step_2", "worker_0.jsonl", NULL);
  g_autofree char *other = g_build_filename (RT_FIXTURES_DIR, "why-tail", "differ", "step_2", "worker_0.jsonl", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (other, &text, NULL, NULL));
  g_assert_true (g_file_set_contents (file, text, -1, NULL));
  g_autofree char *rotated = round_of (exp, NULL, memo, 7);
  g_assert_cmpstr (rotated, !=, appended);
  g_autofree char *after = round_of (exp, NULL, memo, 2);
  /* a step folder removed: the steps after it move up, all read again */
  g_autofree char *gone = g_build_filename (exp, "step_3", NULL);
  rt_test_remove_tree (gone);
  g_autofree char *removed = round_of (exp, NULL, memo, 6);
  g_assert_null (strstr (removed, "step 3 "));
  g_autofree char *kept = round_of (exp, NULL, memo, 2);
  /* another selection of steps than the one kept: read again */
  g_autoptr (RtStepSet) some = rt_test_steps ("2-7");
  g_autofree char *selected = round_of (exp, some, memo, 5);
  g_autofree char *selected_again = round_of (exp, some, memo, 2);
  /* a step left out of the selection rewritten with fewer requests: the steps kept are as they
   * were, but their requests are numbered anew in the tables (the slowest are found again) */
  g_autofree char *first_file = g_build_filename (exp, "step_1", "worker_0.jsonl", NULL);
  g_autofree char *fewer = g_build_filename (RT_FIXTURES_DIR, "whatif", "step_1", "worker_0.jsonl", NULL);
  g_autofree char *fewer_text = NULL;
  g_assert_true (g_file_get_contents (fewer, &fewer_text, NULL, NULL));
  g_assert_true (g_file_set_contents (first_file, fewer_text, -1, NULL));
  g_autofree char *renumbered = round_of (exp, some, memo, 2);
  g_assert_cmpstr (renumbered, ==, selected_again);
  rt_test_remove_tree (exp);
}

static void
test_copies_go_on_apart (void)
{
  /* a replay and a tail copied half way, each then given the rest: both end as one replay of all
   * the steps, and what one was given after the copy is not in the other */
  g_autofree char *path = g_build_filename (RT_FIXTURES_DIR, "whatif", NULL);
  g_autoptr (RtTrace) t = rt_test_load (path);
  g_autoptr (GArray) all = rt_trace_select_steps (t, NULL);
  g_assert_cmpuint (all->len, ==, 3);
  RtWhatifSetting settings[2];
  rt_finding_whatif_settings (settings);
  RtWhatifReplay *a = rt_whatif_replay_new (settings, 2);
  g_autoptr (RtTail) tail_a = rt_tail_new ();
  g_autoptr (RtLateRequests) first = rt_late_requests_new (t, 0, rt_whatif_replay_turn (a));
  rt_whatif_replay_step (a, first);
  rt_tail_add_step (tail_a, t, first);
  RtWhatifReplay *b = rt_whatif_replay_copy (a);
  g_autoptr (RtTail) tail_b = rt_tail_copy (tail_a);
  g_autoptr (RtTail) tail_one = rt_tail_copy (tail_a);
  RtWhatifReplay *one = rt_whatif_replay_copy (a);
  for (guint i = 1; i < all->len; i++)
    {
      g_autoptr (RtLateRequests) r = rt_late_requests_new (t, i, rt_whatif_replay_turn (a));
      rt_whatif_replay_step (a, r);
      rt_tail_add_step (tail_a, t, r);
      rt_whatif_replay_step (b, r);
      rt_tail_add_step (tail_b, t, r);
    }
  g_autoptr (GPtrArray) wa = rt_whatif_replay_finish (a), wb = rt_whatif_replay_finish (b);
  g_autoptr (GPtrArray) w_one = rt_whatif_replay_finish (one);
  g_autoptr (GPtrArray) w_all = rt_whatif_analyse (t, all, settings, 2);
  g_autoptr (RtTail) tail_all = rt_tail_analyse (t, NULL, NULL);
  g_autofree char *want = figures (tail_all, w_all);
  g_autofree char *got_a = figures (tail_a, wa), *got_b = figures (tail_b, wb);
  g_assert_cmpstr (got_a, ==, want);
  g_assert_cmpstr (got_b, ==, want);
  g_assert_cmpuint (tail_one->steps->len, ==, 1);
  g_assert_cmpuint (((RtWhatif *) g_ptr_array_index (w_one, 0))->steps->len, ==, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/report-watch/rounds-read-what-changed", test_rounds_read_what_changed);
  g_test_add_func ("/report-watch/copies-go-on-apart", test_copies_go_on_apart);
  return g_test_run ();
}
