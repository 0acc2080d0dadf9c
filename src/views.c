/* SPDX-License-Identifier: Apache-2.0 */
/* views.c: derived columns of the tables that more than one analyzer reads.
 * Kept here so that every analyzer agrees on what "a request's duration" or "a worker's value" is. */
#include "rolltrace/rt-views.h"
#include "rolltrace/rt-jsonw.h"
#include "rolltrace/rt-text.h"
#include "memory-private.h"
#include "tasks-private.h"

#include <math.h>

RtSamples *
rt_view_request_durations (const RtTrace *t, guint step_index, gint32 worker)
{
  const RtStep *st = rt_trace_step (t, step_index);
  RtSamples *s = rt_samples_new ();
  for (guint k = 0; k < st->n_files; k++)
    {
      const RtFile *f = rt_trace_file (t, st->first_file + k);
      if (worker >= 0 && f->worker != worker)
        continue;
      for (guint r = 0; r < f->n_requests; r++)
        {
          const RtRequest *q = rt_trace_request (t, f->first_request + r);
          if (q->complete)
            rt_samples_add (s, q->total_s);
        }
    }
  return s;
}

RtSorted
rt_view_request_durations_sorted_in_place (const RtTrace *t, guint step_index)
{
  guint n;
  const double *cached = rt_trace_step_sorted_durations (t, step_index, &n);
  if (cached != NULL)
    return rt_sorted_borrow (cached, n);
  RtSamples *s = rt_view_request_durations (t, step_index, -1);
  rt_sort_doubles (rt_samples_data (s), s->len);
  return rt_sorted_own (s);
}

RtSamples *
rt_view_request_durations_sorted (const RtTrace *t, guint step_index)
{
  RtSorted v = rt_view_request_durations_sorted_in_place (t, step_index);
  if (v.owned != NULL)
    return v.owned;
  RtSamples *s = g_array_sized_new (FALSE, FALSE, sizeof (double), v.n);
  g_array_append_vals (s, v.v, v.n);
  return s;
}

double
rt_view_file_value (const RtFile *f, RtEventId event)
{
  g_return_val_if_fail (event < RT_N_STEP_EVENTS, NAN);
  return f->step_sum_s[event];
}

RtSamples *
rt_view_event_values (const RtTrace *t, guint step_index, guint16 event)
{
  /* every complete line is one request of the request table, with its duration:
   * asking that table spares reading every event row */
  if (event == RT_EV_REQUEST_COMPLETE)
    return rt_view_request_durations (t, step_index, -1);
  const RtStep *st = rt_trace_step (t, step_index);
  RtSamples *s = rt_samples_new ();
  for (guint k = 0; k < st->n_files; k++)
    {
      const RtFile *f = rt_trace_file (t, st->first_file + k);
      if (event < RT_N_STEP_EVENTS)
        {
          rt_samples_add (s, f->step_sum_s[event]);
          continue;
        }
      const RtEvent *rows = rt_trace_file_events (t, st->first_file + k);
      for (guint e = 0; e < f->n_events; e++)
        if (rows[e].event == event)
          rt_samples_add (s, rows[e].duration_s);
    }
  return s;
}

void
rt_view_tsv_cdf_block (GString *tsv, const char *label, const double *sorted, guint n,
                       guint max_points)
{
  g_string_append (tsv, "# ");
  rt_tsv_append_text (tsv, label);
  g_string_append_c (tsv, '\n');
  /* keep every point of a small sample; of a large one an even spread of ranks,
   * always with the first and the last so the tails stay exact */
  guint stride = n > max_points ? (n + max_points - 1) / max_points : 1;
  /* the ranks 0, stride, 2 stride, ..., then n - 1 unless it was one of them: stepping
   * by the stride rather than testing every rank (a step holds up to ~10^5 samples) */
  for (gsize i = 0; i < n; i = i == n - 1 ? n : MIN (i + stride, n - 1))
    {
      /* nine digits are plenty for a plot, and far cheaper than the shortest exact form */
      rt_format_cdf_point (tsv, sorted[i], (double) (i + 1) / n);
    }
  g_string_append (tsv, "\n\n");
}

