/* SPDX-License-Identifier: Apache-2.0 */
/* test-analyses-timeline.c: rt-timeline's answers as library calls: the finish times, tail share,
 * peak in flight and busy share of fixtures/timeline (worked in fixtures/README.md), and the Gantt's bars. */
#include <math.h>
#include <string.h>

#include "rolltrace/rt-analyses.h"
#include "test-util.h"

#define EPS 1e-9

static void
test_timeline_fixture_answers (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("timeline");
  g_autoptr (RtTimeline) tl = rt_timeline_analyse (t, NULL, -1);   /* the slowest: step 5 */
  g_assert_true (tl->has_step && tl->found);
  g_assert_cmpint (tl->step, ==, 5);
  g_assert_cmpuint (tl->requests, ==, 10);
  /* ends 4 5 6 7 8 9 10 12 14 40: k = 5, 9, 10, 10 */
  g_assert_cmpfloat_with_epsilon (tl->t50_s, 8, EPS);
  g_assert_cmpfloat_with_epsilon (tl->t90_s, 14, EPS);
  g_assert_cmpfloat_with_epsilon (tl->t99_s, 40, EPS);
  g_assert_cmpfloat_with_epsilon (tl->t100_s, 40, EPS);
  g_assert_cmpfloat_with_epsilon (tl->tail_share, 26.0 / 40, EPS);
  g_assert_cmpfloat_with_epsilon (tl->end_s, 41, EPS);
  /* 3, not the 4 that starts before ends would give at 4 s and 6 s */
  g_assert_cmpuint (tl->peak_in_flight, ==, 3);
  g_assert_cmpuint (tl->workers->len, ==, 3);
  const RtTimelineWorker *w0 = &g_array_index (tl->workers, RtTimelineWorker, 0);
  const RtTimelineWorker *w1 = &g_array_index (tl->workers, RtTimelineWorker, 1);
  const RtTimelineWorker *w2 = &g_array_index (tl->workers, RtTimelineWorker, 2);
  g_assert_cmpuint (w0->peak_in_flight, ==, 2);   /* 3 if r2 began before r1 ended at 4 s */
  g_assert_cmpuint (w1->peak_in_flight, ==, 2);   /* 3 if r7, r10 began before r6 ended at 10 s */
  g_assert_cmpfloat_with_epsilon (w0->busy_share, 6.0 / 20, EPS);
  g_assert_cmpfloat_with_epsilon (w1->busy_share, 38.0 / 41, EPS);
  g_assert_cmpfloat_with_epsilon (w0->barrier_s, 10, EPS);
  g_assert_cmpfloat_with_epsilon (w1->barrier_s, 1, EPS);   /* the older `barrier` */
  g_assert_cmpuint (w2->requests, ==, 0);
  g_assert_true (isnan (w2->start_s) && isnan (w2->busy_share) && isnan (w2->barrier_s));
}

static void
test_timeline_step_rules (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("timeline");
  g_autoptr (RtStepSet) only6 = rt_test_steps ("6");
  g_autoptr (RtTimeline) absent = rt_timeline_analyse (t, NULL, 7);
  g_assert_true (absent->has_step);
  g_assert_false (absent->found);
  g_assert_cmpuint (absent->workers->len, ==, 0);
  g_autoptr (RtTimeline) unselected = rt_timeline_analyse (t, only6, 5);
  g_assert_false (unselected->found);
  g_assert_true (isnan (unselected->t50_s));
  g_autoptr (RtTimeline) slowest6 = rt_timeline_analyse (t, only6, -1);
  g_assert_cmpint (slowest6->step, ==, 6);
  g_assert_cmpuint (slowest6->requests, ==, 0);
  g_assert_true (isnan (slowest6->t100_s) && isnan (slowest6->tail_share));

  /* no total_step_duration anywhere: no slowest step */
  const char *jsonl =
    "{\"timestamp\": \"2025-01-01T10:00:01\", \"event\": \"async_rollout_request_complete\", \"duration_sec\": 1.0, \"extra\": {\"request_id\": \"a\"}}\n"
    "{\"timestamp\": \"2025-01-01T10:00:02\", \"event\": \"async_rollout_request_complete\", \"duration_sec\": 1.0, \"extra\": {\"request_id\": \"b\"}}\n";
  g_autofree char *dir = rt_test_experiment_new (jsonl);
  g_autoptr (RtTrace) t2 = rt_test_load (dir);
  g_autoptr (RtTimeline) none = rt_timeline_analyse (t2, NULL, -1);
  g_assert_false (none->has_step);
  /* asked by number it is there: a [0, 1) and b [1, 2) never overlap */
  g_autoptr (RtTimeline) one = rt_timeline_analyse (t2, NULL, 1);
  g_assert_cmpuint (one->peak_in_flight, ==, 1);
  g_assert_cmpfloat_with_epsilon (rt_spans_worker (one->spans, 0)->end_s, 2, EPS);
  g_assert_cmpfloat_with_epsilon (g_array_index (one->workers, RtTimelineWorker, 0).busy_share, 1, EPS);
  rt_test_experiment_remove (dir);
}

