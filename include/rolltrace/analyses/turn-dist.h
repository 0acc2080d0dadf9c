/* SPDX-License-Identifier: Apache-2.0 */
/* analyses/turn-dist.h: turn-dist: requests by number of turns. */
#pragma once

#include "rolltrace/analyses/common.h"

G_BEGIN_DECLS

typedef struct {
  gint32 turns;               /* the number of turns */
  guint count;                /* complete requests with that many */
  guint n_timed;              /* those of them with a duration */
  double sum_s;               /* their total duration */
  double mean_s;              /* sum_s / n_timed; NAN when none is timed */
} RtTurnBin;

typedef struct {
  guint step_index;
  gint32 step;
  guint requests;             /* complete requests, with a number of turns or not */
  GArray *bins;               /* RtTurnBin, one per number of turns that occurs, ascending:
                               * sized by what the trace holds, never by one absurd value */
} RtTurnDistStep;

typedef struct {
  GArray *steps;              /* RtTurnDistStep of the selected steps with a complete request */
  GArray *all;                /* RtTurnBin over all of them */
} RtTurnDist;

RtTurnDist *rt_turn_dist_analyse (const RtTrace *t, const RtStepSet *steps);
void rt_turn_dist_free (RtTurnDist *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtTurnDist, rt_turn_dist_free)

/* The same a step at a time, for a caller that keeps what the first steps gave (rt-report
 * --watch): a fill, each selected step added in ascending order, then finished (which frees
 * it). A copy goes on from where the fill was, apart from it. */
typedef struct _RtTurnDistFill RtTurnDistFill;
RtTurnDistFill *rt_turn_dist_fill_new (void);
void rt_turn_dist_fill_step (RtTurnDistFill *fill, const RtTrace *t, guint step_index);
RtTurnDistFill *rt_turn_dist_fill_copy (const RtTurnDistFill *fill);
RtTurnDist *rt_turn_dist_fill_finish (RtTurnDistFill *fill);
void rt_turn_dist_fill_free (RtTurnDistFill *fill);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtTurnDistFill, rt_turn_dist_fill_free)

/* The bin of `turns` in `bins` (an RtTurnBin array, ascending), or NULL. */
const RtTurnBin *rt_turn_bins_find (const GArray *bins, gint32 turns);

/* turns, count, mean_s of each bin: the JSON "all" and each step's "by_turns" */
extern const RtTableSpec rt_turn_dist_bins_spec;
RtTable *rt_turn_dist_bins_table (const GArray *bins);
/* step, requests, by_turns: the JSON "steps" */
extern const RtTableSpec rt_turn_dist_steps_spec;
RtTable *rt_turn_dist_steps_table (const RtTurnDist *d);
/* Pivots, a column per number of turns in `all`: turn_dist_counts.tsv (requests; 0 when
 * none) and turn_dist_mean.tsv (mean duration; NaN when none) */
extern const RtTableSpec rt_turn_dist_counts_spec;
RtTable *rt_turn_dist_counts_table (const RtTurnDist *d);
extern const RtTableSpec rt_turn_dist_mean_spec;
RtTable *rt_turn_dist_mean_table (const RtTurnDist *d);

/* The spec of how many turns requests take (rt-turn-dist): the request table alone. */
extern const RtAnalysisSpec rt_turn_dist_analysis;

G_END_DECLS
