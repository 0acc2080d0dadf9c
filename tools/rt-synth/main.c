/* SPDX-License-Identifier: Apache-2.0 */
/* rt-synth: writes a synthetic but realistic rollout-trace experiment (step_K/worker_M.jsonl) for
 * the suite's tests and benchmarks. This file is the command: options, threads, the summary. */
#include "synth.h"

#include <glib/gstdio.h>

#include <errno.h>
#include <locale.h>

G_DEFINE_QUARK (rt-synth-error-quark, rt_synth_error)

#define UNSET G_MININT /* --test-freq and --val-requests not given */
#define DEFAULT_TEST_FREQ 5

typedef struct {
  gint steps, workers, requests, first_step, threads;
  gint64 seed;
  gchar *schema_name;
  gchar *start;
  gchar *console_log;
  gboolean faults, quiet;
  gdouble tool_scale;
  gchar *validation;
  gboolean val_before_train, no_val_before_train;
  gint test_freq, val_requests; /* UNSET when not given */
  gchar **rest;
} SynthOptions;

/* "cannot <do> <path>: <reason>", the one form of rt-synth's I/O errors; always FALSE. */
gboolean
synth_io_error (GError **error, int saved_errno, const char *what, const char *path)
{
  g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_IO, "%s %s: %s", what, path,
               g_strerror (saved_errno));
  return FALSE;
}

/* Called from the writing threads: the first error wins, the rest of the work is skipped. */
void
synth_fail (Synth *sy, GError *error)
{
  g_mutex_lock (&sy->lock);
  if (sy->error == NULL)
    sy->error = error;
  else
    g_error_free (error);
  g_mutex_unlock (&sy->lock);
  g_atomic_int_set (&sy->failed, 1);
}

/* OUT must be new or an empty folder: never mix a synthetic run into existing files. */
static gboolean
output_dir_prepare (const char *out, GError **error)
{
  if (g_file_test (out, G_FILE_TEST_EXISTS))
    {
      if (!g_file_test (out, G_FILE_TEST_IS_DIR))
        {
          g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_USAGE,
                       "%s exists and is not a directory", out);
          return FALSE;
        }
      g_autoptr (GError) dir_error = NULL;
      g_autoptr (GDir) dir = g_dir_open (out, 0, &dir_error);
      if (dir == NULL)
        {
          g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_IO, "cannot read %s: %s", out,
                       dir_error->message);
          return FALSE;
        }
      if (g_dir_read_name (dir) != NULL)
        {
          g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_USAGE,
                       "%s exists and is not empty; give a new or empty directory", out);
          return FALSE;
        }
      return TRUE;
    }
  if (g_mkdir_with_parents (out, 0755) != 0)
    return synth_io_error (error, errno, "cannot create", out);
  return TRUE;
}

static gboolean
make_subdir (const char *out, const char *name, GError **error)
{
  g_autofree char *path = g_build_filename (out, name, NULL);
  if (g_mkdir (path, 0755) != 0 && errno != EEXIST)
    return synth_io_error (error, errno, "cannot create", path);
  return TRUE;
}

/* --start: a naive wall-clock time like the traces' own timestamps. */
static gboolean
parse_start (const char *text, gint64 *us, GError **error)
{
  g_autoptr (GTimeZone) utc = g_time_zone_new_utc ();
  g_autoptr (GDateTime) dt = g_date_time_new_from_iso8601 (text, utc);
  if (dt == NULL)
    {
      g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_USAGE,
                   "--start: cannot read '%s' as YYYY-MM-DDTHH:MM:SS[.ffffff]", text);
      return FALSE;
    }
  *us = g_date_time_to_unix (dt) * USEC_PER_SEC + g_date_time_get_microsecond (dt);
  return TRUE;
}

static gboolean
usage_error (GError **error, const char *message)
{
  g_set_error_literal (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_USAGE, message);
  return FALSE;
}

