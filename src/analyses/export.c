/* SPDX-License-Identifier: Apache-2.0 */
/* export.c: the loaded tables as rows for other tools: every request, turn record, event line,
 * step and worker file of the selected steps, handed out in batches so that memory holds one. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-views.h"
#include "../tasks-private.h"

#include <math.h>
#include <string.h>

/* ---- declarations ---- */

#define WHERE_COLUMNS \
  { RT_COL ("step", RT_COLUMN_INT, NULL, "the step number") }, \
  { RT_COL ("worker", RT_COLUMN_INT, NULL, "the worker (rank) of the file") }

#define COUNT_COLUMNS(of) \
  { RT_COL ("lines", RT_COLUMN_INT, NULL, "lines of " of) }, \
  { RT_COL ("events", RT_COLUMN_INT, NULL, "lines that parse to a JSON object (rt-check's events)") }, \
  { RT_COL ("bad_lines", RT_COLUMN_INT, NULL, "lines that do not (cut off, not JSON)") }, \
  { RT_COL ("requests", RT_COLUMN_INT, NULL, "request ids (the rows of the requests table)") }, \
  { RT_COL ("complete", RT_COLUMN_INT, NULL, "those with an async_rollout_request_complete line") }

/* The request-level sections of docs/input.md that have a duration, newer names (the older
 * engine_call and tool_parsing are read as turn_engine_call and turn_tool_parsing). A request
 * gets a column EVENT_s for each: the summed duration of its EVENT lines. They nest as the
 * logger's sections do (turn_engine_call holds engine_generate_setup and
 * engine_async_generate_actual, main_loop holds the turns), so they do not add up. */
#define REQUEST_PHASES(X) \
  X ("pending_state_handling") X ("tool_creation_pending_state") X ("interaction_start_pending_state") \
  X ("turn_pre_process") X ("engine_generate_setup") X ("engine_async_generate_actual") \
  X ("turn_engine_call") X ("turn_tool_parsing") X ("turn_post_process") X ("turn_end") \
  X ("tool_execution") X ("tool_response_processing") X ("tool_calling_state") \
  X ("interaction_response") X ("interacting_state") X ("running_state") X ("main_loop") \
  X ("reward_calculation") X ("finalization")

#define PHASE_COLUMN(name) \
  { RT_COL (name "_s", RT_COLUMN_NUMBER, "s", "summed duration of its " name " lines (empty: none)") },
#define PHASE_NAME(name) name,

static const char *const phase_names[] = { REQUEST_PHASES (PHASE_NAME) };
#define N_PHASES G_N_ELEMENTS (phase_names)

const RtTableSpec rt_export_requests_spec = {
  "requests", "one per request id of a worker file of a selected step, complete or not",
  (const RtColumn[]) {
    WHERE_COLUMNS,
    { RT_COL ("request_id", RT_COLUMN_TEXT, NULL, "extra.request_id as logged") },
    { RT_COL ("complete", RT_COLUMN_BOOL, NULL, "1 when it has an async_rollout_request_complete line") },
    { RT_COL ("finish_reason", RT_COLUMN_TEXT, NULL, "as logged (FinishReasonTypeEnum.STOP...)") },
    { RT_COL ("turns", RT_COLUMN_INT, NULL, "extra.turns of the complete line") },
    { RT_COL ("response_length", RT_COLUMN_INT, "tokens", "extra.response_length of the complete line") },
    { RT_COL ("start_s", RT_COLUMN_NUMBER, "s",
              "end_s - duration_s; without those, the earliest start of its lines") },
    { RT_COL ("end_s", RT_COLUMN_NUMBER, "s", "the timestamp of its complete line") },
    { RT_COL ("duration_s", RT_COLUMN_NUMBER, "s", "duration_sec of its complete line (rt-cdf's value)") },
    { RT_COL ("last_s", RT_COLUMN_NUMBER, "s", "the latest timestamp of its lines (for one never complete)") },
    { RT_COL ("lines", RT_COLUMN_INT, NULL, "lines that carry its id") },
    REQUEST_PHASES (PHASE_COLUMN)
    { RT_COL ("other_s", RT_COLUMN_NUMBER, "s", "summed duration of its lines of any other name (empty: none)") },
    RT_COLUMNS_END,
  },
};

