/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz-cache.c: libFuzzer target for the cache reader: the input is the cache file of a small
 * fixed experiment (a copy of a fixture), which is then loaded and every table of it read. */
#define _GNU_SOURCE   /* memmem */
#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <utime.h>

#include "fuzz-util.h"
#include "rolltrace/rt-report.h"
#include "rolltrace/rt-trace.h"

/* A cache names its experiment by path and its files by inode (and times), none of
 * which survive a copy to another machine or folder. So the experiments live below
 * a folder whose name always has the same length, their files get a fixed mtime,
 * and an input carries placeholders where the cache holds the folder's name and
 * the inodes and change times: the harness puts the real values in before each
 * run, and writes placeholders into the seeds it makes. A saved input then replays
 * anywhere, and its offsets stay right because every value keeps its length. */
#define PREFIX_TEMPLATE "/tmp/rt-fuzz-XXXXXX"
#define FIXED_MTIME 1735689600   /* 2025-01-01T00:00:00Z */

static const char *const fixture_names[] = { "hand-v2", "hand-v1", "damaged" };
#define N_FIXTURES G_N_ELEMENTS (fixture_names)

typedef struct {
  char *exp;                 /* the copy of the fixture */
  char *cache_dir;           /* its cache folder */
  char *cache_file;          /* where rt_trace_load looks for its cache */
  char *exp_with_nul;        /* exp, and the length to match it with its NUL */
} Experiment;

static char *prefix;                      /* PREFIX_TEMPLATE, made real */
static Experiment experiments[N_FIXTURES];
static GPtrArray *files;                  /* char*: every copied file, sorted */

/* One 8-byte value of the cache that differs from machine to machine. */
typedef struct {
  guint64 placeholder, real;
} Identity;
static GArray *identities;                /* Identity */

static void
copy_tree (const char *from, const char *to)
{
  if (g_mkdir_with_parents (to, 0755) != 0)
    rt_fuzz_fail ("cannot make %s: %s", to, g_strerror (errno));
  g_autoptr (GDir) dir = g_dir_open (from, 0, NULL);
  if (dir == NULL)
    rt_fuzz_fail ("cannot read the fixture %s", from);
  const char *name;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *src = g_build_filename (from, name, NULL);
      g_autofree char *dst = g_build_filename (to, name, NULL);
      if (g_file_test (src, G_FILE_TEST_IS_DIR))
        {
          copy_tree (src, dst);
          continue;
        }
      g_autofree char *contents = NULL;
      gsize len = 0;
      if (!g_file_get_contents (src, &contents, &len, NULL))
        rt_fuzz_fail ("cannot read the fixture %s", src);
      rt_fuzz_write (dst, contents, len);
      g_ptr_array_add (files, g_steal_pointer (&dst));
    }
}

