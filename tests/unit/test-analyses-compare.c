/* SPDX-License-Identifier: Apache-2.0 */
/* test-analyses-compare.c: rt-compare's arithmetic as library calls: the two-sample KS test on
 * samples worked by hand, and the fixtures of fixtures/compare (answers in fixtures/README.md). */
#include <math.h>
#include <string.h>

#include "rolltrace/rt-analyses.h"
#include "test-util.h"

#define EPS 1e-12

/* Q(t) summed term by term, far past where the terms matter: the definition, independently of
 * how rt_ks_q evaluates it. */
static double
q_series (double t)
{
  if (t <= 0)
    return 1;
  double sum = 0;
  for (int k = 1; k <= 20000; k++)
    sum += (k % 2 ? 1 : -1) * exp (-2.0 * k * k * t * t);
  return 2 * sum;
}

/* ---- KS ---- */

static void
test_ks_disjoint_three_and_three (void)
{
  const double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 };
  double d = rt_ks_statistic (a, 3, b, 3);
  g_assert_cmpfloat (d, ==, 1.0);
  /* t = sqrt(3 x 3 / 6) x 1 = sqrt(1.5); Q(sqrt 1.5) = 2 (e^-3 - e^-12 + e^-27 - ...) */
  double want = 2 * (exp (-3) - exp (-12) + exp (-27) - exp (-48));
  g_assert_cmpfloat_with_epsilon (rt_ks_pvalue (d, 3, 3), want, EPS);
  g_assert_cmpfloat_with_epsilon (rt_ks_pvalue (d, 3, 3), 0.0995618483147803, 1e-13);
  /* the other way round, the same */
  g_assert_cmpfloat (rt_ks_statistic (b, 3, a, 3), ==, 1.0);
}

static void
test_ks_identical_samples (void)
{
  const double a[] = { 0.5, 1, 1, 7, 30 };
  double d = rt_ks_statistic (a, 5, a, 5);
  g_assert_cmpfloat (d, ==, 0.0);
  g_assert_cmpfloat (rt_ks_pvalue (d, 5, 5), ==, 1.0);
}

static void
test_ks_ties_counted_together (void)
{
  /* pooled values 1, 2, 3: after 1, F_a = 1/4, F_b = 0; after 2 (every copy), 3/4 and 3/3;
   * after 3, 1 and 1: D = max(1/4, 1/4, 0) = 0.25 (taking the 2s one at a time would say 3/4) */
  const double a[] = { 1, 2, 2, 3 }, b[] = { 2, 2, 2 };
  g_assert_cmpfloat (rt_ks_statistic (a, 4, b, 3), ==, 0.25);
}

static void
test_ks_worked_six_and_seven (void)
{
  /* fixtures/README.md, compare: {2,4,...,12} against {1,...,7}: the largest |7i - 6j| is 21,
   * after 7 (i = 3, j = 7): D = 21/42 = 0.5, t = sqrt(42/13)/2 */
  const double a[] = { 2, 4, 6, 8, 10, 12 }, b[] = { 1, 2, 3, 4, 5, 6, 7 };
  double d = rt_ks_statistic (a, 6, b, 7);
  g_assert_cmpfloat (d, ==, 0.5);
  double t = sqrt (42.0 / 13) / 2;
  g_assert_cmpfloat_with_epsilon (rt_ks_pvalue (d, 6, 7), q_series (t), EPS);
  g_assert_cmpfloat_with_epsilon (rt_ks_pvalue (d, 6, 7), 0.394504567733668, 1e-12);
}

static void
test_ks_empty_is_null (void)
{
  const double a[] = { 1 };
  g_assert_true (isnan (rt_ks_statistic (a, 1, NULL, 0)));
  g_assert_true (isnan (rt_ks_statistic (NULL, 0, a, 1)));
  g_assert_true (isnan (rt_ks_pvalue (NAN, 1, 0)));
}

/* Counted by rank, or tallied by value (dense below RT_KS_TALLY_DENSE, sorted above it), the
 * statistic of integer samples is rt_ks_statistic's to the bit: small ranges with many ties
 * (turns), values on both sides of the dense bound and up to 2^31 - 1 (tokens), samples of one
 * value, one sample inside the other's range. */
