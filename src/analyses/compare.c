/* SPDX-License-Identifier: Apache-2.0 */
/* compare.c: several experiments reduced to the same views (durations, per-step rollout and
 * throughput, sections, turns) and each set against the first: ratios, a two-sample KS test. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-views.h"

#include <math.h>
#include <string.h>

/* ---- the two-sample Kolmogorov-Smirnov test ---- */

/* After every pooled value x (all copies of it taken), F_a(x) = i/n and F_b(x) = j/m:
 * |i/n - j/m| = |i m - j n| / (n m), kept whole so that equal CDFs give exactly 0. The statistic
 * is the largest, over (n m). */
static inline guint64
ks_gap (guint64 i, guint64 j, guint64 n, guint64 m)
{
  gint64 diff = (gint64) (i * m) - (gint64) (j * n);
  return (guint64) (diff < 0 ? -diff : diff);
}

/* The walk over the sorted values a (na) and b (nb), after i of a sample of n and j of one of m
 * were already taken: the largest gap, at least `best`. */
static guint64
ks_walk_sorted (const double *a, guint na, const double *b, guint nb, guint64 i, guint64 j, guint64 n,
                guint64 m, guint64 best)
{
  guint ia = 0, ib = 0;
  while (ia < na || ib < nb)
    {
      double x = (ib == nb || (ia < na && a[ia] <= b[ib])) ? a[ia] : b[ib];
      for (; ia < na && a[ia] <= x; ia++)
        i++;
      for (; ib < nb && b[ib] <= x; ib++)
        j++;
      best = MAX (best, ks_gap (i, j, n, m));
    }
  return best;
}

double
rt_ks_statistic (const double *a, guint n, const double *b, guint m)
{
  if (n == 0 || m == 0)
    return NAN;
  return (double) ks_walk_sorted (a, n, b, m, 0, 0, n, m, 0) / ((double) n * (double) m);
}

double
rt_ks_statistic_ranks (const gint32 *a, guint n, const gint32 *b, guint m, guint32 n_values)
{
  if (n == 0 || m == 0)
    return NAN;
  /* how many of each value in each sample; then rt_ks_statistic's walk over the values present
   * (one absent from both leaves i and j as they were, so it may be walked too) */
  g_autofree guint32 *count = g_new0 (guint32, 2 * (gsize) n_values);
  for (guint k = 0; k < n; k++)
    count[2 * (gsize) a[k]]++;
  for (guint k = 0; k < m; k++)
    count[2 * (gsize) b[k] + 1]++;
  guint64 i = 0, j = 0, best = 0;
  for (gsize v = 0; v < n_values; v++)
    {
      i += count[2 * v];
      j += count[2 * v + 1];
      best = MAX (best, ks_gap (i, j, n, m));
    }
  return (double) best / ((double) n * (double) m);
}

void
rt_ks_tally_init (RtKsTally *t)
{
  t->count = g_array_new (FALSE, TRUE, sizeof (guint64));
  t->large = g_array_new (FALSE, FALSE, sizeof (gint32));
  t->n = 0;
}

void
rt_ks_tally_clear (RtKsTally *t)
{
  g_clear_pointer (&t->count, g_array_unref);
  g_clear_pointer (&t->large, g_array_unref);
}

void
rt_ks_tally_add (RtKsTally *t, gint32 v, guint32 times)
{
  g_return_if_fail (v >= 0);
  t->n += times;
  if (v >= RT_KS_TALLY_DENSE)
    {
      for (guint32 k = 0; k < times; k++)
        g_array_append_val (t->large, v);
      return;
    }
  if ((guint) v >= t->count->len)
    g_array_set_size (t->count, (guint) v + 1);   /* (zeroed) */
  g_array_index (t->count, guint64, v) += times;
}

