/* SPDX-License-Identifier: Apache-2.0 */
/* analyses/turns.h: turns: time per turn index. */
#pragma once

#include "rolltrace/analyses/common.h"

G_BEGIN_DECLS

/* The requests of one step, worker file after worker file (turns and turn-dist walk them):
 *   RtStepRequests it;
 *   rt_step_requests_init (&it, t, si);
 *   for (const RtRequest *q; (q = rt_step_requests_next (&it)) != NULL;) ... */
typedef struct {
  const RtTrace *t;
  guint file, end_file;
  const RtRequest *at, *end;  /* what is left of the file's requests */
} RtStepRequests;
void rt_step_requests_init (RtStepRequests *it, const RtTrace *t, guint step_index);
/* (the first request of the next file that has one, or NULL) */
const RtRequest *rt_step_requests_next_file (RtStepRequests *it);
/* Inline: it runs once per request of every step an analysis walks. */
static inline const RtRequest *
rt_step_requests_next (RtStepRequests *it)
{
  return it->at != it->end ? it->at++ : rt_step_requests_next_file (it);
}

typedef struct {
  gint32 turn;                /* the turn index, from 0 */
  guint count;                /* turn records of that index */
  double mean_s[RT_N_TURN_PARTS];   /* mean over the records that have the part; NAN: none */
} RtTurnsRow;

typedef struct {
  GArray *turns;              /* RtTurnsRow of each turn index with a record, ascending;
                               * empty when the logger wrote no turn timings */
} RtTurns;

/* Every turn record (turn_timings, or turn_end lines) of the selected steps' requests. */
RtTurns *rt_turns_analyse (const RtTrace *t, const RtStepSet *steps);
void rt_turns_free (RtTurns *turns);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtTurns, rt_turns_free)

/* turns.tsv and the JSON "turns" */
extern const RtTableSpec rt_turns_spec;
RtTable *rt_turns_table (const RtTurns *turns);

/* The spec of where the time of each turn goes (rt-turns): summed over every step when it can. */
extern const RtAnalysisSpec rt_turns_analysis;

G_END_DECLS
