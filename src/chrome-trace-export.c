/* chrome-trace-export.c: an experiment as a Chrome trace: a process per worker, its step sections on
 * one thread, its requests packed onto few threads with their turns and phases nested inside. */
#include "rolltrace/rt-chrome-trace-export.h"
#include "rolltrace/rt-chrome-trace.h"

#include "spans-shim.h"   /* PROVISIONAL */

#include <math.h>
#include <string.h>

/* Viewers take pid 0 for the idle process of a machine: worker M is process M + 1. */
#define PID_OF(worker) ((gint64) (worker) + 1)
#define TID_SECTIONS 1
#define TID_LANE(lane) ((gint64) (lane) + 2)

/* What one worker (a process) keeps from step to step: its threads. */
typedef struct {
  gint64 pid;
  RtNest sections;
  RtLanes lanes;
  GArray *lane_nests;         /* RtNest of each request thread */
} WorkerTracks;

static void
worker_tracks_free (gpointer p)
{
  WorkerTracks *w = p;
  rt_nest_clear (&w->sections);
  rt_lanes_clear (&w->lanes);
  for (guint i = 0; i < w->lane_nests->len; i++)
    rt_nest_clear (&g_array_index (w->lane_nests, RtNest, i));
  g_array_unref (w->lane_nests);
  g_free (w);
}

typedef struct {
  RtChromeTrace *ct;
  const RtTrace *t;
  const RtSpans *spans;       /* of the step being written */
  double base_s;              /* time 0 of the trace */
  GHashTable *workers;        /* worker -> WorkerTracks */
  RtChromeTraceCounts *counts;
  GArray *buf;                /* RtSpan, reused */
} Export;

static gint64
to_us (const Export *e, double s)
{
  return (gint64) llround ((s - e->base_s) * 1e6);
}

static WorkerTracks *
tracks_of (Export *e, gint32 worker)
{
  WorkerTracks *w = g_hash_table_lookup (e->workers, GINT_TO_POINTER (worker));
  if (w != NULL)
    return w;
  w = g_new0 (WorkerTracks, 1);
  w->pid = PID_OF (worker);
  rt_nest_init (&w->sections);
  rt_lanes_init (&w->lanes);
  w->lane_nests = g_array_new (FALSE, FALSE, sizeof (RtNest));
  g_hash_table_insert (e->workers, GINT_TO_POINTER (worker), w);
  g_autofree char *name = g_strdup_printf ("worker %d", worker);
  rt_chrome_trace_process (e->ct, w->pid, name, worker);
  rt_chrome_trace_thread (e->ct, w->pid, TID_SECTIONS, "step sections", 0);
  e->counts->processes++;
  e->counts->threads++;
  return w;
}

/* The thread of lane `lane`, named when it first appears. */
static RtNest *
lane_nest (Export *e, WorkerTracks *w, guint lane)
{
  while (w->lane_nests->len <= lane)
    {
      RtNest n;
      rt_nest_init (&n);
      g_array_append_val (w->lane_nests, n);
      g_autofree char *name = g_strdup_printf ("requests %u", w->lane_nests->len - 1);
      rt_chrome_trace_thread (e->ct, w->pid, TID_LANE (w->lane_nests->len - 1), name, w->lane_nests->len);
      e->counts->threads++;
    }
  return &g_array_index (w->lane_nests, RtNest, lane);
}

static RtSpan
span_of_section (const Export *e, const RtSpanSection *sec, guint order)
{
  return (RtSpan) {
    .start = to_us (e, sec->start_s),
    .end = to_us (e, sec->end_s),
    /* total_step_duration holds the others */
    .level = sec->event == RT_EV_TOTAL_STEP ? 0 : 1,
    .order = order,
  };
}

