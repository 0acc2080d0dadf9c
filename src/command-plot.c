/* SPDX-License-Identifier: Apache-2.0 */
/* command-plot.c: gnuplot scripts filled from the templates of gnuplot/ (compiled in), written
 * into the output folder, then rendered a few at a time, each picture kept only when complete. */
#include "command-private.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-outfile.h"
#include "rolltrace/rt-rollouts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define STYLE_FILE "rolltrace-style.gp"

static gboolean
gnuplot_found_no_data (const char *err_text)
{
  return err_text != NULL && (strstr (err_text, "all points") != NULL || strstr (err_text, "no valid points") != NULL
                              || strstr (err_text, "undefined") != NULL);
}

/* gnuplot exits 0 even when it could not write the whole picture (a full disk, a
 * file size limit): only a picture that ends as its format ends is kept. */
static gboolean
picture_complete (const char *path, const char *format)
{
  static const guint8 png_end[] = { 0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82 };
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return FALSE;
  char tail[64];
  off_t size = lseek (fd, 0, SEEK_END);
  gssize n = size > 0 ? pread (fd, tail, MIN ((off_t) sizeof tail, size), size - MIN ((off_t) sizeof tail, size)) : 0;
  close (fd);
  if (n <= 0)
    return FALSE;
  if (strcmp (format, "png") == 0)
    return n >= (gssize) sizeof png_end && memcmp (tail + n - sizeof png_end, png_end, sizeof png_end) == 0;
  const char *end_mark = strcmp (format, "svg") == 0 ? "</svg>" : "%%EOF";
  return g_strstr_len (tail, n, end_mark) != NULL;
}

/* A gnuplot being run: its pid (registered, so that a fatal signal kills it) and the pipe
 * its standard error comes through. */
typedef struct {
  GPid pid;
  int err_fd;
} Child;

/* Starts `gnuplot -e DEFINE SCRIPT` in `dir`, its output thrown away, its input empty.
 * (g_spawn rather than GSubprocess: with GIO, which nothing else of a plain analyzer uses,
 * the dynamic linker of every run mapped and relocated eight more libraries, a cost to
 * each run, even of those that draw nothing: bench/RESULTS.md, "Behind the code".) */
static gboolean
start_gnuplot (const char *gnuplot, const char *dir, const char *define, const char *script,
               Child *c, GError **error)
{
  const char *argv[] = { gnuplot, "-e", define, script, NULL };
  if (!g_spawn_async_with_pipes (dir, (char **) argv, NULL,
                                 G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL
                                   | G_SPAWN_CLOEXEC_PIPES,
                                 NULL, NULL, &c->pid, NULL, NULL, &c->err_fd, error))
    return FALSE;
  rt_child_register (c->pid);
  return TRUE;
}

/* Reads what the child writes on its standard error into `err` until it closes it, waits for
 * it, and says whether it exited with 0. The child stays registered until its exit is seen
 * and unregistered before it is reaped: a pid left registered would be killed on a later
 * Ctrl-C, by then perhaps another process's. */
