/* SPDX-License-Identifier: Apache-2.0 */
/* turn-dist.c: how many turns requests take, step by step, and what each extra turn costs.
 * A shift towards longer conversations explains a slower rollout before any profiler does. */
#include "rolltrace/analyses/turn-dist.h"

#include <math.h>
#include <string.h>

/* The bin of `turns`, or where it would go. */
static guint
bin_position (const GArray *bins, gint32 turns)
{
  guint lo = 0, hi = bins->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (bins, RtTurnBin, mid).turns < turns)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

const RtTurnBin *
rt_turn_bins_find (const GArray *bins, gint32 turns)
{
  guint at = bin_position (bins, turns);
  return at < bins->len && g_array_index (bins, RtTurnBin, at).turns == turns
           ? &g_array_index (bins, RtTurnBin, at) : NULL;
}

/* Bins being filled: the usual numbers of turns straight by their number, the rare larger
 * ones (never sized by their value) in a sorted array. */
#define DIRECT_TURNS 64
typedef struct {
  RtTurnBin direct[DIRECT_TURNS];   /* count 0: no request yet */
  GArray *others;                   /* RtTurnBin of DIRECT_TURNS turns or more, ascending */
} Filling;

/* The bin of `turns` (a rare one of DIRECT_TURNS or more, made when new). */
static RtTurnBin *
other_bin (Filling *fill, gint32 turns)
{
  GArray *bins = fill->others;
  guint at = bin_position (bins, turns);
  if (at == bins->len || g_array_index (bins, RtTurnBin, at).turns != turns)
    {
      RtTurnBin fresh = { .turns = turns };
      g_array_insert_val (bins, at, fresh);
    }
  return &g_array_index (bins, RtTurnBin, at);
}

/* A request of DIRECT_TURNS turns or more into its bin (the usual ones are filled in place:
 * rt_turn_dist_analyse). */
static void
other_add (Filling *fill, gint32 turns, double total_s)
{
  RtTurnBin *b = other_bin (fill, turns);
  b->count++;
  if (!isnan (total_s))
    {
      b->sum_s += total_s;
      b->n_timed++;
    }
}

static GArray *
bins_new (void)
{
  return g_array_new (FALSE, TRUE, sizeof (RtTurnBin));
}

static void
filling_init (Filling *fill)
{
  memset (fill->direct, 0, sizeof fill->direct);
  for (gint32 t = 0; t < DIRECT_TURNS; t++)
    fill->direct[t].turns = t;
  fill->others = bins_new ();
}

/* The bins filled, ascending, with their means. */
static GArray *
bins_finish (Filling *fill)
{
  GArray *bins = bins_new ();
  for (guint t = 0; t < DIRECT_TURNS; t++)
    if (fill->direct[t].count > 0)
      g_array_append_val (bins, fill->direct[t]);
  g_array_append_vals (bins, fill->others->data, fill->others->len);
  g_clear_pointer (&fill->others, g_array_unref);
  for (guint n = 0; n < bins->len; n++)
    {
      RtTurnBin *b = &g_array_index (bins, RtTurnBin, n);
      b->mean_s = b->n_timed ? b->sum_s / b->n_timed : NAN;
    }
  return bins;
}

struct _RtTurnDistFill {
  RtTurnDist *d;              /* its steps so far; `all` not yet */
  Filling all;
};

RtTurnDistFill *
rt_turn_dist_fill_new (void)
{
  RtTurnDistFill *fill = g_new0 (RtTurnDistFill, 1);
  fill->d = g_new0 (RtTurnDist, 1);
  fill->d->steps = g_array_new (FALSE, FALSE, sizeof (RtTurnDistStep));
  filling_init (&fill->all);
  return fill;
}

