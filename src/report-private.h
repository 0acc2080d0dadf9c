/* SPDX-License-Identifier: Apache-2.0 */
/* report-private.h: what rt-report's parts share: the report as its sections left it
 * (report.c: the analyses and the sections; report-pieces.c: what a section is made of) and
 * the page written of it (report-page.c). */
#pragma once

#include "rolltrace/rt-report.h"

G_BEGIN_DECLS

/* ---- the pieces of a section: markup of ours, text of the input, plots ---- */

typedef enum { PIECE_HTML, PIECE_SVG } PieceKind;

typedef struct {
  PieceKind kind;
  char *text;                 /* markup (already escaped), or the plot's name */
} Piece;

typedef struct {
  const char *name;           /* the anchor and the --json name */
  const char *title;
  GPtrArray *pieces;          /* Piece* */
} Section;

struct _RtReport {
  RtSession *s;
  const RtTrace *t;
  RtReportOptions opts;
  RtOverview *overview;
  RtCdf *cdf;
  RtWorkers *workers;
  RtEvents *events;
  RtTurns *turns;
  RtTurnDist *turn_dist;
  RtTimeline *timeline;
  RtCheck *check;
  RtTrain *train;
  RtTail *tail;
  GPtrArray *whatif;          /* RtWhatif: the policies of rt_finding_whatif_settings */
  RtRequestWalk *walk;        /* the findings' walk over the requests */
  GPtrArray *mixes;           /* RtMix by turns of each --compare experiment against this one;
                               * NULL without --compare */
  RtFindings *findings;
  GPtrArray *sections;        /* Section*, those shown */
  GPtrArray *names;           /* const char*: their names */
  GHashTable *plots;          /* names of the plots some section shows */
};

/* ---- report.c ---- */

/* rt-tail's and rt-whatif's (the policies of rt_finding_whatif_settings) over the selected
 * steps of `t`, each step's requests read once for both; with `memo`, from where a round before
 * left off when the steps it kept are the first ones again, each as it was. */
void rt_report_tail_whatif (const RtTrace *t, const RtStepSet *steps, RtReportMemo *memo, RtTail **tail,
                            GPtrArray **whatif);
/* rt-turn-dist's of the selected steps, with `memo` as rt_report_tail_whatif. */
RtTurnDist *rt_report_turn_dist (const RtTrace *t, const RtStepSet *steps, RtReportMemo *memo);
/* The findings' walk over the requests of the selected steps, with `memo` as above. */
RtRequestWalk *rt_report_request_walk (const RtTrace *t, const RtStepSet *steps, RtReportMemo *memo);
/* The steps the last round with `memo` read for one of them. */
typedef enum { RT_REPORT_KEPT_TAIL_WHATIF, RT_REPORT_KEPT_TURN_DIST, RT_REPORT_KEPT_WALK } RtReportKept;
guint rt_report_memo_steps_read (const RtReportMemo *memo, RtReportKept which);

/* ---- report-pieces.c: appending pieces to a section ---- */

#define TABLE_ROWS_MAX 40     /* rows of a table shown in the page; the TSV beside has them all */

void rt_section_piece_free (Piece *p);
void rt_section_free (Section *sec);
/* Markup of ours, as printf formats it. */
void rt_section_html (Section *sec, const char *fmt, ...) G_GNUC_PRINTF (2, 3);
/* Text of the input, escaped. */
void rt_section_text (Section *sec, const char *s);
void rt_section_text_printf (Section *sec, const char *fmt, ...) G_GNUC_PRINTF (2, 3);
/* What to look for in the plot above. */
void rt_section_caption (Section *sec, const char *what_to_look_for);
/* The plot `name` (its SVG inlined once rendered), its data `data_stem`.tsv linked. */
void rt_section_plot (Section *sec, const char *name, const char *data_stem);
void rt_section_cell_number (Section *sec, double v, RtColumnType type);
/* The columns `columns` of `tab` (NULL: all), its first TABLE_ROWS_MAX rows; written beside as
 * STEM.tsv when `stem` is not NULL. FALSE with `error` set when that file cannot be written. */
gboolean rt_section_table (RtReport *r, Section *sec, const RtTable *tab, const char *const *columns,
                           const char *stem, GError **error);
void rt_section_note (Section *sec, const char *s);

G_END_DECLS
