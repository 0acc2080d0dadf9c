/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz-util.c: scratch folders and file helpers for the fuzz targets (see fuzz-util.h).
 * Kept apart from the targets so that each target reads as what it feeds and checks. */
#include "fuzz-util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <glib/gstdio.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static GPtrArray *scratch_dirs;

static void
trap_to_abort (int sig)
{
  (void) sig;
  abort ();
}

void
rt_fuzz_init (void)
{
  signal (SIGTRAP, trap_to_abort);
  /* GLib stops a pooled thread after 15 s idle, and the loader's per-thread state
   * is freed as the thread ends. Once, at the exit of a 22-minute run, LeakSanitizer
   * reported that state as leaked (never per input, never in a replay): most likely
   * a thread ending while the process did. Idle threads that are never stopped keep
   * their state reachable to the end; nor may GLib stop one because more than two are
   * idle (fuzz-line loads each input twice, and once more threads than that ended so). */
  g_thread_pool_set_max_idle_time (0);
  g_thread_pool_set_max_unused_threads (-1);
}

static void
remove_scratch_dirs (void)
{
  for (guint i = 0; scratch_dirs && i < scratch_dirs->len; i++)
    rt_fuzz_remove_tree (g_ptr_array_index (scratch_dirs, i));
  g_clear_pointer (&scratch_dirs, g_ptr_array_unref);
}

#define OWNER_FILE ".rt-fuzz-owner"

/* A process that crashes (which is what fuzzing is for) never removes its scratch
 * folder: the next one removes the folders, made from the same template, whose
 * owner is no longer running. A folder without an owner file is left alone. */
static void
remove_stale_dirs (const char *template_path)
{
  g_autofree char *parent = g_path_get_dirname (template_path);
  g_autofree char *base = g_path_get_basename (template_path);
  gsize prefix_len = strlen (base) - strlen ("XXXXXX");
  g_autoptr (GDir) dir = g_dir_open (parent, 0, NULL);
  const char *name;
  while (dir && (name = g_dir_read_name (dir)) != NULL)
    {
      if (strlen (name) != strlen (base) || strncmp (name, base, prefix_len) != 0)
        continue;
      g_autofree char *path = g_build_filename (parent, name, NULL);
      g_autofree char *owner_file = g_build_filename (path, OWNER_FILE, NULL);
      g_autofree char *owner = NULL;
      if (!g_file_get_contents (owner_file, &owner, NULL, NULL))
        continue;
      pid_t pid = (pid_t) g_ascii_strtoll (owner, NULL, 10);
      if (pid > 0 && kill (pid, 0) != 0 && errno == ESRCH)
        rt_fuzz_remove_tree (path);
    }
}

char *
rt_fuzz_scratch_dir (const char *template_path)
{
  remove_stale_dirs (template_path);
  char *dir = g_strdup (template_path);
  if (g_mkdtemp (dir) == NULL)
    rt_fuzz_fail ("cannot make a scratch folder %s: %s", template_path, g_strerror (errno));
  g_autofree char *owner_file = g_build_filename (dir, OWNER_FILE, NULL);
  g_autofree char *pid = g_strdup_printf ("%d\n", (int) getpid ());
  rt_fuzz_write (owner_file, pid, strlen (pid));
  if (scratch_dirs == NULL)
    {
      scratch_dirs = g_ptr_array_new_with_free_func (g_free);
      atexit (remove_scratch_dirs);
    }
  g_ptr_array_add (scratch_dirs, g_strdup (dir));
  return dir;
}

void
rt_fuzz_write (const char *path, const void *data, gsize len)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    rt_fuzz_fail ("cannot write %s: %s", path, g_strerror (errno));
  const char *p = data;
  while (len > 0)
    {
      ssize_t n = write (fd, p, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        rt_fuzz_fail ("cannot write %s: %s", path, g_strerror (errno));
      p += n;
      len -= (gsize) n;
    }
  close (fd);
}

