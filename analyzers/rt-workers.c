/* rt-workers: where each rank spends a step, and which rank everyone waits for.
 * With --step, every worker's step-level sections; without, the imbalance of every step. */
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-views.h"

#include <math.h>

static char *opt_step;

/* The slowest worker file of a step (ties to the lower worker), its total, the
 * median total and their ratio. */
typedef struct {
  int slowest_file;     /* -1 when no worker has a total */
  double total_max, total_median, imbalance;
  /* The barrier evens out total_step_duration, so the straggler shows better in
   * generation time: slowest async_generate_duration / median. */
  double generation_imbalance;
} StepBalance;

static void
step_balance (const RtTrace *t, guint si, StepBalance *b)
{
  const RtStep *st = rt_trace_step (t, si);
  g_autoptr (GArray) totals = rt_samples_new ();
  b->slowest_file = -1;
  b->total_max = NAN;
  for (guint k = 0; k < st->n_files; k++)
    {
      double v = rt_view_file_value (rt_trace_file (t, st->first_file + k), RT_EV_TOTAL_STEP);
      rt_samples_add (totals, v);
      if (!isnan (v) && (b->slowest_file < 0 || v > b->total_max))
        {
          b->slowest_file = (int) (st->first_file + k);
          b->total_max = v;
        }
    }
  b->total_median = rt_median (rt_samples_data (totals), totals->len);
  b->imbalance = b->total_max / b->total_median;

  g_autoptr (GArray) gen = rt_view_event_values (t, si, RT_EV_ASYNC_GENERATE);
  double gen_median = rt_median (rt_samples_data (gen), gen->len);
  b->generation_imbalance = gen->len ? g_array_index (gen, double, gen->len - 1) / gen_median : NAN;
}

static void
write_worker_json (RtJsonWriter *w, const RtTrace *t, const RtFile *f, guint si)
{
  rt_jw_begin_object (w);
  rt_jw_member_int (w, "worker", f->worker);
  rt_jw_member_number (w, "total_s", rt_view_file_value (f, RT_EV_TOTAL_STEP));
  rt_jw_key (w, "events");
  rt_jw_begin_object (w);
  for (int e = 0; e < RT_N_STEP_EVENTS; e++)
    rt_jw_member_number (w, rt_step_event_name (e), rt_view_file_value (f, e));
  rt_jw_end_object (w);
  g_autoptr (GArray) durations = rt_view_request_durations (t, si, f->worker);
  rt_jw_member_int (w, "requests", f->n_complete);
  /* rt_median sorts, so the maximum is then the last */
  rt_jw_member_number (w, "request_p50", rt_median (rt_samples_data (durations), durations->len));
  rt_jw_member_number (w, "request_max",
                       durations->len ? g_array_index (durations, double, durations->len - 1) : NAN);
  rt_jw_end_object (w);
}

