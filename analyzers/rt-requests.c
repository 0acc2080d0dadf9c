/* rt-requests: the requests of one step, and where the slowest of them spent their time.
 * A CDF of the step's request durations, then the top K broken down by phase. */
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-views.h"

#include <math.h>
#include <string.h>

static char *opt_step, *opt_worker, *opt_top;

/* Phases that do not contain one another, so that they can be stacked: a turn's
 * engine call is its setup plus the generation, a tool call its execution plus
 * the response processing, and tool parsing happens inside post-processing. */
static const char *const leaf_phases[] = {
  "pending_state_handling", "tool_creation_pending_state", "interaction_start_pending_state",
  "turn_pre_process", "engine_generate_setup", "engine_async_generate_actual",
  "turn_post_process", "tool_execution", "tool_response_processing", "interaction_response",
  "reward_calculation", "finalization",
};

typedef struct {
  guint request;        /* index into trace->requests */
  GArray *phase_ids;    /* guint16, in order of first appearance */
  double *phase_s;      /* by event id */
} Slow;

static int
compare_slowest (gconstpointer a, gconstpointer b, gpointer data)
{
  const RtTrace *t = data;
  const RtRequest *x = rt_trace_request (t, *(const guint *) a);
  const RtRequest *y = rt_trace_request (t, *(const guint *) b);
  if (x->total_s != y->total_s)
    return x->total_s > y->total_s ? -1 : 1;
  if (x->worker != y->worker)
    return x->worker < y->worker ? -1 : 1;
  return strcmp (x->id, y->id);
}

/* Sums the durations of every line carrying each slow request's id, per event. */
static void
collect_phases (const RtTrace *t, Slow *slow, guint n)
{
  guint n_ids = rt_event_registry_size (t->registry);
  for (guint i = 0; i < n; i++)
    {
      const RtRequest *q = rt_trace_request (t, slow[i].request);
      const RtFile *f = rt_trace_file (t, q->file);
      slow[i].phase_ids = g_array_new (FALSE, FALSE, sizeof (guint16));
      slow[i].phase_s = g_new0 (double, n_ids);
      g_autofree gboolean *seen = g_new0 (gboolean, n_ids);
      const RtEvent *rows = rt_trace_file_events (t, q->file);
      guint32 local = slow[i].request - f->first_request;   /* rows name requests within the file */
      for (guint e = 0; e < f->n_events; e++)
        {
          const RtEvent *ev = &rows[e];
          if (ev->request != local || isnan (ev->duration_s))
            continue;
          if (!seen[ev->event])
            {
              seen[ev->event] = TRUE;
              g_array_append_val (slow[i].phase_ids, ev->event);
            }
          slow[i].phase_s[ev->event] += ev->duration_s;
        }
    }
}

static char *
request_caption (const RtRequest *q, guint rank)
{
  g_autofree char *tokens = q->response_length >= 0 ? g_strdup_printf ("%d tokens", q->response_length)
                                                     : g_strdup ("tokens unknown");
  g_autofree char *turns = q->turns >= 0 ? g_strdup_printf ("%d turns", q->turns) : g_strdup ("turns unknown");
  return g_strdup_printf ("#%u %.8s, worker %d: %.2f s, %s, %s, %s", rank, q->id, q->worker,
                          q->total_s, turns, tokens,
                          q->finish_reason ? rt_finish_reason_short (q->finish_reason) : "finish unknown");
}

