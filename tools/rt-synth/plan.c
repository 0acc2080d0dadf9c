/* SPDX-License-Identifier: Apache-2.0 */
/* rt-synth's experiment plan: every step, rank, request and turn with its times, drawn from the
 * seed before any line is written, so the writers only format what is decided here. */
#include "synth.h"

#include <math.h>
#include <string.h>

/* Engine time of one turn. Decoding costs ~16 ms a token and slows as the context grows with the
 * turn index; a queueing delay and a rare stall (preemption, KV-cache pressure) add the heavy
 * tail; `slow` makes a whole rank slower (the step's straggler). */
static gint64
engine_time_us (Rng *r, int turn, int tokens, double slow)
{
  double per_token = 0.016 * (1.0 + 0.12 * turn) * rng_lognormal (r, 1.0, 0.2, 0.5, 2.0);
  double seconds = tokens * per_token + rng_lognormal (r, 0.04, 1.0, 0.001, 30.0);
  if (rng_chance (r, 0.02))
    seconds *= rng_range (r, 2.0, 5.0);
  return (gint64) llround (seconds * slow * 1e6);
}

const RolloutStyle style_training = {
  .rank_stream = STREAM_RANK,
  .request_stream = STREAM_REQUEST,
  .token_scale = 1.0,
  .p_another_turn = 0.55,
  .prep_scale = 1.0,
};

/* Greedy answers are shorter and call fewer tools; the validation set is a smaller batch. */
const RolloutStyle style_validation = {
  .rank_stream = STREAM_VAL_RANK,
  .request_stream = STREAM_VAL_REQUEST,
  .token_scale = 0.6,
  .p_another_turn = 0.4,
  .prep_scale = 0.25,
};

