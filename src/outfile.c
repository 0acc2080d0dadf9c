/* SPDX-License-Identifier: Apache-2.0 */
/* outfile.c: output and cache files written under a temporary name, renamed only when complete.
 * A registry of those names (and of gnuplot children) lets a signal leave nothing half-written. */
#include "rolltrace/rt-outfile.h"
#include "rolltrace/rt-error.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Fixed slots, read by the signal handler: a slot holds a g_strdup'd path or NULL.
 * Writers set and clear slots atomically, one at a time (temp_lock: a thread forgetting its
 * name compares the other slots' names, which another thread forgetting its own would free
 * under it; ASan caught that in rt-report's threads); the handler only reads them and calls
 * unlink(), which is async-signal-safe. */
#define TEMP_SLOTS 256
#define CHILD_SLOTS 64
static gpointer temp_slots[TEMP_SLOTS];
static gint child_slots[CHILD_SLOTS];
static GMutex temp_lock;

void
rt_temp_register (const char *tmp_path)
{
  char *copy = g_strdup (tmp_path);
  g_mutex_lock (&temp_lock);
  for (guint i = 0; i < TEMP_SLOTS; i++)
    if (g_atomic_pointer_compare_and_exchange (&temp_slots[i], NULL, copy))
      {
        g_mutex_unlock (&temp_lock);
        return;
      }
  g_mutex_unlock (&temp_lock);
  /* more temporaries at once than slots: this one is not cleaned up on a signal */
  g_free (copy);
}

void
rt_temp_forget (const char *tmp_path)
{
  g_mutex_lock (&temp_lock);
  for (guint i = 0; i < TEMP_SLOTS; i++)
    {
      char *p = g_atomic_pointer_get (&temp_slots[i]);
      if (p != NULL && strcmp (p, tmp_path) == 0)
        {
          g_atomic_pointer_set (&temp_slots[i], NULL);
          g_free (p);
          break;
        }
    }
  g_mutex_unlock (&temp_lock);
}

static char *
temp_template (const char *final_path)
{
  g_autofree char *dir = g_path_get_dirname (final_path);
  g_autofree char *base = g_path_get_basename (final_path);
  g_autofree char *name = g_strdup_printf (".%s.XXXXXX", base);
  return g_build_filename (dir, name, NULL);
}

/* `template` with its trailing XXXXXX made random, registered. */
static char *
temp_name_from (const char *template)
{
  char *tmp = g_strdup (template);
  char *x = tmp + strlen (tmp) - 6;
  static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  for (guint i = 0; i < 6; i++)
    x[i] = digits[g_random_int_range (0, (gint32) sizeof digits - 1)];
  rt_temp_register (tmp);
  return tmp;
}

char *
rt_temp_name_like (const char *template)
{
  return temp_name_from (template);
}

char *
rt_temp_name (const char *final_path)
{
  g_autofree char *template = temp_template (final_path);
  return temp_name_from (template);
}

int
rt_temp_create_from (const char *template, char **tmp_path, GError **error)
{
  /* registered before it exists: a signal at any moment finds it (mkstemp would
   * leave a window between creating the file and learning its name) */
  for (guint attempt = 0; attempt < 100; attempt++)
    {
      char *tmp = temp_name_from (template);
      int fd = open (tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd >= 0)
        {
          *tmp_path = tmp;
          return fd;
        }
      int e = errno;
      rt_temp_forget (tmp);
      g_free (tmp);
      if (e != EEXIST)
        {
          g_autofree char *dir = g_path_get_dirname (template);
          g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot create a file in %s: %s", dir, g_strerror (e));
          return -1;
        }
    }
  g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot create a file like %s: no free name", template);
  return -1;
}

int
rt_temp_create (const char *final_path, char **tmp_path, GError **error)
{
  g_autofree char *template = temp_template (final_path);
  return rt_temp_create_from (template, tmp_path, error);
}

gboolean
rt_temp_finish (char *tmp_path, const char *final_path, gboolean keep, GError **error)
{
  gboolean ok = TRUE;
  if (keep && g_rename (tmp_path, final_path) != 0)
    {
      int e = errno;
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot rename %s to %s: %s", tmp_path, final_path,
                   g_strerror (e));
      ok = FALSE;
    }
  if (!keep || !ok)
    g_unlink (tmp_path);
  rt_temp_forget (tmp_path);
  return ok;
}

