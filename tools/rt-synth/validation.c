/* SPDX-License-Identifier: Apache-2.0 */
/* rt-synth --validation: when verl validates the policy, and where its rollouts fall: each one
 * planned from streams of its own and placed in the gap the training left, so that the training
 * rollouts are the same, line for line, with validation or without. */
#include "synth.h"

#include <math.h>

/* verl validates after every training step whose number is a multiple of test_freq, and after
 * the last one; a run that --faults killed in its last step never got there. */
static gboolean
validates_after (const Synth *sy, int si)
{
  if (sy->test_freq <= 0)
    return FALSE;
  if (si == sy->n_steps - 1)
    return !sy->faults;
  return sy->steps[si].number % sy->test_freq == 0;
}

static int
val_add (Synth *sy, int after, int number, int folder, gboolean own_folder)
{
  ValPlan *v = &sy->vals[sy->n_vals];
  *v = (ValPlan) { .after = after, .number = number, .folder = folder, .own_folder = own_folder,
                   .squeeze = 1.0 };
  return sy->n_vals++;
}

/* Which validations run, and every rollout's folder: in the folders layout the logger counts
 * rollout calls from --first-step, validation included; in the appended one the folder is the
 * trainer's step, and the validation before training (step first - 1) has a folder of its own. */
void
validations_plan (Synth *sy, int first_step)
{
  if (sy->validation == VALIDATION_NONE)
    return;
  gboolean folders = sy->validation == VALIDATION_FOLDERS;
  sy->vals = g_new0 (ValPlan, sy->n_steps + 1);
  int folder = first_step;
  if (sy->val_before_train)
    val_add (sy, -1, first_step - 1, folders ? folder++ : first_step - 1, TRUE);
  for (int si = 0; si < sy->n_steps; si++)
    {
      StepPlan *sp = &sy->steps[si];
      sp->folder = folders ? folder++ : sp->number;
      for (int w = 0; w < sy->n_workers; w++)
        synth_rank (sy, si, w)->step = sp->folder;
      if (validates_after (sy, si))
        sp->validation = val_add (sy, si, sp->number, folders ? folder++ : sp->folder, folders);
    }

  sy->val_ranks = g_new0 (RankStep, (gsize) sy->n_vals * sy->n_workers);
  for (int vi = 0; vi < sy->n_vals; vi++)
    for (int w = 0; w < sy->n_workers; w++)
      *synth_val_rank (sy, vi, w) = (RankStep) {
        .step_index = vi,
        .step = sy->vals[vi].folder,
        .worker = w,
        .key = sy->vals[vi].number,
        .style = &style_validation,
        .n_requests = sy->val_requests,
        .straggle = 1.0,
        .squeeze = 1.0,
        .tool_scale = sy->tool_scale,
      };
}

/* When the training step after validation `v` starts (for a validation after the last step, when
 * a next step would have started). */
static gint64
next_training_start (const Synth *sy, const ValPlan *v)
{
  if (v->after < 0)
    return sy->steps[0].start;
  if (v->after + 1 < sy->n_steps)
    return sy->steps[v->after + 1].start;
  return step_rollout_end (sy, v->after) + sy->steps[v->after].training_after_us;
}

#define SQUEEZE_ROUNDS 8

/* Plans every validation rollout and places it: it ends a short pause before the next training
 * step starts. One that follows a training step must fit in half of the training gap after it
 * (at least 15 s), the other half left to the training's own phases; a validation longer than
 * that is planned again with its engine, tool and preprocessing times shortened (`squeeze`)
 * until it fits. The validation before training ends a pause before the first step starts. */
gboolean
validations_place (Synth *sy, int threads, GError **error)
{
  if (sy->n_vals == 0)
    return TRUE;
  int W = sy->n_workers;
  g_autofree gboolean *fits = g_new0 (gboolean, sy->n_vals);
  g_autofree gint64 *duration = g_new0 (gint64, sy->n_vals);
  for (int round = 0; round < SQUEEZE_ROUNDS; round++)
    {
      /* all of them at first, then the few that were squeezed */
      if (round == 0 && !synth_parallel (sy, sy->val_ranks, sy->n_vals * W, rank_step_plan, threads, error))
        return FALSE;
      for (int vi = 0; round > 0 && vi < sy->n_vals; vi++)
        if (!fits[vi] && !synth_parallel (sy, synth_val_rank (sy, vi, 0), W, rank_step_plan, threads, error))
          return FALSE;
      gboolean all_fit = TRUE;
      for (int vi = 0; vi < sy->n_vals; vi++)
        {
          if (fits[vi])
            continue;
          ValPlan *v = &sy->vals[vi];
          duration[vi] = rollout_anchor (synth_val_rank (sy, vi, 0), W, 0);
          gint64 budget = v->after < 0 ? G_MAXINT64 : sy->steps[v->after].training_after_us / 2;
          fits[vi] = duration[vi] <= budget || round == SQUEEZE_ROUNDS - 1;
          if (!fits[vi])
            {
              v->squeeze *= 0.9 * (double) budget / (double) duration[vi];
              for (int w = 0; w < W; w++)
                synth_val_rank (sy, vi, w)->squeeze = v->squeeze;
              all_fit = FALSE;
            }
        }
      if (all_fit)
        break;
    }

  for (int vi = 0; vi < sy->n_vals; vi++)
    {
      ValPlan *v = &sy->vals[vi];
      RankStep *ranks = synth_val_rank (sy, vi, 0);
      Rng r;
      rng_seed_stream (&r, sy->seed, STREAM_VAL_STEP, v->number, 0, 0);
      gint64 next = next_training_start (sy, v);
      gint64 done_by = next - rng_int (&r, USEC_PER_SEC, 3 * USEC_PER_SEC);
      /* Preprocessing ends on a whole second, so the duration depends a little on the start:
       * move it back by whole seconds (which keeps that rounding) until the end is in time. */
      v->start = done_by - duration[vi];
      v->end = rollout_anchor (ranks, W, v->start);
      if (v->end > done_by)
        {
          v->start -= (v->end - done_by + USEC_PER_SEC - 1) / USEC_PER_SEC * USEC_PER_SEC;
          v->end = rollout_anchor (ranks, W, v->start);
        }
      v->testing_us = next - v->start;
      /* the score climbs as the policy learns, as the training's critic/score does */
      double progress = v->after < 0 ? 0.0 : 1.0 - exp (-3.0 * (v->after + 1) / sy->n_steps);
      v->score = 0.15 + 0.6 * progress + rng_range (&r, -0.03, 0.03);
    }
  return TRUE;
}
