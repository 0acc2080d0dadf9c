/* SPDX-License-Identifier: Apache-2.0 */
/* command.c: the run of every command: its options and --help, the order of the steps
 * (load, run, JSON, plots) and the exit status. Analyzers hand over a table (RtCommand). */
#include "command-private.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-text.h"
#include "rolltrace/rt-json.h"
#include "rolltrace/rt-outfile.h"

#include <stdio.h>
#include <math.h>
#include <string.h>

#ifndef RT_VERSION
#define RT_VERSION "0.0"
#endif

static gboolean show_version;
static gboolean show_summary_line;

static void
session_clear (RtSession *s)
{
  g_free (s->out_dir);
  g_free (s->steps_spec);
  g_free (s->step);
  g_free (s->format);
  g_free (s->cache_dir);
  g_free (s->subject);
  g_clear_pointer (&s->steps, rt_step_set_free);
  g_clear_pointer (&s->user_steps, rt_step_set_free);
  g_clear_pointer (&s->validation_steps, rt_step_set_free);
  g_clear_pointer (&s->train, rt_train_log_free);
  g_free (s->train_path);
  g_free (s->validation_steps_spec);
  g_free (s->rollouts_spec);
  /* the experiments own their traces; `trace` is the first one's */
  if (s->experiments != NULL)
    s->trace = NULL;
  g_clear_pointer (&s->trace, rt_trace_free);
  g_clear_pointer (&s->experiments, g_ptr_array_unref);
  g_clear_pointer (&s->scripts, g_ptr_array_unref);
  if (s->json_doc)
    g_string_free (s->json_doc, TRUE);
  g_strfreev (s->args);
}

/* The common options, pointing into the session; those a command does not use are left out. */
static GArray *
build_entries (RtSession *s, const RtCommand *cmd)
{
  GArray *entries = g_array_new (TRUE, TRUE, sizeof (GOptionEntry));
  const GOptionEntry common[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &s->json,
      "Print one machine-readable JSON document on stdout instead of the summary", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &s->quiet, "Print nothing but errors", NULL },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &s->verbose,
      "List every bad input line, not only the first few", NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &show_version, "Print the version and exit", NULL },
    /* for `rolltrace help` and the NAME line of the man page: the command says what it is */
    { "summary-line", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &show_summary_line,
      "Print what the command does in one line and exit", NULL },
  };
  const GOptionEntry trace_entries[] = {
    { "steps", 's', 0, G_OPTION_ARG_STRING, &s->steps_spec,
      (cmd->flags & RT_COMMAND_LOADS_TRACES)
      ? "Only these steps of each EXP: N, A-B, A- and commas (e.g. 1,4,10-20); an EXP with none of them is an error"
      : "Only these steps: N, A-B, A- and commas (e.g. 1,4,10-20)", "SPEC" },
    { "cache-dir", 0, 0, G_OPTION_ARG_FILENAME, &s->cache_dir,
      "Keep the binary cache of the tables in DIR (default $XDG_CACHE_HOME/rolltrace)", "DIR" },
    { "no-cache", 0, 0, G_OPTION_ARG_NONE, &s->no_cache,
      "Read every file, and neither use nor write a cache", NULL },
    { "train", 0, 0, G_OPTION_ARG_FILENAME, &s->train_path,
      (cmd->flags & RT_COMMAND_LOADS_TRACES)
      ? "The trainer's console log of the first EXP: which of its rollouts are validation, and the trainer's step of each (train_step)"
      : "The trainer's console log: which rollouts are validation, and the trainer's step of each (train_step)", "LOG" },
    { "validation-steps", 0, 0, G_OPTION_ARG_STRING, &s->validation_steps_spec,
      "Without --train: these step folders hold validation rollouts (N, A-B, A- and commas)", "SPEC" },
    { "rollouts", 0, 0, G_OPTION_ARG_STRING, &s->rollouts_spec,
      (cmd->flags & RT_COMMAND_ALL_ROLLOUTS)
      ? "Read the training rollouts, the validation ones, or all (the default)"
      : "Read the training rollouts (default), the validation ones, or all", "training|validation|all" },
  };
  const GOptionEntry plot_entries[] = {
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &s->out_dir,
      "Write data, scripts and plots into DIR (default rt-out/EXPNAME)", "DIR" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &s->format,
      "Render plots as png (default), svg or pdf", "png|svg|pdf" },
    { "no-render", 0, 0, G_OPTION_ARG_NONE, &s->no_render,
      "Write data and gnuplot scripts but do not run gnuplot", NULL },
  };
  const GOptionEntry id_entries[] = {
    { "full-ids", 0, 0, G_OPTION_ARG_NONE, &s->full_ids,
      "Show request ids whole (text shows their first 8 characters; --json always whole)", NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (common); i++)
    if (!(cmd->flags & RT_COMMAND_NO_ARGUMENTS) || strcmp (common[i].long_name, "verbose") != 0)
      g_array_append_val (entries, common[i]);   /* a command of no input has no bad line to list */
  if (cmd->flags & RT_COMMAND_SHOWS_IDS)
    g_array_append_vals (entries, id_entries, G_N_ELEMENTS (id_entries));
  if (cmd->flags & (RT_COMMAND_LOADS_TRACE | RT_COMMAND_LOADS_TRACES))
    g_array_append_vals (entries, trace_entries, G_N_ELEMENTS (trace_entries));
  if (cmd->flags & RT_COMMAND_WRITES_PLOTS)
    g_array_append_vals (entries, plot_entries, G_N_ELEMENTS (plot_entries));
  const GOptionEntry step_entry = { "step", 0, 0, G_OPTION_ARG_STRING, &s->step, cmd->step_help, "N" };
  if (cmd->step_help != NULL)
    g_array_append_val (entries, step_entry);
  for (const GOptionEntry *e = cmd->entries; e && e->long_name; e++)
    g_array_append_val (entries, *e);
  return entries;
}

