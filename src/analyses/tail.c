/* SPDX-License-Identifier: Apache-2.0 */
/* tail.c: why a step's last requests were late, as an exact sum: launch, extra turns, slower turns,
 * tools and the rest, each against the bulk (the requests that ended by t90); and the bubble. */
#include "rolltrace/analyses/tail.h"
#include "rolltrace/rt-analyses.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- a step's requests ---- */

/* How many complete lines of the file carry each id (empty ids left out). */
static GHashTable *
complete_id_counts (const RtTrace *t, const RtFile *f)
{
  GHashTable *counts = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint k = 0; f->first_request != RT_NONE && k < f->n_requests; k++)
    {
      const RtRequest *q = rt_trace_request (t, f->first_request + k);
      const char *id = rt_request_id (t, q);
      if (!q->complete || id == NULL || id[0] == '\0')
        continue;
      gpointer n = g_hash_table_lookup (counts, id);
      g_hash_table_insert (counts, (gpointer) id, GUINT_TO_POINTER (GPOINTER_TO_UINT (n) + 1));
    }
  return counts;
}

/* A request as the tail counts it: its complete line's end and duration, its row in the
 * requests table (RT_NONE: none) with what its own lines add up to when it owns them. */
static void
append_request (RtLateRequests *r, const RtTrace *t, const RtFile *f, double end_s, double duration_s,
                guint32 request, gboolean own_lines, double tool_s, double cut_end_s, double origin_s)
{
  double end = end_s - origin_s;
  RtLateRequest q = { .worker = f->worker, .request = request, .start_s = end - duration_s, .end_s = end,
                      .duration_s = duration_s, .turns = -1, .tokens = -1, .engine_s = NAN, .tool_s = NAN,
                      .cut_turn_end_s = NAN };
  if (request != RT_NONE)
    {
      const RtRequest *rq = rt_trace_request (t, request);
      q.turns = rq->turns;
      q.tokens = rq->response_tokens;
      q.own_lines = own_lines;
      if (own_lines)
        {
          q.engine_s = rt_trace_request_engine_s (t, rq);
          q.tool_s = tool_s;
          q.attributed = rq->n_turns >= 1 && rq->turns >= 1;
          if (!isnan (cut_end_s))
            q.cut_turn_end_s = cut_end_s - origin_s;
        }
    }
  g_array_append_val (r->requests, q);
}

/* The earliest end of each of the file's requests' turn_end lines with extra.turn ==
 * turn_end_turn (NAN: none), by file-local request, from its rows; NULL when no turn is
 * asked. */
static double *
cut_turn_ends (const RtFile *f, const RtEvent *rows, guint n_local, gint32 turn_end_turn)
{
  if (turn_end_turn < 0)
    return NULL;
  double *cut_end = g_new (double, MAX (n_local, 1u));
  for (guint k = 0; k < n_local; k++)
    cut_end[k] = NAN;
  for (guint32 e = 0; e < f->n_events; e++)
    {
      const RtEvent *ev = &rows[e];
      if (ev->request < n_local && ev->event == RT_EV_TURN_END && ev->turn == turn_end_turn
          && !isnan (ev->end_s) && !(ev->end_s >= cut_end[ev->request]))
        cut_end[ev->request] = ev->end_s;
    }
  return cut_end;
}

/* A file's requests, by their number in it (through rt_trace_request: no pointer into one
 * table is assumed to reach the next). */
typedef struct {
  const RtTrace *t;
  guint32 first;
} FileRequests;

static inline const RtRequest *
file_request (const FileRequests *fr, guint32 k)
{
  return rt_trace_request (fr->t, fr->first + k);
}

static int
compare_complete_rank (gconstpointer a, gconstpointer b, gpointer file_requests)
{
  guint32 x = file_request (file_requests, *(const guint32 *) a)->complete_rank;
  guint32 y = file_request (file_requests, *(const guint32 *) b)->complete_rank;
  return x < y ? -1 : x > y;
}

static inline gboolean
is_timed_complete (const RtRequest *q)
{
  return q->complete && isfinite (q->total_s) && !isnan (q->end_s);
}

/* A whole file's requests, from the requests table, where the parser noted what its rows
 * would tell (RtRequest.own_lines, tool_s, and complete_rank for their line order): a cached
 * run reads neither the rows nor the ids. The rows only for the turn_end asked. */
