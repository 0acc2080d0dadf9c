/* SPDX-License-Identifier: Apache-2.0 */
/* command-load.c: the experiments a command reads, loaded before it runs: each named after its
 * folder, checked against the folders the command writes, loaded through the cache, given its steps. */
#include "command-private.h"
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-views.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void
rt_experiment_free (RtExperiment *e)
{
  g_clear_pointer (&e->trace, rt_trace_free);
  g_clear_pointer (&e->steps, g_array_unref);
  g_clear_pointer (&e->rollouts, rt_rollout_map_free);
  g_clear_pointer (&e->step_set, rt_step_set_free);
  g_free (e->label);
  g_free (e);
}

GStrv
rt_experiment_labels (const char *const *names, guint n)
{
  g_autoptr (GHashTable) used = g_hash_table_new (g_str_hash, g_str_equal);
  GStrv labels = g_new0 (char *, n + 1);
  for (guint i = 0; i < n; i++)
    {
      char *label = g_strdup (names[i]);
      for (guint k = 2; g_hash_table_contains (used, label); k++)
        {
          g_free (label);
          label = g_strdup_printf ("%s#%u", names[i], k);
        }
      g_hash_table_add (used, label);   /* owned by `labels` */
      labels[i] = label;
    }
  return labels;
}

/* The experiments are the first argument (RT_COMMAND_LOADS_TRACE; none when it may be left
 * out, RtCommand.experiment_unread) or every one (RT_COMMAND_LOADS_TRACES), then the values
 * of the command's experiment option. */
static guint
n_argument_experiments (const RtSession *s)
{
  return (s->command->flags & RT_COMMAND_LOADS_TRACES) ? (guint) s->n_args : (guint) MIN (s->n_args, 1);
}

static const char *const no_experiments[] = { NULL };

static const char *const *
option_experiments (const RtSession *s)
{
  char ***option = s->command->experiment_option;
  return option != NULL && *option != NULL ? (const char *const *) *option : no_experiments;
}

static const char *
experiment_path (const RtSession *s, guint i)
{
  guint n = n_argument_experiments (s);
  return i < n ? s->args[i] : option_experiments (s)[i - n];
}

/* Each experiment is named as rt_trace_load names it, so that the labels, the plot titles and
 * the default --out are known before anything is read. */
void
rt_session_name_experiments (RtSession *s)
{
  guint n_args = n_argument_experiments (s);
  guint n = n_args + g_strv_length ((char **) option_experiments (s));
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *canonical = g_canonicalize_filename (experiment_path (s, i), NULL);
      g_ptr_array_add (names, g_path_get_basename (canonical));
    }
  g_auto (GStrv) labels = rt_experiment_labels ((const char *const *) names->pdata, n);
  s->experiments = g_ptr_array_new_with_free_func ((GDestroyNotify) rt_experiment_free);
  for (guint i = 0; i < n; i++)
    {
      RtExperiment *e = g_new0 (RtExperiment, 1);
      e->label = g_strdup (labels[i]);
      g_ptr_array_add (s->experiments, e);
    }
  /* "exp" for one experiment; "a+b" (plot titles, rt-out/a+b) for several arguments; the
   * experiments of an option accompany the subject without naming it */
  char *saved = labels[n_args];
  labels[n_args] = NULL;
  s->subject = g_strjoinv ("+", labels);
  labels[n_args] = saved;
}

/* Says on stderr how many bad lines of the selected steps (indices into t->steps) were skipped,
 * as rt-check with the same --steps counts and lists them. */
static void
report_problems (RtSession *s, const RtTrace *t, GArray *selected)
{
  if (s->quiet || (s->command->flags & RT_COMMAND_LISTS_PROBLEMS))
    return;
  g_autofree gboolean *file_selected = g_new0 (gboolean, t->files->len);
  guint64 bad = 0;
  for (guint i = 0; i < selected->len; i++)
    {
      const RtStep *st = rt_trace_step (t, g_array_index (selected, guint, i));
      for (guint k = st->first_file; k < st->first_file + st->n_files; k++)
        {
          file_selected[k] = TRUE;
          bad += rt_trace_file (t, k)->bad_lines;
        }
    }
  if (bad == 0)
    return;
  g_printerr ("%s: note: %" G_GUINT64_FORMAT " bad line%s skipped in %s",
              s->command->name, bad, bad == 1 ? "" : "s", t->path);
  if (!s->verbose)
    {
      if (s->steps_spec != NULL)
        g_printerr (" (rt-check %s --steps %s lists them)\n", t->path, s->steps_spec);
      else
        g_printerr (" (rt-check %s lists them)\n", t->path);
      return;
    }
  g_printerr (":\n");
  for (guint i = 0; i < t->problems->len; i++)
    {
      const RtProblem *p = &g_array_index (t->problems, RtProblem, i);
      if (file_selected[p->file])
        g_printerr ("  %s: %s\n", p->where, p->reason);
    }
}