const RtTableSpec rt_export_turns_spec = {
  "turns", "one per turn record of a request: its turn_timings, or else its turn_end lines",
  (const RtColumn[]) {
    WHERE_COLUMNS,
    { RT_COL ("request_id", RT_COLUMN_TEXT, NULL, "the request's id") },
    { RT_COL ("turn", RT_COLUMN_INT, NULL, "the turn index as logged (0-based in the newer logger)") },
    { RT_COL ("source", RT_COLUMN_TEXT, NULL, "turn_timings (of the complete line) or turn_end") },
    /* in RtTurnPart order */
    { RT_COL ("pre_process_s", RT_COLUMN_NUMBER, "s", "pre_process_duration") },
    { RT_COL ("engine_call_s", RT_COLUMN_NUMBER, "s", "engine_call_duration") },
    { RT_COL ("post_process_s", RT_COLUMN_NUMBER, "s", "post_process_duration") },
    { RT_COL ("tool_parsing_s", RT_COLUMN_NUMBER, "s", "tool_parsing_duration") },
    { RT_COL ("total_s", RT_COLUMN_NUMBER, "s", "total_duration (turn_timings only)") },
    RT_COLUMNS_END,
  },
};

const RtTableSpec rt_export_events_spec = {
  "events", "one per line that parses to a JSON object with a string event, in line order",
  (const RtColumn[]) {
    WHERE_COLUMNS,
    { RT_COL ("event", RT_COLUMN_TEXT, NULL, "the canonical event name (older names mapped)") },
    { RT_COL ("request_id", RT_COLUMN_TEXT, NULL, "extra.request_id (empty: none)") },
    { RT_COL ("turn", RT_COLUMN_INT, NULL, "extra.turn as logged (empty: none)") },
    { RT_COL ("start_s", RT_COLUMN_NUMBER, "s", "end_s - duration_s; end_s for an instant event") },
    { RT_COL ("end_s", RT_COLUMN_NUMBER, "s", "its timestamp (empty: unreadable)") },
    { RT_COL ("duration_s", RT_COLUMN_NUMBER, "s", "duration_sec as logged (empty: none)") },
    RT_COLUMNS_END,
  },
};

const RtTableSpec rt_export_steps_spec = {
  "steps", "one per selected step",
  (const RtColumn[]) {
    { RT_COL ("step", RT_COLUMN_INT, NULL, "the step number") },
    { RT_COL ("workers", RT_COLUMN_INT, NULL, "its worker files") },
    COUNT_COLUMNS ("its files"),
    { RT_COL ("start_s", RT_COLUMN_NUMBER, "s",
              "its start (earliest timestamp - duration_sec) from the first start of any step of the trace with a rollout of the kind read") },
    { RT_COL ("end_s", RT_COLUMN_NUMBER, "s", "its last timestamp, from the same origin") },
    { RT_COL ("rollout_s", RT_COLUMN_NUMBER, "s", "max over workers of total_step_duration (rt-overview)") },
    { RT_COL ("interval_s", RT_COLUMN_NUMBER, "s", "to the next step's start (rt-overview; empty for the last)") },
    { RT_COL ("clock_s", RT_COLUMN_NUMBER, "s",
              "its start on the logger's zone-less clock, from 2020-01-01T00:00:00: only differences mean "
              "anything (they line up exports of different step ranges)") },
    RT_COLUMNS_END,
  },
};