static void
add_requests_of_table (RtLateRequests *r, const RtTrace *t, guint fi, double origin_s, gint32 turn_end_turn)
{
  const RtFile *f = rt_trace_file (t, fi);
  FileRequests fr = { t, f->first_request };
  /* each at its rank (requests come in the order of their first lines, which is not their
   * complete lines' when they run side by side): unique and below n_complete, unless a
   * cache says otherwise, when they are sorted instead */
  guint32 n_slots = MAX (f->n_complete, 1u);
  g_autofree guint32 *order = g_new (guint32, MAX (n_slots, f->n_requests));
  memset (order, 0xFF, (gsize) n_slots * sizeof *order);
  guint n = 0;
  gboolean placed = TRUE;
  for (guint32 k = 0; k < f->n_requests; k++)
    {
      const RtRequest *q = file_request (&fr, k);
      if (!is_timed_complete (q))
        continue;
      n++;
      if (q->complete_rank < n_slots && order[q->complete_rank] == RT_NONE)
        order[q->complete_rank] = k;
      else
        placed = FALSE;
    }
  if (placed)
    {
      guint m = 0;   /* (the ranks of lines without a duration or time are left empty) */
      for (guint32 i = 0; i < n_slots; i++)
        if (order[i] != RT_NONE)
          order[m++] = order[i];
    }
  else
    {
      n = 0;
      for (guint32 k = 0; k < f->n_requests; k++)
        if (is_timed_complete (file_request (&fr, k)))
          order[n++] = k;
      g_qsort_with_data (order, (gint) n, sizeof *order, compare_complete_rank, &fr);
    }
  g_autofree double *cut_end = NULL;
  if (turn_end_turn >= 0)
    {
      cut_end = cut_turn_ends (f, rt_trace_file_events (t, fi), f->n_requests, turn_end_turn);
      rt_trace_file_events_done (t, fi);
    }
  for (guint i = 0; i < n; i++)
    {
      const RtRequest *q = file_request (&fr, order[i]);
      append_request (r, t, f, q->end_s, q->total_s, f->first_request + order[i], q->own_lines, q->tool_s,
                      cut_end != NULL ? cut_end[order[i]] : NAN, origin_s);
    }
}

/* A file cut to a part of its rollouts, from its rows: own lines, tools and turn ends of
 * that part alone. */
static void
add_requests_of_rows (RtLateRequests *r, const RtTrace *t, guint fi, double origin_s, guint16 tool_id,
                      gint32 turn_end_turn)
{
  const RtFile *f = rt_trace_file (t, fi);
  const RtEvent *rows = rt_trace_file_events (t, fi);
  guint n_local = f->first_request != RT_NONE ? f->n_requests : 0;
  g_autofree double *tool = g_new0 (double, MAX (n_local, 1u));
  for (guint32 e = 0; e < f->n_events; e++)
    if (rows[e].request < n_local && rows[e].event == tool_id && isfinite (rows[e].duration_s))
      tool[rows[e].request] += rows[e].duration_s;
  g_autofree double *cut_end = cut_turn_ends (f, rows, n_local, turn_end_turn);
  g_autoptr (GHashTable) id_counts = complete_id_counts (t, f);
  for (guint32 e = 0; e < f->n_events; e++)
    {
      const RtEvent *ev = &rows[e];
      if (ev->event != RT_EV_REQUEST_COMPLETE || !isfinite (ev->duration_s) || isnan (ev->end_s))
        continue;
      if (ev->request >= n_local)
        {
          append_request (r, t, f, ev->end_s, ev->duration_s, RT_NONE, FALSE, NAN, NAN, origin_s);
          continue;
        }
      const RtRequest *rq = rt_trace_request (t, f->first_request + ev->request);
      const char *id = rt_request_id (t, rq);
      gboolean own = id != NULL && id[0] != '\0' && GPOINTER_TO_UINT (g_hash_table_lookup (id_counts, id)) == 1;
      append_request (r, t, f, ev->end_s, ev->duration_s, f->first_request + ev->request, own, tool[ev->request],
                      cut_end != NULL ? cut_end[ev->request] : NAN, origin_s);
    }
  rt_trace_file_events_done (t, fi);
}

