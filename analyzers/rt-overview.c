/* rt-overview: how long each step's rollout took, and how long until the next step began.
 * The difference is the time spent outside rollout (training, weight sync): the whole step at a glance. */
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-trainlog.h"
#include "rolltrace/rt-views.h"

#include <math.h>

static char *opt_train;

typedef struct {
  gint32 step;
  double rollout_s;    /* max over workers of total_step_duration */
  double interval_s;   /* this step's start to the next step's start; NAN for the last */
  gboolean rollout_outlier, interval_outlier;
  double train_step_s; /* the trainer's timing_s/step for this step (--train), or NAN */
  double train_gen_s;  /* its timing_s/gen */
} StepRow;

/* Start of the first step after `si` (in the whole trace) that has a start. */
static double
next_start (const RtTrace *t, guint si)
{
  for (guint j = si + 1; j < t->steps->len; j++)
    if (!isnan (rt_trace_step (t, j)->start_s))
      return rt_trace_step (t, j)->start_s;
  return NAN;
}

/* Marks values further than 2 population std from the mean; returns the mean. */
static double
mark_outliers (GArray *rows, gboolean interval)
{
  g_autoptr (GArray) v = rt_samples_new ();
  for (guint i = 0; i < rows->len; i++)
    {
      StepRow *r = &g_array_index (rows, StepRow, i);
      rt_samples_add (v, interval ? r->interval_s : r->rollout_s);
    }
  double mean = rt_mean (rt_samples_data (v), v->len);
  double std = rt_std_population (rt_samples_data (v), v->len);
  for (guint i = 0; i < rows->len; i++)
    {
      StepRow *r = &g_array_index (rows, StepRow, i);
      double x = interval ? r->interval_s : r->rollout_s;
      gboolean out = !isnan (x) && std > 0 && fabs (x - mean) > 2 * std;
      *(interval ? &r->interval_outlier : &r->rollout_outlier) = out;
    }
  return mean;
}

static gboolean
write_plot (RtSession *s, GArray *rows, GArray *selected, double rollout_mean,
            double interval_mean, GError **error)
{
  const char *cols[] = { "step", "rollout_s", "interval_s", "outside_s", "rollout_outlier",
                         "interval_outlier", "timing_s/step", "timing_s/gen", NULL };
  g_autoptr (GString) tsv = rt_tsv_new (cols);
  for (guint i = 0; i < rows->len; i++)
    {
      const StepRow *r = &g_array_index (rows, StepRow, i);
      rt_tsv_int (tsv, r->step, FALSE);
      rt_tsv_num (tsv, r->rollout_s, FALSE);
      rt_tsv_num (tsv, r->interval_s, FALSE);
      rt_tsv_num (tsv, r->interval_s - r->rollout_s, FALSE);
      rt_tsv_int (tsv, r->rollout_outlier, FALSE);
      rt_tsv_int (tsv, r->interval_outlier, FALSE);
      rt_tsv_num (tsv, r->train_step_s, FALSE);
      rt_tsv_num (tsv, r->train_gen_s, TRUE);
    }
  if (!rt_session_write (s, "overview.tsv", tsv, error))
    return FALSE;
  g_autofree char *means = g_strdup_printf ("\"means over %u steps\\n\\nrollout    %.1f s\\ninterval   %.1f s\\n"
                                            "outside    %.1f s\\nrollout share %.0f%%\"",
                                            rows->len, rollout_mean, interval_mean,
                                            interval_mean - rollout_mean,
                                            100 * rollout_mean / interval_mean);
  g_autofree char *steps = rt_session_describe_step_indices (s, selected);
  g_autofree char *what = g_strdup_printf ("rollout and step interval, %s", steps);
  const StepRow *first = &g_array_index (rows, StepRow, 0);
  const StepRow *last = &g_array_index (rows, StepRow, rows->len - 1);
  g_autofree char *xtics = rt_gnuplot_int_tics ("xtics", first->step, last->step, 20);
  gboolean any_outlier = FALSE;
  for (guint i = 0; i < rows->len; i++)
    any_outlier = any_outlier || g_array_index (rows, StepRow, i).rollout_outlier
                  || g_array_index (rows, StepRow, i).interval_outlier;
  /* drawn only when there are some: gnuplot warns about a series with no point */
  const char *outliers = any_outlier
    ? ", \\\n     data using 1:($5 > 0 ? $2 : NaN) with points pt 9 ps 1.6 lc rgb '#d62728' title 'outlier (beyond 2 std)'"
      ", \\\n     data using 1:($6 > 0 ? $3 : NaN) with points pt 9 ps 1.6 lc rgb '#d62728' notitle"
    : "";
  /* with the trainer's log: its own step time and generation time beside the trace's */
  const char *train = opt_train
    ? ", \\\n     data using 1:7 with linespoints pt 7 ps 0.6 lw 2 lc rgb 'black' title 'trainer: timing_s/step'"
      ", \\\n     data using 1:8 with linespoints pt 6 ps 0.6 lw 2 dt 2 lc rgb '#d62728' title 'trainer: timing_s/gen'"
    : "";
  const char *vars[] = { "MEANS", means, "XTICS", xtics, "OUTLIERS", outliers, "TRAIN", train, NULL };
  return rt_session_plot (s, "overview", "overview", what, vars, error);
}

