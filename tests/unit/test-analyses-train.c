/* SPDX-License-Identifier: Apache-2.0 */
/* test-analyses-train.c: rt_train_analyse on the trainer-log fixtures: statistics per metric,
 * which plots have something to draw, the series behind them, and names that stay unique. */
#include <math.h>
#include <string.h>

#include "rolltrace/rt-analyses.h"

static RtTrainLog *
read_fixture (const char *name)
{
  g_autofree char *path = g_build_filename (RT_FIXTURES_DIR, "train", name, NULL);
  g_autoptr (GError) error = NULL;
  RtTrainLog *log = rt_train_log_read (path, &error);
  g_assert_no_error (error);
  return log;
}

static const RtTrainMetric *
metric (const RtTrain *tr, const char *name)
{
  for (guint k = 0; k < tr->metrics->len; k++)
    if (strcmp (g_array_index (tr->metrics, RtTrainMetric, k).metric, name) == 0)
      return &g_array_index (tr->metrics, RtTrainMetric, k);
  g_assert_not_reached ();
}

static char *
joined (GPtrArray *names)
{
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < names->len; i++)
    g_string_append_printf (out, "%s%s", i ? "," : "", (const char *) g_ptr_array_index (names, i));
  return g_string_free (out, FALSE);
}

/* fixtures/README.md: timing_s/gen is 50, 70 (the restart's value), 40: mean 53.33, median
 * 50, P95 = 50 + 0.9 x 20 = 68; over a window of 2, the mean of 70 and 40. actor/entropy is
 * nan, inf, -inf: known, count 0, nothing to plot. */
static void
test_console_metric_stats (void)
{
  g_autoptr (RtTrainLog) log = read_fixture ("console.log");
  g_autoptr (RtTrain) tr = rt_train_analyse (log, 2, NULL);
  g_assert_cmpuint (tr->metrics->len, ==, 10);
  g_assert_cmpstr (g_array_index (tr->metrics, RtTrainMetric, 0).metric, ==, "actor/entropy");   /* name order */
  const RtTrainMetric *gen = metric (tr, "timing_s/gen");
  g_assert_cmpuint (gen->summary.count, ==, 3);
  g_assert_cmpfloat_with_epsilon (gen->summary.mean, 160.0 / 3, 1e-9);
  g_assert_cmpfloat (gen->summary.p50, ==, 50);
  g_assert_cmpfloat_with_epsilon (gen->summary.p95, 68, 1e-9);
  g_assert_cmpfloat_with_epsilon (gen->window_mean, 55, 1e-9);
  g_assert_true (gen->plottable);
  g_assert_cmpstr (gen->file, ==, "metric_timing_s_gen");
  g_assert_cmpstr (gen->key, ==, "timing_s/gen");
  const RtTrainMetric *entropy = metric (tr, "actor/entropy");
  g_assert_cmpuint (entropy->summary.count, ==, 0);
  g_assert_true (isnan (entropy->window_mean));
  g_assert_false (entropy->plottable);

  g_autoptr (RtTable) table = rt_train_metrics_table (tr);
  g_assert_cmpuint (rt_table_n_rows (table), ==, 10);
  g_assert_cmpstr (rt_table_get_text (table, 0, 0), ==, "actor/entropy");
}

/* The breakdown draws the sections the log has (gen, reward, old_log_prob, update_actor,
 * in the plot's order) with the time per step last; component_comparison's means are
 * those of gen (53.33) and update_actor (25). */
static void
test_console_plots (void)
{
  g_autoptr (RtTrainLog) log = read_fixture ("console.log");
  g_autoptr (RtTrain) tr = rt_train_analyse (log, 2, NULL);
  const RtTrainPlot *breakdown = &tr->plots[RT_TRAIN_BREAKDOWN];
  g_assert_cmpstr (breakdown->name, ==, "step_timing_breakdown");
  g_autofree char *found = joined (breakdown->found);
  g_assert_cmpstr (found, ==, "timing_s/gen,timing_s/reward,timing_s/old_log_prob,timing_s/update_actor");
  g_autoptr (RtTable) table = rt_train_plot_table (log, breakdown);
  g_assert_cmpuint (rt_table_n_columns (table), ==, 6);
  g_assert_cmpint (rt_table_find (table, "timing_s/step"), ==, 5);
  g_assert_cmpuint (rt_table_n_rows (table), ==, 3);
  g_assert_cmpfloat (rt_table_get_number (table, 1, 1), ==, 70);   /* step 2: the restart's value */
  g_assert_cmpfloat (rt_table_get_number (table, 2, 5), ==, 80);

  const RtTrainPlot *components = &tr->plots[RT_TRAIN_COMPONENTS];
  g_assert_cmpuint (components->found->len, ==, 2);
  g_assert_cmpfloat_with_epsilon (g_array_index (components->means, double, 0), 160.0 / 3, 1e-9);
  g_assert_cmpfloat_with_epsilon (g_array_index (components->means, double, 1), 25, 1e-9);
  g_assert_true (tr->step_plottable);
}

/* critic/score/mean is 0.5, 0.6, 0.9: a moving mean over 2 steps of 0.5, 0.55, 0.75. A glob
 * that matches nothing is returned for the note. */