/* the phase of the rows of request `id` in the Gantt table, "phase start end; ..." */
static char *
gantt_bars (const RtTable *table, const char *id)
{
  GString *out = g_string_new (NULL);
  int id_col = rt_table_find (table, "request_id"), phase_col = rt_table_find (table, "phase");
  for (guint r = 0; r < rt_table_n_rows (table); r++)
    if (g_strcmp0 (rt_table_get_text (table, r, id_col), id) == 0)
      g_string_append_printf (out, "%s%s %g %g", out->len ? "; " : "", rt_table_get_text (table, r, phase_col),
                              rt_table_get_number (table, r, 4), rt_table_get_number (table, r, 5));
  return g_string_free (out, FALSE);
}

static void
test_timeline_gantt (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("hand-v2");
  g_autoptr (RtTimeline) tl = rt_timeline_analyse (t, NULL, 1);
  g_autoptr (RtTable) all = rt_timeline_gantt_table (t, tl, NULL, NAN, NAN, TRUE);
  /* a: waiting until its engine call [3, 6), then waiting to its end (turn_end only encloses) */
  g_autofree char *a = gantt_bars (all, "a");
  g_assert_cmpstr (a, ==, "request 2 10; waiting 2 3; engine 3 6; waiting 6 10");
  g_autofree char *worker1 = gantt_bars (all, NULL);
  g_assert_nonnull (strstr (worker1, "barrier wait 15 16"));
  g_assert_null (strstr (worker1, "total"));   /* total_step_duration is the band itself */
  /* lanes: worker 0's band 0, b 1, a 2, a free lane, worker 1's band 4, c 5 */
  g_assert_cmpfloat (rt_table_get_number (all, rt_table_n_rows (all) - 1, 0), ==, 5);

  /* from 6 s on only a and c are alive (b's life [2, 6) ends there); worker 1 only: c */
  g_autoptr (RtTable) late = rt_timeline_gantt_table (t, tl, NULL, 6, NAN, TRUE);
  g_autofree char *b = gantt_bars (late, "b");
  g_assert_cmpstr (b, ==, "");
  g_autoptr (GArray) w1 = g_array_new (FALSE, FALSE, sizeof (gint32));
  gint32 one = 1;
  g_array_append_val (w1, one);
  g_autoptr (RtTable) only1 = rt_timeline_gantt_table (t, tl, w1, NAN, NAN, TRUE);
  g_autofree char *a1 = gantt_bars (only1, "a");
  g_assert_cmpstr (a1, ==, "");
  g_autofree char *c = gantt_bars (only1, "c");
  g_assert_cmpstr (c, ==, "request 2 14; unlogged 2 14");   /* c logged no line of its own */

  /* the lanes counted as the table has them; without phases, a request is its life alone */
  g_assert_cmpuint (rt_timeline_gantt_requests (tl, NULL, NAN, NAN), ==, 3);
  g_assert_cmpuint (rt_timeline_gantt_requests (tl, NULL, 6, NAN), ==, 2);
  g_assert_cmpuint (rt_timeline_gantt_requests (tl, w1, NAN, NAN), ==, 1);
  g_autoptr (RtTable) thin = rt_timeline_gantt_table (t, tl, NULL, NAN, NAN, FALSE);
  g_autofree char *a_thin = gantt_bars (thin, "a");
  g_assert_cmpstr (a_thin, ==, "request 2 10");
  g_autofree char *bands_thin = gantt_bars (thin, NULL), *bands_all = gantt_bars (all, NULL);
  g_assert_cmpstr (bands_thin, ==, bands_all);   /* the workers' bands stay */

  /* in flight: worker 1's column only, besides the total */
  g_autoptr (RtTable) inflight = rt_timeline_inflight_table (tl, w1);
  g_assert_cmpuint (rt_table_n_columns (inflight), ==, 3);
  g_assert_cmpstr (rt_table_column (inflight, 2)->name, ==, "worker_1");
}

