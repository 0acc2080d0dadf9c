/* SPDX-License-Identifier: Apache-2.0 */
/* test-stats.c: percentiles as numpy's default computes them, and population statistics.
 * Expected values were computed by hand from numpy's definition (linear between closest ranks). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rolltrace/rt-stats.h"

static void
test_percentile_interpolates_between_closest_ranks (void)
{
  const double v[] = { 1, 2, 3, 4 };
  g_assert_cmpfloat_with_epsilon (rt_percentile_sorted (v, 4, 50), 2.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (rt_percentile_sorted (v, 4, 80), 3.4, 1e-12);
  g_assert_cmpfloat_with_epsilon (rt_percentile_sorted (v, 4, 0), 1, 1e-12);
  g_assert_cmpfloat_with_epsilon (rt_percentile_sorted (v, 4, 100), 4, 1e-12);
  const double w[] = { 15, 20, 35, 40, 50 };
  g_assert_cmpfloat_with_epsilon (rt_percentile_sorted (w, 5, 40), 29, 1e-12);
  g_assert_cmpfloat_with_epsilon (rt_percentile_sorted (w, 5, 99.9), 49.96, 1e-12);
}

static void
test_percentile_of_one_value_is_that_value (void)
{
  const double v[] = { 7.5 };
  g_assert_cmpfloat (rt_percentile_sorted (v, 1, 99), ==, 7.5);
}

static void
test_percentile_of_nothing_is_nan (void)
{
  g_assert_true (isnan (rt_percentile_sorted (NULL, 0, 50)));
}

static void
test_std_is_population_std (void)
{
  const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
  g_assert_cmpfloat_with_epsilon (rt_std_population (v, 8), 2.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (rt_mean (v, 8), 5.0, 1e-12);
}

static void
test_std_keeps_digits_with_a_large_mean (void)
{
  /* a one-pass sum of squares loses everything here; two passes do not */
  const double v[] = { 1e9 + 1, 1e9 + 2, 1e9 + 3 };
  g_assert_cmpfloat_with_epsilon (rt_std_population (v, 3), sqrt (2.0 / 3.0), 1e-6);
}

