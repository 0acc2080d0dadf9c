/* SPDX-License-Identifier: Apache-2.0 */
/* cache-dir.c: the cache folder as a whole: what it holds, and keeping it within a size.
 * One cache per experiment is written and never removed by its loader, so the folder grows. */
#include "rolltrace/rt-cache-dir.h"
#include "rolltrace/rt-error.h"
#include "cache-private.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

static void
entry_clear (gpointer data)
{
  RtCacheEntry *e = data;
  g_free (e->name);
  g_free (e->experiment);
}

GArray *
rt_cache_entries_new (void)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (RtCacheEntry));
  g_array_set_clear_func (a, entry_clear);
  return a;
}

static gint64
time_us (const struct timespec *t)
{
  return (gint64) t->tv_sec * G_USEC_PER_SEC + t->tv_nsec / 1000;
}

static gint
by_last_use (gconstpointer pa, gconstpointer pb)
{
  const RtCacheEntry *a = pa, *b = pb;
  if (a->used_us != b->used_us)
    return a->used_us < b->used_us ? -1 : 1;
  if (a->size != b->size)
    return a->size > b->size ? -1 : 1;
  return strcmp (a->name, b->name);
}

/* A cache's name (rt_load_cache_path), its delta's (rt_cache_delta_path), or the temporary of
 * one being written (rt_cache_draft_new): nothing else in the folder is ours to count or remove. */
static gboolean
is_cache_name (const char *name, gboolean *leftover)
{
  *leftover = g_str_has_prefix (name, ".rolltrace-") && strlen (name) == strlen (".rolltrace-XXXXXX");
  return *leftover || ((g_str_has_suffix (name, ".rtc") || g_str_has_suffix (name, ".rtc" RT_CACHE_DELTA_SUFFIX))
                       && name[0] != '.');
}

/* Each delta counted with its base, as one entry: they are used, and go, together. A delta
 * without its base stays an entry of its own (the next write of its experiment replaces it). */
static void
fold_deltas (GArray *entries)
{
  g_autoptr (GHashTable) bases = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < entries->len; i++)
    {
      RtCacheEntry *e = &g_array_index (entries, RtCacheEntry, i);
      if (g_str_has_suffix (e->name, ".rtc"))
        g_hash_table_insert (bases, e->name, GUINT_TO_POINTER (i + 1));
    }
  g_autofree gboolean *folded = g_new0 (gboolean, entries->len + 1);
  for (guint i = 0; i < entries->len; i++)
    {
      const RtCacheEntry *e = &g_array_index (entries, RtCacheEntry, i);
      if (!g_str_has_suffix (e->name, RT_CACHE_DELTA_SUFFIX))
        continue;
      g_autofree char *base_name = g_strndup (e->name, strlen (e->name) - strlen (RT_CACHE_DELTA_SUFFIX));
      guint at = GPOINTER_TO_UINT (g_hash_table_lookup (bases, base_name));
      if (at == 0)
        continue;
      RtCacheEntry *base = &g_array_index (entries, RtCacheEntry, at - 1);
      base->size += e->size;
      base->written_us = MAX (base->written_us, e->written_us);
      base->used_us = MAX (base->used_us, e->used_us);
      folded[i] = TRUE;
    }
  for (guint i = entries->len; i-- > 0;)   /* (the bases' places above kept until now) */
    if (folded[i])
      g_array_remove_index (entries, i);
}

GArray *
rt_cache_dir_list (const char *dir, GError **error)
{
  GArray *entries = rt_cache_entries_new ();
  g_autoptr (GError) local = NULL;
  g_autoptr (GDir) d = g_dir_open (dir, 0, &local);
  if (d == NULL)
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return entries;
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot read the cache folder %s: %s", dir, local->message);
      g_array_unref (entries);
      return NULL;
    }
  gint64 now_us = g_get_real_time ();
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      gboolean leftover;
      if (!is_cache_name (name, &leftover))
        continue;
      g_autofree char *path = g_build_filename (dir, name, NULL);
      struct stat st;
      if (lstat (path, &st) != 0 || !S_ISREG (st.st_mode))
        continue;
      /* a temporary younger than that may be a cache another command is writing now */
      if (leftover && now_us - time_us (&st.st_mtim) < RT_CACHE_LEFTOVER_AGE_S * G_USEC_PER_SEC)
        continue;
      RtCacheEntry e = {
        .name = g_strdup (name),
        .experiment = leftover ? NULL : rt_cache_file_experiment (path),
        .leftover = leftover,
        .size = (guint64) st.st_size,
        .written_us = time_us (&st.st_mtim),
        .used_us = MAX (time_us (&st.st_atim), time_us (&st.st_mtim)),
      };
      g_array_append_val (entries, e);
    }
  fold_deltas (entries);
  g_array_sort (entries, by_last_use);
  return entries;
}

