/* SPDX-License-Identifier: Apache-2.0 */
/* stats.c: mean, population std, percentiles and the summary box of the analyzers.
 * Percentiles follow numpy's default ("linear") method, so answers match the usual scripts. */
#include "rolltrace/rt-stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
  /* four at a time, one after another: the same additions in the same order, fewer of the
   * loop's own instructions */
  double sum = 0;
  const double *v = values, *end = values + n;
  for (; end - v >= 4; v += 4)
    sum = sum + v[0] + v[1] + v[2] + v[3];
  for (; v < end; v++)
    sum += *v;
  return sum / n;
}

/* The population std of values whose mean is `mean` (as rt_mean gives it). */
static double
std_about (const double *values, guint n, double mean)
{
  if (n == 0)
    return NAN;
  double ss = 0;
  const double *v = values, *end = values + n;
  for (; end - v >= 4; v += 4)   /* as rt_mean */
    ss = ss + (v[0] - mean) * (v[0] - mean) + (v[1] - mean) * (v[1] - mean) + (v[2] - mean) * (v[2] - mean)
         + (v[3] - mean) * (v[3] - mean);
  for (; v < end; v++)
    ss += (*v - mean) * (*v - mean);
  return sqrt (ss / n);
}

double
rt_std_population (const double *values, guint n)
{
  /* two passes: the one-pass formula loses digits when the mean is large */
  return std_about (values, n, rt_mean (values, n));
}

/* Doubles as unsigned keys that sort in the same order: flip all bits of a
 * negative number, only the sign bit of a positive one. */
static inline guint64
key_of (double v)
{
  guint64 u;
  memcpy (&u, &v, sizeof u);
  return (u >> 63) ? ~u : u | (1ull << 63);
}

/* The order of the keys, which the radix sort below follows too: the sorted array
 * is then one and the same whatever order the values came in (-0 before +0). */
static int
compare_keys (const void *a, const void *b)
{
  guint64 x = key_of (*(const double *) a), y = key_of (*(const double *) b);
  return x < y ? -1 : x > y;
}

static inline double
value_of (guint64 k)
{
  guint64 u = (k >> 63) ? k & ~(1ull << 63) : ~k;
  double v;
  memcpy (&v, &u, sizeof v);
  return v;
}

#define RADIX_16_MIN 16384

/* One pass of the radix sort: the n keys of *from moved into *to in the order of their digit
 * (key >> shift) & mask, counted in count (mask + 2 zeroed entries); then the two swapped. A
 * digit every key shares moves nothing. */
static inline void
radix_pass (guint64 **from, guint64 **to, guint n, int shift, guint64 mask, guint32 *count)
{
  guint64 *a = *from, *b = *to;
  for (guint i = 0; i < n; i++)
    count[((a[i] >> shift) & mask) + 1]++;
  if (count[((a[0] >> shift) & mask) + 1] == n)
    return;
  for (guint64 d = 0; d < mask + 1; d++)
    count[d + 1] += count[d];
  for (guint i = 0; i < n; i++)
    b[count[(a[i] >> shift) & mask]++] = a[i];
  *from = b;
  *to = a;
}

/* Sorts ascending. A least-significant-digit radix sort on the keys above: the
 * analyzers sort hundreds of thousands of durations several times, and qsort's
 * call per comparison made that the slowest part of a cached rt-cdf. */
