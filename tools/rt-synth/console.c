/* rt-synth --console-log: the console of the trainer that drove the generated rollout, as verl
 * prints it, for rt-train. */
#include "synth.h"

#include <math.h>

static void
append_metric (GString *s, const char *name, double v)
{
  char num[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf (s, " - %s:%s", name, g_ascii_formatd (num, sizeof num, "%.6g", v));
}

/* The console of the trainer that drove this rollout, as verl prints it: Ray-prefixed noise, a
 * tqdm bar redrawn with carriage returns, and one metric line per step. Its timing_s/gen is the
 * step's rollout (first preprocessing to last total_step end); the training after it takes the
 * gap before the next step (its own draw for the last one), split among the usual phases. */
gboolean
write_console_log (const Synth *sy, const char *path, GError **error)
{
  static const struct {
    const char *name;
    double share;
  } phases[] = { { "timing_s/reward", 0.03 }, { "timing_s/old_log_prob", 0.12 },
                 { "timing_s/ref", 0.10 }, { "timing_s/adv", 0.01 }, { "timing_s/update_actor", 0.74 } };
  const int pid = 4242;
  g_autoptr (GString) s = g_string_new (NULL);
  g_string_append_printf (s, "(TaskRunner pid=%d) [validate_config] All configuration checks passed successfully!\n", pid);
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
      double training = si + 1 < sy->n_steps ? (double) sy->steps[si + 1].training_gap_us / 1e6
                                             : rng_range (&r, 30.0, 120.0);
      double step_s = gen;
      for (gsize k = 0; k < G_N_ELEMENTS (phases); k++)
        step_s += training * phases[k].share;
      double progress = 1.0 - exp (-3.0 * (si + 1) / sy->n_steps);

      for (int w = 0; w < MIN (sy->n_workers, 4); w++)
        g_string_append_printf (s, "\x1b[36m(WorkerDict pid=%d)\x1b[0m INFO generating batch of %d prompts "
                                   "on rank %d\n", 5000 + w, sy->n_requests, w);
      g_string_append_printf (s, "Training Progress: %3d%%|          | %d/%d [00:00<?, ?it/s]\r",
                              100 * si / sy->n_steps, si, sy->n_steps);
      g_string_append_printf (s, "(TaskRunner pid=%d) step:%d", pid, sp->number);
      append_metric (s, "timing_s/gen", gen);
      for (gsize k = 0; k < G_N_ELEMENTS (phases); k++)
        append_metric (s, phases[k].name, training * phases[k].share);
      append_metric (s, "timing_s/step", step_s);
      append_metric (s, "timing_per_token_ms/gen", 1000.0 * gen / MAX (tokens, 1.0));
      append_metric (s, "timing_per_token_ms/update_actor", 1000.0 * training * 0.74 / MAX (tokens, 1.0));
      append_metric (s, "perf/throughput", tokens / step_s / sy->n_workers);
      append_metric (s, "perf/total_num_tokens", tokens);
      append_metric (s, "response_length/mean", tokens / ((double) sy->n_workers * sy->n_requests));
      append_metric (s, "critic/score/mean", 0.2 + 0.6 * progress + rng_range (&r, -0.05, 0.05));
      append_metric (s, "actor/entropy", 1.2 - 0.7 * progress + rng_range (&r, -0.03, 0.03));
      append_metric (s, "actor/pg_loss", rng_range (&r, -0.02, 0.02));
      g_string_append_c (s, '\n');
    }
  g_string_append_printf (s, "Training Progress: 100%%|##########| %d/%d [done]\n", sy->n_steps, sy->n_steps);
  return g_file_set_contents (path, s->str, (gssize) s->len, error);
}
