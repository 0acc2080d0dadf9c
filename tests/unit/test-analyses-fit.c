/* SPDX-License-Identifier: Apache-2.0 */
/* test-analyses-fit.c: the four maximum-likelihood fits of rt_fit_analyse on samples small enough
 * to check: exponential and lognormal worked by hand, gamma and Weibull against constants of scipy. */
#include <math.h>
#include <string.h>

#include "rolltrace/rt-analyses.h"

#define assert_rel(got, want, rel) \
  g_assert_cmpfloat_with_epsilon ((got), (want), (rel) * fabs (want))

/* {1, 2, 4}: ln x = 0, ln 2, 2 ln 2 */
static const double one_two_four[] = { 1, 2, 4 };

static void
test_exponential_is_the_mean_worked_by_hand (void)
{
  g_autoptr (RtFit) fit = rt_fit_analyse (one_two_four, 3);
  const RtFitModel *m = &fit->dists[RT_FIT_EXPONENTIAL];
  g_assert_true (m->exists);
  assert_rel (m->scale, 7.0 / 3, 1e-15);
  g_assert_true (isnan (m->shape) && isnan (m->mu) && isnan (m->sigma));
  /* ln L = -n ln(scale) - sum x / scale = -3 ln(7/3) - 3 */
  assert_rel (m->loglik, -3 * log (7.0 / 3) - 3, 1e-14);
  assert_rel (m->aic, 2 * 1 + 6 * log (7.0 / 3) + 6, 1e-14);
  /* F(x) = 1 - e^(-3x/7): F(1) = 0.3486, F(2) = 0.5756, F(4) = 0.8199; the largest of
   * F(1) - 0, 2/3 - F(2), F(2) - 1/3, 1 - F(4), F(4) - 2/3 is F(1) - 0 */
  assert_rel (m->ks, 1 - exp (-3.0 / 7), 1e-14);
}

static void
test_lognormal_is_the_moments_of_ln_x_worked_by_hand (void)
{
  g_autoptr (RtFit) fit = rt_fit_analyse (one_two_four, 3);
  const RtFitModel *m = &fit->dists[RT_FIT_LOGNORMAL];
  g_assert_true (m->exists);
  /* mu = (0 + ln 2 + 2 ln 2)/3 = ln 2; sigma^2 = (ln 2^2 + 0 + ln 2^2)/3 */
  assert_rel (m->mu, M_LN2, 1e-15);
  double sigma = M_LN2 * sqrt (2.0 / 3);
  assert_rel (m->sigma, sigma, 1e-15);
  g_assert_true (isnan (m->shape) && isnan (m->scale));
  /* ln L = -sum ln x - n ln sigma - n/2 ln 2 pi - n/2 (the squares sum to n sigma^2) */
  assert_rel (m->loglik, -3 * M_LN2 - 3 * log (sigma) - 1.5 * log (2 * M_PI) - 1.5, 1e-14);
  assert_rel (m->aic, 4 - 2 * m->loglik, 1e-15);
  /* z = -sqrt(3/2), 0, sqrt(3/2): F(1) = Phi(-sqrt 1.5) = 0.1103 and F(4) = 1 - F(1), so
   * D = 1/3 - F(1) (also F(4) - 2/3), with Phi(-a) = erfc(a / sqrt 2)/2 */
  assert_rel (m->ks, 1.0 / 3 - 0.5 * erfc (sqrt (3.0) / 2), 1e-13);
}

/* Gamma and Weibull have no closed form. These constants were computed once with scipy 1.10:
 * gamma by scipy.stats.gamma.fit(x, floc=0); Weibull by scipy.optimize.brentq on the shape
 * equation (rtol 4 eps; weibull_min.fit's general optimizer stops about 1e-5 short), its scale
 * (mean(x^c))^(1/c); KS from the cdf of scipy.stats, ln L the sum of its logpdf. */
