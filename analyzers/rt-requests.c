/* SPDX-License-Identifier: Apache-2.0 */
/* rt-requests: the requests of one step, and where the slowest of them spent their time.
 * A CDF of the step's request durations, then the top K broken down by phase; or, with --id,
 * everything that happened to one request, line by line. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-plots.h"
#include "rolltrace/rt-views.h"

#include <math.h>

static char *opt_worker, *opt_top, *opt_id;

static gboolean
plot_cdf (RtSession *s, const RtRequests *r, GError **error)
{
  g_autoptr (GString) tsv = g_string_new ("duration_s\tfraction\n");
  rt_view_tsv_cdf_block (tsv, "requests", rt_samples_data (r->durations), r->durations->len, 4000);
  g_autoptr (GString) markers = g_string_new (NULL);
  rt_plot_cdf_markers (markers, &r->summary, "requests");
  g_autofree char *on = r->worker >= 0 ? g_strdup_printf ("_worker_%d", r->worker) : g_strdup ("");
  g_autofree char *name = g_strdup_printf ("requests_cdf_step_%d%s", r->step, on);
  g_autofree char *tsv_name = g_strdup_printf ("%s.tsv", name);
  g_autofree char *what = r->worker >= 0
                            ? g_strdup_printf ("request durations, step %d, worker %d", r->step, r->worker)
                            : g_strdup_printf ("request durations, step %d", r->step);
  const char *vars[] = { "MARKERS", markers->str, NULL };
  return rt_session_write (s, tsv_name, tsv, error)
         && rt_session_plot (s, "requests-cdf", name, what, vars, error);
}

static void
write_json (RtSession *s, const RtRequests *r)
{
  g_autoptr (RtTable) cdf = rt_requests_cdf_table (r);
  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_session_json_step (s, r->step);
  rt_jw_key (w, "worker");
  if (r->worker >= 0)
    rt_jw_int (w, r->worker);
  else
    rt_jw_null (w);
  rt_jw_member_int (w, "requests", r->summary.count);
  rt_jw_key (w, "cdf");
  rt_table_write_json_row (cdf, 0, w);
  rt_jw_key (w, "slowest");
  rt_jw_begin_array (w);
  for (guint i = 0; i < r->slowest->len; i++)
    {
      g_autoptr (RtTable) slow = rt_requests_slow_table (s->trace, &g_array_index (r->slowest, RtSlowRequest, i));
      rt_table_write_json_row (slow, 0, w);
    }
  rt_jw_end_array (w);
  rt_jw_member_int (w, "at_length", r->at_length);
  rt_jw_end_object (w);
}

/* --id looks through every selected step's requests; otherwise only those of the step shown
 * are read (a load from the cache takes no other). */
static gboolean
runs (G_GNUC_UNUSED const RtSession *s, const RtAnalysisSpec *analysis)
{
  return (analysis == &rt_request_view_analysis) == (opt_id != NULL);
}

/* ---- --id: one request ---- */

/* Text of the trace made fit for a terminal: a control character in an id or an event name
 * could drive it. */
static char *
terminal_text (const char *text)
{
  GString *out = g_string_new (NULL);
  rt_tsv_append_text (out, text);
  return g_string_free (out, FALSE);
}

static void
write_view_json (RtSession *s, const RtRequestView *v)
{
  const RtTrace *t = s->trace;
  const RtRequest *q = rt_trace_request (t, v->request);
  g_autoptr (RtTable) lines = rt_request_lines_table (t, v);
  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_member_string (w, "request_id", rt_request_id (t, q));
  rt_jw_member_int (w, "step", q->step);
  rt_jw_member_int (w, "worker", q->worker);
  rt_jw_member_number (w, "duration_s", q->total_s);
  rt_jw_key (w, "finish_reason");
  if (q->finish_reason)
    rt_jw_string (w, rt_finish_reason_short (rt_request_finish_reason (t, q)));
  else
    rt_jw_null (w);
  rt_jw_key (w, "turns");
  q->turns >= 0 ? rt_jw_int (w, q->turns) : rt_jw_null (w);
  rt_jw_key (w, "response_length");
  q->response_length >= 0 ? rt_jw_int (w, q->response_length) : rt_jw_null (w);
  rt_jw_member_int (w, "line_count", v->lines);
  rt_jw_member_int (w, "untimed_lines", v->untimed);
  rt_jw_member_int (w, "gaps", v->gaps);
  rt_jw_member_number (w, "gap_s", v->gap_s);
  rt_jw_member_int (w, "short_gaps", v->short_gaps);
  rt_jw_member_number (w, "short_gap_s", v->short_gap_s);
  rt_jw_key (w, "nested");
  rt_jw_bool (w, !v->flat);
  rt_jw_key (w, "lines");
  rt_table_write_json (lines, w);
  rt_jw_end_object (w);
}

