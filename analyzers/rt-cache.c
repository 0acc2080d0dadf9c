/* SPDX-License-Identifier: Apache-2.0 */
/* rt-cache: what the cache folder holds (experiment, size, age, last use), and pruning it.
 * Every load keeps a cache per experiment; the loader keeps the folder within a limit, this
 * command shows it and removes by age or down to a size. */
#include "rolltrace/rt-cache-dir.h"
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-error.h"

#include <math.h>

static char *opt_cache_dir, *opt_older_than, *opt_max_size;
static gboolean opt_prune;

static const RtTableSpec cache_files_spec = {
  "cache_files", "one per file of the cache folder, least recently used (the first to go) first",
  (const RtColumn[]) {
    { RT_COL ("experiment", RT_COLUMN_TEXT, NULL,
              "the experiment folder it was made for; null: not a cache this rolltrace reads "
              "(another version, damaged, or a write that never finished)") },
    { RT_COL ("experiment_exists", RT_COLUMN_BOOL, NULL, "that folder is still there") },
    { RT_COL ("size", RT_COLUMN_INT, "bytes", "its size") },
    { RT_COL ("written", RT_COLUMN_TEXT, NULL, "when it was written, local time (ISO 8601)") },
    { RT_COL ("used", RT_COLUMN_TEXT, NULL, "when a command last used it, local time (ISO 8601)") },
    { RT_COL ("age_days", RT_COLUMN_NUMBER, "days", "since it was written") },
    { RT_COL ("unused_days", RT_COLUMN_NUMBER, "days", "since a command last used it") },
    { RT_COL ("file", RT_COLUMN_TEXT, NULL, "its name in the cache folder") },
    RT_COLUMNS_END,
  },
};

static char *
local_time (gint64 us)
{
  g_autoptr (GDateTime) t = g_date_time_new_from_unix_local (us / G_USEC_PER_SEC);
  return t != NULL ? g_date_time_format (t, "%Y-%m-%dT%H:%M:%S%:z") : NULL;
}

static RtTable *
entries_table (const GArray *entries, gint64 now_us)
{
  RtTable *table = rt_table_new (&cache_files_spec);
  for (guint i = 0; i < entries->len; i++)
    {
      const RtCacheEntry *e = &g_array_index (entries, RtCacheEntry, i);
      g_autofree char *written = local_time (e->written_us);
      g_autofree char *used = local_time (e->used_us);
      rt_table_text (table, e->experiment);
      if (e->experiment != NULL)
        rt_table_bool (table, g_file_test (e->experiment, G_FILE_TEST_IS_DIR));
      else
        rt_table_null (table);
      rt_table_int (table, (gint64) e->size);
      rt_table_text (table, written);
      rt_table_text (table, used);
      rt_table_number (table, (double) (now_us - e->written_us) / (86400.0 * G_USEC_PER_SEC));
      rt_table_number (table, (double) (now_us - e->used_us) / (86400.0 * G_USEC_PER_SEC));
      rt_table_text (table, e->name);
    }
  return table;
}

/* "40 s", "12 min", "5 h", "3 d" */
static char *
duration_text (gint64 us)
{
  gint64 s = MAX (us, 0) / G_USEC_PER_SEC;
  if (s < 60)
    return g_strdup_printf ("%" G_GINT64_FORMAT " s", s);
  if (s < 3600)
    return g_strdup_printf ("%" G_GINT64_FORMAT " min", s / 60);
  if (s < 86400)
    return g_strdup_printf ("%" G_GINT64_FORMAT " h", s / 3600);
  return g_strdup_printf ("%" G_GINT64_FORMAT " d", s / 86400);
}

/* "812 B", "3.4 KiB", "312.9 MiB" (plain spaces: g_format_size's are no-break ones) */
static char *
size_text (guint64 bytes)
{
  static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
  if (bytes < 1024)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes);
  double v = (double) bytes;
  guint u = 0;
  for (v /= 1024; v >= 1023.95 && u + 1 < G_N_ELEMENTS (units); v /= 1024)
    u++;
  return g_strdup_printf ("%.1f %s", v, units[u]);
}