/* RtTableStepMap of the first experiment's rollouts. */
static gint32
session_train_step (gconstpointer data, gint32 step)
{
  const RtSession *s = data;
  return rt_rollout_map_train_step (rt_session_experiment (s, 0)->rollouts, step, s->rollouts);
}

/* The rollouts of experiment `e` (the i-th), which of them --rollouts reads, and so its steps:
 * the folders --steps selects that hold one; its files cut to those rollouts. */
static gboolean
select_rollouts (RtSession *s, RtExperiment *e, guint i, GError **error)
{
  RtTrace *t = e->trace;
  e->rollouts = rt_rollout_map_build (t, i == 0 ? s->train : NULL, s->train_path, s->validation_steps,
                                      s->validation_steps_spec);
  g_autofree RtFilePart *parts = rt_rollout_map_file_parts (e->rollouts, t, s->rollouts);
  if (!rt_trace_keep_file_parts (t, parts))
    {
      /* a load that left out what the cut needs: again with the rows and requests, the turns
       * unsummed (from the cache the first load wrote, if any) */
      RtLoadOptions opts = *rt_trace_load_options (t);
      if (opts.reads != RT_READS_EVERYTHING)
        opts.reads |= RT_READS_ROWS | RT_READS_REQUESTS
                      | (opts.reads & RT_READS_TURN_SUMS ? RT_READS_TURNS : 0);
      opts.requests_of_one_step = NULL;
      g_autoptr (RtTrace) again = rt_trace_load (t->path, &opts, error);
      if (again == NULL)
        return FALSE;
      rt_rollout_map_free (e->rollouts);
      rt_trace_free (e->trace);
      t = e->trace = g_steal_pointer (&again);
      if (i == 0)
        s->trace = t;
      e->rollouts = rt_rollout_map_build (t, i == 0 ? s->train : NULL, s->train_path, s->validation_steps,
                                          s->validation_steps_spec);
      g_free (parts);
      parts = rt_rollout_map_file_parts (e->rollouts, t, s->rollouts);
      if (!rt_trace_keep_file_parts (t, parts))
        g_error ("rolltrace: a trace loaded with every table cannot be cut to its rollouts");
    }
  t->rollouts = e->rollouts;
  t->rollouts_read = s->rollouts;
  if (e->rollouts->disagreement != NULL && !s->quiet && !(s->command->flags & RT_COMMAND_ALL_ROLLOUTS))
    g_printerr ("%s: note: %s\n", s->command->name, e->rollouts->disagreement);
  if (e->rollouts->n_likely_validation > 0 && s->train == NULL && s->validation_steps == NULL && !s->quiet
      && s->rollouts == RT_ROLLOUTS_TRAINING && !(s->command->flags & RT_COMMAND_ALL_ROLLOUTS))
    {
      /* read as training on no evidence but their size: say so, and how to tell */
      g_autoptr (GString) folders = g_string_new (NULL);
      guint named = 0;
      for (guint r = 0; r < e->rollouts->rollouts->len; r++)
        {
          const RtRollout *ro = &g_array_index (e->rollouts->rollouts, RtRollout, r);
          if (!ro->likely_validation)
            continue;
          if (named++ < 6)
            g_string_append_printf (folders, "%sstep_%d", named > 1 ? ", " : "", ro->step);
        }
      if (named > 6)
        g_string_append_printf (folders, " and %u more", named - 6);
      g_printerr ("%s: note: %s look%s like validation (far fewer requests than the median) and %s read as "
                  "training; --train LOG or --validation-steps SPEC leaves validation out\n", s->command->name,
                  folders->str, named == 1 ? "s" : "", named == 1 ? "is" : "are");
    }
  e->step_set = rt_rollout_map_step_set (e->rollouts, s->user_steps, s->rollouts);
  e->steps = rt_trace_select_steps (t, e->step_set);
  report_problems (s, t, e->steps);
  if (e->steps->len > 0)
    return TRUE;
  g_autoptr (GArray) any = rt_trace_select_steps (t, s->user_steps);
  if (any->len == 0)
    g_set_error (error, RT_ERROR, RT_ERROR_NO_DATA, "--steps %s selects none of the steps of %s (%d to %d)",
                 s->steps_spec, t->path, rt_trace_step (t, 0)->step, rt_trace_step (t, t->steps->len - 1)->step);
  else
    g_set_error (error, RT_ERROR, RT_ERROR_NO_DATA, "no %s rollout among the %s of %s (%s); "
                 "--rollouts all reads every one%s", s->rollouts == RT_ROLLOUTS_VALIDATION ? "validation" : "training",
                 s->steps_spec != NULL ? "selected steps" : "steps", t->path, e->rollouts->source,
                 s->train == NULL && s->validation_steps == NULL
                   ? ", and --train LOG or --validation-steps SPEC tells which are validation" : "");
  return FALSE;
}