static void
print_view (RtSession *s, const RtRequestView *v)
{
  const RtTrace *t = s->trace;
  const RtRequest *q = rt_trace_request (t, v->request);
  g_autofree char *title = rt_request_title (t, q, s->full_ids);
  g_autofree char *shown = terminal_text (title);
  rt_session_print (s, "%s\n", shown);
  g_autofree char *untimed = v->untimed ? g_strdup_printf (", %u without a timestamp left out", v->untimed)
                                         : g_strdup ("");
  rt_session_print (s, "%u lines%s, %u gaps of %g ms or more (%.6f s), %u shorter (%.6f s); seconds from the "
                    "request's start\n", v->lines, untimed, v->gaps, RT_REQUEST_GAP_MIN_S * 1000, v->gap_s,
                    v->short_gaps, v->short_gap_s);
  rt_session_print (s, "%11s %11s %11s %5s  %s\n", "start", "end", "duration", "turn", "event");
  for (guint i = 0; i < v->items->len; i++)
    {
      const RtRequestItem *it = rt_request_item (v, i);
      char duration[32] = "-", turn[16] = "-";
      if (!isnan (it->duration_s))
        g_snprintf (duration, sizeof duration, "%.6f", it->duration_s);
      if (it->turn >= 0)
        g_snprintf (turn, sizeof turn, "%d", it->turn);
      g_autofree char *event = it->row == RT_NONE ? g_strdup ("(gap: nothing logged)")
                                                  : terminal_text (rt_event_registry_name (t->registry, it->event));
      rt_session_print (s, "%11.6f %11.6f %11s %5s  %*s%s\n", it->start_s, it->end_s, duration, turn,
                        2 * it->depth, "", event);
    }
  if (v->flat)
    rt_session_print (s, "(more than %u lines: none is shown inside another)\n", RT_REQUEST_NEST_MAX);
}

static int
run_id (RtSession *s, GError **error)
{
  const RtTrace *t = s->trace;
  if (s->step != NULL || opt_worker != NULL || opt_top != NULL)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "--id shows one request: leave out --step, --worker and "
                   "--top (--steps narrows the steps it looks in)");
      return 0;
    }
  if (*opt_id == '\0')
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "--id: give a request id, or its beginning");
      return 0;
    }
  g_autoptr (GArray) found = rt_requests_find (t, s->steps, opt_id);
  if (found->len == 0)
    return rt_session_no_data (s, "no request id begins with '%s' in the selected steps (rt-requests EXP "
                               "--step N lists the slowest of a step)", opt_id);
  if (found->len > 1)
    {
      g_printerr ("%s: %u requests match --id %s:\n", s->command->name, found->len, opt_id);
      for (guint i = 0; i < found->len; i++)
        {
          const RtRequest *q = rt_trace_request (t, g_array_index (found, guint, i));
          g_autofree char *title = rt_request_title (t, q, TRUE);
          g_autofree char *shown = terminal_text (title);
          g_printerr ("  %s\n", shown);
        }
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "--id %s names %u requests: give more of the id", opt_id,
                   found->len);
      return 0;
    }
  g_autoptr (RtRequestView) v = rt_request_view (t, g_array_index (found, guint, 0));
  write_view_json (s, v);
  print_view (s, v);
  if (v->lines == 0)
    return rt_session_no_data (s, "the request has no line with a timestamp: nothing to draw");
  return rt_plot_request_view (s, v, NULL, error) ? 0 : 1;
}

