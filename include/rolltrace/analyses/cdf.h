/* SPDX-License-Identifier: Apache-2.0 */
/* analyses/cdf.h: cdf: the distribution of request durations, or of any event's. */
#pragma once

#include "rolltrace/analyses/common.h"

G_BEGIN_DECLS

typedef struct {
  guint step_index;
  gint32 step;
  RtSorted sorted;            /* the step's values, ascending (in place in the cache, or own) */
  RtSummary summary;
} RtCdfStep;

typedef struct {
  const char *event;          /* the canonical name; as asked when the trace lacks it */
  guint16 id;                 /* RT_EVENT_NONE when the trace lacks it */
  GArray *steps;              /* RtCdfStep: the selected steps that have values */
  RtSorted all;               /* every value of those steps, ascending (in place, or own) */
  RtSummary all_summary;
} RtCdfEvent;

typedef struct {
  GPtrArray *events;          /* RtCdfEvent*, one per name asked, in that order */
} RtCdf;

/* The values of each event of `events` (NULL: async_rollout_request_complete, the request
 * durations): one per worker file (its sum) for a step-level event, one per line with a
 * duration for any other. */
RtCdf *rt_cdf_analyse (const RtTrace *t, const RtStepSet *steps, const char *const *events);
void rt_cdf_free (RtCdf *cdf);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtCdf, rt_cdf_free)

/* step and the summary of each step: cdf "steps" */
extern const RtTableSpec rt_cdf_steps_spec;
RtTable *rt_cdf_steps_table (const RtCdfEvent *e);
/* the summary of all selected steps, one row: cdf "all" */
extern const RtTableSpec rt_cdf_all_spec;
RtTable *rt_cdf_all_table (const RtCdfEvent *e);

/* The spec of the request durations of each step and of all (rt-cdf): sorted durations alone. */
extern const RtAnalysisSpec rt_cdf_analysis;

/* The spec of the durations of named events (rt-cdf --event): their rows, and the request table for a step
 * the cache does not hold sorted. */
extern const RtAnalysisSpec rt_cdf_events_analysis;

G_END_DECLS
