/* SPDX-License-Identifier: Apache-2.0 */
/* analyses/requests.h: requests: one step's requests, and the slowest broken down by phase. */
#pragma once

#include "rolltrace/analyses/common.h"

G_BEGIN_DECLS

/* One of the slowest requests and where its time went. */
typedef struct {
  guint request;              /* index into t->requests */
  GArray *phase_ids;          /* guint16 event ids of its lines with a duration, in order of
                               * first appearance */
  double *phase_s;            /* seconds by event id: the sum of those lines' durations */
} RtSlowRequest;

typedef struct {
  guint step_index;
  gint32 step;
  gint32 worker;              /* the worker asked; -1: all */
  RtSamples *durations;       /* of its complete requests with a duration, ascending */
  RtSummary summary;          /* of `durations` */
  GArray *slowest;            /* RtSlowRequest, the `top` slowest first (ties: the lower
                               * worker, then the lower request id) */
  GArray *leaves;             /* guint16 event ids of the leaf phases (that contain no other
                               * phase) some slow request spent time in, in stacking order */
  guint at_length;            /* of `slowest`, those that ended on the length limit */
  gint32 at_length_tokens;    /* the most response tokens among them; -1: none known */
} RtRequests;

/* Whether request q ended on the length limit: its finish reason is LENGTH
 * ("FinishReasonTypeEnum.LENGTH"). */
gboolean rt_request_at_length (const RtTrace *t, const RtRequest *q);

/* The requests of step `step_index` of `worker` (-1: all), and the `top` slowest. */
RtRequests *rt_requests_analyse (const RtTrace *t, guint step_index, gint32 worker, guint top);
void rt_requests_free (RtRequests *r);
/* The sum of the durations of the lines of request `request` (index into t->requests) that
 * name `event`: its RtSlowRequest.phase_s[event], reading only its own file's rows. */
double rt_request_event_sum (const RtTrace *t, guint request, guint16 event);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtRequests, rt_requests_free)

/* the summary of the durations, one row: requests "cdf" */
extern const RtTableSpec rt_requests_cdf_spec;
RtTable *rt_requests_cdf_table (const RtRequests *r);
/* one slow request, one row, its phases ({event: seconds}, different for each) as a group:
 * an element of requests "slowest" */
extern const RtTableSpec rt_requests_slow_spec;
RtTable *rt_requests_slow_table (const RtTrace *t, const RtSlowRequest *slow);
/* a slow request's phases with a positive time, each under the phase that holds its lines
 * (RtRequestView's nesting), depth first: request_K_step_N.tsv */
extern const RtTableSpec rt_request_phases_spec;
RtTable *rt_request_phases_table (const RtTrace *t, const RtSlowRequest *slow);
/* the slowest by leaf phase, and the rest: requests_top_step_N.tsv */
extern const RtTableSpec rt_requests_top_spec;
RtTable *rt_requests_top_table (const RtTrace *t, const RtRequests *r);

/* The spec of the slowest requests of one step, phase by phase (rt-requests). */
extern const RtAnalysisSpec rt_requests_analysis;

G_END_DECLS
