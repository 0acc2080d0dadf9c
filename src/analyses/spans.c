/* SPDX-License-Identifier: Apache-2.0 */
/* spans.c: one step laid out in time: each worker file's span and step-level sections, each request's
 * life, turns and timed lines, in seconds from the step's start. rt-timeline and rt-trace draw from it. */
#include "rolltrace/analyses/spans.h"
#include "../sort-private.h"
#include "../tasks-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Canonical names (the older ones are mapped while loading) and what they are. */
static const struct { const char *name; RtPhaseKind kind; } phase_kinds[] = {
  { "turn_pre_process", RT_PHASE_PRE_PROCESS },
  { "pending_state_handling", RT_PHASE_PRE_PROCESS },
  { "tool_creation_pending_state", RT_PHASE_PRE_PROCESS },
  { "interaction_start_pending_state", RT_PHASE_PRE_PROCESS },
  { "turn_engine_call", RT_PHASE_ENGINE },
  { "engine_generate_setup", RT_PHASE_ENGINE },
  { "engine_async_generate_actual", RT_PHASE_ENGINE },
  { "tool_execution", RT_PHASE_TOOL },
  { "tool_response_processing", RT_PHASE_TOOL },
  { "tool_calling_state", RT_PHASE_TOOL },
  { "turn_post_process", RT_PHASE_POST_PROCESS },
  { "turn_tool_parsing", RT_PHASE_POST_PROCESS },
  { "reward_calculation", RT_PHASE_POST_PROCESS },
  { "finalization", RT_PHASE_POST_PROCESS },
  { "async_rollout_request_complete", RT_PHASE_ENCLOSING },
  { "main_loop", RT_PHASE_ENCLOSING },
  { "turn_end", RT_PHASE_ENCLOSING },
  { "running_state", RT_PHASE_ENCLOSING },
};

RtPhaseKind
rt_phase_kind (const char *canonical_name)
{
  for (gsize i = 0; canonical_name != NULL && i < G_N_ELEMENTS (phase_kinds); i++)
    if (strcmp (canonical_name, phase_kinds[i].name) == 0)
      return phase_kinds[i].kind;
  return RT_PHASE_OTHER;
}

const char *
rt_phase_kind_name (RtPhaseKind kind)
{
  static const char *const names[RT_N_PHASE_KINDS] = {
    [RT_PHASE_PRE_PROCESS] = "pre-process",
    [RT_PHASE_ENGINE] = "engine",
    [RT_PHASE_TOOL] = "tool",
    [RT_PHASE_POST_PROCESS] = "post-process",
    [RT_PHASE_OTHER] = "other",
    [RT_PHASE_ENCLOSING] = "enclosing",
  };
  g_return_val_if_fail (kind < RT_N_PHASE_KINDS, NULL);
  return names[kind];
}

/* A request or line of one file while it is sorted; `row` (its line order) breaks ties. */
typedef struct {
  RtSpanRequest r;
  guint32 row;
} FileRequest;

typedef struct {
  RtSpanLine l;
  guint32 row;
} FileLine;

static int
compare_file_requests (const void *a, const void *b)
{
  const FileRequest *x = a, *y = b;
  if (x->r.start_s != y->r.start_s)
    return x->r.start_s < y->r.start_s ? -1 : 1;
  if (x->r.end_s != y->r.end_s)
    return x->r.end_s < y->r.end_s ? -1 : 1;
  return x->row < y->row ? -1 : x->row > y->row;
}

/* by start, the longer first (so that what encloses comes before what it holds), line order */
static int
compare_file_lines (const void *a, const void *b)
{
  const FileLine *x = a, *y = b;
  if (x->l.start_s != y->l.start_s)
    return x->l.start_s < y->l.start_s ? -1 : 1;
  if (x->l.end_s != y->l.end_s)
    return x->l.end_s > y->l.end_s ? -1 : 1;
  return x->row < y->row ? -1 : x->row > y->row;
}