gboolean
rt_file_write_atomic (const char *path, const void *data, gsize len, GError **error)
{
  const RtBytes part = { data, len };
  return rt_file_write_atomic_parts (path, &part, 1, error);
}

gboolean
rt_file_write_atomic_parts (const char *path, const RtBytes *parts, guint n_parts, GError **error)
{
  g_autofree char *tmp = NULL;
  int fd = rt_temp_create (path, &tmp, error);
  if (fd < 0)
    return FALSE;
  int e = 0;
  for (guint i = 0; i < n_parts && e == 0; i++)
    {
      const char *p = parts[i].data;
      gsize left = parts[i].len;
      while (left > 0)
        {
          gssize n = write (fd, p, left);
          if (n < 0 && errno == EINTR)
            continue;
          if (n <= 0)
            {
              e = n < 0 ? errno : ENOSPC;
              break;
            }
          p += n;
          left -= (gsize) n;
        }
    }
  if (close (fd) != 0 && e == 0)
    e = errno;
  if (e != 0)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot write %s: %s", path, g_strerror (e));
      rt_temp_finish (tmp, path, FALSE, NULL);
      return FALSE;
    }
  return rt_temp_finish (tmp, path, TRUE, error);
}

void
rt_child_register (GPid pid)
{
  for (guint i = 0; i < CHILD_SLOTS; i++)
    if (g_atomic_int_compare_and_exchange (&child_slots[i], 0, pid))
      return;
}

void
rt_child_forget (GPid pid)
{
  for (guint i = 0; i < CHILD_SLOTS; i++)
    if (g_atomic_int_compare_and_exchange (&child_slots[i], pid, 0))
      return;
}

guint
rt_child_count (void)
{
  guint n = 0;
  for (guint i = 0; i < CHILD_SLOTS; i++)
    n += g_atomic_int_get (&child_slots[i]) != 0;
  return n;
}

static void
on_fatal_signal (int sig)
{
  for (guint i = 0; i < CHILD_SLOTS; i++)
    {
      int pid = g_atomic_int_get (&child_slots[i]);
      if (pid > 0)
        kill (pid, SIGKILL);   /* before the unlink: a child cannot recreate its output */
    }
  for (guint i = 0; i < CHILD_SLOTS; i++)
    {
      int pid = g_atomic_int_get (&child_slots[i]);
      if (pid > 0)
        waitpid (pid, NULL, 0);
    }
  for (guint i = 0; i < TEMP_SLOTS; i++)
    {
      const char *p = g_atomic_pointer_get (&temp_slots[i]);
      if (p != NULL)
        unlink (p);
    }
  signal (sig, SIG_DFL);
  raise (sig);
}

void
rt_cleanup_install (void)
{
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_fatal_signal;
  sigemptyset (&sa.sa_mask);
  int sigs[] = { SIGINT, SIGTERM, SIGHUP };
  for (guint i = 0; i < G_N_ELEMENTS (sigs); i++)
    sigaddset (&sa.sa_mask, sigs[i]);
  for (guint i = 0; i < G_N_ELEMENTS (sigs); i++)
    {
      struct sigaction old;
      /* a signal the shell told us to ignore (nohup, a background job) stays ignored */
      if (sigaction (sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
        continue;
      sigaction (sigs[i], &sa, NULL);
    }
}

gboolean
rt_make_parent_dir (const char *path, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  if (g_mkdir_with_parents (dir, 0777) != 0)
    {
      int e = errno;
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot create %s: %s", dir, g_strerror (e));
      return FALSE;
    }
  return TRUE;
}

gsize
rt_read_at (int fd, void *buf, gsize n, guint64 at)
{
  gsize got = 0;
  while (got < n)
    {
      gssize r = pread (fd, (char *) buf + got, n - got, (off_t) (at + got));
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      got += (gsize) r;
    }
  return got;
}