static gboolean
plot_step (RtSession *s, guint si, const StepBalance *b, GError **error)
{
  const RtTrace *t = s->trace;
  const RtStep *st = rt_trace_step (t, si);
  g_autoptr (GString) tsv = g_string_new ("worker");
  for (int e = 0; e < RT_N_STEP_EVENTS; e++)
    g_string_append_printf (tsv, "\t%s", rt_step_event_name (e));
  g_string_append_c (tsv, '\n');

  for (guint k = 0; k < st->n_files; k++)
    {
      const RtFile *f = rt_trace_file (t, st->first_file + k);
      rt_tsv_int (tsv, f->worker, FALSE);
      for (int e = 0; e < RT_N_STEP_EVENTS; e++)
        rt_tsv_num (tsv, rt_view_file_value (f, e), e == RT_N_STEP_EVENTS - 1);

      /* the worker's own chart */
      g_autoptr (GString) one = g_string_new ("section\tseconds\n");
      for (int e = 0; e < RT_N_STEP_EVENTS; e++)
        {
          double v = rt_view_file_value (f, e);
          if (v > 0)
            {
              rt_tsv_str (one, rt_step_event_name (e), FALSE);
              rt_tsv_num (one, v, TRUE);
            }
        }
      if (one->len == sizeof "section\tseconds\n" - 1)
        continue;   /* an empty file: nothing to draw */
      g_autofree char *name = g_strdup_printf ("worker_%d_step_%d", f->worker, st->step);
      g_autofree char *tsv_name = g_strdup_printf ("%s.tsv", name);
      gboolean slowest = (int) (st->first_file + k) == b->slowest_file;
      g_autofree char *what = g_strdup_printf ("worker %d, step %d, total %.2f s%s", f->worker,
                                               st->step, rt_view_file_value (f, RT_EV_TOTAL_STEP),
                                               slowest ? " (slowest: the critical path)" : "");
      const char *vars[] = { "COLOR", slowest ? "rgb '#d62728'" : "1", NULL };
      if (!rt_session_write (s, tsv_name, one, error)
          || !rt_session_plot (s, "worker", name, what, vars, error))
        return FALSE;
    }

  g_autofree char *name = g_strdup_printf ("workers_step_%d", st->step);
  g_autofree char *tsv_name = g_strdup_printf ("%s.tsv", name);
  if (!rt_session_write (s, tsv_name, tsv, error))
    return FALSE;
  g_autofree char *marks = NULL;
  if (b->slowest_file >= 0)
    {
      const RtFile *sf = rt_trace_file (t, b->slowest_file);
      marks = g_strdup_printf ("set label 1 'critical path: worker %d, %.1f s' at %u, %.6g "
                               "center offset 0,1.2 front tc rgb '#d62728'\n"
                               "set label 2 \"imbalance %.3f\\n(slowest / median %.1f s)\" at screen 0.78, screen 0.25 left",
                               sf->worker, b->total_max, (guint) b->slowest_file - st->first_file,
                               b->total_max, b->imbalance, b->total_median);
    }
  g_autofree char *every = g_strdup_printf ("%u", MAX (1u, st->n_files / 16));
  g_autofree char *what = g_strdup_printf ("step-level sections per worker, step %d", st->step);
  g_autofree char *xrange = g_strdup_printf ("%.1f:%.1f", -0.6, st->n_files - 0.4);
  const char *vars[] = { "MARKS", marks ? marks : "", "EVERY", every, "XRANGE", xrange, NULL };
  return rt_session_plot (s, "workers", name, what, vars, error);
}

static int
run_step (RtSession *s, guint si, GError **error)
{
  const RtTrace *t = s->trace;
  const RtStep *st = rt_trace_step (t, si);
  StepBalance b;
  step_balance (t, si, &b);

  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_member_int (w, "step", st->step);
  rt_jw_key (w, "workers");
  rt_jw_begin_array (w);
  for (guint k = 0; k < st->n_files; k++)
    write_worker_json (w, t, rt_trace_file (t, st->first_file + k), si);
  rt_jw_end_array (w);
  rt_jw_key (w, "slowest_worker");
  if (b.slowest_file >= 0)
    rt_jw_int (w, rt_trace_file (t, b.slowest_file)->worker);
  else
    rt_jw_null (w);
  rt_jw_member_number (w, "total_max", b.total_max);
  rt_jw_member_number (w, "total_median", b.total_median);
  rt_jw_member_number (w, "imbalance", b.imbalance);
  rt_jw_member_number (w, "generation_imbalance", b.generation_imbalance);
  rt_jw_end_object (w);

  if (b.slowest_file < 0)
    return rt_session_no_data (s, "step %d has no total_step_duration line", st->step);
  const RtFile *sf = rt_trace_file (t, b.slowest_file);
  rt_session_print (s, "step %d: %u workers, slowest worker %d (%.2f s), median %.2f s, imbalance %.3f\n",
                    st->step, st->n_files, sf->worker, b.total_max, b.total_median, b.imbalance);
  rt_session_print (s, "  generation: slowest async_generate / median = %.3f\n", b.generation_imbalance);
  g_autoptr (GArray) barrier = rt_view_event_values (t, si, RT_EV_BARRIER_WAIT);
  rt_session_print (s, "  barrier wait: %.2f s on the slowest worker, %.2f s on average\n",
                    rt_view_file_value (sf, RT_EV_BARRIER_WAIT),
                    rt_mean (rt_samples_data (barrier), barrier->len));
  return plot_step (s, si, &b, error) ? 0 : 1;
}

