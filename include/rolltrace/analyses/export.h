/* SPDX-License-Identifier: Apache-2.0 */
/* analyses/export.h: export: the loaded tables as rows (requests, turns, events, steps, workers). */
#pragma once

#include "rolltrace/analyses/common.h"

G_BEGIN_DECLS

/* Times in the exported rows are seconds, rounded to the microsecond (the timestamps'
 * resolution): of a request, turn, event or worker file from its step's start (RtStep.start_s,
 * as rt-timeline); of a step from the earliest start of any step of the trace (not only of
 * those selected, so that exports of different step ranges of one trace agree). Durations
 * are as logged. The loggers' clocks are zone-less: no row holds a date. */
typedef enum {
  RT_EXPORT_REQUESTS,         /* one row per request id of a worker file */
  RT_EXPORT_TURNS,            /* one per turn record (turn_timings, or turn_end lines) */
  RT_EXPORT_EVENTS,           /* one per event row: a JSON object with a string event */
  RT_EXPORT_STEPS,            /* one per selected step */
  RT_EXPORT_WORKERS,          /* one per worker file of a selected step */
  RT_N_EXPORT_TABLES
} RtExportTable;

/* The declarations, in RtExportTable order; each spec's name is its --table name. */
extern const RtTableSpec rt_export_requests_spec, rt_export_turns_spec, rt_export_events_spec,
  rt_export_steps_spec, rt_export_workers_spec;
const RtTableSpec *rt_export_spec (RtExportTable which);
/* An empty table of `which`, its columns ready for rows (the workers' sections expanded). */
RtTable *rt_export_table_new (RtExportTable which);
/* How the CSV is written. */
typedef enum {
  RT_EXPORT_NO_STEP = 1 << 0, /* without the step column: a part of a dataset partitioned by
                               * step, whose folder (step=N) names it */
} RtExportFlags;
/* The same with `flags`: the columns of the CSV that rt_export_csv_full writes with them. */
RtTable *rt_export_table_new_full (RtExportTable which, RtExportFlags flags);
/* The table named `name` ("requests"...), or -1. */
int rt_export_table_find (const char *name);

/* Receives the rows made so far; the table is emptied when it returns. FALSE stops the export
 * (a write failed). */
typedef gboolean (*RtExportSink) (RtTable *rows, gpointer data);

/* Makes the rows of table `which` over the selected steps (NULL: all), in step, worker and
 * line order, and hands them to `sink` in batches of `batch` rows, so that memory holds one
 * batch whatever the size of the trace. The sink is called at least once, the last time
 * with what is left, maybe no row, so that a writer can put a header first. Sets `n_rows`
 * to the rows made; returns FALSE when the sink stopped the export. */
gboolean rt_export_rows (const RtTrace *t, const RtStepSet *steps, RtExportTable which, guint batch,
                         RtExportSink sink, gpointer data, guint64 *n_rows);

/* Receives the next piece of a CSV text; FALSE stops the export (a write failed). */
typedef gboolean (*RtExportWrite) (const char *text, gsize len, gpointer data);

/* The CSV (rt_table_csv_append: the header line, then every row) of table `which` over the
 * selected steps, the rows as rt_export_rows makes them, handed to `write` in pieces, in
 * order, one call at a time (from this thread or a helper: the rows are made and formatted
 * on both cores). Memory holds a few MB of text whatever the size of the table. Sets
 * `n_rows` to the rows written; returns FALSE when `write` stopped the export. */
gboolean rt_export_csv (const RtTrace *t, const RtStepSet *steps, RtExportTable which, RtExportWrite write,
                        gpointer data, guint64 *n_rows);
/* The same with `flags` (RT_EXPORT_NO_STEP). */
gboolean rt_export_csv_full (const RtTrace *t, const RtStepSet *steps, RtExportTable which, RtExportFlags flags,
                             RtExportWrite write, gpointer data, guint64 *n_rows);

/* The spec of every table as CSV (rt-export). */
extern const RtAnalysisSpec rt_export_analysis;

G_END_DECLS