static void
test_summary_sorts_and_fills_every_field (void)
{
  double v[] = { 12, 4, 10, 8 };
  RtSummary s;
  rt_summary_compute (v, 4, &s);
  g_assert_cmpuint (s.count, ==, 4);
  g_assert_cmpfloat (v[0], ==, 4);
  g_assert_cmpfloat_with_epsilon (s.mean, 8.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (s.std, sqrt (8.75), 1e-12);
  g_assert_cmpfloat (s.min, ==, 4);
  g_assert_cmpfloat (s.max, ==, 12);
  g_assert_cmpfloat_with_epsilon (s.p50, 9, 1e-12);
  g_assert_cmpfloat_with_epsilon (s.p80, 10.8, 1e-12);
  g_assert_cmpfloat_with_epsilon (s.p999, 11.994, 1e-12);
}

static void
test_summary_of_nothing_is_nan (void)
{
  RtSummary s;
  rt_summary_compute (NULL, 0, &s);
  g_assert_cmpuint (s.count, ==, 0);
  g_assert_true (isnan (s.mean) && isnan (s.std) && isnan (s.min) && isnan (s.p99));
}

/* Summaries taken side by side are those taken one by one, to the bit: arrays of every
 * length from none up, in groups of every size, with values whose sums depend on their order. */
static void
test_summaries_side_by_side_are_each_ones (void)
{
  enum { N_ARRAYS = 11 };
  GRand *rand = g_rand_new_with_seed (16);
  double *values[N_ARRAYS];
  guint lens[N_ARRAYS];
  for (guint k = 0; k < N_ARRAYS; k++)
    {
      lens[k] = k == 3 ? 0 : k * 37 % 101 + (k == 5);
      values[k] = g_new (double, lens[k] + 1);
      for (guint i = 0; i < lens[k]; i++)
        values[k][i] = g_rand_double_range (rand, -1, 1) * pow (10, g_rand_int_range (rand, -8, 9));
      rt_sort_doubles (values[k], lens[k]);
    }
  for (guint count = 0; count <= N_ARRAYS; count++)
    {
      RtSummary together[N_ARRAYS];
      rt_summaries_of_sorted (count, (const double *const *) values, lens, together);
      for (guint k = 0; k < count; k++)
        {
          RtSummary one;
          rt_summary_of_sorted (values[k], lens[k], &one);
          g_assert_cmpuint (together[k].count, ==, one.count);
          /* bit patterns: NaN is NaN, and -0 is not +0 */
          const double *a = &together[k].mean, *b = &one.mean;
          for (guint f = 0; f < (sizeof one - G_STRUCT_OFFSET (RtSummary, mean)) / sizeof (double); f++)
            g_assert_cmpmem (&a[f], sizeof a[f], &b[f], sizeof b[f]);
        }
    }
  for (guint k = 0; k < N_ARRAYS; k++)
    g_free (values[k]);
  g_rand_free (rand);
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static void
test_large_samples_sort_like_qsort (void)
{
  /* large enough for the radix sort, with negatives, zeros, duplicates, tiny and huge values */
  GRand *rand = g_rand_new_with_seed (7);
  guint n = 20000;
  g_autofree double *v = g_new (double, n), *expected = g_new (double, n);
  for (guint i = 0; i < n; i++)
    {
      double x = g_rand_double_range (rand, -5, 5) * pow (10, g_rand_int_range (rand, -8, 9));
      v[i] = expected[i] = (i % 97 == 0) ? 0.0 : (i % 89 == 0) ? -0.0 : (i % 13 == 0) ? 42.5 : x;
    }
  g_rand_free (rand);
  qsort (expected, n, sizeof (double), cmp_double);
  RtSummary s;
  rt_summary_compute (v, n, &s);
  for (guint i = 0; i < n; i++)
    if (v[i] != expected[i])
      g_error ("position %u: %g, expected %g", i, v[i], expected[i]);
  g_assert_cmpfloat (s.min, ==, expected[0]);
  g_assert_cmpfloat (s.max, ==, expected[n - 1]);
}

/* The order rt_sort_doubles promises, computed apart: by the bits, negatives reversed
 * (-0 before +0). */
static guint64
order_key (double v)
{
  guint64 u;
  memcpy (&u, &v, sizeof u);
  return (u >> 63) ? ~u : u | (1ull << 63);
}

static int
cmp_order (const void *a, const void *b)
{
  guint64 x = order_key (*(const double *) a), y = order_key (*(const double *) b);
  return x < y ? -1 : x > y;
}

static void
test_every_size_sorts_the_same (void)
{
  /* on each side of the sizes where the sort changes its way (qsort, digits of 8 bits,
   * digits of 16), the same array, bit for bit */
  const guint sizes[] = { 2, 63, 64, 65, 230, 1000, 16383, 16384, 16385 };
  GRand *rand = g_rand_new_with_seed (11);
  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    {
      guint n = sizes[k];
      g_autofree double *v = g_new (double, n), *expected = g_new (double, n);
      for (guint i = 0; i < n; i++)
        {
          double x = g_rand_double_range (rand, -5, 5) * pow (10, g_rand_int_range (rand, -8, 9));
          v[i] = expected[i] = (i % 7 == 0) ? 0.0 : (i % 11 == 0) ? -0.0 : (i % 5 == 0) ? 1.25 : x;
        }
      qsort (expected, n, sizeof (double), cmp_order);
      rt_sort_doubles (v, n);
      g_assert_cmpmem (v, n * sizeof (double), expected, n * sizeof (double));
    }
  g_rand_free (rand);
}

static void
test_samples_skip_nan (void)
{
  g_autoptr (GArray) s = rt_samples_new ();
  rt_samples_add (s, 1.0);
  rt_samples_add (s, NAN);
  rt_samples_add (s, 3.0);
  g_assert_cmpuint (s->len, ==, 2);
  g_assert_cmpfloat (rt_median (rt_samples_data (s), s->len), ==, 2.0);
}

/* A run of random values with repeats, zeros of both signs and negatives. */
static GArray *
random_run (GRand *r, guint n)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < n; i++)
    {
      double v = (double) g_rand_int_range (r, -50, 500) / 8;
      if (v == 0 && g_rand_boolean (r))
        v = -0.0;
      g_array_append_val (a, v);
    }
  return a;
}

static gboolean
same_bits (const GArray *a, const GArray *b)
{
  return a->len == b->len && (a->len == 0 || memcmp (a->data, b->data, a->len * sizeof (double)) == 0);
}