static int
run (RtSession *s, GError **error)
{
  const RtTrace *t = s->trace;
  g_autoptr (GArray) selected = rt_session_selected_steps (s);
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (StepRow));
  g_autoptr (RtTrainLog) train = NULL;
  if (opt_train != NULL && (train = rt_train_log_read (opt_train, error)) == NULL)
    return 0;
  if (train != NULL && train->steps->len == 0 && !s->quiet)
    g_printerr ("rt-overview: note: %s has no 'step:N - name:value' line\n", opt_train);
  for (guint i = 0; i < selected->len; i++)
    {
      guint si = g_array_index (selected, guint, i);
      const RtStep *st = rt_trace_step (t, si);
      StepRow r = { st->step, rt_view_step_rollout (t, si), NAN, FALSE, FALSE, NAN, NAN };
      if (train != NULL)
        {
          r.train_step_s = rt_metric_at (rt_train_log_metric (train, "timing_s/step"), st->step);
          r.train_gen_s = rt_metric_at (rt_train_log_metric (train, "timing_s/gen"), st->step);
        }
      if (isnan (r.rollout_s))
        continue;   /* no total_step_duration anywhere: the step is left out */
      if (!isnan (st->start_s))
        r.interval_s = next_start (t, si) - st->start_s;
      g_array_append_val (rows, r);
    }
  double rollout_mean = mark_outliers (rows, FALSE);
  double interval_mean = mark_outliers (rows, TRUE);

  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_key (w, "steps");
  rt_jw_begin_array (w);
  for (guint i = 0; i < rows->len; i++)
    {
      const StepRow *r = &g_array_index (rows, StepRow, i);
      rt_jw_begin_object (w);
      rt_jw_member_int (w, "step", r->step);
      rt_jw_member_number (w, "rollout_s", r->rollout_s);
      rt_jw_member_number (w, "interval_s", r->interval_s);
      rt_jw_member_number (w, "outside_s", r->interval_s - r->rollout_s);
      rt_jw_key (w, "rollout_outlier");
      rt_jw_bool (w, r->rollout_outlier);
      rt_jw_key (w, "interval_outlier");
      rt_jw_bool (w, r->interval_outlier);
      if (train != NULL)
        {
          rt_jw_member_number (w, "train_step_s", r->train_step_s);
          rt_jw_member_number (w, "train_gen_s", r->train_gen_s);
        }
      rt_jw_end_object (w);
    }
  rt_jw_end_array (w);
  rt_jw_member_number (w, "rollout_mean", rollout_mean);
  rt_jw_member_number (w, "interval_mean", interval_mean);
  rt_jw_end_object (w);

  if (rows->len == 0)
    return rt_session_no_data (s, "no step has a total_step_duration line");
  rt_session_print (s, "%u steps: rollout mean %.2f s, interval mean %.2f s, outside rollout %.2f s (%.0f%% of a step)\n",
                    rows->len, rollout_mean, interval_mean, interval_mean - rollout_mean,
                    100 * (interval_mean - rollout_mean) / interval_mean);
  for (guint i = 0; i < rows->len; i++)
    {
      const StepRow *r = &g_array_index (rows, StepRow, i);
      if (r->rollout_outlier || r->interval_outlier)
        rt_session_print (s, "  step %d is an outlier: rollout %.2f s, interval %.2f s\n", r->step,
                          r->rollout_s, r->interval_s);
    }
  return write_plot (s, rows, selected, rollout_mean, interval_mean, error) ? 0 : 1;
}

int
main (int argc, char **argv)
{
  static const GOptionEntry entries[] = {
    { "train", 't', 0, G_OPTION_ARG_FILENAME, &opt_train,
      "The trainer's console log: show its timing_s/step and timing_s/gen per step too", "LOG" },
    G_OPTION_ENTRY_NULL
  };
  static const RtCommand cmd = {
    .name = "rt-overview",
    .parameters = "EXP",
    .summary = "Per step: rollout time (max over workers of total_step_duration), the interval\n"
               "from this step's start to the next step's start, and their difference, the\n"
               "time spent outside rollout (training, syncing). Outliers beyond 2 std are marked.\n"
               "A step starts at the earliest (timestamp - duration_sec) of its lines.",
    .description = "Writes overview.tsv, overview.gp and the rendered plot into --out.\n"
                   "JSON (--json): {\"steps\": [{\"step\", \"rollout_s\", \"interval_s\" (null for the\n"
                   "last), \"outside_s\", \"rollout_outlier\", \"interval_outlier\", with --train\n"
                   "\"train_step_s\", \"train_gen_s\"}], \"rollout_mean\", \"interval_mean\"}\n\n"
                   "Examples:\n  rt-overview logs/exp --steps 100-\n  rt-overview logs/exp --train logs/train.log",
    .entries = entries,
    .run = run,
    .flags = RT_COMMAND_LOADS_TRACE | RT_COMMAND_WRITES_PLOTS,
    .min_args = 1,
    .max_args = 1,
  };
  return rt_command_main (&cmd, argc, argv);
}