static void
test_ks_counted_equals_the_sorted_statistic (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  static const gint32 spans[] = { 1, 3, 30, 5000, 2 * RT_KS_TALLY_DENSE, G_MAXINT32 };
  for (guint round = 0; round < 240; round++)
    {
      guint n = 1 + g_rand_int_range (rand, 0, 300), m = 1 + g_rand_int_range (rand, 0, 300);
      gint32 span = spans[round % G_N_ELEMENTS (spans)];
      gint32 shift = round % 3 == 0 ? span / 4 : 0;
      g_autofree gint32 *a = g_new (gint32, n), *b = g_new (gint32, m);
      g_autofree double *x = g_new (double, n), *y = g_new (double, m);
      RtKsTally ta, tb;
      rt_ks_tally_init (&ta);
      rt_ks_tally_init (&tb);
      for (guint k = 0; k < n; k++)
        {
          x[k] = a[k] = (gint32) (g_rand_double (rand) * span);
          rt_ks_tally_add (&ta, a[k], 1);
        }
      for (guint k = 0; k < m; k++)
        {
          y[k] = b[k] = (gint32) (g_rand_double (rand) * (span - shift)) + shift / 2;
          rt_ks_tally_add (&tb, b[k], 1);
        }
      rt_sort_doubles (x, n);
      rt_sort_doubles (y, m);
      double want = rt_ks_statistic (x, n, y, m);
      g_assert_cmpfloat (rt_ks_statistic_tallies (&ta, &tb), ==, want);
      if (span <= 5000)   /* small enough to count as ranks */
        g_assert_cmpfloat (rt_ks_statistic_ranks (a, n, b, m, (guint32) span), ==, want);
      rt_ks_tally_clear (&ta);
      rt_ks_tally_clear (&tb);
    }
  /* by hand: after 1, |0 - 1/2| = 1/2; after 2, |2/4 - 1/2| = 0; after 5, |3/4 - 1|; after 9, 0 */
  static const gint32 c[] = { 2, 2, 5, 9 }, d[] = { 5, 1 };
  g_assert_cmpfloat (rt_ks_statistic_ranks (c, 4, d, 2, 10), ==, 0.5);
  /* {2, 2, 5} against {5}: after 2, |2/3 - 0|; after 5, 0 */
  g_assert_cmpfloat (rt_ks_statistic_ranks (c, 3, d, 1, 10), ==, 2.0 / 3.0);
  RtKsTally empty, one;
  rt_ks_tally_init (&empty);
  rt_ks_tally_init (&one);
  rt_ks_tally_add (&one, 3, 2);
  g_assert_true (isnan (rt_ks_statistic_tallies (&one, &empty)));
  rt_ks_tally_clear (&empty);
  rt_ks_tally_clear (&one);
}

static void
test_ks_q_against_the_series (void)
{
  g_assert_cmpfloat (rt_ks_q (0), ==, 1.0);
  const double ts[] = { 0.05, 0.2, 0.4, 0.6, 0.8, 1.0, 1.17, 1.19, 1.36, 1.6, 2.0, 3.0 };
  for (guint i = 0; i < G_N_ELEMENTS (ts); i++)
    {
      /* the series needs thousands of terms below t = 0.05; from there it is exact enough */
      double want = q_series (ts[i]);
      g_assert_cmpfloat_with_epsilon (rt_ks_q (ts[i]), want, 1e-12);
      g_assert_true (rt_ks_q (ts[i]) >= 0 && rt_ks_q (ts[i]) <= 1);
    }
  /* the familiar 5 % point of the KS distribution */
  g_assert_cmpfloat_with_epsilon (rt_ks_q (1.3581), 0.05, 1e-4);
  g_assert_cmpfloat_with_epsilon (rt_ks_q (1e-4), 1.0, EPS);
  g_assert_cmpfloat (rt_ks_q (40), ==, 0.0);
}

/* ---- the fixtures ---- */

typedef struct {
  RtTrace *traces[2];
  RtCompare *c;
} Pair;

static void
pair_load (Pair *p, const char *a, const char *b, const char *steps, RtCompareAlign align)
{
  p->traces[0] = rt_test_load_fixture (a);
  p->traces[1] = rt_test_load_fixture (b);
  RtCompareInput in[2] = { { p->traces[0], "a", a, NULL }, { p->traces[1], "b", b, NULL } };
  g_autoptr (RtStepSet) set = steps ? rt_test_steps (steps) : NULL;
  p->c = rt_compare_analyse (in, 2, set, align);
}

static void
pair_clear (Pair *p)
{
  rt_compare_free (p->c);
  rt_trace_free (p->traces[0]);
  rt_trace_free (p->traces[1]);
}