/* The sorted array depends only on the values: -0 and +0 each have their place, few or many. */
static void
test_sorting_depends_only_on_the_values (void)
{
  GRand *r = g_rand_new_with_seed (3);
  for (guint n = 2; n < 200; n += 7)
    {
      g_autoptr (GArray) a = random_run (r, n);
      g_autoptr (GArray) b = g_array_copy (a);
      for (guint i = n - 1; i > 0; i--)   /* b: a shuffled */
        {
          guint j = (guint) g_rand_int_range (r, 0, (gint32) i + 1);
          double t = g_array_index (b, double, i);
          g_array_index (b, double, i) = g_array_index (b, double, j);
          g_array_index (b, double, j) = t;
        }
      rt_sort_doubles ((double *) a->data, a->len);
      rt_sort_doubles ((double *) b->data, b->len);
      g_assert_true (same_bits (a, b));
      for (guint i = 1; i < n; i++)
        g_assert_true (g_array_index (a, double, i - 1) <= g_array_index (a, double, i));
    }
  g_rand_free (r);
}

/* Sorted runs merged are the sorted whole, bit for bit: what rt-cdf's steps from the cache
 * give as "all selected steps". Empty runs, one run, odd numbers of runs. */
static void
test_merged_runs_are_the_sorted_whole (void)
{
  GRand *r = g_rand_new_with_seed (11);
  for (guint n_runs = 0; n_runs < 40; n_runs++)
    {
      GArray *runs[40];
      const double *data[40];
      guint lens[40];
      g_autoptr (GArray) whole = g_array_new (FALSE, FALSE, sizeof (double));
      for (guint k = 0; k < n_runs; k++)
        {
          runs[k] = random_run (r, (guint) g_rand_int_range (r, 0, k % 5 == 0 ? 3 : 300));
          rt_sort_doubles ((double *) runs[k]->data, runs[k]->len);
          g_array_append_vals (whole, runs[k]->data, runs[k]->len);
          data[k] = (const double *) runs[k]->data;
          lens[k] = runs[k]->len;
        }
      rt_sort_doubles ((double *) whole->data, whole->len);
      g_autoptr (GArray) merged = g_array_new (FALSE, FALSE, sizeof (double));
      rt_merge_sorted (merged, data, lens, n_runs);
      g_assert_true (same_bits (merged, whole));
      for (guint k = 0; k < n_runs; k++)
        g_array_unref (runs[k]);
    }
  g_rand_free (r);
}

/* A few sorted values merged into many (a step's durations into every step's before it), in
 * one run or two, are the sorted whole, bit for bit, whichever run is first: ties between the
 * runs, -0 and +0, the few all below, all above, or none. */
static void
test_few_merged_into_many (void)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (12);
  static const guint few[] = { 0, 1, 2, 7, 100, 3840 };
  for (guint fi = 0; fi < G_N_ELEMENTS (few); fi++)
    for (guint kind = 0; kind < 4; kind++)
      for (guint first = 0; first < 2; first++)
        {
          guint n_many = 40000, n_few = few[fi];
          g_autoptr (GArray) many = g_array_new (FALSE, FALSE, sizeof (double));
          g_autoptr (GArray) some = g_array_new (FALSE, FALSE, sizeof (double));
          for (guint i = 0; i < n_many; i++)
            {
              double v = kind == 1 ? (g_rand_boolean (r) ? 0.0 : -0.0) : (double) g_rand_int_range (r, 0, 50);
              g_array_append_val (many, v);
            }
          for (guint i = 0; i < n_few; i++)
            {
              double v = kind == 0 ? (double) g_rand_int_range (r, 0, 50)   /* ties */
                       : kind == 1 ? (g_rand_boolean (r) ? 0.0 : -0.0)
                       : kind == 2 ? -1.0 - g_rand_double (r)                /* all below */
                                   : 100.0 + g_rand_double (r);              /* all above */
              g_array_append_val (some, v);
            }
          rt_sort_doubles ((double *) many->data, many->len);
          rt_sort_doubles ((double *) some->data, some->len);
          g_autoptr (GArray) whole = g_array_copy (many);
          g_array_append_vals (whole, some->data, some->len);
          rt_sort_doubles ((double *) whole->data, whole->len);
          const double *data[2] = { (const double *) many->data, (const double *) some->data };
          guint lens[2] = { many->len, some->len };
          if (first)
            {
              const double *d = data[0];
              data[0] = data[1], data[1] = d;
              guint l = lens[0];
              lens[0] = lens[1], lens[1] = l;
            }
          g_autoptr (GArray) merged = g_array_new (FALSE, FALSE, sizeof (double));
          double before = 7.5;
          g_array_append_val (merged, before);   /* appended after what the array held */
          rt_merge_sorted (merged, data, lens, 2);
          g_assert_cmpuint (merged->len, ==, whole->len + 1);
          g_assert_cmpmem (merged->data, sizeof before, &before, sizeof before);
          g_assert_cmpmem ((double *) merged->data + 1, whole->len * sizeof (double), whole->data,
                           whole->len * sizeof (double));
          /* the few in two runs (a delta's steps and the one appended), the many among them */
          guint half = some->len / 2;
          const double *three[3] = { (const double *) some->data, (const double *) many->data,
                                     (const double *) some->data + half };
          guint three_lens[3] = { half, many->len, some->len - half };
          if (first)
            {
              three[1] = three[2], three[2] = (const double *) many->data;
              three_lens[1] = three_lens[2], three_lens[2] = many->len;
            }
          g_autoptr (GArray) merged3 = g_array_new (FALSE, FALSE, sizeof (double));
          rt_merge_sorted (merged3, three, three_lens, 3);
          g_assert_cmpuint (merged3->len, ==, whole->len);
          g_assert_cmpmem (merged3->data, whole->len * sizeof (double), whole->data, whole->len * sizeof (double));
        }
}