void
rt_fuzz_remove_tree (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  if (dir != NULL)
    {
      const char *name;
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
            rt_fuzz_remove_tree (child);
          else
            g_unlink (child);
        }
      g_dir_close (dir);
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

char *
rt_fuzz_exact_copy (const void *data, gsize len)
{
  /* malloc, not g_malloc: g_malloc (0) is NULL, and malloc (0) under ASan is a
   * valid block with no byte to read (GLib's g_free is free) */
  char *copy = malloc (len);
  if (copy == NULL)
    rt_fuzz_fail ("out of memory");
  if (len > 0)
    memcpy (copy, data, len);
  return copy;
}

gsize
rt_fuzz_touch_string (const char *s)
{
  /* strlen alone may be vectorised past what ASan checks byte by byte; this is not */
  volatile gsize n = 0;
  while (s[n] != '\0')
    n++;
  return n;
}

void
rt_fuzz_fail (const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  fputs ("rt-fuzz: invariant broken: ", stderr);
  vfprintf (stderr, format, ap);
  fputc ('\n', stderr);
  va_end (ap);
  abort ();
}

void
rt_fuzz_check_trace (const RtTrace *t)
{
  guint n_names = rt_event_registry_size (t->registry);
  for (guint i = 0; i < t->steps->len; i++)
    {
      const RtStep *st = rt_trace_step (t, i);
      if ((guint64) st->first_file + st->n_files > t->files->len)
        rt_fuzz_fail ("step %u: files [%u, +%u) past the table's %u", i, st->first_file,
                      st->n_files, t->files->len);
    }
  for (guint i = 0; i < t->files->len; i++)
    {
      const RtFile *f = rt_trace_file (t, i);
      rt_fuzz_touch_string (f->path);
      if ((guint64) f->first_request + f->n_requests > t->n_requests)
        rt_fuzz_fail ("file %u: requests [%u, +%u) past the table's %u", i, f->first_request,
                      f->n_requests, t->n_requests);
      const RtEvent *rows = rt_trace_file_events (t, i);
      for (guint e = 0; e < f->n_events; e++)
        {
          if (rows[e].event >= n_names
              || (rows[e].request != RT_NONE && rows[e].request >= f->n_requests))
            rt_fuzz_fail ("%s row %u: event id %u of %u names, request %u of the file's %u",
                          f->path, e, rows[e].event, n_names, rows[e].request, f->n_requests);
        }
    }
  for (guint i = 0; i < t->n_requests; i++)
    {
      const RtRequest *q = rt_trace_request (t, i);
      rt_fuzz_touch_string (rt_request_id (t, q));
      if (q->finish_reason != 0)
        rt_fuzz_touch_string (rt_finish_reason_short (rt_request_finish_reason (t, q)));
      if (q->file >= t->files->len)
        rt_fuzz_fail ("request %u: file %u of %u", i, q->file, t->files->len);
      /* in the cache's turns or in the load's, not across the two */
      guint64 end = (guint64) q->first_turn + q->n_turns;
      gboolean in_cached = end <= t->n_cached_turns;
      gboolean in_own = q->first_turn >= t->n_cached_turns && end <= rt_trace_n_turns (t);
      if (q->n_turns > 0 && !in_cached && !in_own)
        rt_fuzz_fail ("request %u: turns [%u, +%u) past its table (%u cached, %u read)", i,
                      q->first_turn, q->n_turns, t->n_cached_turns, t->turns->len);
      for (guint32 k = 0; k < q->n_turns; k++)
        {
          volatile double read = rt_trace_turn (t, q->first_turn + k)->engine_call_s;
          (void) read;
        }
    }
  for (guint i = 0; i < t->problems->len; i++)
    {
      const RtProblem *p = &g_array_index (t->problems, RtProblem, i);
      rt_fuzz_touch_string (p->where);
      rt_fuzz_touch_string (p->reason);
    }
  for (guint i = 0; i < t->strays->len; i++)
    rt_fuzz_touch_string (g_ptr_array_index (t->strays, i));
  for (guint i = 0; i < n_names; i++)
    rt_fuzz_touch_string (rt_event_registry_name (t->registry, (guint16) i));
}