void
request_plan (RequestPlan *p, const RolloutStyle *style, guint64 seed, int key, int worker, int index,
              double slow, double tool_scale)
{
  Rng r;
  rng_seed_stream (&r, seed, style->request_stream, key, worker, index);
  guint64 hi = rng_next (&r), lo = rng_next (&r);
  format_uuid4 (p->id, hi, lo);
  p->batch_data_id = index;
  p->offset = (gint64) index * REQUEST_STAGGER_US + rng_int (&r, 0, REQUEST_STAGGER_US);
  p->prompt_length = (int) rng_lognormal (&r, 700, 0.55, 64, 3072);

  p->pending_start = rng_int (&r, 5, 60);
  p->pending_end = p->pending_start + rng_duration_us (&r, 0.00015, 0.8, 0.00002, 0.002);
  p->tool_create_start = p->pending_end + rng_int (&r, 2, 40);
  p->tool_create_end = p->tool_create_start + rng_duration_us (&r, 0.004, 0.9, 0.0005, 0.05);
  gint64 t = p->tool_create_end;
  /* A minority of prompts come with a simulated-user interaction to set up. */
  p->has_interaction = rng_chance (&r, 0.1);
  if (p->has_interaction)
    {
      p->interaction_start = t + rng_int (&r, 2, 30);
      p->interaction_end = p->interaction_start + rng_duration_us (&r, 0.002, 0.7, 0.0002, 0.03);
      t = p->interaction_end;
    }
  p->loop_start = t + rng_int (&r, 2, 30);
  t = p->loop_start;

  int response = 0, actual = 0;
  p->turns_with_tools = 0;
  for (int turn = 0; turn < MAX_TURNS; turn++)
    {
      TurnPlan *tp = &p->turns[turn];
      memset (tp, 0, sizeof *tp);
      tp->start = t;
      tp->sequence_length = p->prompt_length + response;
      tp->generation_prompt_length = tp->sequence_length + (int) rng_int (&r, 3, 16);
      tp->pre_end = tp->start + rng_duration_us (&r, 0.0003, 0.7, 0.00003, 0.005);
      tp->engine_start = tp->pre_end + rng_int (&r, 1, 15);
      tp->setup_start = tp->engine_start + rng_int (&r, 1, 8);
      tp->setup_end = tp->setup_start + rng_duration_us (&r, 0.0004, 0.8, 0.00005, 0.005);

      /* Later turns write more: plans, then longer answers. */
      int tokens = (int) rng_lognormal (&r, 170.0 * (1.0 + 0.25 * turn) * style->token_scale, 0.85, 1,
                                        RESPONSE_CAP);
      gboolean wants_tool = rng_chance (&r, style->p_another_turn);
      if (response + tokens >= RESPONSE_CAP)
        {
          tokens = RESPONSE_CAP - response;
          tp->finish = TURN_LENGTH;
        }
      else
        tp->finish = wants_tool ? TURN_TOOL_CALLS : TURN_STOP;
      tp->has_tool_calls = tp->finish == TURN_TOOL_CALLS;
      tp->generated_tokens = tokens;
      tp->text_length = (int) (tokens * rng_range (&r, 3.0, 4.2));
      tp->actual_start = tp->setup_end + rng_int (&r, 1, 10);
      tp->actual_end = tp->actual_start + engine_time_us (&r, turn, tokens, slow);
      tp->engine_end = tp->actual_end + rng_int (&r, 5, 40);

      tp->post_start = tp->engine_end + rng_int (&r, 1, 10);
      gint64 post_work_from = tp->post_start;
      if (tp->has_tool_calls)
        {
          tp->raw_tool_calls = 1 + rng_chance (&r, 0.3) + rng_chance (&r, 0.1);
          /* Now and then a call is malformed and the parser drops it. */
          tp->parsed_tool_calls = tp->raw_tool_calls - (tp->raw_tool_calls > 1 && rng_chance (&r, 0.03));
          tp->parse_start = tp->engine_end + rng_int (&r, 5, 30);
          tp->parse_end = tp->parse_start + rng_duration_us (&r, 0.0003, 0.6, 0.00003, 0.005);
          post_work_from = tp->parse_end;
          p->turns_with_tools++;
        }
      tp->post_end = post_work_from + rng_duration_us (&r, 0.0002, 0.8, 0.00001, 0.005);
      tp->end = tp->post_end + rng_int (&r, 5, 60);
      response += tokens;
      actual += tokens;
      t = tp->end;

      if (tp->finish != TURN_TOOL_CALLS || turn == MAX_TURNS - 1)
        {
          p->n_turns = turn + 1;
          p->finish = tp->finish;
          break;
        }

      tp->executes_tools = TRUE;
      tp->exec_start = t + rng_int (&r, 2, 20);
      /* a slower tool server (--tool-scale) draws the same numbers, so only the times change */
      gint64 tool_us = tp->parsed_tool_calls * rng_duration_us (&r, 0.3, 1.1, 0.005, 60.0);
      tp->exec_end = tp->exec_start + (tool_scale == 1.0 ? tool_us : (gint64) llround (tool_scale * tool_us));
      tp->resp_start = tp->exec_end + rng_int (&r, 2, 20);
      tp->resp_end = tp->resp_start + rng_duration_us (&r, 0.0004, 0.9, 0.00002, 0.01);
      tp->tool_state_end = tp->resp_end + rng_int (&r, 2, 15);
      /* The tool's output becomes part of the response; leave at least one token to generate. */
      int tool_tokens = (int) rng_lognormal (&r, 120, 0.8, 5, 2000);
      response = MIN (response + tool_tokens, RESPONSE_CAP - 1);
      t = tp->tool_state_end + rng_int (&r, 2, 30);
    }

  p->user_turns = p->n_turns - 1; /* every turn but the last handed tool output back */
  p->response_length = response;
  p->actual_tokens = actual;
  p->loop_end = p->turns[p->n_turns - 1].end + rng_int (&r, 2, 10);
  p->reward_start = p->loop_end + rng_int (&r, 2, 20);
  p->reward_end = p->reward_start + rng_duration_us (&r, 0.02, 1.0, 0.0005, 1.0);
  p->final_start = p->reward_end + rng_int (&r, 2, 10);
  p->final_end = p->final_start + rng_duration_us (&r, 0.0008, 0.7, 0.0001, 0.01);
  p->end = p->final_end + rng_int (&r, 5, 30);
}

/* ------------------------------------------------------------------------------------------ */
/* A step on one rank                                                                           */

/* Durations of the sections that follow generation and do not depend on other ranks:
 * median seconds, spread, bounds. Values are of the order seen in real traces. */
typedef struct {
  Section section;
  double median, sigma, lo, hi;
} SectionTiming;

static const SectionTiming fixed_sections[] = {
  { SEC_SORTING, 0.0002, 1.0, 0.00002, 0.01 },
  { SEC_BROADCAST, 0.2, 0.6, 0.02, 2.0 },
  { SEC_DATA_EXTRACTION, 0.13, 0.4, 0.02, 1.0 },
  { SEC_PADDING, 0.008, 0.8, 0.0002, 0.1 },
  { SEC_CONCATENATION, 0.004, 1.0, 0.0001, 0.1 },
  { SEC_BATCH_CONSTRUCTION, 0.015, 0.4, 0.002, 0.2 },
  { SEC_CACHE_FLUSH, 0.25, 0.5, 0.05, 2.0 },
  { SEC_FINAL_CONSTRUCTION, 0.001, 1.2, 0.00005, 0.05 },
};

