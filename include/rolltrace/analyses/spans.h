/* SPDX-License-Identifier: Apache-2.0 */
/* analyses/spans.h: spans: a step's requests, their turns and phases, and the workers' sections in time. */
#pragma once

#include "rolltrace/analyses/common.h"

G_BEGIN_DECLS

/* What a request-level line's time was spent on. The Gantt of rt-timeline colours phases by
 * kind, the Chrome trace of rt-trace nests them; both draw enclosing lines differently. */
typedef enum {
  RT_PHASE_PRE_PROCESS,       /* turn_pre_process, pending_state_handling,
                               * tool_creation_pending_state, interaction_start_pending_state */
  RT_PHASE_ENGINE,            /* turn_engine_call (older engine_call), engine_generate_setup,
                               * engine_async_generate_actual: generation */
  RT_PHASE_TOOL,              /* tool_execution, tool_response_processing, tool_calling_state */
  RT_PHASE_POST_PROCESS,      /* turn_post_process, turn_tool_parsing (older tool_parsing),
                               * reward_calculation, finalization: post-processing, parsing */
  RT_PHASE_OTHER,             /* any other name with a duration (interaction_response,
                               * interacting_state, names this version does not know) */
  RT_PHASE_ENCLOSING,         /* lines that hold the others rather than being a phase:
                               * async_rollout_request_complete (the request), main_loop, turn_end
                               * and the older running_state (a whole turn) */
  RT_N_PHASE_KINDS
} RtPhaseKind;

/* The kind of a canonical event name; RT_PHASE_OTHER for unknown names and NULL. */
RtPhaseKind rt_phase_kind (const char *canonical_name);
/* "pre-process", "engine", "tool", "post-process", "other", "enclosing" */
const char *rt_phase_kind_name (RtPhaseKind kind);

/* All times in RtSpans are doubles in seconds from the step's start, RtSpans.origin_s: the
 * minimum over all the step's lines of timestamp - duration_sec (RtStep.start_s), so that
 * absolute = origin_s + relative. A line has a time when it has a readable timestamp (its end);
 * a line without a duration lasts 0 s. */

/* A timed line of a request: one with a request id, a finite duration and a readable timestamp. */
typedef struct {
  double start_s, end_s;      /* end - duration, end (start > end for a negative duration) */
  guint16 event;              /* canonical id in t->registry */
  guint8 kind;                /* RtPhaseKind of the event */
  gint16 turn;                /* extra.turn as logged, -1 when absent; of a tool call
                               * (RT_PHASE_TOOL): the turn it belongs to, by time (below) */
} RtSpanLine;

/* A tool call (tool_execution, tool_response_processing, tool_calling_state) belongs to the
 * turn of its request that ended last at or before the call started, this much allowed (a
 * start up to 1 ms before that turn's end), and to none (-1) when no turn had ended. Its
 * extra.turn is no guide: the logger counts a turn as done before its tool runs, so a call
 * numbered n was asked for by turn n - 1 (docs/input.md), while older traces, the samples among
 * them, number it with the calling turn. By time, both read the same. */
#define RT_TOOL_CALL_SLACK_S 0.001

/* The turns of a request: the span of its timed lines with that extra.turn, its tool calls
 * left out (they run between the turn that asked for them and the next, and stretch
 * neither). */
typedef struct {
  gint16 turn;                /* as logged (0-based in the newer logger) */
  double start_s, end_s;      /* min start / max end of those lines */
} RtSpanTurn;

/* One request: one async_rollout_request_complete line with a finite duration_sec and a
 * readable timestamp. Every such line counts once (a rerun of an id is another request). */
typedef struct {
  guint32 request;            /* index into t->requests (id, finish reason, turns...), or
                               * RT_NONE when the line could not be tied to one */
  guint32 worker_index;       /* index into RtSpans.workers */
  double start_s, end_s;      /* its life [end - duration, end); start_s = end_s (an empty life)
                               * when duration_s <= 0 */
  double duration_s;          /* duration_sec as logged */
  guint32 first_line, n_lines;/* its timed lines (those the loader tied to its request, the
                               * complete line itself excluded) in RtSpans.lines, by start, then
                               * the longer first, then line order: an enclosing line comes
                               * before what it holds */
  guint32 first_turn, n_turns;/* its turns in RtSpans.turns, ascending turn index; their index
                               * range is turns[first_turn].turn .. turns[first_turn + n_turns - 1].turn */
} RtSpanRequest;