void
rt_sort_doubles (double *values, guint n)
{
  if (n < 2)   /* nor must qsort ever see the NULL of an empty array */
    return;
  if (n < 64)
    {
      qsort (values, n, sizeof (double), compare_keys);
      return;
    }
  g_autofree guint64 *keys = g_new (guint64, n);
  g_autofree guint64 *spare = g_new (guint64, n);
  guint64 *a = keys, *b = spare;
  /* the bits in which some key differs from the first: a digit outside them is every key's,
   * and its pass is skipped whole (integers as doubles, turns and token counts, differ in
   * their high bits alone) */
  guint64 differ = 0;
  for (guint i = 0; i < n; i++)
    {
      a[i] = key_of (values[i]);
      differ |= a[i] ^ a[0];
    }
  /* Digits of 16 bits cost four passes over 65536 counts, which a few hundred values (one
   * worker's durations; bench/RESULTS.md, "Behind the code") do not pay back: below RADIX_16_MIN,
   * eight passes of 8 bits, their counts on the stack. */
  if (n < RADIX_16_MIN)
    for (int shift = 0; shift < 64; shift += 8)
      {
        if (((differ >> shift) & 0xFF) == 0)
          continue;
        guint32 count[256 + 1] = { 0 };
        radix_pass (&a, &b, n, shift, 0xFF, count);
      }
  else
    {
      g_autofree guint32 *count = g_new (guint32, 65536 + 1);
      for (int shift = 0; shift < 64; shift += 16)
        {
          if (((differ >> shift) & 0xFFFF) == 0)
            continue;
          memset (count, 0, (65536 + 1) * sizeof *count);
          radix_pass (&a, &b, n, shift, 0xFFFF, count);
        }
    }
  for (guint i = 0; i < n; i++)
    values[i] = value_of (a[i]);
}

double
rt_select_double (double *values, guint n, guint k)
{
  g_return_val_if_fail (k < n, NAN);
  /* Hoare's selection on the sort's keys (-0 below +0, as rt_sort_doubles), the middle of three
   * as the pivot; below 64 values, sorted */
  guint lo = 0, hi = n;   /* k is in [lo, hi) */
  while (hi - lo > 64)
    {
      guint64 a = key_of (values[lo]), b = key_of (values[lo + (hi - lo) / 2]), c = key_of (values[hi - 1]);
      guint64 pivot = MAX (MIN (a, b), MIN (MAX (a, b), c));
      /* three parts: below the pivot, equal to it, above */
      guint lt = lo, i = lo, gt = hi;
      while (i < gt)
        {
          guint64 x = key_of (values[i]);
          if (x < pivot)
            {
              double t = values[lt];
              values[lt++] = values[i];
              values[i++] = t;
            }
          else if (x > pivot)
            {
              double t = values[--gt];
              values[gt] = values[i];
              values[i] = t;
            }
          else
            i++;
        }
      if (k < lt)
        hi = lt;
      else if (k >= gt)
        lo = gt;
      else
        return value_of (pivot);
    }
  rt_sort_doubles (values + lo, hi - lo);
  return values[k];
}

/* Merges the sorted keys a and b into out. */
static void
merge_two (const guint64 *a, guint na, const guint64 *b, guint nb, guint64 *out)
{
  guint i = 0, j = 0, k = 0;
  while (i < na && j < nb)
    out[k++] = b[j] < a[i] ? b[j++] : a[i++];
  while (i < na)
    out[k++] = a[i++];
  while (j < nb)
    out[k++] = b[j++];
}

/* The first index of run[lo .. n - 1] whose key is above `key`, run sorted: galloping from lo
 * (1, 2, 4... ahead), then halving what is left. */
