/* SPDX-License-Identifier: Apache-2.0 */
/* cache.c: the binary cache of an experiment's tables, so that later analyzers skip the JSON.
 * Never trusted blindly: version, byte order, size, bounds and checksums are checked first. */
#define _GNU_SOURCE   /* O_NOATIME */
#include "cache-format-private.h"
#include "memory-private.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <glib/gstdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>


/* The tables section, in place in the mapping. */
typedef struct {
  const CacheFile *files;
  const CacheRequest *requests;
  const RtTurnFigures *turns;
  const CacheProblem *problems;
  const guint64 *names;               /* strings */
  const CacheStep *steps;
  const double *durations;
  const RtTurnSums *turn_sums;
  const CacheTurnMark *turn_marks;
  const double *engine;               /* one per request */
} Tables;

typedef enum { PART_UNCHECKED, PART_GOOD, PART_BAD } PartState;
#define FILE_TABLES_BAD 0x80

struct _RtCacheMap {
  const guint8 *data;                 /* the whole file, mapped */
  gsize size;
  const char *strings;                /* in the mapping */
  gsize strings_size;
  const char *ids;                    /* the request ids, in the mapping */
  gsize ids_size;
  CacheHeader h;
  Tables t;
  gint state[N_PARTS];                /* PartState, set once checked */
  guint8 *file_state;                 /* of each file: the RtCacheTables found good, or
                                       * FILE_TABLES_BAD */
  GHashTable *by_path;                /* path -> index + 1 */
  dev_t dev;                          /* the cache file itself, to remove only it */
  ino_t ino;
  RtCacheMap *delta;                  /* the delta beside a base, if any: its records are
                                       * numbered after the base's */
  guint64 base_files;                 /* a delta's: the records of its base */
};

/* The map that holds `record` of the base and its delta together, `record` turned into its
 * number there. */
static RtCacheMap *
holder (RtCacheMap *map, guint *record)
{
  if (map->delta != NULL && *record >= map->h.n_files)
    {
      *record -= (guint) map->h.n_files;
      return map->delta;
    }
  return map;
}

guint64
rt_hash64 (const void *data, gsize len, guint64 seed)
{
  const guint8 *p = data;
  HashLanes l = hash_start (seed);
  gsize i = 0;
  for (; i + 64 <= len; i += 64)
    hash_block (&l, p + i);
  return hash_finish (l, p, i, len);
}

/* ---- opening ---------------------------------------------------------------------- */

static gboolean
header_ok (const CacheHeader *h, gsize file_size, const char **why)
{
  if (memcmp (h->magic, "RTCACHE\n", 8) != 0)
    *why = "not a rolltrace cache";
  else if (h->byte_order != BYTE_ORDER_MARK)
    *why = "written on a machine of another byte order";
  else if (h->format != CACHE_FORMAT || h->event_size != sizeof (RtEvent)
           || strncmp (h->version, RT_VERSION, sizeof h->version) != 0)
    *why = "written by another version of rolltrace";
  else if (h->total_size != file_size)
    *why = "truncated";
  else if (h->header_checksum != rt_hash64 (h, offsetof (CacheHeader, header_checksum), 0))
    *why = "damaged header";
  else if (h->n_files > G_MAXUINT32 || h->n_requests > G_MAXUINT32 || h->n_turns > G_MAXUINT32
           || h->n_problems > G_MAXUINT32 || h->n_steps > G_MAXUINT32
           || h->n_durations > G_MAXUINT32 || h->n_turn_sums > TURN_SUMS_MAX
           || h->tables_at > file_size || h->tables_at % 8 != 0
           || tables_size_for (h) > file_size - h->tables_at
           || h->strings_at > file_size || h->strings_size > file_size - h->strings_at
           || h->strings_size == 0 || h->ids_at > file_size
           || h->ids_size > file_size - h->ids_at)
    *why = "damaged header";
  else
    return TRUE;
  return FALSE;
}

static gboolean
read_at (int fd, void *buf, gsize n, guint64 at)
{
  return rt_read_at (fd, buf, n, at) == n;
}

static gboolean
string_ok (const RtCacheMap *m, guint64 s)
{
  return s < m->strings_size;   /* the blob ends in a NUL, so every string ends */
}