/* Calls f on each analysis the command runs with its options (RtCommand.runs). */
static guint
analyses_run (const RtSession *s, void (*f) (const RtAnalysisSpec *a, gpointer data), gpointer data)
{
  const RtCommand *cmd = s->command;
  guint n = 0;
  for (guint i = 0; cmd->analyses != NULL && cmd->analyses[i] != NULL; i++)
    if (cmd->runs == NULL || cmd->runs (s, cmd->analyses[i]))
      {
        if (f != NULL)
          f (cmd->analyses[i], data);
        n++;
      }
  return n;
}

gboolean
rt_session_reads_experiment (const RtSession *s)
{
  return s->command->analyses == NULL || analyses_run (s, NULL, NULL) > 0;
}

typedef struct {
  const RtSession *s;
  RtReads reads;
  gboolean every_step;       /* some analysis reads the requests of more than one step */
} Needs;

static void
add_needs (const RtAnalysisSpec *a, gpointer data)
{
  Needs *needs = data;
  g_assert (a->reads != RT_READS_EVERYTHING);   /* a spec says what it reads */
  needs->reads |= a->reads;
  if (a->steps == RT_STEPS_SELECTED || (a->steps == RT_STEPS_GIVEN && needs->s->step == NULL))
    needs->every_step = TRUE;
}

/* What the load keeps: the union of the needs of the analyses run (every table for a command
 * that declares none), and whether they read the requests of one step only (--step's). */
static RtReads
session_reads (const RtSession *s, gboolean *one_step)
{
  Needs needs = { s, 0, FALSE };
  *one_step = FALSE;
  if (s->command->analyses == NULL)
    return RT_READS_ALL;
  analyses_run (s, add_needs, &needs);
  /* with --steps, the turns are read step by step, not summed over every step */
  if ((needs.reads & RT_READS_TURN_SUMS) && s->steps_spec != NULL)
    needs.reads = (needs.reads & ~RT_READS_TURN_SUMS) | RT_READS_TURNS;
  /* validation rollouts appended to a step are cut out of its files' rows */
  if (s->rollouts == RT_ROLLOUTS_VALIDATION)
    needs.reads |= RT_READS_ROWS;
  *one_step = !needs.every_step && (needs.reads & (RT_READS_REQUESTS | RT_READS_TURNS));
  return needs.reads | RT_READS_FILES;
}

/* RtLoadOptions.requests_of_one_step: the step --step names (or the slowest), among those of
 * the rollouts read. */
static gboolean
requests_of_one_step (const RtTrace *t, gpointer data, guint *step_index)
{
  RtSession *s = data;
  g_autoptr (RtRolloutMap) map = rt_rollout_map_build (t, s->train, s->train_path, s->validation_steps,
                                                       s->validation_steps_spec);
  /* the files of the appended layout are cut to the rollouts read once loaded, and the step
   * chosen now (the slowest...) is one of whole files: every step's then */
  if (map->layout == RT_LAYOUT_APPENDED && s->rollouts != RT_ROLLOUTS_ALL)
    return FALSE;
  g_autoptr (RtStepSet) steps = rt_rollout_map_step_set (map, s->user_steps, s->rollouts);
  return rt_trace_resolve_step (t, steps, s->step, step_index, NULL);   /* FALSE: run says why */
}

/* One experiment being loaded, on its own thread when there are several. */
typedef struct {
  const char *path;
  RtLoadOptions opts;
  RtTrace *trace;
  GError *error;
} LoadTask;

static gpointer
load_task_run (gpointer data)
{
  LoadTask *task = data;
  task->trace = rt_trace_load (task->path, &task->opts, &task->error);
  return NULL;
}

/* Several experiments load at once, one thread each, the loader's own threads for
 * the files shared out between them: a cached load, the cache writing and the
 * reading of small experiments keep one core busy, so two of them overlap. The
 * progress lines of several loads would overwrite each other: none then. */
