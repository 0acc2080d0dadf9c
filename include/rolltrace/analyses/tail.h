/* SPDX-License-Identifier: Apache-2.0 */
/* analyses/tail.h: why a step's tail was late: each request's lateness split exactly into when it
 * started, its turns, its engine, its tools and the rest, against the bulk that finished first. */
#pragma once

#include <glib.h>

#include "rolltrace/rt-analysis.h"
#include "rolltrace/rt-steps.h"
#include "rolltrace/rt-table.h"
#include "rolltrace/rt-trace.h"

G_BEGIN_DECLS

/* ---- a step's requests with what each one's time went to (rt-tail and rt-whatif) ---- */

/* Times in seconds from the step's start (RtStep.start_s, as rt-timeline). A request is an
 * async_rollout_request_complete line with a finite duration_sec and a readable timestamp,
 * each line once: end = its timestamp, start = end - duration (even when duration <= 0). */
typedef struct {
  gint32 worker;
  guint32 request;            /* index for rt_trace_request, or RT_NONE */
  double start_s, end_s, duration_s;
  gint32 turns;               /* extra.turns, -1 unknown */
  gint32 tokens;              /* extra.actual_response_tokens, -1 unknown */
  gboolean own_lines;         /* its id is non-empty and on one complete line of the file only */
  gboolean attributed;        /* own lines, >= 1 turn record (turn_timings entries, else its
                               * turn_end lines) and turns >= 1 */
  double engine_s;            /* sum of the records' finite engine_call_duration */
  double tool_s;              /* sum of its own tool_execution lines' finite duration_sec */
  double cut_turn_end_s;      /* the earliest end of its own turn_end lines with extra.turn ==
                               * the turn asked (rt_late_requests_new), NAN if none */
} RtLateRequest;

typedef struct {
  guint step_index;
  gint32 step;
  GArray *requests;           /* RtLateRequest: worker after worker, in line order */
  guint workers;              /* worker files with a request */
} RtLateRequests;

/* The requests of step `step_index`; `turn_end_turn` >= 0: each one's cut_turn_end_s is of that
 * extra.turn (rt-whatif --max-turns K asks for K - 1), else NAN. */
RtLateRequests *rt_late_requests_new (const RtTrace *t, guint step_index, gint32 turn_end_turn);
void rt_late_requests_free (RtLateRequests *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtLateRequests, rt_late_requests_free)

/* The ends of the requests, in their order, into a new array of doubles. */
double *rt_late_requests_ends (const RtLateRequests *r);
/* e_k of n ends (the k-th smallest), k = ceil(num n / den) (at least 1); NAN when n = 0. Exact
 * in integers. Reorders `ends`, which may be asked again. */
double rt_ends_at (double *ends, guint n, guint64 num, guint64 den);

/* ---- the tail ---- */

/* Why late, in the order `dominant` breaks ties; DURATION stands for the whole duration where
 * a request or step is not attributed. */
typedef enum {
  RT_TAIL_LAUNCH,
  RT_TAIL_EXTRA_TURNS,
  RT_TAIL_SLOWER_TURNS,
  RT_TAIL_TOOL,
  RT_TAIL_OTHER,
  RT_TAIL_DURATION,
  RT_N_TAIL_CAUSES,
  RT_TAIL_NONE = RT_N_TAIL_CAUSES   /* no value > 0, or an empty tail */
} RtTailCause;

/* "launch", "extra_turns", "slower_turns", "tool", "other", "duration", "none" */
const char *rt_tail_cause_name (RtTailCause c);

/* The parts of a request's (or a sum's) lateness; NAN: null. */
typedef enum {
  RT_PART_LATENESS,           /* end - t0 = launch + duration */
  RT_PART_LAUNCH,             /* start - t0 */
  RT_PART_DURATION,
  RT_PART_ENGINE,
  RT_PART_TOOL,
  RT_PART_OTHER,              /* duration - engine - tool */
  RT_PART_TURNS,              /* n (a mean, a request's count) */
  RT_PART_ENGINE_PER_TURN,    /* e = engine / n; of the bulk, mean engine / mean turns */
  RT_PART_EXTRA_TURNS,        /* excesses only: (n - n_bulk)(e + e_bulk)/2 */
  RT_PART_SLOWER_TURNS,       /* excesses only: (e - e_bulk)(n + n_bulk)/2 */
  RT_N_PARTS
} RtTailPart;

typedef struct {
  double v[RT_N_PARTS];
} RtTailParts;

/* The part whose excess a cause is (RT_TAIL_DURATION: RT_PART_DURATION); RT_N_PARTS for none. */
RtTailPart rt_tail_cause_part (RtTailCause c);

typedef struct {
  guint step_index;
  gint32 step;
  guint requests, workers, attributed, unattributed;
  double t0_s, t90_s, t100_s, window_s, tail_s, tail_window_share, bubble;
  guint bulk_requests;
  RtTailParts bulk_mean;      /* lateness .. engine_per_turn; the split null unless every bulk
                               * request is attributed */
  guint tail_requests;
  RtTailParts tail_sum;       /* lateness .. other (0 for an empty tail); the split null unless
                               * every tail request is attributed */
  RtTailParts tail_excess;    /* lateness .. other, extra_turns, slower_turns: sum minus the
                               * bulk's mean for each tail request; the split null unless both
                               * are whole */
  RtTailCause tail_dominant;
  gint32 last_worker;
  const char *last_request_id;   /* in RtTail.texts; NULL when unknown or empty */
  double last_end_s;
  RtTailParts last;           /* lateness .. engine_per_turn; the split null unless attributed */
  RtTailParts last_excess;
  RtTailCause last_dominant;
} RtTailStep;

typedef struct {
  GArray *steps;              /* RtTailStep: the steps with a request, ascending */
  guint attributed_steps;     /* steps whose every request is attributed */
  guint tail_dominant[RT_N_TAIL_CAUSES + 1];   /* steps per RtTailCause, none last */
  guint last_dominant[RT_N_TAIL_CAUSES + 1];
  GStringChunk *texts;        /* the steps' last request ids, copied: the trace's pages of them
                               * go back once a step is read (rt_trace_requests_done) */
} RtTail;

/* The tail of each of the steps `step_indices` (guint indices into t->steps; NULL: every step
 * of `steps`, NULL: all) that has a request. */
RtTail *rt_tail_analyse (const RtTrace *t, const RtStepSet *steps, const GArray *step_indices);
/* The same a step at a time, for a caller that reads each step's requests once for several
 * analyses (rt-report): an empty RtTail, then each step's requests added in ascending order
 * (a step without any is left out). */
RtTail *rt_tail_new (void);
void rt_tail_add_step (RtTail *tail, const RtTrace *t, const RtLateRequests *r);
/* A copy that steps can be added to apart from `tail` (its texts its own). */
RtTail *rt_tail_copy (const RtTail *tail);
void rt_tail_free (RtTail *tail);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtTail, rt_tail_free)

/* one per step: tail_steps.tsv (the JSON's per-step figures flattened) */
extern const RtTableSpec rt_tail_steps_spec;
RtTable *rt_tail_steps_table (const RtTail *tail);

/* The spec of why each step's tail was late (rt-tail): its requests, their own lines and turns. */
extern const RtAnalysisSpec rt_tail_analysis;

G_END_DECLS