static int
compare_turns (const void *a, const void *b)
{
  const RtSpanTurn *x = a, *y = b;
  return x->turn < y->turn ? -1 : x->turn > y->turn;
}

/* by end, then turn index */
static int
compare_turn_ends (const void *a, const void *b)
{
  const RtSpanTurn *x = a, *y = b;
  if (x->end_s != y->end_s)
    return x->end_s < y->end_s ? -1 : 1;
  return x->turn < y->turn ? -1 : x->turn > y->turn;
}

RT_DEFINE_MERGE_SORT (sort_file_lines, FileLine, compare_file_lines)
RT_DEFINE_MERGE_SORT (sort_turns, RtSpanTurn, compare_turns)
RT_DEFINE_MERGE_SORT (sort_turn_ends, RtSpanTurn, compare_turn_ends)
RT_DEFINE_INSERTION_SORT (insertion_sort_turns, RtSpanTurn, compare_turns)

/* Up to this many, a request's lines or turns are sorted by insertion (they come nearly in
 * order: lines are logged as they end, the enclosing ones last). */
#define SHORT_RUN 64

/* by start, the longer first: compare_file_lines without the line order, which a stable
 * sort keeps */
static int
compare_span_lines (const void *a, const void *b)
{
  const RtSpanLine *x = a, *y = b;
  if (x->start_s != y->start_s)
    return x->start_s < y->start_s ? -1 : 1;
  if (x->end_s != y->end_s)
    return x->end_s > y->end_s ? -1 : 1;
  return 0;
}

RT_DEFINE_INSERTION_SORT (insertion_sort_span_lines, RtSpanLine, compare_span_lines)

/* Sorts a request's n lines, which stand in line order, by compare_file_lines: by insertion
 * when they are few and no time is NaN (the order is then strict: the same result as the
 * merge sort's), else by the merge sort, each line's place standing for its line order. */
static void
sort_request_lines (RtSpanLine *lines, guint n)
{
  gboolean strict = n <= SHORT_RUN;
  for (guint i = 0; strict && i < n; i++)
    strict = !isnan (lines[i].start_s) && !isnan (lines[i].end_s);
  if (strict)
    {
      insertion_sort_span_lines (lines, n);
      return;
    }
  g_autofree FileLine *run = g_new (FileLine, n), *room = g_new (FileLine, n);
  for (guint i = 0; i < n; i++)
    run[i] = (FileLine) { lines[i], i };
  sort_file_lines (run, n, room);
  for (guint i = 0; i < n; i++)
    lines[i] = run[i].l;
}

/* Gives each tool call among a request's n lines (by start) the turn it belongs to: of its
 * n_turns turns, the one that ended last by the call's start (RT_TOOL_CALL_SLACK_S allowed),
 * whatever the call's own number; -1 when none had ended. */
static void
attribute_tool_calls (RtSpanLine *lines, guint n, const RtSpanTurn *turns, guint n_turns)
{
  gboolean by_end = TRUE;   /* turns end in the order of their index, as they do unless damaged */
  for (guint i = 1; by_end && i < n_turns; i++)
    by_end = turns[i - 1].end_s <= turns[i].end_s;
  g_autofree RtSpanTurn *sorted = NULL;
  if (!by_end)
    {
      g_autofree RtSpanTurn *room = g_new (RtSpanTurn, n_turns);
      sorted = g_memdup2 (turns, n_turns * sizeof (RtSpanTurn));
      sort_turn_ends (sorted, n_turns, room);
      turns = sorted;
    }
  guint ended = 0;   /* turns that ended by the start of the call at hand, which only grows */
  for (guint i = 0; i < n; i++)
    if (lines[i].kind == RT_PHASE_TOOL)
      {
        while (ended < n_turns && turns[ended].end_s <= lines[i].start_s + RT_TOOL_CALL_SLACK_S)
          ended++;
        lines[i].turn = ended > 0 ? turns[ended - 1].turn : -1;
      }
}

