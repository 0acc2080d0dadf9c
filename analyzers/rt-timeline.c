/* rt-timeline: one step on a time line: a Gantt of every request split into its phases under each
 * worker's step-level sections, the requests in flight, and when the last 10 % of them finished. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"

#include "rolltrace/rt-error.h"

#include <math.h>
#include <string.h>

/* Above this many requests in one Gantt, each is a thin line without its phases. */
#define THIN_ABOVE 400

static char *opt_step, *opt_worker, *opt_from, *opt_to;
static gboolean opt_all_zooms;

/* The bars of the Gantt: what each phase of the table is drawn as. */
static const struct { const char *phase, *title, *colour; gboolean band; } bars[] = {
  { "worker", "worker file span", "#c7c7c7", TRUE },
  { "preprocessing", "step: preprocessing", "#8c564b", TRUE },
  { "generation", "step: generation", "#17becf", TRUE },
  { "barrier wait", "step: barrier wait", "#000000", TRUE },
  { "other sections", "step: other sections", "#bcbd22", TRUE },
  { "waiting", "waiting", "#e4e4e4", FALSE },
  { "pre-process", "pre-process", "#ff7f0e", FALSE },
  { "engine", "engine (generate)", "#1f77b4", FALSE },
  { "tool", "tool execution", "#2ca02c", FALSE },
  { "post-process", "post-process, parsing", "#d62728", FALSE },
  { "other", "other", "#9467bd", FALSE },
  { "unlogged", "alive, no phase logged", "#9ab7d3", FALSE },
  { "request", "request (alive)", "#1f77b4", FALSE },
};

/* Dashed verticals where 50, 90 and 99 % of the step's requests had finished. */
static char *
finish_marks (const RtTimeline *tl)
{
  const struct { const char *name; double v; } marks[] = {
    { "t50", tl->t50_s }, { "t90", tl->t90_s }, { "t99", tl->t99_s },
  };
  GString *gp = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (marks); i++)
    {
      if (isnan (marks[i].v) || (i > 0 && marks[i].v == marks[i - 1].v))
        continue;
      /* marks at one instant share a line and a label: "t90, t99" */
      g_autoptr (GString) label = g_string_new (marks[i].name);
      for (guint j = i + 1; j < G_N_ELEMENTS (marks) && marks[j].v == marks[i].v; j++)
        g_string_append_printf (label, ", %s", marks[j].name);
      g_string_append_printf (gp,
                              "set arrow from %.17g, graph 0 to %.17g, graph 1 nohead dt 2 lw 1.5 lc rgb '#555555' front\n"
                              "set label '%s' at %.17g, graph 1 offset 0, char 0.6 center tc rgb '#555555' front\n",
                              marks[i].v, marks[i].v, label->str, marks[i].v);
    }
  return g_string_free (gp, FALSE);
}

/* The bar of row `r` shows in the window [from_s, to_s] (NAN: open on that side): it overlaps
 * it, not only touches its edge; a bar of no length shows where it stands. */
static gboolean
bar_in_window (const RtTable *table, guint r, double from_s, double to_s)
{
  double start = rt_table_get_number (table, r, rt_table_find (table, "start_s"));
  double end = rt_table_get_number (table, r, rt_table_find (table, "end_s"));
  if (end <= start)
    return !(end < from_s) && !(start > to_s);
  return !(end <= from_s) && !(start >= to_s);
}

/* Which bars show in the window, as gnuplot plot clauses (the legend names only those);
 * `thin`: requests without phases. */
static char *
gantt_clauses (const RtTable *table, gboolean thin, double from_s, double to_s)
{
  int phase_col = rt_table_find (table, "phase");
  GString *gp = g_string_new (NULL);
  for (guint b = 0; b < G_N_ELEMENTS (bars); b++)
    {
      if (!bars[b].band && (strcmp (bars[b].phase, "request") == 0) != thin)
        continue;
      gboolean occurs = FALSE;
      for (guint r = 0; r < rt_table_n_rows (table) && !occurs; r++)
        occurs = g_strcmp0 (rt_table_get_text (table, r, phase_col), bars[b].phase) == 0
                 && bar_in_window (table, r, from_s, to_s);
      if (!occurs)
        continue;
      /* the worker's span is a thin line under its sections; request bars fill most of a lane */
      double half = strcmp (bars[b].phase, "worker") == 0 ? 0.06 : bars[b].band ? 0.3 : thin ? 0.3 : 0.4;
      g_string_append_printf (gp, "%sdata using (($5+$6)/2):(strcol(4) eq '%s' ? $1 : NaN):(($6-$5)/2):(%g) "
                              "with boxxyerror fc rgb '%s' title '%s'",
                              gp->len ? ", \\\n     " : "", bars[b].phase, half, bars[b].colour, bars[b].title);
    }
  return g_string_free (gp, FALSE);
}

