/* SPDX-License-Identifier: Apache-2.0 */
/* chrome-trace-export.c: an experiment as a Chrome trace: a process per worker, its step sections on
 * one thread, its requests packed onto few threads with their turns and phases nested inside. */
#include "rolltrace/rt-chrome-trace-export.h"
#include "rolltrace/rt-chrome-trace.h"

#include <math.h>
#include <string.h>

/* Viewers take pid 0 for the idle process of a machine: worker M is process M + 1. */
#define PID_OF(worker) ((gint64) (worker) + 1)
#define TID_SECTIONS 1
#define TID_LANE(lane) ((gint64) (lane) + 2)

/* The category of each event (docs/trace.md lists them): what Perfetto groups and filters by. */
#define CAT_STEP_SECTION "step_section"
#define CAT_REQUEST "request"
#define CAT_TURN "turn"
#define CAT_PHASE "phase"
#define CAT_TOOL "tool"
#define CAT_COUNTER "counter"

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
  double base_s;              /* time 0 of the trace, absolute */
  double shift_s;             /* spans->origin_s - base_s: a step's times into the trace's */
  GHashTable *workers;        /* worker -> WorkerTracks */
  RtChromeTraceCounts *counts;
  GArray *buf;                /* RtSpan, reused */
  guint16 running_state;      /* the older logger's whole turn, RT_EVENT_NONE when not logged */
  GArray *section_names;      /* RtChromeName of each event id as a step section, NO_NAME until
                               * first written */
  GArray *line_names;         /* of each event id as a request's line, likewise */
  GArray *turn_names;         /* of "turn K", likewise, for 0 <= K < TURN_NAMES */
} Export;

#define NO_NAME G_MAXUINT
#define TURN_NAMES 1024

/* The cell of `slot` in `names`, NO_NAME until the caller fills it. */
static RtChromeName *
name_slot (GArray *names, guint slot)
{
  while (names->len <= slot)
    {
      RtChromeName none = NO_NAME;
      g_array_append_val (names, none);
    }
  return &g_array_index (names, RtChromeName, slot);
}

/* An event named as event id `event`, in `cat`; `names`: those made of that category. */
static void
complete_event (Export *e, GArray *names, const char *cat, gint64 pid, gint64 tid, guint16 event, gint64 ts,
                gint64 dur)
{
  RtChromeName *name = name_slot (names, event);
  if (*name == NO_NAME)
    *name = rt_chrome_trace_name (e->ct, rt_event_registry_name (e->t->registry, event), cat);
  rt_chrome_trace_complete_name (e->ct, pid, tid, *name, ts, dur);
}

/* "turn K", its name made once for the usual K */
static void
complete_turn (Export *e, gint64 pid, gint64 tid, int turn, gint64 ts, gint64 dur)
{
  char text[24];
  if (turn < 0 || turn >= TURN_NAMES)
    {
      g_snprintf (text, sizeof text, "turn %d", turn);
      rt_chrome_trace_complete (e->ct, pid, tid, text, CAT_TURN, ts, dur);
      return;
    }
  RtChromeName *name = name_slot (e->turn_names, (guint) turn);
  if (*name == NO_NAME)
    {
      g_snprintf (text, sizeof text, "turn %d", turn);
      *name = rt_chrome_trace_name (e->ct, text, CAT_TURN);
    }
  rt_chrome_trace_complete_name (e->ct, pid, tid, *name, ts, dur);
}