typedef struct {
  const double *x;
  guint n;
  double gamma_shape, gamma_scale, gamma_ks, gamma_loglik;
  double weibull_shape, weibull_scale, weibull_ks, weibull_loglik;
} ScipyCase;

static const double five[] = { 0.5, 1.5, 2, 3.25, 7 };
static const ScipyCase scipy_cases[] = {
  { one_two_four, 3, 3.401200587899841, 0.68603226214720558, 0.23041949793473415, -4.6462531502951308,
    2.0124980439347793, 2.6493059014487788, 0.23338253413149901, -4.6787557674611424 },
  { five, 5, 1.6114099697183333, 1.7686374377453842, 0.16068728633400997, -9.9374707331880341,
    1.3039621449011511, 3.1006385709681976, 0.16861920561645871, -9.9778377689550588 },
};

static void
test_gamma_and_weibull_match_scipy (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (scipy_cases); i++)
    {
      const ScipyCase *c = &scipy_cases[i];
      g_autoptr (RtFit) fit = rt_fit_analyse (c->x, c->n);
      const RtFitModel *g = &fit->dists[RT_FIT_GAMMA], *w = &fit->dists[RT_FIT_WEIBULL];
      g_assert_true (g->exists && w->exists);
      assert_rel (g->shape, c->gamma_shape, 1e-12);
      assert_rel (g->scale, c->gamma_scale, 1e-12);
      assert_rel (g->ks, c->gamma_ks, 1e-12);
      assert_rel (g->loglik, c->gamma_loglik, 1e-12);
      assert_rel (g->aic, 4 - 2 * c->gamma_loglik, 1e-12);
      assert_rel (w->shape, c->weibull_shape, 1e-12);
      assert_rel (w->scale, c->weibull_scale, 1e-12);
      assert_rel (w->ks, c->weibull_ks, 1e-12);
      assert_rel (w->loglik, c->weibull_loglik, 1e-12);
      g_assert_true (isnan (g->mu) && isnan (w->sigma));
    }
}

static void
test_the_equations_are_solved (void)
{
  /* what the estimates must satisfy, checked on the estimates themselves */
  g_autoptr (RtFit) fit = rt_fit_analyse (five, 5);
  double mean = 0, mean_ln = 0;
  for (guint i = 0; i < 5; i++)
    mean += five[i] / 5, mean_ln += log (five[i]) / 5;
  const RtFitModel *g = &fit->dists[RT_FIT_GAMMA];
  /* ln k - digamma(k), the digamma by its series: digamma(k) = digamma(k + 20) - sum 1/(k + j) */
  double k = g->shape, z = k + 20, psi = log (z) - 1 / (2 * z) - 1 / (12 * z * z) + 1 / (120 * pow (z, 4))
                                          - 1 / (252 * pow (z, 6));
  for (int j = 0; j < 20; j++)
    psi -= 1 / (k + j);
  assert_rel (log (k) - psi, log (mean) - mean_ln, 1e-11);
  assert_rel (g->scale * k, mean, 1e-14);
  const RtFitModel *w = &fit->dists[RT_FIT_WEIBULL];
  double c = w->shape, sum_c = 0, sum_c_ln = 0;
  for (guint i = 0; i < 5; i++)
    sum_c += pow (five[i], c), sum_c_ln += pow (five[i], c) * log (five[i]);
  g_assert_cmpfloat (fabs (sum_c_ln / sum_c - 1 / c - mean_ln), <, 1e-13);
  assert_rel (w->scale, pow (sum_c / 5, 1 / c), 1e-13);
}

static void
test_best_is_the_smallest_ks_distance (void)
{
  g_autoptr (RtFit) a = rt_fit_analyse (one_two_four, 3);
  /* KS: exponential 0.349, lognormal 0.223, gamma 0.230, Weibull 0.233 */
  g_assert_cmpint (a->best, ==, RT_FIT_LOGNORMAL);
  g_assert_true (rt_fit_best (a) == &a->dists[RT_FIT_LOGNORMAL]);
  g_autoptr (RtFit) b = rt_fit_analyse (five, 5);
  /* the gamma's 0.1607 against the Weibull's 0.1686 (scipy above) and the lognormal's */
  g_assert_cmpfloat (b->dists[RT_FIT_GAMMA].ks, <, b->dists[RT_FIT_LOGNORMAL].ks);
  g_assert_cmpint (b->best, ==, RT_FIT_GAMMA);
}

