/* SPDX-License-Identifier: Apache-2.0 */
/* rt-analysis.h: what an analysis is, as a command and the loader see it.
 * Each analysis exports one RtAnalysisSpec in its own header (analyses/cdf.h: rt_cdf_spec):
 * its name, what it reads of a loaded trace, which steps, and what it writes. A command lists
 * the analyses it may run (RtCommand.analyses); the load keeps the union of the needs of
 * those it does run, and nothing else. */
#pragma once

#include <glib.h>

#include "rolltrace/rt-table.h"
#include "rolltrace/rt-trace.h"

G_BEGIN_DECLS

/* Which steps an analysis reads the requests and turns of, among those --steps (and
 * --rollouts) select. --step N names one of them, "slowest" the one with the longest
 * rollout (rt_trace_resolve_step). */
typedef enum {
  RT_STEPS_SELECTED,   /* every one */
  RT_STEPS_ONE,        /* one: --step's, the slowest without it (rt-timeline) */
  RT_STEPS_GIVEN,      /* --step's alone when given, every one without it (rt-tail) */
} RtStepScope;

typedef struct {
  const char *name;            /* "cdf", as in the JSON and the docs */
  RtReads reads;               /* every table it reads (RT_READS_*, never 0) */
  RtStepScope steps;
  const RtTableSpec *const *tables;  /* the tables it makes (TSV files, JSON arrays),
                                      * NULL-terminated, or NULL */
  const char *plots;           /* the plots it draws, named as their files are ("cdf_all,
                                * cdf_step_N"), or NULL */
} RtAnalysisSpec;

G_END_DECLS