const RtTableSpec rt_export_workers_spec = {
  "workers", "one per worker file of a selected step",
  (const RtColumn[]) {
    WHERE_COLUMNS,
    { RT_COL ("file", RT_COLUMN_TEXT, NULL, "its path below the experiment folder") },
    COUNT_COLUMNS ("the file"),
    { RT_COL ("start_s", RT_COLUMN_NUMBER, "s", "its earliest timestamp - duration_sec, from the step's start") },
    { RT_COL ("end_s", RT_COLUMN_NUMBER, "s", "its last timestamp, from the step's start") },
    { RT_COL ("SECTION_s", RT_COLUMN_NUMBER, "s",
              "one per step-level section, preprocessing_duration_s to total_step_duration_s: its summed duration "
              "(empty: none)"), .flags = RT_COLUMN_EACH },
    RT_COLUMNS_END,
  },
};

static const RtTableSpec *const export_specs[RT_N_EXPORT_TABLES] = {
  &rt_export_requests_spec, &rt_export_turns_spec, &rt_export_events_spec, &rt_export_steps_spec,
  &rt_export_workers_spec,
};

const RtTableSpec *
rt_export_spec (RtExportTable which)
{
  g_return_val_if_fail (which < RT_N_EXPORT_TABLES, NULL);
  return export_specs[which];
}

int
rt_export_table_find (const char *name)
{
  for (int i = 0; i < RT_N_EXPORT_TABLES; i++)
    if (strcmp (export_specs[i]->name, name) == 0)
      return i;
  return -1;
}

/* ---- rows ---- */

/* The batch being made and where it goes. */
typedef struct {
  RtTable *table;
  guint batch;
  RtExportSink sink;
  gpointer data;
  guint64 rows;
  gboolean stopped;
} Emitter;

/* A row is complete: hands the batch over when it is full. */
static void
row_done (Emitter *e)
{
  e->rows++;
  if (rt_table_n_rows (e->table) < e->batch || e->stopped)
    return;
  e->stopped = !e->sink (e->table, e->data);
  rt_table_clear_rows (e->table);
}

/* `x` from `origin` in seconds, to the microsecond: the subtraction of two clock readings
 * leaves noise in the last bits that would print as 12.345678000000001. */
static double
since (double x, double origin)
{
  return round ((x - origin) * 1e6) / 1e6;
}

static void
int_or_null (RtTable *table, gint64 v)
{
  if (v < 0)
    rt_table_null (table);
  else
    rt_table_int (table, v);
}

static void
where (Emitter *e, const RtFile *f)
{
  rt_table_int (e->table, f->step);
  rt_table_int (e->table, f->worker);
}

/* Start and end of an event row (NAN when its timestamp is unreadable). */
static double
event_start (const RtEvent *ev)
{
  return isnan (ev->duration_s) ? ev->end_s : ev->end_s - ev->duration_s;
}

/* What a request's lines add up to while its file is read. */
typedef struct {
  double first_start, last_end;
  guint lines;
  double phase_s[N_PHASES + 1];   /* the last: other names; NAN: no line */
} RequestSums;

static void
add_time (double *sum, double v)
{
  *sum = isnan (*sum) ? v : *sum + v;
}

/* The column of each event id among phase_names, N_PHASES for another name, -1 for the
 * complete line (it is the request itself). */
static int *
phase_columns (const RtTrace *t)
{
  guint n = rt_event_registry_size (t->registry);
  int *column = g_new (int, n);
  for (guint id = 0; id < n; id++)
    column[id] = id == RT_EV_REQUEST_COMPLETE ? -1 : (int) N_PHASES;
  for (guint p = 0; p < N_PHASES; p++)
    {
      guint16 id = rt_event_registry_lookup (t->registry, phase_names[p]);
      if (id != RT_EVENT_NONE && id < n)
        column[id] = (int) p;
    }
  return column;
}