void
rt_turn_dist_fill_step (RtTurnDistFill *fill, const RtTrace *t, guint step_index)
{
  Filling *all = &fill->all;
  g_autofree Filling *step = g_new (Filling, 1);
  RtTurnDistStep ds = { .step_index = step_index };
  filling_init (step);
  ds.step = rt_trace_step (t, ds.step_index)->step;
  const RtStep *st = rt_trace_step (t, ds.step_index);
  for (guint k = 0; k < st->n_files; k++)
    {
      const RtFile *f = rt_trace_file (t, st->first_file + k);
      if (f->n_requests == 0 || f->first_request == RT_NONE)
        continue;   /* (none, or none taken: without RT_READS_REQUESTS) */
      /* a file's requests lie in one table: walked by pointer, the count kept apart from
       * the bins (which the compiler cannot tell from it). The usual bins are filled in
       * the step's only, but for the durations' sum, which is added request by request
       * in the same order as ever (a step's sum added once would round otherwise): their
       * counts go into `all` once the step is walked (one walk of the whole request
       * table per cached rt-report; its cost: bench/RESULTS.md, "Behind the code") */
      guint requests = 0;
      const RtRequest *q = rt_trace_request (t, f->first_request), *end = q + f->n_requests;
      for (; q < end; q++)
        {
          if (!q->complete)
            continue;
          requests++;
          if (G_LIKELY ((guint32) q->turns < DIRECT_TURNS))
            {
              RtTurnBin *b = &step->direct[q->turns];
              b->count++;
              if (!isnan (q->total_s))
                {
                  b->sum_s += q->total_s;
                  b->n_timed++;
                  all->direct[q->turns].sum_s += q->total_s;
                }
            }
          else if (q->turns >= DIRECT_TURNS)
            {
              other_add (step, q->turns, q->total_s);
              other_add (all, q->turns, q->total_s);
            }
        }
      ds.requests += requests;
    }
  rt_trace_requests_done (t, st->first_file, st->n_files);
  for (guint n = 0; n < DIRECT_TURNS; n++)
    {
      all->direct[n].count += step->direct[n].count;
      all->direct[n].n_timed += step->direct[n].n_timed;
    }
  ds.bins = bins_finish (step);
  if (ds.requests == 0)
    {
      g_array_unref (ds.bins);   /* no requests: the step is left out */
      return;
    }
  g_array_append_val (fill->d->steps, ds);
}

RtTurnDistFill *
rt_turn_dist_fill_copy (const RtTurnDistFill *fill)
{
  RtTurnDistFill *c = rt_turn_dist_fill_new ();
  for (guint i = 0; i < fill->d->steps->len; i++)
    {
      RtTurnDistStep ds = g_array_index (fill->d->steps, RtTurnDistStep, i);
      ds.bins = g_array_copy (ds.bins);
      g_array_append_val (c->d->steps, ds);
    }
  GArray *others = c->all.others;
  c->all = fill->all;
  c->all.others = others;
  g_array_append_vals (others, fill->all.others->data, fill->all.others->len);
  return c;
}

RtTurnDist *
rt_turn_dist_fill_finish (RtTurnDistFill *fill)
{
  RtTurnDist *d = fill->d;
  d->all = bins_finish (&fill->all);
  g_free (fill);
  return d;
}

void
rt_turn_dist_fill_free (RtTurnDistFill *fill)
{
  if (fill != NULL)
    rt_turn_dist_free (rt_turn_dist_fill_finish (fill));
}

RtTurnDist *
rt_turn_dist_analyse (const RtTrace *t, const RtStepSet *steps)
{
  g_autoptr (GArray) selected = rt_trace_select_steps (t, steps);
  RtTurnDistFill *fill = rt_turn_dist_fill_new ();
  for (guint i = 0; i < selected->len; i++)
    rt_turn_dist_fill_step (fill, t, g_array_index (selected, guint, i));
  return rt_turn_dist_fill_finish (fill);
}

void
rt_turn_dist_free (RtTurnDist *d)
{
  if (d == NULL)
    return;
  for (guint i = 0; i < d->steps->len; i++)
    g_array_unref (g_array_index (d->steps, RtTurnDistStep, i).bins);
  g_array_unref (d->steps);
  g_array_unref (d->all);
  g_free (d);
}