/* Every offset and range of one part points inside what it refers to. */
static gboolean
part_bounds_ok (const RtCacheMap *m, Part part)
{
  const CacheHeader *h = &m->h;
  switch (part)
    {
    case PART_FILES:
      for (guint64 i = 0; i < h->n_files; i++)
        {
          const CacheFile *f = &m->t.files[i];
          if (!string_ok (m, f->path) || (guint64) f->first_request + f->n_requests > h->n_requests
              || (guint64) f->first_problem + f->n_problems > h->n_problems
              || (guint64) f->first_turn + f->n_turns > h->n_turns
              || f->ids_at > h->ids_size || f->ids_size > h->ids_size - f->ids_at
              || f->rows_at % 8 != 0 || f->rows_at > m->size
              || (guint64) f->n_rows * sizeof (RtEvent) > m->size - f->rows_at
              || f->n_events_at_end > f->n_rows || f->first_rollout.n_events > f->n_rows
              || f->first_rollout.n_requests > f->n_requests || f->n_requests_at_end > f->n_requests
              || f->first_rollout.n_complete > f->n_complete)
            return FALSE;
        }
      return TRUE;
    case PART_PROBLEMS:
      for (guint64 i = 0; i < h->n_problems; i++)
        if (!string_ok (m, m->t.problems[i].reason))
          return FALSE;
      return TRUE;
    case PART_NAMES:
      for (guint64 i = 0; i < h->n_names; i++)
        if (!string_ok (m, m->t.names[i]))
          return FALSE;
      return TRUE;
    case PART_STEPS:
      for (guint64 i = 0; i < h->n_steps; i++)
        {
          const CacheStep *s = &m->t.steps[i];
          if ((guint64) s->first_file + s->n_files > m->base_files + h->n_files
              || s->first_duration > h->n_durations
              || s->n_durations > h->n_durations - s->first_duration)
            return FALSE;
        }
      return TRUE;
    case PART_TURN_MARKS:
      for (guint32 i = 0; i < h->n_turn_marks; i++)
        {
          const CacheTurnMark *k = &m->t.turn_marks[i];
          if (k->end_record > h->n_files || k->n_sums > (guint32) G_MAXINT16 + 1
              || k->first_sum > h->n_turn_sums || k->n_sums > h->n_turn_sums - k->first_sum)
            return FALSE;
        }
      return TRUE;
    case PART_DURATIONS:
    case PART_TURN_SUMS:
    case PART_ENGINE:
      return TRUE;   /* plain numbers: nothing to point out of */
    case PART_REQUESTS:
    case PART_TURNS:
      break;         /* checked file by file (rt_cache_file_tables_ok) */
    case N_PARTS:
      break;
    }
  g_assert_not_reached ();
}

static const void *
part_data (const RtCacheMap *m, Part part)
{
  const guint8 *p = m->data + m->h.tables_at;
  for (Part before = 0; before < part; before++)
    p += part_size (&m->h, before);
  return p;
}

/* Checks a part the first time it is used: its checksum, then its bounds. Parts
 * checked from several threads at once are checked twice, with the same answer. */
static gboolean
part_ok (RtCacheMap *m, Part part)
{
  gint state = g_atomic_int_get (&m->state[part]);
  if (state == PART_UNCHECKED)
    {
      gboolean ok = rt_hash64 (part_data (m, part), part_size (&m->h, part), 1 + part)
                      == m->h.part_checksum[part]
                    && part_bounds_ok (m, part);
      state = ok ? PART_GOOD : PART_BAD;
      g_atomic_int_set (&m->state[part], state);
    }
  return state == PART_GOOD;
}

/* Checks the parts of a file's tables that `tables` names and that were not found good
 * yet: each its checksum; the requests also that each one's id lies in the file's range of
 * the ids blob (which ends in a NUL, so every id ends there, checked or not), its finish
 * reason in the strings, and its turns in the file's range (whose own bounds were checked
 * with the files). Once per part and file; a failure is final. */
