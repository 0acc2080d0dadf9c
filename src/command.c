/* command.c: option parsing, loading, output files and plot rendering for every command.
 * Analyzers hand over a table (RtCommand) and get --help, errors, exit codes and plots for free. */
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-error.h"

#include <errno.h>
#include <gio/gio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef RT_VERSION
#define RT_VERSION "0.0"
#endif

#define STYLE_FILE "rolltrace-style.gp"

static gboolean show_version;

static void
session_clear (RtSession *s)
{
  g_free (s->out_dir);
  g_free (s->steps_spec);
  g_free (s->format);
  g_clear_pointer (&s->steps, rt_step_set_free);
  g_clear_pointer (&s->trace, rt_trace_free);
  g_clear_pointer (&s->scripts, g_ptr_array_unref);
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
  };
  const GOptionEntry trace_entries[] = {
    { "steps", 's', 0, G_OPTION_ARG_STRING, &s->steps_spec,
      "Only these steps: N, A-B, A- and commas (e.g. 1,4,10-20)", "SPEC" },
  };
  const GOptionEntry plot_entries[] = {
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &s->out_dir,
      "Write data, scripts and plots into DIR (default rt-out/EXPNAME)", "DIR" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &s->format,
      "Render plots as png (default), svg or pdf", "FMT" },
    { "no-render", 0, 0, G_OPTION_ARG_NONE, &s->no_render,
      "Write data and gnuplot scripts but do not run gnuplot", NULL },
  };
  g_array_append_vals (entries, common, G_N_ELEMENTS (common));
  if (cmd->flags & RT_COMMAND_LOADS_TRACE)
    g_array_append_vals (entries, trace_entries, G_N_ELEMENTS (trace_entries));
  if (cmd->flags & RT_COMMAND_WRITES_PLOTS)
    g_array_append_vals (entries, plot_entries, G_N_ELEMENTS (plot_entries));
  for (const GOptionEntry *e = cmd->entries; e && e->long_name; e++)
    g_array_append_val (entries, *e);
  return entries;
}

static gboolean
parse_command_line (RtSession *s, const RtCommand *cmd, int argc, char **argv, GError **error)
{
  g_autoptr (GOptionContext) ctx = g_option_context_new (cmd->parameters);
  g_autoptr (GArray) entries = build_entries (s, cmd);
  g_option_context_set_summary (ctx, cmd->summary);
  g_autofree char *description = g_strdup_printf ("%s\n", cmd->description ? cmd->description : "");
  g_option_context_set_description (ctx, description);
  g_option_context_add_main_entries (ctx, (const GOptionEntry *) entries->data, NULL);

  g_auto (GStrv) args = g_new0 (char *, argc + 1);
  for (int i = 0; i < argc; i++)
    args[i] = g_strdup (argv[i]);
  if (!g_option_context_parse_strv (ctx, &args, error))
    return FALSE;
  if (show_version)
    return TRUE;

  int n = (int) g_strv_length (args) - 1;
  if (n < cmd->min_args || n > cmd->max_args)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "%s: expected %s",
                   n < cmd->min_args ? "missing argument" : "too many arguments",
                   cmd->parameters);
      return FALSE;
    }
  s->n_args = n;
  s->args = g_new0 (char *, n + 1);
  for (int i = 0; i < n; i++)
    s->args[i] = g_strdup (args[i + 1]);

  s->steps = rt_step_set_parse (s->steps_spec, error);
  if (s->steps == NULL)
    return FALSE;
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

static void
report_problems (RtSession *s)
{
  const RtTrace *t = s->trace;
  guint64 bad = 0;
  for (guint i = 0; i < t->files->len; i++)
    bad += rt_trace_file (t, i)->bad_lines;
  if (bad == 0 || s->quiet || strcmp (s->command->name, "rt-check") == 0)
    return;
  g_printerr ("%s: note: %" G_GUINT64_FORMAT " bad line%s skipped in %s",
              s->command->name, bad, bad == 1 ? "" : "s", t->path);
  if (!s->verbose)
    {
      g_printerr (" (rt-check %s lists them)\n", t->path);
      return;
    }
  g_printerr (":\n");
  for (guint i = 0; i < t->problems->len; i++)
    {
      const RtProblem *p = &g_array_index (t->problems, RtProblem, i);
      g_printerr ("  %s: %s\n", p->where, p->reason);
    }
}

