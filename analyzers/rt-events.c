/* rt-events: what share of each step every step-level section takes, barrier wait included.
 * The share lost at the barrier is the price of the slowest rank, paid by all the others. */
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-views.h"

#include <math.h>

typedef struct {
  guint step_index;
  double total_mean_s;
  double pct[RT_N_STEP_EVENTS];   /* total_step_duration's slot is unused */
} StepShares;

/* Mean over the step's workers that have a value of the event. */
static double
worker_mean (const RtTrace *t, guint si, RtEventId event)
{
  g_autoptr (GArray) v = rt_view_event_values (t, si, event);
  return rt_mean (rt_samples_data (v), v->len);
}

static gboolean
write_plots (RtSession *s, GArray *rows, GError **error)
{
  const RtTrace *t = s->trace;
  g_autoptr (GString) tsv = g_string_new ("step\ttotal_mean_s");
  for (int e = 0; e < RT_EV_TOTAL_STEP; e++)
    g_string_append_printf (tsv, "\t%s", rt_step_event_name (e));
  g_string_append_c (tsv, '\n');
  g_autoptr (GArray) shown = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < rows->len; i++)
    {
      const StepShares *r = &g_array_index (rows, StepShares, i);
      g_array_append_val (shown, r->step_index);
      rt_tsv_int (tsv, rt_trace_step (t, r->step_index)->step, FALSE);
      rt_tsv_num (tsv, r->total_mean_s, FALSE);
      for (int e = 0; e < RT_EV_TOTAL_STEP; e++)
        rt_tsv_num (tsv, r->pct[e], e == RT_EV_TOTAL_STEP - 1);
    }

  /* the stacked areas: band e lies between the sum of the shares before it and
   * that sum plus its own (a missing share counts as 0 there) */
  g_autoptr (GString) plot = g_string_new ("plot ");
  for (int e = RT_EV_TOTAL_STEP - 1; e >= 0; e--)
    {
      g_autoptr (GString) below = g_string_new ("0");
      for (int k = 0; k < e; k++)
        g_string_append_printf (below, "+(valid(%d)?$%d:0)", k + 3, k + 3);
      g_autofree char *title = rt_gnuplot_quote (rt_step_event_name (e));
      g_string_append_printf (plot, "%sdata using 1:(%s+(valid(%d)?$%d:0)):(%s) with filledcurves lc %d title %s",
                              e == RT_EV_TOTAL_STEP - 1 ? "" : ", \\\n     ", below->str, e + 3,
                              e + 3, below->str, e + 1, title);
    }

  g_autofree char *steps = rt_session_describe_step_indices (s, shown);
  g_autofree char *what_pct = g_strdup_printf ("share of the step per section, %s", steps);
  g_autofree char *what_stacked = g_strdup_printf ("share of the step per section (stacked), %s", steps);
  g_autofree char *xtics = rt_session_step_xtics (s, shown);
  g_autofree char *lastcol = g_strdup_printf ("%d", RT_EV_TOTAL_STEP + 2);
  const char *vars[] = { "XTICS", xtics, "LASTCOL", lastcol, "PLOT", plot->str, NULL };
  return rt_session_write (s, "events.tsv", tsv, error)
         && rt_session_plot_data (s, "events-pct", "events_pct", "events", what_pct, vars, error)
         && rt_session_plot_data (s, "events-stacked", "events_stacked", "events", what_stacked, vars, error);
}

static int
run (RtSession *s, GError **error)
{
  const RtTrace *t = s->trace;
  g_autoptr (GArray) selected = rt_session_selected_steps (s);
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (StepShares));
  for (guint i = 0; i < selected->len; i++)
    {
      StepShares r = { .step_index = g_array_index (selected, guint, i) };
      r.total_mean_s = worker_mean (t, r.step_index, RT_EV_TOTAL_STEP);
      if (isnan (r.total_mean_s) || r.total_mean_s <= 0)
        continue;   /* no total_step_duration: no share to compute */
      for (int e = 0; e < RT_EV_TOTAL_STEP; e++)
        r.pct[e] = worker_mean (t, r.step_index, e) / r.total_mean_s * 100;
      g_array_append_val (rows, r);
    }

  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_key (w, "steps");
  rt_jw_begin_array (w);
  double barrier_sum = 0;
  guint barrier_n = 0;
  for (guint i = 0; i < rows->len; i++)
    {
      const StepShares *r = &g_array_index (rows, StepShares, i);
      rt_jw_begin_object (w);
      rt_jw_member_int (w, "step", rt_trace_step (t, r->step_index)->step);
      rt_jw_member_number (w, "total_mean_s", r->total_mean_s);
      rt_jw_key (w, "pct");
      rt_jw_begin_object (w);
      for (int e = 0; e < RT_EV_TOTAL_STEP; e++)
        rt_jw_member_number (w, rt_step_event_name (e), r->pct[e]);
      rt_jw_end_object (w);
      rt_jw_end_object (w);
      if (!isnan (r->pct[RT_EV_BARRIER_WAIT]))
        {
          barrier_sum += r->pct[RT_EV_BARRIER_WAIT];
          barrier_n++;
        }
    }
  rt_jw_end_array (w);
  rt_jw_end_object (w);

  if (rows->len == 0)
    return rt_session_no_data (s, "no step has a total_step_duration line");
  rt_session_print (s, "%u steps; mean share of a step:\n", rows->len);
  for (int e = 0; e < RT_EV_TOTAL_STEP; e++)
    {
      double sum = 0;
      guint n = 0;
      for (guint i = 0; i < rows->len; i++)
        {
          double v = g_array_index (rows, StepShares, i).pct[e];
          if (!isnan (v))
            {
              sum += v;
              n++;
            }
        }
      if (n > 0 && sum / n >= 0.05)
        rt_session_print (s, "  %-30s %6.2f %%\n", rt_step_event_name (e), sum / n);
    }
  if (barrier_n)
    rt_session_print (s, "waiting at the barrier for the slowest rank costs %.1f %% of a step on average\n",
                      barrier_sum / barrier_n);
  return write_plots (s, rows, error) ? 0 : 1;
}

int
main (int argc, char **argv)
{
  static const RtCommand cmd = {
    .name = "rt-events",
    .parameters = "EXP",
    .summary = "Per step, each step-level section's share of the step: mean over workers of\n"
               "the section / mean over workers of total_step_duration x 100, as lines and as\n"
               "a stacked area.",
    .description = "JSON (--json): {\"steps\": [{\"step\", \"total_mean_s\", \"pct\": {event: percent}}]}\n"
                   "(total_step_duration itself is not in pct; a section no worker logged is null)\n\n"
                   "Example: rt-events logs/exp --steps 1-100",
    .run = run,
    .flags = RT_COMMAND_LOADS_TRACE | RT_COMMAND_WRITES_PLOTS,
    .min_args = 1,
    .max_args = 1,
  };
  return rt_command_main (&cmd, argc, argv);
}