static void
add_file_requests (RtLateRequests *r, const RtTrace *t, guint fi, double origin_s, guint16 tool_id,
                   gint32 turn_end_turn)
{
  const RtFile *f = rt_trace_file (t, fi);
  guint before = r->requests->len;
  if (f->first_request != RT_NONE && !rt_trace_file_is_cut (t, fi))
    add_requests_of_table (r, t, fi, origin_s, turn_end_turn);
  else
    add_requests_of_rows (r, t, fi, origin_s, tool_id, turn_end_turn);
  r->workers += r->requests->len > before;
}

RtLateRequests *
rt_late_requests_new (const RtTrace *t, guint step_index, gint32 turn_end_turn)
{
  const RtStep *st = rt_trace_step (t, step_index);
  RtLateRequests *r = g_new0 (RtLateRequests, 1);
  r->step_index = step_index;
  r->step = st->step;
  r->requests = g_array_new (FALSE, FALSE, sizeof (RtLateRequest));
  guint16 tool_id = rt_event_registry_lookup (t->registry, "tool_execution");
  for (guint k = 0; k < st->n_files; k++)
    add_file_requests (r, t, st->first_file + k, st->start_s, tool_id, turn_end_turn);
  rt_trace_requests_done (t, st->first_file, st->n_files);   /* what is read on is in `r` */
  return r;
}

void
rt_late_requests_free (RtLateRequests *r)
{
  if (r == NULL)
    return;
  g_array_unref (r->requests);
  g_free (r);
}

double *
rt_late_requests_ends (const RtLateRequests *r)
{
  guint n = r->requests->len;
  double *ends = g_new (double, MAX (n, 1u));
  for (guint i = 0; i < n; i++)
    ends[i] = g_array_index (r->requests, RtLateRequest, i).end_s;
  return ends;
}

double
rt_ends_at (double *ends, guint n, guint64 num, guint64 den)
{
  if (n == 0)
    return NAN;
  guint64 k = (num * n + den - 1) / den;
  return rt_select_double (ends, n, (guint) (CLAMP (k, 1, n) - 1));   /* never NaN: a request has a time */
}

/* ---- the tail ---- */

const char *
rt_tail_cause_name (RtTailCause c)
{
  static const char *const names[RT_N_TAIL_CAUSES + 1] = {
    "launch", "extra_turns", "slower_turns", "tool", "other", "duration", "none",
  };
  return c <= RT_TAIL_NONE ? names[c] : NULL;
}

RtTailPart
rt_tail_cause_part (RtTailCause c)
{
  static const RtTailPart parts[RT_N_TAIL_CAUSES] = {
    RT_PART_LAUNCH, RT_PART_EXTRA_TURNS, RT_PART_SLOWER_TURNS, RT_PART_TOOL, RT_PART_OTHER, RT_PART_DURATION,
  };
  return c < RT_N_TAIL_CAUSES ? parts[c] : RT_N_PARTS;
}

static RtTailParts
parts_null (void)
{
  RtTailParts p;
  for (int i = 0; i < RT_N_PARTS; i++)
    p.v[i] = NAN;
  return p;
}

/* A request's parts (lateness .. engine_per_turn); the split null unless attributed. */
static RtTailParts
request_parts (const RtLateRequest *q, double t0)
{
  RtTailParts p = parts_null ();
  p.v[RT_PART_LATENESS] = q->end_s - t0;
  p.v[RT_PART_LAUNCH] = q->start_s - t0;
  p.v[RT_PART_DURATION] = q->duration_s;
  if (q->attributed)
    {
      p.v[RT_PART_ENGINE] = q->engine_s;
      p.v[RT_PART_TOOL] = q->tool_s;
      p.v[RT_PART_OTHER] = q->duration_s - q->engine_s - q->tool_s;
      p.v[RT_PART_TURNS] = q->turns;
      p.v[RT_PART_ENGINE_PER_TURN] = q->engine_s / q->turns;
    }
  return p;
}

/* A request's excess over the bulk's means; the split needs both. */
static RtTailParts
request_excess (const RtTailParts *p, const RtTailParts *bulk)
{
  RtTailParts x = parts_null ();
  for (int i = RT_PART_LATENESS; i <= RT_PART_OTHER; i++)
    x.v[i] = p->v[i] - bulk->v[i];
  double n = p->v[RT_PART_TURNS], e = p->v[RT_PART_ENGINE_PER_TURN];
  double nb = bulk->v[RT_PART_TURNS], eb = bulk->v[RT_PART_ENGINE_PER_TURN];
  x.v[RT_PART_EXTRA_TURNS] = (n - nb) * (e + eb) / 2;
  x.v[RT_PART_SLOWER_TURNS] = (e - eb) * (n + nb) / 2;
  return x;   /* NAN wherever a part is null: NAN carries through */
}