/* Runs gnuplot on every script written, a few at a time, inside the output folder. */
static gboolean
render_scripts (RtSession *s, GError **error)
{
  if (s->scripts == NULL || s->scripts->len == 0 || s->no_render)
    return TRUE;
  g_autofree char *gnuplot = g_find_program_in_path ("gnuplot");
  if (gnuplot == NULL)
    {
      if (!s->quiet)
        g_printerr ("%s: gnuplot is not installed: scripts are in %s, render them with "
                    "'gnuplot NAME.gp' there\n", s->command->name, s->out_dir);
      return TRUE;
    }

  g_autoptr (GSubprocessLauncher) launcher =
      g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_cwd (launcher, s->out_dir);
  guint batch = MAX (2u, g_get_num_processors ());
  gboolean ok = TRUE;

  for (guint start = 0; start < s->scripts->len; start += batch)
    {
      g_autoptr (GPtrArray) procs = g_ptr_array_new_with_free_func (g_object_unref);
      guint end = MIN (start + batch, s->scripts->len);
      for (guint i = start; i < end; i++)
        {
          const char *script = g_ptr_array_index (s->scripts, i);
          GSubprocess *p = g_subprocess_launcher_spawn (launcher, error, gnuplot, script, NULL);
          if (p == NULL)
            return FALSE;
          g_ptr_array_add (procs, p);
        }
      for (guint i = 0; i < procs->len; i++)
        {
          GSubprocess *p = g_ptr_array_index (procs, i);
          g_autofree char *err_text = NULL;
          g_autoptr (GError) local = NULL;
          if (!g_subprocess_communicate_utf8 (p, NULL, NULL, NULL, &err_text, &local)
              || !g_subprocess_get_successful (p))
            {
              const char *script = g_ptr_array_index (s->scripts, start + i);
              g_printerr ("%s: gnuplot failed on %s/%s: %s\n", s->command->name, s->out_dir,
                          script, local ? local->message : (err_text ? err_text : "?"));
              ok = FALSE;
            }
        }
    }
  if (!ok)
    g_set_error (error, RT_ERROR, RT_ERROR_IO, "some plots could not be rendered");
  return ok;
}

int
rt_command_main (const RtCommand *cmd, int argc, char **argv)
{
  RtSession s = { .command = cmd };
  g_autoptr (GError) error = NULL;
  int status = 0;

  g_set_prgname (cmd->name);
  if (!parse_command_line (&s, cmd, argc, argv, &error))
    {
      g_printerr ("%s: %s\nTry '%s --help' for more information.\n", cmd->name, error->message,
                  cmd->name);
      session_clear (&s);
      return 2;
    }
  if (show_version)
    {
      g_print ("%s (rolltrace) %s\n", cmd->name, RT_VERSION);
      session_clear (&s);
      return 0;
    }

  if (cmd->flags & RT_COMMAND_LOADS_TRACE)
    {
      RtLoadOptions opts = {
        .max_problems_per_file = s.verbose ? G_MAXUINT : 5,
        .progress = !s.quiet && isatty (STDERR_FILENO),
      };
      s.trace = rt_trace_load (s.args[0], &opts, &error);
      if (s.trace != NULL)
        report_problems (&s);
    }
  if (s.out_dir == NULL && (cmd->flags & RT_COMMAND_WRITES_PLOTS))
    s.out_dir = g_build_filename ("rt-out", s.trace ? s.trace->name : "plots", NULL);

  if (error == NULL)
    status = cmd->run (&s, &error);
  if (error == NULL && !render_scripts (&s, &error))
    status = 1;
  if (error == NULL && s.out_ready && !s.quiet && !s.json)
    g_print ("output: %s\n", s.out_dir);
  fflush (stdout);

  if (error != NULL)
    {
      g_printerr ("%s: %s\n", cmd->name, error->message);
      status = status ? status : rt_error_exit_status (error);
    }
  session_clear (&s);
  return status;
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

void
rt_session_print_json (RtSession *s, GString *doc)
{
  if (!s->json)
    return;
  fwrite (doc->str, 1, doc->len, stdout);
  fputc ('\n', stdout);
}

gboolean
rt_session_step_selected (RtSession *s, gint32 step)
{
  return rt_step_set_contains (s->steps, step);
}

GArray *
rt_session_selected_steps (RtSession *s)
{
  GArray *idx = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < s->trace->steps->len; i++)
    if (rt_session_step_selected (s, rt_trace_step (s->trace, i)->step))
      g_array_append_val (idx, i);
  return idx;
}

gboolean
rt_parse_int_option (const char *name, const char *value, gint64 min, gint64 max,
                     gint64 *out, GError **error)
{
  g_autoptr (GError) local = NULL;
  if (!g_ascii_string_to_signed (value, 10, min, max, out, &local))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "%s: '%s' is not a whole number from %"
                   G_GINT64_FORMAT " to %" G_GINT64_FORMAT, name, value, min, max);
      return FALSE;
    }
  return TRUE;
}