static void
file_requests (Emitter *e, const RtTrace *t, const RtStep *st, guint file, const int *column)
{
  const RtFile *f = rt_trace_file (t, file);
  g_autofree RequestSums *sums = g_new (RequestSums, f->n_requests);
  for (guint r = 0; r < f->n_requests; r++)
    {
      sums[r] = (RequestSums) { .first_start = NAN, .last_end = NAN };
      for (guint p = 0; p <= N_PHASES; p++)
        sums[r].phase_s[p] = NAN;
    }
  const RtEvent *rows = rt_trace_file_events (t, file);
  for (guint i = 0; i < f->n_events; i++)
    {
      const RtEvent *ev = &rows[i];
      if (ev->request == RT_NONE || ev->request >= f->n_requests)
        continue;
      RequestSums *s = &sums[ev->request];
      s->lines++;
      double start = event_start (ev);
      if (!isnan (start) && !(start >= s->first_start))
        s->first_start = start;
      if (!isnan (ev->end_s) && !(ev->end_s <= s->last_end))
        s->last_end = ev->end_s;
      if (!isnan (ev->duration_s) && column[ev->event] >= 0)
        add_time (&s->phase_s[column[ev->event]], ev->duration_s);
    }
  for (guint r = 0; r < f->n_requests; r++)
    {
      const RtRequest *q = rt_trace_request (t, f->first_request + r);
      const RequestSums *s = &sums[r];
      double end = q->complete ? q->end_s : NAN;
      double duration = q->complete ? q->total_s : NAN;
      double start = !isnan (end) && !isnan (duration) ? end - duration : s->first_start;
      where (e, f);
      rt_table_text (e->table, rt_request_id (t, q));
      rt_table_bool (e->table, q->complete);
      rt_table_text (e->table, rt_request_finish_reason (t, q));
      int_or_null (e->table, q->complete ? q->turns : -1);
      int_or_null (e->table, q->complete ? q->response_length : -1);
      rt_table_number (e->table, since (start, st->start_s));
      rt_table_number (e->table, since (end, st->start_s));
      rt_table_number (e->table, duration);
      rt_table_number (e->table, since (s->last_end, st->start_s));
      rt_table_int (e->table, s->lines);
      for (guint p = 0; p <= N_PHASES; p++)
        rt_table_number (e->table, s->phase_s[p]);
      row_done (e);
    }
}

static void
file_turns (Emitter *e, const RtTrace *t, guint file)
{
  const RtFile *f = rt_trace_file (t, file);
  for (guint r = 0; r < f->n_requests && !e->stopped; r++)
    {
      const RtRequest *q = rt_trace_request (t, f->first_request + r);
      for (guint j = 0; j < q->n_turns; j++)
        {
          const RtTurnFigures *tf = rt_trace_turn (t, q->first_turn + j);
          where (e, f);
          rt_table_text (e->table, rt_request_id (t, q));
          int_or_null (e->table, tf->turn);
          rt_table_text (e->table, q->turns_from_timings ? "turn_timings" : "turn_end");
          const double parts[RT_N_TURN_PARTS] = {
            [RT_TURN_PRE_PROCESS] = tf->pre_process_s, [RT_TURN_ENGINE_CALL] = tf->engine_call_s,
            [RT_TURN_POST_PROCESS] = tf->post_process_s, [RT_TURN_TOOL_PARSING] = tf->tool_parsing_s,
            [RT_TURN_TOTAL] = tf->total_s,
          };
          for (int p = 0; p < RT_N_TURN_PARTS; p++)
            rt_table_number (e->table, parts[p]);
          row_done (e);
        }
    }
}

static void
file_events (Emitter *e, const RtTrace *t, const RtStep *st, guint file)
{
  const RtFile *f = rt_trace_file (t, file);
  const RtEvent *rows = rt_trace_file_events (t, file);
  for (guint i = 0; i < f->n_events && !e->stopped; i++)
    {
      const RtEvent *ev = &rows[i];
      gboolean has_request = ev->request != RT_NONE && ev->request < f->n_requests;
      where (e, f);
      rt_table_text (e->table, rt_event_registry_name (t->registry, ev->event));
      rt_table_text (e->table, has_request ? rt_request_id (t, rt_trace_request (t, f->first_request + ev->request)) : NULL);
      int_or_null (e->table, ev->turn);
      rt_table_number (e->table, since (event_start (ev), st->start_s));
      rt_table_number (e->table, since (ev->end_s, st->start_s));
      rt_table_number (e->table, ev->duration_s);
      row_done (e);
    }
}