static int
run (RtSession *s, GError **error)
{
  const RtTrace *t = s->trace;
  guint si;
  gint64 worker = -1, top = 10;
  if (opt_id != NULL)
    return run_id (s, error);
  if (!rt_session_resolve_step (s, &si, error)
      || (opt_worker && !rt_parse_int_option ("--worker", opt_worker, 0, G_MAXINT32, &worker, error))
      || (opt_top && !rt_parse_int_option ("--top", opt_top, 0, 10000, &top, error)))
    return 0;   /* the error decides the exit status */
  g_autoptr (RtRequests) r = rt_requests_analyse (t, si, (gint32) worker, (guint) top);
  write_json (s, r);

  const RtSummary *sum = &r->summary;
  if (sum->count == 0)
    return rt_session_no_data (s, "step %d has no completed request%s", r->step,
                               worker >= 0 ? " on that worker" : "");
  g_autofree char *on = worker >= 0 ? g_strdup_printf (", worker %d", (gint32) worker) : g_strdup ("");
  rt_session_print (s, "step %d%s: %u requests, mean %.2f s, P50 %.2f s, P99 %.2f s, max %.2f s\n",
                    r->step, on, sum->count, sum->mean, sum->p50, sum->p99, sum->max);
  for (guint i = 0; i < r->slowest->len; i++)
    {
      guint request = g_array_index (r->slowest, RtSlowRequest, i).request;
      g_autofree char *caption = rt_request_caption (t, rt_trace_request (t, request), i + 1, s->full_ids);
      rt_session_print (s, "  %s\n", caption);
    }
  g_autofree char *truncation = rt_requests_truncation_line (r);
  if (truncation != NULL)
    rt_session_print (s, "%s\n", truncation);
  if (!plot_cdf (s, r, error) || (r->slowest->len > 0 && !rt_plot_requests_top (s, r, TRUE, error)))
    return 1;
  return 0;
}

int
main (int argc, char **argv)
{
  static const GOptionEntry entries[] = {
    { "worker", 'w', 0, G_OPTION_ARG_STRING, &opt_worker, "Only the requests of worker M", "M" },
    { "top", 'k', 0, G_OPTION_ARG_STRING, &opt_top, "How many of the slowest to break down (default 10)", "K" },
    { "id", 0, 0, G_OPTION_ARG_STRING, &opt_id,
      "Follow one request: every line of it in time, nested, and the gaps between them (ID: its id "
      "or a unique beginning of it, looked for in the rollouts --steps and --rollouts select)", "ID" },
    G_OPTION_ENTRY_NULL
  };
  static const RtAnalysisSpec *const analyses[] = { &rt_requests_analysis, &rt_request_view_analysis, NULL };
  static const RtCommand cmd = {
    .name = "rt-requests",
    .parameters = "EXP",
    .summary = "The CDF of the request durations of one step (and worker), and the K slowest\n"
               "requests broken down by phase (the sum of durations per event carrying the\n"
               "request's id, each phase under the one that holds it), one chart each and one\n"
               "stacking them; a truncation line says how many of them ended on the length limit.\n"
               "With --id, everything that happened to one request instead.",
    .description = "JSON (--json): {\"step\", \"worker\" (null when all), \"requests\", \"cdf\": {a\n"
                   "requests_cdf row}, \"slowest\": [requests_slow rows, each with \"phases\": {event:\n"
                   "seconds}], \"at_length\": how many of them finished with LENGTH}, slowest first, ties\n"
                   "by lower worker then request_id.\n\n"
                   "Following one request (--id ID): every line carrying its id, a line per row, in\n"
                   "time: start, end (both in seconds from its earliest line's start), duration and\n"
                   "turn, each line indented under the shortest line that holds it (20 us allowed\n"
                   "for the logger's clock: turn_engine_call under turn_end), and as rows of their\n"
                   "own the gaps of 1 ms or more where no innermost line ran (nothing was logged);\n"
                   "the shorter gaps are counted. Its plot is request_ID (the id's letters, digits,\n"
                   "- and _), a Gantt of those rows. A beginning of the id that several requests\n"
                   "share lists them and exits 2; an id no request has exits 1.\n"
                   "JSON with --id: {\"request_id\" (whole), \"step\", \"worker\", \"duration_s\",\n"
                   "\"finish_reason\", \"turns\", \"response_length\", \"line_count\", \"untimed_lines\",\n"
                   "\"gaps\", \"gap_s\", \"short_gaps\", \"short_gap_s\", \"nested\", \"lines\":\n"
                   "[request_lines rows]}.\n\n"
                   "Examples:\n  rt-requests logs/exp --step 3\n  rt-requests logs/exp --step 3 --worker 5 --top 3\n"
                   "  rt-requests logs/exp --id 3ec90494\n  rt-requests logs/exp --id 3ec9 --steps 4 --json",
    .entries = entries,
    .analyses = analyses,
    .runs = runs,
    .step_help = "The step to show, among those --steps selects (or \"slowest\": the longest rollout)",
    .run = run,
    .flags = RT_COMMAND_ANALYZER | RT_COMMAND_SHOWS_IDS,
  };
  return rt_command_main (&cmd, argc, argv);
}