/* The tables a command writes, column by column, below its description: the keys of
 * its JSON and the columns of its TSV files come from the same declarations. They are its
 * own (RtCommand.tables), or else those of its analyses, each once. */
static void
describe_tables (const RtCommand *cmd, GString *out)
{
  g_autoptr (GPtrArray) tables = g_ptr_array_new ();
  for (guint i = 0; cmd->tables != NULL && cmd->tables[i] != NULL; i++)
    g_ptr_array_add (tables, (gpointer) cmd->tables[i]);
  for (guint a = 0; cmd->tables == NULL && cmd->analyses != NULL && cmd->analyses[a] != NULL; a++)
    for (guint i = 0; cmd->analyses[a]->tables != NULL && cmd->analyses[a]->tables[i] != NULL; i++)
      if (!g_ptr_array_find (tables, cmd->analyses[a]->tables[i], NULL))
        g_ptr_array_add (tables, (gpointer) cmd->analyses[a]->tables[i]);
  if (tables->len == 0)
    return;
  g_string_append_printf (out, "\n\n%s\n", cmd->tables_heading != NULL ? cmd->tables_heading
                          : "Tables (NAME.tsv files, and the JSON arrays of objects named above), by column:");
  for (guint i = 0; i < tables->len; i++)
    rt_table_spec_describe (g_ptr_array_index (tables, i), out, 2);
}

/* After "Unknown option": the closest option the command has to the first long option of argv
 * it does not know (two edits at most), said as advice, or NULL. */
static char *
unknown_option_advice (const GOptionEntry *entries, char **argv)
{
  for (guint i = 1; argv[i] != NULL && strcmp (argv[i], "--") != 0; i++)
    {
      if (strncmp (argv[i], "--", 2) != 0)
        continue;
      g_autofree char *name = g_strndup (argv[i] + 2, strcspn (argv[i] + 2, "="));
      const char *best = NULL;
      guint best_distance = 3;
      gboolean known = FALSE;
      for (const GOptionEntry *e = entries; e->long_name != NULL; e++)
        {
          guint d = rt_edit_distance (name, e->long_name, 2);
          known |= d == 0;
          if (d < best_distance && !(e->flags & G_OPTION_FLAG_HIDDEN))
            best = e->long_name, best_distance = d;
        }
      if (known)
        continue;
      if (best == NULL)
        return NULL;
      if (strcmp (name, "step") == 0 && strcmp (best, "steps") == 0)
        return g_strdup ("this command reads every selected step: --steps N for step N alone");
      return g_strdup_printf ("did you mean --%s?", best);
    }
  return NULL;
}