static int
compare_paths (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static guint64
placeholder (const char *kind, guint index)
{
  char text[9];
  g_snprintf (text, sizeof text, "%s%04u", kind, index % 10000);
  guint64 v;
  memcpy (&v, text, 8);
  return v;
}

/* The values a cache may hold to recognise a file: its inode, and its change time
 * in microseconds or nanoseconds. Taken anew after the files were touched. */
static void
record_identities (void)
{
  g_array_set_size (identities, 0);
  for (guint i = 0; i < files->len; i++)
    {
      const char *path = g_ptr_array_index (files, i);
      struct stat st;
      if (stat (path, &st) != 0)
        rt_fuzz_fail ("cannot stat %s", path);
      Identity ids[] = {
        { placeholder ("ino:", i), (guint64) st.st_ino },
        { placeholder ("ctu:", i), (guint64) st.st_ctim.tv_sec * 1000000 + (guint64) st.st_ctim.tv_nsec / 1000 },
        { placeholder ("ctn:", i), (guint64) st.st_ctim.tv_sec * 1000000000 + (guint64) st.st_ctim.tv_nsec },
      };
      g_array_append_vals (identities, ids, G_N_ELEMENTS (ids));
    }
}

static void
set_fixed_mtime (const char *path)
{
  struct utimbuf times = { FIXED_MTIME, FIXED_MTIME };
  if (utime (path, &times) != 0)
    rt_fuzz_fail ("cannot set the time of %s", path);
}

/* Every file gets the fixed mtime, and a change time of its own: files copied in
 * the same clock tick would share one, and then an input that gives one file the
 * change time of another would match or not by chance, and replay differently. */
static void
set_fixed_times (void)
{
  gint64 previous = -1;
  for (guint i = 0; i < files->len; i++)
    {
      const char *path = g_ptr_array_index (files, i);
      for (;;)
        {
          set_fixed_mtime (path);
          struct stat st;
          if (stat (path, &st) != 0)
            rt_fuzz_fail ("cannot stat %s", path);
          gint64 ctime_ns = (gint64) st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
          if (ctime_ns / 1000 > previous / 1000)   /* distinct in microseconds too */
            {
              previous = ctime_ns;
              break;
            }
          g_usleep (1000);
        }
    }
}

static void
replace_all (guint8 *buf, gsize len, const void *from, const void *to, gsize n)
{
  guint8 *p = buf, *end = buf + len;
  while ((gsize) (end - p) >= n && (p = memmem (p, (gsize) (end - p), from, n)) != NULL)
    {
      memcpy (p, to, n);
      p += n;
    }
}

/* Placeholders to real values (to_real) or back (for a seed). */
static void
translate (guint8 *buf, gsize len, gboolean to_real)
{
  const char *from = to_real ? PREFIX_TEMPLATE : prefix, *to = to_real ? prefix : PREFIX_TEMPLATE;
  replace_all (buf, len, from, to, strlen (PREFIX_TEMPLATE));
  for (guint i = 0; i < identities->len; i++)
    {
      const Identity *id = &g_array_index (identities, Identity, i);
      replace_all (buf, len, to_real ? &id->placeholder : &id->real,
                   to_real ? &id->real : &id->placeholder, 8);
    }
}

static void
clear_dir (const char *path)
{
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;
  while (dir && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      rt_fuzz_remove_tree (child);
    }
}

static RtTrace *
load_with (const Experiment *e, RtLoadOptions opts)
{
  g_autoptr (GError) error = NULL;
  RtTrace *t = rt_trace_load (e->exp, &opts, &error);
  if (t == NULL)
    rt_fuzz_fail ("%s failed to load: %s", e->exp, error->message);
  return t;
}

static RtTrace *
load (const Experiment *e, const char *cache_dir)
{
  return load_with (e, (RtLoadOptions) { .n_threads = 1, .max_problems_per_file = 8, .cache_dir = cache_dir });
}

/* What rt-report reads of a trace it loads with the turns summed and the ids checked when
 * read: every request's id and engine time, the turn sums ready; a sum of them all, kept. */
static void
read_as_a_report (const RtTrace *t)
{
  double sum = 0;
  for (guint i = 0; i < t->files->len; i++)
    {
      const RtFile *f = rt_trace_file (t, i);
      if (f->first_request == RT_NONE)
        continue;
      for (guint k = 0; k < f->n_requests; k++)
        {
          const RtRequest *q = rt_trace_request (t, f->first_request + k);
          sum += (double) strlen (rt_request_id (t, q)) + rt_trace_request_engine_s (t, q);
        }
    }
  guint n, n_files;
  const RtTurnSums *ready = rt_trace_turn_sums_ready (t, &n, &n_files);
  if (ready != NULL && n_files > t->files->len)
    rt_fuzz_fail ("turn sums of %u files, of %u", n_files, t->files->len);
  for (guint i = 0; ready != NULL && i < n; i++)
    sum += ready[i].count + ready[i].sum[RT_TURN_TOTAL];
  volatile double kept = sum;
  (void) kept;
}

/* The one cache file in `dir`, or NULL. */
static char *
only_cache_file (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  char *found = NULL;
  while (d && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, ".rtc") && found == NULL)
      found = g_build_filename (dir, name, NULL);
  return found;
}

/* Writes the cache `source` as a seed `name` in `out`, with placeholders. */
static void
write_seed (const char *source, const char *out, const char *name)
{
  g_autofree guint8 *bytes = NULL;
  gsize len = 0;
  if (!g_file_get_contents (source, (char **) &bytes, &len, NULL))
    rt_fuzz_fail ("no cache was written at %s", source);
  translate (bytes, len, FALSE);
  g_autofree char *path = g_build_filename (out, name, NULL);
  rt_fuzz_write (path, bytes, len);
}

/* Seeds: each fixture's cache as the loader writes it, and one of a file that has
 * grown since (its first half was cached): the reader's paths for a file taken
 * whole and for a file read on from where the cache stopped. */