/* The turns of a request whose n_lines lines (sorted) are `lines`, into `turns` (room for a
 * turn per line), ascending: the span of its lines of each turn index, its tool calls left
 * out, each of which is then given the turn it belongs to. Returns their number. */
static guint
request_turns (RtSpanLine *lines, guint n_lines, RtSpanTurn *turns)
{
  guint n = 0, tool_calls = 0;
  for (guint i = 0; i < n_lines; i++)
    {
      const RtSpanLine *l = &lines[i];
      if (l->kind == RT_PHASE_TOOL)
        tool_calls++;
      else if (l->turn >= 0)
        turns[n++] = (RtSpanTurn) { l->turn, l->start_s, l->end_s };
    }
  if (n > 1 && n <= SHORT_RUN)
    insertion_sort_turns (turns, n);   /* by a whole number: always a strict order */
  else if (n > 1)
    {
      g_autofree RtSpanTurn *room = g_new (RtSpanTurn, n);
      sort_turns (turns, n, room);
    }
  guint kept = 0;   /* merges the lines of each turn index into one span */
  for (guint i = 0; i < n; i++)
    {
      if (kept > 0 && turns[kept - 1].turn == turns[i].turn)
        {
          turns[kept - 1].start_s = MIN (turns[kept - 1].start_s, turns[i].start_s);
          turns[kept - 1].end_s = MAX (turns[kept - 1].end_s, turns[i].end_s);
        }
      else
        turns[kept++] = turns[i];
    }
  if (tool_calls > 0)
    attribute_tool_calls (lines, n_lines, turns, kept);
  return kept;
}

/* The turns of the request whose n_lines lines were just placed at `lines`. */
static void
append_turns (RtSpans *sp, RtSpanRequest *req, RtSpanLine *lines)
{
  req->first_turn = sp->turns->len;
  g_array_set_size (sp->turns, req->first_turn + req->n_lines);   /* room for a turn per line */
  req->n_turns = request_turns (lines, req->n_lines, &g_array_index (sp->turns, RtSpanTurn, req->first_turn));
  g_array_set_size (sp->turns, req->first_turn + req->n_turns);
}

/* The request (an index into the file's span requests) that line `ev` is a timed line of, or
 * RT_NONE. `span_of`: the span request of each file-local request, or RT_NONE. */
static inline guint32
line_request (const RtEvent *ev, const RtFile *f, const guint32 *span_of)
{
  if (ev->request >= f->n_requests || ev->event == RT_EV_REQUEST_COMPLETE
      || isnan (ev->end_s) || isnan (ev->duration_s))
    return RT_NONE;
  return span_of[ev->request];
}

/* Everything of one worker file: its span, sections and requests into `sp`, their lines
 * into `line_room` after the *n_lines there (the requests' first_line count from
 * line_room). `kinds`: RtPhaseKind by event id. */
