/* SPDX-License-Identifier: Apache-2.0 */
/* analyses/findings.h: findings: what is wrong with a rollout, ranked, each with its numbers. */
#pragma once

#include "rolltrace/analyses/common.h"
#include "rolltrace/analyses/cdf.h"
#include "rolltrace/analyses/overview.h"
#include "rolltrace/analyses/turns.h"
#include "rolltrace/analyses/events.h"
#include "rolltrace/analyses/check.h"
#include "rolltrace/analyses/timeline.h"
#include "rolltrace/analyses/tail.h"
#include "rolltrace/analyses/whatif.h"

G_BEGIN_DECLS

/* The thresholds of the rules (docs/findings.md explains each; rt-report --help lists them). */
#define RT_FINDING_STRAGGLER_MIN_STEPS 4      /* straggler: at least this many steps... */
#define RT_FINDING_STRAGGLER_SHARE 0.5        /* ...and the same worker slowest in this share of them */
#define RT_FINDING_BARRIER_PCT 20.0           /* barrier_share: mean barrier wait, % of a step */
#define RT_FINDING_TAIL_RATIO 5.0             /* long_tail: P99 / P50 of request durations */
#define RT_FINDING_TAIL_SHARE 0.3             /* long_tail: or the slowest step's tail_share */
#define RT_FINDING_LENGTH_SHARE 0.10          /* truncation: share of complete requests ending LENGTH */
#define RT_FINDING_TURN_RECORDS_SHARE 0.05    /* context_growth: a turn index holding this share... */
#define RT_FINDING_CONTEXT_GROWTH 2.0         /* ...with this many times turn 0's engine time */
#define RT_FINDING_ROLLOUT_SHARE_LOW 0.5      /* rollout_share: rollout / interval below this... */
#define RT_FINDING_ROLLOUT_SHARE_HIGH 0.8     /* ...or above this */
#define RT_FINDING_OUTLIER_STD 2.0            /* outlier_steps: rollout beyond mean + this many std */
#define RT_FINDING_TOOL_TOP 10                /* tool_time: the slowest this many requests... */
#define RT_FINDING_TOOL_SHARE 0.30            /* ...spend more than this share in tool_execution */
#define RT_FINDING_TRAINER_MISMATCH 0.10      /* trainer_mismatch: |gen - rollout| / rollout, median step */
#define RT_FINDING_DEFER_SHARE 0.05           /* whatif_saving: defer this share of each step's requests
                                               * (K = ceil(0.05 R), the slowest)... */
#define RT_FINDING_KEEP_SHARE 0.9             /* ...and keep this share of them (k = ceil(0.9 R), the first) */
#define RT_FINDING_WHATIF_SAVED 0.10          /* whatif_saving: either saves more than this share of the rollout */
#define RT_FINDING_WHATIF_KS_P 0.05           /* whatif_saving: a KS p-value below this: the cut requests differ */

typedef enum {
  RT_SEVERITY_HIGH,           /* costs every step a large share of its time, or the data lie */
  RT_SEVERITY_MEDIUM,         /* worth a look: a tail, a turn, a tool, damaged input */
  RT_SEVERITY_INFO,           /* how the run is shaped, not necessarily wrong */
} RtSeverity;

/* "high", "medium", "info" */
const char *rt_severity_name (RtSeverity severity);

typedef struct {
  const char *name;           /* static */
  double value;
  const char *text;           /* static; a text instead of a number (tail_cause's cause), or NULL */
} RtEvidence;

typedef struct {
  const char *id;             /* the rule's fixed id: "straggler", "barrier_share"... */
  RtSeverity severity;
  char *title;                /* one line */
  char *detail;               /* one or two sentences with the numbers */
  const char *section;        /* the rt-report section that shows it ("workers") */
  char *plot;                 /* the plot that shows it ("workers_steps"), or NULL */
  GArray *evidence;           /* RtEvidence, the numbers of `detail` by name */
} RtFinding;