static void
write_sections (Export *e, WorkerTracks *w, const RtSpansFile *f)
{
  g_array_set_size (e->buf, 0);
  for (guint i = 0; i < f->n_sections; i++)
    {
      RtSpan s = span_of_section (e, &f->sections[i], i);
      g_array_append_val (e->buf, s);
    }
  RtSpan *spans = (RtSpan *) e->buf->data;
  rt_nest_spans (&w->sections, spans, e->buf->len, FALSE, &e->counts->nest);
  for (guint i = 0; i < e->buf->len; i++)
    if (spans[i].keep)
      rt_chrome_trace_complete (e->ct, w->pid, TID_SECTIONS,
                                rt_event_registry_name (e->t->registry, f->sections[spans[i].order].event),
                                spans[i].start, spans[i].end - spans[i].start);
}

/* The request's own event: named by its finish reason, its figures as args. */
static void
write_request_event (Export *e, WorkerTracks *w, gint64 tid, const RtSpan *s, const RtRequest *q)
{
  const char *reason = q->finish_reason != NULL && *q->finish_reason ? rt_finish_reason_short (q->finish_reason)
                       : NULL;
  RtJsonWriter *jw = rt_chrome_trace_complete_args (e->ct, w->pid, tid, reason != NULL && *reason ? reason : "request",
                                                    s->start, s->end - s->start);
  rt_jw_member_string (jw, "request_id", q->id);
  rt_jw_member_int (jw, "step", q->step);
  rt_jw_key (jw, "turns");
  if (q->turns >= 0)
    rt_jw_int (jw, q->turns);
  else
    rt_jw_null (jw);
  rt_jw_key (jw, "response_length");
  if (q->response_length >= 0)
    rt_jw_int (jw, q->response_length);
  else
    rt_jw_null (jw);
  rt_jw_member_string (jw, "finish_reason", q->finish_reason);
  rt_chrome_trace_end_args (e->ct);
}

/* One request and its lines on the lane the packing gives it. */
static void
write_request (Export *e, WorkerTracks *w, const RtSpanRequest *r)
{
  RtSpan root = { .start = to_us (e, r->start_s), .end = to_us (e, r->end_s), .level = 0, .order = 0 };
  if (root.end < root.start)
    {
      e->counts->nest.violations++;
      return;
    }
  g_array_set_size (e->buf, 0);
  g_array_append_val (e->buf, root);
  for (guint i = 0; i < r->n_lines; i++)
    {
      const RtSpanLine *line = &r->lines[i];
      RtSpan s = {
        .start = to_us (e, line->start_s),
        .end = to_us (e, line->end_s),
        .level = line->kind == RT_SPAN_TURN ? 1 : 2,
        .order = i + 1,
      };
      g_array_append_val (e->buf, s);
    }
  guint lane = rt_lanes_place (&w->lanes, root.start, root.end);
  RtNest *nest = lane_nest (e, w, lane);
  RtSpan *spans = (RtSpan *) e->buf->data;
  rt_nest_spans (nest, spans, e->buf->len, TRUE, &e->counts->nest);
  const RtRequest *q = rt_trace_request (e->t, r->request);
  for (guint i = 0; i < e->buf->len; i++)
    {
      const RtSpan *s = &spans[i];
      if (!s->keep)
        continue;
      if (s->order == 0)
        {
          write_request_event (e, w, TID_LANE (lane), s, q);
          e->counts->requests++;
          continue;
        }
      const RtSpanLine *line = &r->lines[s->order - 1];
      g_autofree char *turn_name = NULL;
      const char *name;
      if (line->kind == RT_SPAN_TURN)
        name = turn_name = line->turn >= 0 ? g_strdup_printf ("turn %d", line->turn) : g_strdup ("turn");
      else
        name = rt_event_registry_name (e->t->registry, line->event);
      rt_chrome_trace_complete (e->ct, w->pid, TID_LANE (lane), name, s->start, s->end - s->start);
    }
}

typedef struct {
  gint64 at;
  int delta;
} Change;

