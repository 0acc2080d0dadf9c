/* SPDX-License-Identifier: Apache-2.0 */
/* load-discover.c: what an experiment folder holds: its step folders, their worker files
 * (step_N/worker_M.jsonl) and the trainer's, and every stray beside them; the cache opened
 * meanwhile. The rest of the loader (load.c) reads the files found. */
#include "load-private.h"
#include "tasks-private.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-text.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "step_17" -> 17; anything else (step_x, step_1.bak, a file) is not a step folder. */
static gboolean
parse_numbered_name (const char *name, const char *prefix, const char *suffix, gint32 *out)
{
  gsize plen = strlen (prefix), slen = strlen (suffix), len = strlen (name);
  if (len <= plen + slen || strncmp (name, prefix, plen) != 0
      || strcmp (name + len - slen, suffix) != 0)
    return FALSE;
  gint64 v = 0;
  for (gsize i = plen; i < len - slen; i++)
    {
      if (!g_ascii_isdigit (name[i]))
        return FALSE;
      v = v * 10 + (name[i] - '0');
      if (v > G_MAXINT32)
        return FALSE;
    }
  *out = (gint32) v;
  return TRUE;
}

/* How much a spelling of a step and worker is preferred when two name the same
 * file: the one without leading zeros ("step_1/worker_2.jsonl"), then the shorter,
 * then the first in byte order. */
static int
compare_spellings (const RtFile *a, const RtFile *b)
{
  g_autofree char *plain = g_strdup_printf ("step_%d" G_DIR_SEPARATOR_S "worker_%d.jsonl", a->step, a->worker);
  gboolean a_plain = strcmp (a->path, plain) == 0, b_plain = strcmp (b->path, plain) == 0;
  if (a_plain != b_plain)
    return a_plain ? -1 : 1;
  gsize la = strlen (a->path), lb = strlen (b->path);
  if (la != lb)
    return la < lb ? -1 : 1;
  return strcmp (a->path, b->path);
}

static int
compare_files (gconstpointer a, gconstpointer b)
{
  const RtFile *fa = a, *fb = b;
  if (fa->step != fb->step)
    return fa->step < fb->step ? -1 : 1;
  if (fa->worker != fb->worker)
    return fa->worker < fb->worker ? -1 : 1;
  return compare_spellings (fa, fb);
}

/* Files are sorted by step, worker and preference: of each run of files naming the
 * same step and worker, the first is read and the others are listed as duplicates. */
static void
drop_duplicates (RtTrace *trace)
{
  guint kept = 0;
  for (guint i = 0; i < trace->files->len; i++)
    {
      RtFile *f = &g_array_index (trace->files, RtFile, i);
      if (kept > 0)
        {
          const RtFile *last = &g_array_index (trace->files, RtFile, kept - 1);
          if (last->step == f->step && last->worker == f->worker)
            {
              RtDuplicate d = { f->path, g_strdup (last->path) };
              g_array_append_val (trace->duplicates, d);
              continue;
            }
        }
      g_array_index (trace->files, RtFile, kept++) = *f;
    }
  g_array_set_size (trace->files, kept);
}

static gboolean
is_dir (const char *path)
{
  return g_file_test (path, G_FILE_TEST_IS_DIR);
}

/* What one step folder holds, as listed by one of discovery's threads. */
typedef struct {
  char *name;                   /* "step_17", as the experiment folder spells it */
  gint32 step;
  GArray *files;                /* RtFile */
  GPtrArray *strays;            /* char*: paths from the experiment folder */
  GPtrArray *trainer;           /* char*: its worker_-1.jsonl, the trainer's (rank -1) */
  int error;                    /* errno of opening the folder, or 0 */
} StepListing;

static void
step_listing_clear (StepListing *sl)
{
  g_free (sl->name);
  for (guint i = 0; sl->files != NULL && i < sl->files->len; i++)
    g_free (g_array_index (sl->files, RtFile, i).path);
  g_clear_pointer (&sl->files, g_array_unref);
  g_clear_pointer (&sl->strays, g_ptr_array_unref);
  g_clear_pointer (&sl->trainer, g_ptr_array_unref);
}