static void
test_console_chosen_metric_and_moving_mean (void)
{
  g_autoptr (RtTrainLog) log = read_fixture ("console.log");
  const char *const globs[] = { "critic/*", "nothing*", NULL };
  g_autoptr (RtTrain) tr = rt_train_analyse (log, 2, globs);
  g_assert_true (metric (tr, "critic/score/mean")->chosen);
  g_assert_false (metric (tr, "timing_s/gen")->chosen);
  g_assert_cmpuint (tr->unmatched->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (tr->unmatched, 0), ==, "nothing*");
  g_autoptr (RtTable) table = rt_train_metric_table (log, "critic/score/mean", tr->window);
  g_autoptr (GString) tsv = rt_table_tsv (table);
  g_assert_cmpstr (tsv->str, ==, "step\tvalue\tmoving_mean\n1\t0.5\t0.5\n2\t0.6\t0.55\n3\t0.9\t0.75\n");
}

/* grpo.log has no per-token timing at all; odd-values.log has one with nothing to plot
 * (past 1e300), a generation time of nan and inf, no timing_s/step, and a subnormal value
 * that is drawn as 0. */
static void
test_plots_without_data (void)
{
  g_autoptr (RtTrainLog) grpo = read_fixture ("grpo.log");
  g_autoptr (RtTrain) g = rt_train_analyse (grpo, 10, NULL);
  g_assert_cmpuint (g->plots[RT_TRAIN_PER_TOKEN].found->len, ==, 0);
  g_assert_cmpuint (g->plots[RT_TRAIN_PER_TOKEN].known->len, ==, 0);

  g_autoptr (RtTrainLog) odd = read_fixture ("odd-values.log");
  g_autoptr (RtTrain) tr = rt_train_analyse (odd, 10, NULL);
  const RtTrainPlot *per_token = &tr->plots[RT_TRAIN_PER_TOKEN];
  g_assert_cmpuint (per_token->found->len, ==, 0);
  g_autofree char *known = joined (per_token->known);
  g_assert_cmpstr (known, ==, "timing_per_token_ms/gen");
  g_assert_cmpuint (tr->plots[RT_TRAIN_GENERATION].found->len, ==, 0);
  g_assert_cmpuint (tr->plots[RT_TRAIN_BREAKDOWN].found->len, ==, 1);   /* update_actor: -2, -3 */
  g_assert_false (tr->step_plottable);
  g_assert_false (metric (tr, "actor/huge")->plottable);
  g_assert_true (metric (tr, "actor/tiny")->plottable);
  g_autoptr (RtTable) tiny = rt_train_metric_table (odd, "actor/tiny", 10);
  g_assert_cmpuint (rt_table_n_rows (tiny), ==, 1);
  g_assert_cmpfloat (rt_table_get_number (tiny, 0, 1), ==, 0);
}

/* Made safe, two names must not become one: a_b keeps metric_a_b, a/b takes metric_a_b_2;
 * a real U+FFFD keeps its key, a byte that is not UTF-8 (written as U+FFFD) takes " #2". */
static void
test_names_stay_unique (void)
{
  g_autoptr (RtTrainLog) log = rt_train_log_new ();
  const char *line = "step:1 - a/b:1 - a_b:2 - x\xef\xbf\xbd:3 - x\xff:4";
  g_assert_true (rt_train_log_feed_line (log, line, strlen (line)));
  g_autoptr (RtTrain) tr = rt_train_analyse (log, 10, NULL);
  const RtTrainMetric *slash = metric (tr, "a/b");
  g_assert_cmpstr (slash->file, ==, "metric_a_b_2");
  g_assert_cmpstr (slash->wanted_file, ==, "metric_a_b");
  g_assert_cmpstr (metric (tr, "a_b")->file, ==, "metric_a_b");
  g_assert_cmpstr (metric (tr, "x\xef\xbf\xbd")->key, ==, "x\xef\xbf\xbd");
  g_assert_cmpstr (metric (tr, "x\xff")->key, ==, "x\xef\xbf\xbd #2");
}

/* A log without a metric line: an empty result, every plot skipped. */
static void
test_no_metric_is_an_empty_result (void)
{
  g_autoptr (RtTrainLog) log = read_fixture ("no-metrics.log");
  g_autoptr (RtTrain) tr = rt_train_analyse (log, 10, NULL);
  g_assert_cmpuint (tr->metrics->len, ==, 0);
  for (guint id = 0; id < RT_TRAIN_N_PLOTS; id++)
    g_assert_cmpuint (tr->plots[id].found->len, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analyses/train/console-metric-stats", test_console_metric_stats);
  g_test_add_func ("/analyses/train/console-plots", test_console_plots);
  g_test_add_func ("/analyses/train/console-chosen-metric-and-moving-mean", test_console_chosen_metric_and_moving_mean);
  g_test_add_func ("/analyses/train/plots-without-data", test_plots_without_data);
  g_test_add_func ("/analyses/train/names-stay-unique", test_names_stay_unique);
  g_test_add_func ("/analyses/train/no-metric-is-an-empty-result", test_no_metric_is_an_empty_result);
  return g_test_run ();
}