/* A step-level section (RtEventId < RT_N_STEP_EVENTS, total_step_duration included) of a
 * worker file with a duration and a readable timestamp, in line order. */
typedef struct {
  double start_s, end_s;
  guint16 event;              /* RtEventId */
} RtSpanSection;

/* One worker file of the step. */
typedef struct {
  guint32 file;               /* index into t->files */
  gint32 worker;
  double start_s, end_s;      /* min timestamp - duration / max timestamp over its lines with a
                               * time; NAN for a file without one */
  guint32 first_request, n_requests;  /* in RtSpans.requests, by start (ties: the earlier end,
                                       * then line order) */
  guint32 first_section, n_sections;  /* in RtSpans.sections */
} RtSpanWorker;

typedef struct {
  guint step_index;
  gint32 step;
  double origin_s;            /* the step's start in absolute seconds (see rt-trace.h); NAN when
                               * no line of the step has a time (then every array but workers
                               * is empty) */
  double end_s;               /* the step's last timestamp, from origin_s; NAN likewise */
  GArray *workers;            /* RtSpanWorker: every worker file of the step, ascending worker */
  GArray *requests;           /* RtSpanRequest, worker after worker */
  GArray *lines;              /* RtSpanLine, request after request */
  GArray *turns;              /* RtSpanTurn, request after request */
  GArray *sections;           /* RtSpanSection, worker after worker */
  /* Made without lines (rt_spans_analyse_requests): lines and turns are empty, each
   * request's n_lines counts its lines all the same (first_line, first_turn, n_turns 0),
   * and rt_spans_worker_lines makes the lines of some requests when they are needed. */
  gboolean without_lines;
  const RtEvent **rows;       /* then: each worker's rows (the trace's) */
  guint32 *request_of;        /* each worker's file-local requests: the index of the span request
                               * among the worker's, or RT_NONE (none has a life) */
  guint32 *request_of_first;  /* where each worker's begin in request_of */
  guint8 *kinds;              /* RtPhaseKind by event id */
} RtSpans;

/* The requests, turns, phases and step-level sections of step `step_index` as intervals. */
RtSpans *rt_spans_analyse (const RtTrace *t, guint step_index);
/* The same without the lines and turns (most of the work, and of the memory, of a step with
 * many lines), for what needs the lines of a few requests at most (a Gantt of a window):
 * t outlives the spans. */
RtSpans *rt_spans_analyse_requests (const RtTrace *t, guint step_index);
/* The lines of worker k's requests (`wanted`, one per request of the worker: those set;
 * NULL: all), each request's as in RtSpans.lines, into `lines` (emptied first); first[i]
 * (one per request of the worker): where the worker's i-th request's lines begin there
 * (its n_lines of them), RT_NONE for a request not wanted. Of spans made with or without
 * their lines alike; on any thread. */
void rt_spans_worker_lines (const RtSpans *sp, const RtTrace *t, guint k, const gboolean *wanted, GArray *lines,
                            guint32 *first);
void rt_spans_free (RtSpans *sp);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtSpans, rt_spans_free)

static inline const RtSpanWorker *
rt_spans_worker (const RtSpans *sp, guint i)
{
  return &g_array_index (sp->workers, RtSpanWorker, i);
}

static inline const RtSpanRequest *
rt_spans_request (const RtSpans *sp, guint i)
{
  return &g_array_index (sp->requests, RtSpanRequest, i);
}

static inline const RtSpanLine *
rt_spans_line (const RtSpans *sp, guint i)
{
  return &g_array_index (sp->lines, RtSpanLine, i);
}

static inline const RtSpanTurn *
rt_spans_turn (const RtSpans *sp, guint i)
{
  return &g_array_index (sp->turns, RtSpanTurn, i);
}

static inline const RtSpanSection *
rt_spans_section (const RtSpans *sp, guint i)
{
  return &g_array_index (sp->sections, RtSpanSection, i);
}

G_END_DECLS
