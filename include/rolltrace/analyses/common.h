/* SPDX-License-Identifier: Apache-2.0 */
/* analyses/common.h: what every analysis header shares: the conventions of an analysis, the
 * steps a selection names, and summaries as table columns. */
#pragma once

#include <glib.h>
#include "rolltrace/rt-analysis.h"
#include "rolltrace/rt-rollouts.h"
#include "rolltrace/rt-stats.h"
#include "rolltrace/rt-steps.h"
#include "rolltrace/rt-table.h"
#include "rolltrace/rt-trace.h"
#include "rolltrace/rt-trainer-files.h"
#include "rolltrace/rt-trainlog.h"
#include "rolltrace/rt-views.h"

G_BEGIN_DECLS

/* Conventions. An analysis takes the trace and the steps to look at (an RtStepSet, NULL
 * for all) and returns its result even when there is nothing to say: a trace without the
 * data gives an empty result, never an error. Each result has its _free function and
 * g_autoptr cleanup. A result refers to the trace (step indices, interned texts): it
 * lives no longer than the trace. Step indices index trace->steps. */

/* Indices into t->steps of the steps of `set` (NULL: all), ascending. */
GArray *rt_trace_select_steps (const RtTrace *t, const RtStepSet *set);

/* What says that step `step_index` is as a load before saw it: its index and number, and each
 * of its files' path, size, inode and times (the rule the cache trusts). Two loads whose
 * identities of a step are equal read the same bytes for it. */
GBytes *rt_trace_step_identity (const RtTrace *t, guint step_index);

/* The columns of an RtSummary in a table, and its cells. `extra` as in rt-views.h:
 * RT_SUMMARY_P80 and RT_SUMMARY_P999 add those two. */
#define RT_SUMMARY_COLUMNS_HEAD(unit) \
  { RT_COL ("count", RT_COLUMN_INT, NULL, "how many values") }, \
  { RT_COL ("mean", RT_COLUMN_NUMBER, unit, "mean") }, \
  { RT_COL ("std", RT_COLUMN_NUMBER, unit, "standard deviation (population)") }, \
  { RT_COL ("min", RT_COLUMN_NUMBER, unit, "smallest") }, \
  { RT_COL ("max", RT_COLUMN_NUMBER, unit, "largest") }, \
  { RT_COL ("p50", RT_COLUMN_NUMBER, unit, "median (percentiles interpolate between closest ranks)") }
#define RT_SUMMARY_COLUMN_P80(unit) { RT_COL ("p80", RT_COLUMN_NUMBER, unit, "80th percentile") }
#define RT_SUMMARY_COLUMNS_TAIL(unit) \
  { RT_COL ("p90", RT_COLUMN_NUMBER, unit, "90th percentile") }, \
  { RT_COL ("p95", RT_COLUMN_NUMBER, unit, "95th percentile") }, \
  { RT_COL ("p99", RT_COLUMN_NUMBER, unit, "99th percentile") }
#define RT_SUMMARY_COLUMN_P999(unit) { RT_COL ("p999", RT_COLUMN_NUMBER, unit, "99.9th percentile") }
void rt_table_summary (RtTable *table, const RtSummary *sum, guint extra);

/* A table whose RT_COLUMN_EACH column `pattern` becomes one column per step-level
 * section, the first `n` of them in RtEventId order. */
RtTable *rt_table_new_with_sections (const RtTableSpec *spec, const char *pattern, int n);

G_END_DECLS