static void
make_seeds (const char *out)
{
  g_mkdir_with_parents (out, 0755);
  for (guint k = 0; k < N_FIXTURES; k++)
    {
      g_autofree char *name = g_strdup_printf ("%s.rtc", fixture_names[k]);
      write_seed (experiments[k].cache_file, out, name);
    }

  const Experiment *e = &experiments[0];
  g_autofree char *worker = g_build_filename (e->exp, "step_1", "worker_0.jsonl", NULL);
  g_autofree char *full = NULL;
  gsize len = 0;
  if (!g_file_get_contents (worker, &full, &len, NULL))
    rt_fuzz_fail ("cannot read %s", worker);
  const char *half = full;
  for (int lines = 0; lines < 5 && (half = memchr (half, '\n', len - (gsize) (half - full))); lines++)
    half++;
  if (half == NULL)
    rt_fuzz_fail ("%s is shorter than expected", worker);
  g_autofree char *grown_dir = g_build_filename (prefix, "seed-cache", NULL);
  rt_fuzz_write (worker, full, (gsize) (half - full));   /* in place: the inode stays */
  set_fixed_mtime (worker);
  record_identities ();
  rt_trace_free (load (e, grown_dir));
  g_autofree char *cached = only_cache_file (grown_dir);
  write_seed (cached, out, "hand-v2-grown.rtc");
  rt_fuzz_write (worker, full, len);
  set_fixed_mtime (worker);
  record_identities ();
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  rt_fuzz_init ();
  prefix = rt_fuzz_scratch_dir (PREFIX_TEMPLATE);
  files = g_ptr_array_new_with_free_func (g_free);
  identities = g_array_new (FALSE, FALSE, sizeof (Identity));
  for (guint k = 0; k < N_FIXTURES; k++)
    {
      Experiment *e = &experiments[k];
      g_autofree char *fixture = g_build_filename (RT_FIXTURES_DIR, fixture_names[k], NULL);
      e->exp = g_build_filename (prefix, fixture_names[k], NULL);
      e->cache_dir = g_build_filename (prefix, "cache", fixture_names[k], NULL);
      copy_tree (fixture, e->exp);
    }
  g_ptr_array_sort (files, compare_paths);
  set_fixed_times ();
  record_identities ();

  /* where each experiment's cache is looked for: found by letting the loader write one */
  for (guint k = 0; k < N_FIXTURES; k++)
    {
      Experiment *e = &experiments[k];
      rt_trace_free (load (e, e->cache_dir));
      e->cache_file = only_cache_file (e->cache_dir);
      if (e->cache_file == NULL)
        rt_fuzz_fail ("loading %s wrote no cache in %s", e->exp, e->cache_dir);
    }

  /* RT_FUZZ_CACHE_SEEDS=DIR: write the seed caches there and stop */
  const char *seeds = g_getenv ("RT_FUZZ_CACHE_SEEDS");
  if (seeds != NULL)
    {
      make_seeds (seeds);
      exit (0);
    }
  return 0;
}

/* The experiment whose path the input names, so that the cache is put where that
 * experiment's loader looks for it; hand-v2 when it names none. */
static const Experiment *
experiment_for (const guint8 *buf, gsize len)
{
  for (guint k = 0; k < N_FIXTURES; k++)
    {
      const char *exp = experiments[k].exp;
      if (memmem (buf, len, exp, strlen (exp) + 1) != NULL)
        return &experiments[k];
    }
  return &experiments[0];
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree guint8 *buf = (guint8 *) rt_fuzz_exact_copy (data, size);
  translate (buf, size, TRUE);
  const Experiment *e = experiment_for (buf, size);
  clear_dir (e->cache_dir);
  rt_fuzz_write (e->cache_file, buf, size);

  g_autoptr (RtTrace) t = load (e, e->cache_dir);
  rt_fuzz_check_trace (t);
  /* and the same cache as rt-report loads it */
  {
    clear_dir (e->cache_dir);
    rt_fuzz_write (e->cache_file, buf, size);
    g_autoptr (RtTrace) r = load_with (e, (RtLoadOptions) { .n_threads = 1, .max_problems_per_file = 8,
                                                            .cache_dir = e->cache_dir,
                                                            .reads = rt_report_analysis.reads });
    rt_fuzz_check_trace (r);
    read_as_a_report (r);
  }
  /* RT_FUZZ_VERBOSE=1: what became of each input, to see that seeds reach the reader */
  if (g_getenv ("RT_FUZZ_VERBOSE") != NULL)
    g_printerr ("rt-fuzz: %s: cache %s%s%s, files cached %u, resumed %u, parsed %u\n",
                e->exp, t->stats.cache_used ? "used" : "not used",
                t->stats.cache_rejected ? ": " : "",
                t->stats.cache_rejected ? t->stats.cache_rejected : "",
                t->stats.files_cached, t->stats.files_resumed, t->stats.files_parsed);

  /* RT_FUZZ_SAVED_INPUT=1 (set for the tests of regressions/): a saved input that is
   * turned away as written by another version was made for an older cache format and
   * now stops at the header: it tests nothing any more and must be found again. */
  const char *why = t->stats.cache_rejected;
  if (g_getenv ("RT_FUZZ_SAVED_INPUT") != NULL && why != NULL && strstr (why, "another version") != NULL)
    rt_fuzz_fail ("this saved cache is of another cache format (%s): it tests nothing now; "
                  "see tests/fuzz/README.md", why);

  /* a cache, damaged or not, leaves no temporary file behind */
  g_autoptr (GDir) dir = g_dir_open (e->cache_dir, 0, NULL);
  const char *name;
  while (dir && (name = g_dir_read_name (dir)) != NULL)
    if (!g_str_has_suffix (name, ".rtc"))
      rt_fuzz_fail ("%s left in the cache folder", name);
  return 0;
}