double
rt_ks_statistic_tallies (const RtKsTally *a, const RtKsTally *b)
{
  guint64 n = a->n, m = b->n;
  if (n == 0 || m == 0)
    return NAN;
  /* rt_ks_statistic's walk over the pooled values: the dense ones by value (one absent from both
   * leaves i and j as they were, so it may be walked too), then the large ones sorted */
  guint64 i = 0, j = 0, best = 0;
  for (guint v = 0; v < MAX (a->count->len, b->count->len); v++)
    {
      i += v < a->count->len ? g_array_index (a->count, guint64, v) : 0;
      j += v < b->count->len ? g_array_index (b->count, guint64, v) : 0;
      best = MAX (best, ks_gap (i, j, n, m));
    }
  guint nx = a->large->len, ny = b->large->len;
  g_autofree double *x = g_new (double, MAX (nx, 1u)), *y = g_new (double, MAX (ny, 1u));
  for (guint k = 0; k < nx; k++)
    x[k] = g_array_index (a->large, gint32, k);
  for (guint k = 0; k < ny; k++)
    y[k] = g_array_index (b->large, gint32, k);
  rt_sort_doubles (x, nx);
  rt_sort_doubles (y, ny);
  best = ks_walk_sorted (x, nx, y, ny, i, j, n, m, best);
  return (double) best / ((double) n * (double) m);
}

double
rt_ks_q (double t)
{
  if (isnan (t))
    return NAN;
  if (t <= 0)
    return 1;
  double p;
  if (t < 1.18)
    {
      /* the same function through Jacobi's theta identity, which converges fast where the
       * alternating series needs many terms: Q(t) = 1 - sqrt(2 pi)/t sum_k exp(-(2k-1)^2 pi^2 / (8 t^2)) */
      double sum = 0, c = G_PI * G_PI / (8 * t * t);
      for (int k = 1; k <= 100; k++)
        {
          double term = exp (-(double) ((2 * k - 1) * (2 * k - 1)) * c);
          sum += term;
          if (term < 1e-18 * sum)
            break;
        }
      p = 1 - sqrt (2 * G_PI) / t * sum;
    }
  else
    {
      double sum = 0;
      for (int k = 1; k <= 100; k++)
        {
          double term = exp (-2.0 * k * k * t * t);
          sum += (k % 2 == 1) ? term : -term;
          if (term < 1e-18)
            break;
        }
      p = 2 * sum;
    }
  return CLAMP (p, 0.0, 1.0);
}

double
rt_ks_pvalue (double d, guint n, guint m)
{
  if (isnan (d) || n == 0 || m == 0)
    return NAN;
  return rt_ks_q (sqrt ((double) n * m / ((double) n + m)) * d);
}

/* ---- one experiment reduced ---- */

void
rt_ks_write_json (RtJsonWriter *w, const char *key, double statistic, double pvalue)
{
  rt_jw_key (w, key);
  if (isnan (statistic))
    {
      rt_jw_null (w);
      return;
    }
  rt_jw_begin_object (w);
  rt_jw_member_number (w, "statistic", statistic);
  rt_jw_member_number (w, "pvalue", pvalue);
  rt_jw_end_object (w);
}

static double
mean_of_finite (const GArray *steps, gsize offset)
{
  double sum = 0;
  guint count = 0;
  for (guint i = 0; i < steps->len; i++)
    {
      double v = *(const double *) ((const char *) &g_array_index (steps, RtCompareStep, i) + offset);
      if (!isnan (v))
        {
          sum += v;
          count++;
        }
    }
  return count > 0 ? sum / count : NAN;
}

/* The sums over the steps whose rate is not null, over their summed rollout. */
static double
rollout_weighted (const GArray *steps, gboolean tokens)
{
  double amount = 0, rollout = 0;
  guint count = 0;
  for (guint i = 0; i < steps->len; i++)
    {
      const RtCompareStep *st = &g_array_index (steps, RtCompareStep, i);
      if (isnan (tokens ? st->tokens_per_s : st->requests_per_s))
        continue;
      amount += tokens ? st->tokens : st->requests;
      rollout += st->rollout_s;
      count++;
    }
  return count > 0 ? amount / rollout : NAN;
}

static void
compare_step_fill (const RtTrace *t, RtCompareStep *st)
{
  const RtStep *step = rt_trace_step (t, st->step_index);
  for (guint f = step->first_file; f < step->first_file + step->n_files; f++)
    st->requests += rt_trace_file (t, f)->n_complete;
  gboolean any_tokens = FALSE;
  double tokens = 0;
  RtStepRequests it;
  rt_step_requests_init (&it, t, st->step_index);
  for (const RtRequest *q; (q = rt_step_requests_next (&it)) != NULL;)
    if (q->complete && q->response_length >= 0)
      {
        tokens += q->response_length;
        any_tokens = TRUE;
      }
  st->tokens = any_tokens ? tokens : NAN;
  gboolean timed = !isnan (st->rollout_s) && st->rollout_s > 0;
  st->requests_per_s = timed ? st->requests / st->rollout_s : NAN;
  st->tokens_per_s = timed && any_tokens ? tokens / st->rollout_s : NAN;
}

