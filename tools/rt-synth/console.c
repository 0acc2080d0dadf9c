/* SPDX-License-Identifier: Apache-2.0 */
/* rt-synth --console-log: the console of the trainer that drove the generated rollout, as verl
 * prints it, validation included, for rt-train. */
#include "synth.h"

#include <math.h>

/* What verl's validation reports of a multi-turn run with one greedy answer per prompt: the mean
 * reward of its data source (val-core) and the turns of its requests (val-aux). */
#define VAL_CORE_METRIC "val-core/openai/gsm8k/reward/mean@1"

static void
append_metric (GString *s, const char *name, double v)
{
  char num[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf (s, " - %s:%s", name, g_ascii_formatd (num, sizeof num, "%.6g", v));
}

typedef struct {
  double score;
  int turns_min, turns_max;
  double turns_mean;
} ValMetrics;

static ValMetrics
val_metrics (const Synth *sy, int vi)
{
  ValMetrics m = { sy->vals[vi].score, G_MAXINT, 0, 0.0 };
  gint64 sum = 0;
  for (int w = 0; w < sy->n_workers; w++)
    {
      const RankStep *rs = synth_val_rank (sy, vi, w);
      m.turns_min = MIN (m.turns_min, rs->turns_min);
      m.turns_max = MAX (m.turns_max, rs->turns_max);
      sum += rs->turns_sum;
    }
  m.turns_mean = (double) sum / ((double) sy->n_workers * sy->val_requests);
  return m;
}

static void
append_val_metrics (GString *s, const ValMetrics *m)
{
  append_metric (s, VAL_CORE_METRIC, m->score);
  append_metric (s, "val-aux/num_turns/min", m->turns_min);
  append_metric (s, "val-aux/num_turns/max", m->turns_max);
  append_metric (s, "val-aux/num_turns/mean", m->turns_mean);
}

/* verl's pprint of the metrics before and after training: a Python dict in a quoted string. */
static void
append_val_pprint (GString *s, int pid, const char *when, const ValMetrics *m)
{
  char score[G_ASCII_DTOSTR_BUF_SIZE], mean[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf (s, "(TaskRunner pid=%d) \"%s validation metrics: {'" VAL_CORE_METRIC "': %s, "
                             "'val-aux/num_turns/min': %d, 'val-aux/num_turns/max': %d, "
                             "'val-aux/num_turns/mean': %s}\"\n",
                          pid, when, g_ascii_formatd (score, sizeof score, "%.6g", m->score),
                          m->turns_min, m->turns_max,
                          g_ascii_formatd (mean, sizeof mean, "%.6g", m->turns_mean));
}

/* The console of the trainer that drove this rollout, as verl prints it: Ray-prefixed noise, a
 * tqdm bar redrawn with carriage returns, and one metric line per step. Its timing_s/gen is the
 * step's rollout (first preprocessing to last total_step end); the training after it takes the
 * gap before the next step (its own draw for the last one), split among the usual phases and,
 * after a step followed by validation, timing_s/testing with the val-core and val-aux metrics.
 * The validation before training prints its metrics alone, at the step before the first. */
gboolean
write_console_log (const Synth *sy, const char *path, GError **error)
{
  const int pid = 4242;
  g_autoptr (GString) s = g_string_new (NULL);
  g_string_append_printf (s, "(TaskRunner pid=%d) [validate_config] All configuration checks passed successfully!\n", pid);
  if (sy->n_vals > 0 && sy->vals[0].after < 0)
    {
      ValMetrics m = val_metrics (sy, 0);
      append_val_pprint (s, pid, "Initial", &m);
      g_string_append_printf (s, "(TaskRunner pid=%d) step:%d", pid, sy->vals[0].number);
      append_val_metrics (s, &m);
      g_string_append_c (s, '\n');
    }
  for (int si = 0; si < sy->n_steps; si++)
    {
      const StepPlan *sp = &sy->steps[si];
      Rng r;
      rng_seed_stream (&r, sy->seed, STREAM_TRAINER, sp->number, 0, 0);
      gint64 first = G_MAXINT64, last = G_MININT64;
      double tokens = 0;
      for (int w = 0; w < sy->n_workers; w++)
        {
          const RankStep *rs = synth_rank (sy, si, w);
          first = MIN (first, rs->start[SEC_TOTAL]);
          last = MAX (last, rs->end[SEC_TOTAL]);
          tokens += (double) rs->response_tokens;
        }
      double gen = (double) (last - first) / 1e6;
      gint64 phases[N_TRAIN_PHASES];
      training_phases_us (sy, si, phases);
      /* with validation or without, the step lasts until the next one starts */
      double step_s = gen + (double) sp->training_after_us / 1e6;
      double progress = 1.0 - exp (-3.0 * (si + 1) / sy->n_steps);

      for (int w = 0; w < MIN (sy->n_workers, 4); w++)
        g_string_append_printf (s, "\x1b[36m(WorkerDict pid=%d)\x1b[0m INFO generating batch of %d prompts "
                                   "on rank %d\n", 5000 + w, sy->n_requests, w);
      g_string_append_printf (s, "Training Progress: %3d%%|          | %d/%d [00:00<?, ?it/s]\r",
                              100 * si / sy->n_steps, si, sy->n_steps);
      g_string_append_printf (s, "(TaskRunner pid=%d) step:%d", pid, sp->number);
      append_metric (s, "timing_s/gen", gen);
      for (int k = 0; k < N_TRAIN_PHASES; k++)
        append_metric (s, train_phases[k].timing_name, (double) phases[k] / 1e6);
      if (sp->validation >= 0)
        append_metric (s, "timing_s/testing", (double) sy->vals[sp->validation].testing_us / 1e6);
      append_metric (s, "timing_s/step", step_s);
      append_metric (s, "timing_per_token_ms/gen", 1000.0 * gen / MAX (tokens, 1.0));
      append_metric (s, "timing_per_token_ms/update_actor",
                     1000.0 * ((double) phases[N_TRAIN_PHASES - 1] / 1e6) / MAX (tokens, 1.0));
      append_metric (s, "perf/throughput", tokens / step_s / sy->n_workers);
      append_metric (s, "perf/total_num_tokens", tokens);
      append_metric (s, "response_length/mean", tokens / ((double) sy->n_workers * sy->n_requests));
      append_metric (s, "critic/score/mean", 0.2 + 0.6 * progress + rng_range (&r, -0.05, 0.05));
      append_metric (s, "actor/entropy", 1.2 - 0.7 * progress + rng_range (&r, -0.03, 0.03));
      append_metric (s, "actor/pg_loss", rng_range (&r, -0.02, 0.02));
      ValMetrics m = { 0 };
      if (sp->validation >= 0)
        {
          m = val_metrics (sy, sp->validation);
          append_val_metrics (s, &m);
        }
      g_string_append_c (s, '\n');
      if (sp->validation >= 0 && si == sy->n_steps - 1)
        append_val_pprint (s, pid, "Final", &m);
    }
  g_string_append_printf (s, "Training Progress: 100%%|##########| %d/%d [done]\n", sy->n_steps, sy->n_steps);
  return g_file_set_contents (path, s->str, (gssize) s->len, error);
}
