/* chrome-trace.c: the Chrome Trace Event Format writer, streamed through a fixed buffer, and the
 * packing and nesting rules that keep viewers from dropping events. */
#include "rolltrace/rt-chrome-trace.h"

struct _RtChromeTrace {
  GOutputStream *out;
  GString *buf;
  RtJsonWriter w;
  GError *error;              /* the first write error; nothing is written after it */
  guint64 events;
  guint64 flushed;            /* bytes handed to the stream */
  guint64 warn_bytes;
  void (*on_size) (gpointer data);
  gpointer on_size_data;
};

static void
flush (RtChromeTrace *ct)
{
  if (ct->buf->len == 0)
    return;
  if (ct->error == NULL)
    g_output_stream_write_all (ct->out, ct->buf->str, ct->buf->len, NULL, NULL, &ct->error);
  ct->flushed += ct->buf->len;
  /* the JSON writer keeps its state (depth, commas) outside the text: the text can go */
  g_string_truncate (ct->buf, 0);
  if (ct->on_size != NULL && ct->flushed > ct->warn_bytes)
    {
      void (*func) (gpointer) = ct->on_size;
      ct->on_size = NULL;
      func (ct->on_size_data);
    }
}

RtChromeTrace *
rt_chrome_trace_new (GOutputStream *out)
{
  RtChromeTrace *ct = g_new0 (RtChromeTrace, 1);
  ct->out = g_object_ref (out);
  ct->buf = g_string_sized_new (RT_CHROME_TRACE_CHUNK + 4096);
  rt_jw_init (&ct->w, ct->buf);
  rt_jw_begin_object (&ct->w);
  rt_jw_member_string (&ct->w, "displayTimeUnit", "ms");
  rt_jw_key (&ct->w, "traceEvents");
  rt_jw_begin_array (&ct->w);
  return ct;
}

gboolean
rt_chrome_trace_finish (RtChromeTrace *ct, GError **error)
{
  rt_jw_end_array (&ct->w);
  rt_jw_end_object (&ct->w);
  g_string_append_c (ct->buf, '\n');
  flush (ct);
  if (ct->error == NULL)
    g_output_stream_flush (ct->out, NULL, &ct->error);
  if (ct->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&ct->error));
      return FALSE;
    }
  return TRUE;
}

void
rt_chrome_trace_free (RtChromeTrace *ct)
{
  if (ct == NULL)
    return;
  g_object_unref (ct->out);
  g_string_free (ct->buf, TRUE);
  g_clear_error (&ct->error);
  g_free (ct);
}

guint64
rt_chrome_trace_events (const RtChromeTrace *ct)
{
  return ct->events;
}

guint64
rt_chrome_trace_bytes (const RtChromeTrace *ct)
{
  return ct->flushed + ct->buf->len;
}

void
rt_chrome_trace_on_size (RtChromeTrace *ct, guint64 bytes, void (*func) (gpointer data), gpointer data)
{
  ct->warn_bytes = bytes;
  ct->on_size = func;
  ct->on_size_data = data;
}

/* Opens an event: {"ph", "name", "pid", "tid" (when >= 0), "ts" (when >= 0)... */
static RtJsonWriter *
event_begin (RtChromeTrace *ct, const char *ph, const char *name, gint64 pid, gint64 tid, gint64 ts_us)
{
  RtJsonWriter *w = &ct->w;
  g_string_append_c (ct->buf, '\n');   /* one event a line: a trace reads with grep and head */
  rt_jw_begin_object (w);
  rt_jw_member_string (w, "ph", ph);
  rt_jw_member_string (w, "name", name);
  rt_jw_member_int (w, "pid", pid);
  if (tid >= 0)
    rt_jw_member_int (w, "tid", tid);
  if (ts_us >= 0)
    rt_jw_member_int (w, "ts", ts_us);
  return w;
}

static void
event_end (RtChromeTrace *ct)
{
  rt_jw_end_object (&ct->w);
  ct->events++;
  if (ct->buf->len >= RT_CHROME_TRACE_CHUNK)
    flush (ct);
}

/* A metadata event {"ph": "M", "name": what, "args": {key: text or number}}. */
static void
metadata (RtChromeTrace *ct, gint64 pid, gint64 tid, const char *what, const char *text, gint64 number)
{
  RtJsonWriter *w = event_begin (ct, "M", what, pid, tid, -1);
  rt_jw_key (w, "args");
  rt_jw_begin_object (w);
  if (text != NULL)
    rt_jw_member_string (w, "name", text);
  else
    rt_jw_member_int (w, "sort_index", number);
  rt_jw_end_object (w);
  event_end (ct);
}