/* Seconds from the step's start (as RtSpans gives them) to microseconds from the trace's. */
static gint64
to_us (const Export *e, double s)
{
  return (gint64) llround ((e->shift_s + s) * 1e6);
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

static RtSpan *
add_span (GArray *buf, const Export *e, double start_s, double end_s, guint level, guint order)
{
  RtSpan s = { .start = to_us (e, start_s), .end = to_us (e, end_s), .level = level, .order = order };
  g_array_append_val (buf, s);
  return &g_array_index (buf, RtSpan, buf->len - 1);
}

static void
write_sections (Export *e, WorkerTracks *w, const RtSpanWorker *f)
{
  g_array_set_size (e->buf, 0);
  for (guint i = 0; i < f->n_sections; i++)
    {
      const RtSpanSection *sec = rt_spans_section (e->spans, f->first_section + i);
      /* total_step_duration holds the others */
      add_span (e->buf, e, sec->start_s, sec->end_s, sec->event == RT_EV_TOTAL_STEP ? 0 : 1, i);
    }
  RtSpan *spans = (RtSpan *) e->buf->data;
  rt_nest_spans (&w->sections, spans, e->buf->len, FALSE, &e->counts->nest);
  for (guint i = 0; i < e->buf->len; i++)
    if (spans[i].keep)
      {
        guint16 event = rt_spans_section (e->spans, f->first_section + spans[i].order)->event;
        complete_event (e, e->section_names, CAT_STEP_SECTION, w->pid, TID_SECTIONS, event, spans[i].start,
                        spans[i].end - spans[i].start);
      }
}

/* `value`, or null when it is negative (not logged) */
static void
member_count (RtJsonWriter *jw, const char *key, gint64 value)
{
  rt_jw_key (jw, key);
  if (value >= 0)
    rt_jw_int (jw, value);
  else
    rt_jw_null (jw);
}

/* The request's own event: named by its finish reason, its figures as args (null when the
 * complete line could not be tied to a request of the table). */
static void
write_request_event (Export *e, WorkerTracks *w, gint64 tid, const RtSpan *s, const RtSpanRequest *r)
{
  const RtRequest *q = r->request != RT_NONE ? rt_trace_request (e->t, r->request) : NULL;
  const char *reason = q != NULL && q->finish_reason != 0 ? rt_finish_reason_short (rt_request_finish_reason (e->t, q)) : NULL;
  RtJsonWriter *jw = rt_chrome_trace_complete_args (e->ct, w->pid, tid, reason != NULL && *reason ? reason : "request",
                                                    CAT_REQUEST, s->start, s->end - s->start);
  rt_jw_member_string (jw, "request_id", q != NULL ? rt_request_id (e->t, q) : NULL);
  rt_jw_member_int (jw, "step", e->spans->step);
  member_count (jw, "turns", q != NULL ? q->turns : -1);
  member_count (jw, "response_length", q != NULL ? q->response_length : -1);
  rt_jw_member_string (jw, "finish_reason", q != NULL ? rt_request_finish_reason (e->t, q) : NULL);
  rt_chrome_trace_end_args (e->ct);
}

/* What a span of a request is, by its `order`: 0 the request, 1..n_turns its turns, then its
 * lines. A line that is a whole turn (turn_end, the older running_state) is not written:
 * the turn is, as RtSpans gives it (the span of the lines of that turn). */
#define ORDER_TURN(k) (1 + (k))
#define ORDER_LINE(r, k) (1 + (r)->n_turns + (k))

static gboolean
line_is_a_turn (const Export *e, const RtSpanLine *line)
{
  return line->event == RT_EV_TURN_END || line->event == e->running_state;
}

/* Request r's turn numbered `turn`, or NULL (its turns ascend by number). */
static const RtSpanTurn *
request_turn (const RtSpans *sp, const RtSpanRequest *r, gint16 turn)
{
  guint lo = 0, hi = r->n_turns;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const RtSpanTurn *t = rt_spans_turn (sp, r->first_turn + mid);
      if (t->turn == turn)
        return t;
      if (t->turn < turn)
        lo = mid + 1;
      else
        hi = mid;
    }
  return NULL;
}

/* A tool call goes between the turn that asked for it and the next: one that starts before
 * that turn's end (by up to RT_TOOL_CALL_SLACK_S, RtSpans allows) and ends after it starts
 * there instead, counted as clamped. */
static void
tool_call_after_its_turn (const Export *e, const RtSpanRequest *r, const RtSpanLine *line, RtSpan *s)
{
  const RtSpanTurn *turn = line->turn >= 0 ? request_turn (e->spans, r, line->turn) : NULL;
  if (turn == NULL)
    return;
  gint64 turn_end = to_us (e, turn->end_s);
  if (s->start < turn_end && s->end > turn_end)
    {
      s->start = turn_end;
      s->moved = TRUE;
    }
}