static void
experiment_reduce (RtCompareExperiment *x, const RtStepSet *steps)
{
  const RtTrace *t = x->in.trace;

  /* per-step values on the whole experiment (an interval runs to the next step, selected or not) */
  g_autoptr (RtOverview) o = rt_overview_analyse (t, NULL, NULL);
  x->steps = g_array_new (FALSE, TRUE, sizeof (RtCompareStep));
  for (guint i = 0; i < o->steps->len; i++)
    {
      const RtOverviewStep *r = &g_array_index (o->steps, RtOverviewStep, i);
      if (steps != NULL && !rt_step_set_contains (steps, r->step))
        continue;
      RtCompareStep st = { .step_index = r->step_index, .step = r->step, .rollout_s = r->rollout_s,
                           .interval_s = r->interval_s };
      compare_step_fill (t, &st);
      g_array_append_val (x->steps, st);
    }
  x->rollout_mean = mean_of_finite (x->steps, G_STRUCT_OFFSET (RtCompareStep, rollout_s));
  x->interval_mean = mean_of_finite (x->steps, G_STRUCT_OFFSET (RtCompareStep, interval_s));
  x->requests_per_s = rollout_weighted (x->steps, FALSE);
  x->tokens_per_s = rollout_weighted (x->steps, TRUE);

  g_autoptr (GArray) selected = rt_trace_select_steps (t, steps);
  for (guint i = 0; i < selected->len; i++)
    {
      const RtStep *step = rt_trace_step (t, g_array_index (selected, guint, i));
      for (guint f = step->first_file; f < step->first_file + step->n_files; f++)
        x->requests += rt_trace_file (t, f)->n_complete;
    }

  g_autoptr (RtCdf) cdf = rt_cdf_analyse (t, steps, NULL);
  const RtCdfEvent *all = g_ptr_array_index (cdf->events, 0);
  x->durations = g_array_sized_new (FALSE, FALSE, sizeof (double), all->all.n);
  g_array_append_vals (x->durations, all->all.v, all->all.n);   /* its own: the cdf goes now */
  x->duration = all->all_summary;

  g_autoptr (RtEvents) ev = rt_events_analyse (t, steps);
  x->barrier_share_mean = ev->barrier_pct;
  memcpy (x->section_pct, ev->mean_pct, sizeof x->section_pct);

  x->turns = rt_turns_analyse (t, steps);
  x->turn_dist = rt_turn_dist_analyse (t, steps);
}

static gpointer
experiment_reduce_thread (gpointer data)
{
  gpointer *args = data;
  experiment_reduce (args[0], args[1]);
  return NULL;
}

/* ---- against the reference ---- */

static double
ratio (double v, double ref)
{
  return isnan (v) || isnan (ref) || ref == 0 ? NAN : v / ref;
}

static int
find_step (const GArray *steps, gint32 step)
{
  guint lo = 0, hi = steps->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      gint32 s = g_array_index (steps, RtCompareStep, mid).step;
      if (s == step)
        return (int) mid;
      if (s < step)
        lo = mid + 1;
      else
        hi = mid;
    }
  return -1;
}