void
rt_chrome_trace_process (RtChromeTrace *ct, gint64 pid, const char *name, gint64 sort_index)
{
  metadata (ct, pid, -1, "process_name", name, 0);
  metadata (ct, pid, -1, "process_sort_index", NULL, sort_index);
}

void
rt_chrome_trace_thread (RtChromeTrace *ct, gint64 pid, gint64 tid, const char *name, gint64 sort_index)
{
  metadata (ct, pid, tid, "thread_name", name, 0);
  metadata (ct, pid, tid, "thread_sort_index", NULL, sort_index);
}

static RtJsonWriter *
complete_begin (RtChromeTrace *ct, gint64 pid, gint64 tid, const char *name, gint64 ts_us, gint64 dur_us)
{
  RtJsonWriter *w = event_begin (ct, "X", name, pid, tid, ts_us);
  rt_jw_member_int (w, "dur", dur_us);
  return w;
}

void
rt_chrome_trace_complete (RtChromeTrace *ct, gint64 pid, gint64 tid, const char *name, gint64 ts_us,
                          gint64 dur_us)
{
  complete_begin (ct, pid, tid, name, ts_us, dur_us);
  event_end (ct);
}

RtJsonWriter *
rt_chrome_trace_complete_args (RtChromeTrace *ct, gint64 pid, gint64 tid, const char *name, gint64 ts_us,
                               gint64 dur_us)
{
  RtJsonWriter *w = complete_begin (ct, pid, tid, name, ts_us, dur_us);
  rt_jw_key (w, "args");
  rt_jw_begin_object (w);
  return w;
}

void
rt_chrome_trace_end_args (RtChromeTrace *ct)
{
  rt_jw_end_object (&ct->w);
  event_end (ct);
}

void
rt_chrome_trace_counter (RtChromeTrace *ct, gint64 pid, const char *name, gint64 ts_us, const char *series,
                         gint64 value)
{
  RtJsonWriter *w = event_begin (ct, "C", name, pid, -1, ts_us);
  rt_jw_key (w, "args");
  rt_jw_begin_object (w);
  rt_jw_member_int (w, series, value);
  rt_jw_end_object (w);
  event_end (ct);
}

/* ---- packing ---- */

typedef struct {
  gint64 free_at;
  guint lane;
} LaneFree;

static gboolean
lane_before (const LaneFree *a, const LaneFree *b)
{
  return a->free_at < b->free_at || (a->free_at == b->free_at && a->lane < b->lane);
}

void
rt_lanes_init (RtLanes *l)
{
  l->heap = g_array_new (FALSE, FALSE, sizeof (LaneFree));
  l->n_lanes = 0;
}

void
rt_lanes_clear (RtLanes *l)
{
  g_clear_pointer (&l->heap, g_array_unref);
  l->n_lanes = 0;
}

static void
heap_sift_down (GArray *heap, guint i)
{
  LaneFree *h = (LaneFree *) heap->data;
  for (;;)
    {
      guint m = i, a = 2 * i + 1, b = a + 1;
      if (a < heap->len && lane_before (&h[a], &h[m]))
        m = a;
      if (b < heap->len && lane_before (&h[b], &h[m]))
        m = b;
      if (m == i)
        return;
      LaneFree tmp = h[i];
      h[i] = h[m];
      h[m] = tmp;
      i = m;
    }
}

static void
heap_push (GArray *heap, LaneFree item)
{
  g_array_append_val (heap, item);
  LaneFree *h = (LaneFree *) heap->data;
  for (guint i = heap->len - 1; i > 0 && lane_before (&h[i], &h[(i - 1) / 2]); i = (i - 1) / 2)
    {
      LaneFree tmp = h[i];
      h[i] = h[(i - 1) / 2];
      h[(i - 1) / 2] = tmp;
    }
}

guint
rt_lanes_place (RtLanes *l, gint64 start, gint64 end)
{
  LaneFree *h = (LaneFree *) l->heap->data;
  /* a lane keeps the latest end it holds: fed out of order, nothing is placed over it */
  if (l->heap->len > 0 && h[0].free_at <= start)
    {
      guint lane = h[0].lane;
      h[0].free_at = MAX (end, start);
      heap_sift_down (l->heap, 0);
      return lane;
    }
  LaneFree fresh = { MAX (end, start), l->n_lanes++ };
  heap_push (l->heap, fresh);
  return fresh.lane;
}

/* ---- nesting ---- */