/* The latest timestamp of a file's lines; NAN when none is readable. */
static double
file_end (const RtTrace *t, guint file)
{
  const RtFile *f = rt_trace_file (t, file);
  const RtEvent *rows = rt_trace_file_events (t, file);
  double end = NAN;
  for (guint i = 0; i < f->n_events; i++)
    if (!isnan (rows[i].end_s) && !(rows[i].end_s <= end))
      end = rows[i].end_s;
  return end;
}

static guint
complete_requests (const RtTrace *t, const RtFile *f)
{
  guint n = 0;
  for (guint r = 0; r < f->n_requests; r++)
    n += rt_trace_request (t, f->first_request + r)->complete;
  return n;
}

/* What the steps and workers tables count of one file, or of a step's files summed. */
typedef struct {
  guint64 lines, events, bad_lines, requests, complete;
  double start, end;
} FileCounts;

static void
counts_add (FileCounts *c, const RtTrace *t, guint file)
{
  const RtFile *f = rt_trace_file (t, file);
  c->lines += f->lines;
  c->events += f->events;
  c->bad_lines += f->bad_lines;
  c->requests += f->n_requests;
  c->complete += complete_requests (t, f);
  double end = file_end (t, file);
  if (!isnan (end) && !(end <= c->end))
    c->end = end;
  if (!isnan (f->start_min_s) && !(f->start_min_s >= c->start))
    c->start = f->start_min_s;
}

static void
counts_cells (RtTable *table, const FileCounts *c, double origin)
{
  rt_table_int (table, (gint64) c->lines);
  rt_table_int (table, (gint64) c->events);
  rt_table_int (table, (gint64) c->bad_lines);
  rt_table_int (table, (gint64) c->requests);
  rt_table_int (table, (gint64) c->complete);
  rt_table_number (table, since (c->start, origin));
  rt_table_number (table, since (c->end, origin));
}

static void
file_worker (Emitter *e, const RtTrace *t, const RtStep *st, guint file)
{
  const RtFile *f = rt_trace_file (t, file);
  FileCounts c = { .start = NAN, .end = NAN };
  counts_add (&c, t, file);
  where (e, f);
  rt_table_text (e->table, f->path);
  counts_cells (e->table, &c, st->start_s);
  for (int s = 0; s < RT_N_STEP_EVENTS; s++)
    rt_table_number (e->table, rt_view_file_value (f, s));
  row_done (e);
}

/* The earliest start of any step of the trace that holds a rollout of the kind read (all of
 * them, whatever --steps selects): the origin of the steps table. */
static double
trace_origin (const RtTrace *t)
{
  double origin = NAN;
  for (guint i = 0; i < t->steps->len; i++)
    {
      const RtStep *st = rt_trace_step (t, i);
      if (t->rollouts != NULL
          && rt_rollout_map_find (t->rollouts, st->step, (RtRolloutSelect) t->rollouts_read) == NULL)
        continue;   /* a validation folder, when training is read (and the other way round) */
      double start = st->start_s;   /* NAN for a step without a time */
      if (!isnan (start) && !(start >= origin))
        origin = start;
    }
  return origin;
}

static void
steps_rows (Emitter *e, const RtTrace *t, const RtStepSet *steps, const GArray *selected)
{
  g_autoptr (RtOverview) o = rt_overview_analyse (t, steps, NULL);
  double origin = trace_origin (t);
  guint next_overview = 0;
  for (guint i = 0; i < selected->len && !e->stopped; i++)
    {
      guint si = g_array_index (selected, guint, i);
      const RtStep *st = rt_trace_step (t, si);
      FileCounts c = { .start = NAN, .end = NAN };
      for (guint k = 0; k < st->n_files; k++)
        counts_add (&c, t, st->first_file + k);
      /* the overview has the selected steps with a rollout time, in the same order */
      const RtOverviewStep *ov = NULL;
      if (next_overview < o->steps->len && g_array_index (o->steps, RtOverviewStep, next_overview).step_index == si)
        ov = &g_array_index (o->steps, RtOverviewStep, next_overview++);
      rt_table_int (e->table, st->step);
      rt_table_int (e->table, st->n_files);
      counts_cells (e->table, &c, origin);
      rt_table_number (e->table, ov ? ov->rollout_s : NAN);
      rt_table_number (e->table, ov ? ov->interval_s : NAN);
      rt_table_number (e->table, since (st->start_s, 0));
      row_done (e);
    }
}