RtCompare *
rt_compare_analyse (const RtCompareInput *inputs, guint n, const RtStepSet *steps, RtCompareAlign align)
{
  RtCompare *c = g_new0 (RtCompare, 1);
  c->n = n;
  c->align = align;
  c->experiments = g_new0 (RtCompareExperiment, n);
  c->versus = g_new0 (RtCompareVersus, n);

  /* the experiments are independent: one thread each beside this one */
  g_autofree gpointer *args = g_new0 (gpointer, 2 * n);
  g_autoptr (GPtrArray) threads = g_ptr_array_new ();
  for (guint e = 0; e < n; e++)
    {
      c->experiments[e].in = inputs[e];
      args[2 * e] = &c->experiments[e];
      args[2 * e + 1] = (gpointer) (inputs[e].steps != NULL ? inputs[e].steps : steps);
    }
  for (guint e = 1; e < n; e++)
    {
      /* (one that cannot have its thread, under a limit on processes, is reduced here) */
      GThread *thread = g_thread_try_new ("rt-compare", experiment_reduce_thread, &args[2 * e], NULL);
      if (thread != NULL)
        g_ptr_array_add (threads, thread);
      else
        experiment_reduce_thread (&args[2 * e]);
    }
  if (n > 0)
    experiment_reduce_thread (&args[0]);
  for (guint i = 0; i < threads->len; i++)
    g_thread_join (g_ptr_array_index (threads, i));

  const RtCompareExperiment *ref = &c->experiments[0];
  for (guint e = 0; e < n; e++)
    {
      const RtCompareExperiment *x = &c->experiments[e];
      RtCompareVersus *v = &c->versus[e];
      v->p50_ratio = ratio (x->duration.p50, ref->duration.p50);
      v->p90_ratio = ratio (x->duration.p90, ref->duration.p90);
      v->p99_ratio = ratio (x->duration.p99, ref->duration.p99);
      v->mean_ratio = ratio (x->duration.mean, ref->duration.mean);
      v->ks_statistic = rt_ks_statistic (rt_samples_data (x->durations), x->durations->len,
                                         rt_samples_data (ref->durations), ref->durations->len);
      v->ks_pvalue = rt_ks_pvalue (v->ks_statistic, x->durations->len, ref->durations->len);
    }

  c->rows = g_array_new (FALSE, FALSE, sizeof (RtCompareRow));
  for (guint k = 0; n > 0 && k < ref->steps->len; k++)
    {
      RtCompareRow row = { .step = g_array_index (ref->steps, RtCompareStep, k).step,
                           .index = g_new (int, n) };
      row.index[0] = (int) k;
      for (guint e = 1; e < n; e++)
        {
          const GArray *other = c->experiments[e].steps;
          row.index[e] = align == RT_COMPARE_ALIGN_STEP ? find_step (other, row.step)
                         : k < other->len ? (int) k : -1;
        }
      g_array_append_val (c->rows, row);
    }
  return c;
}

void
rt_compare_free (RtCompare *c)
{
  if (c == NULL)
    return;
  for (guint e = 0; e < c->n; e++)
    {
      RtCompareExperiment *x = &c->experiments[e];
      g_clear_pointer (&x->durations, g_array_unref);
      g_clear_pointer (&x->steps, g_array_unref);
      g_clear_pointer (&x->turns, rt_turns_free);
      g_clear_pointer (&x->turn_dist, rt_turn_dist_free);
    }
  for (guint i = 0; c->rows != NULL && i < c->rows->len; i++)
    g_free (g_array_index (c->rows, RtCompareRow, i).index);
  g_clear_pointer (&c->rows, g_array_unref);
  g_free (c->experiments);
  g_free (c->versus);
  g_free (c);
}

const RtCompareStep *
rt_compare_row_step (const RtCompare *c, guint row, guint e)
{
  int i = g_array_index (c->rows, RtCompareRow, row).index[e];
  return i < 0 ? NULL : &g_array_index (c->experiments[e].steps, RtCompareStep, i);
}

/* ---- tables ---- */

#define DURATION_COLUMN(name_, type_, meaning_) \
  { RT_COL (name_, type_, "s", meaning_), .tsv_name = "duration_" name_, .group = "duration", \
    .flags = RT_COLUMN_NULL_GROUP }

