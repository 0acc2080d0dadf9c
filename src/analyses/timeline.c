/* SPDX-License-Identifier: Apache-2.0 */
/* timeline.c: when one step's requests ran: the moments 50/90/99/100 % of them had finished, how
 * many ran at once, how busy each worker was, and the Gantt's bars (phases and waiting) by lane. */
#include "rolltrace/analyses/timeline.h"
#include "../sort-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- in flight: a sweep over the lives' starts and ends ---- */

typedef struct {
  double time_s;
  int delta;                  /* +1 a start, -1 an end */
  guint worker;               /* index into the step's workers */
} Edge;

static inline guint64
edge_time_key (const Edge *e)
{
  return rt_double_order_key (e->time_s);
}

/* by time alone, stable: the edges come ends first, so that at equal times ends come before
 * starts (and each kind in the order of the lives) */
RT_DEFINE_RADIX_SORT (sort_edges_by_time, Edge, edge_time_key)

/* The rows of the in-flight table, written in place into arrays sized for all of them. */
typedef struct {
  RtInflightRow *rows;
  guint *counts;
  guint n_rows;
} InflightRows;

static inline void
inflight_row (InflightRows *out, double time_s, guint total, const guint *counts, guint n_workers)
{
  guint first = out->n_rows * n_workers;
  out->rows[out->n_rows++] = (RtInflightRow) { time_s, total, first };
  memcpy (out->counts + first, counts, n_workers * sizeof (guint));
}

/* Adds a row of the counts after every instant, and the peaks. An empty life is never in flight. */
static void
sweep_in_flight (RtTimeline *tl)
{
  const RtSpans *sp = tl->spans;
  guint n_workers = sp->workers->len;
  /* a start and an end of each life (never NaN), the ends first, each kind in the order of
   * the lives, then sorted by time: by time, ends before starts at equal times */
  guint n_lives = 0;
  for (guint i = 0; i < sp->requests->len; i++)
    {
      const RtSpanRequest *q = rt_spans_request (sp, i);
      n_lives += q->end_s > q->start_s;
    }
  g_autoptr (GArray) edges = g_array_sized_new (FALSE, FALSE, sizeof (Edge), 2 * n_lives);
  g_array_set_size (edges, 2 * n_lives);
  Edge *edge = (Edge *) (void *) edges->data;
  for (guint i = 0, k = 0; i < sp->requests->len; i++)
    {
      const RtSpanRequest *q = rt_spans_request (sp, i);
      if (!(q->end_s > q->start_s))
        continue;
      edge[k] = (Edge) { q->end_s, -1, q->worker_index };
      edge[n_lives + k] = (Edge) { q->start_s, +1, q->worker_index };
      k++;
    }
  if (edges->len > 1)
    {
      g_autofree Edge *room = g_new (Edge, edges->len);
      sort_edges_by_time (edge, edges->len, room);
    }

  g_autofree guint *counts = g_new0 (guint, MAX (n_workers, 1u));
  guint total = 0;
  /* a row after each instant, and one at each end of the step at most */
  guint most_rows = edges->len + 2;
  g_array_set_size (tl->inflight, most_rows);
  g_array_set_size (tl->inflight_counts, most_rows * n_workers);
  InflightRows out = { (RtInflightRow *) (void *) tl->inflight->data, (guint *) (void *) tl->inflight_counts->data, 0 };
  /* from the step's start with nothing in flight, then after each instant, then the end */
  if (edges->len == 0 || g_array_index (edges, Edge, 0).time_s > 0)
    inflight_row (&out, 0, total, counts, n_workers);
  for (guint i = 0; i < edges->len;)
    {
      double time_s = g_array_index (edges, Edge, i).time_s;
      for (; i < edges->len && g_array_index (edges, Edge, i).time_s == time_s; i++)
        {
          const Edge *e = &g_array_index (edges, Edge, i);
          counts[e->worker] += e->delta;
          total += e->delta;
          RtTimelineWorker *w = &g_array_index (tl->workers, RtTimelineWorker, e->worker);
          w->peak_in_flight = MAX (w->peak_in_flight, counts[e->worker]);
          tl->peak_in_flight = MAX (tl->peak_in_flight, total);
        }
      inflight_row (&out, time_s, total, counts, n_workers);
    }
  if (tl->end_s > out.rows[out.n_rows - 1].time_s)
    inflight_row (&out, tl->end_s, total, counts, n_workers);
  g_array_set_size (tl->inflight, out.n_rows);
  g_array_set_size (tl->inflight_counts, out.n_rows * n_workers);
}