static void
add_file (RtSpans *sp, RtSpanLine *line_room, guint *n_lines, const RtTrace *t, guint fi, const RtEvent *rows,
          const guint8 *kinds, GArray *request_of)
{
  const RtFile *f = rt_trace_file (t, fi);
  RtSpanWorker w = { .file = fi, .worker = f->worker, .start_s = NAN, .end_s = NAN,
                     .first_request = sp->requests->len, .first_section = sp->sections->len };
  if (!isnan (f->start_min_s))
    w.start_s = f->start_min_s - sp->origin_s;

  /* the requests, and which file-local request each one is */
  g_autoptr (GArray) reqs = g_array_new (FALSE, FALSE, sizeof (FileRequest));
  g_autofree guint32 *span_of = g_new (guint32, MAX (f->n_requests, 1u));
  for (guint r = 0; r < f->n_requests; r++)
    span_of[r] = RT_NONE;
  for (guint32 e = 0; e < f->n_events; e++)
    {
      const RtEvent *ev = &rows[e];
      if (isnan (ev->end_s))
        continue;
      double end = ev->end_s - sp->origin_s;
      w.end_s = isnan (w.end_s) ? end : MAX (w.end_s, end);
      if (isnan (ev->duration_s))
        continue;
      if (ev->event < RT_N_STEP_EVENTS)
        {
          RtSpanSection sec = { end - ev->duration_s, end, ev->event };
          g_array_append_val (sp->sections, sec);
        }
      else if (ev->event == RT_EV_REQUEST_COMPLETE)
        {
          gboolean known = ev->request != RT_NONE && ev->request < f->n_requests;
          FileRequest q = { { .request = known ? f->first_request + ev->request : RT_NONE,
                              .worker_index = sp->workers->len,
                              .start_s = ev->duration_s > 0 ? end - ev->duration_s : end,
                              .end_s = end, .duration_s = ev->duration_s }, e };
          if (known)
            span_of[ev->request] = reqs->len;
          g_array_append_val (reqs, q);
        }
    }
  w.n_sections = sp->sections->len - w.first_section;

  /* requests by start; each one's lines and turns follow in that order */
  guint n_reqs = reqs->len;
  for (guint i = 0; i < n_reqs; i++)
    g_array_index (reqs, FileRequest, i).r.first_line = i;   /* its place in line order, until sorted */
  if (n_reqs > 1)
    qsort (reqs->data, n_reqs, sizeof (FileRequest), compare_file_requests);
  g_autofree guint32 *rank = g_new (guint32, MAX (n_reqs, 1u));   /* by start, of each in line order */
  for (guint i = 0; i < n_reqs; i++)
    rank[g_array_index (reqs, FileRequest, i).r.first_line] = i;

  /* their timed lines, counted, then placed straight where they belong in line_room (each
   * request's in line order), then sorted there */
  g_autofree guint32 *at = g_new0 (guint32, n_reqs + 1);   /* the lines before each request */
  for (guint32 e = 0; e < f->n_events; e++)
    {
      guint32 k = line_request (&rows[e], f, span_of);
      if (k != RT_NONE)
        at[rank[k] + 1]++;
    }
  for (guint i = 0; i < n_reqs; i++)
    at[i + 1] += at[i];
  if (request_of != NULL)
    {
      /* without the lines: their number, and which request each file-local one is
       * (rt_spans_worker_lines makes the lines from it) */
      for (guint r = 0; r < f->n_requests; r++)
        {
          guint32 k = span_of[r] != RT_NONE ? rank[span_of[r]] : RT_NONE;
          g_array_append_val (request_of, k);
        }
      for (guint i = 0; i < n_reqs; i++)
        {
          RtSpanRequest req = g_array_index (reqs, FileRequest, i).r;
          req.first_line = 0;
          req.n_lines = at[i + 1] - at[i];
          req.first_turn = req.n_turns = 0;
          g_array_append_val (sp->requests, req);
        }
      w.n_requests = sp->requests->len - w.first_request;
      g_array_append_val (sp->workers, w);
      return;
    }
  guint first_line = *n_lines;
  *n_lines += at[n_reqs];
  RtSpanLine *lines = line_room + first_line;
  g_autofree guint32 *fill = g_memdup2 (at, (n_reqs + 1) * sizeof (guint32));
  for (guint32 e = 0; e < f->n_events; e++)
    {
      const RtEvent *ev = &rows[e];
      guint32 k = line_request (ev, f, span_of);
      if (k != RT_NONE)
        {
          double end = ev->end_s - sp->origin_s;
          lines[fill[rank[k]]++] = (RtSpanLine) { end - ev->duration_s, end, ev->event, kinds[ev->event], ev->turn };
        }
    }
  for (guint i = 0; i < n_reqs; i++)
    {
      RtSpanRequest req = g_array_index (reqs, FileRequest, i).r;
      req.first_line = first_line + at[i];
      req.n_lines = at[i + 1] - at[i];
      if (req.n_lines > 1)
        sort_request_lines (line_room + req.first_line, req.n_lines);
      append_turns (sp, &req, line_room + req.first_line);
      g_array_append_val (sp->requests, req);
    }
  w.n_requests = sp->requests->len - w.first_request;
  g_array_append_val (sp->workers, w);
}