static void
test_zeros_and_negatives_are_excluded (void)
{
  const double x[] = { -3, -0.5, 0, 0, 1, 2, 4 };
  g_autoptr (RtFit) fit = rt_fit_analyse (x, G_N_ELEMENTS (x));
  g_autoptr (RtFit) positive = rt_fit_analyse (one_two_four, 3);
  g_assert_cmpuint (fit->n, ==, 3);
  g_assert_cmpuint (fit->excluded, ==, 4);
  for (guint d = 0; d < RT_FIT_N_DISTS; d++)
    {
      g_assert_cmpfloat (fit->dists[d].ks, ==, positive->dists[d].ks);
      g_assert_cmpfloat (fit->dists[d].loglik, ==, positive->dists[d].loglik);
    }
}

static void
test_no_value_has_no_estimate (void)
{
  g_autoptr (RtFit) fit = rt_fit_analyse (NULL, 0);
  g_assert_cmpuint (fit->n, ==, 0);
  g_assert_cmpuint (fit->excluded, ==, 0);
  g_assert_cmpint (fit->best, ==, -1);
  g_assert_null (rt_fit_best (fit));
  for (guint d = 0; d < RT_FIT_N_DISTS; d++)
    g_assert_true (!fit->dists[d].exists && isnan (fit->dists[d].ks) && isnan (fit->dists[d].aic)
                   && isnan (fit->dists[d].scale));
  /* only values <= 0: counted, nothing fitted */
  const double x[] = { -1, 0 };
  g_autoptr (RtFit) none = rt_fit_analyse (x, 2);
  g_assert_cmpuint (none->n, ==, 0);
  g_assert_cmpuint (none->excluded, ==, 2);
  g_assert_cmpint (none->best, ==, -1);
}

static void
test_one_distinct_value_fits_only_the_exponential (void)
{
  const double x[] = { 0, 3, 3, 3 };
  g_autoptr (RtFit) fit = rt_fit_analyse (x, 4);
  g_assert_cmpuint (fit->n, ==, 3);
  g_assert_cmpuint (fit->excluded, ==, 1);
  const RtFitModel *e = &fit->dists[RT_FIT_EXPONENTIAL];
  g_assert_true (e->exists);
  g_assert_cmpfloat (e->scale, ==, 3);
  /* F(3) = 1 - 1/e against 0 below the three tied values, and 1 - F(3) above */
  assert_rel (e->ks, 1 - exp (-1), 1e-15);
  for (guint d = RT_FIT_LOGNORMAL; d < RT_FIT_N_DISTS; d++)
    g_assert_true (!fit->dists[d].exists && isnan (fit->dists[d].ks) && isnan (fit->dists[d].loglik));
  g_assert_cmpint (fit->best, ==, RT_FIT_EXPONENTIAL);
}