const RtTableSpec rt_turn_dist_bins_spec = {
  "turn_dist_bins", "one per number of turns that occurs, ascending",
  (const RtColumn[]) {
    { RT_COL ("turns", RT_COLUMN_INT, NULL, "the number of turns") },
    { RT_COL ("count", RT_COLUMN_INT, NULL, "complete requests with that many") },
    { RT_COL ("mean_s", RT_COLUMN_NUMBER, "s", "their mean duration (null: none has one)") },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_turn_dist_bins_table (const GArray *bins)
{
  RtTable *table = rt_table_new (&rt_turn_dist_bins_spec);
  for (guint n = 0; n < bins->len; n++)
    {
      const RtTurnBin *b = &g_array_index (bins, RtTurnBin, n);
      rt_table_int (table, b->turns);
      rt_table_int (table, b->count);
      rt_table_number (table, b->mean_s);
    }
  return table;
}

const RtTableSpec rt_turn_dist_steps_spec = {
  "turn_dist_steps", "one per selected step with a complete request",
  (const RtColumn[]) {
    { RT_COL ("step", RT_COLUMN_INT, NULL, "the step number") },
    { RT_COL ("requests", RT_COLUMN_INT, NULL, "complete requests, with a number of turns or not") },
    { RT_COL ("by_turns", RT_COLUMN_TABLE, NULL, "the step's turn_dist_bins") },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_turn_dist_steps_table (const RtTurnDist *d)
{
  RtTable *table = rt_table_new (&rt_turn_dist_steps_spec);
  for (guint i = 0; i < d->steps->len; i++)
    {
      const RtTurnDistStep *ds = &g_array_index (d->steps, RtTurnDistStep, i);
      rt_table_int (table, ds->step);
      rt_table_int (table, ds->requests);
      rt_table_table (table, rt_turn_dist_bins_table (ds->bins));
    }
  return table;
}

const RtTableSpec rt_turn_dist_counts_spec = {
  "turn_dist_counts", "one per selected step with a complete request",
  (const RtColumn[]) {
    { RT_COL ("step", RT_COLUMN_INT, NULL, "the step number") },
    { RT_COL ("TURNS", RT_COLUMN_INT, NULL, "its requests with that many turns, a column per "
              "number of turns that occurs, named after it"), .flags = RT_COLUMN_EACH },
    RT_COLUMNS_END,
  },
};

const RtTableSpec rt_turn_dist_mean_spec = {
  "turn_dist_mean", "one per selected step with a complete request",
  (const RtColumn[]) {
    { RT_COL ("step", RT_COLUMN_INT, NULL, "the step number") },
    { RT_COL ("TURNS", RT_COLUMN_NUMBER, "s", "their mean duration, a column per number of turns "
              "that occurs, named after it (NaN: none)"), .flags = RT_COLUMN_EACH },
    RT_COLUMNS_END,
  },
};

/* A row per step, a column per number of turns of d->all: the step's count or mean. */
static RtTable *
pivot_table (const RtTurnDist *d, const RtTableSpec *spec, gboolean mean)
{
  RtTable *table = rt_table_new (spec);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (guint n = 0; n < d->all->len; n++)
    g_ptr_array_add (names, g_strdup_printf ("%d", g_array_index (d->all, RtTurnBin, n).turns));
  rt_table_expand (table, "TURNS", (const char *const *) names->pdata, names->len);
  for (guint i = 0; i < d->steps->len; i++)
    {
      const RtTurnDistStep *ds = &g_array_index (d->steps, RtTurnDistStep, i);
      rt_table_int (table, ds->step);
      for (guint n = 0; n < d->all->len; n++)
        {
          const RtTurnBin *b = rt_turn_bins_find (ds->bins, g_array_index (d->all, RtTurnBin, n).turns);
          if (mean)
            rt_table_number (table, b != NULL ? b->mean_s : NAN);
          else
            rt_table_int (table, b != NULL ? b->count : 0);
        }
    }
  return table;
}

RtTable *
rt_turn_dist_counts_table (const RtTurnDist *d)
{
  return pivot_table (d, &rt_turn_dist_counts_spec, FALSE);
}

RtTable *
rt_turn_dist_mean_table (const RtTurnDist *d)
{
  return pivot_table (d, &rt_turn_dist_mean_spec, TRUE);
}

static const RtTableSpec *const turn_dist_tables[] = { &rt_turn_dist_steps_spec, &rt_turn_dist_bins_spec, &rt_turn_dist_counts_spec, &rt_turn_dist_mean_spec, NULL };

const RtAnalysisSpec rt_turn_dist_analysis = {
  .name = "turn_dist",
  .reads = RT_READS_REQUESTS,
  .steps = RT_STEPS_SELECTED,
  .tables = turn_dist_tables,
  .plots = "turn_dist_counts, turn_dist_mean",
};