/* rt_select_double gives what the sort puts at k, to the bit (-0 below +0), for every k of small
 * arrays and some of large ones: ties, one value, few values, spread ones; and asked again of
 * the array it reordered. */
static void
test_select_is_the_sorts_kth (void)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (99);
  static const guint sizes[] = { 1, 2, 3, 63, 64, 65, 200, 5000, 100000 };
  for (guint si = 0; si < G_N_ELEMENTS (sizes); si++)
    for (guint kind = 0; kind < 3; kind++)
      {
        guint n = sizes[si];
        g_autofree double *v = g_new (double, n), *sorted = g_new (double, n);
        for (guint i = 0; i < n; i++)
          {
            double x = kind == 0 ? g_rand_double_range (r, -1e6, 1e6)
                     : kind == 1 ? (double) g_rand_int_range (r, 0, 5)
                                 : (g_rand_boolean (r) ? 0.0 : -0.0);
            v[i] = sorted[i] = x;
          }
        rt_sort_doubles (sorted, n);
        guint step = n <= 200 ? 1 : n / 97;
        for (guint k = 0; k < n; k += step)
          {
            double got = rt_select_double (v, n, k);
            g_assert_cmpmem (&got, sizeof got, &sorted[k], sizeof sorted[k]);
          }
        double last = rt_select_double (v, n, n - 1);
        g_assert_cmpmem (&last, sizeof last, &sorted[n - 1], sizeof last);
      }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/stats/every-size-sorts-the-same", test_every_size_sorts_the_same);
  g_test_add_func ("/stats/select-is-the-sorts-kth", test_select_is_the_sorts_kth);
  g_test_add_func ("/stats/percentile-interpolates-between-closest-ranks",
                   test_percentile_interpolates_between_closest_ranks);
  g_test_add_func ("/stats/percentile-of-one-value", test_percentile_of_one_value_is_that_value);
  g_test_add_func ("/stats/percentile-of-nothing-is-nan", test_percentile_of_nothing_is_nan);
  g_test_add_func ("/stats/std-is-population-std", test_std_is_population_std);
  g_test_add_func ("/stats/std-keeps-digits-with-a-large-mean", test_std_keeps_digits_with_a_large_mean);
  g_test_add_func ("/stats/summary-sorts-and-fills-every-field", test_summary_sorts_and_fills_every_field);
  g_test_add_func ("/stats/summaries-side-by-side-are-each-ones", test_summaries_side_by_side_are_each_ones);
  g_test_add_func ("/stats/summary-of-nothing-is-nan", test_summary_of_nothing_is_nan);
  g_test_add_func ("/stats/samples-skip-nan", test_samples_skip_nan);
  g_test_add_func ("/stats/large-samples-sort-like-qsort", test_large_samples_sort_like_qsort);
  g_test_add_func ("/stats/sorting-depends-only-on-the-values", test_sorting_depends_only_on_the_values);
  g_test_add_func ("/stats/merged-runs-are-the-sorted-whole", test_merged_runs_are_the_sorted_whole);
  g_test_add_func ("/stats/few-merged-into-many", test_few_merged_into_many);
  return g_test_run ();
}