gboolean
rt_cache_file_tables_ok (RtCacheMap *m, guint record, RtCacheTables tables)
{
  m = holder (m, &record);
  guint8 state = m->file_state[record];
  if (state & FILE_TABLES_BAD)
    return FALSE;
  const CacheFile *cf = &m->t.files[record];
  gboolean ok = TRUE;
  if ((tables & RT_CACHE_REQUESTS) && !(state & RT_CACHE_REQUESTS))
    {
      /* without a branch: every request is read anyway. Differences wrap: an id before the
       * file's range, or a first turn before its turns, comes out beyond them (the files'
       * ranges were checked to end inside the tables); a finish reason of 0 (none) is inside
       * the strings, which are never empty. The largest of each is compared once, after the
       * walk. A request is one 64-byte block of the checksum and 8 bytes more: hashed as it is checked, in one
       * walk over the table (two walks read it twice, the second from the cache, and the
       * checks' instructions did not hide under the first's waits for memory) */
      guint64 bad = 0, last_id = 0, last_reason = 0, turns_end = 0;
      const CacheRequest *first = &m->t.requests[cf->first_request], *q = first;
      /* file and step side by side, compared as one; complete, turns_from_timings, own_lines
       * and the byte after them too */
      G_STATIC_ASSERT (G_STRUCT_OFFSET (RtRequest, step) == G_STRUCT_OFFSET (RtRequest, file) + 4);
      G_STATIC_ASSERT (G_STRUCT_OFFSET (RtRequest, turns_from_timings)
                       == G_STRUCT_OFFSET (RtRequest, complete) + 1);
      G_STATIC_ASSERT (G_STRUCT_OFFSET (RtRequest, own_lines) == G_STRUCT_OFFSET (RtRequest, complete) + 2);
      G_STATIC_ASSERT (G_STRUCT_OFFSET (RtRequest, unused) == G_STRUCT_OFFSET (RtRequest, complete) + 3);
      guint32 file_step[2] = { record, (guint32) cf->step };
      guint64 want_file_step;
      memcpy (&want_file_step, file_step, 8);
      HashLanes lanes = hash_start (11);
      for (guint32 k = 0; k < cf->n_requests; k++, q++)
        {
          hash_request (&lanes, q);
          guint64 file_step_k;
          guint32 flags;
          memcpy (&file_step_k, &q->file, 8);
          memcpy (&flags, &q->complete, 4);
          last_id = MAX (last_id, q->id - cf->ids_at);
          last_reason = MAX (last_reason, q->finish_reason);
          /* where the request's turns end in the file's: their offset (wrapped, below 2^32)
           * and count added in 64 bits, which neither can overflow */
          turns_end = MAX (turns_end, (guint64) (q->first_turn - cf->first_turn) + q->n_turns);
          bad |= (file_step_k ^ want_file_step) | (guint32) (q->worker ^ cf->worker)
                 | (flags & 0xFFFEFEFE);   /* each 0 or 1, the last 0 */
        }
      gsize bytes = (gsize) cf->n_requests * sizeof (CacheRequest);
      ok = hash_finish (lanes, (const guint8 *) first, bytes, bytes) == cf->requests_checksum
           && (cf->n_requests == 0
               || (cf->ids_size > 0 && m->ids[cf->ids_at + cf->ids_size - 1] == '\0'
                   && last_id < cf->ids_size && last_reason < m->strings_size
                   && turns_end <= cf->n_turns));
      ok = ok && bad == 0;
      state |= RT_CACHE_REQUESTS;
    }
  if (ok && (tables & RT_CACHE_TURNS) && !(state & RT_CACHE_TURNS))
    {
      ok = rt_hash64 (&m->t.turns[cf->first_turn], (gsize) cf->n_turns * sizeof (RtTurnFigures), 12)
           == cf->turns_checksum;
      /* each turn index as the parser gives it, -1 (none) to G_MAXINT16: the turn sums are
       * kept by index */
      guint32 bad = 0;
      const RtTurnFigures *tf = m->t.turns + cf->first_turn;
      for (guint32 k = 0; k < cf->n_turns; k++)
        bad |= (guint32) (tf[k].turn + 1) > (guint32) G_MAXINT16 + 1;
      ok = ok && bad == 0;
      state |= RT_CACHE_TURNS;
    }
  if (ok && (tables & RT_CACHE_IDS) && !(state & RT_CACHE_IDS))
    {
      ok = rt_hash64 (m->ids + cf->ids_at, cf->ids_size, 4) == cf->ids_checksum;
      state |= RT_CACHE_IDS;
    }
  m->file_state[record] = ok ? state : FILE_TABLES_BAD;
  return ok;
}

static void
map_free (RtCacheMap *m)
{
  if (m->delta != NULL)
    map_free (m->delta);
  g_free (m->file_state);
  if (m->data)
    munmap ((void *) m->data, m->size);
  if (m->by_path)
    g_hash_table_unref (m->by_path);
  g_free (m);
}

/* Puts the event names of `m` into `reg`, in id order: those the registry knows (a base's, opened
 * before its delta) the same, the others interned after them getting the same ids. */
static gboolean
names_into (const RtCacheMap *m, RtEventRegistry *reg)
{
  guint known = rt_event_registry_size (reg);
  for (guint32 i = 0; i < m->h.n_names && i < known; i++)
    if (strcmp (m->strings + m->t.names[i], rt_event_registry_name (reg, (guint16) i)) != 0)
      return FALSE;
  for (guint32 i = known; i < m->h.n_names; i++)
    {
      const char *name = m->strings + m->t.names[i];
      RtSchemaFlags schema;
      if (rt_event_registry_intern (reg, name, strlen (name), TRUE, &schema) != i)
        return FALSE;
    }
  return TRUE;
}

/* The name `path` still means the file `m` was opened from (a cache is only ever replaced by a
 * rename: another inode), as `st` says of it. */
static gboolean
still_the_file (const RtCacheMap *m, const char *path, struct stat *st)
{
  return stat (path, st) == 0 && st->st_dev == m->dev && st->st_ino == m->ino;
}

/* Marks the cache file at `path` used now, for `rolltrace cache` and the size limit (the oldest
 * used goes first): its atime, set here as no mount's atime policy (relatime, noatime) would; a
 * cache of another user's, which we may not touch, keeps its own. */
static void
mark_used (const char *path)
{
  utimensat (AT_FDCWD, path, (const struct timespec[2]) { { .tv_nsec = UTIME_NOW }, { .tv_nsec = UTIME_OMIT } }, 0);
}