static void
test_compare_base_fast (void)
{
  Pair p;
  pair_load (&p, "compare/base", "compare/fast", NULL, RT_COMPARE_ALIGN_STEP);
  const RtCompareExperiment *base = &p.c->experiments[0], *fast = &p.c->experiments[1];
  /* base: {2,4,6,8,10,12}; rollouts 10, 20, 30; intervals 60, 60, -; barrier 10, 20, 10 % */
  g_assert_cmpuint (base->steps->len, ==, 3);
  g_assert_cmpuint (base->requests, ==, 6);
  g_assert_cmpfloat_with_epsilon (base->duration.mean, 7, EPS);
  g_assert_cmpfloat_with_epsilon (base->duration.p90, 11, EPS);
  g_assert_cmpfloat_with_epsilon (base->duration.p99, 11.9, EPS);
  g_assert_cmpfloat_with_epsilon (base->rollout_mean, 20, EPS);
  g_assert_cmpfloat_with_epsilon (base->interval_mean, 60, EPS);
  g_assert_cmpfloat_with_epsilon (base->barrier_share_mean, 40.0 / 3, EPS);
  /* 6 requests in 60 s of rollout; tokens: step 3 has no response_length, so 1000 / 30 */
  g_assert_cmpfloat_with_epsilon (base->requests_per_s, 0.1, EPS);
  g_assert_cmpfloat_with_epsilon (base->tokens_per_s, 1000.0 / 30, EPS);
  const RtCompareStep *s3 = &g_array_index (base->steps, RtCompareStep, 2);
  g_assert_cmpfloat_with_epsilon (s3->requests_per_s, 1.0 / 30, EPS);
  g_assert_true (isnan (s3->tokens_per_s));
  g_assert_true (isnan (s3->interval_s));

  /* fast: {1..7}; rollouts 5, 10, 0 (step 4: no rate); barrier 10, 10 % (step 4 has no total > 0) */
  g_assert_cmpuint (fast->requests, ==, 7);
  g_assert_cmpfloat_with_epsilon (fast->rollout_mean, 5, EPS);
  g_assert_cmpfloat_with_epsilon (fast->interval_mean, 30, EPS);
  g_assert_cmpfloat_with_epsilon (fast->barrier_share_mean, 10, EPS);
  g_assert_cmpfloat_with_epsilon (fast->requests_per_s, 6.0 / 15, EPS);
  g_assert_cmpfloat_with_epsilon (fast->tokens_per_s, 900.0 / 15, EPS);
  const RtCompareStep *f4 = &g_array_index (fast->steps, RtCompareStep, 2);
  g_assert_cmpint (f4->step, ==, 4);
  g_assert_true (isnan (f4->requests_per_s) && isnan (f4->tokens_per_s));

  const RtCompareVersus *v = &p.c->versus[1];
  g_assert_cmpfloat_with_epsilon (v->p50_ratio, 4.0 / 7, EPS);
  g_assert_cmpfloat_with_epsilon (v->p90_ratio, 6.4 / 11, EPS);
  g_assert_cmpfloat_with_epsilon (v->p99_ratio, 6.94 / 11.9, EPS);
  g_assert_cmpfloat_with_epsilon (v->mean_ratio, 4.0 / 7, EPS);
  g_assert_cmpfloat (v->ks_statistic, ==, 0.5);

  /* --align step: base's steps 1, 2, 3; fast has no step 1; its step 4 is left out */
  g_assert_cmpuint (p.c->rows->len, ==, 3);
  g_assert_null (rt_compare_row_step (p.c, 0, 1));
  g_assert_cmpint (rt_compare_row_step (p.c, 1, 1)->step, ==, 2);
  g_assert_cmpint (rt_compare_row_step (p.c, 2, 1)->step, ==, 3);
  pair_clear (&p);
}

static void
test_compare_align_index (void)
{
  Pair p;
  pair_load (&p, "compare/base", "compare/fast", NULL, RT_COMPARE_ALIGN_INDEX);
  /* the k-th of each: 1-2, 2-3, 3-4 */
  g_assert_cmpuint (p.c->rows->len, ==, 3);
  for (guint r = 0; r < 3; r++)
    {
      g_assert_cmpint (g_array_index (p.c->rows, RtCompareRow, r).step, ==, (gint32) r + 1);
      g_assert_cmpint (rt_compare_row_step (p.c, r, 0)->step, ==, (gint32) r + 1);
      g_assert_cmpint (rt_compare_row_step (p.c, r, 1)->step, ==, (gint32) r + 2);
    }
  g_autoptr (RtTable) steps = rt_compare_steps_table (p.c);
  g_autoptr (GString) json = g_string_new (NULL);
  RtJsonWriter w;
  rt_jw_init (&w, json);
  rt_table_write_json_row (steps, 0, &w);
  g_assert_cmpstr (json->str, ==,
                   "{\"step\": 1, \"rollout_s\": [10.0, 5.0], \"interval_s\": [60.0, 30.0], "
                   "\"requests_per_s\": [0.3, 0.6], \"tokens_per_s\": [60.0, 60.0]}");
  pair_clear (&p);
}