void
steps_plan (Synth *sy, int first_step)
{
  sy->steps = g_new0 (StepPlan, sy->n_steps);
  for (int i = 0; i < sy->n_steps; i++)
    {
      StepPlan *sp = &sy->steps[i];
      Rng r;
      sp->number = first_step + i;
      sp->folder = sp->number;
      sp->validation = -1;
      rng_seed_stream (&r, sy->seed, STREAM_STEP, sp->number, 0, 0);
      sp->straggler = sy->n_workers > 1 ? (int) rng_int (&r, 0, sy->n_workers - 1) : -1;
      sp->straggler_slow = rng_range (&r, 1.5, 2.0);
      sp->training_gap_us = (gint64) llround (rng_range (&r, 30.0, 120.0) * 1e6);
      /* the last step's training has no next step to end at: a draw of its own */
      sp->training_after_us = (gint64) llround (rng_range (&r, 30.0, 120.0) * 1e6);
    }
  for (int i = 0; i + 1 < sy->n_steps; i++)
    sy->steps[i].training_after_us = sy->steps[i + 1].training_gap_us;
  for (int i = 0; i < sy->n_steps; i++)
    for (int w = 0; w < sy->n_workers; w++)
      {
        const StepPlan *sp = &sy->steps[i];
        RankStep *rs = synth_rank (sy, i, w);
        *rs = (RankStep) {
          .step_index = i,
          .step = sp->folder,
          .worker = w,
          .key = sp->number,
          .style = &style_training,
          .n_requests = sy->n_requests,
          .straggle = w == sp->straggler ? sp->straggler_slow : 1.0,
          .squeeze = 1.0,
          .tool_scale = sy->tool_scale,
        };
      }
}

/* GThreadPool task: the parts of a rank's step that depend only on its own random streams. */
void
rank_step_plan (gpointer data, gpointer user_data)
{
  RankStep *rs = data;
  Synth *sy = user_data;
  Rng r;
  rng_seed_stream (&r, sy->seed, rs->style->rank_stream, rs->key, rs->worker, 0);

  /* Ranks differ a little in speed; the straggler (a hot GPU, a noisy neighbour) a lot. */
  rs->slow = rng_range (&r, 0.92, 1.08) * rs->straggle * rs->squeeze;
  rs->start_jitter = rng_int (&r, 0, 400000);
  rs->prep_duration = rng_duration_us (&r, 10.0, 0.15, 6.0, 20.0);
  double prep_scale = rs->style->prep_scale * rs->squeeze;
  if (prep_scale != 1.0)
    rs->prep_duration = (gint64) llround ((double) rs->prep_duration * prep_scale);

  /* Generation lasts until the rank's slowest request is done. */
  gint64 span = 0;
  RequestPlan plan;
  double tool_scale = rs->tool_scale * rs->squeeze;
  rs->response_tokens = 0;
  rs->turns_min = G_MAXINT;
  rs->turns_max = rs->turns_sum = 0;
  for (int i = 0; i < rs->n_requests; i++)
    {
      request_plan (&plan, rs->style, sy->seed, rs->key, rs->worker, i, rs->slow, tool_scale);
      span = MAX (span, plan.offset + plan.end);
      rs->response_tokens += plan.response_length;
      rs->turns_min = MIN (rs->turns_min, plan.n_turns);
      rs->turns_max = MAX (rs->turns_max, plan.n_turns);
      rs->turns_sum += plan.n_turns;
    }
  rs->generation_span = span + rng_int (&r, 20, 80);

  for (gsize i = 0; i < G_N_ELEMENTS (fixed_sections); i++)
    {
      const SectionTiming *st = &fixed_sections[i];
      rs->gap[st->section] = rng_int (&r, 1, 20);
      rs->duration[st->section]
        = rng_duration_us (&r, st->median, st->sigma, st->lo, st->hi);
    }
  rs->gap[SEC_BARRIER] = rng_int (&r, 1, 10);
  rs->barrier_overhead = 2000 + rng_int (&r, 0, 600); /* the collective's own cost */
  rs->stats_gap = rng_int (&r, 3, 10);
  rs->total_gap = rng_int (&r, 3, 15);
}

