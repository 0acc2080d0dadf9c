/* SPDX-License-Identifier: Apache-2.0 */
/* rt-turns: how long each turn of a conversation takes, by turn index.
 * The turn that explodes (usually a late engine call on a long context) shows up here. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-plots.h"

static int
run (RtSession *s, GError **error)
{
  g_autoptr (RtTurns) turns = rt_turns_analyse (s->trace, s->steps);
  g_autoptr (RtTable) table = rt_turns_table (turns);
  rt_session_json_rows (s, "turns", table);

  guint shown = turns->turns->len;
  if (shown == 0)
    {
      return rt_session_no_data (s, "no turn timings: neither turn_timings in async_rollout_request_complete "
                                 "nor turn_end lines (the older logger writes neither)");
    }
  rt_session_print (s, "turn  count   engine_call   total (mean s)\n");
  for (guint i = 0; i < shown; i++)
    {
      const RtTurnsRow *row = &g_array_index (turns->turns, RtTurnsRow, i);
      rt_session_print (s, "%4d %6u %13.3f %8.3f\n", row->turn, row->count, row->mean_s[RT_TURN_ENGINE_CALL],
                        row->mean_s[RT_TURN_TOTAL]);
    }

  return rt_plot_turns (s, turns, error) ? 0 : 1;
}

int
main (int argc, char **argv)
{
  static const RtAnalysisSpec *const analyses[] = { &rt_turns_analysis, NULL };
  static const RtCommand cmd = {
    .name = "rt-turns",
    .parameters = "EXP",
    .summary = "Per turn index (0-based): mean pre-process, engine call, post-process, tool\n"
               "parsing and total time, and the number of turn records. Source: the turn_timings\n"
               "of each async_rollout_request_complete; for requests without them, their\n"
               "turn_end lines.",
    .description = "JSON (--json): {\"turns\": [turns rows]}; turns.tsv has the same rows. Exit\n"
                   "status 1 when the trace has no turn timings (older logger).\n\n"
                   "Example: rt-turns logs/exp --steps 1-50",
    .analyses = analyses,
    .run = run,
    .flags = RT_COMMAND_ANALYZER,
  };
  return rt_command_main (&cmd, argc, argv);
}
