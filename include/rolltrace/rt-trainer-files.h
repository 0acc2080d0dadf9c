/* SPDX-License-Identifier: Apache-2.0 */
/* rt-trainer-files.h: step_N/worker_-1.jsonl, the trainer's own sections (rank -1 of the 2026
 * logger: reward_duration...), read beside the trace, never as a rollout rank. */
#pragma once

#include <glib.h>

#include "rolltrace/rt-steps.h"
#include "rolltrace/rt-trace.h"

G_BEGIN_DECLS

/* One section name of the trainer's files, over the steps read. */
typedef struct {
  char *event;
  guint steps;               /* files (steps) in which it occurs */
  guint64 count;             /* its lines */
  guint64 with_duration;     /* those with a finite duration_sec */
  double total_s;            /* the sum of those */
} RtTrainerSection;

typedef struct {
  guint files;               /* trainer files of the steps read */
  guint64 lines, bad_lines;  /* bad: not one JSON object with an event name */
  guint unread;              /* files that could not be read, or larger than RT_LINE_MAX */
  GArray *sections;          /* RtTrainerSection, by name */
} RtTrainerSections;

/* Reads the trainer's files (t->trainer_files) of the step folders `steps` selects (NULL: all). */
RtTrainerSections *rt_trainer_sections_read (const RtTrace *t, const RtStepSet *steps);
void rt_trainer_sections_free (RtTrainerSections *ts);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtTrainerSections, rt_trainer_sections_free)

G_END_DECLS
