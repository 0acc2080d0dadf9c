/* SPDX-License-Identifier: Apache-2.0 */
/* report-private.h: what rt-report's two halves share: the report as its sections left it
 * (report.c: the analyses and the sections) and the page written of it (report-page.c). */
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
  GPtrArray *mixes;           /* RtMix by turns of each --compare experiment against this one;
                               * NULL without --compare */
  RtFindings *findings;
  GPtrArray *sections;        /* Section*, those shown */
  GPtrArray *names;           /* const char*: their names */
  GHashTable *plots;          /* names of the plots some section shows */
};

G_END_DECLS