static int
compare_listings (gconstpointer a, gconstpointer b)
{
  const StepListing *x = a, *y = b;
  return x->step < y->step ? -1 : x->step > y->step;
}

/* Lists one step folder: its worker_M.jsonl files, stat'ed through the one descriptor that
 * reads the folder (a whole path walked for each of thousands of files was a good part of a
 * run from the cache, and the folder opened twice, once to read and once to stat from, cost
 * a tenth of the listing again); everything else is a stray. */
static void
list_step_folder (int exp_fd, StepListing *sl)
{
  sl->files = g_array_new (FALSE, FALSE, sizeof (RtFile));
  sl->strays = g_ptr_array_new_with_free_func (g_free);
  sl->trainer = g_ptr_array_new_with_free_func (g_free);
  int fd = openat (exp_fd, sl->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *dir = fd >= 0 ? fdopendir (fd) : NULL;
  if (dir == NULL)
    {
      sl->error = errno;
      if (fd >= 0)
        close (fd);
      return;
    }
  const struct dirent *e;
  while ((e = readdir (dir)) != NULL)
    {
      const char *entry = e->d_name;
      if (strcmp (entry, ".") == 0 || strcmp (entry, "..") == 0)
        continue;
      char *rel = g_strconcat (sl->name, G_DIR_SEPARATOR_S, entry, NULL);
      gint32 worker;
      struct stat st;
      /* rank -1 is the trainer (the 2026 logger's trainer-side sections), not a rollout rank */
      if (strcmp (entry, "worker_-1.jsonl") == 0 && fstatat (fd, entry, &st, 0) == 0 && S_ISREG (st.st_mode))
        {
          g_ptr_array_add (sl->trainer, rel);
          continue;
        }
      if (!parse_numbered_name (entry, "worker_", ".jsonl", &worker)
          || fstatat (fd, entry, &st, 0) != 0 || !S_ISREG (st.st_mode))
        {
          g_ptr_array_add (sl->strays, rel);
          continue;
        }
      RtFile f = { 0 };
      f.path = rel;
      f.step = sl->step;
      f.worker = worker;
      f.size = (guint64) st.st_size;
      f.mtime_us = (gint64) st.st_mtim.tv_sec * G_USEC_PER_SEC + st.st_mtim.tv_nsec / 1000;
      f.inode = (guint64) st.st_ino;
      f.ctime_ns = (gint64) st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
      g_array_append_val (sl->files, f);
    }
  closedir (dir);
  g_array_sort (sl->files, compare_files);   /* here, on the thread that listed them */
}

/* A step folder, by what readdir says of it, or by stat when it cannot tell (a link, or a
 * file system that gives no type). */
static gboolean
entry_is_dir (int dir_fd, const struct dirent *e)
{
  struct stat st;
  if (e->d_type == DT_DIR)
    return TRUE;
  if (e->d_type != DT_LNK && e->d_type != DT_UNKNOWN)
    return FALSE;
  return fstatat (dir_fd, e->d_name, &st, 0) == 0 && S_ISDIR (st.st_mode);
}

/* The experiment folder's step_N folders into `steps`, in the order listed, and everything
 * else into trace->strays. */
static gboolean
list_experiment (RtTrace *trace, int exp_fd, GArray *steps, GError **error)
{
  int fd = dup (exp_fd);   /* closedir closes its own */
  DIR *top = fd >= 0 ? fdopendir (fd) : NULL;
  if (top == NULL)
    {
      int e = errno;
      if (fd >= 0)
        close (fd);
      g_set_error (error, RT_ERROR, RT_ERROR_NO_EXPERIMENT,
                   "cannot read experiment folder %s: %s", trace->path, g_strerror (e));
      return FALSE;
    }
  const struct dirent *e;
  while ((e = readdir (top)) != NULL)
    {
      const char *name = e->d_name;
      if (strcmp (name, ".") == 0 || strcmp (name, "..") == 0)
        continue;
      StepListing sl = { 0 };
      if (!parse_numbered_name (name, "step_", "", &sl.step) || !entry_is_dir (exp_fd, e))
        {
          g_ptr_array_add (trace->strays, g_strdup (name));
          continue;
        }
      sl.name = g_strdup (name);
      g_array_append_val (steps, sl);
    }
  closedir (top);
  return TRUE;
}

/* Discovery's tasks: 0 opens the cache (when there is a cache path), the others list the
 * step folders, one each. */
typedef struct {
  int exp_fd;                   /* the experiment folder */
  StepListing *steps;
  RtTrace *trace;               /* what opening the cache needs (the path, the registry) */
  const char *canonical;
  RtCacheMap *cache;
} Discovery;

static void
discovery_task (gpointer data, guint task)
{
  Discovery *d = data;
  if (task > 0)
    {
      list_step_folder (d->exp_fd, &d->steps[task - 1]);
      return;
    }
  RtTrace *t = d->trace;
  RtCacheMap *kept = g_steal_pointer (&t->priv->opts.kept_cache);
  if (t->priv->cache_path == NULL)
    {
      rt_cache_close (kept);
      return;
    }
  d->cache = kept != NULL ? rt_cache_reopen (kept, t->priv->cache_path, d->canonical, t->registry,
                                             &t->stats.cache_rejected)
                          : rt_cache_open (t->priv->cache_path, d->canonical, t->registry,
                                           &t->stats.cache_rejected);
  /* a command that reads no request reads the steps' durations instead: checked now, beside
   * the listing of folders, rather than after it */
  if (d->cache != NULL && !t->priv->keeps.requests)
    rt_cache_step_durations_ok (d->cache);
}

/* Whether folder `path` holds a step_N folder: an experiment. */
static gboolean
holds_step_folder (const char *path)
{
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;
  gint32 step;
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (parse_numbered_name (name, "step_", "", &step))
      {
        g_autofree char *sub = g_build_filename (path, name, NULL);
        if (is_dir (sub))
          return TRUE;
      }
  return FALSE;
}

#define EXPERIMENTS_NAMED 8   /* a folder of experiments: this many are named, then a count */

/* What to add to "EXP holds no step_N folders" so that the user knows what to give instead:
 * the experiment of a step folder given in its place, or the experiments a folder holds
 * (their names on one line, control characters made spaces). "" when neither. */
static char *
no_steps_hint (const RtTrace *trace)
{
  g_autofree char *base = g_path_get_basename (trace->path);
  gint32 step;
  if (parse_numbered_name (base, "step_", "", &step))
    {
      g_autofree char *parent = g_path_get_dirname (trace->path);
      g_autoptr (GString) hint = g_string_new ("; it is a step folder itself: give its experiment, ");
      rt_tsv_append_text (hint, parent);
      return g_string_free (g_steal_pointer (&hint), FALSE);
    }
  g_autoptr (GString) hint = g_string_new ("");
  guint found = 0;
  for (guint i = 0; i < trace->strays->len; i++)   /* sorted already */
    {
      g_autofree char *sub = g_build_filename (trace->path, g_ptr_array_index (trace->strays, i), NULL);
      if (!is_dir (sub) || !holds_step_folder (sub))
        continue;
      if (found++ < EXPERIMENTS_NAMED)
        {
          g_string_append (hint, found == 1 ? "; it holds experiments, give one of them: " : ", ");
          rt_tsv_append_text (hint, sub);
        }
    }
  if (found > EXPERIMENTS_NAMED)
    g_string_append_printf (hint, " and %u more", found - EXPERIMENTS_NAMED);
  return g_string_free (g_steal_pointer (&hint), FALSE);
}

/* Lists step_N/worker_M.jsonl into trace->files and trace->steps, and everything else into
 * trace->strays; with a cache path, opens the cache too (*cache: NULL when there is none or
 * it cannot be trusted). With two threads or more, opening the cache and listing the step
 * folders are shared out between two: a run from the cache of the 10M tree spent half its
 * time here, most of it in the kernel, reading 100 folders and stat'ing 1,600 files. */
gboolean
rt_load_discover (RtTrace *trace, const char *canonical, guint n_threads, RtCacheMap **cache,
                  GError **error)
{
  *cache = NULL;
  int exp_fd = open (trace->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (exp_fd < 0)
    {
      int e = errno;
      g_set_error (error, RT_ERROR, RT_ERROR_NO_EXPERIMENT,
                   "cannot read experiment folder %s: %s", trace->path, g_strerror (e));
      return FALSE;
    }
  g_autoptr (GArray) steps = g_array_new (FALSE, TRUE, sizeof (StepListing));
  g_array_set_clear_func (steps, (GDestroyNotify) step_listing_clear);
  if (!list_experiment (trace, exp_fd, steps, error))
    {
      close (exp_fd);
      return FALSE;
    }

  Discovery d = { .exp_fd = exp_fd, .steps = (StepListing *) steps->data, .trace = trace,
                  .canonical = canonical };
  rt_run_shared (1 + steps->len, n_threads, discovery_task, &d);
  close (exp_fd);
  *cache = d.cache;

  /* in the order listed, the first folder that cannot be read is the one told */
  for (guint i = 0; i < steps->len; i++)
    {
      StepListing *sl = &g_array_index (steps, StepListing, i);
      if (sl->error != 0)
        {
          g_autofree char *step_path = g_build_filename (trace->path, sl->name, NULL);
          g_set_error (error, RT_ERROR, RT_ERROR_NO_EXPERIMENT, "cannot read %s: %s",
                       step_path, g_strerror (sl->error));
          g_clear_pointer (cache, rt_cache_close);
          return FALSE;
        }
    }
  /* gathered in step order, each folder's files sorted already: the files are then in
   * order too, unless two folders name one step (step_1, step_01) */
  g_array_sort (steps, compare_listings);
  gsize n_files = 0;
  for (guint i = 0; i < steps->len; i++)
    n_files += g_array_index (steps, StepListing, i).files->len;
  rt_array_make_room (trace->files, n_files);   /* not grown (and copied) file after file */
  g_autoptr (GArray) step_numbers = g_array_new (FALSE, FALSE, sizeof (gint32));
  for (guint i = 0; i < steps->len; i++)
    {
      StepListing *sl = &g_array_index (steps, StepListing, i);
      g_array_append_val (step_numbers, sl->step);
      g_array_append_vals (trace->files, sl->files->data, sl->files->len);
      g_array_set_size (sl->files, 0);   /* the paths are the trace's now */
      for (guint k = 0; k < sl->strays->len; k++)
        g_ptr_array_add (trace->strays, g_steal_pointer (&sl->strays->pdata[k]));
      for (guint k = 0; k < sl->trainer->len; k++)
        g_ptr_array_add (trace->trainer_files, g_steal_pointer (&sl->trainer->pdata[k]));
    }

  if (step_numbers->len == 0)
    {
      g_ptr_array_sort (trace->strays, rt_compare_strings);
      g_autofree char *hint = no_steps_hint (trace);
      g_set_error (error, RT_ERROR, RT_ERROR_NO_EXPERIMENT,
                   "%s holds no step_N folders: expected EXP/step_N/worker_M.jsonl%s",
                   trace->path, hint);
      g_clear_pointer (cache, rt_cache_close);
      return FALSE;
    }

  for (guint i = 1; i < trace->files->len; i++)
    if (compare_files (rt_trace_file (trace, i - 1), rt_trace_file (trace, i)) > 0)
      {
        g_array_sort (trace->files, compare_files);
        break;
      }
  drop_duplicates (trace);
  g_ptr_array_sort (trace->strays, rt_compare_strings);

  /* Steps in numeric order, each with its range of files; a step folder without
   * worker files is still a step (every worker is missing from it). */
  g_array_sort (step_numbers, rt_compare_gint32);
  guint fi = 0;
  for (guint i = 0; i < step_numbers->len; i++)
    {
      /* step_1 and step_01 are one step */
      if (i > 0 && g_array_index (step_numbers, gint32, i) == g_array_index (step_numbers, gint32, i - 1))
        continue;
      RtStep st = { .step = g_array_index (step_numbers, gint32, i), .start_s = NAN };
      st.first_file = fi;
      while (fi < trace->files->len && rt_trace_file (trace, fi)->step == st.step)
        fi++;
      st.n_files = fi - st.first_file;
      g_array_append_val (trace->steps, st);
    }
  return TRUE;
}