/* Opens the cache file at `path`: a base (`base` NULL), or the delta of `base`. */
static RtCacheMap *
map_open (const char *path, const char *exp_canonical, RtEventRegistry *reg, const RtCacheMap *base,
          const char **why)
{
  *why = NULL;
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;   /* no cache yet: not a rejection */
  RtCacheMap *m = g_new0 (RtCacheMap, 1);
  struct stat st;
  if (fstat (fd, &st) != 0 || (gsize) st.st_size < sizeof (CacheHeader)
      || !read_at (fd, &m->h, sizeof m->h, 0))
    {
      *why = "truncated";
      goto reject;
    }
  m->size = (gsize) st.st_size;
  m->dev = st.st_dev;
  m->ino = st.st_ino;
  if (!header_ok (&m->h, m->size, why))
    goto reject;
  if (base == NULL ? m->h.base_checksum != 0 : m->h.base_checksum != base->h.header_checksum)
    {
      *why = base == NULL ? "damaged header" : "made for another base";
      goto reject;
    }
  m->base_files = base != NULL ? base->h.n_files : 0;
  mark_used (path);

  /* Mapped, not read: pages of the page cache cost no copy, and a part no command
   * asks for is never touched. Private and read-only: what the checks saw stays. */
  void *data = mmap (NULL, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
  close (fd);
  fd = -1;
  if (data == MAP_FAILED)
    {
      *why = "unreadable";
      goto reject;
    }
#ifdef MADV_HUGEPAGE
  /* Where the cache's pages have to be read again (after a reboot, or once the page cache
   * let them go), in folios of 2 MiB rather than 4 KiB: every later run maps and unmaps
   * them for a fraction of the work (bench/RESULTS.md, "Behind the code"). A hint: nothing changes
   * where it is refused. */
  madvise (data, m->size, MADV_HUGEPAGE);
#endif
  m->data = data;
  m->strings = (const char *) m->data + m->h.strings_at;
  m->strings_size = m->h.strings_size;
  m->ids = (const char *) m->data + m->h.ids_at;
  m->ids_size = m->h.ids_size;
  m->t.files = part_data (m, PART_FILES);
  m->t.requests = part_data (m, PART_REQUESTS);
  m->t.turns = part_data (m, PART_TURNS);
  m->t.problems = part_data (m, PART_PROBLEMS);
  m->t.names = part_data (m, PART_NAMES);
  m->t.steps = part_data (m, PART_STEPS);
  m->t.durations = part_data (m, PART_DURATIONS);
  m->t.turn_sums = part_data (m, PART_TURN_SUMS);
  m->t.turn_marks = part_data (m, PART_TURN_MARKS);
  m->t.engine = part_data (m, PART_ENGINE);

  /* the strings and the small parts now; requests, turns and durations when used */
  if (rt_hash64 (m->strings, m->strings_size, 3) != m->h.strings_checksum
      || m->strings[m->strings_size - 1] != '\0' || !string_ok (m, m->h.experiment)
      || !part_ok (m, PART_FILES) || !part_ok (m, PART_PROBLEMS) || !part_ok (m, PART_NAMES)
      || !part_ok (m, PART_STEPS))
    {
      *why = "damaged tables";
      goto reject;
    }
  if (strcmp (m->strings + m->h.experiment, exp_canonical) != 0)
    {
      *why = "made for another experiment";
      goto reject;
    }
  if (!names_into (m, reg))
    {
      *why = "damaged tables";
      goto reject;
    }
  m->file_state = g_new0 (guint8, m->h.n_files + 1);
  m->by_path = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint32 i = 0; i < m->h.n_files; i++)
    g_hash_table_insert (m->by_path, (gpointer) (m->strings + m->t.files[i].path), GUINT_TO_POINTER (i + 1));
  return m;

reject:
  if (fd >= 0)
    close (fd);
  map_free (m);
  return NULL;
}

char *
rt_cache_delta_path (const char *path)
{
  return g_strconcat (path, RT_CACHE_DELTA_SUFFIX, NULL);
}

/* Opens the delta beside base `m` (at `path`-delta) in place of the one it had, if any; the
 * one it had (a watch's round before), when still the file there, is kept with what it
 * checked (it is only ever replaced by a rename). */
static void
open_delta (RtCacheMap *m, const char *path, const char *exp_canonical, RtEventRegistry *reg)
{
  g_autofree char *delta_path = rt_cache_delta_path (path);
  struct stat st;
  if (m->delta != NULL && still_the_file (m->delta, delta_path, &st) && (gsize) st.st_size == m->delta->size
      && names_into (m->delta, reg))
    {
      mark_used (delta_path);
      return;
    }
  if (m->delta != NULL)
    g_clear_pointer (&m->delta, map_free);
  /* a delta that does not extend this base (written for the one before, or damaged) is left
   * out: its files are read again, and a new delta written */
  const char *delta_why;
  m->delta = map_open (delta_path, exp_canonical, reg, m, &delta_why);
}

RtCacheMap *
rt_cache_open (const char *path, const char *exp_canonical, RtEventRegistry *reg, const char **why)
{
  RtCacheMap *m = map_open (path, exp_canonical, reg, NULL, why);
  if (m != NULL)
    open_delta (m, path, exp_canonical, reg);
  return m;
}

const RtCacheMap *
rt_cache_delta (const RtCacheMap *map)
{
  return map->delta;
}

RtCacheMap *
rt_cache_reopen (RtCacheMap *kept, const char *path, const char *exp_canonical, RtEventRegistry *reg,
                 const char **why)
{
  /* the same file, of this experiment, its names interned into the fresh registry as they were */
  struct stat st;
  if (!still_the_file (kept, path, &st) || (gsize) st.st_size != kept->size
      || strcmp (kept->strings + kept->h.experiment, exp_canonical) != 0 || !names_into (kept, reg))
    {
      map_free (kept);
      return rt_cache_open (path, exp_canonical, reg, why);
    }
  *why = NULL;
  /* used again: not among the oldest used that another cache's write may remove */
  mark_used (path);
  open_delta (kept, path, exp_canonical, reg);
  return kept;
}