/* One line of the listing: size, age, time unused, what it is. */
static void
print_entry (RtSession *s, const char *lead, const RtCacheEntry *e, gint64 now_us)
{
  g_autofree char *size = size_text (e->size);
  g_autofree char *age = duration_text (now_us - e->written_us);
  g_autofree char *unused = duration_text (now_us - e->used_us);
  g_autoptr (GString) what = g_string_new (NULL);
  if (e->experiment != NULL)
    {
      rt_tsv_append_text (what, e->experiment);   /* a terminal too is another language */
      if (!g_file_test (e->experiment, G_FILE_TEST_IS_DIR))
        g_string_append (what, " (gone)");
    }
  else
    g_string_append_printf (what, "%s (%s)", e->name,
                            e->leftover ? "a write that never finished" : "not readable by this rolltrace");
  rt_session_print (s, "%s%11s %7s %7s  %s\n", lead, size, age, unused, what->str);
}

/* --older-than DAYS as microseconds, -1 when not given. */
static gboolean
parse_days (gint64 *us, GError **error)
{
  *us = -1;
  if (opt_older_than == NULL)
    return TRUE;
  char *end = NULL;
  double days = g_ascii_strtod (opt_older_than, &end);
  if (end == opt_older_than || *end != '\0' || !(days >= 0 && days <= 1e6))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE,
                   "--older-than: '%s' is not a number of days (0 to 1000000; 0.5 is half a day)", opt_older_than);
      return FALSE;
    }
  *us = (gint64) llround (days * 86400 * G_USEC_PER_SEC);
  return TRUE;
}

static int
run (RtSession *s, GError **error)
{
  gint64 unused_us;
  guint64 max_size = G_MAXUINT64, limit;
  if (!parse_days (&unused_us, error)
      || (opt_max_size != NULL && !rt_size_parse (opt_max_size, &max_size, error)))
    {
      if (opt_max_size != NULL && *error != NULL && g_str_has_prefix ((*error)->message, "'"))
        g_prefix_error (error, "--max-size: ");
      return 0;
    }
  if ((opt_older_than != NULL || opt_max_size != NULL) && !opt_prune)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE,
                   "--older-than and --max-size say what --prune removes: add --prune");
      return 0;
    }
  g_autoptr (GError) limit_error = NULL;
  gboolean limit_ok = rt_cache_max_size (&limit, &limit_error);
  if (!limit_ok)
    g_printerr ("rt-cache: note: %s; the limit is the default, %s\n", limit_error->message,
                RT_CACHE_DEFAULT_MAX_SIZE_TEXT);
  /* --prune alone: down to the limit the loader keeps */
  if (opt_prune && opt_older_than == NULL && opt_max_size == NULL)
    max_size = limit;

  g_autofree char *dir = opt_cache_dir != NULL ? g_strdup (opt_cache_dir) : rt_cache_default_dir ();
  g_autoptr (GArray) entries = rt_cache_dir_list (dir, error);
  if (entries == NULL)
    return 0;
  gint64 now_us = g_get_real_time ();
  g_autoptr (GArray) removed = rt_cache_entries_new ();
  gboolean pruned = !opt_prune || rt_cache_dir_prune (dir, entries, now_us, unused_us, max_size, NULL, removed, error);

  guint64 total = rt_cache_entries_size (entries);
  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_member_string (w, "dir", dir);
  if (limit == G_MAXUINT64)
    rt_jw_member_string (w, "max_size", NULL);
  else
    rt_jw_member_int (w, "max_size", (gint64) limit);
  rt_jw_member_int (w, "size", (gint64) total);
  g_autoptr (RtTable) kept = entries_table (entries, now_us);
  rt_jw_key (w, "caches");
  rt_table_write_json (kept, w);
  g_autoptr (RtTable) gone = entries_table (removed, now_us);
  rt_jw_key (w, "removed");
  rt_table_write_json (gone, w);
  rt_jw_end_object (w);

  g_autofree char *total_text = size_text (total);
  g_autofree char *limit_text = limit == G_MAXUINT64 ? g_strdup ("none") : size_text (limit);
  rt_session_print (s, "cache folder  %s\n", dir);
  rt_session_print (s, "limit         %s (%s; the loader keeps the folder within it)\n", limit_text,
                    g_getenv (RT_CACHE_MAX_SIZE_ENV) != NULL && limit_ok
                    ? "from " RT_CACHE_MAX_SIZE_ENV
                    : "the default; " RT_CACHE_MAX_SIZE_ENV " sets another, 0 none");
  for (guint i = 0; i < removed->len; i++)
    print_entry (s, "removed ", &g_array_index (removed, RtCacheEntry, i), now_us);
  if (entries->len > 0)
    rt_session_print (s, "%s%11s %7s %7s  %s\n", opt_prune ? "kept    " : "", "size", "age", "unused",
                      "experiment (the least recently used first: the first to go)");
  for (guint i = 0; i < entries->len; i++)
    print_entry (s, opt_prune ? "kept    " : "", &g_array_index (entries, RtCacheEntry, i), now_us);
  rt_session_print (s, "total         %s in %u file%s\n", total_text, entries->len, entries->len == 1 ? "" : "s");
  return pruned ? 0 : 1;
}