/* ---- the answers ---- */

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

RT_DEFINE_MERGE_SORT (sort_doubles, double, compare_doubles)

static inline guint64
double_key (const double *v)
{
  return rt_double_order_key (*v);
}

RT_DEFINE_RADIX_SORT (radix_sort_doubles, double, double_key)
RT_DEFINE_INSERTION_SORT (insertion_sort_doubles, double, compare_doubles)

/* e_k with k = ceil(p n / 100), of the n ends ascending */
static double
end_percentile (const double *ends, guint n, guint p)
{
  if (n == 0)
    return NAN;
  guint64 k = ((guint64) p * n + 99) / 100;
  return ends[MAX (k, 1) - 1];
}

/* the length of the union of the worker's lives (sorted by start) */
static double
busy_time (const RtSpans *sp, const RtSpanWorker *w)
{
  double busy = 0, run_start = NAN, run_end = NAN;
  for (guint i = 0; i < w->n_requests; i++)
    {
      const RtSpanRequest *q = rt_spans_request (sp, w->first_request + i);
      if (!(q->end_s > q->start_s))
        continue;
      if (!isnan (run_end) && q->start_s <= run_end)
        run_end = MAX (run_end, q->end_s);
      else
        {
          if (!isnan (run_end))
            busy += run_end - run_start;
          run_start = q->start_s;
          run_end = q->end_s;
        }
    }
  return isnan (run_end) ? busy : busy + run_end - run_start;
}

static void
add_workers (RtTimeline *tl, const RtTrace *t)
{
  const RtSpans *sp = tl->spans;
  for (guint k = 0; k < sp->workers->len; k++)
    {
      const RtSpanWorker *sw = rt_spans_worker (sp, k);
      RtTimelineWorker w = {
        .worker = sw->worker, .start_s = sw->start_s, .end_s = sw->end_s,
        .requests = sw->n_requests, .busy_share = NAN,
        .barrier_s = rt_trace_file (t, sw->file)->step_sum_s[RT_EV_BARRIER_WAIT],
      };
      double span = sw->end_s - sw->start_s;
      if (span > 0)
        w.busy_share = busy_time (sp, sw) / span;
      g_array_append_val (tl->workers, w);
    }
}

int
rt_timeline_step_index (const RtTrace *t, const RtStepSet *steps, gint32 step)
{
  if (step < 0)
    return rt_view_slowest_step (t, steps);
  if (steps == NULL || rt_step_set_contains (steps, step))
    return rt_trace_find_step (t, step);
  return -1;
}

RtTimeline *
rt_timeline_analyse (const RtTrace *t, const RtStepSet *steps, gint32 step)
{
  RtTimeline *tl = g_new0 (RtTimeline, 1);
  tl->workers = g_array_new (FALSE, FALSE, sizeof (RtTimelineWorker));
  tl->inflight = g_array_new (FALSE, FALSE, sizeof (RtInflightRow));
  tl->inflight_counts = g_array_new (FALSE, FALSE, sizeof (guint));
  tl->end_s = tl->t50_s = tl->t90_s = tl->t99_s = tl->t100_s = tl->tail_share = NAN;
  tl->step = step;
  tl->step_index = rt_timeline_step_index (t, steps, step);
  tl->has_step = step >= 0 || tl->step_index >= 0;
  if (tl->step_index < 0)
    return tl;
  tl->step = rt_trace_step (t, tl->step_index)->step;

  tl->found = TRUE;
  /* the lines of the requests only where a Gantt draws them (rt_spans_worker_lines) */
  tl->spans = rt_spans_analyse_requests (t, (guint) tl->step_index);
  const RtSpans *sp = tl->spans;
  tl->end_s = sp->end_s;
  tl->requests = sp->requests->len;
  g_autofree double *ends = g_new (double, MAX (tl->requests, 1u));
  gboolean any_nan = FALSE;
  for (guint i = 0; i < tl->requests; i++)
    {
      ends[i] = rt_spans_request (sp, i)->end_s;
      any_nan = any_nan || isnan (ends[i]);
    }
  {
    /* without NaN (a strict order) the radix sort's order is the merge sort's */
    g_autofree double *room = g_new (double, MAX (tl->requests, 1u));
    if (any_nan)
      sort_doubles (ends, tl->requests, room);
    else
      radix_sort_doubles (ends, tl->requests, room);
  }
  tl->t50_s = end_percentile (ends, tl->requests, 50);
  tl->t90_s = end_percentile (ends, tl->requests, 90);
  tl->t99_s = end_percentile (ends, tl->requests, 99);
  tl->t100_s = end_percentile (ends, tl->requests, 100);
  if (tl->t100_s > 0)
    tl->tail_share = (tl->t100_s - tl->t90_s) / tl->t100_s;
  add_workers (tl, t);
  sweep_in_flight (tl);
  return tl;
}