RtCacheBase
rt_cache_base (RtCacheMap *map)
{
  return (RtCacheBase) { map->h.header_checksum, map->h.n_files };
}

guint
rt_cache_n_base_files (RtCacheMap *map)
{
  return (guint) map->h.n_files;
}

void
rt_cache_close (RtCacheMap *map)
{
  if (map != NULL)
    map_free (map);
}

guint
rt_cache_n_files (RtCacheMap *map)
{
  return (guint) map->h.n_files + (map->delta != NULL ? (guint) map->delta->h.n_files : 0);
}

RtCacheMatch
rt_cache_match (RtCacheMap *map, const RtFile *f, guint *record)
{
  gpointer hit = g_hash_table_lookup (map->by_path, f->path);
  if (hit == NULL && map->delta != NULL)
    {
      RtCacheMatch match = rt_cache_match (map->delta, f, record);
      *record += (guint) map->h.n_files;
      return match;
    }
  if (hit == NULL)
    return RT_CACHE_MISS;
  *record = GPOINTER_TO_UINT (hit) - 1;
  const CacheFile *cf = &map->t.files[*record];
  /* another file under the same name (a new inode; but numbers are reused once
   * files are removed, so that alone proves nothing), or one that was cut */
  if (cf->inode != f->inode || f->size < cf->resume_offset)
    return RT_CACHE_MISS;
  /* Size and mtime can be put back (touch -r, cp -p, a rewrite within the
   * timestamp's grain) but the change time cannot: any write, even one whose
   * mtime is then restored, gives the file a new one. */
  if (cf->size == f->size && cf->mtime_us == f->mtime_us && cf->ctime_ns == f->ctime_ns)
    return RT_CACHE_SAME;
  /* Changed. Only a file that grew may have been appended to (which is what a
   * running job does); one of the same size was rewritten, or touched. */
  if (f->size > cf->size && cf->prefix_known)
    return RT_CACHE_GROWN;
  return RT_CACHE_MISS;
}

gboolean
rt_cache_complete (RtCacheMap *map, guint record, const RtFile *f)
{
  map = holder (map, &record);
  return map->t.files[record].resume_offset == f->size;
}

guint64
rt_cache_resume_offset (RtCacheMap *map, guint record)
{
  map = holder (map, &record);
  return map->t.files[record].resume_offset;
}

gboolean
rt_cache_prefix_checksum (int fd, guint64 upto, guint8 *head, guint64 *sum)
{
  /* the first block, one from the middle, and the last before upto: where a
   * rewrite shows (a new first line, or other lines where the old ones stopped) */
  const guint64 block = RT_PREFIX_BLOCK;
  guint64 at[3] = { 0, upto / 2 / block * block, upto > block ? upto - block : 0 };
  guint8 buf[RT_PREFIX_BLOCK];
  guint64 h = upto;
  for (guint i = 0; i < G_N_ELEMENTS (at); i++)
    {
      guint8 *b = i == 0 ? head : buf;
      gsize n = (gsize) MIN (block, upto - at[i]);
      if (!read_at (fd, b, n, at[i]))
        return FALSE;
      h = rt_hash64 (b, n, h ^ at[i]);
    }
  *sum = h;
  return TRUE;
}

gboolean
rt_cache_prefix_same (RtCacheMap *map, guint record, int fd)
{
  map = holder (map, &record);
  const CacheFile *cf = &map->t.files[record];
  guint8 head[RT_PREFIX_BLOCK];
  guint64 sum;
  return cf->prefix_known && rt_cache_prefix_checksum (fd, cf->resume_offset, head, &sum)
         && sum == cf->prefix_checksum;
}

gboolean
rt_cache_prefix (RtCacheMap *map, guint record, guint64 *sum)
{
  map = holder (map, &record);
  *sum = map->t.files[record].prefix_checksum;
  return map->t.files[record].prefix_known != 0;
}

guint64
rt_cache_n_requests (RtCacheMap *map)
{
  return map->h.n_requests + (map->delta != NULL ? map->delta->h.n_requests : 0);
}