static void
load_all (LoadTask *tasks, guint n)
{
  guint cores = g_get_num_processors ();
  g_autoptr (GPtrArray) threads = g_ptr_array_new ();
  for (guint i = 0; i < n; i++)
    if (n > 1)
      {
        tasks[i].opts.n_threads = MAX (1u, cores / n);
        tasks[i].opts.progress = FALSE;
      }
  /* (one that cannot have its thread, under a limit on processes, loads here) */
  for (guint i = 1; i < n; i++)
    {
      GThread *thread = g_thread_try_new ("rt-load", load_task_run, &tasks[i], NULL);
      if (thread != NULL)
        g_ptr_array_add (threads, thread);
      else
        load_task_run (&tasks[i]);
    }
  load_task_run (&tasks[0]);
  for (guint i = 0; i < threads->len; i++)
    g_thread_join (g_ptr_array_index (threads, i));
}

gboolean
rt_session_load_experiments (RtSession *s, GError **error)
{
  guint n = s->experiments->len;
  g_autofree char *cache_dir = s->no_cache ? NULL
                               : s->cache_dir ? g_strdup (s->cache_dir) : rt_cache_default_dir ();
  /* refused before anything is read or written */
  for (guint i = 0; i < n; i++)
    if (!rt_check_outside_experiment (experiment_path (s, i), "--cache-dir", cache_dir, error)
        || ((s->command->flags & RT_COMMAND_WRITES_PLOTS)
            && !rt_check_outside_experiment (experiment_path (s, i), "--out", s->out_dir, error)))
      return FALSE;

  /* loaded again (rt_session_reload): the old tables go, their cache kept for the new load (its
   * checks are not done again: half of a --watch round at 100M lines) */
  s->trace = NULL;
  g_autofree struct _RtCacheMap **kept = g_new0 (struct _RtCacheMap *, n + 1);
  for (guint i = 0; i < n; i++)
    {
      RtExperiment *e = g_ptr_array_index (s->experiments, i);
      kept[i] = e->trace != NULL ? rt_trace_take_cache (e->trace) : NULL;
      g_clear_pointer (&e->trace, rt_trace_free);
      g_clear_pointer (&e->steps, g_array_unref);
      g_clear_pointer (&e->rollouts, rt_rollout_map_free);
      g_clear_pointer (&e->step_set, rt_step_set_free);
    }
  g_clear_pointer (&s->train, rt_train_log_free);
  if (s->train_path != NULL && (s->train = rt_train_log_read (s->train_path, error)) == NULL)
    {
      for (guint i = 0; i < n; i++)
        rt_trace_kept_cache_free (kept[i]);
      return FALSE;
    }
  if (s->train != NULL && s->train->steps->len == 0 && !s->quiet)
    g_printerr ("%s: note: %s has no 'step:N - name:value' line\n", s->command->name, s->train_path);
  if (s->train != NULL && !s->quiet)
    {
      /* a log copied from a terminal: what was joined, and where a break cut a metric */
      g_autofree char *joins = rt_train_log_describe_joins (s->train);
      if (joins != NULL)
        g_printerr ("%s: note: %s: %s\n", s->command->name, s->train_path, joins);
    }

  gboolean one_step;
  RtReads reads = session_reads (s, &one_step);
  g_autofree LoadTask *tasks = g_new0 (LoadTask, n);
  for (guint i = 0; i < n; i++)
    {
      tasks[i].path = experiment_path (s, i);
      tasks[i].opts = (RtLoadOptions) {
        .max_problems_per_file = 1000,
        .progress = !s->quiet && isatty (STDERR_FILENO),
        .cache_dir = cache_dir,
        .reads = reads,
        .kept_cache = g_steal_pointer (&kept[i]),
      };
      if (one_step && n == 1)
        {
          tasks[i].opts.requests_of_one_step = requests_of_one_step;
          tasks[i].opts.requests_of_one_step_data = s;
        }
    }
  load_all (tasks, n);
  for (guint i = 0; i < n; i++)
    ((RtExperiment *) g_ptr_array_index (s->experiments, i))->trace = g_steal_pointer (&tasks[i].trace);
  s->trace = rt_session_experiment (s, 0)->trace;

  /* the first failure in the order given is the one told */
  gboolean ok = TRUE;
  for (guint i = 0; i < n; i++)
    {
      if (ok && tasks[i].error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&tasks[i].error));
          ok = FALSE;
        }
      g_clear_error (&tasks[i].error);
    }
  for (guint i = 0; ok && i < n; i++)
    {
      RtExperiment *e = g_ptr_array_index (s->experiments, i);
      if (!select_rollouts (s, e, i, error))
        ok = FALSE;
    }
  if (ok)
    {
      rt_step_set_free (s->steps);
      s->steps = rt_step_set_copy (rt_session_experiment (s, 0)->step_set);
    }
  /* the tables of one experiment name the trainer's step beside the folder's */
  gboolean one = !(s->command->flags & RT_COMMAND_LOADS_TRACES);
  if (ok && one && rt_session_experiment (s, 0)->rollouts->train_steps_known)
    rt_table_map_steps (session_train_step, s);
  else
    rt_table_map_steps (NULL, NULL);
  return ok;
}

