/* SPDX-License-Identifier: Apache-2.0 */
/* rt-rollouts.h: which rollouts of an experiment are training and which validation, and the
 * trainer's step of each: the rollout map every command selects its steps by. */
#pragma once

#include <glib.h>

#include "rolltrace/rt-steps.h"
#include "rolltrace/rt-trace.h"
#include "rolltrace/rt-trainlog.h"

G_BEGIN_DECLS

typedef enum {
  RT_ROLLOUT_TRAINING,
  RT_ROLLOUT_VALIDATION,
} RtRolloutKind;

/* What --rollouts selects. */
typedef enum {
  RT_ROLLOUTS_TRAINING,      /* the default */
  RT_ROLLOUTS_VALIDATION,
  RT_ROLLOUTS_ALL,
} RtRolloutSelect;

/* How the rollouts of the step folders are laid out. */
typedef enum {
  RT_LAYOUT_FOLDERS,         /* a folder per rollout call: one rollout per folder */
  RT_LAYOUT_APPENDED,        /* the 2026 logger: a step's validation appended to its files */
} RtRolloutLayout;

/* One rollout of one step folder. A worker file holds one per total_step_duration line, in
 * time order; its lines after the last such line are a rollout still running. */
typedef struct {
  guint step_index;          /* its folder, in trace->steps */
  gint32 step;               /* the folder's number */
  guint index;               /* 0: the folder's first rollout, 1: the second... */
  RtRolloutKind kind;
  gint32 train_step;         /* the trainer's step: of a training rollout, its step; of a
                              * validation, the step whose log line holds its metrics (0
                              * before training); -1 when not known */
  guint32 requests;          /* requests begun in it, over the folder's worker files */
  gboolean running;          /* no total_step_duration ends it (yet) */
  gboolean likely_validation;/* the automatic rule (no log): far fewer requests than the
                              * median rollout; shown, never a reason to leave it out */
  char *evidence;            /* how its kind is known, one line */
} RtRollout;

typedef struct _RtRolloutMap {
  GArray *rollouts;          /* RtRollout, by folder, then in time order */
  RtRolloutLayout layout;
  char *source;              /* how the kinds are known ("kinds from the trainer's log train.log") */
  char *disagreement;        /* the log and the trace disagree (kinds then as without the
                              * log, folder numbers kept), or NULL */
  gboolean train_steps_known;/* some rollout has a train_step */
  guint n_likely_validation;
  guint32 median_requests;   /* the automatic rule's reference */
} RtRolloutMap;

/* Builds the map of `t`: from the trainer's log `log` (NULL: none; `log_path` names it in the
 * evidence), else from `validation_steps` (NULL: none; the folders --validation-steps SPEC
 * names, `spec` its text), else from the layout alone. */
RtRolloutMap *rt_rollout_map_build (const RtTrace *t, const RtTrainLog *log, const char *log_path,
                                    const RtStepSet *validation_steps, const char *spec);
void rt_rollout_map_free (RtRolloutMap *map);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtRolloutMap, rt_rollout_map_free)

/* Parses --rollouts training|validation|all (NULL: training). */
gboolean rt_rollout_select_parse (const char *value, RtRolloutSelect *out, GError **error);
const char *rt_rollout_kind_name (RtRolloutKind kind);

/* The folders `which` selects among those `user` (--steps; NULL: all) selects: a folder
 * with a rollout of that kind. */
RtStepSet *rt_rollout_map_step_set (const RtRolloutMap *map, const RtStepSet *user, RtRolloutSelect which);

/* The rollout of folder `step` that `which` reads, or NULL (the folder has none of that kind;
 * with `all`, its first). */
const RtRollout *rt_rollout_map_find (const RtRolloutMap *map, gint32 step, RtRolloutSelect which);

/* The trainer's step of the rollout of folder `step` that `which` reads; -1 when unknown. */
gint32 rt_rollout_map_train_step (const RtRolloutMap *map, gint32 step, RtRolloutSelect which);

/* The trainer's step of folder `step` of `t`, by the map its rollouts were selected with
 * (RtTrace.rollouts); -1 without one, or when the map does not know it. */
gint32 rt_trace_train_step (const RtTrace *t, gint32 step);

/* The part of each file of `t` (one per t->files) that `which` reads, for
 * rt_trace_keep_file_parts: in a folder of several rollouts (the appended layout), the first
 * rollout of each file or the later ones when `which` reads only those; the whole file
 * otherwise. Freed with g_free. */
RtFilePart *rt_rollout_map_file_parts (const RtRolloutMap *map, const RtTrace *t, RtRolloutSelect which);

G_END_DECLS