static RtSpans *
spans_new (void)
{
  RtSpans *sp = g_new0 (RtSpans, 1);
  sp->end_s = NAN;
  sp->workers = g_array_new (FALSE, FALSE, sizeof (RtSpanWorker));
  sp->requests = g_array_new (FALSE, FALSE, sizeof (RtSpanRequest));
  sp->lines = g_array_new (FALSE, FALSE, sizeof (RtSpanLine));
  sp->turns = g_array_new (FALSE, FALSE, sizeof (RtSpanTurn));
  sp->sections = g_array_new (FALSE, FALSE, sizeof (RtSpanSection));
  return sp;
}

/* Some of a step's files laid out into `sp` (its own arrays, indices from 0) and their lines
 * into `line_room`, on either thread. */
typedef struct {
  RtSpans *sp;
  RtSpanLine *line_room;
  guint n_lines;                /* placed there */
  const RtTrace *t;
  guint first_file, n_files;
  const RtEvent **rows;         /* of each of those files (the earlier ones': fetched by their task) */
  const guint8 *kinds;
  GArray *request_of;           /* without the lines: which request each file-local one is, else NULL */
} FileRange;

static void
add_files (FileRange *r)
{
  for (guint k = 0; k < r->n_files; k++)
    add_file (r->sp, r->line_room, &r->n_lines, r->t, r->first_file + k, r->rows[k], r->kinds, r->request_of);
}

/* The two parts of a step's files, each a task of rt_run_shared: the earlier files, whose rows
 * are fetched then (by one thread at a time, see rt_trace_file_events), and the later ones,
 * whose rows were fetched before. */
typedef struct {
  FileRange *first, *second;
} SpansParts;

static void
spans_part (gpointer data, guint task)
{
  SpansParts *parts = data;
  FileRange *r = task == 0 ? parts->first : parts->second;
  if (task == 0)
    for (guint k = 0; k < r->n_files; k++)
      r->rows[k] = rt_trace_file_events (r->t, r->first_file + k);
  add_files (r);
}

/* Appends the files laid out in `part` after those of `sp`, their indices moved on; their
 * lines are in sp->lines already, from index `lines` on. */
static void
append_part (RtSpans *sp, const RtSpans *part, guint lines)
{
  guint workers = sp->workers->len, requests = sp->requests->len;
  guint turns = sp->turns->len, sections = sp->sections->len;
  g_array_append_vals (sp->turns, part->turns->data, part->turns->len);
  g_array_append_vals (sp->sections, part->sections->data, part->sections->len);
  g_array_append_vals (sp->requests, part->requests->data, part->requests->len);
  for (guint i = requests; i < sp->requests->len; i++)
    {
      RtSpanRequest *q = &g_array_index (sp->requests, RtSpanRequest, i);
      q->worker_index += workers;
      q->first_line += lines;
      q->first_turn += turns;
    }
  g_array_append_vals (sp->workers, part->workers->data, part->workers->len);
  for (guint i = workers; i < sp->workers->len; i++)
    {
      RtSpanWorker *w = &g_array_index (sp->workers, RtSpanWorker, i);
      w->first_request += requests;
      w->first_section += sections;
    }
}