static void
write_bar (const RtGanttBar *bar, gpointer writer)
{
  rt_timeline_gantt_bar_tsv (writer, bar);
}

/* The Gantt's rows of some workers, as they come, written into `tsv` (its header first
 * when `header`). */
static void
gantt_tsv_each (GString *tsv, gboolean header, const RtTrace *t, const RtTimeline *tl, const GArray *workers,
                double from_s, gboolean phases, guint first_worker, guint end_worker)
{
  g_autoptr (RtTable) columns = rt_table_new (&rt_timeline_gantt_spec);
  g_autoptr (RtTsvWriter) w = rt_tsv_writer_new (columns, tsv, header);
  rt_timeline_gantt_each (t, tl, workers, from_s, NAN, phases, first_worker, end_worker, write_bar, w);
}

/* A Gantt's rows written as they come make the whole table's TSV: with and without phases,
 * for all workers or some, from the start or a later moment, whole and in two parts of
 * workers (split before each: the second part's lanes go on); the in-flight TSV, written
 * as it is made, is its table's too, for all workers or some. */
static void
test_timeline_gantt_as_it_comes (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("hand-v2");
  g_autoptr (RtTimeline) tl = rt_timeline_analyse (t, NULL, 1);
  g_autoptr (GArray) some = g_array_new (FALSE, FALSE, sizeof (gint32));
  g_array_append_val (some, g_array_index (tl->workers, RtTimelineWorker, tl->workers->len - 1).worker);
  g_assert_cmpuint (tl->workers->len, >, 1);
  const GArray *choices[] = { NULL, some };
  for (guint c = 0; c < G_N_ELEMENTS (choices); c++)
    for (int phases = 0; phases <= 1; phases++)
      for (int late = 0; late <= 1; late++)
        {
          double from_s = late ? 1 : NAN;
          g_autoptr (RtTable) whole = rt_timeline_gantt_table (t, tl, choices[c], from_s, NAN, phases);
          g_autoptr (GString) want = rt_table_tsv (whole);
          g_assert_cmpuint (rt_table_n_rows (whole), >, c == 0 && !late ? 6 : 1);
          g_autoptr (GString) got = g_string_new (NULL);
          gantt_tsv_each (got, TRUE, t, tl, choices[c], from_s, phases, 0, G_MAXUINT);
          g_assert_cmpstr (got->str, ==, want->str);
          for (guint k = 0; k <= tl->workers->len; k++)
            {
              g_autoptr (GString) parts = g_string_new (NULL);
              gantt_tsv_each (parts, TRUE, t, tl, choices[c], from_s, phases, 0, k);
              gantt_tsv_each (parts, FALSE, t, tl, choices[c], from_s, phases, k, G_MAXUINT);
              g_assert_cmpstr (parts->str, ==, want->str);
            }
        }
  for (guint c = 0; c < G_N_ELEMENTS (choices); c++)
    {
      g_autoptr (RtTable) inflight = rt_timeline_inflight_table (tl, choices[c]);
      g_autoptr (GString) want = rt_table_tsv (inflight);
      guint n_columns = 0;
      g_autoptr (GString) got = rt_timeline_inflight_tsv (tl, choices[c], &n_columns);
      g_assert_cmpstr (got->str, ==, want->str);
      g_assert_cmpuint (n_columns, ==, rt_table_n_columns (inflight));
      g_assert_cmpuint (n_columns, ==, c == 0 ? 2 + tl->workers->len : 3);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/timeline/fixture-answers", test_timeline_fixture_answers);
  g_test_add_func ("/timeline/step-rules", test_timeline_step_rules);
  g_test_add_func ("/timeline/gantt", test_timeline_gantt);
  g_test_add_func ("/timeline/gantt-as-it-comes", test_timeline_gantt_as_it_comes);
  return g_test_run ();
}
