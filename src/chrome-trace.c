/* SPDX-License-Identifier: Apache-2.0 */
/* chrome-trace.c: the Chrome Trace Event Format writer, streamed through a fixed buffer, and the
 * packing and nesting rules that keep viewers from dropping events. */
#include "rolltrace/rt-chrome-trace.h"
#include "sort-private.h"

struct _RtChromeTrace {
  GOutputStream *out;
  GString *buf;
  RtJsonWriter w;             /* for an event's args */
  GError *error;              /* the first write error; nothing is written after it */
  guint64 events;
  guint64 flushed;            /* bytes handed to the stream */
  guint64 warn_bytes;
  void (*on_size) (gpointer data);
  gpointer on_size_data;
  GString *names;             /* the names of rt_chrome_trace_name, each as a JSON string */
  /* ", \"pid\": P, \"tid\": T" of the last event: a request's events share them */
  GString *ids;
  gint64 ids_pid, ids_tid;
  GArray *name_at;            /* NameAt of each */
};

typedef struct {
  gsize at, len;              /* in names */
} NameAt;

static void
flush (RtChromeTrace *ct)
{
  if (ct->buf->len == 0)
    return;
  if (ct->error == NULL)
    g_output_stream_write_all (ct->out, ct->buf->str, ct->buf->len, NULL, NULL, &ct->error);
  ct->flushed += ct->buf->len;
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
  ct->names = g_string_new (NULL);
  ct->ids = g_string_new (NULL);
  ct->name_at = g_array_new (FALSE, FALSE, sizeof (NameAt));
  g_string_append (ct->buf, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [");
  return ct;
}

gboolean
rt_chrome_trace_finish (RtChromeTrace *ct, GError **error)
{
  g_string_append (ct->buf, "\n]}\n");
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
  g_string_free (ct->names, TRUE);
  g_string_free (ct->ids, TRUE);
  g_array_unref (ct->name_at);
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

/* The events are the bulk of a trace: their fixed keys are written as they are, their
 * integers by hand (printf costs more than the rest of an event), and every string through
 * the JSON writer, which owns the escaping. */
static void
append_string (GString *buf, const char *s)
{
  RtJsonWriter w;
  rt_jw_init (&w, buf);
  rt_jw_string (&w, s);
}

/* What follows "name": in an event: the name, then its category. */
static void
append_name_cat (GString *buf, const char *name, const char *cat)
{
  append_string (buf, name);
  RT_STRING_PUT_LITERAL (buf, ", \"cat\": ");
  append_string (buf, cat);
}

/* No tid, no ts: a process's event, a metadata event. */
#define NO_ID G_MININT64

/* Opens an event: {"ph": ph, "name": name, "cat": cat, "pid": pid[, "tid": tid][, "ts": ts]
 * (each unless NO_ID); the caller adds its members, each after ", ". One event a line: a trace
 * reads with grep and head. */
static void
event_open (RtChromeTrace *ct, const char *ph)
{
  GString *buf = ct->buf;
  if (ct->events > 0)
    RT_STRING_PUT_LITERAL (buf, ",");
  RT_STRING_PUT_LITERAL (buf, "\n{\"ph\": \"");
  rt_string_put (buf, ph, strlen (ph));   /* one of ours: "X", "C", "M" */
  RT_STRING_PUT_LITERAL (buf, "\", \"name\": ");
}

/* What follows the name: ", \"pid\": pid" and the rest of event_begin's members. */
static void
event_ids (RtChromeTrace *ct, gint64 pid, gint64 tid, gint64 ts_us)
{
  GString *buf = ct->buf;
  if (ct->ids->len == 0 || pid != ct->ids_pid || tid != ct->ids_tid)
    {
      g_string_truncate (ct->ids, 0);
      RT_STRING_PUT_LITERAL (ct->ids, ", \"pid\": ");
      rt_format_int (ct->ids, pid);
      if (tid != NO_ID)
        {
          RT_STRING_PUT_LITERAL (ct->ids, ", \"tid\": ");
          rt_format_int (ct->ids, tid);
        }
      ct->ids_pid = pid;
      ct->ids_tid = tid;
    }
  rt_string_put (buf, ct->ids->str, ct->ids->len);
  if (ts_us != NO_ID)
    {
      RT_STRING_PUT_LITERAL (buf, ", \"ts\": ");
      rt_format_int (buf, ts_us);
    }
}

static void
event_begin (RtChromeTrace *ct, const char *ph, const char *name, const char *cat, gint64 pid, gint64 tid,
             gint64 ts_us)
{
  event_open (ct, ph);
  append_name_cat (ct->buf, name, cat);
  event_ids (ct, pid, tid, ts_us);
}

static void
event_end (RtChromeTrace *ct)
{
  RT_STRING_PUT_LITERAL (ct->buf, "}");
  ct->events++;
  if (ct->buf->len >= RT_CHROME_TRACE_CHUNK)
    flush (ct);
}

/* ", \"args\": " and a writer at the start of the args object */
static RtJsonWriter *
args_begin (RtChromeTrace *ct)
{
  RT_STRING_PUT_LITERAL (ct->buf, ", \"args\": ");
  rt_jw_init (&ct->w, ct->buf);
  rt_jw_begin_object (&ct->w);
  return &ct->w;
}

static void
args_end (RtChromeTrace *ct)
{
  rt_jw_end_object (&ct->w);
  event_end (ct);
}

/* A metadata event {"ph": "M", "name": what, "cat": "__metadata", "args": {key: text or
 * number}}: the category Chrome gives its own metadata. */
static void
metadata (RtChromeTrace *ct, gint64 pid, gint64 tid, const char *what, const char *text, gint64 number)
{
  event_begin (ct, "M", what, "__metadata", pid, tid, NO_ID);
  RtJsonWriter *w = args_begin (ct);
  if (text != NULL)
    rt_jw_member_string (w, "name", text);
  else
    rt_jw_member_int (w, "sort_index", number);
  args_end (ct);
}

void
rt_chrome_trace_process (RtChromeTrace *ct, gint64 pid, const char *name, gint64 sort_index)
{
  metadata (ct, pid, NO_ID, "process_name", name, 0);
  metadata (ct, pid, NO_ID, "process_sort_index", NULL, sort_index);
}

void
rt_chrome_trace_thread (RtChromeTrace *ct, gint64 pid, gint64 tid, const char *name, gint64 sort_index)
{
  metadata (ct, pid, tid, "thread_name", name, 0);
  metadata (ct, pid, tid, "thread_sort_index", NULL, sort_index);
}

static void
complete_begin (RtChromeTrace *ct, gint64 pid, gint64 tid, const char *name, const char *cat, gint64 ts_us,
                gint64 dur_us)
{
  event_begin (ct, "X", name, cat, pid, tid, ts_us);
  RT_STRING_PUT_LITERAL (ct->buf, ", \"dur\": ");
  rt_format_int (ct->buf, dur_us);
}

void
rt_chrome_trace_complete (RtChromeTrace *ct, gint64 pid, gint64 tid, const char *name, const char *cat,
                          gint64 ts_us, gint64 dur_us)
{
  complete_begin (ct, pid, tid, name, cat, ts_us, dur_us);
  event_end (ct);
}

RtChromeName
rt_chrome_trace_name (RtChromeTrace *ct, const char *name, const char *cat)
{
  NameAt n = { .at = ct->names->len };
  append_name_cat (ct->names, name, cat);
  n.len = ct->names->len - n.at;
  g_array_append_val (ct->name_at, n);
  return ct->name_at->len - 1;
}

void
rt_chrome_trace_complete_name (RtChromeTrace *ct, gint64 pid, gint64 tid, RtChromeName name, gint64 ts_us,
                               gint64 dur_us)
{
  g_return_if_fail (name < ct->name_at->len);
  const NameAt *n = &g_array_index (ct->name_at, NameAt, name);
  event_open (ct, "X");
  rt_string_put (ct->buf, ct->names->str + n->at, n->len);
  event_ids (ct, pid, tid, ts_us);
  RT_STRING_PUT_LITERAL (ct->buf, ", \"dur\": ");
  rt_format_int (ct->buf, dur_us);
  event_end (ct);
}

RtJsonWriter *
rt_chrome_trace_complete_args (RtChromeTrace *ct, gint64 pid, gint64 tid, const char *name, const char *cat,
                               gint64 ts_us, gint64 dur_us)
{
  complete_begin (ct, pid, tid, name, cat, ts_us, dur_us);
  return args_begin (ct);
}

void
rt_chrome_trace_end_args (RtChromeTrace *ct)
{
  args_end (ct);
}

void
rt_chrome_trace_counter (RtChromeTrace *ct, gint64 pid, const char *name, const char *cat, gint64 ts_us,
                         const char *series, gint64 value)
{
  event_begin (ct, "C", name, cat, pid, NO_ID, ts_us);
  RtJsonWriter *w = args_begin (ct);
  rt_jw_member_int (w, series, value);
  args_end (ct);
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

static inline int
span_compare (const RtSpan *a, const RtSpan *b)
{
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  if (a->end != b->end)
    return a->end > b->end ? -1 : 1;   /* the longer holds the shorter */
  if (a->level != b->level)
    return a->level < b->level ? -1 : 1;
  return a->order < b->order ? -1 : a->order > b->order;
}

/* A total order (`order` is unique), so that any sort gives the same: the merge sort with
 * the comparison inlined, not qsort's call per comparison (about half the instructions of
 * the sort: bench/RESULTS.md, "Behind the code"). */
RT_DEFINE_MERGE_SORT (merge_sort_spans, RtSpan, span_compare)

static void
sort_spans (RtSpan *spans, guint n_spans)
{
  RtSpan room[64];
  RtSpan *tmp = n_spans <= G_N_ELEMENTS (room) ? room : g_new (RtSpan, n_spans);
  merge_sort_spans (spans, n_spans, tmp);
  if (tmp != room)
    g_free (tmp);
}

/* Rule 1: a start a rounding before a holder's start moves to it. `spans` are sorted by
 * start, so the holders of spans[i] are among the few after it that start at most a
 * rounding later. TRUE when it moved. */
static gboolean
clamp_start_to_holders (RtSpan *spans, guint n_spans, guint i)
{
  RtSpan *x = &spans[i];
  gboolean moved = FALSE;
  gint64 x_start = x->start;
  for (guint j = i + 1; j < n_spans && spans[j].start - x_start <= RT_NEST_CLAMP_US; j++)
    {
      const RtSpan *p = &spans[j];
      /* a holder: longer, and ending no more than a rounding before it, whatever its level
       * (main_loop, a phase, holds the turns); of two as long, the lower level holds */
      gint64 px = p->end - p->start, xx = x->end - x->start;
      gboolean holds = x->end <= p->end + RT_NEST_CLAMP_US && (px > xx || (px == xx && p->level < x->level));
      if (p->keep && holds && x->start < p->start && x->end > p->start)
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
  /* `keep` starts as "still a candidate"; `moved` as the caller left it */
  for (guint i = 0; i < n_spans; i++)
    {
      spans[i].keep = spans[i].end >= spans[i].start
                      && (!rooted || i == 0 || clamp_to_root (&spans[i], &spans[0]));
    }
  /* holders first, so that a phase moves to where its turn ended up */
  sort_spans (spans, n_spans);
  guint max_level = 0;
  for (guint i = 0; i < n_spans; i++)
    max_level = MAX (max_level, spans[i].level);
  gboolean any_moved = FALSE;
  for (guint level = 0; level <= max_level; level++)
    for (guint i = 0; i < n_spans; i++)
      if (spans[i].level == level && spans[i].keep && clamp_start_to_holders (spans, n_spans, i))
        spans[i].moved = any_moved = TRUE;
  if (any_moved)
    sort_spans (spans, n_spans);
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
