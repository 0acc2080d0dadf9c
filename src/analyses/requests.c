/* SPDX-License-Identifier: Apache-2.0 */
/* requests.c: the requests of one step (and worker): their durations, and the K slowest broken
 * down by phase, the sum of durations per event of the lines that carry each one's id. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-views.h"

#include <math.h>
#include <string.h>

/* Phases that do not contain one another, so that they can be stacked: a turn's
 * engine call is its setup plus the generation, a tool call its execution plus
 * the response processing, and tool parsing happens inside post-processing. */
static const char *const leaf_phases[] = {
  "pending_state_handling", "tool_creation_pending_state", "interaction_start_pending_state",
  "turn_pre_process", "engine_generate_setup", "engine_async_generate_actual",
  "turn_post_process", "tool_execution", "tool_response_processing", "interaction_response",
  "reward_calculation", "finalization",
};

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
  return strcmp (rt_request_id (t, x), rt_request_id (t, y));
}

/* Keeps the `top` first of `order` in compare_slowest's order, sorted: as sorting it all
 * and cutting it there (the order is total), without sorting thousands to keep ten. */
static void
keep_slowest (const RtTrace *t, GArray *order, guint top)
{
  if (order->len <= top || top > 64)
    {
      g_array_sort_with_data (order, compare_slowest, (gpointer) t);
      return;
    }
  guint *best = (guint *) order->data, kept = 0;   /* best[0 .. kept): sorted, in place */
  for (guint i = 0; i < order->len; i++)
    {
      guint idx = g_array_index (order, guint, i);
      if (kept == top && compare_slowest (&idx, &best[kept - 1], (gpointer) t) >= 0)
        continue;
      guint at = kept < top ? kept++ : kept - 1;   /* the last one drops out when full */
      while (at > 0 && compare_slowest (&idx, &best[at - 1], (gpointer) t) < 0)
        {
          best[at] = best[at - 1];
          at--;
        }
      best[at] = idx;
    }
  g_array_set_size (order, kept);
}

/* The complete requests with a duration of a step's files (of one worker, or all). */
static GArray *
timed_requests (const RtTrace *t, const RtStep *st, gint32 worker)
{
  GArray *order = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint k = 0; k < st->n_files; k++)
    {
      const RtFile *f = rt_trace_file (t, st->first_file + k);
      if (worker >= 0 && f->worker != worker)
        continue;
      for (guint r = 0; r < f->n_requests; r++)
        {
          guint idx = f->first_request + r;
          const RtRequest *q = rt_trace_request (t, idx);
          if (q->complete && !isnan (q->total_s))
            g_array_append_val (order, idx);
        }
    }
  return order;
}

/* Sums the durations of every line carrying the request's id, per event. */
static void
collect_phases (const RtTrace *t, RtSlowRequest *slow)
{
  guint n_ids = rt_event_registry_size (t->registry);
  const RtRequest *q = rt_trace_request (t, slow->request);
  const RtFile *f = rt_trace_file (t, q->file);
  slow->phase_ids = g_array_new (FALSE, FALSE, sizeof (guint16));
  slow->phase_s = g_new0 (double, n_ids);
  g_autofree gboolean *seen = g_new0 (gboolean, n_ids);
  const RtEvent *rows = rt_trace_file_events (t, q->file);
  guint32 local = slow->request - f->first_request;   /* rows name requests within the file */
  for (guint e = 0; e < f->n_events; e++)
    {
      const RtEvent *ev = &rows[e];
      if (ev->request != local || isnan (ev->duration_s))
        continue;
      if (!seen[ev->event])
        {
          seen[ev->event] = TRUE;
          g_array_append_val (slow->phase_ids, ev->event);
        }
      slow->phase_s[ev->event] += ev->duration_s;
    }
}

gboolean
rt_request_at_length (const RtTrace *t, const RtRequest *q)
{
  return q->finish_reason != 0 && strcmp (rt_finish_reason_short (rt_request_finish_reason (t, q)), "LENGTH") == 0;
}