/* --validation and the options that only it gives a meaning to. */
static gboolean
validation_options_check (const SynthOptions *o, ValidationLayout *layout, GError **error)
{
  const char *v = o->validation != NULL ? o->validation : "none";
  if (g_str_equal (v, "none"))
    *layout = VALIDATION_NONE;
  else if (g_str_equal (v, "folders"))
    *layout = VALIDATION_FOLDERS;
  else if (g_str_equal (v, "append"))
    *layout = VALIDATION_APPEND;
  else
    {
      g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_USAGE,
                   "--validation must be none, folders or append, not '%s'", v);
      return FALSE;
    }
  if (o->val_before_train && o->no_val_before_train)
    return usage_error (error, "give --val-before-train or --no-val-before-train, not both");
  if (*layout == VALIDATION_NONE
      && (o->val_before_train || o->no_val_before_train || o->test_freq != UNSET
          || o->val_requests != UNSET))
    return usage_error (error, "--val-before-train, --no-val-before-train, --test-freq and "
                               "--val-requests need --validation folders or append");
  if (o->test_freq != UNSET && (o->test_freq < -1 || o->test_freq > MAX_STEPS))
    {
      g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_USAGE,
                   "--test-freq must be between -1 and %d", MAX_STEPS);
      return FALSE;
    }
  if (o->val_requests != UNSET && (o->val_requests < 1 || o->val_requests > MAX_REQUESTS))
    {
      g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_USAGE,
                   "--val-requests must be between 1 and %d", MAX_REQUESTS);
      return FALSE;
    }
  if (*layout == VALIDATION_APPEND && g_strcmp0 (o->schema_name, generation_v2.name) != 0)
    return usage_error (error, "--validation append is the layout of the 2026 logger, which "
                               "writes the newer schema: give --schema v2");
  /* the trainer logs it at the step before the first (step_K-1 in the appended layout) */
  if (*layout != VALIDATION_NONE && !o->no_val_before_train && o->first_step < 1)
    return usage_error (error, "the validation before training is step K-1: --first-step must be "
                               "1 or more, or give --no-val-before-train");
  return TRUE;
}

static gboolean
options_check (const SynthOptions *o, const Generation **gen, GError **error)
{
  const struct {
    const char *name;
    gint value, lo, hi;
  } ranges[] = {
    { "--steps", o->steps, 1, MAX_STEPS },
    { "--workers", o->workers, 1, MAX_WORKERS },
    { "--requests", o->requests, 1, MAX_REQUESTS },
    /* with validation in folders of its own, up to 2 S + 1 folders from K */
    { "--first-step", o->first_step, 0, G_MAXINT - 2 * MAX_STEPS - 1 },
    { "--threads", o->threads, 0, 1024 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (ranges); i++)
    if (ranges[i].value < ranges[i].lo || ranges[i].value > ranges[i].hi)
      {
        g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_USAGE, "%s must be between %d and %d",
                     ranges[i].name, ranges[i].lo, ranges[i].hi);
        return FALSE;
      }
  if (!(o->tool_scale >= 0.01 && o->tool_scale <= 100))
    {
      g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_USAGE, "--tool-scale must be between 0.01 and 100");
      return FALSE;
    }
  if (g_strcmp0 (o->schema_name, generation_v1.name) == 0)
    *gen = &generation_v1;
  else if (g_strcmp0 (o->schema_name, generation_v2.name) == 0)
    *gen = &generation_v2;
  else
    {
      g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_USAGE, "--schema must be v1 or v2, not '%s'",
                   o->schema_name);
      return FALSE;
    }
  if (o->rest == NULL || g_strv_length (o->rest) != 1)
    {
      g_set_error_literal (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_USAGE,
                           "give exactly one output directory OUT");
      return FALSE;
    }
  return TRUE;
}

/* Runs `func` over the n RankSteps of `items` on a pool of threads and waits for all of them. */
gboolean
synth_parallel (Synth *sy, RankStep *items, int n, GFunc func, int threads, GError **error)
{
  if (n == 0)
    return TRUE;
  GThreadPool *pool = g_thread_pool_new (func, sy, MAX (1, MIN (threads, n)), FALSE, error);
  if (pool == NULL)
    return FALSE;
  for (int i = 0; i < n; i++)
    if (!g_thread_pool_push (pool, &items[i], error))
      {
        g_thread_pool_free (pool, TRUE, TRUE);
        return FALSE;
      }
  g_thread_pool_free (pool, FALSE, TRUE);
  return TRUE;
}

static int
exit_status_for (const GError *error)
{
  return g_error_matches (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_USAGE) ? 2 : 1;
}

static int
fail (GError *error)
{
  int status = exit_status_for (error);
  g_printerr ("rt-synth: %s\n", error->message);
  if (status == 2)
    g_printerr ("Try 'rt-synth --help'.\n");
  g_error_free (error);
  return status;
}