int
main (int argc, char **argv)
{
  static const GOptionEntry entries[] = {
    { "cache-dir", 0, 0, G_OPTION_ARG_FILENAME, &opt_cache_dir,
      "The cache folder (default $XDG_CACHE_HOME/rolltrace, as for every command)", "DIR" },
    { "prune", 0, 0, G_OPTION_ARG_NONE, &opt_prune,
      "Remove caches: those --older-than says, then the least recently used until the folder "
      "fits in --max-size; alone, down to the limit", NULL },
    { "older-than", 0, 0, G_OPTION_ARG_STRING, &opt_older_than,
      "With --prune: remove every cache no command used for DAYS days (0.5: half a day)", "DAYS" },
    { "max-size", 0, 0, G_OPTION_ARG_STRING, &opt_max_size,
      "With --prune: remove the least recently used caches until the folder fits in SIZE "
      "(bytes, or 500M, 4G...)", "SIZE" },
    G_OPTION_ENTRY_NULL
  };
  static const RtTableSpec *const tables[] = { &cache_files_spec, NULL };
  static const RtCommand cmd = {
    .name = "rt-cache",
    .parameters = "",
    .summary = "What the cache folder holds: each cache's experiment, size, age and last use; with\n"
               "--prune, removes caches by age or down to a size. Every command that loads an\n"
               "experiment keeps a binary cache of its tables there and, after writing one, keeps\n"
               "the folder within a limit (" RT_CACHE_DEFAULT_MAX_SIZE_TEXT " by default, or the size in the\n"
               "environment variable " RT_CACHE_MAX_SIZE_ENV "; 0 for none), removing the\n"
               "caches used longest ago first. A cache removed is written again by the next load.",
    .description = "JSON (--json): {\"dir\", \"max_size\" (bytes; null: no limit), \"size\" (bytes kept),\n"
                   "\"caches\": [cache_files rows], \"removed\": [cache_files rows]}.\n\n"
                   "Exit status: 0; 1 when the folder cannot be read or a cache cannot be removed;\n"
                   "2 a usage error.\n\n"
                   "Examples:\n"
                   "  rt-cache\n"
                   "  rt-cache --prune --older-than 30\n"
                   "  rt-cache --prune --max-size 1G\n"
                   "  ROLLTRACE_CACHE_MAX_SIZE=10G rt-cdf logs/exp",
    .tables = tables,
    .tables_heading = "Tables (the JSON arrays of objects named above), by column:",
    .entries = entries,
    .run = run,
    .flags = RT_COMMAND_NO_ARGUMENTS,
  };
  return rt_command_main (&cmd, argc, argv);
}
