/* SPDX-License-Identifier: Apache-2.0 */
/* load-rollouts.c: a loaded trace cut to the rollouts read: a worker file of the appended layout
 * holds a step's training rollout and then its validation, and an analysis reads one of them. */
#include "load-private.h"

#include <math.h>
#include <string.h>

/* The rows and requests of file f that `part` reads: [*first, *end) of each. */
static void
part_bounds (const RtFile *f, RtFilePart part, guint32 *rows_at, guint32 *rows_end, guint32 *req_at,
             guint32 *req_end)
{
  gboolean ended = f->n_rollout_ends > 0;
  guint32 rows_cut = ended ? MIN (f->first_rollout.n_events, f->n_events) : f->n_events;
  guint32 req_cut = ended ? MIN (f->first_rollout.n_requests, f->n_requests) : f->n_requests;
  *rows_at = part == RT_FILE_LATER_ROLLOUTS ? rows_cut : 0;
  *rows_end = part == RT_FILE_FIRST_ROLLOUT ? rows_cut : f->n_events;
  *req_at = part == RT_FILE_LATER_ROLLOUTS ? req_cut : 0;
  *req_end = part == RT_FILE_FIRST_ROLLOUT ? req_cut : f->n_requests;
}

/* The part leaves something of the file out. */
static gboolean
cuts (const RtFile *f, RtFilePart part)
{
  guint32 rows_at, rows_end, req_at, req_end;
  part_bounds (f, part, &rows_at, &rows_end, &req_at, &req_end);
  return part != RT_FILE_WHOLE && (rows_at > 0 || rows_end < f->n_events || req_at > 0 || req_end < f->n_requests);
}

/* The start and the step-level sums of rows[0 .. n - 1], as the parser makes the file's
 * (parse.c, process_line): the same additions in the same order. */
static void
figures_of_rows (RtFile *f, const RtEvent *rows, guint32 n)
{
  f->start_min_s = NAN;
  for (int i = 0; i < RT_N_STEP_EVENTS; i++)
    f->step_sum_s[i] = NAN;
  for (guint32 e = 0; e < n; e++)
    {
      const RtEvent *ev = &rows[e];
      if (!isnan (ev->end_s))
        {
          double start = ev->end_s - (isnan (ev->duration_s) ? 0.0 : ev->duration_s);
          if (isnan (f->start_min_s) || start < f->start_min_s)
            f->start_min_s = start;
        }
      if (ev->event < RT_N_STEP_EVENTS && !isnan (ev->duration_s))
        f->step_sum_s[ev->event] = isnan (f->step_sum_s[ev->event]) ? ev->duration_s
                                                                     : f->step_sum_s[ev->event] + ev->duration_s;
    }
}

/* The turns of requests [req_at, req_end) of file f, one request's after another. */
static void
cut_turns (const RtTrace *t, RtFile *f, guint32 req_at, guint32 req_end)
{
  guint64 before = 0, in = 0;
  for (guint32 k = 0; k < req_end; k++)
    {
      guint32 n = rt_trace_request (t, f->first_request + k)->n_turns;
      *(k < req_at ? &before : &in) += n;
    }
  before = MIN (before, f->n_turns);
  f->first_turn += (guint32) before;
  f->n_turns = (guint32) MIN (in, f->n_turns - before);
}

static void
cut_file (RtTrace *t, guint i, RtFilePart part)
{
  RtFileState *fs = &t->priv->files[i];
  RtFile *f = &g_array_index (t->files, RtFile, i);
  guint32 rows_at, rows_end, req_at, req_end;
  part_bounds (f, part, &rows_at, &rows_end, &req_at, &req_end);
  fs->cut = TRUE;
  fs->whole_events = f->n_events;
  fs->whole_requests = f->n_requests;
  fs->cut_requests_at = req_at;

  if (part == RT_FILE_FIRST_ROLLOUT)
    {
      /* noted as the lines were read: no row needed (without RT_READS_ROWS) */
      const RtFileSlice *first = &f->first_rollout;
      f->n_complete = MIN (first->n_complete, f->n_complete);
      f->start_min_s = first->start_min_s;
      memcpy (f->step_sum_s, first->step_sum_s, sizeof f->step_sum_s);
    }
  else
    {
      /* the later rollouts' rows, their requests numbered from the first of them */
      const RtEvent *whole = rt_trace_file_events (t, i);
      fs->cut_events = g_array_sized_new (FALSE, FALSE, sizeof (RtEvent), rows_end - rows_at);
      for (guint32 e = rows_at; e < rows_end; e++)
        {
          RtEvent ev = whole[e];
          ev.request = ev.request != RT_NONE && ev.request >= req_at && ev.request < req_end ? ev.request - req_at
                                                                                             : RT_NONE;
          g_array_append_val (fs->cut_events, ev);
        }
      figures_of_rows (f, (const RtEvent *) fs->cut_events->data, rows_end - rows_at);
      f->n_complete -= MIN (f->first_rollout.n_complete, f->n_complete);
    }
  if (f->first_request != RT_NONE)
    {
      cut_turns (t, f, req_at, req_end);
      f->first_request += req_at;
    }
  else if (t->priv->kept_durations != NULL)
    fs->first_duration += req_at;   /* its requests' durations alone were kept */
  /* the lines of its part: its rows, and the file's damage (bad lines, objects without an
   * event name), which the part is not told apart by and rt-check lists by line */
  guint64 nameless = f->events - MIN (f->events, (guint64) fs->whole_events);
  guint64 bad = f->lines - MIN (f->lines, f->events);
  f->n_events = rows_end - rows_at;
  f->n_requests = req_end - req_at;
  f->events = f->n_events + nameless;
  f->lines = f->events + bad;
}

gboolean
rt_trace_file_is_cut (const RtTrace *t, guint file)
{
  return t->priv->files[file].cut;
}

const RtLoadOptions *
rt_trace_load_options (const RtTrace *t)
{
  return &t->priv->opts;
}

gboolean
rt_trace_keep_file_parts (RtTrace *t, const RtFilePart *parts)
{
  RtTracePrivate *priv = t->priv;
  gboolean any = FALSE;
  for (guint i = 0; i < t->files->len; i++)
    {
      const RtFile *f = rt_trace_file (t, i);
      if (!cuts (f, parts[i]))
        continue;
      any = TRUE;
      if ((parts[i] == RT_FILE_LATER_ROLLOUTS && priv->files[i].rows_dropped)
          || (f->first_request == RT_NONE && !priv->keeps.requests && priv->kept_durations == NULL)
          || (priv->turn_sums != NULL && i < priv->turn_sums_files))
        return FALSE;
    }
  if (!any)
    return TRUE;
  for (guint i = 0; i < t->files->len; i++)
    if (cuts (rt_trace_file (t, i), parts[i]))
      cut_file (t, i, parts[i]);
  rt_trace_finish_steps (t);
  /* the cache's sorted durations are asked again, and refused for a step with a cut file */
  rt_load_forget_durations (priv, t->steps->len);
  return TRUE;
}
