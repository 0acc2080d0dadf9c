/* SPDX-License-Identifier: Apache-2.0 */
/* rt-workers: where each rank spends a step, and which rank everyone waits for.
 * With --step, every worker's step-level sections; without, every step's straggler. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-plots.h"
#include "rolltrace/rt-rollouts.h"
#include "rolltrace/rt-views.h"

#include <math.h>

/* Without --step only the files' step-level sums are read: no request, no turn (a load
 * from the cache then leaves their tables in it). */
static gboolean
runs (const RtSession *s, const RtAnalysisSpec *analysis)
{
  return (analysis == &rt_workers_step_analysis) == (s->step != NULL);
}

static int
run_step (RtSession *s, guint si, GError **error)
{
  g_autoptr (RtWorkersStep) ws = rt_workers_step_analyse (s->trace, si);
  g_autoptr (RtTable) table = rt_workers_step_table (ws);
  const RtStepBalance *b = &ws->balance;

  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_session_json_step (s, b->step);
  rt_jw_key (w, "workers");
  rt_table_write_json (table, w);
  rt_jw_key (w, "slowest_worker");
  if (b->slowest_file >= 0)
    rt_jw_int (w, b->slowest_worker);
  else
    rt_jw_null (w);
  rt_jw_member_number (w, "total_max", b->total_max);
  rt_jw_member_number (w, "total_median", b->total_median);
  rt_jw_member_number (w, "generation_max", b->generation_max);
  rt_jw_member_number (w, "generation_median", b->generation_median);
  rt_jw_member_number (w, "imbalance", b->imbalance);
  rt_jw_member_number (w, "total_imbalance", b->total_imbalance);
  rt_jw_end_object (w);

  if (b->slowest_file < 0)
    return rt_session_no_data (s, "step %d has no total_step_duration and no async_generate_duration line", b->step);
  if (b->by_generation)
    rt_session_print (s, "step %d: %u workers; the straggler is worker %d: it generated for %.2f s against a "
                      "median of %.2f s (imbalance %.3f)\n", b->step, ws->workers->len, b->slowest_worker,
                      b->generation_max, b->generation_median, b->imbalance);
  else
    rt_session_print (s, "step %d: %u workers, none logged generation; the straggler by total_step_duration is "
                      "worker %d (%.2f s, median %.2f s, imbalance %.3f)\n", b->step, ws->workers->len,
                      b->slowest_worker, b->total_max, b->total_median, b->imbalance);
  rt_session_print (s, "  total_step_duration: longest %.2f s, median %.2f s (%.3f: the barrier evens it out)\n",
                    b->total_max, b->total_median, b->total_imbalance);
  rt_session_print (s, "  barrier wait: %.2f s on the straggler, %.2f s on average\n",
                    ws->barrier_slowest_s, ws->barrier_mean_s);
  return rt_plot_workers_step (s, ws, TRUE, error) ? 0 : 1;
}

static int
run_all_steps (RtSession *s, GError **error)
{
  const RtTrace *t = s->trace;
  g_autoptr (RtWorkers) workers = rt_workers_analyse (t, s->steps);
  g_autoptr (RtTable) table = rt_workers_steps_table (workers);
  rt_session_json_rows (s, "steps", table);
  if (workers->steps->len == 0)
    return rt_session_no_data (s, "no step has a total_step_duration line");
  /* the trainer's step beside the folder's, when --train gave it */
  gboolean train = FALSE;
  for (guint i = 0; i < workers->steps->len; i++)
    train = train || rt_trace_train_step (t, g_array_index (workers->steps, RtStepBalance, i).step) >= 0;
  rt_session_print (s, "step%s  straggler  generation_s  median_s  imbalance\n", train ? "  train" : "");
  for (guint i = 0; i < workers->steps->len; i++)
    {
      const RtStepBalance *b = &g_array_index (workers->steps, RtStepBalance, i);
      gint32 ts = rt_trace_train_step (t, b->step);
      g_autofree char *train_cell = !train ? g_strdup ("") : ts >= 0 ? g_strdup_printf ("  %5d", ts) : g_strdup ("      -");
      if (b->by_generation)
        rt_session_print (s, "%4d%s  %9d  %12.2f  %8.2f  %9.3f\n", b->step, train_cell, b->slowest_worker,
                          b->generation_max, b->generation_median, b->imbalance);
      else
        rt_session_print (s, "%4d%s  %9d  %12s  %8s  %9.3f  (by total_step_duration: no generation logged)\n",
                          b->step, train_cell, b->slowest_worker, "-", "-", b->imbalance);
    }
  rt_session_print (s, "%u steps; the largest imbalance is %.3f at step %d (rt-workers %s --step %d)\n",
                    workers->steps->len, workers->worst_imbalance, workers->worst_step, t->path,
                    workers->worst_step);

  return rt_plot_workers_steps (s, workers, error) ? 0 : 1;
}

static int
run (RtSession *s, GError **error)
{
  if (s->step == NULL)
    return run_all_steps (s, error);
  guint si;
  if (!rt_session_resolve_step (s, &si, error))
    return 0;   /* the error decides the exit status */
  return run_step (s, si, error);
}

int
main (int argc, char **argv)
{
  static const GOptionEntry entries[] = {
    G_OPTION_ENTRY_NULL
  };
  static const RtAnalysisSpec *const analyses[] = { &rt_workers_steps_analysis, &rt_workers_step_analysis, NULL };
  static const RtCommand cmd = {
    .name = "rt-workers",
    .parameters = "EXP",
    .summary = "The straggler: the rank the others wait for at the barrier, the one that generated\n"
               "longest (async_generate_duration summed over its file; when no rank logged generation,\n"
               "the longest total_step_duration; ties to the lower rank), and imbalance = its time over\n"
               "the median rank's. Without --step: per step its straggler, generation time and\n"
               "imbalance. With --step N: every worker's step-level sections (a chart per worker and\n"
               "one of all side by side, the straggler marked as the critical path) and each worker's\n"
               "request count, request p50 and max.",
    .description = "JSON with --step: {\"step\", \"workers\": [workers_step rows], \"slowest_worker\" (the\n"
                   "straggler), \"total_max\", \"total_median\", \"generation_max\", \"generation_median\",\n"
                   "\"imbalance\", \"total_imbalance\"}; without:\n"
                   "{\"steps\": [workers_steps rows]}.\n\n"
                   "Examples:\n  rt-workers logs/exp --step 3\n  rt-workers logs/exp --steps 100-200",
    .entries = entries,
    .analyses = analyses,
    .runs = runs,
    .step_help = "The step to show, among those --steps selects (or \"slowest\": the longest rollout)",
    .run = run,
    .flags = RT_COMMAND_ANALYZER,
  };
  return rt_command_main (&cmd, argc, argv);
}