RtTable *
rt_export_table_new (RtExportTable which)
{
  return rt_export_table_new_full (which, 0);
}

RtTable *
rt_export_table_new_full (RtExportTable which, RtExportFlags flags)
{
  RtTable *table = rt_table_new (export_specs[which]);
  if (flags & RT_EXPORT_NO_STEP)
    rt_table_leave_out (table, "step");   /* every table has it */
  if (which == RT_EXPORT_WORKERS)
    {
      g_autofree char **names = g_new0 (char *, RT_N_STEP_EVENTS + 1);
      for (int s = 0; s < RT_N_STEP_EVENTS; s++)
        names[s] = g_strdup_printf ("%s_s", rt_step_event_name (s));
      rt_table_expand (table, "SECTION_s", (const char *const *) names, RT_N_STEP_EVENTS);
      for (int s = 0; s < RT_N_STEP_EVENTS; s++)
        g_free (names[s]);
    }
  return table;
}

gboolean
rt_export_rows (const RtTrace *t, const RtStepSet *steps, RtExportTable which, guint batch,
                RtExportSink sink, gpointer data, guint64 *n_rows)
{
  g_return_val_if_fail (which < RT_N_EXPORT_TABLES, FALSE);
  g_autoptr (RtTable) table = rt_export_table_new (which);
  Emitter e = { .table = table, .batch = MAX (batch, 1u), .sink = sink, .data = data };
  g_autoptr (GArray) selected = rt_trace_select_steps (t, steps);
  g_autofree int *column = which == RT_EXPORT_REQUESTS ? phase_columns (t) : NULL;
  if (which == RT_EXPORT_STEPS)
    steps_rows (&e, t, steps, selected);
  for (guint i = 0; which != RT_EXPORT_STEPS && i < selected->len && !e.stopped; i++)
    {
      const RtStep *st = rt_trace_step (t, g_array_index (selected, guint, i));
      for (guint k = 0; k < st->n_files && !e.stopped; k++)
        {
          guint file = st->first_file + k;
          switch (which)
            {
            case RT_EXPORT_REQUESTS:
              file_requests (&e, t, st, file, column);
              break;
            case RT_EXPORT_TURNS:
              file_turns (&e, t, file);
              break;
            case RT_EXPORT_EVENTS:
              file_events (&e, t, st, file);
              break;
            case RT_EXPORT_WORKERS:
              file_worker (&e, t, st, file);
              break;
            default:
              break;
            }
        }
    }
  if (!e.stopped)
    e.stopped = !sink (table, data);
  *n_rows = e.rows;
  return !e.stopped;
}

/* ---- CSV on both cores ---- */

/* The rows are made and formatted a worker file at a time (a unit; the steps table is one),
 * on this thread and a helper, each taking the next unit, and written in unit order by
 * whichever thread finds the next one ready. Memory holds a few units' text: a unit's
 * finished text waits at most RING units ahead of the one being written, and a unit whose
 * text passes UNIT_LIMIT is written as it goes once it is the next (waiting until then). */
#define RING 4
#define UNIT_LIMIT ((gsize) 1 << 20)
#define UNIT_BATCH 1024

typedef struct {
  guint step_index;           /* into t->steps */
  guint file;                 /* G_MAXUINT: the steps table, all in one unit */
} CsvUnitOf;

