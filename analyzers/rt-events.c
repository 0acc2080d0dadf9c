/* rt-events: what share of each step every step-level section takes, barrier wait included.
 * The share lost at the barrier is the price of the slowest rank, paid by all the others. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-views.h"

#include <math.h>

static gboolean
write_plots (RtSession *s, const RtEvents *ev, const RtTable *table, GError **error)
{
  g_autoptr (GArray) shown = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < ev->steps->len; i++)
    g_array_append_val (shown, g_array_index (ev->steps, RtEventsStep, i).step_index);

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
  return rt_session_write_table (s, table, "events", error)
         && rt_session_plot_data (s, "events-pct", "events_pct", "events", what_pct, vars, error)
         && rt_session_plot_data (s, "events-stacked", "events_stacked", "events", what_stacked, vars, error);
}

static int
run (RtSession *s, GError **error)
{
  g_autoptr (RtEvents) ev = rt_events_analyse (s->trace, s->steps);
  g_autoptr (RtTable) table = rt_events_table (ev);

  rt_session_json_rows (s, "steps", table);

  if (ev->steps->len == 0)
    return rt_session_no_data (s, "no step has a total_step_duration line");
  rt_session_print (s, "%u steps; mean share of a step:\n", ev->steps->len);
  for (int e = 0; e < RT_EV_TOTAL_STEP; e++)
    if (ev->mean_pct[e] >= 0.05)   /* NAN (no step has it) is left out too */
      rt_session_print (s, "  %-30s %6.2f %%\n", rt_step_event_name (e), ev->mean_pct[e]);
  if (!isnan (ev->barrier_pct))
    rt_session_print (s, "waiting at the barrier for the slowest rank costs %.1f %% of a step on average\n",
                      ev->barrier_pct);
  return write_plots (s, ev, table, error) ? 0 : 1;
}

int
main (int argc, char **argv)
{
  static const RtTableSpec *const tables[] = { &rt_events_spec, NULL };
  static const RtCommand cmd = {
    .name = "rt-events",
    .parameters = "EXP",
    .summary = "Per step, each step-level section's share of the step: mean over workers of\n"
               "the section / mean over workers of total_step_duration x 100, as lines and as\n"
               "a stacked area.",
    .description = "JSON (--json): {\"steps\": [events rows]} (total_step_duration itself is not\n"
                   "in pct; a section no worker logged is null); events.tsv has the same rows.\n\n"
                   "Example: rt-events logs/exp --steps 1-100",
    .tables = tables,
    .run = run,
    .flags = RT_COMMAND_ANALYZER,
  };
  return rt_command_main (&cmd, argc, argv);
}