/* One request, its turns and its lines on the thread the packing gives it. */
static void
write_request (Export *e, WorkerTracks *w, const RtSpanRequest *r)
{
  g_array_set_size (e->buf, 0);
  add_span (e->buf, e, r->start_s, r->end_s, 0, 0);
  for (guint k = 0; k < r->n_turns; k++)
    {
      const RtSpanTurn *turn = rt_spans_turn (e->spans, r->first_turn + k);
      add_span (e->buf, e, turn->start_s, turn->end_s, 1, ORDER_TURN (k));
    }
  for (guint k = 0; k < r->n_lines; k++)
    {
      const RtSpanLine *line = rt_spans_line (e->spans, r->first_line + k);
      if (line_is_a_turn (e, line))
        continue;
      RtSpan *s = add_span (e->buf, e, line->start_s, line->end_s, 2, ORDER_LINE (r, k));
      if (line->kind == RT_PHASE_TOOL)
        tool_call_after_its_turn (e, r, line, s);
    }
  RtSpan *spans = (RtSpan *) e->buf->data;
  guint lane = rt_lanes_place (&w->lanes, spans[0].start, spans[0].end);
  RtNest *nest = lane_nest (e, w, lane);
  rt_nest_spans (nest, spans, e->buf->len, TRUE, &e->counts->nest);
  gint64 tid = TID_LANE (lane);
  for (guint i = 0; i < e->buf->len; i++)
    {
      const RtSpan *s = &spans[i];
      if (!s->keep)
        continue;
      if (s->order == 0)
        {
          write_request_event (e, w, tid, s, r);
          e->counts->requests++;
        }
      else if (s->order < ORDER_LINE (r, 0))
        {
          complete_turn (e, w->pid, tid, rt_spans_turn (e->spans, r->first_turn + s->order - 1)->turn, s->start,
                         s->end - s->start);
        }
      else
        {
          const RtSpanLine *line = rt_spans_line (e->spans, r->first_line + s->order - ORDER_LINE (r, 0));
          complete_event (e, e->line_names, line->kind == RT_PHASE_TOOL ? CAT_TOOL : CAT_PHASE, w->pid, tid,
                          line->event, s->start, s->end - s->start);
        }
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
write_in_flight (Export *e, WorkerTracks *w, const RtSpanWorker *f)
{
  g_autoptr (GArray) changes = g_array_new (FALSE, FALSE, sizeof (Change));
  for (guint i = 0; i < f->n_requests; i++)
    {
      const RtSpanRequest *r = rt_spans_request (e->spans, f->first_request + i);
      gint64 s = to_us (e, r->start_s), end = to_us (e, r->end_s);
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
        rt_chrome_trace_counter (e->ct, w->pid, "requests in flight", CAT_COUNTER, c[i].at, "requests", alive);
    }
}

/* A worker file: its sections, then its requests (RtSpans gives them by start, which the
 * packing needs), then its counter. */
static void
write_file (Export *e, const RtSpanWorker *f)
{
  WorkerTracks *w = tracks_of (e, f->worker);
  write_sections (e, w, f);
  for (guint i = 0; i < f->n_requests; i++)
    write_request (e, w, rt_spans_request (e->spans, f->first_request + i));
  write_in_flight (e, w, f);
}

/* The spans of the next step are made on a thread of their own while this step is written:
 * they are a fifth of the work of a trace, depend only on the trace, and the writing is
 * what the time of a trace waits on. */
typedef struct {
  const RtTrace *t;
  guint step_index;
  GThread *thread;            /* NULL: made here, in spans */
  RtSpans *spans;
} NextSpans;

static gpointer
make_spans (gpointer data)
{
  NextSpans *n = data;
  return rt_spans_analyse (n->t, n->step_index);
}

static void
next_spans_start (NextSpans *n, const RtTrace *t, guint step_index)
{
  *n = (NextSpans) { .t = t, .step_index = step_index };
  n->thread = g_thread_try_new ("rt-spans-next", make_spans, n, NULL);
  if (n->thread == NULL)
    n->spans = rt_spans_analyse (t, step_index);
}

static RtSpans *
next_spans_take (NextSpans *n)
{
  return n->thread != NULL ? g_thread_join (g_steal_pointer (&n->thread)) : g_steal_pointer (&n->spans);
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
    .running_state = rt_event_registry_lookup (t->registry, "running_state"),
    .section_names = g_array_new (FALSE, FALSE, sizeof (RtChromeName)),
    .line_names = g_array_new (FALSE, FALSE, sizeof (RtChromeName)),
    .turn_names = g_array_new (FALSE, FALSE, sizeof (RtChromeName)),
  };
  NextSpans next;   /* its thread, when it has one, is joined before the next is started */
  if (step_indices->len > 0)
    next_spans_start (&next, t, g_array_index (step_indices, guint, 0));
  for (guint i = 0; i < step_indices->len; i++)
    {
      g_autoptr (RtSpans) spans = next_spans_take (&next);
      if (i + 1 < step_indices->len)
        next_spans_start (&next, t, g_array_index (step_indices, guint, i + 1));
      e.spans = spans;
      e.shift_s = spans->origin_s - e.base_s;
      for (guint k = 0; k < spans->workers->len; k++)
        {
          const RtSpanWorker *f = rt_spans_worker (spans, k);
          /* a file without a time has nothing to draw, and no process of its own */
          if ((workers == NULL || rt_step_set_contains (workers, f->worker)) && isfinite (f->start_s))
            write_file (&e, f);
        }
      /* a step is written once: its rows need not stay in memory while the next ones are */
      const RtStep *step = rt_trace_step (t, g_array_index (step_indices, guint, i));
      for (guint f = step->first_file; f < step->first_file + step->n_files; f++)
        rt_trace_file_events_done (t, f);
    }
  g_hash_table_unref (e.workers);
  g_array_unref (e.buf);
  g_array_unref (e.section_names);
  g_array_unref (e.line_names);
  g_array_unref (e.turn_names);
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

const RtAnalysisSpec rt_chrome_trace_analysis = {
  .name = "chrome_trace",
  .reads = RT_READS_ROWS | RT_READS_REQUESTS | RT_READS_TURNS | RT_READS_REQUEST_IDS,
  .steps = RT_STEPS_SELECTED,
};
