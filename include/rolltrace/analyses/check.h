/* SPDX-License-Identifier: Apache-2.0 */
/* analyses/check.h: check: the inventory of an experiment and what is wrong with it. */
#pragma once

#include "rolltrace/analyses/common.h"

G_BEGIN_DECLS

typedef struct {
  gint32 step, worker;
} RtMissingFile;

/* The inventory of the selected steps; the strays, duplicates and how the trace was
 * loaded (t->strays, t->duplicates, t->stats) belong to the folder, not to steps. */
typedef struct {
  guint n_steps;
  gint32 step_min, step_max;  /* 0 when no step is selected */
  guint max_workers;          /* worker files of the step with the most */
  guint64 files, lines, events, bad_lines, field_problems, glued_lines;
  guint64 requests;           /* complete ones */
  guint64 problems_total;     /* bad lines and field problems, listed or not */
  guint64 other_name_events;  /* events past RT_EVENT_NAMES_MAX distinct names */
  RtSchemaFlags schema;       /* the logger generations whose names occur */
  GArray *missing;            /* RtMissingFile: a worker's file absent from a selected step
                               * while it has one in another step; by step, then worker */
  GArray *empty;              /* RtMissingFile: a selected step's worker file in which no line
                               * is an event (nothing written, or only bad lines); in order */
  GArray *problems;           /* guint: indices into t->problems of the selected files' */
} RtCheck;

RtCheck *rt_check_analyse (const RtTrace *t, const RtStepSet *steps);
void rt_check_free (RtCheck *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtCheck, rt_check_free)

/* "v1", "v2" or "mixed" (v2 too for RT_SCHEMA_NEITHER: no event at all). */
const char *rt_schema_name (RtSchemaFlags schema);

/* check "missing" */
extern const RtTableSpec rt_check_missing_spec;
RtTable *rt_check_missing_table (const RtCheck *c);
extern const RtTableSpec rt_check_empty_spec;
RtTable *rt_check_empty_table (const RtCheck *c);
/* check "problems": the listed bad lines of the selected steps' files */
extern const RtTableSpec rt_check_problems_spec;
RtTable *rt_check_problems_table (const RtTrace *t, const RtCheck *c);
/* check "duplicates": t->duplicates */
extern const RtTableSpec rt_check_duplicates_spec;
RtTable *rt_check_duplicates_table (const RtTrace *t);
/* check "cache", one row: t->stats */
extern const RtTableSpec rt_check_cache_spec;
RtTable *rt_check_cache_table (const RtTrace *t);
/* check "rollouts": every rollout of the map's folders that `steps` selects */
extern const RtTableSpec rt_check_rollouts_spec;
RtTable *rt_check_rollouts_table (const RtRolloutMap *map, const RtStepSet *steps);
/* "trainer_sections" (rt-check, rt-events): the trainer's own sections (worker_-1.jsonl) */
extern const RtTableSpec rt_trainer_sections_spec;
RtTable *rt_trainer_sections_table (const RtTrainerSections *ts);

/* The spec of the health of the input (rt-check): the files, their counters and their rows. */
extern const RtAnalysisSpec rt_check_analysis;

G_END_DECLS