static RtSpans *
spans_analyse (const RtTrace *t, guint step_index, gboolean with_lines)
{
  const RtStep *st = rt_trace_step (t, step_index);
  RtSpans *sp = spans_new ();
  sp->step_index = step_index;
  sp->step = st->step;
  sp->origin_s = st->start_s;

  guint n_ids = rt_event_registry_size (t->registry);
  g_autofree guint8 *kinds = g_new (guint8, MAX (n_ids, 1u));
  for (guint id = 0; id < n_ids; id++)
    kinds[id] = (guint8) rt_phase_kind (rt_event_registry_name (t->registry, (guint16) id));

  /* The files are laid out apart, the later ones on a second thread where there is a second
   * core (and it starts in time: else here too), and put together in order. The rows of each
   * file are fetched before it is laid out (where a damaged cache is noticed and its file
   * read again, which leaves the other files as they are and never adds rows): the later
   * files' first, so that the second thread can start, then the earlier ones'; the thread
   * that also checks the earlier files' rows lays out fewer of them (a row is much quicker to
   * check than to lay out; bench/RESULTS.md, "Behind the code"). */
  g_autofree const RtEvent **rows = g_new (const RtEvent *, MAX (st->n_files, 1u));
  guint64 all_rows = 0, rows_before = 0;
  for (guint k = 0; k < st->n_files; k++)
    all_rows += rt_trace_file (t, st->first_file + k)->n_events;
  guint split = 0;
  for (; split < st->n_files && 5 * rows_before < 2 * all_rows; split++)
    rows_before += rt_trace_file (t, st->first_file + split)->n_events;
  for (guint k = split; k < st->n_files; k++)
    rows[k] = rt_trace_file_events (t, st->first_file + k);
  g_autoptr (RtSpans) later = spans_new ();
  later->origin_s = sp->origin_s;
  /* room for as many requests, lines, turns and sections as rows (each is one row at most):
   * the arrays then grow once, and the later files' are put after the others' in place */
  GArray *grown[] = { sp->requests, sp->turns, sp->sections, later->requests, later->turns, later->sections };
  for (guint i = 0; i < G_N_ELEMENTS (grown); i++)
    {
      if (!with_lines && (grown[i] == sp->turns || grown[i] == later->turns))
        continue;
      /* not on huge pages: a step's requests take a few hundred KB of the room */
      guint len = grown[i]->len;
      g_array_set_size (grown[i], (guint) MIN (len + (i < 3 ? all_rows : all_rows - rows_before), G_MAXUINT32 / 2));
      g_array_set_size (grown[i], len);
    }
  /* the lines, most of the rows, go straight into sp->lines: the earlier files' from the
   * start, the later files' from rows_before (as many lines as the earlier files have rows
   * at most), moved down after them once both are done */
  if (with_lines)
    g_array_set_size (sp->lines, (guint) CLAMP (all_rows, 1, G_MAXUINT32 / 2));
  RtSpanLine *line_room = with_lines ? (RtSpanLine *) (void *) sp->lines->data : NULL;
  g_autoptr (GArray) order = with_lines ? NULL : g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr (GArray) later_order = with_lines ? NULL : g_array_new (FALSE, FALSE, sizeof (guint32));
  FileRange first = { sp, line_room, 0, t, st->first_file, split, rows, kinds, order };
  FileRange second = { later, line_room ? line_room + rows_before : NULL, 0, t, st->first_file + split,
                       st->n_files - split, rows + split, kinds, later_order };
  /* the earlier files (their rows fetched first) on this thread, the later ones on a helper
   * when it starts in time, else here too */
  SpansParts parts = { &first, &second };
  rt_run_shared (2, second.n_files > 0 && first.n_files > 0 ? g_get_num_processors () : 1, spans_part, &parts);
  if (second.n_lines > 0)
    memmove (line_room + first.n_lines, line_room + rows_before, second.n_lines * sizeof (RtSpanLine));
  g_array_set_size (sp->lines, first.n_lines + second.n_lines);
  append_part (sp, later, first.n_lines);
  if (!with_lines)
    {
      /* each request's first line and turn stay 0 (append_part moved them on) */
      for (guint i = 0; i < sp->requests->len; i++)
        {
          RtSpanRequest *q = &g_array_index (sp->requests, RtSpanRequest, i);
          q->first_line = q->first_turn = 0;
        }
      g_array_append_vals (order, later_order->data, later_order->len);
      sp->without_lines = TRUE;
      sp->request_of = (guint32 *) (void *) g_array_free (g_steal_pointer (&order), FALSE);
      sp->request_of_first = g_new (guint32, MAX (st->n_files, 1u));
      guint32 at = 0;
      for (guint k = 0; k < st->n_files; k++)
        {
          sp->request_of_first[k] = at;
          at += rt_trace_file (t, st->first_file + k)->n_requests;
        }
      sp->rows = g_memdup2 (rows, MAX (st->n_files, 1u) * sizeof (const RtEvent *));
      sp->kinds = g_steal_pointer (&kinds);
    }

  for (guint k = 0; k < st->n_files; k++)
    {
      double end = rt_spans_worker (sp, k)->end_s;
      if (!isnan (end))
        sp->end_s = isnan (sp->end_s) ? end : MAX (sp->end_s, end);
    }
  return sp;
}