static gboolean
finish_gnuplot (Child *c, GByteArray *err, GError **error)
{
  guint8 buf[4096];
  for (;;)
    {
      gssize n = read (c->err_fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      g_byte_array_append (err, buf, (guint) n);
    }
  close (c->err_fd);
  siginfo_t info;
  while (waitid (P_PID, (id_t) c->pid, &info, WEXITED | WNOWAIT) != 0 && errno == EINTR)
    ;
  rt_child_forget (c->pid);
  int status = 0;
  pid_t reaped;
  while ((reaped = waitpid (c->pid, &status, 0)) < 0 && errno == EINTR)
    ;
  if (reaped < 0)
    {
      int e = errno;
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot wait for gnuplot: %s", g_strerror (e));
      return FALSE;
    }
  g_spawn_close_pid (c->pid);
  return g_spawn_check_wait_status (status, NULL);
}

/* Runs gnuplot on every script written, a few at a time, inside the output folder.
 * Each draws into a temporary name (the script's `set output` honours rt_output),
 * renamed over NAME.FORMAT only when gnuplot succeeded and wrote something: a failed
 * or interrupted plot leaves the previous picture, or none. */
gboolean
rt_session_render_plots (RtSession *s, GError **error)
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

  guint batch = MAX (2u, g_get_num_processors ());
  gboolean ok = TRUE;

  for (guint start = 0; start < s->scripts->len; start += batch)
    {
      g_autoptr (GPtrArray) temps = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (GPtrArray) finals = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (GArray) children = g_array_new (FALSE, FALSE, sizeof (Child));
      guint end = MIN (start + batch, s->scripts->len);
      for (guint i = start; i < end; i++)
        {
          const char *script = g_ptr_array_index (s->scripts, i);
          g_autofree char *stem = g_strndup (script, strlen (script) - strlen (".gp"));
          g_autofree char *plot_name = g_strdup_printf ("%s.%s", stem, s->format);
          char *final = rt_session_out_path (s, plot_name);
          char *tmp = rt_temp_name (final);
          g_autofree char *tmp_base = g_path_get_basename (tmp);
          g_autofree char *tmp_literal = rt_gnuplot_quote (tmp_base);
          g_autofree char *define = g_strdup_printf ("rt_output = %s", tmp_literal);
          g_ptr_array_add (finals, final);
          g_ptr_array_add (temps, tmp);
          Child c;
          if (!start_gnuplot (gnuplot, s->out_dir, define, script, &c, error))
            {
              for (guint k = 0; k < temps->len; k++)
                rt_temp_finish (g_ptr_array_index (temps, k), NULL, FALSE, NULL);
              for (guint k = 0; k < children->len; k++)
                close (g_array_index (children, Child, k).err_fd);
              return FALSE;
            }
          g_array_append_val (children, c);
        }
      for (guint i = 0; i < children->len; i++)
        {
          const char *script = g_ptr_array_index (s->scripts, start + i);
          char *tmp = g_ptr_array_index (temps, i);
          g_autoptr (GError) local = NULL;
          g_autoptr (GByteArray) err_bytes = g_byte_array_new ();
          /* gnuplot's messages quote the script, whose text need not be UTF-8: raw bytes */
          gboolean drawn = finish_gnuplot (&g_array_index (children, Child, i), err_bytes, &local);
          g_autoptr (GString) err_string = g_string_new (NULL);
          rt_utf8_append (err_string, (const char *) err_bytes->data, (gssize) err_bytes->len);
          char *err_text = err_string->str;
          drawn = drawn && picture_complete (tmp, s->format);
          if (!rt_temp_finish (tmp, g_ptr_array_index (finals, i), drawn, &local) && drawn)
            {
              g_printerr ("%s: %s\n", s->command->name, local->message);
              ok = FALSE;
            }
          else if (!drawn && gnuplot_found_no_data (err_text))
            {
              if (!s->quiet)
                g_printerr ("%s: note: %s/%s skipped: nothing to draw (%s)\n", s->command->name,
                            s->out_dir, script, g_strstrip (err_text));
            }
          else if (!drawn)
            {
              g_printerr ("%s: gnuplot failed on %s/%s: %s\n", s->command->name, s->out_dir,
                          script, local ? local->message
                                  : (err_text && *err_text ? err_text : "no complete picture written (is the disk full?)"));
              ok = FALSE;
            }
        }
    }
  if (!ok)
    g_set_error (error, RT_ERROR, RT_ERROR_IO, "some plots could not be rendered");
  return ok;
}

gboolean
rt_session_render (RtSession *s, GError **error)
{
  gboolean ok = rt_session_render_plots (s, error);
  if (s->scripts != NULL)
    g_ptr_array_set_size (s->scripts, 0);
  return ok;
}

