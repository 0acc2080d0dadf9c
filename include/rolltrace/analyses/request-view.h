/* SPDX-License-Identifier: Apache-2.0 */
/* analyses/request-view.h: request view: everything that happened to one request, in time. */
#pragma once

#include "rolltrace/analyses/common.h"

G_BEGIN_DECLS

/* A line is inside another when it starts no earlier and ends no later, this much allowed
 * either way: the logger's clock has microseconds, and each line is written a little after
 * its section ended, which shifts the start it gives (timestamp - duration) by as much. */
#define RT_REQUEST_NEST_SLACK_S 20e-6
/* A stretch of the request's life that no innermost line covers is a gap when it lasts at
 * least this long; the shorter ones (between two lines written one after the other) are
 * only counted. */
#define RT_REQUEST_GAP_MIN_S 0.001
/* A request with more lines than this (a real one has tens to hundreds) is shown flat, its
 * lines and gaps in time but none inside another: nesting compares lines pairwise. */
#define RT_REQUEST_NEST_MAX 5000

/* A line of the request, or a gap between its lines. Times from the request's start. */
typedef struct {
  double start_s, end_s;      /* a line: timestamp - duration (timestamp for an instant
                               * line), timestamp; a gap: where it begins and ends */
  double duration_s;          /* as logged; NAN for an instant line; a gap's length */
  guint32 row;                /* the line's row in its file (line order); RT_NONE: a gap */
  guint32 parent;             /* the item holding it (the shortest line it is inside), RT_NONE:
                               * none; an index into RtRequestView.items */
  guint16 event;              /* canonical id in t->registry; RT_EVENT_NONE for a gap */
  gint16 turn;                /* extra.turn as logged, -1 when absent (and for a gap) */
  guint16 depth;              /* 0 for an outermost item, its parent's + 1 */
} RtRequestItem;

typedef struct {
  guint request;              /* index into t->requests */
  double origin_s;            /* its start in absolute seconds (rt-trace.h): the earliest
                               * start of its lines; NAN when none has a timestamp */
  double end_s;               /* the latest end, from origin_s */
  GArray *items;              /* RtRequestItem, depth first: an item, then the items inside
                               * it by start (ties: line order, a gap after the lines) */
  guint lines;                /* lines with a timestamp (items that are not gaps) */
  guint untimed;              /* lines of the request without a readable timestamp: left out */
  guint gaps;                 /* gaps of at least RT_REQUEST_GAP_MIN_S (items) */
  double gap_s;               /* their summed length */
  guint short_gaps;           /* uncovered stretches shorter than that (not items) */
  double short_gap_s;         /* their summed length */
  gboolean flat;              /* more than RT_REQUEST_NEST_MAX lines: none nested */
} RtRequestView;

/* The lines of request `request` (index into t->requests), nested and in time, and its gaps. */
RtRequestView *rt_request_view (const RtTrace *t, guint request);
void rt_request_view_free (RtRequestView *v);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtRequestView, rt_request_view_free)

static inline const RtRequestItem *
rt_request_item (const RtRequestView *v, guint i)
{
  return &g_array_index (v->items, RtRequestItem, i);
}

/* The requests of the steps `steps` selects (NULL: all) whose id begins with `prefix`, as
 * indices into t->requests in step, worker, line order; only the one whose id is `prefix`
 * itself when there is such a request. */
GArray *rt_requests_find (const RtTrace *t, const RtStepSet *steps, const char *prefix);

/* one item (line or gap) of a request, in RtRequestView order: request_ID.tsv, the JSON "lines" */
extern const RtTableSpec rt_request_lines_spec;
RtTable *rt_request_lines_table (const RtTrace *t, const RtRequestView *v);

/* The spec of one request followed through its lines (rt-requests --id), looked for in every step. */
extern const RtAnalysisSpec rt_request_view_analysis;

G_END_DECLS