/* One rule: its id, severity and what fires it, for --help and the documentation. */
typedef struct {
  const char *id;
  RtSeverity severity;
  const char *rule;           /* one sentence, with the thresholds above */
} RtFindingRule;
extern const RtFindingRule rt_finding_rules[];   /* ends with { NULL } */

/* The one walk of the rules (truncation, tool_time) over the complete requests of the
 * selected steps, a step at a time in ascending order: how many, how many finished at the
 * length limit, the RT_FINDING_TOOL_TOP slowest. A copy goes on apart from it; a walk kept
 * from the load before of the same first steps, each as it was (rt_trace_step_identity),
 * is rebased on the new trace before it goes on (FALSE: it cannot be, walk again). */
typedef struct _RtRequestWalk RtRequestWalk;
RtRequestWalk *rt_request_walk_new (void);
void rt_request_walk_step (RtRequestWalk *walk, const RtTrace *t, guint step_index);
RtRequestWalk *rt_request_walk_copy (const RtRequestWalk *walk);
gboolean rt_request_walk_rebase (RtRequestWalk *walk, const RtTrace *t);
/* What it found: the complete requests, those that finished at the length limit, and the
 * slowest kept, slowest first (`slowest`, if not NULL: a new array of their indices for
 * rt_trace_request). */
void rt_request_walk_counts (const RtRequestWalk *walk, guint64 *complete, guint64 *length, GArray **slowest);
void rt_request_walk_free (RtRequestWalk *walk);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtRequestWalk, rt_request_walk_free)

/* The analyses the rules read; rt-report computes them once for its sections too. Any may be
 * NULL: the rules that need it are not tried. */
typedef struct {
  const RtOverview *overview; /* with the trainer's log when there is one */
  const RtCdf *cdf;           /* of request durations */
  const RtEvents *events;
  const RtTurns *turns;
  const RtTimeline *timeline; /* of the slowest selected step */
  const RtCheck *check;
  const RtTail *tail;         /* of every selected step */
  const RtWhatif *defer, *keep;   /* the policies of rt_finding_whatif_settings, in that order */
  RtRequestWalk *walk;        /* of every selected step, or NULL: walked by rt_findings_from */
} RtFindingsInput;

/* The two policies whatif_saving replays: defer the slowest RT_FINDING_DEFER_SHARE of each
 * step's requests, and keep the first RT_FINDING_KEEP_SHARE of them (both shares exact). */
void rt_finding_whatif_settings (RtWhatifSetting settings[2]);

typedef struct {
  GPtrArray *findings;        /* RtFinding*, ranked: severity, then the order of rt_finding_rules */
  RtLastStep last_step;       /* how the last step of the trace stands (rt_view_last_step) */
  gint32 running_step;        /* that step when it is still being written; -1 otherwise */
} RtFindings;

/* Every rule over the selected steps; the analyses of `in` must be of the same steps. */
RtFindings *rt_findings_from (const RtTrace *t, const RtStepSet *steps, const RtFindingsInput *in);
/* The same, computing the analyses (the trainer's log may be NULL). */
RtFindings *rt_findings_analyse (const RtTrace *t, const RtStepSet *steps, const RtTrainLog *train);
void rt_findings_free (RtFindings *f);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtFindings, rt_findings_free)

/* The finding of rule `id`, or NULL when it did not fire. */
const RtFinding *rt_findings_find (const RtFindings *f, const char *id);
/* The evidence `name` of a finding; NAN when it has none of that name (or it is a text). */
double rt_finding_evidence (const RtFinding *finding, const char *name);
/* The evidence `name` of a finding when it is a text; NULL otherwise. */
const char *rt_finding_evidence_text (const RtFinding *finding, const char *name);
/* The findings as the JSON array of rt-report --json. */
void rt_findings_write_json (const RtFindings *f, RtJsonWriter *w);

G_END_DECLS