void
rt_cache_file_snapshot (RtCacheMap *map, guint record, RtCacheSnapshot *snap)
{
  map = holder (map, &record);
  const CacheFile *cf = &map->t.files[record];
  RtFile *c = &snap->counters;
  memset (c, 0, sizeof *c);
  c->lines = cf->lines;
  c->events = cf->events;
  c->bad_lines = cf->bad_lines;
  c->field_problems = cf->field_problems;
  c->problems_total = cf->problems_total;
  c->glued_lines = cf->glued_lines;
  c->n_complete = cf->n_complete;
  c->start_min_s = cf->start_min_s;
  memcpy (c->step_sum_s, cf->step_sum_s, sizeof c->step_sum_s);
  c->n_rollout_ends = cf->n_rollout_ends;
  c->n_events_at_end = cf->n_events_at_end;
  c->n_requests_at_end = cf->n_requests_at_end;
  c->first_rollout = cf->first_rollout;
  c->schema = cf->schema;
  c->n_events = cf->n_rows;
  c->n_requests = cf->n_requests;
  c->first_turn = cf->first_turn;   /* in the cache's own turns (rt_cache_turns) */
  c->n_turns = cf->n_turns;
  snap->offset = cf->resume_offset;
  snap->line = cf->resume_line;
  snap->prefix_checksum = cf->prefix_checksum;
  snap->prefix_known = cf->prefix_known != 0;
  snap->rows = (const RtEvent *) (map->data + cf->rows_at);
  snap->rows_checksum = cf->rows_checksum;

  /* The file's turns in one go; each request's range is taken as the cache says,
   * inside the file's (rt_cache_file_tables_ok checked it), one after another or not. */
  g_assert (snap->requests == NULL || (map->file_state[record] & RT_CACHE_REQUESTS));
  if (snap->requests != NULL && cf->n_requests > 0)
    {
      guint32 turn_base = cf->first_turn;   /* no turns array: the cache's own */
      if (snap->turns != NULL)
        {
          turn_base = snap->turns->len;
          g_array_append_vals (snap->turns, &map->t.turns[cf->first_turn], cf->n_turns);
        }
      guint first = snap->requests->len;
      g_array_set_size (snap->requests, first + cf->n_requests);
      RtRequest *out = &g_array_index (snap->requests, RtRequest, first);
      const CacheRequest *in = &map->t.requests[cf->first_request];
      memcpy (out, in, (gsize) cf->n_requests * sizeof *out);
      /* texts as their addresses, turns in `turns` (or as they are: the cache's own) */
      guintptr ids = (guintptr) map->ids, strings = (guintptr) map->strings;
      for (guint32 k = 0; k < cf->n_requests; k++)
        {
          out[k].id += ids;
          out[k].finish_reason = out[k].finish_reason == 0 ? 0 : out[k].finish_reason + strings;
          out[k].first_turn = turn_base + (out[k].first_turn - cf->first_turn);
        }
    }
  for (guint32 k = 0; k < cf->n_problems; k++)
    {
      const CacheProblem *cp = &map->t.problems[cf->first_problem + k];
      RtCacheProblem pr = { cp->line, map->strings + cp->reason };
      g_array_append_val (snap->problems, pr);
    }
}

/* rt_cache_prefetch_file_tables of one map's own records. */
static void
prefetch_own (RtCacheMap *map, const guint *records, guint n, RtCacheTables tables)
{
#ifdef MADV_POPULATE_READ
  /* each table's span from the lowest of those records' ranges to the highest (they follow
   * one another: a slice of the trace's files is one run of the tables); the ranges lie
   * inside their tables (checked with the files when the cache was opened) */
  const gsize page = (gsize) sysconf (_SC_PAGESIZE);
  struct { RtCacheTables table; const guint8 *base; gsize size; guintptr lo, hi; } spans[] = {
    { RT_CACHE_REQUESTS, (const guint8 *) map->t.requests, sizeof (CacheRequest), UINTPTR_MAX, 0 },
    { RT_CACHE_TURNS, (const guint8 *) map->t.turns, sizeof (RtTurnFigures), UINTPTR_MAX, 0 },
    { RT_CACHE_IDS, (const guint8 *) map->ids, 1, UINTPTR_MAX, 0 },
  };
  for (guint k = 0; k < n; k++)
    {
      const CacheFile *cf = &map->t.files[records[k]];
      guint64 at[] = { cf->first_request, cf->first_turn, cf->ids_at };
      guint64 len[] = { cf->n_requests, cf->n_turns, cf->ids_size };
      for (guint i = 0; i < G_N_ELEMENTS (spans); i++)
        if (len[i] > 0)
          {
            guintptr lo = (guintptr) (spans[i].base + at[i] * spans[i].size);
            spans[i].lo = MIN (spans[i].lo, lo);
            spans[i].hi = MAX (spans[i].hi, lo + len[i] * spans[i].size);
          }
    }
  for (guint i = 0; i < G_N_ELEMENTS (spans); i++)
    if ((tables & spans[i].table) && spans[i].hi > spans[i].lo)
      {
        guintptr start = spans[i].lo / page * page;
        madvise ((void *) start, spans[i].hi - start, MADV_POPULATE_READ);   /* a hint: failure is fine */
      }
#else
  (void) map;
  (void) records;
  (void) n;
  (void) tables;
#endif
}

void
rt_cache_prefetch_file_tables (RtCacheMap *map, const guint *records, guint n, RtCacheTables tables)
{
  if (map->delta == NULL)
    {
      prefetch_own (map, records, n, tables);
      return;
    }
  /* each map's records apart, the delta's in its own numbers */
  g_autofree guint *own = g_new (guint, MAX (n, 1u));
  g_autofree guint *theirs = g_new (guint, MAX (n, 1u));
  guint n_own = 0, n_theirs = 0;
  for (guint k = 0; k < n; k++)
    {
      guint record = records[k];
      if (holder (map, &record) == map)
        own[n_own++] = record;
      else
        theirs[n_theirs++] = record;
    }
  prefetch_own (map, own, n_own, tables);
  prefetch_own (map->delta, theirs, n_theirs, tables);
}

/* Gives back the pages of [lo, hi), part of the part [part_lo, part_hi) of the mapping, and those
 * around it up to the next 2 MiB boundary within the part: a file system that keeps its pages in
 * large folios maps a whole folio on a fault (up to 2 MiB), so that a walk giving back only the
 * range it read keeps the folio's other pages, and over a walk of every step holds the whole
 * part after all. A neighbour's pages given back are read from the page cache again if needed.
 * Pages that the part shares with the next are kept. */
