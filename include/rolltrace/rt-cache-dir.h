/* SPDX-License-Identifier: Apache-2.0 */
/* rt-cache-dir.h: the cache folder as a whole: which experiments it holds, how large and how
 * recently used, and keeping it within a size (the loader after each write, `rolltrace cache`). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The size the cache folder is kept within unless RT_CACHE_MAX_SIZE_ENV says otherwise:
 * about thirteen caches of a 10M-line trace (313 MB each, bench/RESULTS.md). */
#define RT_CACHE_DEFAULT_MAX_SIZE (G_GUINT64_CONSTANT (4) << 30)
#define RT_CACHE_DEFAULT_MAX_SIZE_TEXT "4G"
#define RT_CACHE_MAX_SIZE_ENV "ROLLTRACE_CACHE_MAX_SIZE"

/* A write that never finished (its process killed) leaves a temporary beside the caches:
 * one this old is nobody's any more, and counts, and goes, as a cache does. */
#define RT_CACHE_LEFTOVER_AGE_S (G_GINT64_CONSTANT (24) * 3600)

/* One file of the cache folder. */
typedef struct {
  char *name;                 /* in the folder */
  char *experiment;           /* the experiment's canonical path; NULL: not a cache this
                               * rolltrace reads (another version, damaged, a leftover) */
  gboolean leftover;          /* a temporary of a write that never finished */
  guint64 size;               /* bytes */
  gint64 written_us;          /* when it was written, microseconds since 1970 (its mtime) */
  gint64 used_us;             /* when a load last used it (its atime, which every load that
                               * opens it sets); never before written_us */
} RtCacheEntry;

/* An empty array of RtCacheEntry that clears them (for rt_cache_dir_prune's `removed`). */
GArray *rt_cache_entries_new (void);

/* The files of the cache folder `dir`, least recently used first (ties: the larger first):
 * an array of RtCacheEntry that clears them. A folder that does not exist holds nothing. */
GArray *rt_cache_dir_list (const char *dir, GError **error);

/* Their sizes added up. */
guint64 rt_cache_entries_size (const GArray *entries);

/* Reads a size: a number of bytes, or with K, M, G or T (powers of 1024, "KiB" and "KB"
 * alike): 500M, 4G, 1.5GiB. */
gboolean rt_size_parse (const char *text, guint64 *bytes, GError **error);

/* The size the folder is kept within: RT_CACHE_MAX_SIZE_ENV when set (0: no limit),
 * else RT_CACHE_DEFAULT_MAX_SIZE. FALSE, with `bytes` the default, when it is set to
 * something that is not a size. */
gboolean rt_cache_max_size (guint64 *bytes, GError **error);

/* Removes, in the order of `entries` (least recently used first), every one not used for
 * `unused_us` microseconds before `now_us` (< 0: no such rule), then more until what is left fits in
 * `max_size` bytes (G_MAXUINT64: no such rule), never the one named `keep` (or NULL). The
 * removed ones move from `entries` to `removed`, in order (NULL: freed). A file another
 * process removed first counts as removed; one that cannot be removed stays, with an error.
 * The caches are renamed into place and mapped when read, so removing one under a running
 * command takes nothing from it. */
gboolean rt_cache_dir_prune (const char *dir, GArray *entries, gint64 now_us, gint64 unused_us,
                             guint64 max_size, const char *keep, GArray *removed, GError **error);

/* What the loader does after writing the cache file `written` of the folder `dir`: the
 * folder kept within rt_cache_max_size, the least recently used going first. Failures are
 * notes: a cache is a convenience. */
void rt_cache_dir_enforce_limit (const char *dir, const char *written);

G_END_DECLS