/* "worker M" beside each worker's band */
static char *
worker_tics (const RtTable *table)
{
  int lane_col = rt_table_find (table, "lane"), worker_col = rt_table_find (table, "worker");
  int phase_col = rt_table_find (table, "phase");
  GString *tics = g_string_new (NULL);
  for (guint r = 0; r < rt_table_n_rows (table); r++)
    if (g_strcmp0 (rt_table_get_text (table, r, phase_col), "worker") == 0)
      g_string_append_printf (tics, "%s'worker %.0f' %.0f", tics->len ? ", " : "",
                              rt_table_get_number (table, r, worker_col), rt_table_get_number (table, r, lane_col));
  return g_string_free (tics, FALSE);
}

/* an end of a gnuplot range: * for none */
static char *
range_bound (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return isnan (v) ? g_strdup ("*") : g_strdup (g_ascii_dtostr (buf, sizeof buf, v));
}

/* One Gantt: the requests of `workers` alive in [from_s, to_s] (NAN: the whole step). */
static gboolean
plot_gantt (RtSession *s, const RtTimeline *tl, const GArray *workers, const char *name,
            const char *zoom, double from_s, double to_s, GError **error)
{
  g_autoptr (RtTable) table = rt_timeline_gantt_table (s->trace, tl, workers, from_s, to_s);
  guint n_rows = rt_table_n_rows (table), requests = 0, lanes = 0;
  int phase_col = rt_table_find (table, "phase"), lane_col = rt_table_find (table, "lane");
  for (guint r = 0; r < n_rows; r++)
    {
      requests += g_strcmp0 (rt_table_get_text (table, r, phase_col), "request") == 0;
      lanes = MAX (lanes, (guint) rt_table_get_number (table, r, lane_col) + 1);
    }
  gboolean thin = requests > THIN_ABOVE;
  g_autofree char *clauses = gantt_clauses (table, thin, from_s, to_s);
  g_autofree char *tics = worker_tics (table);
  g_autofree char *marks = finish_marks (tl);
  g_autofree char *from_text = range_bound (from_s), *to_text = range_bound (to_s);
  g_autofree char *xrange = g_strdup_printf ("%s:%s", from_text, to_text);
  g_autofree char *ymax = g_strdup_printf ("%u", lanes);
  int height = (int) CLAMP (180 + lanes * (thin ? 3 : 12), 600, 8000);
  g_autofree char *size = g_strdup_printf ("1400,%d", height);
  g_autofree char *on = opt_worker ? g_strdup_printf (", worker %s", opt_worker) : g_strdup ("");
  g_autofree char *what = g_strdup_printf ("step %d%s%s%s, %u requests%s", tl->step, on, *zoom ? ", " : "", zoom, requests,
                                           thin ? " (one thin line each, no phases: more than 400)" : "");
  const char *vars[] = { "XRANGE", xrange, "YMAX", ymax, "YTICS", tics, "MARKS", marks, "PLOTS", clauses,
                         "SIZE", size, NULL };
  return rt_session_write_table (s, table, name, error)
         && rt_session_plot (s, "timeline", name, what, vars, error);
}

