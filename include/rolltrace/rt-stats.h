/* SPDX-License-Identifier: Apache-2.0 */
/* rt-stats.h: the statistics every analyzer shares, defined once.
 * Percentiles interpolate linearly between closest ranks (numpy's default); std is population. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint count;
  double mean, std, min, max;
  double p50, p80, p90, p95, p99, p999;
} RtSummary;

/* Sorts `values` in place and summarises them. NAN values must not be present.
 * With no values every field but count is NAN. */
void rt_summary_compute (double *values, guint n, RtSummary *out);

/* rt_summary_compute of values already sorted ascending (as rt_sort_doubles sorts). */
void rt_summary_of_sorted (const double *values, guint n, RtSummary *out);

/* rt_summary_of_sorted of `count` arrays, values[k] of n[k] values into out[k], the same to the
 * bit, in less time than one after another (their sums are taken side by side). */
void rt_summaries_of_sorted (guint count, const double *const *values, const guint *n, RtSummary *out);

/* Sorts ascending (no NAN): -0 before +0, otherwise as the values compare, so that
 * the result depends only on the values, not on the order they came in. */
void rt_sort_doubles (double *values, guint n);

/* The k-th smallest of n values (k from 0; no NAN): what rt_sort_doubles would put at k, in a
 * time linear in n. Reorders them (any order is a valid input again). */
double rt_select_double (double *values, guint n, guint k);

/* Appends to `out` the n_runs arrays runs[i] (of lens[i] values, each sorted by
 * rt_sort_doubles) as one sorted array: the very one rt_sort_doubles makes of them
 * put one after another, in a time linear in their number times log n_runs. */
void rt_merge_sorted (GArray *out, const double *const *runs, const guint *lens, guint n_runs);

/* The q-th percentile (0..100) of values already sorted ascending. */
double rt_percentile_sorted (const double *sorted, guint n, double q);

double rt_mean (const double *values, guint n);
double rt_std_population (const double *values, guint n);

/* Median of values (sorted in place); NAN for none. */
double rt_median (double *values, guint n);

/* A growable array of doubles that skips NAN, for collecting samples. */
typedef GArray RtSamples;
RtSamples *rt_samples_new (void);
void rt_samples_add (RtSamples *s, double v);
#define rt_samples_data(s) ((double *) (s)->data)

/* Values sorted ascending, read where they lie: `v` points into `owned`, or, when that is
 * NULL, into memory another keeps (the trace's cache: valid as long as the trace), so that
 * megabytes of them are neither copied nor paged in twice. */
typedef struct {
  const double *v;
  guint n;
  RtSamples *owned;
} RtSorted;

/* A view of `s` (sorted already), which it takes. */
RtSorted rt_sorted_own (RtSamples *s);
/* A view of n values another keeps. */
RtSorted rt_sorted_borrow (const double *v, guint n);
/* Frees what the view owns, and empties it. */
void rt_sorted_clear (RtSorted *s);

G_END_DECLS
