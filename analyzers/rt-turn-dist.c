/* SPDX-License-Identifier: Apache-2.0 */
/* rt-turn-dist: how many turns requests take, step by step, and what each extra turn costs.
 * A shift towards longer conversations explains a slower rollout before any profiler does. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-plots.h"

static int
run (RtSession *s, GError **error)
{
  g_autoptr (RtTurnDist) d = rt_turn_dist_analyse (s->trace, s->steps);
  g_autoptr (RtTable) steps = rt_turn_dist_steps_table (d);
  g_autoptr (RtTable) all = rt_turn_dist_bins_table (d->all);

  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_key (w, "steps");
  rt_table_write_json (steps, w);
  rt_jw_key (w, "all");
  rt_table_write_json (all, w);
  rt_jw_end_object (w);

  if (d->steps->len == 0)
    return rt_session_no_data (s, "no completed request in the selected steps");
  rt_session_print (s, "turns  requests  mean duration (all selected steps)\n");
  for (guint n = 0; n < d->all->len; n++)
    {
      const RtTurnBin *b = &g_array_index (d->all, RtTurnBin, n);
      rt_session_print (s, "%5d %9u %10.2f s\n", b->turns, b->count, b->mean_s);
    }
  return rt_plot_turn_dist (s, d, error) ? 0 : 1;
}

int
main (int argc, char **argv)
{
  static const RtAnalysisSpec *const analyses[] = { &rt_turn_dist_analysis, NULL };
  static const RtCommand cmd = {
    .name = "rt-turn-dist",
    .parameters = "EXP",
    .summary = "Per step, how many requests took 1, 2, 3... turns (the `turns` of\n"
               "async_rollout_request_complete; stacked bars) and their mean duration (a line\n"
               "per number of turns).",
    .description = "JSON (--json): {\"steps\": [turn_dist_steps rows], \"all\": [turn_dist_bins rows]}\n\n"
                   "Example: rt-turn-dist logs/exp",
    .analyses = analyses,
    .run = run,
    .flags = RT_COMMAND_ANALYZER,
  };
  return rt_command_main (&cmd, argc, argv);
}