double
rt_request_event_sum (const RtTrace *t, guint request, guint16 event)
{
  const RtRequest *q = rt_trace_request (t, request);
  const RtFile *f = rt_trace_file (t, q->file);
  const RtEvent *rows = rt_trace_file_events (t, q->file);
  guint32 local = request - f->first_request;
  double sum = 0;   /* added in line order, as collect_phases does: the same double */
  for (guint e = 0; e < f->n_events; e++)
    if (rows[e].request == local && rows[e].event == event && !isnan (rows[e].duration_s))
      sum += rows[e].duration_s;
  return sum;
}

/* The leaf phases that some slow request spent time in, in stacking order. */
static GArray *
occurring_leaves (const RtTrace *t, GArray *slowest)
{
  GArray *leaves = g_array_new (FALSE, FALSE, sizeof (guint16));
  for (guint p = 0; p < G_N_ELEMENTS (leaf_phases); p++)
    {
      guint16 id = rt_event_registry_lookup (t->registry, leaf_phases[p]);
      gboolean occurs = FALSE;
      for (guint i = 0; id != RT_EVENT_NONE && i < slowest->len; i++)
        occurs = occurs || g_array_index (slowest, RtSlowRequest, i).phase_s[id] > 0;
      if (occurs)
        g_array_append_val (leaves, id);
    }
  return leaves;
}

static void
slow_request_clear (RtSlowRequest *slow)
{
  g_clear_pointer (&slow->phase_ids, g_array_unref);
  g_clear_pointer (&slow->phase_s, g_free);
}

RtRequests *
rt_requests_analyse (const RtTrace *t, guint step_index, gint32 worker, guint top)
{
  const RtStep *st = rt_trace_step (t, step_index);
  RtRequests *r = g_new0 (RtRequests, 1);
  r->step_index = step_index;
  r->step = st->step;
  r->worker = worker;
  if (worker < 0)   /* the step's: sorted already, from the cache when it holds them */
    {
      r->durations = rt_view_request_durations_sorted (t, step_index);
      rt_summary_of_sorted (rt_samples_data (r->durations), r->durations->len, &r->summary);
    }
  else
    {
      r->durations = rt_view_request_durations (t, step_index, worker);
      rt_summary_compute (rt_samples_data (r->durations), r->durations->len, &r->summary);   /* sorts */
    }

  g_autoptr (GArray) order = timed_requests (t, st, worker);
  keep_slowest (t, order, top);
  r->slowest = g_array_new (FALSE, TRUE, sizeof (RtSlowRequest));
  g_array_set_clear_func (r->slowest, (GDestroyNotify) slow_request_clear);
  for (guint i = 0; i < MIN (top, order->len); i++)
    {
      RtSlowRequest slow = { .request = g_array_index (order, guint, i) };
      collect_phases (t, &slow);
      g_array_append_val (r->slowest, slow);
    }
  r->leaves = occurring_leaves (t, r->slowest);
  r->at_length_tokens = -1;
  for (guint i = 0; i < r->slowest->len; i++)
    {
      const RtRequest *q = rt_trace_request (t, g_array_index (r->slowest, RtSlowRequest, i).request);
      if (!rt_request_at_length (t, q))
        continue;
      r->at_length++;
      r->at_length_tokens = MAX (r->at_length_tokens, q->response_length);
    }
  return r;
}

void
rt_requests_free (RtRequests *r)
{
  if (r == NULL)
    return;
  g_array_unref (r->durations);
  g_array_unref (r->slowest);
  g_array_unref (r->leaves);
  g_free (r);
}

const RtTableSpec rt_requests_cdf_spec = {
  "requests_cdf", "the durations of the step's complete requests (of the worker asked)",
  (const RtColumn[]) { RT_SUMMARY_COLUMNS_HEAD ("s"), RT_SUMMARY_COLUMNS_TAIL ("s"), RT_COLUMNS_END },
};

