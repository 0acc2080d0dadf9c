/* SPDX-License-Identifier: Apache-2.0 */
/* rt-chrome-trace-export.h: the selected steps and workers of an experiment written as a Chrome trace
 * (rt-chrome-trace.h), the layout rt-trace documents: a process per worker, requests packed on threads. */
#pragma once

#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-chrome-trace.h"

G_BEGIN_DECLS

typedef struct {
  guint64 processes;          /* workers written */
  guint64 threads;            /* their "step sections" and "requests K" threads */
  guint64 requests;           /* request events written */
  RtNestCounts nest;          /* spans moved by a rounding, and spans left out */
} RtChromeTraceCounts;

/* Time 0 of the trace: the earliest start (timestamp - duration) of a line of the selected
 * steps' files of the selected workers (NULL: all); 0 when none has one. */
double rt_chrome_trace_time_base (const RtTrace *t, const GArray *step_indices, const RtStepSet *workers);

/* Writes the steps `step_indices` (into t->steps, ascending) of the workers in `workers`
 * (NULL: all) into `ct`, one step after the other on the same threads, and counts. */
void rt_chrome_trace_write_experiment (RtChromeTrace *ct, const RtTrace *t, const GArray *step_indices,
                                       const RtStepSet *workers, RtChromeTraceCounts *counts);

/* The spec of the trace export (rt-trace): every request, turn and row of the steps written. */
extern const RtAnalysisSpec rt_chrome_trace_analysis;

G_END_DECLS