static guint
first_above (const double *run, guint lo, guint n, guint64 key)
{
  guint hi = lo;
  for (guint step = 1; hi < n && key_of (run[hi]) <= key; step *= 2)
    {
      lo = hi + 1;
      hi = step <= n - hi ? hi + step : n;
    }
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (key_of (run[mid]) <= key)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* Two sorted runs, the few values of `small` each put in its place among the many of `big`,
 * which are copied in pieces between them: one step's durations merged with every step's before
 * it cost a copy of those, not a comparison and two conversions each. Equal keys are equal bits,
 * so which run gives a tie first does not show. */
static void
merge_few_into_many (const double *big, guint n_big, const double *small, guint n_small, double *dst)
{
  guint at = 0;
  for (guint i = 0; i < n_small; i++)
    {
      guint upto = first_above (big, at, n_big, key_of (small[i]));
      memcpy (dst, big + at, (gsize) (upto - at) * sizeof *dst);
      dst += upto - at;
      at = upto;
      *dst++ = small[i];
    }
  memcpy (dst, big + at, (gsize) (n_big - at) * sizeof *dst);
}

/* Below this share of the other run, a run is merged in by merge_few_into_many. */
#define FEW_IN_MANY 8

void
rt_merge_sorted (GArray *out, const double *const *runs, const guint *lens, guint n_runs)
{
  guint start = out->len, total = 0;
  for (guint r = 0; r < n_runs; r++)
    total += lens[r];
  g_array_set_size (out, start + total);
  double *dst = (double *) out->data + start;
  if (total == 0)
    return;
  /* one run holding nearly all the values (every step's before, beside the steps appended):
   * the others merged first, then put among its values */
  guint big = 0;
  for (guint r = 1; r < n_runs; r++)
    if (lens[r] > lens[big])
      big = r;
  if (n_runs >= 2 && total - lens[big] <= lens[big] / FEW_IN_MANY)
    {
      if (n_runs == 2)
        {
          merge_few_into_many (runs[big], lens[big], runs[1 - big], lens[1 - big], dst);
          return;
        }
      g_autofree const double **few = g_new (const double *, n_runs - 1);
      g_autofree guint *few_lens = g_new (guint, n_runs - 1);
      for (guint r = 0, k = 0; r < n_runs; r++)
        if (r != big)
          few[k] = runs[r], few_lens[k++] = lens[r];
      g_autoptr (GArray) others = g_array_new (FALSE, FALSE, sizeof (double));
      rt_merge_sorted (others, few, few_lens, n_runs - 1);
      merge_few_into_many (runs[big], lens[big], (const double *) (const void *) others->data, others->len, dst);
      return;
    }
  /* the keys of the runs (rt_sort_doubles' order), merged two by two, level by level */
  g_autofree guint64 *keys = g_new (guint64, total);
  g_autofree guint64 *scratch = g_new (guint64, total);
  g_autofree guint *bounds = g_new (guint, n_runs + 1);   /* run r: bounds[r] .. bounds[r + 1] */
  bounds[0] = 0;
  for (guint r = 0; r < n_runs; r++)
    {
      for (guint i = 0; i < lens[r]; i++)
        keys[bounds[r] + i] = key_of (runs[r][i]);
      bounds[r + 1] = bounds[r] + lens[r];
    }
  guint64 *from = keys, *to = scratch;
  guint n = n_runs;
  while (n > 1)
    {
      guint m = 0;
      for (guint r = 0; r < n; r += 2, m++)
        {
          guint lo = bounds[r], mid = bounds[MIN (r + 1, n)], hi = bounds[MIN (r + 2, n)];
          merge_two (from + lo, mid - lo, from + mid, hi - mid, to + lo);
          bounds[m] = lo;
        }
      bounds[m] = total;
      n = m;
      guint64 *t = from;
      from = to;
      to = t;
    }
  for (guint i = 0; i < total; i++)
    dst[i] = value_of (from[i]);
}

double
rt_median (double *values, guint n)
{
  rt_sort_doubles (values, n);
  return rt_percentile_sorted (values, n, 50);
}

void
rt_summary_compute (double *values, guint n, RtSummary *out)
{
  rt_sort_doubles (values, n);
  rt_summary_of_sorted (values, n, out);
}

/* The fields of a summary but its mean and std. */
static void
summary_fill (const double *values, guint n, RtSummary *out)
{
  out->count = n;
  out->min = n ? values[0] : NAN;
  out->max = n ? values[n - 1] : NAN;
  out->p50 = rt_percentile_sorted (values, n, 50);
  out->p80 = rt_percentile_sorted (values, n, 80);
  out->p90 = rt_percentile_sorted (values, n, 90);
  out->p95 = rt_percentile_sorted (values, n, 95);
  out->p99 = rt_percentile_sorted (values, n, 99);
  out->p999 = rt_percentile_sorted (values, n, 99.9);
}

void
rt_summary_of_sorted (const double *values, guint n, RtSummary *out)
{
  summary_fill (values, n, out);
  out->mean = rt_mean (values, n);
  out->std = std_about (values, n, out->mean);   /* rt_std_population without its own mean pass */
}

/* Arrays summarised side by side: a sum is a chain of additions, each waiting for the one
 * before, and four chains of four arrays fill the time one leaves idle. */
#define SUMMARY_LANES 4

/* The sums of the values (squares = FALSE) or of their squared distances to mean[j] (TRUE)
 * of the SUMMARY_LANES arrays v[j] of n[j] values, each in its own order. */
static void
lane_sums (const double *const *v, const guint *n, const double *mean, gboolean squares, double *sum)
{
  guint common = n[0];
  for (guint j = 1; j < SUMMARY_LANES; j++)
    common = MIN (common, n[j]);
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  if (!squares)
    for (guint i = 0; i < common; i++)
      {
        s0 += v[0][i];
        s1 += v[1][i];
        s2 += v[2][i];
        s3 += v[3][i];
      }
  else
    for (guint i = 0; i < common; i++)
      {
        s0 += (v[0][i] - mean[0]) * (v[0][i] - mean[0]);
        s1 += (v[1][i] - mean[1]) * (v[1][i] - mean[1]);
        s2 += (v[2][i] - mean[2]) * (v[2][i] - mean[2]);
        s3 += (v[3][i] - mean[3]) * (v[3][i] - mean[3]);
      }
  sum[0] = s0, sum[1] = s1, sum[2] = s2, sum[3] = s3;
  for (guint j = 0; j < SUMMARY_LANES; j++)   /* what is left of the longer ones */
    for (guint i = common; i < n[j]; i++)
      sum[j] += squares ? (v[j][i] - mean[j]) * (v[j][i] - mean[j]) : v[j][i];
}

void
rt_summaries_of_sorted (guint count, const double *const *values, const guint *n, RtSummary *out)
{
  guint k = 0;
  for (; k + SUMMARY_LANES <= count; k += SUMMARY_LANES)
    {
      double sum[SUMMARY_LANES], mean[SUMMARY_LANES], squares[SUMMARY_LANES];
      lane_sums (values + k, n + k, NULL, FALSE, sum);
      for (guint j = 0; j < SUMMARY_LANES; j++)
        mean[j] = n[k + j] ? sum[j] / n[k + j] : NAN;   /* as rt_mean */
      lane_sums (values + k, n + k, mean, TRUE, squares);
      for (guint j = 0; j < SUMMARY_LANES; j++)
        {
          summary_fill (values[k + j], n[k + j], &out[k + j]);
          out[k + j].mean = mean[j];
          out[k + j].std = n[k + j] ? sqrt (squares[j] / n[k + j]) : NAN;   /* as std_about */
        }
    }
  for (; k < count; k++)
    rt_summary_of_sorted (values[k], n[k], &out[k]);
}

RtSamples *
rt_samples_new (void)
{
  /* room for a step's worker files from the start: most samples are one value per file
   * (a step-level event), and growing to them took four reallocations */
  return g_array_sized_new (FALSE, FALSE, sizeof (double), 16);
}

void
rt_samples_add (RtSamples *s, double v)
{
  if (!isnan (v))
    g_array_append_val (s, v);
}

RtSorted
rt_sorted_own (RtSamples *s)
{
  return (RtSorted) { .v = rt_samples_data (s), .n = s->len, .owned = s };
}

RtSorted
rt_sorted_borrow (const double *v, guint n)
{
  return (RtSorted) { .v = v, .n = n, .owned = NULL };
}

void
rt_sorted_clear (RtSorted *s)
{
  g_clear_pointer (&s->owned, g_array_unref);
  s->v = NULL;
  s->n = 0;
}