void
rt_nest_init (RtNest *n)
{
  n->open = g_array_new (FALSE, FALSE, sizeof (gint64));
  n->last_start = G_MININT64;
}

void
rt_nest_clear (RtNest *n)
{
  g_clear_pointer (&n->open, g_array_unref);
}

static int
span_compare (gconstpointer pa, gconstpointer pb)
{
  const RtSpan *a = pa, *b = pb;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  if (a->end != b->end)
    return a->end > b->end ? -1 : 1;   /* the longer holds the shorter */
  if (a->level != b->level)
    return a->level < b->level ? -1 : 1;
  return a->order < b->order ? -1 : a->order > b->order;
}

/* Rule 1: a start a rounding before a holder's start moves to it. TRUE when it moved. */
static gboolean
clamp_start_to_holders (RtSpan *x, const RtSpan *spans, guint n_spans)
{
  gboolean moved = FALSE;
  for (guint j = 0; j < n_spans; j++)
    {
      const RtSpan *p = &spans[j];
      /* a holder: of a level that may hold it, and long enough to (main_loop, which holds
       * the turns, does not move into the first turn it starts a rounding before) */
      gboolean holds = p != x && p->level <= x->level && x->end <= p->end + RT_NEST_CLAMP_US;
      if (p->keep && holds && x->start < p->start && p->start - x->start <= RT_NEST_CLAMP_US && x->end > p->start)
        {
          x->start = p->start;
          moved = TRUE;
        }
    }
  return moved;
}

/* Rule 3 for one span: where it fits among the open ones, moved if need be. Returns the
 * number of open spans that hold it, or -1 when it fits nowhere (the stack is unchanged). */
static gint
fit_span (const RtNest *n, RtSpan *x, gboolean *moved)
{
  const gint64 *open = (const gint64 *) n->open->data;
  guint depth = n->open->len;
  for (;;)
    {
      while (depth > 0 && open[depth - 1] <= x->start)
        depth--;
      if (depth == 0 || x->end <= open[depth - 1])
        return (gint) depth;
      gint64 holder_end = open[depth - 1];
      if (x->end - holder_end <= RT_NEST_CLAMP_US)
        {
          x->end = holder_end;
          *moved = TRUE;
          return (gint) depth;
        }
      if (holder_end - x->start > RT_NEST_CLAMP_US)
        return -1;
      x->start = holder_end;          /* a sibling: closes that one on the next pass */
      *moved = TRUE;
    }
}

/* Rule 0: what sticks out of the root by a rounding is cut to it; FALSE: it sticks out further. */
static gboolean
clamp_to_root (RtSpan *x, const RtSpan *root)
{
  if (x->start < root->start)
    {
      if (root->start - x->start > RT_NEST_CLAMP_US)
        return FALSE;
      x->start = root->start;
      x->moved = TRUE;
    }
  if (x->end > root->end)
    {
      if (x->end - root->end > RT_NEST_CLAMP_US)
        return FALSE;
      x->end = root->end;
      x->moved = TRUE;
    }
  return TRUE;
}

void
rt_nest_spans (RtNest *n, RtSpan *spans, guint n_spans, gboolean rooted, RtNestCounts *counts)
{
  /* `keep` starts as "still a candidate" */
  for (guint i = 0; i < n_spans; i++)
    {
      spans[i].moved = FALSE;
      spans[i].keep = spans[i].end >= spans[i].start
                      && (!rooted || i == 0 || clamp_to_root (&spans[i], &spans[0]));
    }
  /* holders first, so that a phase moves to where its turn ended up */
  guint max_level = 0;
  for (guint i = 0; i < n_spans; i++)
    max_level = MAX (max_level, spans[i].level);
  for (guint level = 0; level <= max_level; level++)
    for (guint i = 0; i < n_spans; i++)
      if (spans[i].level == level && spans[i].keep && clamp_start_to_holders (&spans[i], spans, n_spans))
        spans[i].moved = TRUE;
  qsort (spans, n_spans, sizeof (RtSpan), span_compare);
  for (guint i = 0; i < n_spans; i++)
    {
      RtSpan *x = &spans[i];
      gint depth = -1;
      if (x->keep && x->start >= n->last_start)
        depth = fit_span (n, x, &x->moved);
      /* a start moved past a later span's start is checked again */
      x->keep = depth >= 0 && x->start >= n->last_start;
      if (!x->keep)
        {
          counts->violations++;
          continue;
        }
      if (x->moved)
        counts->clamped++;
      g_array_set_size (n->open, (guint) depth);
      g_array_append_val (n->open, x->end);
      n->last_start = x->start;
    }
}