static gboolean
parse_command_line (RtSession *s, const RtCommand *cmd, int argc, char **argv, GError **error)
{
  g_autoptr (GOptionContext) ctx = g_option_context_new (cmd->parameters);
  g_autoptr (GArray) entries = build_entries (s, cmd);
  g_option_context_set_summary (ctx, cmd->summary);
  g_autoptr (GString) description = g_string_new (cmd->description);
  describe_tables (cmd, description);
  g_string_append_c (description, '\n');
  g_option_context_set_description (ctx, description->str);
  g_option_context_add_main_entries (ctx, (const GOptionEntry *) entries->data, NULL);

  g_auto (GStrv) args = g_new0 (char *, argc + 1);
  for (int i = 0; i < argc; i++)
    args[i] = g_strdup (argv[i]);
  if (!g_option_context_parse_strv (ctx, &args, error))
    {
      g_autofree char *advice = NULL;
      if (g_error_matches (*error, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION)
          && (advice = unknown_option_advice ((const GOptionEntry *) entries->data, argv)) != NULL)
        {
          char *message = g_strdup_printf ("%s (%s)", (*error)->message, advice);
          g_free ((*error)->message);
          (*error)->message = message;
        }
      return FALSE;
    }
  if (show_version || show_summary_line)
    return TRUE;

  /* GOption keeps the "--" that ends the options: an argument after it is an
   * argument even when it starts with '-' (`rt-check -- -exp`) */
  for (guint i = 1; args[i] != NULL; i++)
    if (strcmp (args[i], "--") == 0)
      {
        g_free (args[i]);
        memmove (&args[i], &args[i + 1], (g_strv_length (args + i + 1) + 1) * sizeof (char *));
        break;
      }
  int n = (int) g_strv_length (args) - 1;
  int min_args = cmd->min_args, max_args = cmd->max_args;
  if (min_args == 0 && max_args == 0 && !(cmd->flags & RT_COMMAND_NO_ARGUMENTS))
    min_args = max_args = 1;
  if (!rt_session_reads_experiment (s))
    min_args = 0;
  if (n < min_args || n > max_args)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "%s: expected %s",
                   n < min_args ? "missing argument" : "too many arguments",
                   max_args > 0 ? cmd->parameters : "options only");
      return FALSE;
    }
  s->n_args = n;
  s->args = g_new0 (char *, n + 1);
  for (int i = 0; i < n; i++)
    s->args[i] = g_strdup (args[i + 1]);

  s->steps = rt_step_set_parse (s->steps_spec, error);
  s->user_steps = s->steps != NULL ? rt_step_set_parse (s->steps_spec, error) : NULL;
  if (s->steps == NULL)
    return FALSE;
  if (s->validation_steps_spec != NULL && s->train_path != NULL)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "--train and --validation-steps both say which rollouts are "
                   "validation: give one of them (the log, where you have it)");
      return FALSE;
    }
  if (s->validation_steps_spec != NULL
      && (s->validation_steps = rt_number_set_parse (s->validation_steps_spec, "--validation-steps", error)) == NULL)
    return FALSE;
  if (!rt_rollout_select_parse (s->rollouts_spec, &s->rollouts, error))
    return FALSE;
  if (s->rollouts_spec == NULL && (cmd->flags & RT_COMMAND_ALL_ROLLOUTS))
    s->rollouts = RT_ROLLOUTS_ALL;
  if (s->format == NULL)
    s->format = g_strdup ("png");
  if (strcmp (s->format, "png") != 0 && strcmp (s->format, "svg") != 0
      && strcmp (s->format, "pdf") != 0)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "--format: '%s' is not png, svg or pdf",
                   s->format);
      return FALSE;
    }
  return TRUE;
}

/* The summary on one line, for command lists: its first sentence without the parts in
 * parentheses; past 76 characters, cut at a clause's end before that (or at a space, with
 * " ..." to show the cut). */