/* The largest excess > 0 of launch, extra_turns, slower_turns, tool, other (where the split
 * is null: launch, duration), ties to the first. */
static RtTailCause
dominant (const RtTailParts *x)
{
  gboolean split = !isnan (x->v[RT_PART_EXTRA_TURNS]);
  static const RtTailCause with_split[] = { RT_TAIL_LAUNCH, RT_TAIL_EXTRA_TURNS, RT_TAIL_SLOWER_TURNS, RT_TAIL_TOOL,
                                            RT_TAIL_OTHER };
  static const RtTailCause without[] = { RT_TAIL_LAUNCH, RT_TAIL_DURATION };
  const RtTailCause *causes = split ? with_split : without;
  guint n = split ? G_N_ELEMENTS (with_split) : G_N_ELEMENTS (without);
  RtTailCause best = RT_TAIL_NONE;
  double best_v = 0;
  for (guint i = 0; i < n; i++)
    {
      double v = x->v[rt_tail_cause_part (causes[i])];
      if (v > best_v)
        {
          best = causes[i];
          best_v = v;
        }
    }
  return best;
}

/* Returns the index of the request that ended last. */
static guint
analyse_step (RtTailStep *ts, const RtLateRequests *r)
{
  const RtLateRequest *q = (const RtLateRequest *) (void *) r->requests->data;
  guint n = r->requests->len;
  ts->requests = n;
  ts->workers = r->workers;
  for (guint i = 0; i < n; i++)
    ts->attributed += q[i].attributed;
  ts->unattributed = n - ts->attributed;
  g_autofree double *ends = rt_late_requests_ends (r);
  double t0 = q[0].start_s, t100 = q[0].end_s;
  for (guint i = 1; i < n; i++)
    t0 = MIN (t0, q[i].start_s), t100 = MAX (t100, q[i].end_s);
  ts->t0_s = t0;
  ts->t90_s = rt_ends_at (ends, n, 9, 10);
  ts->t100_s = t100;
  ts->window_s = ts->t100_s - t0;
  ts->tail_s = ts->t100_s - ts->t90_s;
  ts->tail_window_share = ts->bubble = NAN;
  if (ts->window_s > 0)
    {
      ts->tail_window_share = ts->tail_s / ts->window_s;
      /* each worker's last end: requests come worker after worker */
      double idle = 0;
      for (guint i = 0; i < n;)
        {
          double last = q[i].end_s;
          guint j = i + 1;
          for (; j < n && q[j].worker == q[i].worker; j++)
            last = MAX (last, q[j].end_s);
          idle += ts->t100_s - last;
          i = j;
        }
      ts->bubble = idle / (ts->workers * ts->window_s);
    }

  /* the bulk's means: the split only when every bulk request is attributed */
  RtTailParts sum = { { 0 } };
  guint bulk = 0, bulk_attributed = 0;
  for (guint i = 0; i < n; i++)
    {
      if (q[i].end_s > ts->t90_s)
        continue;
      RtTailParts p = request_parts (&q[i], t0);
      bulk++;
      bulk_attributed += q[i].attributed;
      for (int k = RT_PART_LATENESS; k <= RT_PART_TURNS; k++)
        sum.v[k] += p.v[k];
    }
  ts->bulk_requests = bulk;
  ts->bulk_mean = parts_null ();
  for (int k = RT_PART_LATENESS; k <= RT_PART_DURATION; k++)
    ts->bulk_mean.v[k] = sum.v[k] / bulk;
  if (bulk_attributed == bulk)
    {
      for (int k = RT_PART_ENGINE; k <= RT_PART_TURNS; k++)
        ts->bulk_mean.v[k] = sum.v[k] / bulk;
      ts->bulk_mean.v[RT_PART_ENGINE_PER_TURN] = ts->bulk_mean.v[RT_PART_ENGINE] / ts->bulk_mean.v[RT_PART_TURNS];
    }

  /* the tail's sums and excesses: 0 when it is empty */
  ts->tail_sum = parts_null ();
  ts->tail_excess = parts_null ();
  for (int k = RT_PART_LATENESS; k <= RT_PART_OTHER; k++)
    ts->tail_sum.v[k] = ts->tail_excess.v[k] = 0;
  ts->tail_excess.v[RT_PART_EXTRA_TURNS] = ts->tail_excess.v[RT_PART_SLOWER_TURNS] = 0;
  for (guint i = 0; i < n; i++)
    {
      if (!(q[i].end_s > ts->t90_s))
        continue;
      ts->tail_requests++;
      RtTailParts p = request_parts (&q[i], t0);
      RtTailParts x = request_excess (&p, &ts->bulk_mean);
      for (int k = RT_PART_LATENESS; k <= RT_PART_OTHER; k++)
        ts->tail_sum.v[k] += p.v[k];
      for (int k = RT_PART_LATENESS; k < RT_N_PARTS; k++)
        if (k != RT_PART_TURNS && k != RT_PART_ENGINE_PER_TURN)
          ts->tail_excess.v[k] += x.v[k];
    }
  ts->tail_dominant = ts->tail_requests > 0 ? dominant (&ts->tail_excess) : RT_TAIL_NONE;

  /* the last request: the latest end, ties to the lower worker, then the earlier line */
  guint last = 0;
  for (guint i = 1; i < n; i++)
    if (q[i].end_s > q[last].end_s)
      last = i;
  ts->last_worker = q[last].worker;
  ts->last_end_s = q[last].end_s;
  ts->last = request_parts (&q[last], t0);
  ts->last_excess = request_excess (&ts->last, &ts->bulk_mean);
  ts->last_excess.v[RT_PART_TURNS] = ts->last_excess.v[RT_PART_ENGINE_PER_TURN] = NAN;
  ts->last_dominant = dominant (&ts->last_excess);
  return last;
}

