/* SPDX-License-Identifier: Apache-2.0 */
/* analyses/whatif.h: what a policy would have saved, replayed on each recorded step: keep the first
 * F of the requests, cap the turns, a per-request timeout, or defer the K slowest (rt-whatif);
 * with what it costs: how many requests are cut and whether they differ from the kept ones. */
#pragma once

#include "rolltrace/analyses/common.h"
#include "rolltrace/analyses/tail.h"

G_BEGIN_DECLS

typedef enum {
  RT_WHATIF_KEEP,             /* keep the first F: k = ceil(F R), cut at e_k */
  RT_WHATIF_MAX_TURNS,        /* cut after K turns, at the end of turn K - 1 */
  RT_WHATIF_TIMEOUT,          /* cut at start + S */
  RT_WHATIF_DEFER,            /* the K slowest to the next step: cut at e_(R - K); K a count,
                               * or a share of each step's R (rt-report's defer 5 %) */
  RT_N_WHATIF_POLICIES,
} RtWhatifPolicy;

const char *rt_whatif_policy_name (RtWhatifPolicy p);   /* "keep", "max_turns", "timeout", "defer" */

/* A policy and its value: keep's F as an exact fraction num / den (0.28 is 28/100, so that
 * ceil(0.28 x 25) is 7 as on paper); the others' K or S in `value`. Defer with den > 0 defers
 * a share of each step instead: K = ceil(num R / den) of its R requests, exactly (`value` is
 * then num / den, for the plot's legend); rt-whatif's --defer K leaves den 0. */
typedef struct {
  RtWhatifPolicy policy;
  double value;
  guint64 num, den;           /* keep; defer by share */
} RtWhatifSetting;

/* "0.28" into 28/100; FALSE unless a decimal number in (0, 1]. */
gboolean rt_whatif_parse_fraction (const char *text, guint64 *num, guint64 *den);

typedef struct {
  guint step_index;
  gint32 step;
  guint requests;
  double recorded_s;          /* t100 - t0 */
  gboolean predicted;         /* FALSE: no prediction (defer K >= R; max_turns with unknowns) */
  double predicted_s;         /* the latest end once cut - t0; NAN without a prediction */
  double saved_s, saved_share;   /* recorded - predicted, over recorded (NAN unless recorded > 0) */
  guint cut;                  /* requests cut (0 and unused without a prediction) */
  guint unknown;              /* max_turns: requests whose turns, or cut, are unknown */
  double ks_turns[2], ks_tokens[2];   /* {statistic, pvalue} kept against cut; NAN: null */
} RtWhatifStep;

typedef struct {
  RtWhatifSetting setting;
  GArray *steps;              /* RtWhatifStep, the selected steps with a request */
  guint steps_predicted, steps_unknown;
  guint requests, cut;        /* over the steps with a prediction */
  double recorded_s, predicted_s, saved_s, saved_share;   /* sums; NAN when no step predicted */
  double ks_turns[2], ks_tokens[2];   /* of the pooled requests of those steps */
} RtWhatif;

/* Each of the `n` policies (at most one max_turns) over the steps `step_indices` (indices into
 * t->steps): an RtWhatif each, in their order. Each step's requests are read once for all. */
GPtrArray *rt_whatif_analyse (const RtTrace *t, const GArray *step_indices, const RtWhatifSetting *settings,
                              guint n);
/* The same a step at a time, for a caller that reads each step's requests once for several
 * analyses (rt-report): the replay keeps a copy of `settings`; each step's requests, read with
 * rt_whatif_replay_turn's turn, are replayed in ascending order; finish returns what
 * rt_whatif_analyse does, and frees the replay. A copy of a replay goes on from where the
 * replay was, apart from it (rt-report --watch keeps one of the steps that do not change). */
typedef struct _RtWhatifReplay RtWhatifReplay;
RtWhatifReplay *rt_whatif_replay_new (const RtWhatifSetting *settings, guint n);
gint32 rt_whatif_replay_turn (const RtWhatifReplay *rp);   /* -1 without max_turns */
void rt_whatif_replay_step (RtWhatifReplay *rp, const RtLateRequests *r);
GPtrArray *rt_whatif_replay_finish (RtWhatifReplay *rp);
RtWhatifReplay *rt_whatif_replay_copy (const RtWhatifReplay *rp);
/* A replay not finished, given up. */
void rt_whatif_replay_free (RtWhatifReplay *rp);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtWhatifReplay, rt_whatif_replay_free)
void rt_whatif_free (RtWhatif *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtWhatif, rt_whatif_free)

/* whatif_POLICY.tsv: one row per step */
extern const RtTableSpec rt_whatif_steps_spec;
RtTable *rt_whatif_steps_table (const RtWhatif *w);

/* The spec of what a policy would have saved, replayed (rt-whatif). */
extern const RtAnalysisSpec rt_whatif_analysis;

G_END_DECLS
