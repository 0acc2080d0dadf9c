/* SPDX-License-Identifier: Apache-2.0 */
/* cache-format-private.h: the cache file's layout, which its reader (cache.c) and its writer
 * (cache-write.c) share: the header, the records of each part, their sizes and the checksum. */
#pragma once

#include "cache-private.h"

#include <string.h>

#ifndef RT_VERSION
#define RT_VERSION "0.0"
#endif

/* Bump on any change of the layout below. */
#define CACHE_FORMAT 17   /* 11: RtFile counts its rollouts (n_rollout_ends, first_rollout);
                           * 12: only a total_step_duration with a duration ends one;
                           * 13: RtRequest keeps actual_response_tokens (72 bytes);
                           * 14: and its own_lines, complete_rank and tool_s (80);
                           * 15: the parts written as they are made come first, the ids
                           * before the tables; 16: a delta names the base it extends
                           * where the tables' size was (it follows from the counts);
                           * 17: a delta's durations of every step are those of its own
                           * files, the base's merged in by the reader */
#define BYTE_ORDER_MARK 0x01020304u

/* The parts of the tables section, in this order: first those that grow with the trace, which
 * the writer puts in place file by file as it goes (their sizes counted first), then those it
 * keeps in memory until the end (of the files and steps: small). */
typedef enum {
  PART_REQUESTS, PART_TURNS, PART_PROBLEMS, PART_ENGINE, N_STREAMED_PARTS,
  PART_FILES = N_STREAMED_PARTS, PART_NAMES, PART_TURN_SUMS, PART_TURN_MARKS, PART_STEPS,
  PART_DURATIONS, N_PARTS
} Part;

/* Layout: the header; the event rows of every file (each file's rows together, as
 * of its last newline); the blob of the request ids (most of the text, and only read
 * with the requests); then fixed-size tables (the parts above) and a blob of
 * NUL-terminated strings they point into by offset. The whole file is mapped and
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
  guint64 tables_at;          /* (their size follows from the counts: tables_size_for) */
  guint64 base_checksum;      /* a delta (see rt_cache_open): the header_checksum of the base it
                               * extends, which its steps number their files after; 0 in a base */
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
 * strings (0: none; an empty string of the writer's own is there, which no reason shares), `file` the
 * record, `step` and `worker` the record's, first_turn an index into the turns table. */
typedef RtRequest CacheRequest;
G_STATIC_ASSERT (sizeof (CacheRequest) == 80);

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

/* The lanes after the blocks of `len` bytes, and the `tail_len` bytes at `tail` that followed
 * them (fewer than a block). */
static inline guint64
hash_finish_tail (HashLanes l, const guint8 *tail, gsize tail_len, gsize len)
{
  guint64 h = mix (mix (mix (l.a, l.b), l.c), l.d) ^ len;
  gsize i = 0;
  for (; i + 8 <= tail_len; i += 8)
    h = mix (h, word_at (tail + i));
  for (; i < tail_len; i++)
    h = mix (h, tail[i]);
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

/* The lanes after `i` bytes of blocks, and the rest of the `len` bytes at p. */
static inline guint64
hash_finish (HashLanes l, const guint8 *p, gsize i, gsize len)
{
  return hash_finish_tail (l, p != NULL ? p + i : NULL, len - i, len);
}

/* rt_hash64 of bytes that come piece by piece: those put so far, the blocks taken into the
 * lanes, what is left of a block kept until the rest comes. */
typedef struct {
  HashLanes lanes;
  guint8 pending[64];
  gsize n_pending;
  guint64 len;
} HashStream;

static inline void
hash_stream_start (HashStream *s, guint64 seed)
{
  s->lanes = hash_start (seed);
  s->n_pending = 0;
  s->len = 0;
}

static inline void
hash_stream_put (HashStream *s, const guint8 *p, gsize n)
{
  if (n == 0)
    return;   /* (p may be NULL then) */
  s->len += n;
  if (s->n_pending > 0)
    {
      gsize take = MIN (64 - s->n_pending, n);
      memcpy (s->pending + s->n_pending, p, take);
      s->n_pending += take;
      p += take;
      n -= take;
      if (s->n_pending < 64)
        return;
      hash_block (&s->lanes, s->pending);
      s->n_pending = 0;
    }
  for (; n >= 64; p += 64, n -= 64)
    hash_block (&s->lanes, p);
  if (n > 0)
    memcpy (s->pending, p, n);
  s->n_pending = n;
}

static inline guint64
hash_stream_end (const HashStream *s)
{
  return hash_finish_tail (s->lanes, s->pending, s->n_pending, s->len);
}

/* A request row into the lanes: its first 64 bytes as a block, its last 16 (the tokens, the
 * rank and the tool time) folded into the first two lanes. */
static inline void
hash_request (HashLanes *l, const CacheRequest *q)
{
  G_STATIC_ASSERT (sizeof (CacheRequest) == 64 + 16);
  const guint8 *p = (const guint8 *) q;
  hash_block (l, p);
  l->a ^= fold (l->a ^ word_at (p + 64), 0xD6E8FEB86659FD93ull);
  l->b ^= fold (l->b ^ word_at (p + 72), 0x9FB21C651E98DF25ull);
}

/* The checksum of n request rows: what the check's walk computes as it goes. */
static inline guint64
hash_requests (const CacheRequest *q, gsize n)
{
  HashLanes l = hash_start (11);
  for (gsize k = 0; k < n; k++)
    hash_request (&l, &q[k]);
  gsize bytes = n * sizeof (CacheRequest);
  return hash_finish (l, (const guint8 *) q, bytes, bytes);
}

/* ---- the parts' sizes ---- */

static inline gsize
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

static inline gsize
tables_size_for (const CacheHeader *h)
{
  gsize size = 0;
  for (Part p = 0; p < N_PARTS; p++)
    size += part_size (h, p);
  return size;
}