/* ---- output files ---- */

char *
rt_session_out_path (RtSession *s, const char *name)
{
  return g_build_filename (s->out_dir, name, NULL);
}

static gboolean
ensure_out_dir (RtSession *s, GError **error)
{
  if (s->out_ready)
    return TRUE;
  if (s->trace != NULL)
    {
      /* never write into the experiment */
      g_autofree char *out = g_canonicalize_filename (s->out_dir, NULL);
      g_autofree char *exp = g_canonicalize_filename (s->trace->path, NULL);
      gsize n = strlen (exp);
      if (strncmp (out, exp, n) == 0 && (out[n] == '\0' || out[n] == G_DIR_SEPARATOR))
        {
          g_set_error (error, RT_ERROR, RT_ERROR_USAGE,
                       "--out %s is inside the experiment folder; rolltrace never writes there",
                       s->out_dir);
          return FALSE;
        }
    }
  if (g_mkdir_with_parents (s->out_dir, 0777) != 0)
    {
      int e = errno;
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot create output folder %s: %s",
                   s->out_dir, g_strerror (e));
      return FALSE;
    }
  s->out_ready = TRUE;
  return TRUE;
}

gboolean
rt_session_write (RtSession *s, const char *name, const GString *content, GError **error)
{
  if (!ensure_out_dir (s, error))
    return FALSE;
  g_autofree char *path = rt_session_out_path (s, name);
  /* g_file_set_contents writes a temporary file and renames it: no half-written output */
  return g_file_set_contents (path, content->str, (gssize) content->len, error);
}

GString *
rt_tsv_new (const char *const *columns)
{
  GString *tsv = g_string_new ("# ");
  for (guint i = 0; columns[i] != NULL; i++)
    {
      if (i > 0)
        g_string_append_c (tsv, '\t');
      g_string_append (tsv, columns[i]);
    }
  g_string_append_c (tsv, '\n');
  return tsv;
}

static void
tsv_end (GString *tsv, gboolean last)
{
  g_string_append_c (tsv, last ? '\n' : '\t');
}

void
rt_tsv_num (GString *tsv, double v, gboolean last)
{
  if (isfinite (v))
    rt_format_double (tsv, v);
  else
    g_string_append (tsv, "NaN");
  tsv_end (tsv, last);
}

void
rt_tsv_int (GString *tsv, gint64 v, gboolean last)
{
  g_string_append_printf (tsv, "%" G_GINT64_FORMAT, v);
  tsv_end (tsv, last);
}

void
rt_tsv_str (GString *tsv, const char *s, gboolean last)
{
  /* tabs and newlines would break the table */
  for (const char *p = s ? s : ""; *p; p++)
    g_string_append_c (tsv, (*p == '\t' || *p == '\n') ? ' ' : *p);
  tsv_end (tsv, last);
}

/* ---- plots ---- */

char *
rt_gnuplot_quote (const char *s)
{
  GString *q = g_string_new ("'");
  for (const char *p = s; *p; p++)
    {
      if (*p == '\'')
        g_string_append_c (q, '\'');
      g_string_append_c (q, *p);
    }
  g_string_append_c (q, '\'');
  return g_string_free (q, FALSE);
}

char *
rt_describe_steps (const gint32 *steps, guint n)
{
  if (n == 0)
    return g_strdup ("no steps");
  if (n == 1)
    return g_strdup_printf ("step %d", steps[0]);
  gboolean contiguous = TRUE;
  for (guint i = 1; i < n; i++)
    contiguous = contiguous && steps[i] == steps[i - 1] + 1;
  if (contiguous)
    return g_strdup_printf ("steps %d-%d", steps[0], steps[n - 1]);
  if (n <= 6)
    {
      GString *s = g_string_new ("steps ");
      for (guint i = 0; i < n; i++)
        g_string_append_printf (s, "%s%d", i ? ", " : "", steps[i]);
      return g_string_free (s, FALSE);
    }
  return g_strdup_printf ("%u steps in %d-%d", n, steps[0], steps[n - 1]);
}

static GBytes *
load_template (const char *name, GError **error)
{
  g_autofree char *path = g_strdup_printf ("/org/rolltrace/gnuplot/%s", name);
  return g_resources_lookup_data (path, G_RESOURCE_LOOKUP_FLAGS_NONE, error);
}