typedef struct {
  const RtTrace *t;
  const RtStepSet *steps;
  const GArray *selected;
  RtExportTable which;
  RtExportFlags flags;
  const int *column;
  GArray *units;              /* CsvUnitOf */
  RtExportWrite write;
  gpointer data;
  gint next;                  /* (atomic) the next unit to take */
  GMutex lock;
  GCond cond;
  guint head;                 /* every unit before it is written */
  gboolean writing;           /* a thread is writing (the lock is not held meanwhile) */
  gboolean failed;            /* a write failed: nothing more is made or written */
  GString *done[RING];        /* the finished text of unit k at k % RING, or NULL */
  GPtrArray *spare;           /* texts written, emptied, for the next units (their memory faulted in once) */
  guint64 rows;
} CsvRun;

/* The unit a thread is making. */
typedef struct {
  CsvRun *run;
  guint unit;
  GString *text;
} CsvUnit;

static void
string_free_all (gpointer text)
{
  g_string_free (text, TRUE);
}

/* Writes `text` while the caller holds the lock and the right to write; FALSE once failed. */
static gboolean
csv_write_locked (CsvRun *c, GString *text)
{
  c->writing = TRUE;
  g_mutex_unlock (&c->lock);
  gboolean ok = text->len == 0 || c->write (text->str, text->len, c->data);
  g_mutex_lock (&c->lock);
  c->writing = FALSE;
  if (!ok)
    c->failed = TRUE;
  g_cond_broadcast (&c->cond);
  return ok;
}

/* A batch of the unit's rows as text; once the text is large, written as it is, in turn. */
static gboolean
csv_unit_sink (RtTable *rows, gpointer data)
{
  CsvUnit *u = data;
  CsvRun *c = u->run;
  rt_table_csv_append (rows, u->text, FALSE);
  if (u->text->len < UNIT_LIMIT)
    return TRUE;
  g_mutex_lock (&c->lock);
  while (!c->failed && (c->head != u->unit || c->writing))
    g_cond_wait (&c->cond, &c->lock);
  gboolean ok = !c->failed && csv_write_locked (c, u->text);
  g_mutex_unlock (&c->lock);
  g_string_truncate (u->text, 0);
  return ok;
}

/* The unit is made: its text is queued, and every unit ready from the head on is written. */
static void
csv_unit_finish (CsvRun *c, CsvUnit *u, guint64 rows)
{
  g_mutex_lock (&c->lock);
  c->rows += rows;
  c->done[u->unit % RING] = g_steal_pointer (&u->text);
  while (!c->writing && !c->failed && c->head < c->units->len && c->done[c->head % RING] != NULL)
    {
      GString *text = g_steal_pointer (&c->done[c->head % RING]);
      if (csv_write_locked (c, text))
        c->head++;
      g_string_truncate (text, 0);
      g_ptr_array_add (c->spare, text);
      g_cond_broadcast (&c->cond);
    }
  g_mutex_unlock (&c->lock);
}

static void
csv_unit_rows (Emitter *e, const CsvRun *c, const CsvUnitOf *of)
{
  if (of->file == G_MAXUINT)
    {
      steps_rows (e, c->t, c->steps, c->selected);
      return;
    }
  const RtStep *st = rt_trace_step (c->t, of->step_index);
  switch (c->which)
    {
    case RT_EXPORT_REQUESTS:
      file_requests (e, c->t, st, of->file, c->column);
      break;
    case RT_EXPORT_TURNS:
      file_turns (e, c->t, of->file);
      break;
    case RT_EXPORT_EVENTS:
      file_events (e, c->t, st, of->file);
      break;
    case RT_EXPORT_WORKERS:
      file_worker (e, c->t, st, of->file);
      break;
    default:
      break;
    }
}