/* Absolute times of one rollout: every rank starts its preprocessing at `start` (plus jitter)
 * and leaves the barrier when the slowest rank arrives. Returns when its last rank ends. */
gint64
rollout_anchor (RankStep *ranks, int n_workers, gint64 start)
{
  gint64 slowest_arrival = G_MININT64, last_end = G_MININT64;
  for (int w = 0; w < n_workers; w++)
    {
      RankStep *rs = &ranks[w];
      rs->start[SEC_PREPROCESSING] = start + rs->start_jitter;
      /* Preprocessing is logged on a whole second, as in real traces; it keeps the
       * fraction-less timestamp form in every file. */
      gint64 prep_end = rs->start[SEC_PREPROCESSING] + rs->prep_duration;
      rs->end[SEC_PREPROCESSING] = (prep_end + USEC_PER_SEC - 1) / USEC_PER_SEC * USEC_PER_SEC;
      rs->start[SEC_ASYNC_GENERATE] = rs->end[SEC_PREPROCESSING];
      rs->end[SEC_ASYNC_GENERATE] = rs->end[SEC_PREPROCESSING] + rs->generation_span;
      rs->start[SEC_SORTING] = rs->end[SEC_ASYNC_GENERATE] + rs->gap[SEC_SORTING];
      rs->end[SEC_SORTING] = rs->start[SEC_SORTING] + rs->duration[SEC_SORTING];
      slowest_arrival = MAX (slowest_arrival, rs->end[SEC_SORTING]);
    }
  for (int w = 0; w < n_workers; w++)
    {
      RankStep *rs = &ranks[w];
      rs->start[SEC_BARRIER] = rs->end[SEC_SORTING] + rs->gap[SEC_BARRIER];
      rs->end[SEC_BARRIER] = MAX (slowest_arrival, rs->start[SEC_BARRIER]) + rs->barrier_overhead;
      for (Section sec = SEC_BROADCAST; sec <= SEC_FINAL_CONSTRUCTION; sec++)
        {
          rs->start[sec] = rs->end[sec - 1] + rs->gap[sec];
          rs->end[sec] = rs->start[sec] + rs->duration[sec];
        }
      rs->stats_time = rs->end[SEC_FINAL_CONSTRUCTION] + rs->stats_gap;
      rs->start[SEC_TOTAL] = rs->start[SEC_PREPROCESSING];
      rs->end[SEC_TOTAL] = rs->stats_time + rs->total_gap;
      last_end = MAX (last_end, rs->end[SEC_TOTAL]);
    }
  return last_end;
}

/* The training rollouts in order: the next step starts after a training gap following the last
 * rank's end. Validation never moves them: it is placed in those gaps afterwards. */
void
steps_anchor (Synth *sy, gint64 start_us)
{
  gint64 step_start = start_us;
  for (int si = 0; si < sy->n_steps; si++)
    {
      sy->steps[si].start = step_start;
      gint64 last_end = rollout_anchor (synth_rank (sy, si, 0), sy->n_workers, step_start);
      if (si + 1 < sy->n_steps)
        step_start = last_end + sy->steps[si + 1].training_gap_us;
    }
}

/* When the step's rollout ended on its last rank: the trainer's phases start there. */
gint64
step_rollout_end (const Synth *sy, int step_index)
{
  gint64 last = G_MININT64;
  for (int w = 0; w < sy->n_workers; w++)
    last = MAX (last, synth_rank (sy, step_index, w)->end[SEC_TOTAL]);
  return last;
}

/* Shares of the training after a rollout among the phases verl times (timing_s/reward...). */
const TrainPhase train_phases[N_TRAIN_PHASES] = {
  { "timing_s/reward", "reward_duration", 0.03 },
  { "timing_s/old_log_prob", "old_log_prob_duration", 0.12 },
  { "timing_s/ref", "ref_duration", 0.10 },
  { "timing_s/adv", "adv_duration", 0.01 },
  { "timing_s/update_actor", "update_actor_duration", 0.74 },
};

/* The phases fill the training after the step's rollout, less the validation that follows it:
 * validation runs last, so the next step starts when it is done, as without validation. */
void
training_phases_us (const Synth *sy, int step_index, gint64 durations[N_TRAIN_PHASES])
{
  const StepPlan *sp = &sy->steps[step_index];
  gint64 training = sp->training_after_us;
  if (sp->validation >= 0)
    training -= sy->vals[sp->validation].testing_us;
  for (int k = 0; k < N_TRAIN_PHASES; k++)
    durations[k] = (gint64) llround ((double) training * train_phases[k].share);
}
