/* SPDX-License-Identifier: Apache-2.0 */
/* rt-report.h: one self-contained HTML page of an experiment: its findings first, ranked, then a
 * section per question with its plots inline (SVG) and its data files beside the page. */
#pragma once

#include <glib.h>

#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"

G_BEGIN_DECLS

/* What rt-report --watch keeps from one round to the next, so that a round reads again only
 * the steps appended or changed since (the tail and what-if figures of the others). */
typedef struct _RtReportMemo RtReportMemo;
RtReportMemo *rt_report_memo_new (void);
void rt_report_memo_free (RtReportMemo *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtReportMemo, rt_report_memo_free)

typedef struct {
  const RtTrainLog *train;    /* --train, or NULL */
  const char *train_path;     /* its path as given, for the page */
  guint watch_s;              /* > 0: the page reloads itself every watch_s seconds */
  RtReportMemo *memo;         /* NULL, or kept by the caller across the loads of a watch */
} RtReportOptions;

typedef struct _RtReport RtReport;

/* Runs the analyses of the selected steps of s->trace, the findings, and every section: their
 * tables as TSV and their plots as SVG in the output folder (rendered here, unless --no-render).
 * The page is written by rt_report_write_page. */
RtReport *rt_report_build (RtSession *s, const RtReportOptions *opts, GError **error);
void rt_report_free (RtReport *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtReport, rt_report_free)

/* Writes OUT/index.html whole (a temporary, then a rename), the SVG of each plot inline. With
 * `stopped` the page says the watch has ended and no longer reloads itself. */
gboolean rt_report_write_page (RtSession *s, RtReport *r, gboolean stopped, GError **error);

/* {"findings": [...], "sections": [names]} */
void rt_report_write_json (const RtReport *r, RtJsonWriter *w);

const RtFindings *rt_report_findings (const RtReport *r);
/* The sections the page shows, in order (static names). */
const GPtrArray *rt_report_section_names (const RtReport *r);
/* The analyses found something to show (a step with a rollout, or a request). */
gboolean rt_report_has_data (const RtReport *r);

/* The spec of the report (rt-report): what its sections read together. */
extern const RtAnalysisSpec rt_report_analysis;

G_END_DECLS
