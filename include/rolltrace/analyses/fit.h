/* SPDX-License-Identifier: Apache-2.0 */
/* analyses/fit.h: fit: four distributions fitted to a sample of durations (issue 13). */
#pragma once

#include "rolltrace/analyses/common.h"

G_BEGIN_DECLS

/* Maximum likelihood with the location fixed at 0, on the values > 0 of the sample:
 * exponential: scale = mean x;
 * lognormal: mu = mean(ln x), sigma = sqrt(mean((ln x - mu)^2));
 * gamma: shape k solving ln k - digamma(k) = ln(mean x) - mean(ln x), scale = mean x / k;
 * Weibull: shape c solving sum(x^c ln x)/sum(x^c) - 1/c - mean(ln x) = 0,
 *   scale = (mean(x^c))^(1/c).
 * The equations are solved by Brent's method to 1e-14 relative. Each fit's KS distance
 * D = max over the sorted values of max(i/n - F(x_i), F(x_i) - (i-1)/n), its log-likelihood
 * and AIC = 2k - 2 lnL (k = 1 for the exponential, 2 otherwise). */
typedef enum {
  RT_FIT_EXPONENTIAL,
  RT_FIT_LOGNORMAL,
  RT_FIT_GAMMA,
  RT_FIT_WEIBULL,
  RT_FIT_N_DISTS
} RtFitDist;

typedef struct {
  RtFitDist dist;
  gboolean exists;            /* the estimate exists (exponential: n > 0; the others: two
                               * distinct values at least); when not every number is NAN */
  double shape;               /* gamma's k, Weibull's c; NAN for the other two */
  double scale;               /* seconds: exponential's mean, gamma's and Weibull's scale */
  double mu, sigma;           /* lognormal: of ln x; NAN for the others */
  double ks, loglik, aic;
} RtFitModel;

typedef struct {
  guint n;                    /* values > 0, the ones fitted */
  guint excluded;             /* the other values */
  int best;                   /* index into dists of the smallest KS distance (ties to the
                               * earlier); -1 when no estimate exists */
  RtFitModel dists[RT_FIT_N_DISTS];   /* in RtFitDist order */
} RtFit;

/* The fit of `sorted` (ascending, no NaN), of any length. */
RtFit *rt_fit_analyse (const double *sorted, guint len);
void rt_fit_free (RtFit *fit);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtFit, rt_fit_free)

const char *rt_fit_dist_name (RtFitDist dist);   /* "exponential"... */
const RtFitModel *rt_fit_best (const RtFit *fit);   /* NULL when none (or fit NULL) */
/* The fitted CDF at x and its quantile at p (0 < p < 1); NAN when the estimate does not exist. */
double rt_fit_model_cdf (const RtFitModel *m, double x);
double rt_fit_model_quantile (const RtFitModel *m, double p);
/* "gamma (shape 2.31, scale 1.52 s)", for legends and summaries */
char *rt_fit_model_describe (const RtFitModel *m);

/* The "fit" object of a --json document: {"n", "excluded", "best", "dists": [{"dist",
 * "params": {"scale"} | {"mu", "sigma"} | {"shape", "scale"}, "ks", "loglik", "aic"}]},
 * with null params, ks, loglik and aic for an estimate that does not exist; NULL fit: null. */
void rt_fit_write_json (const RtFit *fit, RtJsonWriter *w);
/* The fit for a text summary: a line of its n, excluded and best, then a line per distribution
 * (parameters, KS, log-likelihood, AIC), each line after `indent`. */
char *rt_fit_text (const RtFit *fit, const char *indent);
/* fit.tsv: the four rows of each sample fitted, named `sample` */
extern const RtTableSpec rt_fit_spec;
void rt_fit_table_add (RtTable *table, const char *sample, const RtFit *fit);
/* Plot data, as rt_view_tsv_cdf_block: one block headed `label`. The fitted CDF at `n_points`
 * x evenly spaced on a log axis from x_min to x_max; the Q-Q points (the fitted quantile at
 * (i - 1/2)/n, the i-th value > 0 of `sorted`), thinned to about `max_points`. */
void rt_fit_tsv_cdf_block (GString *tsv, const char *label, const RtFitModel *m, double x_min,
                           double x_max, guint n_points);
void rt_fit_tsv_qq_block (GString *tsv, const char *label, const RtFitModel *m, const double *sorted,
                          guint len, guint max_points);

G_END_DECLS