const RtTableSpec rt_compare_experiments_spec = {
  "compare_experiments", "one per experiment, in the order given (the first is the reference)",
  (const RtColumn[]) {
    { RT_COL ("label", RT_COLUMN_TEXT, NULL, "--labels, or the folder's name; a repeated one gets #2, #3...") },
    { RT_COL ("path", RT_COLUMN_TEXT, NULL, "the experiment folder as given") },
    { RT_COL ("steps", RT_COLUMN_INT, NULL, "selected steps with data (that rt-overview lists)") },
    { RT_COL ("requests", RT_COLUMN_INT, NULL, "complete requests of the selected steps (as rt-check)") },
    { RT_COL ("count", RT_COLUMN_INT, NULL, "finite request durations (rt-cdf's all; the group is null when none)"),
      .tsv_name = "duration_count", .group = "duration", .flags = RT_COLUMN_NULL_GROUP },
    DURATION_COLUMN ("mean", RT_COLUMN_NUMBER, "mean request duration"),
    DURATION_COLUMN ("std", RT_COLUMN_NUMBER, "standard deviation (population)"),
    DURATION_COLUMN ("min", RT_COLUMN_NUMBER, "shortest"),
    DURATION_COLUMN ("max", RT_COLUMN_NUMBER, "longest"),
    DURATION_COLUMN ("p50", RT_COLUMN_NUMBER, "median (percentiles interpolate between closest ranks)"),
    DURATION_COLUMN ("p80", RT_COLUMN_NUMBER, "80th percentile"),
    DURATION_COLUMN ("p90", RT_COLUMN_NUMBER, "90th percentile"),
    DURATION_COLUMN ("p95", RT_COLUMN_NUMBER, "95th percentile"),
    DURATION_COLUMN ("p99", RT_COLUMN_NUMBER, "99th percentile"),
    DURATION_COLUMN ("p999", RT_COLUMN_NUMBER, "99.9th percentile"),
    { RT_COL ("rollout_mean", RT_COLUMN_NUMBER, "s", "mean rollout_s (slowest rank) over the selected steps with one") },
    { RT_COL ("interval_mean", RT_COLUMN_NUMBER, "s", "mean interval_s (to the next step) over the selected steps with one") },
    { RT_COL ("barrier_share_mean", RT_COLUMN_NUMBER, "%", "rt-events' barrier_wait_duration share, mean over the selected steps with one") },
    { RT_COL ("requests_per_s", RT_COLUMN_NUMBER, "1/s", "the selected steps' complete requests / their rollout_s, both summed over the steps whose "
              "own value is not null (a rollout-weighted mean; null when none)") },
    { RT_COL ("tokens_per_s", RT_COLUMN_NUMBER, "tokens/s", "the sum of response_length over complete requests / rollout_s, summed likewise over the "
              "steps whose own tokens_per_s is not null") },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_compare_experiments_table (const RtCompare *c)
{
  RtTable *table = rt_table_new (&rt_compare_experiments_spec);
  for (guint e = 0; e < c->n; e++)
    {
      const RtCompareExperiment *x = &c->experiments[e];
      rt_table_text (table, x->in.label);
      rt_table_text (table, x->in.path);
      rt_table_int (table, x->steps->len);
      rt_table_int (table, (gint64) x->requests);
      if (x->duration.count > 0)
        rt_table_summary (table, &x->duration, RT_SUMMARY_P80 | RT_SUMMARY_P999);
      else
        for (int k = 0; k < 11; k++)
          rt_table_null (table);
      rt_table_number (table, x->rollout_mean);
      rt_table_number (table, x->interval_mean);
      rt_table_number (table, x->barrier_share_mean);
      rt_table_number (table, x->requests_per_s);
      rt_table_number (table, x->tokens_per_s);
    }
  return table;
}

const RtTableSpec rt_compare_versus_spec = {
  "compare_versus", "one per experiment after the first, against the first",
  (const RtColumn[]) {
    { RT_COL ("label", RT_COLUMN_TEXT, NULL, "the experiment") },
    { RT_COL ("p50_ratio", RT_COLUMN_NUMBER, NULL, "its P50 request duration / the first's (null when either is null or the first's is 0)") },
    { RT_COL ("p90_ratio", RT_COLUMN_NUMBER, NULL, "likewise for P90") },
    { RT_COL ("p99_ratio", RT_COLUMN_NUMBER, NULL, "likewise for P99") },
    { RT_COL ("mean_ratio", RT_COLUMN_NUMBER, NULL, "likewise for the mean") },
    { RT_COL ("statistic", RT_COLUMN_NUMBER, NULL, "two-sample KS D against the first: the largest |i m - j n| / (n m) "
              "over the pooled durations (the group is null when either sample is empty)"),
      .tsv_name = "ks_statistic", .group = "ks", .flags = RT_COLUMN_NULL_GROUP },
    { RT_COL ("pvalue", RT_COLUMN_NUMBER, NULL, "Q(sqrt(n m / (n + m)) D), Q(t) = 2 sum_k>=1 (-1)^(k-1) exp(-2 k^2 t^2)"),
      .tsv_name = "ks_pvalue", .group = "ks", .flags = RT_COLUMN_NULL_GROUP },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_compare_versus_table (const RtCompare *c)
{
  RtTable *table = rt_table_new (&rt_compare_versus_spec);
  for (guint e = 1; e < c->n; e++)
    {
      const RtCompareVersus *v = &c->versus[e];
      rt_table_text (table, c->experiments[e].in.label);
      rt_table_number (table, v->p50_ratio);
      rt_table_number (table, v->p90_ratio);
      rt_table_number (table, v->p99_ratio);
      rt_table_number (table, v->mean_ratio);
      rt_table_number (table, v->ks_statistic);
      rt_table_number (table, v->ks_pvalue);
    }
  return table;
}

static const char *const step_series[] = { "rollout_s", "interval_s", "requests_per_s", "tokens_per_s" };

const RtTableSpec rt_compare_steps_spec = {
  "compare_steps", "one per selected step with data of the first experiment, in step order",
  (const RtColumn[]) {
    { RT_COL ("step", RT_COLUMN_INT, NULL, "the first experiment's step number"),
      .flags = RT_COLUMN_TRAINER_STEP },   /* steps paired across experiments: no one trainer's step */
    { RT_COL ("rollout_s", RT_COLUMN_NUMBER, "s", "per experiment (--align step: the same step number; index: its "
              "k-th selected step with data): rt-overview's rollout_s, null where absent; TSV rollout_s_1, _2..."),
      .flags = RT_COLUMN_EACH | RT_COLUMN_ARRAY },
    { RT_COL ("interval_s", RT_COLUMN_NUMBER, "s", "per experiment likewise: rt-overview's interval_s"),
      .flags = RT_COLUMN_EACH | RT_COLUMN_ARRAY },
    { RT_COL ("requests_per_s", RT_COLUMN_NUMBER, "1/s", "per experiment likewise: complete requests / rollout_s "
              "(null unless rollout_s > 0)"), .flags = RT_COLUMN_EACH | RT_COLUMN_ARRAY },
    { RT_COL ("tokens_per_s", RT_COLUMN_NUMBER, "tokens/s", "per experiment likewise: summed response_length of "
              "complete requests / rollout_s (null also without any)"), .flags = RT_COLUMN_EACH | RT_COLUMN_ARRAY },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_compare_steps_table (const RtCompare *c)
{
  RtTable *table = rt_table_new (&rt_compare_steps_spec);
  for (guint s = 0; s < G_N_ELEMENTS (step_series); s++)
    {
      g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      for (guint e = 0; e < c->n; e++)
        g_ptr_array_add (names, g_strdup_printf ("%s_%u", step_series[s], e + 1));
      rt_table_expand (table, step_series[s], (const char *const *) names->pdata, c->n);
    }
  for (guint r = 0; r < c->rows->len; r++)
    {
      rt_table_int (table, g_array_index (c->rows, RtCompareRow, r).step);
      for (guint s = 0; s < G_N_ELEMENTS (step_series); s++)
        for (guint e = 0; e < c->n; e++)
          {
            const RtCompareStep *st = rt_compare_row_step (c, r, e);
            double v = st == NULL ? NAN
                       : s == 0 ? st->rollout_s : s == 1 ? st->interval_s
                       : s == 2 ? st->requests_per_s : st->tokens_per_s;
            rt_table_number (table, v);
          }
    }
  return table;
}

/* ---- the plots' tables: a column per experiment, numbered in the order given ---- */

static RtTable *
per_experiment_table (const RtTableSpec *spec, const char *pattern, guint n)
{
  RtTable *table = rt_table_new (spec);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (guint e = 0; e < n; e++)
    g_ptr_array_add (names, g_strdup_printf ("%s_%u", pattern, e + 1));
  rt_table_expand (table, pattern, (const char *const *) names->pdata, n);
  return table;
}

const RtTableSpec rt_compare_turns_spec = {
  "compare_turns", "one per turn index some experiment has a turn record of [TSV only]",
  (const RtColumn[]) {
    { RT_COL ("turn", RT_COLUMN_INT, NULL, "the turn index, from 0") },
    { RT_COL ("engine_s", RT_COLUMN_NUMBER, "s", "per experiment (engine_s_1, _2...): rt-turns' mean engine "
              "call time of that turn index (NaN: none)"), .flags = RT_COLUMN_EACH },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_compare_turns_table (const RtCompare *c)
{
  RtTable *table = per_experiment_table (&rt_compare_turns_spec, "engine_s", c->n);
  gint32 last = -1;
  for (guint e = 0; e < c->n; e++)
    {
      const GArray *rows = c->experiments[e].turns->turns;
      if (rows->len > 0)
        last = MAX (last, g_array_index (rows, RtTurnsRow, rows->len - 1).turn);
    }
  for (gint32 turn = 0; turn <= last; turn++)
    {
      g_autofree double *v = g_new (double, c->n);
      gboolean any = FALSE;
      for (guint e = 0; e < c->n; e++)
        {
          v[e] = NAN;
          const GArray *rows = c->experiments[e].turns->turns;
          for (guint i = 0; i < rows->len; i++)
            if (g_array_index (rows, RtTurnsRow, i).turn == turn)
              v[e] = g_array_index (rows, RtTurnsRow, i).mean_s[RT_TURN_ENGINE_CALL];
          any = any || !isnan (v[e]);
        }
      if (!any)
        continue;
      rt_table_int (table, turn);
      for (guint e = 0; e < c->n; e++)
        rt_table_number (table, v[e]);
    }
  return table;
}

const RtTableSpec rt_compare_turn_dist_spec = {
  "compare_turn_dist", "one per number of turns some experiment's complete requests took [TSV only]",
  (const RtColumn[]) {
    { RT_COL ("turns", RT_COLUMN_INT, NULL, "the number of turns") },
    { RT_COL ("share", RT_COLUMN_NUMBER, "%", "per experiment (share_1, _2...): its complete requests with that "
              "many turns / those with a number of turns x 100"), .flags = RT_COLUMN_EACH },
    RT_COLUMNS_END,
  },
};

static guint
bins_total (const GArray *bins)
{
  guint total = 0;
  for (guint i = 0; i < bins->len; i++)
    total += g_array_index (bins, RtTurnBin, i).count;
  return total;
}

RtTable *
rt_compare_turn_dist_table (const RtCompare *c)
{
  RtTable *table = per_experiment_table (&rt_compare_turn_dist_spec, "share", c->n);
  /* the numbers of turns that occur anywhere, ascending */
  g_autoptr (GArray) turns = g_array_new (FALSE, FALSE, sizeof (gint32));
  for (guint e = 0; e < c->n; e++)
    {
      const GArray *bins = c->experiments[e].turn_dist->all;
      for (guint i = 0; i < bins->len; i++)
        {
          gint32 k = g_array_index (bins, RtTurnBin, i).turns;
          gboolean seen = FALSE;
          for (guint j = 0; j < turns->len && !seen; j++)
            seen = g_array_index (turns, gint32, j) == k;
          if (!seen)
            g_array_append_val (turns, k);
        }
    }
  g_array_sort (turns, rt_compare_gint32);
  for (guint i = 0; i < turns->len; i++)
    {
      gint32 k = g_array_index (turns, gint32, i);
      rt_table_int (table, k);
      for (guint e = 0; e < c->n; e++)
        {
          const GArray *bins = c->experiments[e].turn_dist->all;
          const RtTurnBin *bin = rt_turn_bins_find (bins, k);
          guint total = bins_total (bins);
          rt_table_number (table, total == 0 ? NAN : 100.0 * (bin ? bin->count : 0) / total);
        }
    }
  return table;
}

const RtTableSpec rt_compare_events_spec = {
  "compare_events", "one per step-level section (before total_step_duration) some experiment logged [TSV only]",
  (const RtColumn[]) {
    { RT_COL ("section", RT_COLUMN_TEXT, NULL, "the section's canonical name") },
    { RT_COL ("pct", RT_COLUMN_NUMBER, "%", "per experiment (pct_1, _2...): rt-events' mean share of the step "
              "(NaN: never logged)"), .flags = RT_COLUMN_EACH },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_compare_events_table (const RtCompare *c)
{
  RtTable *table = per_experiment_table (&rt_compare_events_spec, "pct", c->n);
  for (int s = 0; s < RT_EV_TOTAL_STEP; s++)
    {
      gboolean any = FALSE;
      for (guint e = 0; e < c->n; e++)
        any = any || !isnan (c->experiments[e].section_pct[s]);
      if (!any)
        continue;
      rt_table_text (table, rt_step_event_name (s));
      for (guint e = 0; e < c->n; e++)
        rt_table_number (table, c->experiments[e].section_pct[s]);
    }
  return table;
}

const RtTableSpec rt_compare_hist_spec = {
  "compare_hist", "one per logarithmic bin, from the bin of the shortest positive request duration of "
  "any experiment to that of the longest [TSV only]",
  (const RtColumn[]) {
    { RT_COL ("low_s", RT_COLUMN_NUMBER, "s", "the bin's lower bound (included)") },
    { RT_COL ("high_s", RT_COLUMN_NUMBER, "s", "its upper bound (excluded; the last bin includes it)") },
    { RT_COL ("share", RT_COLUMN_NUMBER, "%", "per experiment (share_1, _2...): its positive finite request "
              "durations in the bin / all of them x 100 (NaN: it has none)"), .flags = RT_COLUMN_EACH },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_compare_hist_table (const RtCompare *c, guint bins_per_decade)
{
  RtTable *table = per_experiment_table (&rt_compare_hist_spec, "share", c->n);
  double lo = INFINITY, hi = -INFINITY;
  for (guint e = 0; e < c->n; e++)
    {
      const RtSamples *d = c->experiments[e].durations;
      for (guint i = 0; i < d->len; i++)   /* ascending: the first positive one is the least */
        if (rt_samples_data (d)[i] > 0)
          {
            lo = MIN (lo, rt_samples_data (d)[i]);
            break;
          }
      if (d->len > 0 && isfinite (rt_samples_data (d)[d->len - 1]))
        hi = MAX (hi, rt_samples_data (d)[d->len - 1]);
    }
  if (!(lo <= hi))
    return table;
  int first = (int) floor (log10 (lo) * bins_per_decade);
  int last = (int) floor (log10 (hi) * bins_per_decade);
  guint n_bins = (guint) (last - first + 1);
  g_autofree guint *counts = g_new0 (guint, (gsize) n_bins * c->n);
  g_autofree guint *totals = g_new0 (guint, c->n);
  for (guint e = 0; e < c->n; e++)
    {
      const RtSamples *d = c->experiments[e].durations;
      for (guint i = 0; i < d->len; i++)
        {
          double v = rt_samples_data (d)[i];
          if (!(v > 0) || !isfinite (v))
            continue;
          int b = (int) floor (log10 (v) * bins_per_decade) - first;
          counts[(gsize) CLAMP (b, 0, (int) n_bins - 1) * c->n + e]++;
          totals[e]++;
        }
    }
  for (guint b = 0; b < n_bins; b++)
    {
      rt_table_number (table, pow (10, (double) (first + (int) b) / bins_per_decade));
      rt_table_number (table, pow (10, (double) (first + (int) b + 1) / bins_per_decade));
      for (guint e = 0; e < c->n; e++)
        rt_table_number (table, totals[e] == 0 ? NAN : 100.0 * counts[(gsize) b * c->n + e] / totals[e]);
    }
  return table;
}

static const RtTableSpec *const compare_tables[] = { &rt_compare_experiments_spec, &rt_compare_versus_spec, &rt_compare_steps_spec, &rt_compare_turns_spec, &rt_compare_turn_dist_spec, &rt_compare_events_spec, &rt_compare_hist_spec, NULL };

const RtAnalysisSpec rt_compare_analysis = {
  .name = "compare",
  .reads = RT_READS_ROWS | RT_READS_REQUESTS | RT_READS_TURN_SUMS | RT_READS_REQUEST_IDS,
  .steps = RT_STEPS_SELECTED,
  .tables = compare_tables,
  .plots = "compare_cdf, compare_events, compare_hist, compare_steps, compare_throughput, compare_turn_dist, compare_turns",
};