static void
test_ks_counts_tied_values_as_one_jump (void)
{
  /* {1, 1, 2}, exponential scale 4/3: F(1) = 1 - e^(-3/4) = 0.528, F(2) = 1 - e^(-3/2) = 0.777.
   * The empirical CDF jumps from 0 to 2/3 at 1: below the jump F(1) - 0 = 0.528 (i = 1),
   * above it 2/3 - F(1) = 0.139 (i = 2); at 2: 1 - F(2) = 0.223. D = 0.528 */
  const double x[] = { 1, 1, 2 };
  g_autoptr (RtFit) fit = rt_fit_analyse (x, 3);
  assert_rel (fit->dists[RT_FIT_EXPONENTIAL].ks, 1 - exp (-0.75), 1e-15);
  /* {1, 2, 2}, scale 5/3: F(1) = 1 - e^(-3/5) = 0.451, F(2) = 1 - e^(-6/5) = 0.699: the
   * jump to 1 at the tied 2s leaves 1 - F(2) = 0.301 (i = 3), below them F(2) - 1/3 = 0.366
   * (i = 2); at 1: F(1) - 0 = 0.451. D = F(1) */
  const double y[] = { 1, 2, 2 };
  g_autoptr (RtFit) fy = rt_fit_analyse (y, 3);
  assert_rel (fy->dists[RT_FIT_EXPONENTIAL].ks, 1 - exp (-0.6), 1e-15);
  /* a sample of ties only on top: {1, 2, 2, 2, 2, 2, 2, 2}, scale 15/8, F(2) = 1 - e^(-16/15)
   * = 0.656: below the seven 2s F(2) - 1/8 = 0.531 beats F(1) = 1 - e^(-8/15) = 0.413 */
  const double z[] = { 1, 2, 2, 2, 2, 2, 2, 2 };
  g_autoptr (RtFit) fz = rt_fit_analyse (z, 8);
  assert_rel (fz->dists[RT_FIT_EXPONENTIAL].ks, 1 - exp (-16.0 / 15) - 1.0 / 8, 1e-14);
}

static void
test_wide_and_narrow_samples_are_solved (void)
{
  /* Weibull's weights x^c overflow a naive sum here (c near 1/(ln max - mean ln) is large
   * for close values; x up to 1e300 for spread ones): the estimates still exist */
  const double close[] = { 1000, 1000.001, 1000.002 };
  g_autoptr (RtFit) a = rt_fit_analyse (close, 3);
  g_assert_true (a->dists[RT_FIT_GAMMA].exists && a->dists[RT_FIT_WEIBULL].exists);
  g_assert_cmpfloat (a->dists[RT_FIT_WEIBULL].shape, >, 1e5);
  g_assert_cmpfloat (fabs (a->dists[RT_FIT_WEIBULL].scale - 1000.001), <, 0.01);
  const double wide[] = { 1e-300, 1, 1e300 };
  g_autoptr (RtFit) b = rt_fit_analyse (wide, 3);
  g_assert_true (b->dists[RT_FIT_WEIBULL].exists && b->dists[RT_FIT_LOGNORMAL].exists);
  g_assert_true (isfinite (b->dists[RT_FIT_WEIBULL].scale) && isfinite (b->dists[RT_FIT_WEIBULL].loglik));
}

static void
test_quantile_inverts_the_cdf (void)
{
  g_autoptr (RtFit) fit = rt_fit_analyse (five, 5);
  for (guint d = 0; d < RT_FIT_N_DISTS; d++)
    for (double p = 0.05; p < 1; p += 0.3)
      assert_rel (rt_fit_model_cdf (&fit->dists[d], rt_fit_model_quantile (&fit->dists[d], p)), p, 1e-9);
  g_assert_cmpfloat (rt_fit_model_cdf (&fit->dists[RT_FIT_GAMMA], 0), ==, 0);
  g_assert_true (isnan (rt_fit_model_quantile (&fit->dists[RT_FIT_GAMMA], 1)));
}

static char *
fit_json (const RtFit *fit)
{
  GString *buf = g_string_new (NULL);
  RtJsonWriter w;
  rt_jw_init (&w, buf);
  rt_fit_write_json (fit, &w);
  return g_string_free (buf, FALSE);
}