void
rt_timeline_free (RtTimeline *tl)
{
  if (tl == NULL)
    return;
  g_clear_pointer (&tl->spans, rt_spans_free);
  g_array_unref (tl->workers);
  g_array_unref (tl->inflight);
  g_array_unref (tl->inflight_counts);
  g_free (tl);
}

/* ---- tables ---- */

const RtTableSpec rt_timeline_workers_spec = {
  "timeline_workers", "one per worker file of the step, ascending worker",
  (const RtColumn[]) {
    { RT_COL ("worker", RT_COLUMN_INT, NULL, "the worker (rank)") },
    { RT_COL ("start_s", RT_COLUMN_NUMBER, "s", "its first line's start (timestamp - duration_sec) from the step's start") },
    { RT_COL ("end_s", RT_COLUMN_NUMBER, "s", "its last timestamp from the step's start") },
    { RT_COL ("requests", RT_COLUMN_INT, NULL, "its requests (complete lines with a duration and a time)") },
    { RT_COL ("peak_in_flight", RT_COLUMN_INT, NULL, "the most of its requests alive at one instant") },
    { RT_COL ("busy_share", RT_COLUMN_NUMBER, NULL, "the union of its requests' lives / (end_s - start_s)") },
    { RT_COL ("barrier_s", RT_COLUMN_NUMBER, "s", "its barrier_wait_duration (older: barrier); null when absent") },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_timeline_workers_table (const RtTimeline *tl)
{
  RtTable *table = rt_table_new (&rt_timeline_workers_spec);
  for (guint i = 0; i < tl->workers->len; i++)
    {
      const RtTimelineWorker *w = &g_array_index (tl->workers, RtTimelineWorker, i);
      rt_table_int (table, w->worker);
      rt_table_number (table, w->start_s);
      rt_table_number (table, w->end_s);
      rt_table_int (table, w->requests);
      rt_table_int (table, w->peak_in_flight);
      rt_table_number (table, w->busy_share);
      rt_table_number (table, w->barrier_s);
    }
  return table;
}

/* Whether worker k of the step is among `workers` (NULL: all). */
static gboolean
worker_wanted (const RtTimeline *tl, guint k, const GArray *workers)
{
  if (workers == NULL)
    return TRUE;
  gint32 worker = rt_spans_worker (tl->spans, k)->worker;
  for (guint i = 0; i < workers->len; i++)
    if (g_array_index (workers, gint32, i) == worker)
      return TRUE;
  return FALSE;
}

const RtTableSpec rt_timeline_inflight_spec = {
  "inflight", "one per instant where a request began or ended (its counts after it), from the step's start to its end",
  (const RtColumn[]) {
    { RT_COL ("time_s", RT_COLUMN_NUMBER, "s", "seconds from the step's start") },
    { RT_COL ("total", RT_COLUMN_INT, NULL, "requests in flight on all workers") },
    { RT_COL ("WORKER", RT_COLUMN_INT, NULL, "requests in flight on each worker, worker_M"), .flags = RT_COLUMN_EACH },
    RT_COLUMNS_END,
  },
};

/* The in-flight table's columns for `workers`, without a row. */
static RtTable *
inflight_table_new (const RtTimeline *tl, const GArray *workers)
{
  RtTable *table = rt_table_new (&rt_timeline_inflight_spec);
  guint n_workers = tl->workers->len;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (guint k = 0; k < n_workers; k++)
    if (worker_wanted (tl, k, workers))
      g_ptr_array_add (names, g_strdup_printf ("worker_%d", g_array_index (tl->workers, RtTimelineWorker, k).worker));
  rt_table_expand (table, "WORKER", (const char *const *) names->pdata, names->len);
  return table;
}

/* Rows [from, to) of the in-flight table. */
static void
inflight_rows (RtTable *table, const RtTimeline *tl, const GArray *workers, guint from, guint to)
{
  guint n_workers = tl->workers->len;
  for (guint i = from; i < to; i++)
    {
      const RtInflightRow *row = &g_array_index (tl->inflight, RtInflightRow, i);
      rt_table_number (table, row->time_s);
      rt_table_int (table, row->total);
      for (guint k = 0; k < n_workers; k++)
        if (worker_wanted (tl, k, workers))
          rt_table_int (table, g_array_index (tl->inflight_counts, guint, row->first_count + k));
    }
}

RtTable *
rt_timeline_inflight_table (const RtTimeline *tl, const GArray *workers)
{
  RtTable *table = inflight_table_new (tl, workers);
  rt_table_reserve_rows (table, tl->inflight->len);
  inflight_rows (table, tl, workers, 0, tl->inflight->len);
  return table;
}

RtTable *
rt_timeline_inflight_columns (const RtTimeline *tl, const GArray *workers)
{
  return inflight_table_new (tl, workers);
}

void
rt_timeline_inflight_rows_tsv (const RtTimeline *tl, const GArray *workers, RtTsvWriter *w, guint from, guint to)
{
  guint n_workers = tl->workers->len;
  guint wanted[64], n_wanted = 0;   /* the counts' columns, when some workers are left out */
  g_autofree guint *more = n_workers > G_N_ELEMENTS (wanted) ? g_new (guint, n_workers) : NULL;
  guint *columns = more ? more : wanted;
  for (guint k = 0; k < n_workers; k++)
    if (worker_wanted (tl, k, workers))
      columns[n_wanted++] = k;
  for (guint i = from; i < MIN (to, tl->inflight->len); i++)
    {
      const RtInflightRow *row = &g_array_index (tl->inflight, RtInflightRow, i);
      const guint *counts = &g_array_index (tl->inflight_counts, guint, row->first_count);
      rt_tsv_writer_number (w, row->time_s);
      rt_tsv_writer_int (w, row->total);
      if (n_wanted == n_workers)
        rt_tsv_writer_uints (w, counts, n_workers);
      else
        for (guint j = 0; j < n_wanted; j++)
          rt_tsv_writer_int (w, counts[columns[j]]);
    }
}

GString *
rt_timeline_inflight_tsv (const RtTimeline *tl, const GArray *workers, guint *n_columns)
{
  g_autoptr (RtTable) table = inflight_table_new (tl, workers);
  *n_columns = rt_table_n_columns (table);
  guint n = tl->inflight->len;
  /* about what a row takes: its time and a count per column */
  GString *out = g_string_sized_new (MIN ((gsize) (n + 1) * (24 + 4 * *n_columns) + 4096, (gsize) 256 << 20));
  g_autoptr (RtTsvWriter) w = rt_tsv_writer_new (table, out, TRUE);
  rt_timeline_inflight_rows_tsv (tl, workers, w, 0, n);
  return out;
}

const RtTableSpec rt_timeline_gantt_spec = {
  "timeline", "one per bar of the Gantt: a worker's band and sections, a request's life, phases and waits",
  (const RtColumn[]) {
    { RT_COL ("lane", RT_COLUMN_INT, NULL, "the lane, from 0 at the top: a worker's band, then its requests by start") },
    { RT_COL ("worker", RT_COLUMN_INT, NULL, "the worker (rank)") },
    { RT_COL ("request_id", RT_COLUMN_TEXT, NULL, "the request's id; null on a worker's band") },
    { RT_COL ("phase", RT_COLUMN_TEXT, NULL,
              "worker (its file's span), preprocessing, generation, barrier wait, other sections (on "
              "the band); request (its life), pre-process, engine, tool, post-process, other, waiting; "
              "unlogged (the life of a request without a timed line of its own)") },
    { RT_COL ("start_s", RT_COLUMN_NUMBER, "s", "from the step's start") },
    { RT_COL ("end_s", RT_COLUMN_NUMBER, "s", "from the step's start") },
    RT_COLUMNS_END,
  },
};

/* Where the bars go, one at a time. */
typedef struct {
  RtGanttBarFunc each;
  gpointer data;
} GanttSink;

static inline void
gantt_row (const GanttSink *sink, guint lane, gint32 worker, const char *request_id, const char *phase,
           double start_s, double end_s)
{
  RtGanttBar bar = { lane, worker, request_id, phase, start_s, end_s };
  sink->each (&bar, sink->data);
}

/* a bar as a row of the table */
static void
gantt_table_row (const RtGanttBar *bar, gpointer table)
{
  rt_table_int (table, bar->lane);
  rt_table_int (table, bar->worker);
  /* the ids are the trace's, the phases static: both outlive the table */
  rt_table_text_borrowed (table, bar->request_id);
  rt_table_text_borrowed (table, bar->phase);
  rt_table_number (table, bar->start_s);
  rt_table_number (table, bar->end_s);
}

void
rt_timeline_gantt_bar_tsv (RtTsvWriter *w, const RtGanttBar *bar)
{
  rt_tsv_writer_int (w, bar->lane);
  rt_tsv_writer_int (w, bar->worker);
  rt_tsv_writer_text (w, bar->request_id);
  rt_tsv_writer_text (w, bar->phase);
  rt_tsv_writer_number (w, bar->start_s);
  rt_tsv_writer_number (w, bar->end_s);
}

static const char *
band_phase (guint16 event)
{
  switch (event)
    {
    case RT_EV_PREPROCESSING: return "preprocessing";
    case RT_EV_ASYNC_GENERATE: return "generation";
    case RT_EV_BARRIER_WAIT: return "barrier wait";
    case RT_EV_TOTAL_STEP: return NULL;   /* the whole band: the "worker" row shows it */
    default: return "other sections";
    }
}

/* A request's life cut where its phases begin and end: each piece shows the innermost phase
 * covering it (the one that began last; lines come by start, the longer first), or waiting. */
/* The arrays gantt_request works in, kept from one request to the next. */
typedef struct {
  GArray *cuts;     /* double */
  GArray *phases;   /* RtSpanLine */
  GArray *active;   /* guint */
} GanttScratch;

static void
gantt_request (const GanttSink *table, const RtSpanLine *lines, const RtSpanRequest *q, guint lane, gint32 worker,
               const char *id, GanttScratch *scratch)
{
  gantt_row (table, lane, worker, id, "request", q->start_s, q->end_s);
  GArray *cuts = scratch->cuts, *phases = scratch->phases;
  /* sized for every line, written in place, then cut to what was kept */
  g_array_set_size (cuts, 2 + 2 * q->n_lines);
  g_array_set_size (phases, q->n_lines);
  double *cut = (double *) (void *) cuts->data;
  RtSpanLine *phase_at = (RtSpanLine *) (void *) phases->data;
  guint n_cuts = 0, n_phases = 0;
  cut[n_cuts++] = q->start_s;
  cut[n_cuts++] = q->end_s;
  for (guint i = 0; i < q->n_lines; i++)
    {
      RtSpanLine l = lines[i];
      l.start_s = MAX (l.start_s, q->start_s);
      l.end_s = MIN (l.end_s, q->end_s);
      if (l.kind == RT_PHASE_ENCLOSING || !(l.end_s > l.start_s))
        continue;
      phase_at[n_phases++] = l;
      cut[n_cuts++] = l.start_s;
      cut[n_cuts++] = l.end_s;
    }
  g_array_set_size (cuts, n_cuts);
  g_array_set_size (phases, n_phases);
  if (phases->len == 0)
    {
      /* the older logger ties no phase to a request: its life is all we know */
      gantt_row (table, lane, worker, id, "unlogged", q->start_s, q->end_s);
      return;
    }
  {
    /* nearly in order (the phases follow one another): by insertion when there are few and
     * none is NaN (the order is then strict: the same result as the merge sort's) */
    double *c = (double *) (void *) cuts->data;
    gboolean strict = cuts->len <= 128;
    for (guint i = 0; strict && i < cuts->len; i++)
      strict = !isnan (c[i]);
    if (strict)
      insertion_sort_doubles (c, cuts->len);
    else
      {
        double room[64];
        g_autofree double *big = cuts->len > G_N_ELEMENTS (room) ? g_new (double, cuts->len) : NULL;
        sort_doubles (c, cuts->len, big ? big : room);
      }
  }

  /* the phases begun and not yet ended, in the order they began: at most all of them */
  g_array_set_size (scratch->active, phases->len);
  guint *active = (guint *) (void *) scratch->active->data, n_active = 0;
  const RtSpanLine *phase_lines = (const RtSpanLine *) (void *) phases->data;
  guint next = 0;
  const char *open_phase = NULL;
  double open_start = q->start_s;
  for (guint c = 0; c + 1 < cuts->len; c++)
    {
      double x = g_array_index (cuts, double, c), y = g_array_index (cuts, double, c + 1);
      if (!(y > x))
        continue;
      for (; next < phases->len && phase_lines[next].start_s <= x; next++)
        active[n_active++] = next;
      guint kept = 0;   /* those that end by x leave, the others keep their order */
      for (guint a = 0; a < n_active; a++)
        if (!(phase_lines[active[a]].end_s <= x))
          active[kept++] = active[a];
      n_active = kept;
      const char *phase = "waiting";
      if (n_active > 0)
        phase = rt_phase_kind_name (phase_lines[active[n_active - 1]].kind);
      if (phase != open_phase)
        {
          if (open_phase != NULL)
            gantt_row (table, lane, worker, id, open_phase, open_start, x);
          open_phase = phase;
          open_start = x;
        }
    }
  if (open_phase != NULL)
    gantt_row (table, lane, worker, id, open_phase, open_start, q->end_s);
}

/* A request's life [start, end) meets the window [from_s, to_s) (NAN: unbounded). */
static gboolean
request_in_window (const RtSpanRequest *q, double from_s, double to_s)
{
  return !(!isnan (from_s) && q->end_s <= from_s) && !(!isnan (to_s) && q->start_s >= to_s);
}

guint
rt_timeline_gantt_requests (const RtTimeline *tl, const GArray *workers, double from_s, double to_s)
{
  const RtSpans *sp = tl->spans;
  guint n = 0;
  for (guint k = 0; sp != NULL && k < sp->workers->len; k++)
    {
      if (!worker_wanted (tl, k, workers))
        continue;
      const RtSpanWorker *w = rt_spans_worker (sp, k);
      for (guint i = 0; i < w->n_requests; i++)
        n += request_in_window (rt_spans_request (sp, w->first_request + i), from_s, to_s);
    }
  return n;
}

/* The Gantt's bars of the step's workers [first_worker, end_worker), handed to `sink`. */
static void
gantt_rows (const GanttSink *sink, const RtTrace *t, const RtTimeline *tl, const GArray *workers, double from_s,
            double to_s, gboolean phases, guint first_worker, guint end_worker)
{
  const RtSpans *sp = tl->spans;
  g_autoptr (GArray) cuts = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) phase_lines = g_array_new (FALSE, FALSE, sizeof (RtSpanLine));
  g_autoptr (GArray) active = g_array_new (FALSE, FALSE, sizeof (guint));
  GanttScratch scratch = { cuts, phase_lines, active };
  g_autoptr (GArray) lines = g_array_new (FALSE, FALSE, sizeof (RtSpanLine));   /* of a worker's requests shown */
  g_autoptr (GArray) wanted = g_array_new (FALSE, FALSE, sizeof (gboolean));
  g_autoptr (GArray) first_line = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint lane = rt_timeline_gantt_first_lane (tl, workers, from_s, to_s, first_worker);
  for (guint k = first_worker; sp != NULL && k < MIN (end_worker, sp->workers->len); k++)
    {
      if (!worker_wanted (tl, k, workers))
        continue;
      const RtSpanWorker *w = rt_spans_worker (sp, k);
      gantt_row (sink, lane, w->worker, NULL, "worker", w->start_s, w->end_s);
      for (guint i = 0; i < w->n_sections; i++)
        {
          const RtSpanSection *sec = rt_spans_section (sp, w->first_section + i);
          const char *phase = band_phase (sec->event);
          if (phase != NULL)
            gantt_row (sink, lane, w->worker, NULL, phase, sec->start_s, sec->end_s);
        }
      lane++;
      if (phases)
        {
          g_array_set_size (wanted, w->n_requests);
          g_array_set_size (first_line, w->n_requests);
          for (guint i = 0; i < w->n_requests; i++)
            g_array_index (wanted, gboolean, i) = request_in_window (rt_spans_request (sp, w->first_request + i),
                                                                     from_s, to_s);
          rt_spans_worker_lines (sp, t, k, (const gboolean *) (void *) wanted->data, lines,
                                 (guint32 *) (void *) first_line->data);
        }
      for (guint i = 0; i < w->n_requests; i++)
        {
          const RtSpanRequest *q = rt_spans_request (sp, w->first_request + i);
          if (!request_in_window (q, from_s, to_s))
            continue;
          const char *id = q->request != RT_NONE ? rt_request_id (t, rt_trace_request (t, q->request)) : NULL;
          if (phases)
            gantt_request (sink, q->n_lines > 0 ? &g_array_index (lines, RtSpanLine, g_array_index (first_line, guint32, i))
                                                : NULL,
                           q, lane++, w->worker, id, &scratch);
          else
            gantt_row (sink, lane++, w->worker, id, "request", q->start_s, q->end_s);
        }
      lane++;
    }
}

RtTable *
rt_timeline_gantt_table (const RtTrace *t, const RtTimeline *tl, const GArray *workers, double from_s, double to_s,
                         gboolean phases)
{
  RtTable *table = rt_table_new (&rt_timeline_gantt_spec);
  GanttSink sink = { gantt_table_row, table };
  gantt_rows (&sink, t, tl, workers, from_s, to_s, phases, 0, G_MAXUINT);
  return table;
}

void
rt_timeline_gantt_each (const RtTrace *t, const RtTimeline *tl, const GArray *workers, double from_s, double to_s,
                        gboolean phases, guint first_worker, guint end_worker, RtGanttBarFunc each, gpointer data)
{
  GanttSink sink = { each, data };
  gantt_rows (&sink, t, tl, workers, from_s, to_s, phases, first_worker, end_worker);
}

guint
rt_timeline_gantt_first_lane (const RtTimeline *tl, const GArray *workers, double from_s, double to_s, guint k)
{
  const RtSpans *sp = tl->spans;
  guint lane = 0;
  for (guint j = 0; sp != NULL && j < MIN (k, sp->workers->len); j++)
    {
      if (!worker_wanted (tl, j, workers))
        continue;
      const RtSpanWorker *w = rt_spans_worker (sp, j);
      lane += 2;   /* its band, and the empty lane after its requests */
      for (guint i = 0; i < w->n_requests; i++)
        lane += request_in_window (rt_spans_request (sp, w->first_request + i), from_s, to_s);
    }
  return lane;
}

static const RtTableSpec *const timeline_tables[] = { &rt_timeline_workers_spec, &rt_timeline_inflight_spec, &rt_timeline_gantt_spec, NULL };

const RtAnalysisSpec rt_timeline_analysis = {
  .name = "timeline",
  .reads = RT_READS_ROWS | RT_READS_REQUESTS | RT_READS_REQUEST_IDS,
  .steps = RT_STEPS_ONE,
  .tables = timeline_tables,
  .plots = "timeline_step_N, timeline_step_N_tail, inflight_step_N",
};