static gboolean
plot_slowest (RtSession *s, const RtStep *st, const Slow *slow, guint n, GError **error)
{
  const RtTrace *t = s->trace;
  /* one chart per request */
  for (guint i = 0; i < n; i++)
    {
      const RtRequest *q = rt_trace_request (t, slow[i].request);
      g_autoptr (GString) tsv = g_string_new ("phase\tseconds\n");
      for (guint k = 0; k < slow[i].phase_ids->len; k++)
        {
          guint16 id = g_array_index (slow[i].phase_ids, guint16, k);
          if (slow[i].phase_s[id] <= 0)
            continue;
          rt_tsv_str (tsv, rt_event_registry_name (t->registry, id), FALSE);
          rt_tsv_num (tsv, slow[i].phase_s[id], TRUE);
        }
      g_autofree char *name = g_strdup_printf ("request_%u_step_%d", i + 1, st->step);
      g_autofree char *tsv_name = g_strdup_printf ("%s.tsv", name);
      g_autofree char *what = request_caption (q, i + 1);
      if (!rt_session_write (s, tsv_name, tsv, error)
          || !rt_session_plot (s, "request", name, what, NULL, error))
        return FALSE;
    }

  /* all of them stacked, by the phases that do not overlap and that occur */
  g_autoptr (GString) tsv = g_string_new ("request");
  g_autoptr (GArray) leaves = g_array_new (FALSE, FALSE, sizeof (guint16));
  for (guint p = 0; p < G_N_ELEMENTS (leaf_phases); p++)
    {
      guint16 id = rt_event_registry_lookup (t->registry, leaf_phases[p]);
      gboolean occurs = FALSE;
      for (guint i = 0; id != RT_EVENT_NONE && i < n; i++)
        occurs = occurs || slow[i].phase_s[id] > 0;
      if (!occurs)
        continue;
      g_array_append_val (leaves, id);
      g_string_append_printf (tsv, "\t%s", leaf_phases[p]);
    }
  g_string_append (tsv, "\tother (not broken down)\n");
  for (guint i = 0; i < n; i++)
    {
      const RtRequest *q = rt_trace_request (t, slow[i].request);
      g_autofree char *label = g_strdup_printf ("%u. w%d %.0fs %s", i + 1, q->worker, q->total_s,
                                                q->finish_reason ? rt_finish_reason_short (q->finish_reason) : "");
      rt_tsv_str (tsv, label, FALSE);
      double rest = q->total_s;
      for (guint p = 0; p < leaves->len; p++)
        {
          double v = slow[i].phase_s[g_array_index (leaves, guint16, p)];
          rest -= v;
          rt_tsv_num (tsv, v, FALSE);
        }
      rt_tsv_num (tsv, MAX (rest, 0), TRUE);
    }
  g_autofree char *name = g_strdup_printf ("requests_top_step_%d", st->step);
  g_autofree char *tsv_name = g_strdup_printf ("%s.tsv", name);
  g_autofree char *what = g_strdup_printf ("the %u slowest requests of step %d, by phase", n, st->step);
  g_autofree char *lastcol = g_strdup_printf ("%u", leaves->len + 2);
  const char *vars[] = { "LASTCOL", lastcol, NULL };
  return rt_session_write (s, tsv_name, tsv, error)
         && rt_session_plot (s, "requests-top", name, what, vars, error);
}

static gboolean
plot_cdf (RtSession *s, const RtStep *st, gint32 worker, GArray *sorted, const RtSummary *sum,
          GError **error)
{
  g_autoptr (GString) tsv = g_string_new ("duration_s\tfraction\n");
  rt_view_tsv_cdf_block (tsv, "requests", rt_samples_data (sorted), sorted->len, 4000);
  g_autoptr (GString) markers = g_string_new (NULL);
  rt_plot_cdf_markers (markers, sum, "requests");
  g_autofree char *name = worker >= 0 ? g_strdup_printf ("requests_cdf_step_%d_worker_%d", st->step, worker)
                                      : g_strdup_printf ("requests_cdf_step_%d", st->step);
  g_autofree char *tsv_name = g_strdup_printf ("%s.tsv", name);
  g_autofree char *what = worker >= 0
                            ? g_strdup_printf ("request durations, step %d, worker %d", st->step, worker)
                            : g_strdup_printf ("request durations, step %d", st->step);
  const char *vars[] = { "MARKERS", markers->str, NULL };
  return rt_session_write (s, tsv_name, tsv, error)
         && rt_session_plot (s, "requests-cdf", name, what, vars, error);
}