gboolean
rt_session_reload (RtSession *s, GError **error)
{
  return rt_session_load_experiments (s, error);
}

gboolean
rt_session_step_selected (RtSession *s, gint32 step)
{
  return rt_step_set_contains (s->steps, step);
}

GArray *
rt_session_selected_steps (RtSession *s)
{
  return rt_trace_select_steps (s->trace, s->steps);
}

gboolean
rt_session_resolve_step (RtSession *s, guint *step_index, GError **error)
{
  return rt_trace_resolve_step (s->trace, s->steps, s->step, step_index, error);
}

gboolean
rt_trace_resolve_step (const RtTrace *t, const RtStepSet *steps, const char *value, guint *step_index,
                       GError **error)
{
  if (value == NULL || strcmp (value, "slowest") == 0)
    {
      int slowest = rt_view_slowest_step (t, steps);
      if (slowest < 0)
        {
          g_set_error (error, RT_ERROR, RT_ERROR_NO_DATA,
                       "no selected step has a total_step_duration line; choose one with --step N");
          return FALSE;
        }
      *step_index = (guint) slowest;
      return TRUE;
    }
  gint64 step;
  if (!rt_parse_int_option ("--step", value, 0, G_MAXINT32, &step, error))
    return FALSE;
  int i = rt_trace_find_step (t, (gint32) step);
  if (i < 0)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_NO_DATA, "--step %s: %s has no step_%s (steps %d to %d)",
                   value, t->path, value, rt_trace_step (t, 0)->step,
                   rt_trace_step (t, t->steps->len - 1)->step);
      return FALSE;
    }
  if (steps != NULL && !rt_step_set_contains (steps, (gint32) step))
    {
      /* left out for its rollouts' kind (a validation folder), or by --steps */
      g_autoptr (RtStepSet) kind = t->rollouts != NULL
        ? rt_rollout_map_step_set (t->rollouts, NULL, (RtRolloutSelect) t->rollouts_read) : NULL;
      if (kind != NULL && !rt_step_set_contains (kind, (gint32) step))
        g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "--step %s: step_%s holds no %s rollout (%s); "
                     "--rollouts %s or all reads it", value, value,
                     t->rollouts_read == RT_ROLLOUTS_VALIDATION ? "validation" : "training", t->rollouts->source,
                     t->rollouts_read == RT_ROLLOUTS_VALIDATION ? "training" : "validation");
      else
        g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "--step %s is not among the steps --steps selects: "
                     "give one of them, or drop --steps", value);
      return FALSE;
    }
  *step_index = (guint) i;
  return TRUE;
}



/* The real path `path` names, after every link, even when its last components do
 * not exist yet: the longest existing prefix is resolved, the rest (which cannot
 * hold links) is normalised onto it. */
static char *
real_path_of (const char *path)
{
  char *real = realpath (path, NULL);
  if (real != NULL)
    {
      char *copy = g_strdup (real);
      free (real);
      return copy;
    }
  g_autofree char *parent = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  if (strcmp (parent, path) == 0)
    return g_canonicalize_filename (path, NULL);
  g_autofree char *real_parent = real_path_of (parent);
  return g_canonicalize_filename (base, real_parent);
}

/* Refuses a folder a command would write into that lies inside the experiment,
 * comparing real paths, so that no link (to the folder or to the experiment) hides it. */
gboolean
rt_check_outside_experiment (const char *exp_path, const char *option, const char *dir, GError **error)
{
  if (dir == NULL)
    return TRUE;
  g_autofree char *out = real_path_of (dir);
  g_autofree char *exp = real_path_of (exp_path);
  gsize n = strlen (exp);
  if (strncmp (out, exp, n) == 0 && (out[n] == '\0' || out[n] == G_DIR_SEPARATOR || n == 1))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE,
                   "%s %s is inside the experiment folder %s (%s); rolltrace never writes there",
                   option, dir, exp_path, out);
      return FALSE;
    }
  return TRUE;
}