static const char synth_description[] =
  "OUT must not exist or be an empty directory. R is per worker: every step holds W x R\n"
  "requests, and a worker's R requests run concurrently, so their lines interleave.\n"
  "\n"
  "Each request has 1-8 turns (geometric), heavy-tailed engine times growing with the turn,\n"
  "tool calls between turns and a few LENGTH finishes at 4096 tokens; one rank per step is a\n"
  "straggler and the others wait for it at the barrier; steps are 30-120 s of training apart.\n"
  "The same arguments give the same bytes, whatever the number of threads.\n"
  "\n"
  "--faults damages the trace as real runs do (docs/input.md), a few lines in all: a truncated\n"
  "last line in the newest step, an empty line, a Python traceback, the non-object lines [1, 2]\n"
  "and 42, NaN and Infinity literals in step_response_length_stats (v2), a worker file missing from\n"
  "one step, an empty worker file with its content in a .bak and a notes.txt beside it, and a\n"
  "plots/ folder holding a jsonl copy. The summary on stderr says where each one went. Only\n"
  "training rollouts are damaged.\n"
  "\n"
  "--validation adds the validation rollouts verl runs: one before training (verl's default;\n"
  "--no-val-before-train leaves it out), and one after every training step whose number is a\n"
  "multiple of F (--test-freq) and after the last step, as verl's trainer does (not after a\n"
  "last step that --faults killed). A validation has --val-requests requests per worker and\n"
  "answers greedily: shorter answers, fewer tool calls, a quarter of the preprocessing. It\n"
  "draws from random streams of its own, so the training rollouts are the same, line for line\n"
  "and to the microsecond, as without --validation: only their folder and \"step\" change (and\n"
  "with append, workid becomes worker). It runs in the training gap after its step and ends\n"
  "1-3 s before the next step starts; one longer than half that gap is run faster until it\n"
  "fits. The validation before training ends 1-3 s before --start.\n"
  "\n"
  "--validation folders: the logger counts rollout calls from --first-step K, validation\n"
  "included. step_K is the validation before training and training step k is in a later\n"
  "folder (K=1, F=5: step_1 validation, step_2..step_6 training steps 1-5, step_7\n"
  "validation, step_8 training step 6...).\n"
  "\n"
  "--validation append: the 2026 logger. step_N is training step N, the validation before\n"
  "training is step_(K-1), and a later validation is appended to step_N's worker files after\n"
  "the step's rollout (a second set of step sections, a second total_step_duration). Every\n"
  "line carries \"step\" (its folder) and \"worker\" right after the timestamp, without workid;\n"
  "step_N/worker_-1.jsonl holds the trainer's sections after the step's rollout\n"
  "(reward_duration, old_log_prob_duration, ref_duration, adv_duration,\n"
  "update_actor_duration), without extra.\n"
  "\n"
  "Training steps are numbered from K in the console log whatever the layout. There the\n"
  "validation before training is a line step:K-1 of val-core/val-aux metrics alone, and the\n"
  "line of a step followed by validation adds timing_s/testing and those metrics; its training\n"
  "phases leave the validation its time, so timing_s/step is the same as without it.\n"
  "\n"
  "Exit status: 0 success, 1 I/O error, 2 usage error (including an OUT that is not empty).\n"
  "\n"
  "Examples:\n"
  "  rt-synth /tmp/exp --steps 10 --workers 8 --requests 300 --seed 7 --faults\n"
  "  rt-synth /tmp/val --steps 12 --validation folders --test-freq 5 --console-log /tmp/val.log\n";

#ifndef RT_VERSION
#define RT_VERSION "0.0"
#endif
#define SYNTH_SUMMARY_LINE "Write a synthetic rollout-trace experiment OUT/step_K/worker_M.jsonl"