static void
test_compare_steps_select_each (void)
{
  Pair p;
  /* --steps 3-: base has step 3 only, fast steps 3 and 4; step 3's interval still runs to
   * base's nothing (last) and fast's step 4 */
  pair_load (&p, "compare/base", "compare/fast", "3-", RT_COMPARE_ALIGN_STEP);
  g_assert_cmpuint (p.c->experiments[0].steps->len, ==, 1);
  g_assert_cmpuint (p.c->experiments[1].steps->len, ==, 2);
  g_assert_cmpuint (p.c->experiments[1].requests, ==, 4);
  g_assert_cmpfloat_with_epsilon (p.c->experiments[1].interval_mean, 30, EPS);
  g_assert_cmpuint (p.c->rows->len, ==, 1);
  g_assert_cmpint (rt_compare_row_step (p.c, 0, 1)->step, ==, 3);
  pair_clear (&p);
}

static void
test_compare_identical (void)
{
  Pair p;
  pair_load (&p, "compare/base", "compare/base", NULL, RT_COMPARE_ALIGN_STEP);
  const RtCompareVersus *v = &p.c->versus[1];
  g_assert_cmpfloat (v->ks_statistic, ==, 0);
  g_assert_cmpfloat (v->ks_pvalue, ==, 1);
  g_assert_cmpfloat (v->p50_ratio, ==, 1);
  g_assert_cmpfloat (v->p90_ratio, ==, 1);
  g_assert_cmpfloat (v->p99_ratio, ==, 1);
  g_assert_cmpfloat (v->mean_ratio, ==, 1);
  pair_clear (&p);
}

static void
test_compare_no_durations_are_null (void)
{
  Pair p;
  pair_load (&p, "compare/base", "compare/none", NULL, RT_COMPARE_ALIGN_STEP);
  g_assert_cmpuint (p.c->experiments[1].durations->len, ==, 0);
  g_autoptr (RtTable) experiments = rt_compare_experiments_table (p.c);
  g_autoptr (RtTable) versus = rt_compare_versus_table (p.c);
  g_autoptr (GString) json = g_string_new (NULL);
  RtJsonWriter w;
  rt_jw_init (&w, json);
  rt_table_write_json_row (versus, 0, &w);
  g_assert_cmpstr (json->str, ==,
                   "{\"label\": \"b\", \"p50_ratio\": null, \"p90_ratio\": null, \"p99_ratio\": null, "
                   "\"mean_ratio\": null, \"ks\": null}");
  g_string_truncate (json, 0);
  rt_jw_init (&w, json);
  rt_table_write_json_row (experiments, 1, &w);
  g_assert_nonnull (strstr (json->str, "\"requests\": 0, \"duration\": null, \"rollout_mean\": 5.0, "));
  /* the TSV keeps a column per value */
  g_autoptr (GString) tsv = rt_table_tsv (experiments);
  g_assert_nonnull (strstr (tsv->str, "\tduration_count\tduration_mean\t"));
  pair_clear (&p);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analyses/compare/ks/disjoint-three-and-three", test_ks_disjoint_three_and_three);
  g_test_add_func ("/analyses/compare/ks/identical-samples", test_ks_identical_samples);
  g_test_add_func ("/analyses/compare/ks/ties-counted-together", test_ks_ties_counted_together);
  g_test_add_func ("/analyses/compare/ks/worked-six-and-seven", test_ks_worked_six_and_seven);
  g_test_add_func ("/analyses/compare/ks/empty-is-null", test_ks_empty_is_null);
  g_test_add_func ("/analyses/compare/ks/counted-equals-the-sorted-statistic", test_ks_counted_equals_the_sorted_statistic);
  g_test_add_func ("/analyses/compare/ks/q-against-the-series", test_ks_q_against_the_series);
  g_test_add_func ("/analyses/compare/base-fast", test_compare_base_fast);
  g_test_add_func ("/analyses/compare/align-index", test_compare_align_index);
  g_test_add_func ("/analyses/compare/steps-select-each", test_compare_steps_select_each);
  g_test_add_func ("/analyses/compare/identical", test_compare_identical);
  g_test_add_func ("/analyses/compare/no-durations-are-null", test_compare_no_durations_are_null);
  return g_test_run ();
}
