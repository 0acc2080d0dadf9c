/* SPDX-License-Identifier: Apache-2.0 */
/* cache.c: the binary cache of an experiment's tables, so that later analyzers skip the JSON.
 * Never trusted blindly: version, byte order, size, bounds and checksums are checked first. */
#define _GNU_SOURCE   /* O_NOATIME */
#include "cache-private.h"
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

#ifndef RT_VERSION
#define RT_VERSION "0.0"
#endif

/* Bump on any change of the layout below. */
#define CACHE_FORMAT 13   /* 11: RtFile counts its rollouts (n_rollout_ends, first_rollout);
                           * 12: only a total_step_duration with a duration ends one;
                           * 13: RtRequest keeps actual_response_tokens (72 bytes) */
#define BYTE_ORDER_MARK 0x01020304u

/* The parts of the tables section, in this order. */
typedef enum {
  PART_FILES, PART_REQUESTS, PART_TURNS, PART_PROBLEMS, PART_NAMES, PART_TURN_SUMS, PART_TURN_MARKS,
  PART_ENGINE, PART_STEPS, PART_DURATIONS, N_PARTS
} Part;

/* Layout: the header; the event rows of every file (each file's rows together, as
 * of its last newline); then fixed-size tables (the parts above) and a blob of
 * NUL-terminated strings they point into by offset, and one of the request ids
 * (most of the text, and only read with the requests). The whole file is mapped and
 * used in place: each part is checked (its checksum, and that what it points to is
 * inside what it refers to) when it is first used, the small ones at open; requests,
 * turns and request ids file by file, each with a checksum of its own (a command checks
 * only what it reads: rt-turn-dist neither turns nor ids), as the rows are. Two parts stand
 * in for the turns of a command that reads them only summed: after each step, the turn sums
 * of every record up to its last (rt_turn_sums_add over the turns table up to there: a load
 * that reads some files of the last steps on takes those of the steps before them), and
 * each request's engine time (rt_turns_engine_s of its turns), in the requests' order. */
typedef struct {
  char magic[8];              /* "RTCACHE\n" */
  guint32 byte_order;         /* BYTE_ORDER_MARK as the writer saw it */
  guint32 format;             /* CACHE_FORMAT */
  guint32 event_size;         /* sizeof (RtEvent) */
  guint32 n_names;
  char version[16];           /* the rolltrace that wrote it */
  guint64 total_size;         /* of the whole file: a shorter one was cut */
  guint64 tables_at, tables_size;
  guint64 strings_at, strings_size, strings_checksum;
  guint64 ids_at, ids_size;   /* the request ids: a blob of their own (checksums per file) */
  guint32 n_turn_sums, n_turn_marks;   /* the turn sums of all the marks, and the marks */
  guint64 n_files, n_requests, n_turns, n_problems, n_steps, n_durations;
  guint64 part_checksum[N_PARTS];   /* 0 for requests and turns: theirs are per file */
  guint64 experiment;         /* string: the canonical path it was made for */
  guint64 header_checksum;    /* of everything above */
} CacheHeader;

#define ROWS_START 256
G_STATIC_ASSERT (sizeof (CacheHeader) <= ROWS_START);

typedef struct {
  guint64 path;                       /* string */
  gint32 step, worker;
  guint64 size, inode;                /* the file as found when it was read */
  gint64 mtime_us, ctime_ns;
  guint64 resume_offset, resume_line; /* the last newline */
  guint64 prefix_checksum;            /* of sampled blocks before resume_offset */
  guint64 lines, events, bad_lines, field_problems, problems_total, glued_lines;
  double start_min_s;
  double step_sum_s[RT_N_STEP_EVENTS];
  guint32 n_complete, schema;
  guint64 rows_at, rows_checksum;
  guint32 n_rows, first_request;
  guint32 n_requests, first_problem;
  guint32 n_problems, prefix_known;   /* 0: the prefix checksum is not to be trusted */
  guint32 first_turn, n_turns;        /* its requests' turns, all in this range */
  guint64 ids_at, ids_size;           /* its requests' ids, in the ids blob */
  guint64 requests_checksum, turns_checksum, ids_checksum;   /* each checked when first used */
  guint32 n_rollout_ends, n_events_at_end;
  guint32 n_requests_at_end, unused;  /* 0 */
  RtFileSlice first_rollout;
} CacheFile;