RtTail *
rt_tail_new (void)
{
  RtTail *tail = g_new0 (RtTail, 1);
  tail->steps = g_array_new (FALSE, FALSE, sizeof (RtTailStep));
  tail->texts = g_string_chunk_new (1024);
  return tail;
}

void
rt_tail_add_step (RtTail *tail, const RtTrace *t, const RtLateRequests *r)
{
  if (r->requests->len == 0)
    return;
  RtTailStep ts = { .step_index = r->step_index, .step = r->step };
  const RtLateRequest *last = &g_array_index (r->requests, RtLateRequest, analyse_step (&ts, r));
  if (last->request != RT_NONE)
    {
      const char *id = rt_request_id (t, rt_trace_request (t, last->request));
      ts.last_request_id = id != NULL && id[0] != '\0' ? g_string_chunk_insert (tail->texts, id) : NULL;
      const RtStep *st = rt_trace_step (t, r->step_index);
      rt_trace_requests_done (t, st->first_file, st->n_files);
    }
  tail->attributed_steps += ts.unattributed == 0;
  tail->tail_dominant[ts.tail_dominant]++;
  tail->last_dominant[ts.last_dominant]++;
  g_array_append_val (tail->steps, ts);
}

RtTail *
rt_tail_copy (const RtTail *tail)
{
  RtTail *c = rt_tail_new ();
  g_array_append_vals (c->steps, tail->steps->data, tail->steps->len);
  for (guint i = 0; i < c->steps->len; i++)
    {
      RtTailStep *ts = &g_array_index (c->steps, RtTailStep, i);
      if (ts->last_request_id != NULL)
        ts->last_request_id = g_string_chunk_insert (c->texts, ts->last_request_id);
    }
  c->attributed_steps = tail->attributed_steps;
  memcpy (c->tail_dominant, tail->tail_dominant, sizeof c->tail_dominant);
  memcpy (c->last_dominant, tail->last_dominant, sizeof c->last_dominant);
  return c;
}

RtTail *
rt_tail_analyse (const RtTrace *t, const RtStepSet *steps, const GArray *step_indices)
{
  RtTail *tail = rt_tail_new ();
  g_autoptr (GArray) all = step_indices ? NULL : rt_trace_select_steps (t, steps);
  const GArray *chosen = step_indices ? step_indices : all;
  for (guint i = 0; i < chosen->len; i++)
    {
      g_autoptr (RtLateRequests) r = rt_late_requests_new (t, g_array_index (chosen, guint, i), -1);
      rt_tail_add_step (tail, t, r);
    }
  return tail;
}

void
rt_tail_free (RtTail *tail)
{
  if (tail == NULL)
    return;
  g_array_unref (tail->steps);
  g_string_chunk_free (tail->texts);
  g_free (tail);
}

/* ---- the table ---- */