static int
change_compare (gconstpointer pa, gconstpointer pb)
{
  const Change *a = pa, *b = pb;
  if (a->at != b->at)
    return a->at < b->at ? -1 : 1;
  return a->delta - b->delta;     /* ends before starts */
}

/* The file's requests in flight, one sample at each instant the number changes. */
static void
write_in_flight (Export *e, WorkerTracks *w, const RtSpansFile *f)
{
  g_autoptr (GArray) changes = g_array_new (FALSE, FALSE, sizeof (Change));
  for (guint i = 0; i < f->n_requests; i++)
    {
      gint64 s = to_us (e, f->requests[i].start_s), end = to_us (e, f->requests[i].end_s);
      if (end <= s)
        continue;                  /* an empty life is never in flight */
      Change c[2] = { { s, +1 }, { end, -1 } };
      g_array_append_vals (changes, c, 2);
    }
  g_array_sort (changes, change_compare);
  const Change *c = (const Change *) changes->data;
  gint64 alive = 0;
  for (guint i = 0; i < changes->len; i++)
    {
      alive += c[i].delta;
      if (i + 1 == changes->len || c[i + 1].at != c[i].at)
        rt_chrome_trace_counter (e->ct, w->pid, "requests in flight", c[i].at, "requests", alive);
    }
}

static int
request_by_start (gconstpointer pa, gconstpointer pb)
{
  const RtSpanRequest *a = *(const RtSpanRequest *const *) pa, *b = *(const RtSpanRequest *const *) pb;
  if (a->start_s != b->start_s)
    return a->start_s < b->start_s ? -1 : 1;
  return a->request < b->request ? -1 : a->request > b->request;
}

static void
write_file (Export *e, const RtSpansFile *f)
{
  WorkerTracks *w = tracks_of (e, f->worker);
  write_sections (e, w, f);
  /* packing wants them by start */
  g_autoptr (GPtrArray) order = g_ptr_array_sized_new (f->n_requests);
  for (guint i = 0; i < f->n_requests; i++)
    g_ptr_array_add (order, (gpointer) &f->requests[i]);
  g_ptr_array_sort (order, request_by_start);
  for (guint i = 0; i < order->len; i++)
    write_request (e, w, g_ptr_array_index (order, i));
  write_in_flight (e, w, f);
}

void
rt_chrome_trace_write_experiment (RtChromeTrace *ct, const RtTrace *t, const GArray *step_indices,
                                  const RtStepSet *workers, RtChromeTraceCounts *counts)
{
  memset (counts, 0, sizeof *counts);
  Export e = {
    .ct = ct,
    .t = t,
    .base_s = rt_chrome_trace_time_base (t, step_indices, workers),
    .workers = g_hash_table_new_full (NULL, NULL, NULL, worker_tracks_free),
    .counts = counts,
    .buf = g_array_new (FALSE, FALSE, sizeof (RtSpan)),
  };
  for (guint i = 0; i < step_indices->len; i++)
    {
      g_autoptr (RtSpans) spans = rt_spans_analyse (t, g_array_index (step_indices, guint, i), workers);
      for (guint k = 0; k < spans->files->len; k++)
        write_file (&e, &g_array_index (spans->files, RtSpansFile, k));
    }
  g_hash_table_unref (e.workers);
  g_array_unref (e.buf);
}

double
rt_chrome_trace_time_base (const RtTrace *t, const GArray *step_indices, const RtStepSet *workers)
{
  double base = NAN;
  for (guint i = 0; i < step_indices->len; i++)
    {
      const RtStep *step = rt_trace_step (t, g_array_index (step_indices, guint, i));
      for (guint f = step->first_file; f < step->first_file + step->n_files; f++)
        {
          const RtFile *file = rt_trace_file (t, f);
          if ((workers == NULL || rt_step_set_contains (workers, file->worker)) && isfinite (file->start_min_s)
              && !(file->start_min_s >= base))
            base = file->start_min_s;
        }
    }
  return isfinite (base) ? base : 0.0;
}
