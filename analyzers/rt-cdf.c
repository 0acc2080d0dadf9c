/* rt-cdf: the distribution of request durations (or of any event) per step and over all steps.
 * The tail is the question: P50 to P99.9 are marked on the plot and printed. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-plots.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-views.h"

#include <math.h>


static char **opt_events;

/* Request durations come from the request table: only --event reads the event rows. */
static gboolean
rows_unread (void)
{
  return opt_events == NULL;
}

static void
write_event_json (RtJsonWriter *w, const RtCdfEvent *c)
{
  g_autoptr (RtTable) steps = rt_cdf_steps_table (c);
  g_autoptr (RtTable) all = rt_cdf_all_table (c);
  rt_jw_begin_object (w);
  rt_jw_member_string (w, "event", c->event);
  rt_jw_key (w, "steps");
  rt_table_write_json (steps, w);
  rt_jw_key (w, "all");
  rt_table_write_json_row (all, 0, w);
  rt_jw_end_object (w);
}

static int
run (RtSession *s, GError **error)
{
  g_autoptr (RtCdf) cdf = rt_cdf_analyse (s->trace, s->steps, (const char *const *) opt_events);
  GPtrArray *cdfs = cdf->events;

  RtJsonWriter *w = rt_session_json (s);
  if (cdfs->len == 1)
    write_event_json (w, g_ptr_array_index (cdfs, 0));
  else
    {
      rt_jw_begin_object (w);
      rt_jw_key (w, "events");
      rt_jw_begin_array (w);
      for (guint i = 0; i < cdfs->len; i++)
        write_event_json (w, g_ptr_array_index (cdfs, i));
      rt_jw_end_array (w);
      rt_jw_end_object (w);
    }

  gboolean any = FALSE;
  for (guint i = 0; i < cdfs->len; i++)
    {
      const RtCdfEvent *c = g_ptr_array_index (cdfs, i);
      if (c->all->len == 0)
        {
          rt_session_no_data (s, "no %s values with a duration in the selected steps", c->event);
          continue;
        }
      any = TRUE;
      const RtSummary sum = c->all_summary;
      rt_session_print (s, "%s over %u steps: %u values\n", c->event, c->steps->len, sum.count);
      rt_session_print (s, "  mean %.3f s  std %.3f s  min %.3f s  max %.3f s\n", sum.mean, sum.std,
                        sum.min, sum.max);
      rt_session_print (s, "  P50 %.3f  P80 %.3f  P90 %.3f  P95 %.3f  P99 %.3f  P99.9 %.3f s\n",
                        sum.p50, sum.p80, sum.p90, sum.p95, sum.p99, sum.p999);
    }
  if (!any)
    return 1;
  return rt_plot_cdf (s, cdf, RT_PLOT_CDF_STEP_POINTS, error) ? 0 : 1;
}

int
main (int argc, char **argv)
{
  static const GOptionEntry entries[] = {
    { "event", 'e', 0, G_OPTION_ARG_STRING_ARRAY, &opt_events,
      "Event whose durations to plot (repeat to overlay; older names accepted; "
      "default async_rollout_request_complete)", "NAME" },
    G_OPTION_ENTRY_NULL
  };
  static const RtTableSpec *const tables[] = { &rt_cdf_steps_spec, &rt_cdf_all_spec, NULL };
  static const RtCommand cmd = {
    .name = "rt-cdf",
    .parameters = "EXP",
    .summary = "CDF of request durations (duration_sec of async_rollout_request_complete)\n"
               "per selected step and over all selected steps, with P50/P80/P90/P95/P99/P99.9\n"
               "marked. With --event, the durations of other events: a step-level event gives\n"
               "one value per worker file (its sum), any other one value per line.",
    .description = "Writes cdf.tsv (the CDF points), cdf.gp and the rendered plot into --out.\n"
                   "JSON (--json): {\"event\", \"steps\": [cdf_steps rows], \"all\": {a cdf_all row}};\n"
                   "with several --event: {\"events\": [that, ...]}.\n\n"
                   "Examples:\n  rt-cdf logs/exp\n  rt-cdf logs/exp --steps 10-20 --event turn_engine_call --event tool_execution",
    .entries = entries,
    .tables = tables,
    .run = run,
    .flags = RT_COMMAND_ANALYZER,
    .rows_unread = rows_unread,
  };
  return rt_command_main (&cmd, argc, argv);
}