const RtTableSpec rt_tail_steps_spec = {
  "tail_steps", "one per step with a request, ascending step; seconds from the step's start",
  (const RtColumn[]) {
    { RT_COL ("step", RT_COLUMN_INT, NULL, "the step") },
    { RT_COL ("requests", RT_COLUMN_INT, NULL, "its requests") },
    { RT_COL ("attributed", RT_COLUMN_INT, NULL, "those with own lines, a turn record and turns >= 1") },
    { RT_COL ("t0_s", RT_COLUMN_NUMBER, "s", "the earliest start (end - duration)") },
    { RT_COL ("t90_s", RT_COLUMN_NUMBER, "s", "e_k of the ends ascending, k = ceil(9 R / 10)") },
    { RT_COL ("t100_s", RT_COLUMN_NUMBER, "s", "the last end") },
    { RT_COL ("tail_s", RT_COLUMN_NUMBER, "s", "t100 - t90") },
    { RT_COL ("bubble", RT_COLUMN_NUMBER, NULL, "rank-time idle before t100: sum of (t100 - a worker's last end) / (workers x window)") },
    { RT_COL ("tail_requests", RT_COLUMN_INT, NULL, "requests that ended after t90") },
    { RT_COL ("excess_launch_s", RT_COLUMN_NUMBER, "s", "the tail's summed excess launch over the bulk's mean") },
    { RT_COL ("excess_extra_turns_s", RT_COLUMN_NUMBER, "s", "(n - n_bulk)(e + e_bulk)/2 summed; null unless attributed") },
    { RT_COL ("excess_slower_turns_s", RT_COLUMN_NUMBER, "s", "(e - e_bulk)(n + n_bulk)/2 summed; null unless attributed") },
    { RT_COL ("excess_tool_s", RT_COLUMN_NUMBER, "s", "excess tool time; null unless attributed") },
    { RT_COL ("excess_other_s", RT_COLUMN_NUMBER, "s", "excess other time; null unless attributed") },
    { RT_COL ("excess_duration_s", RT_COLUMN_NUMBER, "s", "excess duration (the split's total)") },
    { RT_COL ("tail_dominant", RT_COLUMN_TEXT, NULL, "the largest excess > 0 (launch, extra_turns, slower_turns, tool, other; not attributed: launch, duration), or none") },
    { RT_COL ("last_worker", RT_COLUMN_INT, NULL, "the worker of the request that ended last") },
    { RT_COL ("last_dominant", RT_COLUMN_TEXT, NULL, "the same of that request alone") },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_tail_steps_table (const RtTail *tail)
{
  RtTable *table = rt_table_new (&rt_tail_steps_spec);
  for (guint i = 0; i < tail->steps->len; i++)
    {
      const RtTailStep *ts = &g_array_index (tail->steps, RtTailStep, i);
      rt_table_int (table, ts->step);
      rt_table_int (table, ts->requests);
      rt_table_int (table, ts->attributed);
      rt_table_number (table, ts->t0_s);
      rt_table_number (table, ts->t90_s);
      rt_table_number (table, ts->t100_s);
      rt_table_number (table, ts->tail_s);
      rt_table_number (table, ts->bubble);
      rt_table_int (table, ts->tail_requests);
      rt_table_number (table, ts->tail_excess.v[RT_PART_LAUNCH]);
      rt_table_number (table, ts->tail_excess.v[RT_PART_EXTRA_TURNS]);
      rt_table_number (table, ts->tail_excess.v[RT_PART_SLOWER_TURNS]);
      rt_table_number (table, ts->tail_excess.v[RT_PART_TOOL]);
      rt_table_number (table, ts->tail_excess.v[RT_PART_OTHER]);
      rt_table_number (table, ts->tail_excess.v[RT_PART_DURATION]);
      rt_table_text_borrowed (table, rt_tail_cause_name (ts->tail_dominant));
      rt_table_int (table, ts->last_worker);
      rt_table_text_borrowed (table, rt_tail_cause_name (ts->last_dominant));
    }
  return table;
}

static const RtTableSpec *const tail_tables[] = { &rt_tail_steps_spec, NULL };

const RtAnalysisSpec rt_tail_analysis = {
  .name = "tail",
  .reads = RT_READS_ROWS | RT_READS_REQUESTS | RT_READS_TURN_SUMS | RT_READS_SOME_IDS,
  .steps = RT_STEPS_GIVEN,
  .tables = tail_tables,
  .plots = "tail",
};
