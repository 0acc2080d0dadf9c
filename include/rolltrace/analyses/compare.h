/* SPDX-License-Identifier: Apache-2.0 */
/* analyses/compare.h: compare: several experiments side by side, the first the reference. */
#pragma once

#include "rolltrace/analyses/common.h"
#include "rolltrace/rt-jsonw.h"
#include "rolltrace/analyses/turns.h"
#include "rolltrace/analyses/turn-dist.h"

G_BEGIN_DECLS

/* The two-sample Kolmogorov-Smirnov statistic of samples a (n values) and b (m values), both
 * sorted ascending: D = sup |F_a(x) - F_b(x)|, the right-continuous empirical CDFs compared at
 * every pooled value, exactly the largest |i m - j n| / (n m); NAN when either is empty. */
double rt_ks_statistic (const double *a, guint n, const double *b, guint m);
/* rt_ks_statistic of samples whose values are all in 0 .. n_values - 1 (ranks), in any order:
 * the same value to the bit, counted by value (no sort). */
double rt_ks_statistic_ranks (const gint32 *a, guint n, const gint32 *b, guint m, guint32 n_values);

/* A sample of non-negative integers (turns, token counts) tallied as it comes: how many of each
 * value below RT_KS_TALLY_DENSE (a few thousand distinct values where there are millions of
 * requests), the larger ones kept as they are. */
#define RT_KS_TALLY_DENSE 65536
typedef struct {
  GArray *count;              /* guint64 by value, as far as the largest one added */
  GArray *large;              /* gint32, each >= RT_KS_TALLY_DENSE */
  guint64 n;                  /* values added */
} RtKsTally;

void rt_ks_tally_init (RtKsTally *t);
/* Adds value v (>= 0) `times` times. */
void rt_ks_tally_add (RtKsTally *t, gint32 v, guint32 times);
void rt_ks_tally_clear (RtKsTally *t);
/* rt_ks_statistic of the two samples, to the bit; NAN when either is empty. */
double rt_ks_statistic_tallies (const RtKsTally *a, const RtKsTally *b);
/* Q(t) = 2 sum_{k>=1} (-1)^(k-1) exp(-2 k^2 t^2), 1 for t <= 0: the asymptotic p-value of
 * D as Q(sqrt(n m / (n + m)) D). */
double rt_ks_q (double t);
double rt_ks_pvalue (double d, guint n, guint m);
/* `key`: {"statistic", "pvalue"} of a test, or null when the statistic is NAN (a sample empty or
 * too small): the KS object of rt-compare --mix and rt-whatif. */
void rt_ks_write_json (RtJsonWriter *w, const char *key, double statistic, double pvalue);

typedef enum {
  RT_COMPARE_ALIGN_STEP,      /* pair equal step numbers */
  RT_COMPARE_ALIGN_INDEX,     /* pair the k-th selected step with data of each */
} RtCompareAlign;

/* An experiment to compare: its trace, label and the path as given, and its own steps (each
 * experiment's rollouts of the kind read: RtExperiment.step_set; NULL: rt_compare_analyse's). */
typedef struct {
  const RtTrace *trace;
  const char *label;
  const char *path;
  const RtStepSet *steps;
} RtCompareInput;

/* A selected step with data (one rt-overview lists) of one experiment. */
typedef struct {
  guint step_index;
  gint32 step;
  double rollout_s, interval_s;   /* rt-overview's, on the whole experiment */
  guint requests;             /* its complete requests */
  double tokens;              /* sum of their response_length; NAN when none has one */
  double requests_per_s;      /* requests / rollout_s; NAN unless rollout_s > 0 */
  double tokens_per_s;        /* tokens / rollout_s; NAN likewise, or without tokens */
} RtCompareStep;

typedef struct {
  RtCompareInput in;
  guint64 requests;           /* complete requests of the selected steps (as rt-check) */
  RtSamples *durations;       /* rt-cdf's "all": finite request durations, ascending */
  RtSummary duration;         /* of `durations` (count 0: none) */
  GArray *steps;              /* RtCompareStep, ascending */
  double rollout_mean, interval_mean;   /* over the non-null values of `steps`; NAN: none */
  double barrier_share_mean;  /* rt-events' mean barrier_wait_duration share (%) */
  double requests_per_s, tokens_per_s;  /* rollout-weighted over the steps with a value */
  double section_pct[RT_N_STEP_EVENTS]; /* rt-events' mean share of each section (%) */
  RtTurns *turns;             /* rt-turns over the selected steps */
  RtTurnDist *turn_dist;      /* rt-turn-dist over the selected steps */
} RtCompareExperiment;

typedef struct {
  double p50_ratio, p90_ratio, p99_ratio, mean_ratio;   /* this / the reference; NAN: null */
  double ks_statistic, ks_pvalue;   /* against the reference; NAN when either sample is empty */
} RtCompareVersus;

typedef struct {
  gint32 step;                /* the reference's step number */
  int *index;                 /* per experiment: an index into its `steps`, -1 where absent */
} RtCompareRow;

typedef struct {
  guint n;                    /* experiments, the first the reference */
  RtCompareExperiment *experiments;
  RtCompareVersus *versus;    /* n entries; [0] (the reference against itself) unused */
  GArray *rows;               /* RtCompareRow: every reference step with data, in order */
  RtCompareAlign align;
} RtCompare;

/* Each experiment reduced to the same views over the steps `steps` selects (NULL: all), and
 * each after the first against the first. */
RtCompare *rt_compare_analyse (const RtCompareInput *inputs, guint n, const RtStepSet *steps,
                               RtCompareAlign align);
void rt_compare_free (RtCompare *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtCompare, rt_compare_free)

/* Row `row`'s step of experiment `e`, or NULL where it has none. */
const RtCompareStep *rt_compare_row_step (const RtCompare *c, guint row, guint e);

/* the JSON "experiments" and compare_experiments.tsv */
extern const RtTableSpec rt_compare_experiments_spec;
RtTable *rt_compare_experiments_table (const RtCompare *c);
/* the JSON "versus" and compare_versus.tsv: each experiment after the first */
extern const RtTableSpec rt_compare_versus_spec;
RtTable *rt_compare_versus_table (const RtCompare *c);
/* the JSON "steps" (arrays, one value per experiment) and compare_steps.tsv (a column per
 * experiment: rollout_s_1, rollout_s_2..., numbered in the order given) */
extern const RtTableSpec rt_compare_steps_spec;
RtTable *rt_compare_steps_table (const RtCompare *c);
/* What the plots draw (TSV only): the mean engine time per turn index (compare_turns), the
 * share of requests by number of turns (compare_turn_dist), each section's mean share of the
 * step (compare_events), request durations in logarithmic bins, `bins_per_decade` of them
 * (compare_hist) */
extern const RtTableSpec rt_compare_turns_spec, rt_compare_turn_dist_spec, rt_compare_events_spec,
  rt_compare_hist_spec;
RtTable *rt_compare_turns_table (const RtCompare *c);
RtTable *rt_compare_turn_dist_table (const RtCompare *c);
RtTable *rt_compare_events_table (const RtCompare *c);
RtTable *rt_compare_hist_table (const RtCompare *c, guint bins_per_decade);

/* The spec of two or more experiments side by side (rt-compare). */
extern const RtAnalysisSpec rt_compare_analysis;

G_END_DECLS
