/* SPDX-License-Identifier: Apache-2.0 */
/* analyses/events.h: events: each step-level section's share of the step. */
#pragma once

#include "rolltrace/analyses/common.h"

G_BEGIN_DECLS

typedef struct {
  guint step_index;
  gint32 step;
  double total_mean_s;        /* mean over the step's workers of total_step_duration */
  double pct[RT_N_STEP_EVENTS];   /* each section's mean over the workers that logged it
                                   * / total_mean_s x 100; NAN when none did. The slot of
                                   * total_step_duration itself is NAN. */
} RtEventsStep;

typedef struct {
  GArray *steps;              /* RtEventsStep of the selected steps with a positive total */
  double mean_pct[RT_N_STEP_EVENTS];  /* each share averaged over the steps that have it;
                                       * NAN when none has (and for total_step_duration) */
  double barrier_pct;         /* mean_pct[RT_EV_BARRIER_WAIT]: what waiting at the barrier
                               * for the slowest rank costs every step */
} RtEvents;

RtEvents *rt_events_analyse (const RtTrace *t, const RtStepSet *steps);
void rt_events_free (RtEvents *ev);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtEvents, rt_events_free)

/* step, total_mean_s and a column per section before total_step_duration (in JSON
 * under "pct"): events.tsv and the JSON "steps" */
extern const RtTableSpec rt_events_spec;
RtTable *rt_events_table (const RtEvents *ev);

/* The spec of the events of each step (rt-events): the files' counters alone. */
extern const RtAnalysisSpec rt_events_analysis;

G_END_DECLS