static gboolean
plot_inflight (RtSession *s, const RtTimeline *tl, const GArray *workers, GError **error)
{
  g_autoptr (RtTable) table = rt_timeline_inflight_table (tl, workers);
  g_autofree char *name = g_strdup_printf ("inflight_step_%d", tl->step);
  guint n_workers = rt_table_n_columns (table) - 2;
  g_autofree char *lastcol = g_strdup_printf ("%u", n_workers + 2);
  /* past a dozen workers the legend would hide the plot: their lines stay, unnamed */
  const char *worker_title = n_workers <= 12 ? "title columnhead(c)" : "notitle lc rgb '#bbbbbb' lw 1";
  g_autofree char *marks = finish_marks (tl);
  g_autofree char *what = g_strdup_printf ("step %d%s%s, requests in flight", tl->step,
                                           opt_worker ? ", worker " : "", opt_worker ? opt_worker : "");
  g_autofree char *ytics = rt_gnuplot_int_tics ("ytics", 0, (gint32) MAX (tl->peak_in_flight, 1u), 10);
  const char *vars[] = { "LASTCOL", lastcol, "WORKER_TITLE", worker_title, "MARKS", marks, "YTICS", ytics, NULL };
  return rt_session_write_table (s, table, name, error)
         && rt_session_plot (s, "inflight", name, what, vars, error);
}

static void
write_json (RtSession *s, const RtTimeline *tl)
{
  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_key (w, "step");
  tl->has_step ? rt_jw_int (w, tl->step) : rt_jw_null (w);
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

/* a number of the summary's table, "-" when unknown */
static const char *
cell (char buf[32], const char *format, double v)
{
  if (isnan (v))
    return "-";
  g_snprintf (buf, 32, format, v);
  return buf;
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
      rt_session_print (s, "  %8d %9s %9s %9u %6u %7s %10s\n", w->worker, cell (start, "%.2f", w->start_s),
                        cell (end, "%.2f", w->end_s), w->requests, w->peak_in_flight,
                        cell (busy, "%.1f%%", 100 * w->busy_share), cell (barrier, "%.2f", w->barrier_s));
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
  if (!plot_gantt (s, tl, workers, name, zoomed ? window : "", from_s, to_s, error)
      || (opt_all_zooms && !plot_gantt (s, tl, workers, first, "its first 60 s", 0, 60, error))
      || (!zoomed && tl->t90_s < tl->end_s
          && !plot_gantt (s, tl, workers, tail, "its tail (from 90 % of requests finished)", tl->t90_s, tl->end_s, error)))
    return FALSE;
  g_autoptr (RtTable) per_worker = rt_timeline_workers_table (tl);
  g_autofree char *workers_name = g_strdup_printf ("timeline_workers_step_%d", tl->step);
  return plot_inflight (s, tl, workers, error) && rt_session_write_table (s, per_worker, workers_name, error);
}

static int
run (RtSession *s, GError **error)
{
  gint64 step = -1;
  double from_s, to_s;
  if ((opt_step != NULL && strcmp (opt_step, "slowest") != 0
       && !rt_parse_int_option ("--step", opt_step, 0, G_MAXINT32, &step, error))
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

  g_autoptr (RtTimeline) tl = rt_timeline_analyse (s->trace, s->steps, (gint32) step);
  write_json (s, tl);
  if (!tl->has_step)
    return rt_session_no_data (s, "no selected step has a total_step_duration line; choose one with --step N");
  if (!tl->found)
    return rt_session_no_data (s, "step %d is not %s", tl->step,
                               rt_trace_find_step (s->trace, tl->step) < 0 ? "in the trace" : "among the steps selected");
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
    { "step", 0, 0, G_OPTION_ARG_STRING, &opt_step,
      "The step to show among those --steps selects (default, or \"slowest\": the longest rollout)", "N" },
    { "worker", 'w', 0, G_OPTION_ARG_STRING, &opt_worker,
      "Only these workers in the plots (\"3\", \"0-7\", \"1,4\"); the JSON keeps them all", "LIST" },
    { "from", 0, 0, G_OPTION_ARG_STRING, &opt_from, "The Gantt from S seconds after the step's start", "S" },
    { "to", 0, 0, G_OPTION_ARG_STRING, &opt_to, "The Gantt up to S seconds after the step's start", "S" },
    { "all-zooms", 0, 0, G_OPTION_ARG_NONE, &opt_all_zooms,
      "Also the first 60 s as a Gantt of its own (the whole step and its tail are always drawn)", NULL },
    G_OPTION_ENTRY_NULL
  };
  static const RtTableSpec *const tables[] = {
    &rt_timeline_workers_spec, &rt_timeline_inflight_spec, &rt_timeline_gantt_spec, NULL
  };
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
    .tables = tables,
    .run = run,
    .flags = RT_COMMAND_ANALYZER,
  };
  return rt_command_main (&cmd, argc, argv);
}