static char *
summary_line (const char *summary)
{
  g_autoptr (GString) flat = g_string_new (NULL);
  int depth = 0;
  for (const char *p = summary != NULL ? summary : ""; *p != '\0'; p++)
    {
      if (*p == '(')
        depth++;
      else if (*p == ')' && depth > 0)
        depth--;
      else if (depth == 0 && !(g_ascii_isspace (*p) && (flat->len == 0 || flat->str[flat->len - 1] == ' ')))
        g_string_append_c (flat, g_ascii_isspace (*p) ? ' ' : *p);
      if (*p == '(' && flat->len > 0 && flat->str[flat->len - 1] == ' ')
        g_string_truncate (flat, flat->len - 1);
    }
  gsize end = flat->len;
  for (gsize i = 1; i + 1 < flat->len && end == flat->len; i++)
    if ((flat->str[i] == '.' || flat->str[i] == ';') && flat->str[i + 1] == ' ' && flat->str[i - 1] != '.')
      end = i;
  if (end > 76)
    {
      /* the last ", " or ": " that leaves a clause of 30 characters or more, else a space */
      gsize cut = 0, space = 0;
      for (gsize i = 1; i <= 76; i++)
        if (flat->str[i] == ' ')
          {
            space = i;
            if (i > 30 && (flat->str[i - 1] == ',' || flat->str[i - 1] == ':'))
              cut = i - 1;
          }
      if (cut == 0)
        {
          /* cut inside a clause: say so (a test keeps every command's line whole) */
          g_string_truncate (flat, space);
          g_string_append (flat, " ...");
          return g_string_free (g_steal_pointer (&flat), FALSE);
        }
      end = cut;
    }
  while (end > 0 && strchr (" ,.:;", flat->str[end - 1]) != NULL)
    end--;
  return g_strndup (flat->str, end);
}

int
rt_command_main (const RtCommand *cmd, int argc, char **argv)
{
  RtSession s = { .command = cmd };
  g_autoptr (GError) error = NULL;
  int status = 0;

  g_set_prgname (cmd->name);
  rt_cleanup_install ();
  if (!parse_command_line (&s, cmd, argc, argv, &error))
    {
      g_printerr ("%s: %s\nTry '%s --help' for more information.\n", cmd->name, error->message,
                  cmd->name);
      rt_session_print_json (&s, error);
      session_clear (&s);
      return 2;
    }
  if (show_version || show_summary_line)
    {
      g_autofree char *line = summary_line (cmd->summary);
      if (show_version)
        {
          g_print ("%s (rolltrace) %s\n", cmd->name, RT_VERSION);
          if (cmd->flags & (RT_COMMAND_LOADS_TRACE | RT_COMMAND_LOADS_TRACES))
            g_print ("JSON parser: simdjson On-Demand, %s kernel\n", rt_json_kernel ());
        }
      else
        g_print ("%s\n", line);
      session_clear (&s);
      return 0;
    }

  gboolean loads = (cmd->flags & (RT_COMMAND_LOADS_TRACE | RT_COMMAND_LOADS_TRACES)) != 0;
  if (loads)
    rt_session_name_experiments (&s);
  else if (s.n_args > 0)
    {
      /* "logs/run-12.log" -> "run-12" */
      s.subject = g_path_get_basename (s.args[0]);
      char *dot = strrchr (s.subject, '.');
      if (dot != NULL && dot != s.subject)
        *dot = '\0';
    }
  else
    s.subject = g_strdup ("plots");
  /* no experiment (rt-export --schema alone), no default folder named after one */
  s.out_given = s.out_dir != NULL;
  if (s.out_dir == NULL && (cmd->flags & RT_COMMAND_WRITES_PLOTS) && *s.subject != '\0')
    s.out_dir = g_build_filename ("rt-out", s.subject, cmd->out_subdir, NULL);

  if (loads && rt_session_reads_experiment (&s)
      && (cmd->before_load == NULL || cmd->before_load (&s, &error)))
    rt_session_load_experiments (&s, &error);
  if (error == NULL)
    status = cmd->run (&s, &error);
  rt_session_print_json (&s, error);
  if (error == NULL && !rt_session_render_plots (&s, &error))
    status = 1;
  if (error == NULL && s.out_ready && !s.quiet && !s.json)
    g_print ("output: %s\n", s.out_dir);
  fflush (stdout);

  if (error != NULL)
    {
      g_printerr ("%s: %s\n", cmd->name, error->message);
      status = rt_error_exit_status (error);
    }
  session_clear (&s);
  return status;
}

const char *
rt_summary_cell (char buf[32], const char *format, double v)
{
  if (isnan (v))
    g_strlcpy (buf, "-", 32);   /* into buf too: a caller may print buf itself */
  else
    g_snprintf (buf, 32, format, v);
  return buf;
}

void
rt_session_print (RtSession *s, const char *fmt, ...)
{
  if (s->quiet || s->json)
    return;
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  fputs (text, stdout);
}

int
rt_session_no_data (RtSession *s, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_printerr ("%s: %s\n", s->command->name, text);
  return 1;
}