char *
rt_gnuplot_int_tics (const char *axis, gint32 first, gint32 last, int max_ticks)
{
  gint64 span = (gint64) last - first, inc = 1;
  for (gint64 base = 1;; base *= 10)
    {
      if (span / base < max_ticks) { inc = base; break; }
      if (span / (2 * base) < max_ticks) { inc = 2 * base; break; }
      if (span / (5 * base) < max_ticks) { inc = 5 * base; break; }
    }
  gint64 start = first - (first % inc + inc) % inc;   /* a round first tick */
  return g_strdup_printf ("set %s %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "\nset m%s %s",
                          axis, start, inc, axis, inc >= 5 ? "5" : "1");
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

/* TRUE when the trainer's steps are known (--train) for every one of these steps and some
 * differ from the folders' numbers: the plots then name the trainer's. */
gboolean
rt_session_train_steps_differ (RtSession *s, GArray *step_indices)
{
  const RtTrace *t = s->trace;
  if (t->rollouts == NULL || !t->rollouts->train_steps_known)
    return FALSE;
  gboolean differ = FALSE;
  for (guint i = 0; i < step_indices->len; i++)
    {
      gint32 step = rt_trace_step (t, g_array_index (step_indices, guint, i))->step;
      gint32 train = rt_trace_train_step (t, step);
      if (train < 0)
        return FALSE;
      differ = differ || train != step;
    }
  return differ;
}

char *
rt_session_describe_step_indices (RtSession *s, GArray *step_indices)
{
  g_autoptr (GArray) steps = g_array_new (FALSE, FALSE, sizeof (gint32));
  for (guint i = 0; i < step_indices->len; i++)
    g_array_append_val (steps, rt_trace_step (s->trace, g_array_index (step_indices, guint, i))->step);
  g_autofree char *folders = rt_describe_steps ((const gint32 *) steps->data, steps->len);
  const RtTrace *t = s->trace;
  if (!rt_session_train_steps_differ (s, step_indices))
    return g_steal_pointer (&folders);
  /* the trainer's steps first, as the x axis shows them; the folders after */
  g_autoptr (GArray) train = g_array_new (FALSE, FALSE, sizeof (gint32));
  for (guint i = 0; i < steps->len; i++)
    {
      gint32 ts = rt_trace_train_step (t, g_array_index (steps, gint32, i));
      g_array_append_val (train, ts);
    }
  g_autofree char *trainer = rt_describe_steps ((const gint32 *) train->data, train->len);
  return g_strdup_printf ("trainer's %s (step folders: %s)", trainer, folders);
}

char *
rt_session_step_xtics (RtSession *s, GArray *step_indices)
{
  g_return_val_if_fail (step_indices->len > 0, NULL);
  const RtTrace *t = s->trace;
  gint32 first = rt_trace_step (t, g_array_index (step_indices, guint, 0))->step;
  gint32 last = rt_trace_step (t, g_array_index (step_indices, guint, step_indices->len - 1))->step;
  if (!rt_session_train_steps_differ (s, step_indices))
    return rt_gnuplot_int_tics ("xtics", first, last, 20);

  /* the trainer's steps known (--train): the points stay at their folders, the tics name
   * the trainer's step of each (at most about 20 of them), and the label says so */
  guint every = (step_indices->len + 19) / 20;
  GString *tics = g_string_new ("set xtics (");
  gboolean any = FALSE;
  for (guint i = 0; i < step_indices->len; i += every)
    {
      gint32 step = rt_trace_step (t, g_array_index (step_indices, guint, i))->step;
      gint32 train = rt_trace_train_step (t, step);
      g_string_append_printf (tics, "%s\"%d\" %d", any ? ", " : "", train, step);
      any = TRUE;
    }
  g_string_append (tics, ")\nunset mxtics\nset xlabel \"trainer's step (from --train; folders step_N differ)\"");
  return g_string_free (tics, FALSE);
}

/* Written by tools/embed-templates.cmake from gnuplot/: the plot templates. */
extern const struct { const char *name; const unsigned char *text; size_t size; } rt_gnuplot_templates[];

static GBytes *
load_template (const char *name, GError **error)
{
  for (guint i = 0; rt_gnuplot_templates[i].name != NULL; i++)
    if (strcmp (rt_gnuplot_templates[i].name, name) == 0)
      return g_bytes_new_static (rt_gnuplot_templates[i].text, rt_gnuplot_templates[i].size);
  g_set_error (error, RT_ERROR, RT_ERROR_IO, "no gnuplot template %s", name);
  return NULL;
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
  return rt_session_plot_data (s, template_name, name, name, what, vars, error);
}

/* RtSession.scripts, taken by one thread at a time (a command may write plots side by side). */
G_LOCK_DEFINE_STATIC (scripts);

/* A script, or the style, ends with this line and the SHA-256 of the lines above it: while
 * they match, the file is as rolltrace wrote it and is written anew; once they do not, someone
 * edited it, and it is kept (rolltrace's own restyling would undo a user's, run after run). */
#define UNEDITED_MARK "# rolltrace wrote the lines above, sha256 "
#define UNEDITED_TAIL " (edit them and rolltrace keeps this file)\n"

/* The file `name` of the output folder was written by rolltrace and edited since. */
static gboolean
script_edited (RtSession *s, const char *name)
{
  g_autofree char *path = rt_session_out_path (s, name);
  g_autofree char *text = NULL;
  gsize len;
  if (!g_file_get_contents (path, &text, &len, NULL))
    return FALSE;
  const char *mark = g_strrstr (text, "\n" UNEDITED_MARK);
  if (mark == NULL)
    return FALSE;   /* no mark: not one of ours, or an older rolltrace's: written anew */
  mark++;
  const char *hex = mark + strlen (UNEDITED_MARK);
  g_autofree char *sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) text,
                                                      (gsize) (mark - text));
  return strlen (hex) < 64 || strncmp (hex, sum, 64) != 0 || strcmp (hex + 64, UNEDITED_TAIL) != 0;
}

