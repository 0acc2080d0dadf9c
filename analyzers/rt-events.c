/* rt-events: what share of each step every step-level section takes, barrier wait included.
 * The share lost at the barrier is the price of the slowest rank, paid by all the others. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-plots.h"
#include "rolltrace/rt-views.h"

#include <math.h>

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
  return rt_plot_events (s, ev, error) ? 0 : 1;
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
    .rows_unread = rt_command_never_reads_rows,
    .requests_unread = rt_command_never_reads_requests,
    .turns_unread = rt_command_never_reads_turns,
  };
  return rt_command_main (&cmd, argc, argv);
}