RtSpans *
rt_spans_analyse (const RtTrace *t, guint step_index)
{
  return spans_analyse (t, step_index, TRUE);
}

RtSpans *
rt_spans_analyse_requests (const RtTrace *t, guint step_index)
{
  return spans_analyse (t, step_index, FALSE);
}

void
rt_spans_worker_lines (const RtSpans *sp, const RtTrace *t, guint k, const gboolean *wanted, GArray *lines,
                       guint32 *first)
{
  const RtSpanWorker *w = rt_spans_worker (sp, k);
  guint32 n = 0;
  for (guint i = 0; i < w->n_requests; i++)
    {
      first[i] = wanted == NULL || wanted[i] ? n : RT_NONE;
      n += first[i] != RT_NONE ? rt_spans_request (sp, w->first_request + i)->n_lines : 0;
    }
  g_array_set_size (lines, n);
  RtSpanLine *out = (RtSpanLine *) (void *) lines->data;
  if (!sp->without_lines)
    {
      for (guint i = 0; i < w->n_requests; i++)
        {
          const RtSpanRequest *q = rt_spans_request (sp, w->first_request + i);
          if (first[i] != RT_NONE && q->n_lines > 0)
            memcpy (out + first[i], rt_spans_line (sp, q->first_line), q->n_lines * sizeof (RtSpanLine));
        }
      return;
    }
  if (n == 0)
    return;
  /* add_file's way again for these requests: which request each line is of, the lines
   * placed in line order, then sorted */
  const RtFile *f = rt_trace_file (t, w->file);
  const RtEvent *rows = sp->rows[k];
  const guint32 *span_of = sp->request_of + sp->request_of_first[k];
  g_autofree guint32 *fill = g_memdup2 (first, MAX (w->n_requests, 1u) * sizeof (guint32));
  for (guint32 e = 0; e < f->n_events; e++)
    {
      const RtEvent *ev = &rows[e];
      guint32 i = line_request (ev, f, span_of);
      if (i != RT_NONE && fill[i] != RT_NONE)
        {
          double end = ev->end_s - sp->origin_s;
          out[fill[i]++] = (RtSpanLine) { end - ev->duration_s, end, ev->event, sp->kinds[ev->event], ev->turn };
        }
    }
  guint most = 0;
  for (guint i = 0; i < w->n_requests; i++)
    if (first[i] != RT_NONE)
      most = MAX (most, rt_spans_request (sp, w->first_request + i)->n_lines);
  g_autofree RtSpanTurn *turns = g_new (RtSpanTurn, MAX (most, 1u));   /* of one request at a time */
  for (guint i = 0; i < w->n_requests; i++)
    {
      guint32 n_lines = rt_spans_request (sp, w->first_request + i)->n_lines;
      if (first[i] == RT_NONE)
        continue;
      if (n_lines > 1)
        sort_request_lines (out + first[i], n_lines);
      request_turns (out + first[i], n_lines, turns);   /* for the turns of its tool calls */
    }
}

void
rt_spans_free (RtSpans *sp)
{
  if (sp == NULL)
    return;
  g_free (sp->rows);
  g_free (sp->request_of);
  g_free (sp->request_of_first);
  g_free (sp->kinds);
  g_array_unref (sp->workers);
  g_array_unref (sp->requests);
  g_array_unref (sp->lines);
  g_array_unref (sp->turns);
  g_array_unref (sp->sections);
  g_free (sp);
}