RtTable *
rt_requests_cdf_table (const RtRequests *r)
{
  RtTable *table = rt_table_new (&rt_requests_cdf_spec);
  rt_table_summary (table, &r->summary, 0);
  return table;
}

const RtTableSpec rt_requests_slow_spec = {
  "requests_slowest", "one slow request, slowest first (ties: the lower worker, then request_id)",
  (const RtColumn[]) {
    { RT_COL ("request_id", RT_COLUMN_TEXT, NULL, "the request's id") },
    { RT_COL ("worker", RT_COLUMN_INT, NULL, "the worker (rank) that ran it") },
    { RT_COL ("total_s", RT_COLUMN_NUMBER, "s", "its duration (async_rollout_request_complete)") },
    { RT_COL ("turns", RT_COLUMN_INT, NULL, "its turns as logged; null when absent") },
    { RT_COL ("response_length", RT_COLUMN_INT, "tokens", "its response length; null when absent") },
    { RT_COL ("finish_reason", RT_COLUMN_TEXT, NULL, "why it ended (STOP, LENGTH...); null when absent") },
    { RT_COL ("PHASE", RT_COLUMN_NUMBER, "s",
              "the sum of the durations of each event carrying its id, named after the event"),
      .group = "phases", .flags = RT_COLUMN_EACH },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_requests_slow_table (const RtTrace *t, const RtSlowRequest *slow)
{
  /* each request has phases of its own, so each is a table (of one row) of its own; its
   * complete line is one, so the group is never empty */
  RtTable *table = rt_table_new (&rt_requests_slow_spec);
  guint n = slow->phase_ids->len;
  g_autofree const char **names = g_new (const char *, MAX (n, 1u));
  for (guint k = 0; k < n; k++)
    names[k] = rt_event_registry_name (t->registry, g_array_index (slow->phase_ids, guint16, k));
  rt_table_expand (table, "PHASE", names, n);

  const RtRequest *q = rt_trace_request (t, slow->request);
  rt_table_text (table, rt_request_id (t, q));
  rt_table_int (table, q->worker);
  rt_table_number (table, q->total_s);
  q->turns >= 0 ? rt_table_int (table, q->turns) : rt_table_null (table);
  q->response_length >= 0 ? rt_table_int (table, q->response_length) : rt_table_null (table);
  rt_table_text (table, rt_finish_reason_short (rt_request_finish_reason (t, q)));
  for (guint k = 0; k < n; k++)
    rt_table_number (table, slow->phase_s[g_array_index (slow->phase_ids, guint16, k)]);
  return table;
}

const RtTableSpec rt_request_phases_spec = {
  "request_phases", "one per phase of the request with a positive time, depth first: each phase, then "
  "those inside it, in order of first appearance",
  (const RtColumn[]) {
    { RT_COL ("phase", RT_COLUMN_TEXT, NULL, "the event") },
    { RT_COL ("seconds", RT_COLUMN_NUMBER, "s", "the sum of its durations on the request's lines") },
    { RT_COL ("depth", RT_COLUMN_INT, NULL, "how many phases it is inside (0: none)") },
    { RT_COL ("inside", RT_COLUMN_TEXT, NULL,
              "the phase whose line holds its first line (rt-requests --id shows the lines); null: none") },
    RT_COLUMNS_END,
  },
};

/* The phases under `parent` (RT_EVENT_NONE: the outermost), depth first, as rows. */
static void
phase_rows (RtTable *table, const RtTrace *t, const RtSlowRequest *slow, const guint16 *order, guint n,
            const guint16 *parent_of, guint16 parent, gint depth)
{
  for (guint k = 0; k < n; k++)
    {
      guint16 id = order[k];
      if (parent_of[id] != parent)
        continue;
      gint below = depth;
      if (slow->phase_s[id] > 0)
        {
          rt_table_text (table, rt_event_registry_name (t->registry, id));
          rt_table_number (table, slow->phase_s[id]);
          rt_table_int (table, depth);
          rt_table_text (table, parent == RT_EVENT_NONE ? NULL : rt_event_registry_name (t->registry, parent));
          below = depth + 1;
        }
      phase_rows (table, t, slow, order, n, parent_of, id, below);
    }
}

RtTable *
rt_request_phases_table (const RtTrace *t, const RtSlowRequest *slow)
{
  /* a phase is inside the phase of the line that holds its first line: turn_engine_call
   * inside turn_end, engine_async_generate_actual inside turn_engine_call */
  g_autoptr (RtRequestView) v = rt_request_view (t, slow->request);
  guint n_ids = rt_event_registry_size (t->registry);
  g_autofree guint16 *parent_of = g_new (guint16, n_ids);
  g_autofree gboolean *seen = g_new0 (gboolean, n_ids);
  g_autofree guint16 *order = g_new (guint16, MAX (n_ids, 1u));
  guint n = 0;
  for (guint i = 0; i < v->items->len; i++)
    {
      const RtRequestItem *it = rt_request_item (v, i);
      if (it->row == RT_NONE || seen[it->event])
        continue;
      seen[it->event] = TRUE;
      order[n++] = it->event;
      /* the parent's event came first in this order: no phase is inside itself, nor in a loop */
      parent_of[it->event] = it->parent == RT_NONE ? RT_EVENT_NONE : rt_request_item (v, it->parent)->event;
    }
  RtTable *table = rt_table_new (&rt_request_phases_spec);
  phase_rows (table, t, slow, order, n, parent_of, RT_EVENT_NONE, 0);
  return table;
}

const RtTableSpec rt_requests_top_spec = {
  "requests_top", "one per slow request, slowest first",
  (const RtColumn[]) {
    { RT_COL ("request", RT_COLUMN_TEXT, NULL, "its label: rank, worker, seconds, finish reason") },
    { RT_COL ("LEAF", RT_COLUMN_NUMBER, "s",
              "its time in each leaf phase (one that contains no other) that a slow request has"),
      .flags = RT_COLUMN_EACH },
    { RT_COL ("other (not broken down)", RT_COLUMN_NUMBER, "s", "the rest of its duration, at least 0") },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_requests_top_table (const RtTrace *t, const RtRequests *r)
{
  RtTable *table = rt_table_new (&rt_requests_top_spec);
  g_autofree const char **names = g_new (const char *, MAX (r->leaves->len, 1u));
  for (guint p = 0; p < r->leaves->len; p++)
    names[p] = rt_event_registry_name (t->registry, g_array_index (r->leaves, guint16, p));
  rt_table_expand (table, "LEAF", names, r->leaves->len);
  for (guint i = 0; i < r->slowest->len; i++)
    {
      const RtSlowRequest *slow = &g_array_index (r->slowest, RtSlowRequest, i);
      const RtRequest *q = rt_trace_request (t, slow->request);
      g_autofree char *label = g_strdup_printf ("%u. w%d %.0fs %s", i + 1, q->worker, q->total_s,
                                                q->finish_reason ? rt_finish_reason_short (rt_request_finish_reason (t, q)) : "");
      rt_table_text (table, label);
      double rest = q->total_s;
      for (guint p = 0; p < r->leaves->len; p++)
        {
          double v = slow->phase_s[g_array_index (r->leaves, guint16, p)];
          rest -= v;
          rt_table_number (table, v);
        }
      rt_table_number (table, MAX (rest, 0));
    }
  return table;
}

static const RtTableSpec *const requests_tables[] = { &rt_requests_cdf_spec, &rt_requests_slow_spec, &rt_request_phases_spec, &rt_requests_top_spec, NULL };

const RtAnalysisSpec rt_requests_analysis = {
  .name = "requests",
  .reads = RT_READS_ROWS | RT_READS_REQUESTS | RT_READS_REQUEST_IDS,
  .steps = RT_STEPS_ONE,
  .tables = requests_tables,
  .plots = "requests_cdf_step_N, requests_top_step_N, request_K_step_N",
};