static void
release_range (const void *lo, const void *hi, const void *part_lo, const void *part_hi)
{
  const gsize page = (gsize) sysconf (_SC_PAGESIZE), folio = 2u << 20;
  guintptr start = MAX ((guintptr) lo / folio * folio, ((guintptr) part_lo + page - 1) / page * page);
  guintptr end = MIN (((guintptr) hi + folio - 1) / folio * folio, (guintptr) part_hi / page * page);
  if (end > start)
    madvise ((void *) start, end - start, MADV_DONTNEED);
}

void
rt_cache_requests_taken (RtCacheMap *map)
{
  const CacheRequest *end = map->t.requests + map->h.n_requests;
  release_range (map->t.requests, end, map->t.requests, end);
  if (map->delta != NULL)
    rt_cache_requests_taken (map->delta);
}

const RtRequest *
rt_cache_requests (RtCacheMap *map, guint first_record, guint n_records, guint32 *n,
                   const char **ids, const char **texts)
{
  g_assert ((guint64) first_record + n_records <= map->h.n_files);
  guint32 first = n_records > 0 ? map->t.files[first_record].first_request : 0, end = first;
  for (guint r = first_record; r < first_record + n_records; r++)
    if (map->t.files[r].first_request != end)
      return NULL;
    else
      end += map->t.files[r].n_requests;   /* (no overflow: the files' bounds were checked) */
  *n = end - first;
  *ids = map->ids;
  *texts = map->strings;
  return map->t.requests + first;
}

guint32
rt_cache_first_request (RtCacheMap *map, guint record)
{
  map = holder (map, &record);
  return map->t.files[record].first_request;
}

const RtTurnFigures *
rt_cache_turns (RtCacheMap *map, guint *n)
{
  *n = (guint) map->h.n_turns;
  return map->t.turns;
}

/* rt_cache_step_durations of `map` alone (a base, or a delta: its steps number their records
 * as the two together do). */
static const double *
own_step_durations (RtCacheMap *map, gint32 step, guint first_record, guint n_files, guint *n)
{
  for (guint64 i = 0; i < map->h.n_steps; i++)
    {
      const CacheStep *s = &map->t.steps[i];
      if (s->step != step || s->first_file != first_record || s->n_files != n_files)
        continue;
      if (!part_ok (map, PART_DURATIONS))
        return NULL;
      *n = s->n_durations;
      return map->t.durations + s->first_duration;
    }
  return NULL;
}

const double *
rt_cache_step_durations (RtCacheMap *map, gint32 step, guint first_record, guint n_files, guint *n)
{
  const double *in_delta = map->delta != NULL
                             ? own_step_durations (map->delta, step, first_record, n_files, n) : NULL;
  return in_delta != NULL ? in_delta : own_step_durations (map, step, first_record, n_files, n);
}

guint
rt_cache_step_durations_runs (RtCacheMap *map, gint32 step, guint n_files, const double *runs[2],
                              guint lens[2])
{
  guint n_base = (guint) map->h.n_files;
  if (map->delta != NULL && n_files == n_base + map->delta->h.n_files)
    {
      runs[0] = own_step_durations (map, step, 0, n_base, &lens[0]);
      runs[1] = own_step_durations (map->delta, step, n_base, n_files - n_base, &lens[1]);
      return runs[0] != NULL && runs[1] != NULL ? 2 : 0;
    }
  runs[0] = rt_cache_step_durations (map, step, 0, n_files, &lens[0]);
  return runs[0] != NULL ? 1 : 0;
}

gboolean
rt_cache_step_durations_ok (RtCacheMap *map)
{
  return part_ok (map, PART_DURATIONS) && (map->delta == NULL || part_ok (map->delta, PART_DURATIONS));
}

const RtTurnSums *
rt_cache_turn_sums_unchecked (RtCacheMap *map, guint n_records, guint *n, guint *end_record,
                              const double **engine)
{
  /* the last mark within the records, if any (the marks checked first: they point into the
   * sums) */
  if (!part_ok (map, PART_TURN_MARKS))
    return NULL;
  const CacheTurnMark *mark = NULL;
  for (guint32 i = 0; i < map->h.n_turn_marks; i++)
    if (map->t.turn_marks[i].end_record <= n_records)
      mark = &map->t.turn_marks[i];
  if (mark == NULL)
    return NULL;
  *n = mark->n_sums;
  *end_record = mark->end_record;
  *engine = map->t.engine;
  return map->t.turn_sums + mark->first_sum;
}

gboolean
rt_cache_turn_sums_ok (RtCacheMap *map)
{
  return part_ok (map, PART_TURN_SUMS) && part_ok (map, PART_ENGINE);
}