static int
run_all_steps (RtSession *s, GError **error)
{
  const RtTrace *t = s->trace;
  g_autoptr (GArray) selected = rt_session_selected_steps (s);
  const char *cols[] = { "step", "slowest_worker", "total_max_s", "total_median_s", "imbalance",
                         "generation_imbalance", NULL };
  g_autoptr (GString) tsv = rt_tsv_new (cols);
  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_key (w, "steps");
  rt_jw_begin_array (w);
  g_autoptr (GArray) shown = g_array_new (FALSE, FALSE, sizeof (guint));
  double worst = 0;
  gint32 worst_step = -1;
  for (guint i = 0; i < selected->len; i++)
    {
      guint si = g_array_index (selected, guint, i);
      StepBalance b;
      step_balance (t, si, &b);
      if (b.slowest_file < 0)
        continue;
      gint32 step = rt_trace_step (t, si)->step, worker = rt_trace_file (t, b.slowest_file)->worker;
      g_array_append_val (shown, si);
      rt_jw_begin_object (w);
      rt_jw_member_int (w, "step", step);
      rt_jw_member_int (w, "slowest_worker", worker);
      rt_jw_member_number (w, "total_max", b.total_max);
      rt_jw_member_number (w, "total_median", b.total_median);
      rt_jw_member_number (w, "imbalance", b.imbalance);
      rt_jw_member_number (w, "generation_imbalance", b.generation_imbalance);
      rt_jw_end_object (w);
      rt_tsv_int (tsv, step, FALSE);
      rt_tsv_int (tsv, worker, FALSE);
      rt_tsv_num (tsv, b.total_max, FALSE);
      rt_tsv_num (tsv, b.total_median, FALSE);
      rt_tsv_num (tsv, b.imbalance, FALSE);
      rt_tsv_num (tsv, b.generation_imbalance, TRUE);
      if (b.imbalance > worst)
        {
          worst = b.imbalance;
          worst_step = step;
        }
    }
  rt_jw_end_array (w);
  rt_jw_end_object (w);
  if (shown->len == 0)
    return rt_session_no_data (s, "no step has a total_step_duration line");
  rt_session_print (s, "%u steps; the largest imbalance is %.3f at step %d (rt-workers %s --step %d)\n",
                    shown->len, worst, worst_step, t->path, worst_step);

  if (!rt_session_write (s, "workers_steps.tsv", tsv, error))
    return 1;
  g_autofree char *xtics = rt_session_step_xtics (s, shown);
  g_autofree char *steps = rt_session_describe_step_indices (s, shown);
  g_autofree char *what = g_strdup_printf ("worker imbalance per step, %s", steps);
  const char *vars[] = { "XTICS", xtics, NULL };
  return rt_session_plot (s, "workers-steps", "workers_steps", what, vars, error) ? 0 : 1;
}

static int
run (RtSession *s, GError **error)
{
  if (opt_step == NULL)
    return run_all_steps (s, error);
  guint si;
  if (!rt_session_resolve_step (s, opt_step, &si, error))
    return 0;   /* the error decides the exit status */
  return run_step (s, si, error);
}

int
main (int argc, char **argv)
{
  static const GOptionEntry entries[] = {
    { "step", 0, 0, G_OPTION_ARG_STRING, &opt_step, "Show every worker of step N (or of the slowest step: --step slowest)", "N" },
    G_OPTION_ENTRY_NULL
  };
  static const RtCommand cmd = {
    .name = "rt-workers",
    .parameters = "EXP",
    .summary = "With --step N: the step-level sections of every worker (a chart per worker and\n"
               "one of all side by side), the slowest worker marked as the critical path,\n"
               "imbalance = slowest total / median total, and each worker's request count,\n"
               "request p50 and max. Without --step: slowest worker and imbalance per step.",
    .description = "JSON with --step: {\"step\", \"workers\": [{\"worker\", \"total_s\", \"events\": {event:\n"
                   "seconds}, \"requests\", \"request_p50\", \"request_max\"}], \"slowest_worker\",\n"
                   "\"total_max\", \"total_median\", \"imbalance\"}; without: {\"steps\": [{\"step\",\n"
                   "\"slowest_worker\", \"total_max\", \"total_median\", \"imbalance\"}]}.\n\n"
                   "Examples:\n  rt-workers logs/exp --step 3\n  rt-workers logs/exp --steps 100-200",
    .entries = entries,
    .run = run,
    .flags = RT_COMMAND_LOADS_TRACE | RT_COMMAND_WRITES_PLOTS,
    .min_args = 1,
    .max_args = 1,
  };
  return rt_command_main (&cmd, argc, argv);
}