/* A request is kept as the trace's own RtRequest, so that a load with nothing to read uses
 * the table in place: its id an offset into the ids blob, its finish reason one into the
 * strings (0: none; the experiment's path is there, which no reason shares), `file` the
 * record, `step` and `worker` the record's, first_turn an index into the turns table. */
typedef RtRequest CacheRequest;
G_STATIC_ASSERT (sizeof (CacheRequest) == 72);

typedef struct {
  guint64 line, reason;               /* reason: string */
} CacheProblem;

/* A step whose files are records first_file... of the files table, one after another:
 * the durations of its complete requests (as of those records), sorted ascending. */
typedef struct {
  gint32 step;
  guint32 first_file, n_files;
  guint32 n_durations;
  guint64 first_duration;             /* in the durations table */
} CacheStep;

/* The turn sums of records 0 ... end_record - 1, n_sums of them from first_sum. */
typedef struct {
  guint32 end_record, n_sums;
  guint64 first_sum;
} CacheTurnMark;

/* Turn sums kept at most, over all the marks: a trace with many turn indices in many steps
 * (up to G_MAXINT16 + 1 each) keeps those of its first steps only. */
#define TURN_SUMS_MAX (1u << 16)

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
};

/* ---- the checksum --------------------------------------------------------------- */

static inline guint64
mix (guint64 h, guint64 w)
{
  h ^= w * 0x9E3779B97F4A7C15ull;
  h = (h << 31) | (h >> 33);
  return h * 0xBF58476D1CE4E5B9ull;
}

/* The 128-bit product of a and b, its halves folded into 64 bits. */
static inline guint64
fold (guint64 a, guint64 b)
{
#if defined (__x86_64__) && defined (__GNUC__)
  /* GCC 12 takes the low half of the 128-bit product below through the stack, a store and a
   * load on each lane's chain (a slower hash: bench/RESULTS.md, "Behind the code"): one mulq leaves
   * both halves in registers */
  guint64 lo, hi;
  __asm__ ("mulq %3" : "=a" (lo), "=d" (hi) : "%0" (a), "rm" (b) : "cc");
  return lo ^ hi;
#else
  unsigned __int128 m = (unsigned __int128) a * b;
  return (guint64) m ^ (guint64) (m >> 64);
#endif
}

/* The 8 bytes at p, as a word of this machine's byte order. */
static inline guint64
word_at (const guint8 *p)
{
  guint64 w;
  memcpy (&w, p, 8);
  return w;
}

/* rt_hash64 in three parts, so that a walk over 64-byte rows (the requests) can hash each row
 * as it checks it: the lanes, one 64-byte block into them, and the end. */
typedef struct {
  guint64 a, b, c, d;
} HashLanes;

static inline HashLanes
hash_start (guint64 seed)
{
  return (HashLanes) { seed ^ 0x243F6A8885A308D3ull, seed ^ 0x13198A2E03707344ull,
                       seed ^ 0xA4093822299F31D0ull, seed ^ 0x082EFA98EC4E6C89ull };
}

/* Four independent lanes, each taking 16 bytes per step into one 64x64-bit product with its
 * own state folded in: every byte counts, in its place, and the multiplier does one product
 * per 16 bytes (twice the speed of two per 8 bytes, which every cached run paid on the
 * tables it reads). Each word is read straight into its register: copied whole into an
 * array first, the block went through the stack (GCC, x86-64), two thirds slower. (The lane
 * itself xored back: a product of 0, should a word equal its constant, keeps what came
 * before.) */
static inline void
hash_block (HashLanes *l, const guint8 *q)
{
  l->a ^= fold (l->a ^ word_at (q), word_at (q + 8) ^ 0x9E3779B97F4A7C15ull);
  l->b ^= fold (l->b ^ word_at (q + 16), word_at (q + 24) ^ 0xBF58476D1CE4E5B9ull);
  l->c ^= fold (l->c ^ word_at (q + 32), word_at (q + 40) ^ 0x94D049BB133111EBull);
  l->d ^= fold (l->d ^ word_at (q + 48), word_at (q + 56) ^ 0x2545F4914F6CDD1Dull);
}

