/* rt-requests: the requests of one step, and where the slowest of them spent their time.
 * A CDF of the step's request durations, then the top K broken down by phase. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-plots.h"
#include "rolltrace/rt-views.h"

static char *opt_step, *opt_worker, *opt_top;

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
  rt_jw_end_object (w);
}

/* Only the requests of the step shown are read: a load from the cache takes no other. */
static gboolean
requests_of_one_step (RtSession *s, const RtTrace *t, guint *step_index)
{
  return rt_trace_resolve_step (t, s->steps, opt_step, step_index, NULL);   /* FALSE: run says why */
}

static int
run (RtSession *s, GError **error)
{
  const RtTrace *t = s->trace;
  guint si;
  gint64 worker = -1, top = 10;
  if (!rt_session_resolve_step (s, opt_step, &si, error)
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
      g_autofree char *caption = rt_request_caption (t, rt_trace_request (t, request), i + 1);
      rt_session_print (s, "  %s\n", caption);
    }
  if (!plot_cdf (s, r, error) || (r->slowest->len > 0 && !rt_plot_requests_top (s, r, TRUE, error)))
    return 1;
  return 0;
}

int
main (int argc, char **argv)
{
  static const GOptionEntry entries[] = {
    { "step", 0, 0, G_OPTION_ARG_STRING, &opt_step,
      "The step to show, among those --steps selects (or \"slowest\": the longest rollout)", "N" },
    { "worker", 'w', 0, G_OPTION_ARG_STRING, &opt_worker, "Only the requests of worker M", "M" },
    { "top", 'k', 0, G_OPTION_ARG_STRING, &opt_top, "How many of the slowest to break down (default 10)", "K" },
    G_OPTION_ENTRY_NULL
  };
  static const RtTableSpec *const tables[] = {
    &rt_requests_cdf_spec, &rt_requests_slow_spec, &rt_request_phases_spec, &rt_requests_top_spec,
    NULL
  };
  static const RtCommand cmd = {
    .name = "rt-requests",
    .parameters = "EXP",
    .summary = "The CDF of the request durations of one step (and worker), and the K slowest\n"
               "requests broken down by phase (the sum of durations per event carrying the\n"
               "request's id), one chart each and one stacking them.",
    .description = "JSON (--json): {\"step\", \"worker\" (null when all), \"requests\", \"cdf\": {a\n"
                   "requests_cdf row}, \"slowest\": [requests_slow rows, each with \"phases\": {event:\n"
                   "seconds}]}, slowest first, ties by lower worker then request_id.\n\n"
                   "Examples:\n  rt-requests logs/exp --step 3\n  rt-requests logs/exp --step 3 --worker 5 --top 3",
    .entries = entries,
    .tables = tables,
    .run = run,
    .flags = RT_COMMAND_ANALYZER,
    .turns_unread = rt_command_never_reads_turns,
    .requests_of_one_step = requests_of_one_step,
  };
  return rt_command_main (&cmd, argc, argv);
}