int
main (int argc, char **argv)
{
  gboolean show_version = FALSE, show_summary_line = FALSE;
  SynthOptions o = { .steps = 3, .workers = 4, .requests = 12, .first_step = 1, .seed = 1, .tool_scale = 1.0,
                     .test_freq = UNSET, .val_requests = UNSET };
  g_autofree char *start_default = g_strdup ("2025-06-10T09:00:00");
  GOptionEntry entries[] = {
    { "steps", 0, 0, G_OPTION_ARG_INT, &o.steps, "Training steps, folders step_K (default 3)", "S" },
    { "workers", 0, 0, G_OPTION_ARG_INT, &o.workers,
      "Rollout ranks, files worker_M.jsonl in every step (default 4)", "W" },
    { "requests", 0, 0, G_OPTION_ARG_INT, &o.requests,
      "Requests per step PER WORKER (default 12)", "R" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &o.seed, "Seed all randomness derives from (default 1)", "N" },
    { "schema", 0, 0, G_OPTION_ARG_STRING, &o.schema_name,
      "Logger generation: v2 newer, canonical names (default); v1 older names", "v1|v2" },
    { "faults", 0, 0, G_OPTION_ARG_NONE, &o.faults, "Damage the trace as real runs do (see below)", NULL },
    { "first-step", 0, 0, G_OPTION_ARG_INT, &o.first_step, "Number of the first step folder, and of the first training step in the console log (default 1)", "K" },
    { "start", 0, 0, G_OPTION_ARG_STRING, &o.start,
      "Wall-clock start of the first training step (default 2025-06-10T09:00:00)", "TIME" },
    { "threads", 0, 0, G_OPTION_ARG_INT, &o.threads,
      "Files generated in parallel (default: one per processor)", "N" },
    { "console-log", 0, 0, G_OPTION_ARG_FILENAME, &o.console_log,
      "Also write the trainer's console log of this run (for rt-train, --train)", "FILE" },
    { "tool-scale", 0, 0, G_OPTION_ARG_DOUBLE, &o.tool_scale,
      "Multiply every tool execution time by F: a slower (F > 1) or faster tool server (default 1)", "F" },
    { "validation", 0, 0, G_OPTION_ARG_STRING, &o.validation,
      "Validation rollouts, laid out as a folder per rollout call or appended to the step's "
      "files by the 2026 logger (default none; see below)", "none|folders|append" },
    { "val-before-train", 0, 0, G_OPTION_ARG_NONE, &o.val_before_train,
      "With --validation: validate before training, as verl does by default (the default)", NULL },
    { "no-val-before-train", 0, 0, G_OPTION_ARG_NONE, &o.no_val_before_train,
      "With --validation: no validation before training (verl's val_before_train=False)", NULL },
    { "test-freq", 0, 0, G_OPTION_ARG_INT, &o.test_freq,
      "With --validation: validate after every F-th training step and the last (verl's test_freq; "
      "default 5; 0 or -1: never during training)", "F" },
    { "val-requests", 0, 0, G_OPTION_ARG_INT, &o.val_requests,
      "With --validation: requests per validation PER WORKER (default a quarter of --requests, at least 1)", "R" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &o.quiet, "No summary line on stderr", NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &show_version, "Print the version and exit", NULL },
    { "summary-line", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &show_summary_line,
      "Print what the command does in one line and exit", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.rest, NULL, "OUT" },
    G_OPTION_ENTRY_NULL
  };
  /* Only the character set, so that messages with non-ASCII quotes print; numbers are written
   * with our own code and g_ascii_formatd, and LC_NUMERIC stays "C" anyway. */
  setlocale (LC_CTYPE, "");
  g_autoptr (GOptionContext) context = g_option_context_new (NULL); /* OUT comes from the G_OPTION_REMAINING entry */
  g_option_context_set_summary (context,
                                SYNTH_SUMMARY_LINE ": realistic, deterministic per seed, optionally damaged.");
  g_option_context_set_description (context, synth_description);
  g_option_context_add_main_entries (context, entries, NULL);

  GError *error = NULL;
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      error->domain = RT_SYNTH_ERROR;
      error->code = RT_SYNTH_ERROR_USAGE;
      return fail (error);
    }
  g_autofree char *schema_name = o.schema_name != NULL ? o.schema_name : g_strdup ("v2");
  g_autofree char *start_text = o.start != NULL ? o.start : g_steal_pointer (&start_default);
  g_auto (GStrv) rest = o.rest;
  g_autofree char *console_log = o.console_log;
  g_autofree char *validation = o.validation;
  o.schema_name = schema_name;
  o.start = start_text;
  if (show_version || show_summary_line)
    {
      /* the same version and one-line summary as the analyzers give (rolltrace help, man) */
      g_print ("%s\n", show_version ? "rt-synth (rolltrace) " RT_VERSION : SYNTH_SUMMARY_LINE);
      return 0;
    }

  const Generation *gen;
  ValidationLayout layout;
  gint64 start_us;
  if (!options_check (&o, &gen, &error) || !validation_options_check (&o, &layout, &error)
      || !parse_start (o.start, &start_us, &error))
    return fail (error);
  const char *out = rest[0];
  if (!output_dir_prepare (out, &error))
    return fail (error);

  gint64 t0 = g_get_monotonic_time ();
  Synth sy = {
    .out_dir = out,
    .gen = gen,
    .seed = (guint64) o.seed,
    .n_steps = o.steps,
    .n_workers = o.workers,
    .n_requests = o.requests,
    .tool_scale = o.tool_scale,
    .faults = o.faults,
    .validation = layout,
    .val_before_train = !o.no_val_before_train,
    .test_freq = o.test_freq != UNSET ? o.test_freq : DEFAULT_TEST_FREQ,
    .val_requests = o.val_requests != UNSET ? o.val_requests : MAX (1, o.requests / 4),
    .fault_notes = g_ptr_array_new_with_free_func (g_free),
  };
  g_mutex_init (&sy.lock);
  int threads = o.threads > 0 ? o.threads : (int) g_get_num_processors ();

  sy.ranks = g_new0 (RankStep, (gsize) sy.n_steps * sy.n_workers);
  steps_plan (&sy, o.first_step);
  validations_plan (&sy, o.first_step);

  g_autofree char *notes_path = NULL, *notes_text = NULL;
  if (o.faults)
    damage_plan (&sy, &notes_path, &notes_text);

  int n_ranks = sy.n_steps * sy.n_workers, n_val_ranks = sy.n_vals * sy.n_workers;
  gboolean ok = synth_parallel (&sy, sy.ranks, n_ranks, rank_step_plan, threads, &error);
  if (ok)
    steps_anchor (&sy, start_us);
  if (ok)
    ok = validations_place (&sy, threads, &error);
  for (int si = 0; ok && si < sy.n_steps; si++)
    {
      g_autofree char *name = g_strdup_printf ("step_%d", sy.steps[si].folder);
      ok = make_subdir (out, name, &error);
    }
  for (int vi = 0; ok && vi < sy.n_vals; vi++)
    if (sy.vals[vi].own_folder)
      {
        g_autofree char *name = g_strdup_printf ("step_%d", sy.vals[vi].folder);
        ok = make_subdir (out, name, &error);
      }
  if (ok && o.faults)
    ok = make_subdir (out, "plots", &error);
  if (ok && notes_path != NULL)
    {
      g_autofree char *path = g_build_filename (out, notes_path, NULL);
      ok = g_file_set_contents (path, notes_text, -1, &error);
    }
  if (ok)
    ok = synth_parallel (&sy, sy.ranks, n_ranks, rank_step_write, threads, &error);
  if (ok)
    ok = synth_parallel (&sy, sy.val_ranks, n_val_ranks, val_rank_write, threads, &error);
  if (ok && sy.validation == VALIDATION_APPEND && sy.error == NULL)
    ok = trainer_files_write (&sy, &error);
  if (ok && o.console_log != NULL)
    ok = write_console_log (&sy, o.console_log, &error);
  if (ok && sy.error != NULL)
    {
      error = g_steal_pointer (&sy.error);
      ok = FALSE;
    }

  int status = 0;
  if (!ok)
    {
      /* GLib's own errors (a file, a thread) are all I/O trouble here. */
      if (error->domain != RT_SYNTH_ERROR)
        {
          error->domain = RT_SYNTH_ERROR;
          error->code = RT_SYNTH_ERROR_IO;
        }
      status = fail (error);
    }
  else if (!o.quiet)
    {
      double seconds = (double) (g_get_monotonic_time () - t0) / 1e6;
      g_autoptr (GString) faults = g_string_new (NULL);
      if (o.faults)
        {
          append_lit (faults, "; faults: ");
          for (guint i = 0; i < sy.fault_notes->len; i++)
            {
              if (i > 0)
                append_lit (faults, ", ");
              g_string_append (faults, g_ptr_array_index (sy.fault_notes, i));
            }
        }
      g_autoptr (GString) validation_note = g_string_new (NULL);
      if (sy.validation != VALIDATION_NONE)
        {
          g_string_append_printf (validation_note, " + %d validations x %d requests (%s: step",
                                  sy.n_vals, sy.val_requests, o.validation);
          for (int vi = 0; vi < sy.n_vals; vi++)
            g_string_append_printf (validation_note, "%s%d", vi > 0 ? ", " : " ", sy.vals[vi].folder);
          g_string_append_c (validation_note, ')');
        }
      g_printerr ("rt-synth: wrote %s: %d steps x %d workers x %d requests%s, schema %s, "
                  "%" G_GUINT64_FORMAT " files, %" G_GUINT64_FORMAT " lines, %.1f MB in %.2f s "
                  "(%.0f lines/s)%s\n",
                  out, sy.n_steps, sy.n_workers, sy.n_requests, validation_note->str, o.schema_name,
                  sy.files, sy.lines, (double) sy.bytes / 1e6, seconds,
                  seconds > 0 ? (double) sy.lines / seconds : 0.0, faults->str);
    }

  damage_free (&sy);
  g_ptr_array_unref (sy.fault_notes);
  g_free (sy.ranks);
  g_free (sy.steps);
  g_free (sy.val_ranks);
  g_free (sy.vals);
  g_mutex_clear (&sy.lock);
  return status;
}