/* `make plots` (gnuplot/write-plots.sh) names a file in this variable: every script a command
 * writes is appended to it as "written NAME.gp", or "edited NAME.gp" when the one there was
 * kept, so that it renders and counts this run's plots only, and names the scripts kept. */
#define SCRIPTS_LIST_ENV "ROLLTRACE_SCRIPTS_LIST"

static void
list_script (const char *state, const char *name)
{
  const char *list = g_getenv (SCRIPTS_LIST_ENV);
  if (list == NULL || list[0] == '\0')
    return;
  g_autofree char *line = g_strdup_printf ("%s %s\n", state, name);
  int fd = open (list, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0)
    return;
  /* one write of a short line with O_APPEND: lines of commands run at once never mix */
  if (write (fd, line, strlen (line)) < 0)
    g_printerr ("rolltrace: note: cannot add to %s: %s\n", list, g_strerror (errno));
  close (fd);
}

/* Writes a gnuplot script (or the style) with its mark, unless the one there was edited. */
static gboolean
write_script (RtSession *s, const char *name, GString *text, GError **error)
{
  if (script_edited (s, name))
    {
      if (!s->quiet)
        g_printerr ("%s: note: %s/%s was edited: kept as it is (remove it to get rolltrace's again)\n",
                    s->command->name, s->out_dir, name);
      list_script ("edited", name);
      return TRUE;
    }
  g_autofree char *sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) text->str, text->len);
  g_string_append_printf (text, UNEDITED_MARK "%s" UNEDITED_TAIL, sum);
  if (!rt_session_write (s, name, text, error))
    return FALSE;
  list_script ("written", name);
  return TRUE;
}

/* The style every script loads, written with the first script. */
static gboolean
begin_scripts (RtSession *s, GError **error)
{
  G_LOCK (scripts);
  gboolean ok = TRUE;
  if (s->scripts == NULL)
    {
      g_autoptr (GBytes) style = load_template ("style.gp", error);
      g_autoptr (GString) text = style ? g_string_new_len (g_bytes_get_data (style, NULL),
                                                           (gssize) g_bytes_get_size (style))
                                       : NULL;
      ok = text != NULL && write_script (s, STYLE_FILE, text, error);
      if (ok)
        s->scripts = g_ptr_array_new_with_free_func (g_free);
    }
  G_UNLOCK (scripts);
  return ok;
}

gboolean
rt_session_plot_data (RtSession *s, const char *template_name, const char *name, const char *data_stem,
                      const char *what, const char *const *vars, GError **error)
{
  if (!rt_session_ensure_out_dir (s, error) || !begin_scripts (s, error))
    return FALSE;

  g_autofree char *template_file = g_strdup_printf ("%s.gp", template_name);
  g_autoptr (GBytes) tmpl = load_template (template_file, error);
  if (tmpl == NULL)
    return FALSE;
  g_autofree char *text = g_strndup (g_bytes_get_data (tmpl, NULL), g_bytes_get_size (tmpl));

  g_autofree char *title_text = g_strdup_printf ("%s: %s", s->subject, what);
  g_autofree char *title = rt_gnuplot_quote (title_text);
  g_autofree char *output_name = g_strdup_printf ("%s.%s", name, s->format);
  g_autofree char *output = rt_gnuplot_quote (output_name);
  g_autofree char *terminal = terminal_for (s->format, vars ? lookup_var (vars, "SIZE", 4) : NULL);
  g_autofree char *data_name = g_strdup_printf ("%s.tsv", data_stem);
  g_autofree char *data = rt_gnuplot_quote (data_name);

  /* What every script needs comes first, so templates hold only the plot itself;
   * the `data` variable names the script's TSV for the template's plot commands
   * (and gnuplot/render.mk reads that line to know what the plot depends on). */
  g_autoptr (GString) script = g_string_new (NULL);
  g_string_append_printf (script,
                          "# %s.gp: written by %s from the template %s; run 'gnuplot %s.gp' here.\n"
                          "load '" STYLE_FILE "'\n"
                          "set terminal %s\n"
                          "set output (exists('rt_output') ? rt_output : %s)\n"
                          "data = %s\n"
                          "set title %s\n",
                          name, s->command->name, template_file, name, terminal, output, data, title);
  g_autoptr (GString) body = fill_template (text, vars ? vars : (const char *const[]) { NULL },
                                            template_file, error);
  if (body == NULL)
    return FALSE;
  g_string_append (script, body->str);
  g_autofree char *script_name = g_strdup_printf ("%s.gp", name);
  if (!write_script (s, script_name, script, error))
    return FALSE;
  G_LOCK (scripts);
  g_ptr_array_add (s->scripts, g_steal_pointer (&script_name));
  G_UNLOCK (scripts);
  return TRUE;
}