/* How many points rt_view_tsv_cdf_block writes of n values. */
static guint
block_points (guint n, guint max_points)
{
  guint stride = n > max_points ? (n + max_points - 1) / max_points : 1;
  return n == 0 ? 0 : (n - 1) / stride + 1 + ((n - 1) % stride != 0);
}

typedef struct {
  GString *tsv;
  const RtCdfBlock *blocks;
  guint n;
} CdfBlocksJob;

static void
cdf_blocks_write (gpointer data, guint task)
{
  CdfBlocksJob *job = &((CdfBlocksJob *) data)[task];
  /* about 24 bytes a point: the text grows once, not by doubling through megabytes */
  gsize points = 0;
  for (guint i = 0; i < job->n; i++)
    points += block_points (job->blocks[i].n, job->blocks[i].max_points);
  gsize len = job->tsv->len;
  rt_string_reserve_huge (job->tsv, points * 24 + 4096);
  /* the pages about to be written brought in by one call, not a fault at a time (a point is
   * about 20 bytes) */
  rt_populate_write (job->tsv->str + len, points * 20);
  for (guint i = 0; i < job->n; i++)
    rt_view_tsv_cdf_block (job->tsv, job->blocks[i].label, job->blocks[i].sorted, job->blocks[i].n,
                           job->blocks[i].max_points);
}

/* Below this many points (or on one processor) a second thread costs more than it saves. */
#define CDF_POINTS_FOR_TWO_THREADS 20000

void
rt_view_tsv_cdf_blocks (GString *head, GString *tail, const RtCdfBlock *blocks, guint n_blocks)
{
  guint64 points = 0;
  for (guint i = 0; i < n_blocks; i++)
    points += block_points (blocks[i].n, blocks[i].max_points);
  /* the first blocks up to about half the points into head, the others into tail, the two
   * halves made at once on the two cores (formatting numbers is most of a cached rt-cdf) */
  guint cut = n_blocks;
  if (points >= CDF_POINTS_FOR_TWO_THREADS && g_get_num_processors () > 1)
    {
      guint64 before = 0;
      for (cut = 0; cut < n_blocks && 2 * before < points; cut++)
        before += block_points (blocks[cut].n, blocks[cut].max_points);
    }
  CdfBlocksJob halves[] = { { head, blocks, cut }, { tail, blocks + cut, n_blocks - cut } };
  rt_run_shared (halves[1].n > 0 ? 2 : 1, g_get_num_processors (), cdf_blocks_write, halves);
}

double
rt_view_step_rollout (const RtTrace *t, guint step_index)
{
  const RtStep *st = rt_trace_step (t, step_index);
  double max = NAN;
  for (guint k = 0; k < st->n_files; k++)
    {
      double v = rt_trace_file (t, st->first_file + k)->step_sum_s[RT_EV_TOTAL_STEP];
      if (!isnan (v) && (isnan (max) || v > max))
        max = v;
    }
  return max;
}

int
rt_view_slowest_step (const RtTrace *t, const RtStepSet *steps)
{
  int best = -1;
  double best_v = NAN;
  for (guint i = 0; i < t->steps->len; i++)
    {
      if (steps != NULL && !rt_step_set_contains (steps, rt_trace_step (t, i)->step))
        continue;
      double v = rt_view_step_rollout (t, i);
      if (!isnan (v) && (best < 0 || v > best_v))
        {
          best = (int) i;
          best_v = v;
        }
    }
  return best;
}

