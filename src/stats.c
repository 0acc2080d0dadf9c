/* stats.c: mean, population std, percentiles and the summary box of the analyzers.
 * Percentiles follow numpy's default ("linear") method, so answers match the usual scripts. */
#include "rolltrace/rt-stats.h"

#include <math.h>
#include <stdlib.h>

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

double
rt_percentile_sorted (const double *sorted, guint n, double q)
{
  if (n == 0)
    return NAN;
  /* numpy 'linear': position q/100 * (n - 1), interpolated between neighbours,
   * from whichever neighbour is nearer, as numpy does, so results agree to the bit */
  double pos = (q / 100.0) * (double) (n - 1);
  double lo = floor (pos);
  guint i = (guint) lo;
  if (i + 1 >= n)
    return sorted[n - 1];
  double t = pos - lo, a = sorted[i], b = sorted[i + 1], diff = b - a;
  return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

double
rt_mean (const double *values, guint n)
{
  if (n == 0)
    return NAN;
  double sum = 0;
  for (guint i = 0; i < n; i++)
    sum += values[i];
  return sum / n;
}

double
rt_std_population (const double *values, guint n)
{
  if (n == 0)
    return NAN;
  /* two passes: the one-pass formula loses digits when the mean is large */
  double mean = rt_mean (values, n), ss = 0;
  for (guint i = 0; i < n; i++)
    ss += (values[i] - mean) * (values[i] - mean);
  return sqrt (ss / n);
}

static void
sort_doubles (double *values, guint n)
{
  if (n > 1)   /* qsort must not see the NULL of an empty array */
    qsort (values, n, sizeof (double), compare_doubles);
}

double
rt_median (double *values, guint n)
{
  sort_doubles (values, n);
  return rt_percentile_sorted (values, n, 50);
}

void
rt_summary_compute (double *values, guint n, RtSummary *out)
{
  sort_doubles (values, n);
  out->count = n;
  out->mean = rt_mean (values, n);
  out->std = rt_std_population (values, n);
  out->min = n ? values[0] : NAN;
  out->max = n ? values[n - 1] : NAN;
  out->p50 = rt_percentile_sorted (values, n, 50);
  out->p80 = rt_percentile_sorted (values, n, 80);
  out->p90 = rt_percentile_sorted (values, n, 90);
  out->p95 = rt_percentile_sorted (values, n, 95);
  out->p99 = rt_percentile_sorted (values, n, 99);
  out->p999 = rt_percentile_sorted (values, n, 99.9);
}

RtSamples *
rt_samples_new (void)
{
  return g_array_new (FALSE, FALSE, sizeof (double));
}

void
rt_samples_add (RtSamples *s, double v)
{
  if (!isnan (v))
    g_array_append_val (s, v);
}