/* One thread's share: units taken in order until none is left or a write failed. */
static void
csv_take_units (gpointer data, guint task)
{
  CsvRun *c = data;
  (void) task;
  g_autoptr (RtTable) table = rt_export_table_new_full (c->which, c->flags);
  gint k;
  while ((k = g_atomic_int_add (&c->next, 1)) < (gint) c->units->len)
    {
      g_mutex_lock (&c->lock);
      while (!c->failed && (guint) k >= c->head + RING)
        g_cond_wait (&c->cond, &c->lock);
      gboolean failed = c->failed;
      GString *text = c->spare->len > 0 ? g_ptr_array_steal_index_fast (c->spare, c->spare->len - 1) : NULL;
      g_mutex_unlock (&c->lock);
      if (failed)
        {
          if (text != NULL)
            g_string_free (text, TRUE);
          break;
        }
      CsvUnit u = { .run = c, .unit = (guint) k, .text = text != NULL ? text : g_string_new (NULL) };
      Emitter e = { .table = table, .batch = UNIT_BATCH, .sink = csv_unit_sink, .data = &u };
      csv_unit_rows (&e, c, &g_array_index (c->units, CsvUnitOf, k));
      if (!e.stopped)
        e.stopped = !csv_unit_sink (table, &u);
      rt_table_clear_rows (table);
      csv_unit_finish (c, &u, e.rows);
    }
}

gboolean
rt_export_csv (const RtTrace *t, const RtStepSet *steps, RtExportTable which, RtExportWrite write,
               gpointer data, guint64 *n_rows)
{
  return rt_export_csv_full (t, steps, which, 0, write, data, n_rows);
}

gboolean
rt_export_csv_full (const RtTrace *t, const RtStepSet *steps, RtExportTable which, RtExportFlags flags,
                    RtExportWrite write, gpointer data, guint64 *n_rows)
{
  g_return_val_if_fail (which < RT_N_EXPORT_TABLES, FALSE);
  g_autoptr (GArray) selected = rt_trace_select_steps (t, steps);
  g_autoptr (GArray) units = g_array_new (FALSE, FALSE, sizeof (CsvUnitOf));
  if (which == RT_EXPORT_STEPS)
    g_array_append_val (units, ((CsvUnitOf) { .file = G_MAXUINT }));
  for (guint i = 0; which != RT_EXPORT_STEPS && i < selected->len; i++)
    {
      guint si = g_array_index (selected, guint, i);
      const RtStep *st = rt_trace_step (t, si);
      for (guint k = 0; k < st->n_files; k++)
        g_array_append_val (units, ((CsvUnitOf) { .step_index = si, .file = st->first_file + k }));
    }
  g_autofree int *column = which == RT_EXPORT_REQUESTS ? phase_columns (t) : NULL;
  CsvRun c = {
    .t = t, .steps = steps, .selected = selected, .which = which, .flags = flags, .column = column, .units = units,
    .write = write, .data = data, .spare = g_ptr_array_new_with_free_func (string_free_all),
  };
  g_mutex_init (&c.lock);
  g_cond_init (&c.cond);
  {
    g_autoptr (RtTable) header = rt_export_table_new_full (which, flags);
    g_autoptr (GString) text = g_string_new (NULL);
    rt_table_csv_append (header, text, TRUE);
    c.failed = !write (text->str, text->len, data);
  }
  if (!c.failed)
    rt_run_shared (2, g_get_num_processors (), csv_take_units, &c);   /* a loop on each thread */
  for (guint i = 0; i < RING; i++)
    if (c.done[i] != NULL)
      g_string_free (c.done[i], TRUE);
  g_ptr_array_unref (c.spare);
  g_mutex_clear (&c.lock);
  g_cond_clear (&c.cond);
  g_assert (c.failed || c.head == units->len);
  *n_rows = c.rows;
  return !c.failed;
}

static const RtTableSpec *const export_tables[] = { &rt_export_requests_spec, &rt_export_turns_spec, &rt_export_events_spec, &rt_export_steps_spec, &rt_export_workers_spec, NULL };

const RtAnalysisSpec rt_export_analysis = {
  .name = "export",
  .reads = RT_READS_ROWS | RT_READS_REQUESTS | RT_READS_TURNS | RT_READS_REQUEST_IDS,
  .steps = RT_STEPS_SELECTED,
  .tables = export_tables,
  .plots = NULL,
};