static void
write_json (RtSession *s, const RtStep *st, gint32 worker, const RtSummary *sum, const Slow *slow,
            guint n)
{
  const RtTrace *t = s->trace;
  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_member_int (w, "step", st->step);
  rt_jw_key (w, "worker");
  if (worker >= 0)
    rt_jw_int (w, worker);
  else
    rt_jw_null (w);
  rt_jw_member_int (w, "requests", sum->count);
  rt_jw_key (w, "cdf");
  rt_jw_begin_object (w);
  rt_view_write_summary (w, sum, 0);
  rt_jw_end_object (w);
  rt_jw_key (w, "slowest");
  rt_jw_begin_array (w);
  for (guint i = 0; i < n; i++)
    {
      const RtRequest *q = rt_trace_request (t, slow[i].request);
      rt_jw_begin_object (w);
      rt_jw_member_string (w, "request_id", q->id);
      rt_jw_member_int (w, "worker", q->worker);
      rt_jw_member_number (w, "total_s", q->total_s);
      rt_jw_key (w, "turns");
      q->turns >= 0 ? rt_jw_int (w, q->turns) : rt_jw_null (w);
      rt_jw_key (w, "response_length");
      q->response_length >= 0 ? rt_jw_int (w, q->response_length) : rt_jw_null (w);
      rt_jw_member_string (w, "finish_reason", rt_finish_reason_short (q->finish_reason));
      rt_jw_key (w, "phases");
      rt_jw_begin_object (w);
      for (guint k = 0; k < slow[i].phase_ids->len; k++)
        {
          guint16 id = g_array_index (slow[i].phase_ids, guint16, k);
          rt_jw_member_number (w, rt_event_registry_name (t->registry, id), slow[i].phase_s[id]);
        }
      rt_jw_end_object (w);
      rt_jw_end_object (w);
    }
  rt_jw_end_array (w);
  rt_jw_end_object (w);
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
  const RtStep *st = rt_trace_step (t, si);

  g_autoptr (GArray) order = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint k = 0; k < st->n_files; k++)
    {
      const RtFile *f = rt_trace_file (t, st->first_file + k);
      if (worker >= 0 && f->worker != worker)
        continue;
      for (guint r = 0; r < f->n_requests; r++)
        if (rt_trace_request (t, f->first_request + r)->complete
            && !isnan (rt_trace_request (t, f->first_request + r)->total_s))
          {
            guint idx = f->first_request + r;
            g_array_append_val (order, idx);
          }
    }
  g_array_sort_with_data (order, compare_slowest, (gpointer) t);
  guint n = MIN ((guint) top, order->len);
  g_autofree Slow *slow = g_new0 (Slow, MAX (n, 1u));
  for (guint i = 0; i < n; i++)
    slow[i].request = g_array_index (order, guint, i);
  collect_phases (t, slow, n);

  g_autoptr (GArray) durations = rt_view_request_durations (t, si, (gint32) worker);
  RtSummary sum;
  rt_summary_compute (rt_samples_data (durations), durations->len, &sum);
  write_json (s, st, (gint32) worker, &sum, slow, n);

  int status = 0;
  if (sum.count == 0)
    {
      status = rt_session_no_data (s, "step %d has no completed request%s", st->step,
                                   worker >= 0 ? " on that worker" : "");
    }
  else
    {
      g_autofree char *on = worker >= 0 ? g_strdup_printf (", worker %d", (gint32) worker) : g_strdup ("");
      rt_session_print (s, "step %d%s: %u requests, mean %.2f s, P50 %.2f s, P99 %.2f s, max %.2f s\n",
                        st->step, on, sum.count, sum.mean, sum.p50, sum.p99, sum.max);
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *caption = request_caption (rt_trace_request (t, slow[i].request), i + 1);
          rt_session_print (s, "  %s\n", caption);
        }
      if (!plot_cdf (s, st, (gint32) worker, durations, &sum, error)
          || (n > 0 && !plot_slowest (s, st, slow, n, error)))
        status = 1;
    }
  for (guint i = 0; i < n; i++)
    {
      g_array_unref (slow[i].phase_ids);
      g_free (slow[i].phase_s);
    }
  return status;
}

int
main (int argc, char **argv)
{
  static const GOptionEntry entries[] = {
    { "step", 0, 0, G_OPTION_ARG_STRING, &opt_step,
      "The step to show (default, or \"slowest\": the one with the longest rollout)", "N" },
    { "worker", 'w', 0, G_OPTION_ARG_STRING, &opt_worker, "Only the requests of worker M", "M" },
    { "top", 'k', 0, G_OPTION_ARG_STRING, &opt_top, "How many of the slowest to break down (default 10)", "K" },
    G_OPTION_ENTRY_NULL
  };
  static const RtCommand cmd = {
    .name = "rt-requests",
    .parameters = "EXP",
    .summary = "The CDF of the request durations of one step (and worker), and the K slowest\n"
               "requests broken down by phase (the sum of durations per event carrying the\n"
               "request's id), one chart each and one stacking them.",
    .description = "JSON (--json): {\"step\", \"worker\" (null when all), \"requests\", \"cdf\": {\"count\",\n"
                   "\"mean\", \"std\", \"min\", \"max\", \"p50\", \"p90\", \"p95\", \"p99\"}, \"slowest\":\n"
                   "[{\"request_id\", \"worker\", \"total_s\", \"turns\", \"response_length\",\n"
                   "\"finish_reason\", \"phases\": {event: seconds}}]} slowest first, ties by lower\n"
                   "worker then request_id.\n\n"
                   "Examples:\n  rt-requests logs/exp --step 3\n  rt-requests logs/exp --step 3 --worker 5 --top 3",
    .entries = entries,
    .run = run,
    .flags = RT_COMMAND_LOADS_TRACE | RT_COMMAND_WRITES_PLOTS,
    .min_args = 1,
    .max_args = 1,
  };
  return rt_command_main (&cmd, argc, argv);
}
