/* SPDX-License-Identifier: Apache-2.0 */
/* rt-timeline: one step on a time line: a Gantt of every request split into its phases under each
 * worker's step-level sections, the requests in flight, and when the last 10 % of them finished. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-plots.h"

#include "rolltrace/rt-error.h"

#include <math.h>
#include <string.h>

static char *opt_worker, *opt_from, *opt_to;
static gboolean opt_all_zooms;
static void
write_json (RtSession *s, const RtTimeline *tl)
{
  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  if (tl->has_step)
    rt_session_json_step (s, tl->step);
  else
    {
      rt_jw_key (w, "step");
      rt_jw_null (w);
    }
  rt_jw_member_number (w, "end_s", tl->end_s);
  rt_jw_key (w, "requests");
  tl->found ? rt_jw_int (w, tl->requests) : rt_jw_null (w);
  rt_jw_member_number (w, "t50_s", tl->t50_s);
  rt_jw_member_number (w, "t90_s", tl->t90_s);
  rt_jw_member_number (w, "t99_s", tl->t99_s);
  rt_jw_member_number (w, "t100_s", tl->t100_s);
  rt_jw_member_number (w, "tail_share", tl->tail_share);
  rt_jw_key (w, "peak_in_flight");
  tl->found ? rt_jw_int (w, tl->peak_in_flight) : rt_jw_null (w);
  g_autoptr (RtTable) workers = rt_timeline_workers_table (tl);
  rt_jw_key (w, "workers");
  rt_table_write_json (workers, w);
  rt_jw_end_object (w);
}

static void
print_summary (RtSession *s, const RtTimeline *tl)
{
  rt_session_print (s, "step %d: %u request%s; times in seconds from the step's start, which ends at %.2f s\n",
                    tl->step, tl->requests, tl->requests == 1 ? "" : "s", tl->end_s);
  rt_session_print (s, "  finished: 50%% by %.2f s, 90%% by %.2f s, 99%% by %.2f s, all by %.2f s\n",
                    tl->t50_s, tl->t90_s, tl->t99_s, tl->t100_s);
  if (!isnan (tl->tail_share))
    rt_session_print (s, "  tail: the last 10%% of the requests took %.1f%% of the rollout (tail_share %.4f)\n",
                      100 * tl->tail_share, tl->tail_share);
  rt_session_print (s, "  peak in flight: %u\n", tl->peak_in_flight);
  rt_session_print (s, "  %8s %9s %9s %9s %6s %7s %10s\n", "worker", "start_s", "end_s", "requests", "peak",
                    "busy", "barrier_s");
  for (guint i = 0; i < tl->workers->len; i++)
    {
      const RtTimelineWorker *w = &g_array_index (tl->workers, RtTimelineWorker, i);
      char start[32], end[32], busy[32], barrier[32];
      rt_session_print (s, "  %8d %9s %9s %9u %6u %7s %10s\n", w->worker, rt_summary_cell (start, "%.2f", w->start_s),
                        rt_summary_cell (end, "%.2f", w->end_s), w->requests, w->peak_in_flight,
                        rt_summary_cell (busy, "%.1f%%", 100 * w->busy_share), rt_summary_cell (barrier, "%.2f", w->barrier_s));
    }
}

/* The worker numbers of the step that --worker names (NULL: no --worker, all). */
static gboolean
wanted_workers (const RtTimeline *tl, const RtStepSet *set, GArray **out, GError **error)
{
  *out = NULL;
  if (opt_worker == NULL)
    return TRUE;
  *out = g_array_new (FALSE, FALSE, sizeof (gint32));
  for (guint i = 0; i < tl->workers->len; i++)
    {
      gint32 worker = g_array_index (tl->workers, RtTimelineWorker, i).worker;
      if (rt_step_set_contains (set, worker))
        g_array_append_val (*out, worker);
    }
  if ((*out)->len == 0)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "--worker %s: step %d has no such worker file",
                   opt_worker, tl->step);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_seconds (const char *option, const char *value, double *out, GError **error)
{
  *out = NAN;
  if (value == NULL)
    return TRUE;
  char *end = NULL;
  double v = g_ascii_strtod (value, &end);
  if (end == value || *end != '\0' || !isfinite (v))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "%s %s: seconds from the step's start expected", option, value);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

static gboolean
plot_all (RtSession *s, const RtTimeline *tl, GArray *workers, double from_s, double to_s, GError **error)
{
  g_autofree char *name = g_strdup_printf ("timeline_step_%d", tl->step);
  g_autofree char *first = g_strdup_printf ("timeline_step_%d_first_60s", tl->step);
  g_autofree char *tail = g_strdup_printf ("timeline_step_%d_tail", tl->step);
  g_autofree char *window = g_strdup_printf ("%s to %s s", opt_from ? opt_from : "start", opt_to ? opt_to : "end");
  gboolean zoomed = opt_from != NULL || opt_to != NULL;
  RtTimelineGantt gantts[3];
  guint n = 0;
  gantts[n++] = (RtTimelineGantt) { name, zoomed ? window : "", from_s, to_s };
  if (opt_all_zooms)
    gantts[n++] = (RtTimelineGantt) { first, "its first 60 s", 0, 60 };
  if (!zoomed && tl->t90_s < tl->end_s)
    gantts[n++] = (RtTimelineGantt) { tail, "its tail (from 90 % of requests finished)", tl->t90_s, tl->end_s };
  if (!rt_plot_timeline (s, tl, workers, opt_worker, gantts, n, TRUE, error))
    return FALSE;
  g_autoptr (RtTable) per_worker = rt_timeline_workers_table (tl);
  g_autofree char *workers_name = g_strdup_printf ("timeline_workers_step_%d", tl->step);
  return rt_session_write_table (s, per_worker, workers_name, error);
}

