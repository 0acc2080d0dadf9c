/* SPDX-License-Identifier: Apache-2.0 */
/* rt-overview: how long each step's rollout took, and how long until the next step began.
 * The difference is the time spent outside rollout (training, weight sync): the whole step at a glance. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-rollouts.h"
#include "rolltrace/rt-plots.h"

static int
run (RtSession *s, GError **error)
{
  g_autoptr (RtOverview) o = rt_overview_analyse (s->trace, s->steps, s->train);
  g_autoptr (RtTable) table = rt_overview_table (o);

  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_key (w, "steps");
  rt_table_write_json (table, w);
  rt_jw_member_number (w, "rollout_mean", o->rollout_mean);
  rt_jw_member_number (w, "interval_mean", o->interval_mean);
  rt_jw_end_object (w);

  if (o->steps->len == 0)
    return rt_session_no_data (s, "no step has a total_step_duration line");
  rt_session_print (s, "%u steps: rollout mean %.2f s", o->steps->len, o->rollout_mean);
  if (o->n_both > 0)
    rt_session_print (s, "; over the %u step%s with an interval: interval mean %.2f s, outside rollout "
                      "%.2f s (%.0f%% of a step)", o->n_both, o->n_both == 1 ? "" : "s", o->interval_mean,
                      o->outside_mean,
                      100 * (1 - o->rollout_share));
  rt_session_print (s, "\n");
  for (guint i = 0; i < o->steps->len; i++)
    {
      const RtOverviewStep *r = &g_array_index (o->steps, RtOverviewStep, i);
      if (!r->rollout_outlier && !r->interval_outlier)
        continue;
      /* the plot numbers steps as the trainer does when --train gives its steps: so does this */
      gint32 train = rt_trace_train_step (s->trace, r->step);
      g_autofree char *also = train >= 0 && train != r->step ? g_strdup_printf (" (trainer's step %d)", train)
                                                             : g_strdup ("");
      rt_session_print (s, "  step %d%s is an outlier: rollout %.2f s, interval %.2f s\n", r->step, also,
                        r->rollout_s, r->interval_s);
    }
  return rt_plot_overview (s, o, error) ? 0 : 1;
}

int
main (int argc, char **argv)
{
  static const RtAnalysisSpec *const analyses[] = { &rt_overview_analysis, NULL };
  static const RtCommand cmd = {
    .name = "rt-overview",
    .parameters = "EXP",
    .summary = "Per step: rollout time, interval to the next step, time outside rollout. Rollout\n"
               "time is the max over workers of total_step_duration, the interval runs\n"
               "from this step's start to the next step's start, and their difference is the\n"
               "time spent outside rollout (training, syncing). Outliers beyond 2 std are marked.\n"
               "A step starts at the earliest (timestamp - duration_sec) of its lines.",
    .description = "Writes overview.tsv, overview.gp and the rendered plot into --out.\n"
                   "JSON (--json): {\"steps\": [overview rows], \"rollout_mean\", \"interval_mean\"};\n"
                   "the trainer's columns are in the JSON with --train only.\n\n"
                   "Examples:\n  rt-overview logs/exp --steps 100-\n  rt-overview logs/exp --train logs/train.log",
    .analyses = analyses,
    .run = run,
    .flags = RT_COMMAND_ANALYZER,
  };
  return rt_command_main (&cmd, argc, argv);
}