static void
test_json_names_each_distribution_and_nulls_what_does_not_exist (void)
{
  g_autofree char *none = fit_json (NULL);
  g_assert_cmpstr (none, ==, "null");
  const double x[] = { -1, 3, 3 };
  g_autoptr (RtFit) fit = rt_fit_analyse (x, 3);
  g_autofree char *text = fit_json (fit);
  /* the numbers: 1 - 1/e; 2 (-ln 3 - 1); 2 + 4 ln 3 + 4 */
  g_assert_cmpfloat (1 - exp (-1), ==, 0.6321205588285577);
  g_assert_cmpfloat_with_epsilon (-2 * log (3) - 2, -4.19722457733622, 1e-14);
  g_assert_cmpfloat_with_epsilon (2 + 4 * log (3) + 4, 10.39444915467244, 1e-14);
  const char *want =
      "{\"n\": 2, \"excluded\": 1, \"best\": \"exponential\", \"dists\": ["
      "{\"dist\": \"exponential\", \"params\": {\"scale\": 3.0}, \"ks\": 0.6321205588285577, "
      "\"loglik\": -4.19722457733622, \"aic\": 10.39444915467244}, "
      "{\"dist\": \"lognormal\", \"params\": null, \"ks\": null, \"loglik\": null, \"aic\": null}, "
      "{\"dist\": \"gamma\", \"params\": null, \"ks\": null, \"loglik\": null, \"aic\": null}, "
      "{\"dist\": \"weibull\", \"params\": null, \"ks\": null, \"loglik\": null, \"aic\": null}]}";
  g_assert_cmpstr (text, ==, want);
  g_autoptr (RtFit) full = rt_fit_analyse (five, 5);
  g_autofree char *full_text = fit_json (full);
  g_assert_nonnull (strstr (full_text, "\"best\": \"gamma\""));
  g_assert_nonnull (strstr (full_text, "{\"dist\": \"lognormal\", \"params\": {\"mu\": "));
  g_assert_nonnull (strstr (full_text, "{\"dist\": \"gamma\", \"params\": {\"shape\": 1.61140996971833"));
  g_assert_nonnull (strstr (full_text, "{\"dist\": \"weibull\", \"params\": {\"shape\": 1.30396214490115"));
}

static void
test_table_has_four_rows_per_sample_and_marks_the_best (void)
{
  g_autoptr (RtTable) table = rt_table_new (&rt_fit_spec);
  g_autoptr (RtFit) fit = rt_fit_analyse (five, 5);
  rt_fit_table_add (table, "a", fit);
  rt_fit_table_add (table, "b", NULL);   /* nothing to fit: no rows */
  g_assert_cmpuint (rt_table_n_rows (table), ==, 4);
  int best = rt_table_find (table, "best"), dist = rt_table_find (table, "dist");
  for (guint r = 0; r < 4; r++)
    {
      g_assert_cmpstr (rt_table_get_text (table, r, dist), ==, rt_fit_dist_name (r));
      g_assert_cmpfloat (rt_table_get_number (table, r, best), ==, r == RT_FIT_GAMMA);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fit/exponential-by-hand", test_exponential_is_the_mean_worked_by_hand);
  g_test_add_func ("/fit/lognormal-by-hand", test_lognormal_is_the_moments_of_ln_x_worked_by_hand);
  g_test_add_func ("/fit/gamma-weibull-scipy", test_gamma_and_weibull_match_scipy);
  g_test_add_func ("/fit/equations-solved", test_the_equations_are_solved);
  g_test_add_func ("/fit/best-smallest-ks", test_best_is_the_smallest_ks_distance);
  g_test_add_func ("/fit/zeros-negatives-excluded", test_zeros_and_negatives_are_excluded);
  g_test_add_func ("/fit/no-value", test_no_value_has_no_estimate);
  g_test_add_func ("/fit/one-distinct-value", test_one_distinct_value_fits_only_the_exponential);
  g_test_add_func ("/fit/ks-ties", test_ks_counts_tied_values_as_one_jump);
  g_test_add_func ("/fit/wide-narrow", test_wide_and_narrow_samples_are_solved);
  g_test_add_func ("/fit/quantile", test_quantile_inverts_the_cdf);
  g_test_add_func ("/fit/json", test_json_names_each_distribution_and_nulls_what_does_not_exist);
  g_test_add_func ("/fit/table", test_table_has_four_rows_per_sample_and_marks_the_best);
  return g_test_run ();
}