static int
run (RtSession *s, GError **error)
{
  guint si;
  double from_s, to_s;
  if (!rt_session_resolve_step (s, &si, error)
      || !parse_seconds ("--from", opt_from, &from_s, error) || !parse_seconds ("--to", opt_to, &to_s, error))
    return 0;   /* the error decides the exit status */
  g_autoptr (RtStepSet) worker_set = rt_number_set_parse (opt_worker, "--worker", error);
  if (worker_set == NULL)
    return 0;
  if (from_s >= to_s || (opt_all_zooms && (opt_from || opt_to)))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE, opt_all_zooms ? "--all-zooms draws its own windows: no --from/--to with it"
                                                                  : "--from must be before --to");
      return 0;
    }

  g_autoptr (RtTimeline) tl = rt_timeline_analyse (s->trace, s->steps, rt_trace_step (s->trace, si)->step);
  write_json (s, tl);
  if (tl->requests == 0)
    return rt_session_no_data (s, "step %d has no completed request with a duration and a time", tl->step);
  g_autoptr (GArray) workers = NULL;
  if (!wanted_workers (tl, worker_set, &workers, error))
    return 0;
  print_summary (s, tl);
  return plot_all (s, tl, workers, from_s, to_s, error) ? 0 : 1;
}

int
main (int argc, char **argv)
{
  static const GOptionEntry entries[] = {
    { "worker", 'w', 0, G_OPTION_ARG_STRING, &opt_worker,
      "Only these workers in the plots (\"3\", \"0-7\", \"1,4\"); the JSON keeps them all", "LIST" },
    { "from", 0, 0, G_OPTION_ARG_STRING, &opt_from, "The Gantt from S seconds after the step's start", "S" },
    { "to", 0, 0, G_OPTION_ARG_STRING, &opt_to, "The Gantt up to S seconds after the step's start", "S" },
    { "all-zooms", 0, 0, G_OPTION_ARG_NONE, &opt_all_zooms,
      "Also the first 60 s as a Gantt of its own (without --from and --to, the whole step and its "
      "tail are drawn too)", NULL },
    G_OPTION_ENTRY_NULL
  };
  static const RtAnalysisSpec *const analyses[] = { &rt_timeline_analysis, NULL };
  static const RtCommand cmd = {
    .name = "rt-timeline",
    .parameters = "EXP",
    .summary = "One step on a time line: a Gantt with a lane per request, grouped by worker under a\n"
               "band of the worker's step-level sections, each request split into its phases and\n"
               "the gaps between them (waiting); the requests in flight per worker and in total;\n"
               "and when 50, 90, 99 and 100 % of the requests had finished. Times are seconds from\n"
               "the step's start (its earliest line's timestamp - duration_sec), never wall-clock\n"
               "dates: the loggers' clocks have no time zone and differ between hosts.",
    .description = "Plots: timeline_step_N (the whole step, or --from/--to), timeline_step_N_tail (from\n"
                   "the moment 90 % of the requests had finished), timeline_step_N_first_60s (with\n"
                   "--all-zooms) and inflight_step_N. Above 400 requests a Gantt draws one thin line\n"
                   "per request without its phases (split with --worker). timeline_workers_step_N.tsv\n"
                   "holds the JSON \"workers\".\n\n"
                   "JSON (--json): {\"step\", \"end_s\" (the step's last timestamp), \"requests\", \"t50_s\",\n"
                   "\"t90_s\", \"t99_s\", \"t100_s\" (with the n request ends ascending e_1..e_n, t_p = e_k,\n"
                   "k = ceil(p n / 100)), \"tail_share\" ((t100 - t90) / t100), \"peak_in_flight\" (ends\n"
                   "before starts at equal instants), \"workers\": [timeline_workers rows]}. A request is\n"
                   "an async_rollout_request_complete line with a duration and a timestamp, alive over\n"
                   "[end - duration, end). Exit status 1, with nulls: no selected step has a rollout\n"
                   "time (\"step\" null), the step asked is not selected or not in the trace; exit 1 too\n"
                   "for a step without a request.\n\n"
                   "Examples:\n  rt-timeline logs/exp\n  rt-timeline logs/exp --step 7 --worker 0-3 --from 100 --to 160\n"
                   "  rt-timeline logs/exp --steps 10-20 --all-zooms",
    .entries = entries,
    .analyses = analyses,
    .step_help = "The step to show among those --steps selects (default, or \"slowest\": the longest rollout)",
    .run = run,
    .flags = RT_COMMAND_ANALYZER,
  };
  return rt_command_main (&cmd, argc, argv);
}