static const char *
lookup_var (const char *const *vars, const char *key, gsize len)
{
  for (guint i = 0; vars[i] != NULL && vars[i + 1] != NULL; i += 2)
    if (strlen (vars[i]) == len && strncmp (vars[i], key, len) == 0)
      return vars[i + 1];
  return NULL;
}

/* Replaces every {{KEY}}; a key nobody supplied is a bug in the analyzer. */
static GString *
fill_template (const char *text, const char *const *vars, const char *name, GError **error)
{
  GString *out = g_string_new (NULL);
  const char *p = text, *open;
  while ((open = strstr (p, "{{")) != NULL)
    {
      const char *close = strstr (open, "}}");
      if (close == NULL)
        break;
      g_string_append_len (out, p, open - p);
      const char *value = lookup_var (vars, open + 2, (gsize) (close - open - 2));
      if (value == NULL)
        {
          g_set_error (error, RT_ERROR, RT_ERROR_IO, "template %s: nothing to put in %.*s", name,
                       (int) (close - open + 2), open);
          g_string_free (out, TRUE);
          return NULL;
        }
      g_string_append (out, value);
      p = close + 2;
    }
  g_string_append (out, p);
  return out;
}

static char *
terminal_for (const char *format, const char *size)
{
  int w = 1280, h = 720;
  if (size != NULL)
    sscanf (size, "%d,%d", &w, &h);
  if (strcmp (format, "svg") == 0)
    return g_strdup_printf ("svg size %d,%d dynamic font 'DejaVu Sans,12' noenhanced background rgb 'white'", w, h);
  if (strcmp (format, "pdf") == 0)
    return g_strdup_printf ("pdfcairo size %.2fin,%.2fin font 'DejaVu Sans,9' noenhanced", w / 100.0, h / 100.0);
  return g_strdup_printf ("pngcairo size %d,%d font 'DejaVu Sans,11' noenhanced", w, h);
}

gboolean
rt_session_plot (RtSession *s, const char *template_name, const char *name,
                 const char *what, const char *const *vars, GError **error)
{
  if (!ensure_out_dir (s, error))
    return FALSE;
  if (s->scripts == NULL)
    {
      g_autoptr (GBytes) style = load_template ("style.gp", error);
      if (style == NULL)
        return FALSE;
      g_autoptr (GString) text = g_string_new_len (g_bytes_get_data (style, NULL),
                                                   (gssize) g_bytes_get_size (style));
      if (!rt_session_write (s, STYLE_FILE, text, error))
        return FALSE;
      s->scripts = g_ptr_array_new_with_free_func (g_free);
    }

  g_autofree char *template_file = g_strdup_printf ("%s.gp", template_name);
  g_autoptr (GBytes) tmpl = load_template (template_file, error);
  if (tmpl == NULL)
    return FALSE;
  g_autofree char *text = g_strndup (g_bytes_get_data (tmpl, NULL), g_bytes_get_size (tmpl));

  g_autofree char *title_text = g_strdup_printf ("%s: %s", s->trace ? s->trace->name : "", what);
  g_autofree char *title = rt_gnuplot_quote (title_text);
  g_autofree char *output_name = g_strdup_printf ("%s.%s", name, s->format);
  g_autofree char *output = rt_gnuplot_quote (output_name);
  g_autofree char *terminal = terminal_for (s->format, lookup_var (vars, "SIZE", 4));
  g_autofree char *exp = rt_gnuplot_quote (s->trace ? s->trace->name : "");
  g_autofree char *data_name = g_strdup_printf ("%s.tsv", name);
  g_autofree char *data = rt_gnuplot_quote (data_name);

  g_autoptr (GPtrArray) all = g_ptr_array_new ();
  const char *common[] = { "TITLE", title, "OUTPUT", output, "TERMINAL", terminal,
                           "EXP", exp, "DATA", data, "STYLE", "'" STYLE_FILE "'" };
  for (guint i = 0; i < G_N_ELEMENTS (common); i++)
    g_ptr_array_add (all, (gpointer) common[i]);
  for (guint i = 0; vars && vars[i] != NULL; i++)
    g_ptr_array_add (all, (gpointer) vars[i]);
  g_ptr_array_add (all, NULL);

  g_autoptr (GString) script = fill_template (text, (const char *const *) all->pdata,
                                              template_file, error);
  if (script == NULL)
    return FALSE;
  g_autofree char *script_name = g_strdup_printf ("%s.gp", name);
  if (!rt_session_write (s, script_name, script, error))
    return FALSE;
  g_ptr_array_add (s->scripts, g_steal_pointer (&script_name));
  return TRUE;
}