gboolean
rt_cache_rows_ok (const RtEvent *rows, guint32 n, guint64 checksum, guint n_names, guint32 n_requests)
{
  if (rows == NULL)
    return n == 0;
  if (rt_hash64 (rows, (gsize) n * sizeof (RtEvent), 2) != checksum)
    return FALSE;
  /* analyzers index per-event and per-request tables with these: whatever the
   * checksum says, no row may point past their ends. The largest of each is compared once
   * (every one is inside if and only if it is); a request one more, so that RT_NONE
   * (G_MAXUINT32) wraps to 0 and always passes */
  G_STATIC_ASSERT (RT_NONE == G_MAXUINT32);
  guint32 last_event = 0, requests_end = 0;
  for (guint32 i = 0; i < n; i++)
    {
      last_event = MAX (last_event, (guint32) rows[i].event);
      requests_end = MAX (requests_end, rows[i].request + 1);
    }
  return n == 0 || (last_event < n_names && requests_end <= n_requests);
}

void
rt_cache_discard (RtCacheMap *map, const char *path)
{
  /* only if the name still means the file that was opened: another run may have
   * put a good cache in its place since */
  struct stat st;
  if (map != NULL && still_the_file (map, path, &st))
    g_unlink (path);
  if (map != NULL && map->delta != NULL)
    {
      g_autofree char *delta_path = rt_cache_delta_path (path);
      rt_cache_discard (map->delta, delta_path);
    }
}

char *
rt_cache_file_experiment (const char *path)
{
  /* looked at, not used: its time of last use stays (O_NOATIME is for the owner alone) */
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOATIME);
  if (fd < 0 && errno == EPERM)
    fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  CacheHeader h;
  struct stat st;
  const char *why;
  char *experiment = NULL;
  if (fstat (fd, &st) == 0 && (gsize) st.st_size >= sizeof h && read_at (fd, &h, sizeof h, 0)
      && header_ok (&h, (gsize) st.st_size, &why) && h.experiment < h.strings_size)
    {
      /* a path, NUL-terminated inside the strings */
      gsize n = (gsize) MIN (h.strings_size - h.experiment, (guint64) PATH_MAX + 1);
      g_autofree char *text = g_malloc (n);
      if (read_at (fd, text, n, h.strings_at + h.experiment) && memchr (text, '\0', n) != NULL)
        experiment = g_strdup (text);
    }
  close (fd);
  return experiment;
}


void
rt_cache_file_count (RtCacheMap *map, guint record, RtCacheTotals *totals)
{
  map = holder (map, &record);
  const CacheFile *cf = &map->t.files[record];
  totals->n_requests += cf->n_requests;
  totals->n_turns += cf->n_turns;
  totals->n_problems += cf->n_problems;
  totals->ids_size += cf->ids_size;
}

void
rt_cache_release_rows (RtCacheMap *map, const RtEvent *rows, guint32 n)
{
  const guint8 *lo = map->data + ROWS_START, *hi = map->data + MIN (map->h.ids_at, map->size);
  if ((const guint8 *) rows >= lo && (const guint8 *) (rows + n) <= hi)
    release_range (rows, rows + n, lo, hi);
  else if (map->delta != NULL)
    rt_cache_release_rows (map->delta, rows, n);
}

void
rt_cache_release_file_tables (RtCacheMap *map, guint first_record, guint n_records, RtCacheTables tables)
{
  guint own_end = (guint) map->h.n_files;
  if (map->delta != NULL && (guint64) first_record + n_records > own_end)
    {
      /* the delta's part in its own numbers, then the base's */
      guint from = MAX (first_record, own_end);
      rt_cache_release_file_tables (map->delta, from - own_end, first_record + n_records - from, tables);
      n_records = first_record < own_end ? own_end - first_record : 0;
    }
  if (n_records == 0)
    return;
  g_assert ((guint64) first_record + n_records <= map->h.n_files);
  guint64 req_lo = G_MAXUINT64, req_hi = 0, ids_lo = G_MAXUINT64, ids_hi = 0;
  guint64 turns_lo = G_MAXUINT64, turns_hi = 0;
  for (guint r = first_record; r < first_record + n_records; r++)
    {
      const CacheFile *cf = &map->t.files[r];
      req_lo = MIN (req_lo, cf->first_request);
      req_hi = MAX (req_hi, (guint64) cf->first_request + cf->n_requests);
      ids_lo = MIN (ids_lo, cf->ids_at);
      ids_hi = MAX (ids_hi, cf->ids_at + cf->ids_size);
      turns_lo = MIN (turns_lo, cf->first_turn);
      turns_hi = MAX (turns_hi, (guint64) cf->first_turn + cf->n_turns);
    }
  /* (the files' ranges were checked to lie inside their tables when the cache was opened) */
  if ((tables & RT_CACHE_REQUESTS) && req_hi > req_lo)
    {
      const guint64 n = map->h.n_requests;
      release_range (map->t.requests + req_lo, map->t.requests + req_hi, map->t.requests, map->t.requests + n);
      release_range (map->t.engine + req_lo, map->t.engine + req_hi, map->t.engine, map->t.engine + n);
    }
  if ((tables & RT_CACHE_IDS) && ids_hi > ids_lo)
    release_range (map->ids + ids_lo, map->ids + ids_hi, map->ids, map->ids + map->ids_size);
  if ((tables & RT_CACHE_TURNS) && turns_hi > turns_lo)
    release_range (map->t.turns + turns_lo, map->t.turns + turns_hi, map->t.turns, map->t.turns + map->h.n_turns);
}