/* Dashed verticals at the percentiles of one series, and its stats box. */
void
rt_plot_cdf_markers (GString *gp, const RtSummary *sum, const char *what)
{
  const struct { const char *name; double v; } marks[] = {
    { "P50", sum->p50 }, { "P80", sum->p80 }, { "P90", sum->p90 },
    { "P95", sum->p95 }, { "P99", sum->p99 }, { "P99.9", sum->p999 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (marks); i++)
    {
      if (!(marks[i].v > 0))
        continue;   /* a log axis cannot show 0 */
      g_string_append_printf (gp, "set arrow from %.6g, graph 0 to %.6g, graph 1 nohead dt 2 lc rgb '#888888' lw 1\n",
                              marks[i].v, marks[i].v);
      g_string_append_printf (gp, "set label '%s %.3g s' at %.6g, graph 0.03 rotate by 90 left offset -0.6,0 font ',9' tc rgb '#555555'\n",
                              marks[i].name, marks[i].v, marks[i].v);
    }
  /* the series' name comes from the input: a literal of its own, joined to our
   * lines by gnuplot's string concatenation */
  g_autofree char *name = rt_gnuplot_quote (what);
  g_string_append_printf (gp, "set label %s.\"\\ncount %u\\nmean %.3g s\\nmedian %.3g s\\nstd %.3g s\\nmin %.3g s\\nmax %.3g s\" "
                              "at graph 0.80, graph 0.45 left front boxed font ',10'\n",
                          name, sum->count, sum->mean, sum->p50, sum->std, sum->min, sum->max);
}

double
rt_now_s (void)
{
  const char *epoch = g_getenv ("SOURCE_DATE_EPOCH");
  char *end = NULL;
  gint64 v = epoch != NULL ? g_ascii_strtoll (epoch, &end, 10) : 0;
  if (epoch != NULL && *epoch != '\0' && end != NULL && *end == '\0')
    return (double) v;
  return g_get_real_time () / 1e6;
}

/* What makes the last step look unfinished, or NULL. */
static const char *
last_step_unfinished (const RtTrace *t)
{
  const RtStep *st = rt_trace_step (t, t->steps->len - 1);
  if (st->n_files == 0)
    return "no worker file";
  if (t->steps->len >= 2 && st->n_files < rt_trace_step (t, t->steps->len - 2)->n_files)
    return "fewer worker files than the step before";
  for (guint k = 0; k < st->n_files; k++)
    if (isnan (rt_view_file_value (rt_trace_file (t, st->first_file + k), RT_EV_TOTAL_STEP)))
      return "a worker file without total_step_duration";
  return NULL;
}

RtLastStep
rt_view_last_step (const RtTrace *t, double now_s)
{
  RtLastStep last = { .state = RT_LAST_STEP_COMPLETE, .step = -1, .idle_s = NAN };
  if (t->steps->len == 0)
    return last;
  last.step = rt_trace_step (t, t->steps->len - 1)->step;
  gint64 newest_us = G_MININT64;
  for (guint i = 0; i < t->files->len; i++)
    newest_us = MAX (newest_us, rt_trace_file (t, i)->mtime_us);
  if (t->files->len > 0 && now_s >= newest_us / 1e6)
    {
      last.idle_s = now_s - newest_us / 1e6;
      g_autoptr (GDateTime) when = g_date_time_new_from_unix_local (newest_us / G_USEC_PER_SEC);
      g_autofree char *text = when ? g_date_time_format (when, "%Y-%m-%d %H:%M:%S") : NULL;
      if (text != NULL)
        g_strlcpy (last.last_write, text, sizeof last.last_write);
    }
  last.why = last_step_unfinished (t);
  if (last.why != NULL)
    last.state = last.idle_s >= RT_RUNNING_WINDOW_S ? RT_LAST_STEP_INCOMPLETE : RT_LAST_STEP_RUNNING;
  /* (a file newer than now, the clock set back or SOURCE_DATE_EPOCH, counts as written now) */
  return last;
}

const char *
rt_last_step_state_name (RtLastStepState state)
{
  static const char *const names[] = { "complete", "running", "incomplete" };
  g_return_val_if_fail (state <= RT_LAST_STEP_INCOMPLETE, NULL);
  return names[state];
}