guint64
rt_cache_entries_size (const GArray *entries)
{
  guint64 total = 0;
  for (guint i = 0; i < entries->len; i++)
    total += g_array_index (entries, RtCacheEntry, i).size;
  return total;
}

gboolean
rt_size_parse (const char *text, guint64 *bytes, GError **error)
{
  static const char units[] = "KMGT";
  char *end = NULL;
  double v = text != NULL && g_ascii_isdigit (text[0]) ? g_ascii_strtod (text, &end) : NAN;
  int shift = 0;
  if (end != NULL && *end != '\0')
    {
      const char *u = strchr (units, g_ascii_toupper (*end));
      if (u != NULL)
        {
          shift = 10 * (int) (u - units + 1);
          end++;
          if (g_ascii_strcasecmp (end, "iB") == 0 || g_ascii_strcasecmp (end, "B") == 0)
            end += strlen (end);
        }
      else if (g_ascii_strcasecmp (end, "B") == 0)
        end++;
    }
  double b = end != NULL && *end == '\0' && isfinite (v) ? ldexp (v, shift) : NAN;
  if (!(b >= 0 && b < 0x1p64))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE,
                   "'%s' is not a size: give bytes, or a number with K, M, G or T (500M, 4G, 1.5GiB)",
                   text != NULL ? text : "");
      return FALSE;
    }
  *bytes = (guint64) b;
  return TRUE;
}

gboolean
rt_cache_max_size (guint64 *bytes, GError **error)
{
  *bytes = RT_CACHE_DEFAULT_MAX_SIZE;
  const char *env = g_getenv (RT_CACHE_MAX_SIZE_ENV);
  if (env == NULL || env[0] == '\0')
    return TRUE;
  guint64 v;
  g_autoptr (GError) local = NULL;
  if (!rt_size_parse (env, &v, &local))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "%s=%s: %s", RT_CACHE_MAX_SIZE_ENV, env, local->message);
      return FALSE;
    }
  *bytes = v == 0 ? G_MAXUINT64 : v;
  return TRUE;
}

gboolean
rt_cache_dir_prune (const char *dir, GArray *entries, gint64 now_us, gint64 unused_us, guint64 max_size,
                    const char *keep, GArray *removed, GError **error)
{
  guint64 total = rt_cache_entries_size (entries);
  gboolean ok = TRUE;
  for (guint i = 0; i < entries->len;)
    {
      RtCacheEntry *e = &g_array_index (entries, RtCacheEntry, i);
      gboolean unused = unused_us >= 0 && now_us - e->used_us >= unused_us;
      if ((!unused && total <= max_size) || g_strcmp0 (e->name, keep) == 0)
        {
          i++;
          continue;
        }
      g_autofree char *path = g_build_filename (dir, e->name, NULL);
      if (g_unlink (path) != 0 && errno != ENOENT)
        {
          int err = errno;
          if (ok)
            g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot remove %s: %s", path, g_strerror (err));
          ok = FALSE;
          i++;
          continue;
        }
      /* (a base's delta, counted with it: rt_cache_dir_list) */
      g_autofree char *delta = rt_cache_delta_path (path);
      if (g_str_has_suffix (path, ".rtc"))
        g_unlink (delta);
      total -= e->size;
      if (removed != NULL)
        {
          g_array_append_val (removed, *e);   /* the strings move with it */
          e->name = e->experiment = NULL;
        }
      g_array_remove_index (entries, i);
    }
  return ok;
}

void
rt_cache_dir_enforce_limit (const char *dir, const char *written)
{
  guint64 max_size;
  g_autoptr (GError) error = NULL;
  if (!rt_cache_max_size (&max_size, &error))
    g_printerr ("rolltrace: note: %s; the cache is kept within %s\n", error->message,
                RT_CACHE_DEFAULT_MAX_SIZE_TEXT);
  g_clear_error (&error);
  if (max_size == G_MAXUINT64)
    return;
  g_autoptr (GArray) entries = rt_cache_dir_list (dir, &error);
  if (entries == NULL || rt_cache_entries_size (entries) <= max_size)
    return;
  g_autofree char *keep = g_path_get_basename (written);
  if (!rt_cache_dir_prune (dir, entries, 0, -1, max_size, keep, NULL, &error))
    g_printerr ("rolltrace: note: %s (the cache folder is over its limit: `rolltrace cache` lists it)\n",
                error->message);
}