/* The lanes after `i` bytes of blocks, and the rest of the `len` bytes at p. */
static inline guint64
hash_finish (HashLanes l, const guint8 *p, gsize i, gsize len)
{
  guint64 h = mix (mix (mix (l.a, l.b), l.c), l.d) ^ len;
  for (; i + 8 <= len; i += 8)
    h = mix (h, word_at (p + i));
  for (; i < len; i++)
    h = mix (h, p[i]);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
  /* A fuzzer cannot forge checksums: in a fuzzing build (tests/fuzz; the macro is
   * OSS-Fuzz's) every checksum is 0, so a mutated cache gets past its checks to the
   * code behind them. Every byte is still read, so a bad range is still reported. */
  volatile guint64 read_all = mix (h, 0);
  (void) read_all;
  return 0;
#endif
  return mix (h, 0);
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

/* A request row into the lanes: its first 64 bytes as a block, its last 8 (the tokens and the
 * zeros after them) folded into the first lane. */
static inline void
hash_request (HashLanes *l, const CacheRequest *q)
{
  G_STATIC_ASSERT (sizeof (CacheRequest) == 64 + 8);
  const guint8 *p = (const guint8 *) q;
  hash_block (l, p);
  l->a ^= fold (l->a ^ word_at (p + 64), 0xD6E8FEB86659FD93ull);
}

/* The checksum of n request rows: what the check's walk computes as it goes. */
static guint64
hash_requests (const CacheRequest *q, gsize n)
{
  HashLanes l = hash_start (11);
  for (gsize k = 0; k < n; k++)
    hash_request (&l, &q[k]);
  gsize bytes = n * sizeof (CacheRequest);
  return hash_finish (l, (const guint8 *) q, bytes, bytes);
}

/* ---- opening ---------------------------------------------------------------------- */

static gsize
part_size (const CacheHeader *h, Part part)
{
  switch (part)
    {
    case PART_FILES: return h->n_files * sizeof (CacheFile);
    case PART_REQUESTS: return h->n_requests * sizeof (CacheRequest);
    case PART_TURNS: return h->n_turns * sizeof (RtTurnFigures);
    case PART_PROBLEMS: return h->n_problems * sizeof (CacheProblem);
    case PART_NAMES: return (gsize) h->n_names * sizeof (guint64);
    case PART_STEPS: return h->n_steps * sizeof (CacheStep);
    case PART_DURATIONS: return h->n_durations * sizeof (double);
    case PART_TURN_SUMS: return (gsize) h->n_turn_sums * sizeof (RtTurnSums);
    case PART_TURN_MARKS: return (gsize) h->n_turn_marks * sizeof (CacheTurnMark);
    case PART_ENGINE: return h->n_requests * sizeof (double);
    case N_PARTS: break;
    }
  g_assert_not_reached ();
}

static gsize
tables_size_for (const CacheHeader *h)
{
  gsize size = 0;
  for (Part p = 0; p < N_PARTS; p++)
    size += part_size (h, p);
  return size;
}

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
           || h->tables_size > file_size - h->tables_at || h->tables_size != tables_size_for (h)
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
          if ((guint64) s->first_file + s->n_files > h->n_files
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
      /* file and step side by side, compared as one; complete and turns_from_timings too */
      G_STATIC_ASSERT (G_STRUCT_OFFSET (RtRequest, step) == G_STRUCT_OFFSET (RtRequest, file) + 4);
      G_STATIC_ASSERT (G_STRUCT_OFFSET (RtRequest, turns_from_timings)
                       == G_STRUCT_OFFSET (RtRequest, complete) + 1);
      guint32 file_step[2] = { record, (guint32) cf->step };
      guint64 want_file_step;
      memcpy (&want_file_step, file_step, 8);
      HashLanes lanes = hash_start (11);
      for (guint32 k = 0; k < cf->n_requests; k++, q++)
        {
          hash_request (&lanes, q);
          guint64 file_step_k;
          guint16 flags;
          memcpy (&file_step_k, &q->file, 8);
          memcpy (&flags, &q->complete, 2);
          last_id = MAX (last_id, q->id - cf->ids_at);
          last_reason = MAX (last_reason, q->finish_reason);
          /* where the request's turns end in the file's: their offset (wrapped, below 2^32)
           * and count added in 64 bits, which neither can overflow */
          turns_end = MAX (turns_end, (guint64) (q->first_turn - cf->first_turn) + q->n_turns);
          bad |= (file_step_k ^ want_file_step) | (guint32) (q->worker ^ cf->worker)
                 | (flags & 0xFEFE);   /* each 0 or 1 */
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
  g_free (m->file_state);
  if (m->data)
    munmap ((void *) m->data, m->size);
  if (m->by_path)
    g_hash_table_unref (m->by_path);
  g_free (m);
}

RtCacheMap *
rt_cache_open (const char *path, const char *exp_canonical, RtEventRegistry *reg, const char **why)
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
  /* its last use, for `rolltrace cache` and the size limit (oldest used goes first): set
   * here, as no mount's atime policy (relatime, noatime) would; a cache of another user's,
   * which we may not touch, keeps its own */
  futimens (fd, (const struct timespec[2]) { { .tv_nsec = UTIME_NOW }, { .tv_nsec = UTIME_OMIT } });

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
  /* names in id order: interned into a fresh registry they get the same ids */
  for (guint32 i = 0; i < m->h.n_names; i++)
    {
      const char *name = m->strings + m->t.names[i];
      RtSchemaFlags schema;
      if (rt_event_registry_intern (reg, name, strlen (name), TRUE, &schema) != i)
        {
          *why = "damaged tables";
          goto reject;
        }
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

void
rt_cache_close (RtCacheMap *map)
{
  if (map != NULL)
    map_free (map);
}

guint
rt_cache_n_files (RtCacheMap *map)
{
  return (guint) map->h.n_files;
}

RtCacheMatch
rt_cache_match (RtCacheMap *map, const RtFile *f, guint *record)
{
  gpointer hit = g_hash_table_lookup (map->by_path, f->path);
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
  return map->t.files[record].resume_offset == f->size;
}

guint64
rt_cache_resume_offset (RtCacheMap *map, guint record)
{
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
  const CacheFile *cf = &map->t.files[record];
  guint8 head[RT_PREFIX_BLOCK];
  guint64 sum;
  return cf->prefix_known && rt_cache_prefix_checksum (fd, cf->resume_offset, head, &sum)
         && sum == cf->prefix_checksum;
}

gboolean
rt_cache_prefix (RtCacheMap *map, guint record, guint64 *sum)
{
  *sum = map->t.files[record].prefix_checksum;
  return map->t.files[record].prefix_known != 0;
}

guint64
rt_cache_n_requests (RtCacheMap *map)
{
  return map->h.n_requests;
}

void
rt_cache_file_snapshot (RtCacheMap *map, guint record, RtCacheSnapshot *snap)
{
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

void
rt_cache_prefetch_file_tables (RtCacheMap *map, const guint *records, guint n, RtCacheTables tables)
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
rt_cache_requests_taken (RtCacheMap *map)
{
  /* only the pages wholly inside the part: the ones at its edges hold its neighbours' */
  const gsize page = (gsize) sysconf (_SC_PAGESIZE);
  guintptr start = ((guintptr) map->t.requests + page - 1) / page * page;
  guintptr end = (guintptr) (map->t.requests + map->h.n_requests) / page * page;
  if (end > start)
    madvise ((void *) start, end - start, MADV_DONTNEED);
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
  return map->t.files[record].first_request;
}

const RtTurnFigures *
rt_cache_turns (RtCacheMap *map, guint *n)
{
  *n = (guint) map->h.n_turns;
  return map->t.turns;
}

const double *
rt_cache_step_durations (RtCacheMap *map, gint32 step, guint first_record, guint n_files, guint *n)
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

gboolean
rt_cache_step_durations_ok (RtCacheMap *map)
{
  return part_ok (map, PART_DURATIONS);
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
  if (map != NULL && stat (path, &st) == 0 && st.st_dev == map->dev && st.st_ino == map->ino)
    g_unlink (path);
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

/* ---- writing ------------------------------------------------------------------ */

/* The tables of a cache being written, and its strings. */
typedef struct {
  GArray *parts[N_PARTS];   /* of bytes */
  GArray *strings;
  GArray *ids;              /* the request ids */
  GHashTable *shared;       /* strings written once: paths of reasons, names */
  guint64 experiment;       /* string */
  GArray *turn_sums;        /* RtTurnSums of the turns up to turns_summed */
  guint64 turns_summed;
} Writer;

static guint64
add_string (Writer *w, const char *s)
{
  guint64 at = w->strings->len;
  g_array_append_vals (w->strings, s, (guint) strlen (s) + 1);
  return at;
}

static guint64
add_id (Writer *w, const char *s)
{
  guint64 at = w->ids->len;
  g_array_append_vals (w->ids, s, (guint) strlen (s) + 1);
  return at;
}

/* Finish reasons and problem reasons repeat: each is written once. */
static guint64
add_shared_string (Writer *w, const char *s)
{
  gpointer hit = g_hash_table_lookup (w->shared, s);
  if (hit != NULL)
    return GPOINTER_TO_SIZE (hit) - 1;
  guint64 at = add_string (w, s);
  g_hash_table_insert (w->shared, (gpointer) s, GSIZE_TO_POINTER (at + 1));
  return at;
}

static void
writer_clear (Writer *w)
{
  for (Part p = 0; p < N_PARTS; p++)
    g_clear_pointer (&w->parts[p], g_array_unref);
  g_clear_pointer (&w->strings, g_array_unref);
  g_clear_pointer (&w->ids, g_array_unref);
  g_clear_pointer (&w->shared, g_hash_table_unref);
  g_clear_pointer (&w->turn_sums, g_array_unref);
}

/* Writes all of p at `at`; 0, or the errno of the failure. Thread-safe. */
static int
put_at (int fd, const void *p, gsize n, guint64 at)
{
  const guint8 *c = p;
  while (n > 0)
    {
      gssize r = pwrite (fd, c, n, (off_t) at);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        return r < 0 ? errno : EIO;
      c += r;
      n -= (gsize) r;
      at += (guint64) r;
    }
  return 0;
}

/* A cache being written: a temporary file beside the cache, which only a rename
 * makes the cache. Rows go first, each file's as soon as it has been read (by the
 * thread that read it, while the others go on reading); the tables follow them. */
struct _RtCacheDraft {
  char *tmp_path;           /* NULL once renamed */
  int fd;
  guint64 end;              /* where the next rows go (the loader serialises this) */
  gint failed;              /* errno of the first failed write, 0: none */
  Writer w;                 /* the tables, once begun */
};

RtCacheDraft *
rt_cache_draft_new (const char *cache_path, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (cache_path);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int e = errno;
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot create %s: %s", dir, g_strerror (e));
      return NULL;
    }
  /* registered as it is made: a signal while loading removes it */
  g_autofree char *template = g_build_filename (dir, ".rolltrace-XXXXXX", NULL);
  char *tmp;
  int fd = rt_temp_create_from (template, &tmp, error);
  if (fd < 0)
    return NULL;
  fchmod (fd, 0600);   /* as the folder: the cache is the user's own */
  RtCacheDraft *d = g_new0 (RtCacheDraft, 1);
  d->tmp_path = tmp;
  d->fd = fd;
  d->end = ROWS_START;
  return d;
}

guint64
rt_cache_draft_reserve (RtCacheDraft *d, guint32 n_rows)
{
  guint64 at = d->end;
  d->end += (guint64) n_rows * sizeof (RtEvent);
  return at;
}

guint64
rt_cache_draft_put_rows (RtCacheDraft *d, guint64 at, const RtEvent *rows, guint32 n_rows)
{
  gsize bytes = (gsize) n_rows * sizeof (RtEvent);
  int e = put_at (d->fd, rows, bytes, at);
  if (e != 0)
    g_atomic_int_compare_and_exchange (&d->failed, 0, e);
  return rt_hash64 (rows, bytes, 2);
}

void
rt_cache_draft_free (RtCacheDraft *d)
{
  if (d == NULL)
    return;
  if (d->fd >= 0)
    close (d->fd);
  if (d->tmp_path != NULL)
    {
      g_unlink (d->tmp_path);
      rt_temp_forget (d->tmp_path);
    }
  writer_clear (&d->w);
  g_free (d->tmp_path);
  g_free (d);
}

void
rt_cache_draft_begin_tables (RtCacheDraft *d, const char *exp_canonical, RtEventRegistry *reg,
                             guint n_files, guint n_requests, guint n_turns)
{
  Writer *w = &d->w;
  for (Part p = 0; p < N_PARTS; p++)
    w->parts[p] = g_array_new (FALSE, FALSE, 1);
  w->strings = g_array_new (FALSE, FALSE, 1);
  w->ids = g_array_new (FALSE, FALSE, 1);
  w->shared = g_hash_table_new (g_str_hash, g_str_equal);
  /* the tables' sizes are about known: each grows once, on huge pages */
  rt_array_make_room (w->parts[PART_FILES], (gsize) n_files * sizeof (CacheFile));
  rt_array_make_room (w->parts[PART_REQUESTS], (gsize) n_requests * sizeof (CacheRequest));
  rt_array_make_room (w->parts[PART_TURNS], (gsize) n_turns * sizeof (RtTurnFigures));
  rt_array_make_room (w->parts[PART_DURATIONS], (gsize) n_requests * sizeof (double));
  rt_array_make_room (w->parts[PART_ENGINE], (gsize) n_requests * sizeof (double));
  rt_array_make_room (w->strings, (gsize) n_files * 64 + 4096);
  rt_array_make_room (w->ids, (gsize) n_requests * 40 + 4096);
  w->experiment = add_string (w, exp_canonical);
  for (guint i = 0; i < rt_event_registry_size (reg); i++)
    {
      guint64 at = add_string (w, rt_event_registry_name (reg, (guint16) i));
      g_array_append_vals (w->parts[PART_NAMES], &at, sizeof at);
    }
}

void
rt_cache_draft_add_file (RtCacheDraft *d, const RtFile *f, const RtCacheSnapshot *snap, guint64 rows_at)
{
  Writer *w = &d->w;
  const RtFile *c = &snap->counters;
  CacheFile cf = {
    .path = add_string (w, f->path), .step = f->step, .worker = f->worker,
    .size = f->size, .inode = f->inode, .mtime_us = f->mtime_us, .ctime_ns = f->ctime_ns,
    .resume_offset = snap->offset, .resume_line = snap->line,
    .prefix_checksum = snap->prefix_checksum, .prefix_known = (guint32) snap->prefix_known,
    .lines = c->lines, .events = c->events, .bad_lines = c->bad_lines,
    .field_problems = c->field_problems, .problems_total = c->problems_total,
    .glued_lines = c->glued_lines,
    .start_min_s = c->start_min_s, .n_complete = c->n_complete, .schema = c->schema,
    .rows_at = rows_at, .rows_checksum = snap->rows_checksum, .n_rows = c->n_events,
    .n_rollout_ends = c->n_rollout_ends, .n_events_at_end = c->n_events_at_end,
    .n_requests_at_end = c->n_requests_at_end,
    .first_rollout = c->first_rollout,
  };
  memcpy (cf.step_sum_s, c->step_sum_s, sizeof cf.step_sum_s);

  /* requests, each followed in the turns table by its own turns */
  GArray *requests = w->parts[PART_REQUESTS], *turns = w->parts[PART_TURNS];
  GArray *problems = w->parts[PART_PROBLEMS];
  guint32 turn_base = (guint32) (turns->len / sizeof (RtTurnFigures));
  cf.first_turn = turn_base;
  cf.first_request = (guint32) (requests->len / sizeof (CacheRequest));
  cf.n_requests = snap->requests->len;
  cf.ids_at = w->ids->len;
  guint32 record = rt_cache_draft_n_files (d);
  for (guint k = 0; k < snap->requests->len; k++)
    {
      const RtRequest *q = &g_array_index (snap->requests, RtRequest, k);
      const char *reason = (const char *) (guintptr) q->finish_reason;
      CacheRequest cq = {
        .id = add_id (w, (const char *) (guintptr) q->id),
        .finish_reason = reason != NULL ? add_shared_string (w, reason) : 0,
        .end_s = q->end_s, .total_s = q->total_s, .file = record, .step = f->step,
        .worker = f->worker, .turns = q->turns, .response_length = q->response_length,
        .first_turn = turn_base, .n_turns = q->n_turns, .complete = q->complete != 0,
        .turns_from_timings = q->turns_from_timings != 0, .response_tokens = q->response_tokens,
      };
      g_array_append_vals (requests, &cq, sizeof cq);
      double engine = rt_turns_engine_s (q->n_turns > 0 ? &g_array_index (snap->turns, RtTurnFigures, q->first_turn)
                                                        : NULL, q->n_turns);
      g_array_append_vals (w->parts[PART_ENGINE], &engine, sizeof engine);
      if (q->n_turns > 0)   /* else `turns` may have no storage to point into */
        {
          g_array_append_vals (turns, &g_array_index (snap->turns, RtTurnFigures, q->first_turn),
                               q->n_turns * (guint) sizeof (RtTurnFigures));
          /* the bytes between `turn` and the doubles are nobody's: zeros, not whatever the
           * memory held, go to the file (and into its checksums) */
          RtTurnFigures *added = (RtTurnFigures *) (turns->data + turns->len) - q->n_turns;
          for (guint32 j = 0; j < q->n_turns; j++)
            memset ((char *) &added[j] + sizeof added[j].turn, 0,
                    G_STRUCT_OFFSET (RtTurnFigures, total_s) - sizeof added[j].turn);
        }
      turn_base += q->n_turns;
    }
  cf.n_turns = turn_base - cf.first_turn;
  /* (an array that never grew has no storage: no pointer into it then) */
  const guint8 *its_requests = requests->data ? (const guint8 *) requests->data + requests->len
                                                  - (gsize) cf.n_requests * sizeof (CacheRequest)
                                              : NULL;
  const guint8 *its_turns = turns->data ? (const guint8 *) turns->data + turns->len
                                            - (gsize) cf.n_turns * sizeof (RtTurnFigures)
                                        : NULL;
  cf.requests_checksum = hash_requests ((const CacheRequest *) (const void *) its_requests, cf.n_requests);
  cf.turns_checksum = rt_hash64 (its_turns, (gsize) cf.n_turns * sizeof (RtTurnFigures), 12);
  cf.ids_size = w->ids->len - cf.ids_at;
  cf.ids_checksum = rt_hash64 (w->ids->data ? w->ids->data + cf.ids_at : NULL, cf.ids_size, 4);
  cf.first_problem = (guint32) (problems->len / sizeof (CacheProblem));
  cf.n_problems = snap->problems->len;
  for (guint k = 0; k < snap->problems->len; k++)
    {
      const RtCacheProblem *pr = &g_array_index (snap->problems, RtCacheProblem, k);
      CacheProblem cp = { pr->line, add_shared_string (w, pr->reason) };
      g_array_append_vals (problems, &cp, sizeof cp);
    }
  g_array_append_vals (w->parts[PART_FILES], &cf, sizeof cf);
}

guint
rt_cache_draft_n_files (RtCacheDraft *d)
{
  return d->w.parts[PART_FILES]->len / sizeof (CacheFile);
}

void
rt_cache_draft_mark_turn_sums (RtCacheDraft *d)
{
  Writer *w = &d->w;
  GArray *turns = w->parts[PART_TURNS];
  guint64 n_turns = turns->len / sizeof (RtTurnFigures);
  if (w->turn_sums == NULL)
    w->turn_sums = g_array_new (FALSE, TRUE, sizeof (RtTurnSums));
  if (n_turns > w->turns_summed)
    rt_turn_sums_add (w->turn_sums, (const RtTurnFigures *) (void *) turns->data + w->turns_summed,
                      n_turns - w->turns_summed);
  w->turns_summed = n_turns;
  guint64 kept = w->parts[PART_TURN_SUMS]->len / sizeof (RtTurnSums);
  if (kept + w->turn_sums->len > TURN_SUMS_MAX)
    return;
  CacheTurnMark mark = { .end_record = rt_cache_draft_n_files (d), .n_sums = w->turn_sums->len,
                         .first_sum = kept };
  g_array_append_vals (w->parts[PART_TURN_SUMS], w->turn_sums->data,
                       w->turn_sums->len * (guint) sizeof (RtTurnSums));
  g_array_append_vals (w->parts[PART_TURN_MARKS], &mark, sizeof mark);
}

void
rt_cache_draft_add_step (RtCacheDraft *d, gint32 step, guint first_record, const double *sorted,
                         guint n)
{
  Writer *w = &d->w;
  CacheStep cs = {
    .step = step, .first_file = first_record, .n_files = rt_cache_draft_n_files (d) - first_record,
    .n_durations = n, .first_duration = w->parts[PART_DURATIONS]->len / sizeof (double),
  };
  if (n > 0)
    g_array_append_vals (w->parts[PART_DURATIONS], sorted, n * (guint) sizeof (double));
  g_array_append_vals (w->parts[PART_STEPS], &cs, sizeof cs);
}

gboolean
rt_cache_write (RtCacheDraft *draft, const char *path, GError **error)
{
  g_autoptr (RtCacheDraft) d = draft;
  Writer *w = &d->w;
  CacheHeader h = { .byte_order = BYTE_ORDER_MARK, .format = CACHE_FORMAT,
                    .event_size = sizeof (RtEvent) };
  memcpy (h.magic, "RTCACHE\n", 8);
  g_strlcpy (h.version, RT_VERSION, sizeof h.version);
  h.experiment = w->experiment;
  GArray **parts = w->parts;
  h.n_names = parts[PART_NAMES]->len / sizeof (guint64);
  h.n_files = parts[PART_FILES]->len / sizeof (CacheFile);
  h.n_requests = parts[PART_REQUESTS]->len / sizeof (CacheRequest);
  h.n_turns = parts[PART_TURNS]->len / sizeof (RtTurnFigures);
  h.n_problems = parts[PART_PROBLEMS]->len / sizeof (CacheProblem);
  h.n_steps = parts[PART_STEPS]->len / sizeof (CacheStep);
  h.n_durations = parts[PART_DURATIONS]->len / sizeof (double);
  h.n_turn_sums = parts[PART_TURN_SUMS]->len / sizeof (RtTurnSums);
  h.n_turn_marks = parts[PART_TURN_MARKS]->len / sizeof (CacheTurnMark);
  h.tables_at = d->end;
  h.tables_size = tables_size_for (&h);
  int failed = g_atomic_int_get (&d->failed);
  guint64 at = h.tables_at;
  for (Part p = 0; p < N_PARTS; p++)
    {
      /* requests and turns have their checksums file by file */
      gboolean per_file = p == PART_REQUESTS || p == PART_TURNS;
      h.part_checksum[p] = per_file ? 0 : rt_hash64 (parts[p]->data, parts[p]->len, 1 + p);
      if (failed == 0)
        failed = put_at (d->fd, parts[p]->data, parts[p]->len, at);
      at += parts[p]->len;
    }
  h.strings_at = h.tables_at + h.tables_size;
  h.strings_size = w->strings->len;
  h.strings_checksum = rt_hash64 (w->strings->data, w->strings->len, 3);
  h.ids_at = h.strings_at + h.strings_size;
  h.ids_size = w->ids->len;
  h.total_size = h.ids_at + h.ids_size;
  h.header_checksum = rt_hash64 (&h, offsetof (CacheHeader, header_checksum), 0);
  if (failed == 0)
    failed = put_at (d->fd, w->strings->data, w->strings->len, h.strings_at);
  if (failed == 0)
    failed = put_at (d->fd, w->ids->data, w->ids->len, h.ids_at);
  /* the header last: a cache cut short never has a valid one */
  if (failed == 0)
    failed = put_at (d->fd, &h, sizeof h, 0);
  writer_clear (w);
  int fd = d->fd;
  d->fd = -1;
  if (close (fd) != 0 && failed == 0)
    failed = errno;
  if (failed != 0)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot write %s: %s", d->tmp_path, g_strerror (failed));
      return FALSE;
    }
  /* readers see the old cache or the new one, never half of one */
  if (g_rename (d->tmp_path, path) != 0)
    {
      int e = errno;
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot rename %s: %s", d->tmp_path, g_strerror (e));
      return FALSE;
    }
  rt_temp_forget (d->tmp_path);
  g_clear_pointer (&d->tmp_path, g_free);
  return TRUE;
}
