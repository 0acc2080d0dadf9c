/* rt-synth: writes a synthetic but realistic rollout-trace experiment (step_K/worker_M.jsonl),
 * in the newer or older logger's shape, optionally damaged, for the suite's tests and benchmarks. */
#define _POSIX_C_SOURCE 200809L /* fdopen */

#include <glib.h>
#include <glib/gstdio.h>

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define USEC_PER_SEC G_GINT64_CONSTANT (1000000)
#define USEC_PER_DAY (86400 * USEC_PER_SEC)

/* Limits that keep every count in an int and a file's text within memory. */
#define MAX_STEPS 100000
#define MAX_WORKERS 4096
#define MAX_REQUESTS 200000

#define MAX_TURNS 8           /* assistant turns per request, as in the traces we mimic */
#define RESPONSE_CAP 4096     /* max response tokens; reaching it ends a request with LENGTH */
#define P_ANOTHER_TURN 0.55   /* chance that a turn calls a tool and the request goes on */
#define REQUEST_STAGGER_US 400 /* asyncio starts the requests of a rank one after another */

/* ------------------------------------------------------------------------------------------ */
/* Errors and options                                                                         */

#define RT_SYNTH_ERROR (rt_synth_error_quark ())
G_DEFINE_QUARK (rt-synth-error-quark, rt_synth_error)

typedef enum {
  RT_SYNTH_ERROR_USAGE, /* exit status 2 */
  RT_SYNTH_ERROR_IO,    /* exit status 1 */
} RtSynthError;

typedef enum {
  SCHEMA_V1, /* older logger: preprocessing, engine_call, running_state... */
  SCHEMA_V2, /* newer logger: canonical names, request ids everywhere */
} Schema;

typedef struct {
  gint steps, workers, requests, first_step, threads;
  gint64 seed;
  gchar *schema_name;
  gchar *start;
  gchar *console_log;
  gboolean faults, quiet;
  gchar **rest;
} SynthOptions;

/* ------------------------------------------------------------------------------------------ */
/* Random numbers                                                                              */

/* Our own generator (xoshiro256** seeded through splitmix64) instead of rand() or GRand, whose
 * algorithms are not ours to pin: the same seed must give the same bytes on every machine and
 * GLib version. Every (step, worker, request) gets its own stream derived from the seed, so the
 * output does not depend on which thread generates what, nor on the order of the work. */
typedef struct {
  guint64 s[4];
} Rng;

typedef enum {
  STREAM_STEP = 1, /* per step: straggler, training gap before it */
  STREAM_RANK,     /* per (step, worker): step-level section durations */
  STREAM_REQUEST,  /* per (step, worker, request): the request's whole life */
  STREAM_FAULTS,   /* where the damage goes */
  STREAM_TRAINER,  /* per step: the trainer's console log (--console-log) */
} StreamKind;

static guint64
splitmix64_next (guint64 *state)
{
  guint64 z = (*state += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static void
rng_seed_stream (Rng *r, guint64 seed, StreamKind kind, gint64 a, gint64 b, gint64 c)
{
  guint64 key = seed;
  const guint64 parts[] = { (guint64) kind, (guint64) a, (guint64) b, (guint64) c };
  for (gsize i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      guint64 state = key ^ parts[i];
      key = splitmix64_next (&state);
    }
  for (int i = 0; i < 4; i++)
    r->s[i] = splitmix64_next (&key);
}

static inline guint64
rotl64 (guint64 x, int k)
{
  return (x << k) | (x >> (64 - k));
}

static guint64
rng_next (Rng *r)
{
  guint64 *s = r->s;
  const guint64 result = rotl64 (s[1] * 5, 7) * 9;
  const guint64 t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl64 (s[3], 45);
  return result;
}

/* Uniform in [0, 1). */
static double
rng_uniform (Rng *r)
{
  return (double) (rng_next (r) >> 11) * 0x1.0p-53;
}

static double
rng_range (Rng *r, double lo, double hi)
{
  return lo + (hi - lo) * rng_uniform (r);
}

/* Uniform integer in [lo, hi]; the modulo bias is far below anything a trace could show. */
static gint64
rng_int (Rng *r, gint64 lo, gint64 hi)
{
  return lo + (gint64) (rng_next (r) % (guint64) (hi - lo + 1));
}

static gboolean
rng_chance (Rng *r, double p)
{
  return rng_uniform (r) < p;
}

static double
rng_normal (Rng *r)
{
  double u1 = ((double) (rng_next (r) >> 11) + 1.0) * 0x1.0p-53; /* (0, 1]: log is finite */
  double u2 = rng_uniform (r);
  return sqrt (-2.0 * log (u1)) * cos (2.0 * G_PI * u2);
}

/* Timings of real systems are skewed with a long right tail; a lognormal around a median
 * reproduces that, and the clamp keeps the rare extreme draw plausible. */
static double
rng_lognormal (Rng *r, double median, double sigma, double lo, double hi)
{
  return CLAMP (median * exp (sigma * rng_normal (r)), lo, hi);
}

static gint64
rng_duration_us (Rng *r, double median_s, double sigma, double lo_s, double hi_s)
{
  return (gint64) llround (rng_lognormal (r, median_s, sigma, lo_s, hi_s) * 1e6);
}

/* ------------------------------------------------------------------------------------------ */
/* Python-compatible text                                                                      */

#define append_lit(s, lit) g_string_append_len ((s), "" lit, (gssize) sizeof (lit) - 1)
/* The separators of Python's json.dumps: ", " between items, ": " after keys. */
#define put_key(s, key) append_lit ((s), ", \"" key "\": ")

static void
append_int (GString *s, gint64 v)
{
  char buf[24];
  char *p = buf + sizeof buf;
  guint64 u = v < 0 ? -(guint64) v : (guint64) v;
  do
    *--p = (char) ('0' + u % 10);
  while ((u /= 10) != 0);
  if (v < 0)
    *--p = '-';
  g_string_append_len (s, p, buf + sizeof buf - p);
}

static void
append_bool (GString *s, gboolean v)
{
  if (v)
    append_lit (s, "true");
  else
    append_lit (s, "false");
}

/* A computed float (a mean, a percentage) the way Python's repr() writes it: the shortest of
 * %.15g/%.16g/%.17g that reads back exactly, ".0" on integral values, bare NaN/Infinity as
 * json.dumps writes them. g_ascii_formatd keeps the decimal point a '.' whatever the locale. */
static void
append_float (GString *s, double v)
{
  if (isnan (v))
    {
      append_lit (s, "NaN");
      return;
    }
  if (isinf (v))
    {
      if (v > 0)
        append_lit (s, "Infinity");
      else
        append_lit (s, "-Infinity");
      return;
    }
  static const char *const formats[] = { "%.15g", "%.16g", "%.17g" };
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  for (gsize i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_ascii_formatd (buf, sizeof buf, formats[i], v);
      if (g_ascii_strtod (buf, NULL) == v)
        break;
    }
  g_string_append (s, buf);
  if (strpbrk (buf, ".e") == NULL)
    append_lit (s, ".0");
}

/* Writes a duration of `us` microseconds the way the real logger does: a difference
 * of two float clock readings, so a 17-digit value off the whole microsecond by a
 * little (less than half a microsecond, so timestamp - duration_sec still rounds to
 * the start). The offset is a hash of `us`: deterministic, and the same duration
 * always prints the same. A zero duration stays 0.0 as the logger writes it. */
static void
append_seconds (GString *s, gint64 us)
{
  if (us == 0)
    {
      append_lit (s, "0.0");
      return;
    }
  guint64 h = (guint64) us * 0x9E3779B97F4A7C15ull;
  double jitter_us = ((double) (h >> 11) / 9007199254740992.0 - 0.5) * 0.9;   /* -0.45 .. 0.45 */
  append_float (s, ((double) us + jitter_us) / 1e6);
}


static void
put_2digits (char *p, int v)
{
  p[0] = (char) ('0' + v / 10);
  p[1] = (char) ('0' + v % 10);
}

/* Days since 1970-01-01 to a civil date (H. Hinnant's algorithm, proleptic Gregorian). */
static void
civil_from_days (gint64 z, int *year, int *month, int *day)
{
  z += 719468;
  gint64 era = (z >= 0 ? z : z - 146096) / 146097;
  gint64 doe = z - era * 146097;
  gint64 yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  gint64 doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  gint64 mp = (5 * doy + 2) / 153;
  *day = (int) (doy - (153 * mp + 2) / 5 + 1);
  *month = (int) (mp < 10 ? mp + 3 : mp - 9);
  *year = (int) (yoe + era * 400 + (*month <= 2));
}

/* Naive wall-clock time as Python's datetime.isoformat() writes it: no zone, and no fraction at
 * all when the microseconds are zero. Times are kept as microseconds since 1970 on a clock
 * without a zone, so there is no DST jump to get wrong. */
static void
append_timestamp (GString *s, gint64 us)
{
  gint64 days = us / USEC_PER_DAY;
  gint64 rem = us % USEC_PER_DAY;
  if (rem < 0)
    {
      rem += USEC_PER_DAY;
      days--;
    }
  int year, month, day;
  civil_from_days (days, &year, &month, &day);
  int secs = (int) (rem / USEC_PER_SEC);
  int frac = (int) (rem % USEC_PER_SEC);

  char buf[26] = "0000-00-00T00:00:00.000000";
  put_2digits (buf, (year / 100) % 100);
  put_2digits (buf + 2, year % 100);
  put_2digits (buf + 5, month);
  put_2digits (buf + 8, day);
  put_2digits (buf + 11, secs / 3600);
  put_2digits (buf + 14, secs / 60 % 60);
  put_2digits (buf + 17, secs % 60);
  if (frac == 0)
    {
      g_string_append_len (s, buf, 19);
      return;
    }
  for (int i = 25; i >= 20; i--, frac /= 10)
    buf[i] = (char) ('0' + frac % 10);
  g_string_append_len (s, buf, 26);
}

/* Python's str(uuid.uuid4()): random bits with the version nibble 4 and variant bits 10. */
static void
format_uuid4 (char out[37], guint64 hi, guint64 lo)
{
  hi = (hi & ~G_GUINT64_CONSTANT (0xf000)) | G_GUINT64_CONSTANT (0x4000);
  lo = (lo & ~(G_GUINT64_CONSTANT (0x3) << 62)) | (G_GUINT64_CONSTANT (0x2) << 62);
  static const char hex[] = "0123456789abcdef";
  char *p = out;
  for (int i = 0; i < 32; i++)
    {
      if (i == 8 || i == 12 || i == 16 || i == 20)
        *p++ = '-';
      guint64 word = i < 16 ? hi : lo;
      *p++ = hex[(word >> (60 - 4 * (i % 16))) & 0xf];
    }
  *p = '\0';
}

/* ------------------------------------------------------------------------------------------ */
/* One request's timeline                                                                       */

typedef enum {
  TURN_TOOL_CALLS, /* the model called a tool: the request goes on after the tool runs */
  TURN_STOP,       /* the model answered */
  TURN_LENGTH,     /* the response hit RESPONSE_CAP tokens */
} TurnFinish;

static const char *const turn_finish_names[] = { "tool_calls", "stop", "length" };
/* The request's finish as verl's enum prints; TOOL_CALL means it ran out of turns mid-tool-use. */
static const char *const request_finish_names[] = {
  "FinishReasonTypeEnum.TOOL_CALL", "FinishReasonTypeEnum.STOP", "FinishReasonTypeEnum.LENGTH",
};

/* Times of one assistant turn, in microseconds from the request's start. */
typedef struct {
  gint64 start, pre_end;
  gint64 engine_start, setup_start, setup_end, actual_start, actual_end, engine_end;
  gint64 parse_start, parse_end, post_start, post_end, end;
  gint64 exec_start, exec_end, resp_start, resp_end, tool_state_end; /* when executes_tools */
  int sequence_length, generation_prompt_length, generated_tokens, text_length;
  int raw_tool_calls, parsed_tool_calls;
  gboolean has_tool_calls, executes_tools;
  TurnFinish finish;
} TurnPlan;

/* Everything one request logs, decided before any line is written. Times are microseconds
 * from the request's start; `offset` places that start after the end of preprocessing. */
typedef struct {
  char id[37];
  int batch_data_id, prompt_length;
  gint64 offset;
  gint64 pending_start, pending_end, tool_create_start, tool_create_end;
  gboolean has_interaction;
  gint64 interaction_start, interaction_end;
  int n_turns;
  TurnPlan turns[MAX_TURNS];
  gint64 loop_start, loop_end, reward_start, reward_end, final_start, final_end, end;
  int response_length, actual_tokens, user_turns, turns_with_tools;
  TurnFinish finish;
} RequestPlan;

/* Engine time of one turn. Decoding costs ~16 ms a token and slows as the context grows with the
 * turn index; a queueing delay and a rare stall (preemption, KV-cache pressure) add the heavy
 * tail; `slow` makes a whole rank slower (the step's straggler). */
static gint64
engine_time_us (Rng *r, int turn, int tokens, double slow)
{
  double per_token = 0.016 * (1.0 + 0.12 * turn) * rng_lognormal (r, 1.0, 0.2, 0.5, 2.0);
  double seconds = tokens * per_token + rng_lognormal (r, 0.04, 1.0, 0.001, 30.0);
  if (rng_chance (r, 0.02))
    seconds *= rng_range (r, 2.0, 5.0);
  return (gint64) llround (seconds * slow * 1e6);
}

static void
request_plan (RequestPlan *p, guint64 seed, int step, int worker, int index, double slow)
{
  Rng r;
  rng_seed_stream (&r, seed, STREAM_REQUEST, step, worker, index);
  guint64 hi = rng_next (&r), lo = rng_next (&r);
  format_uuid4 (p->id, hi, lo);
  p->batch_data_id = index;
  p->offset = (gint64) index * REQUEST_STAGGER_US + rng_int (&r, 0, REQUEST_STAGGER_US);
  p->prompt_length = (int) rng_lognormal (&r, 700, 0.55, 64, 3072);

  p->pending_start = rng_int (&r, 5, 60);
  p->pending_end = p->pending_start + rng_duration_us (&r, 0.00015, 0.8, 0.00002, 0.002);
  p->tool_create_start = p->pending_end + rng_int (&r, 2, 40);
  p->tool_create_end = p->tool_create_start + rng_duration_us (&r, 0.004, 0.9, 0.0005, 0.05);
  gint64 t = p->tool_create_end;
  /* A minority of prompts come with a simulated-user interaction to set up. */
  p->has_interaction = rng_chance (&r, 0.1);
  if (p->has_interaction)
    {
      p->interaction_start = t + rng_int (&r, 2, 30);
      p->interaction_end = p->interaction_start + rng_duration_us (&r, 0.002, 0.7, 0.0002, 0.03);
      t = p->interaction_end;
    }
  p->loop_start = t + rng_int (&r, 2, 30);
  t = p->loop_start;

  int response = 0, actual = 0;
  p->turns_with_tools = 0;
  for (int turn = 0; turn < MAX_TURNS; turn++)
    {
      TurnPlan *tp = &p->turns[turn];
      memset (tp, 0, sizeof *tp);
      tp->start = t;
      tp->sequence_length = p->prompt_length + response;
      tp->generation_prompt_length = tp->sequence_length + (int) rng_int (&r, 3, 16);
      tp->pre_end = tp->start + rng_duration_us (&r, 0.0003, 0.7, 0.00003, 0.005);
      tp->engine_start = tp->pre_end + rng_int (&r, 1, 15);
      tp->setup_start = tp->engine_start + rng_int (&r, 1, 8);
      tp->setup_end = tp->setup_start + rng_duration_us (&r, 0.0004, 0.8, 0.00005, 0.005);

      /* Later turns write more: plans, then longer answers. */
      int tokens = (int) rng_lognormal (&r, 170.0 * (1.0 + 0.25 * turn), 0.85, 1, RESPONSE_CAP);
      gboolean wants_tool = rng_chance (&r, P_ANOTHER_TURN);
      if (response + tokens >= RESPONSE_CAP)
        {
          tokens = RESPONSE_CAP - response;
          tp->finish = TURN_LENGTH;
        }
      else
        tp->finish = wants_tool ? TURN_TOOL_CALLS : TURN_STOP;
      tp->has_tool_calls = tp->finish == TURN_TOOL_CALLS;
      tp->generated_tokens = tokens;
      tp->text_length = (int) (tokens * rng_range (&r, 3.0, 4.2));
      tp->actual_start = tp->setup_end + rng_int (&r, 1, 10);
      tp->actual_end = tp->actual_start + engine_time_us (&r, turn, tokens, slow);
      tp->engine_end = tp->actual_end + rng_int (&r, 5, 40);

      tp->post_start = tp->engine_end + rng_int (&r, 1, 10);
      gint64 post_work_from = tp->post_start;
      if (tp->has_tool_calls)
        {
          tp->raw_tool_calls = 1 + rng_chance (&r, 0.3) + rng_chance (&r, 0.1);
          /* Now and then a call is malformed and the parser drops it. */
          tp->parsed_tool_calls = tp->raw_tool_calls - (tp->raw_tool_calls > 1 && rng_chance (&r, 0.03));
          tp->parse_start = tp->engine_end + rng_int (&r, 5, 30);
          tp->parse_end = tp->parse_start + rng_duration_us (&r, 0.0003, 0.6, 0.00003, 0.005);
          post_work_from = tp->parse_end;
          p->turns_with_tools++;
        }
      tp->post_end = post_work_from + rng_duration_us (&r, 0.0002, 0.8, 0.00001, 0.005);
      tp->end = tp->post_end + rng_int (&r, 5, 60);
      response += tokens;
      actual += tokens;
      t = tp->end;

      if (tp->finish != TURN_TOOL_CALLS || turn == MAX_TURNS - 1)
        {
          p->n_turns = turn + 1;
          p->finish = tp->finish;
          break;
        }

      tp->executes_tools = TRUE;
      tp->exec_start = t + rng_int (&r, 2, 20);
      tp->exec_end = tp->exec_start
                     + tp->parsed_tool_calls * rng_duration_us (&r, 0.3, 1.1, 0.005, 60.0);
      tp->resp_start = tp->exec_end + rng_int (&r, 2, 20);
      tp->resp_end = tp->resp_start + rng_duration_us (&r, 0.0004, 0.9, 0.00002, 0.01);
      tp->tool_state_end = tp->resp_end + rng_int (&r, 2, 15);
      /* The tool's output becomes part of the response; leave at least one token to generate. */
      int tool_tokens = (int) rng_lognormal (&r, 120, 0.8, 5, 2000);
      response = MIN (response + tool_tokens, RESPONSE_CAP - 1);
      t = tp->tool_state_end + rng_int (&r, 2, 30);
    }

  p->user_turns = p->n_turns - 1; /* every turn but the last handed tool output back */
  p->response_length = response;
  p->actual_tokens = actual;
  p->loop_end = p->turns[p->n_turns - 1].end + rng_int (&r, 2, 10);
  p->reward_start = p->loop_end + rng_int (&r, 2, 20);
  p->reward_end = p->reward_start + rng_duration_us (&r, 0.02, 1.0, 0.0005, 1.0);
  p->final_start = p->reward_end + rng_int (&r, 2, 10);
  p->final_end = p->final_start + rng_duration_us (&r, 0.0008, 0.7, 0.0001, 0.01);
  p->end = p->final_end + rng_int (&r, 5, 30);
}

/* ------------------------------------------------------------------------------------------ */
/* A step on one rank                                                                           */

typedef enum {
  SEC_PREPROCESSING,
  SEC_ASYNC_GENERATE,
  SEC_SORTING,
  SEC_BARRIER,
  SEC_BROADCAST,
  SEC_DATA_EXTRACTION,
  SEC_PADDING,
  SEC_CONCATENATION,
  SEC_BATCH_CONSTRUCTION,
  SEC_CACHE_FLUSH,
  SEC_FINAL_CONSTRUCTION,
  SEC_TOTAL,
  N_SECTIONS
} Section;

static const char *const section_names[2][N_SECTIONS] = {
  [SCHEMA_V1] = { "preprocessing", "async_generate", "sorting", "barrier", "broadcast",
                  "data_extraction", "padding", "concatenation", "batch_construction",
                  "cache_flush", "final_construction", "total" },
  [SCHEMA_V2] = { "preprocessing_duration", "async_generate_duration", "sorting_duration",
                  "barrier_wait_duration", "broadcast_duration", "data_extraction_duration",
                  "padding_duration", "concatenation_duration", "batch_construction_duration",
                  "cache_flush_duration", "final_construction_duration", "total_step_duration" },
};

/* Durations of the sections that follow generation and do not depend on other ranks:
 * median seconds, spread, bounds. Values are of the order seen in real traces. */
typedef struct {
  Section section;
  double median, sigma, lo, hi;
} SectionTiming;

static const SectionTiming fixed_sections[] = {
  { SEC_SORTING, 0.0002, 1.0, 0.00002, 0.01 },
  { SEC_BROADCAST, 0.2, 0.6, 0.02, 2.0 },
  { SEC_DATA_EXTRACTION, 0.13, 0.4, 0.02, 1.0 },
  { SEC_PADDING, 0.008, 0.8, 0.0002, 0.1 },
  { SEC_CONCATENATION, 0.004, 1.0, 0.0001, 0.1 },
  { SEC_BATCH_CONSTRUCTION, 0.015, 0.4, 0.002, 0.2 },
  { SEC_CACHE_FLUSH, 0.25, 0.5, 0.05, 2.0 },
  { SEC_FINAL_CONSTRUCTION, 0.001, 1.2, 0.00005, 0.05 },
};

/* Per step: which rank straggles and how long training ran before the step's rollout. */
typedef struct {
  int number;
  int straggler;
  double straggler_slow;
  gint64 training_gap_us;
} StepPlan;

/* One (step, worker): first the durations that do not depend on when the step starts (planned
 * in parallel), then absolute section times, which need every rank of the step (the barrier)
 * and the previous step (the training gap), set in order afterwards. */
typedef struct {
  int step_index, step, worker;
  double slow;
  /* relative, from rank_step_plan */
  gint64 start_jitter, prep_duration, generation_span, barrier_overhead;
  gint64 response_tokens; /* of all its requests, for the trainer's log */
  gint64 gap[N_SECTIONS], duration[N_SECTIONS];
  gint64 stats_gap, total_gap;
  /* absolute, from steps_anchor */
  gint64 start[N_SECTIONS], end[N_SECTIONS];
  gint64 stats_time;
} RankStep;

/* ------------------------------------------------------------------------------------------ */
/* Damage                                                                                       */

typedef enum {
  FILE_PRESENT,
  FILE_MISSING, /* this rank has no file in this step */
  FILE_EMPTY,   /* zero bytes; the content went to a .bak beside it */
} FileFate;

typedef enum {
  STATS_INTACT,
  STATS_NAN_P95,      /* a percentile over nothing */
  STATS_INF_MEAN_MIN, /* Infinity / -Infinity, as a broken reduction writes them */
} StatsDamage;

#define MAX_INSERTED 6
#define MAX_COPIES 2

typedef struct {
  double at; /* where among the request lines, as a fraction */
  const char *text;
} InsertedLines;

typedef struct {
  FileFate fate;
  gboolean truncate_last;
  double truncate_at; /* fraction of the last line kept */
  StatsDamage stats;
  InsertedLines inserted[MAX_INSERTED];
  int n_inserted;
  char *copies[MAX_COPIES]; /* paths under OUT that get the same bytes (.bak, plots/) */
  int n_copies;
} FileDamage;

static const char traceback_text[] =
  "Traceback (most recent call last):\n"
  "  File \"/opt/verl/verl/workers/rollout/sglang_rollout/sglang_rollout.py\", line 1187, in "
  "_async_rollout_a_request\n"
  "    output = await self._engine.async_generate(\n"
  "RuntimeError: CUDA error: an illegal memory access was encountered\n";

/* ------------------------------------------------------------------------------------------ */
/* The whole run                                                                                */

typedef struct {
  const char *out_dir;
  Schema schema;
  guint64 seed;
  int n_steps, n_workers, n_requests;
  StepPlan *steps;    /* [n_steps] */
  RankStep *ranks;    /* [step_index * n_workers + worker] */
  FileDamage *damage; /* same indexing; NULL without --faults */
  GPtrArray *fault_notes;

  /* Results of the parallel writing: the first error wins, the rest of the work is skipped. */
  GMutex lock;
  GError *error;
  gint failed;
  guint64 lines, bytes, files;
} Synth;

static RankStep *
synth_rank (const Synth *sy, int step_index, int worker)
{
  return &sy->ranks[step_index * sy->n_workers + worker];
}

static void
synth_fail (Synth *sy, GError *error)
{
  g_mutex_lock (&sy->lock);
  if (sy->error == NULL)
    sy->error = error;
  else
    g_error_free (error);
  g_mutex_unlock (&sy->lock);
  g_atomic_int_set (&sy->failed, 1);
}

static void
steps_plan (Synth *sy, int first_step)
{
  sy->steps = g_new0 (StepPlan, sy->n_steps);
  for (int i = 0; i < sy->n_steps; i++)
    {
      StepPlan *sp = &sy->steps[i];
      Rng r;
      sp->number = first_step + i;
      rng_seed_stream (&r, sy->seed, STREAM_STEP, sp->number, 0, 0);
      sp->straggler = sy->n_workers > 1 ? (int) rng_int (&r, 0, sy->n_workers - 1) : -1;
      sp->straggler_slow = rng_range (&r, 1.5, 2.0);
      sp->training_gap_us = (gint64) llround (rng_range (&r, 30.0, 120.0) * 1e6);
    }
}

/* GThreadPool task: the parts of a rank's step that depend only on its own random streams. */
static void
rank_step_plan (gpointer data, gpointer user_data)
{
  RankStep *rs = data;
  Synth *sy = user_data;
  const StepPlan *sp = &sy->steps[rs->step_index];
  Rng r;
  rng_seed_stream (&r, sy->seed, STREAM_RANK, rs->step, rs->worker, 0);

  /* Ranks differ a little in speed; the straggler (a hot GPU, a noisy neighbour) a lot. */
  rs->slow = rng_range (&r, 0.92, 1.08) * (rs->worker == sp->straggler ? sp->straggler_slow : 1.0);
  rs->start_jitter = rng_int (&r, 0, 400000);
  rs->prep_duration = rng_duration_us (&r, 10.0, 0.15, 6.0, 20.0);

  /* Generation lasts until the rank's slowest request is done. */
  gint64 span = 0;
  RequestPlan plan;
  for (int i = 0; i < sy->n_requests; i++)
    {
      request_plan (&plan, sy->seed, rs->step, rs->worker, i, rs->slow);
      span = MAX (span, plan.offset + plan.end);
      rs->response_tokens += plan.response_length;
    }
  rs->generation_span = span + rng_int (&r, 20, 80);

  for (gsize i = 0; i < G_N_ELEMENTS (fixed_sections); i++)
    {
      const SectionTiming *st = &fixed_sections[i];
      rs->gap[st->section] = rng_int (&r, 1, 20);
      rs->duration[st->section]
        = rng_duration_us (&r, st->median, st->sigma, st->lo, st->hi);
    }
  rs->gap[SEC_BARRIER] = rng_int (&r, 1, 10);
  rs->barrier_overhead = 2000 + rng_int (&r, 0, 600); /* the collective's own cost */
  rs->stats_gap = rng_int (&r, 3, 10);
  rs->total_gap = rng_int (&r, 3, 15);
}

/* Absolute times, step by step: every rank of a step starts its preprocessing at the same moment
 * (plus jitter), leaves the barrier when the slowest rank arrives, and the next step starts after
 * a training gap following the last rank's end. */
static void
steps_anchor (Synth *sy, gint64 start_us)
{
  gint64 step_start = start_us;
  for (int si = 0; si < sy->n_steps; si++)
    {
      gint64 slowest_arrival = G_MININT64, last_end = G_MININT64;
      for (int w = 0; w < sy->n_workers; w++)
        {
          RankStep *rs = synth_rank (sy, si, w);
          rs->start[SEC_PREPROCESSING] = step_start + rs->start_jitter;
          /* Preprocessing is logged on a whole second, as in real traces; it keeps the
           * fraction-less timestamp form in every file. */
          gint64 prep_end = rs->start[SEC_PREPROCESSING] + rs->prep_duration;
          rs->end[SEC_PREPROCESSING] = (prep_end + USEC_PER_SEC - 1) / USEC_PER_SEC * USEC_PER_SEC;
          rs->start[SEC_ASYNC_GENERATE] = rs->end[SEC_PREPROCESSING];
          rs->end[SEC_ASYNC_GENERATE] = rs->end[SEC_PREPROCESSING] + rs->generation_span;
          rs->start[SEC_SORTING] = rs->end[SEC_ASYNC_GENERATE] + rs->gap[SEC_SORTING];
          rs->end[SEC_SORTING] = rs->start[SEC_SORTING] + rs->duration[SEC_SORTING];
          slowest_arrival = MAX (slowest_arrival, rs->end[SEC_SORTING]);
        }
      for (int w = 0; w < sy->n_workers; w++)
        {
          RankStep *rs = synth_rank (sy, si, w);
          rs->start[SEC_BARRIER] = rs->end[SEC_SORTING] + rs->gap[SEC_BARRIER];
          rs->end[SEC_BARRIER] = MAX (slowest_arrival, rs->start[SEC_BARRIER]) + rs->barrier_overhead;
          for (Section sec = SEC_BROADCAST; sec <= SEC_FINAL_CONSTRUCTION; sec++)
            {
              rs->start[sec] = rs->end[sec - 1] + rs->gap[sec];
              rs->end[sec] = rs->start[sec] + rs->duration[sec];
            }
          rs->stats_time = rs->end[SEC_FINAL_CONSTRUCTION] + rs->stats_gap;
          rs->start[SEC_TOTAL] = rs->start[SEC_PREPROCESSING];
          rs->end[SEC_TOTAL] = rs->stats_time + rs->total_gap;
          last_end = MAX (last_end, rs->end[SEC_TOTAL]);
        }
      if (si + 1 < sy->n_steps)
        step_start = last_end + sy->steps[si + 1].training_gap_us;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Lines                                                                                        */

/* A line of the request phase: where its text sits and when it was written. `seq` keeps the
 * generation order among lines with the same timestamp, which makes the sort stable. */
typedef struct {
  gint64 end_us;
  gsize offset;
  guint32 length, seq;
} LineRef;

typedef struct {
  GString *s;
  GArray *refs;      /* LineRef per line, or NULL when the order is already right */
  const char *suffix; /* , "workid": W, "step": S}\n */
  gsize suffix_len;
  gsize line_offset;
  gint64 line_end;
} LineSink;

static void
line_open (LineSink *k, gint64 end_us, const char *event)
{
  k->line_offset = k->s->len;
  k->line_end = end_us;
  append_lit (k->s, "{\"timestamp\": \"");
  append_timestamp (k->s, end_us);
  append_lit (k->s, "\", \"event\": \"");
  g_string_append (k->s, event);
  g_string_append_c (k->s, '"');
}

/* A timed section: the line is written at its end; the duration is measured on the same
 * microsecond clock so that start = timestamp - duration_sec holds exactly. */
static void
line_open_timed (LineSink *k, gint64 start_us, gint64 end_us, const char *event)
{
  line_open (k, end_us, event);
  put_key (k->s, "duration_sec");
  append_seconds (k->s, end_us - start_us);
}

static void
extra_open_request (LineSink *k, const char *request_id)
{
  append_lit (k->s, ", \"extra\": {\"request_id\": \"");
  g_string_append_len (k->s, request_id, 36);
  g_string_append_c (k->s, '"');
}

static void
line_close (LineSink *k, gboolean had_extra)
{
  if (had_extra)
    g_string_append_c (k->s, '}');
  g_string_append_len (k->s, k->suffix, (gssize) k->suffix_len);
  if (k->refs != NULL)
    {
      LineRef ref = { k->line_end, k->line_offset, (guint32) (k->s->len - k->line_offset),
                      k->refs->len };
      g_array_append_val (k->refs, ref);
    }
}

/* A request-level timed section whose extra holds only the request id. */
static void
emit_request_section (LineSink *k, const RequestPlan *p, gint64 base, gint64 start, gint64 end,
                      const char *event)
{
  line_open_timed (k, base + start, base + end, event);
  extra_open_request (k, p->id);
  line_close (k, TRUE);
}

static void
emit_turn_section (LineSink *k, const RequestPlan *p, gint64 base, gint64 start, gint64 end,
                   const char *event, int turn)
{
  line_open_timed (k, base + start, base + end, event);
  extra_open_request (k, p->id);
  put_key (k->s, "turn");
  append_int (k->s, turn);
  line_close (k, TRUE);
}

static double
percent (gint64 part, gint64 whole)
{
  return whole > 0 ? 100.0 * (double) part / (double) whole : 0.0;
}

static void
emit_turn_v2 (LineSink *k, const RequestPlan *p, gint64 base, int turn)
{
  const TurnPlan *tp = &p->turns[turn];
  GString *s = k->s;
  gint64 pre = tp->pre_end - tp->start;
  gint64 engine = tp->engine_end - tp->engine_start;
  gint64 post = tp->post_end - tp->post_start;
  gint64 parsing = tp->has_tool_calls ? tp->parse_end - tp->parse_start : 0;
  gint64 total = tp->end - tp->start;
  const char *finish = turn_finish_names[tp->finish];

  line_open (k, base + tp->start, "turn_start");
  extra_open_request (k, p->id);
  put_key (s, "turn");
  append_int (s, turn);
  put_key (s, "current_sequence_length");
  append_int (s, tp->sequence_length);
  line_close (k, TRUE);

  line_open_timed (k, base + tp->start, base + tp->pre_end, "turn_pre_process");
  extra_open_request (k, p->id);
  put_key (s, "turn");
  append_int (s, turn);
  put_key (s, "generation_prompt_length");
  append_int (s, tp->generation_prompt_length);
  line_close (k, TRUE);

  emit_request_section (k, p, base, tp->setup_start, tp->setup_end, "engine_generate_setup");
  emit_request_section (k, p, base, tp->actual_start, tp->actual_end, "engine_async_generate_actual");

  line_open_timed (k, base + tp->engine_start, base + tp->engine_end, "turn_engine_call");
  extra_open_request (k, p->id);
  put_key (s, "turn");
  append_int (s, turn);
  put_key (s, "generated_tokens");
  append_int (s, tp->generated_tokens);
  put_key (s, "output_text_length");
  append_int (s, tp->text_length);
  line_close (k, TRUE);

  if (tp->has_tool_calls)
    {
      line_open_timed (k, base + tp->parse_start, base + tp->parse_end, "turn_tool_parsing");
      extra_open_request (k, p->id);
      put_key (s, "turn");
      append_int (s, turn);
      put_key (s, "raw_tool_calls");
      append_int (s, tp->raw_tool_calls);
      put_key (s, "parsed_tool_calls");
      append_int (s, tp->parsed_tool_calls);
      line_close (k, TRUE);
    }

  line_open_timed (k, base + tp->post_start, base + tp->post_end, "turn_post_process");
  extra_open_request (k, p->id);
  put_key (s, "turn");
  append_int (s, turn);
  put_key (s, "has_tool_calls");
  append_bool (s, tp->has_tool_calls);
  put_key (s, "parsed_tool_calls");
  append_int (s, tp->parsed_tool_calls);
  put_key (s, "finish_reason");
  g_string_append_c (s, '"');
  g_string_append (s, finish);
  g_string_append_c (s, '"');
  put_key (s, "tool_parsing_duration");
  append_seconds (s, parsing);
  line_close (k, TRUE);

  line_open_timed (k, base + tp->start, base + tp->end, "turn_end");
  extra_open_request (k, p->id);
  put_key (s, "turn");
  append_int (s, turn);
  put_key (s, "pre_process_duration");
  append_seconds (s, pre);
  put_key (s, "engine_call_duration");
  append_seconds (s, engine);
  put_key (s, "post_process_duration");
  append_seconds (s, post);
  put_key (s, "tool_parsing_duration");
  append_seconds (s, parsing);
  put_key (s, "has_tool_calls");
  append_bool (s, tp->has_tool_calls);
  put_key (s, "finish_reason");
  g_string_append_c (s, '"');
  g_string_append (s, finish);
  g_string_append_c (s, '"');
  put_key (s, "engine_call_pct");
  append_float (s, percent (engine, total));
  put_key (s, "post_process_pct");
  append_float (s, percent (post, total));
  line_close (k, TRUE);

  if (tp->executes_tools)
    {
      emit_turn_section (k, p, base, tp->exec_start, tp->exec_end, "tool_execution", turn);
      emit_turn_section (k, p, base, tp->resp_start, tp->resp_end, "tool_response_processing", turn);
      emit_turn_section (k, p, base, tp->exec_start, tp->tool_state_end, "tool_calling_state", turn);
    }
}

/* The request's summary: its own numbers agree with the turn_end lines it follows. */
static void
emit_request_complete_v2 (LineSink *k, const RequestPlan *p, gint64 base)
{
  GString *s = k->s;
  gint64 turn_sum = 0, engine_sum = 0, post_sum = 0;
  for (int t = 0; t < p->n_turns; t++)
    {
      const TurnPlan *tp = &p->turns[t];
      turn_sum += tp->end - tp->start;
      engine_sum += tp->engine_end - tp->engine_start;
      post_sum += tp->post_end - tp->post_start;
    }
  gint64 duration = p->end;

  line_open_timed (k, base, base + p->end, "async_rollout_request_complete");
  extra_open_request (k, p->id);
  put_key (s, "batch_data_id");
  append_int (s, p->batch_data_id);
  put_key (s, "finish_reason");
  g_string_append_c (s, '"');
  g_string_append (s, request_finish_names[p->finish]);
  g_string_append_c (s, '"');
  put_key (s, "turns");
  append_int (s, p->n_turns);
  put_key (s, "user_turns");
  append_int (s, p->user_turns);
  put_key (s, "turns_with_tools");
  append_int (s, p->turns_with_tools);
  put_key (s, "response_length");
  append_int (s, p->response_length);
  put_key (s, "actual_response_tokens");
  append_int (s, p->actual_tokens);
  put_key (s, "total_sequence_length");
  append_int (s, p->prompt_length + p->response_length);
  put_key (s, "avg_turn_duration");
  append_float (s, (double) turn_sum / 1e6 / p->n_turns);
  put_key (s, "avg_engine_call_duration");
  append_float (s, (double) engine_sum / 1e6 / p->n_turns);
  put_key (s, "avg_post_process_duration");
  append_float (s, (double) post_sum / 1e6 / p->n_turns);
  put_key (s, "total_engine_time");
  append_seconds (s, engine_sum);
  put_key (s, "total_post_process_time");
  append_seconds (s, post_sum);
  put_key (s, "engine_time_pct");
  append_float (s, percent (engine_sum, duration));
  put_key (s, "post_process_time_pct");
  append_float (s, percent (post_sum, duration));
  append_lit (s, ", \"turn_timings\": [");
  for (int t = 0; t < p->n_turns; t++)
    {
      const TurnPlan *tp = &p->turns[t];
      if (t > 0)
        append_lit (s, ", ");
      append_lit (s, "{\"turn\": ");
      append_int (s, t);
      put_key (s, "total_duration");
      append_seconds (s, tp->end - tp->start);
      put_key (s, "pre_process_duration");
      append_seconds (s, tp->pre_end - tp->start);
      put_key (s, "engine_call_duration");
      append_seconds (s, tp->engine_end - tp->engine_start);
      put_key (s, "post_process_duration");
      append_seconds (s, tp->post_end - tp->post_start);
      put_key (s, "tool_parsing_duration");
      append_seconds (s, tp->has_tool_calls ? tp->parse_end - tp->parse_start : 0);
      put_key (s, "has_tool_calls");
      append_bool (s, tp->has_tool_calls);
      put_key (s, "finish_reason");
      g_string_append_c (s, '"');
      g_string_append (s, turn_finish_names[tp->finish]);
      append_lit (s, "\"}");
    }
  g_string_append_c (s, ']');
  line_close (k, TRUE);
}

static void
emit_request_v2 (LineSink *k, const RequestPlan *p, gint64 base)
{
  line_open (k, base, "request_start");
  extra_open_request (k, p->id);
  put_key (k->s, "initial_prompt_length");
  append_int (k->s, p->prompt_length);
  line_close (k, TRUE);

  emit_request_section (k, p, base, p->pending_start, p->pending_end, "pending_state_handling");
  emit_request_section (k, p, base, p->tool_create_start, p->tool_create_end,
                        "tool_creation_pending_state");
  if (p->has_interaction)
    emit_request_section (k, p, base, p->interaction_start, p->interaction_end,
                          "interaction_start_pending_state");
  for (int t = 0; t < p->n_turns; t++)
    emit_turn_v2 (k, p, base, t);
  emit_request_section (k, p, base, p->loop_start, p->loop_end, "main_loop");
  emit_request_section (k, p, base, p->reward_start, p->reward_end, "reward_calculation");
  emit_request_section (k, p, base, p->final_start, p->final_end, "finalization");
  emit_request_complete_v2 (k, p, base);
}

/* The older logger: turn lines without request ids, engine_call and tool_parsing counting turns
 * from 1 while running_state counts from 0 (as the old samples show), and a short summary. */
static void
emit_request_v1 (LineSink *k, const RequestPlan *p, gint64 base)
{
  GString *s = k->s;
  for (int t = 0; t < p->n_turns; t++)
    {
      const TurnPlan *tp = &p->turns[t];
      line_open_timed (k, base + tp->engine_start, base + tp->engine_end, "engine_call");
      append_lit (s, ", \"extra\": {\"turn\": ");
      append_int (s, t + 1);
      line_close (k, TRUE);
      if (tp->has_tool_calls)
        {
          line_open_timed (k, base + tp->parse_start, base + tp->parse_end, "tool_parsing");
          append_lit (s, ", \"extra\": {\"turn\": ");
          append_int (s, t + 1);
          line_close (k, TRUE);
        }
      line_open_timed (k, base + tp->start, base + tp->end, "running_state");
      append_lit (s, ", \"extra\": {\"turn\": ");
      append_int (s, t);
      line_close (k, TRUE);
    }
  line_open_timed (k, base, base + p->end, "async_rollout_request_complete");
  extra_open_request (k, p->id);
  put_key (s, "batch_data_id");
  append_int (s, p->batch_data_id);
  put_key (s, "finish_reason");
  g_string_append_c (s, '"');
  g_string_append (s, request_finish_names[p->finish]);
  g_string_append_c (s, '"');
  put_key (s, "turns");
  append_int (s, p->n_turns);
  line_close (k, TRUE);
}

static int
compare_int (gconstpointer a, gconstpointer b)
{
  int x = *(const int *) a, y = *(const int *) b;
  return (x > y) - (x < y);
}

/* numpy.percentile's default (linear interpolation between closest ranks). */
static double
percentile_linear (const int *sorted, int n, double q)
{
  double rank = q / 100.0 * (n - 1);
  int lo = (int) floor (rank);
  int hi = MIN (lo + 1, n - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
}

static void
append_int_list (GString *s, const int *v, int n)
{
  g_string_append_c (s, '[');
  for (int i = 0; i < n; i++)
    {
      if (i > 0)
        append_lit (s, ", ");
      append_int (s, v[i]);
    }
  g_string_append_c (s, ']');
}

static void
emit_length_stats (LineSink *k, gint64 when, const int *lengths, const int *actual, int n,
                   StatsDamage damage)
{
  GString *s = k->s;
  g_autofree int *sorted = g_memdup2 (lengths, sizeof (int) * n);
  qsort (sorted, n, sizeof (int), compare_int);
  gint64 sum = 0;
  int over_500 = 0, over_1000 = 0;
  for (int i = 0; i < n; i++)
    {
      sum += lengths[i];
      over_500 += lengths[i] > 500;
      over_1000 += lengths[i] > 1000;
    }
  double mean = (double) sum / n;
  double median = percentile_linear (sorted, n, 50);
  double p95 = percentile_linear (sorted, n, 95);
  if (damage == STATS_NAN_P95)
    p95 = NAN;
  if (damage == STATS_INF_MEAN_MIN)
    mean = INFINITY;

  line_open (k, when, "step_response_length_stats");
  append_lit (s, ", \"extra\": {\"response_lengths\": ");
  append_int_list (s, lengths, n);
  put_key (s, "actual_response_tokens");
  append_int_list (s, actual, n);
  put_key (s, "response_length_mean");
  append_float (s, mean);
  put_key (s, "response_length_median");
  append_float (s, median);
  put_key (s, "response_length_p80");
  append_float (s, percentile_linear (sorted, n, 80));
  put_key (s, "response_length_p95");
  append_float (s, p95);
  put_key (s, "response_length_max");
  append_int (s, sorted[n - 1]);
  put_key (s, "response_length_min");
  if (damage == STATS_INF_MEAN_MIN)
    append_lit (s, "-Infinity");
  else
    append_int (s, sorted[0]);
  put_key (s, "requests_over_500");
  append_int (s, over_500);
  put_key (s, "requests_over_1000");
  append_int (s, over_1000);
  put_key (s, "batch_size");
  append_int (s, n);
  line_close (k, TRUE);
}

static void
emit_section (LineSink *k, const RankStep *rs, Schema schema, Section sec)
{
  line_open_timed (k, rs->start[sec], rs->end[sec], section_names[schema][sec]);
  line_close (k, FALSE);
}

/* ------------------------------------------------------------------------------------------ */
/* One worker file                                                                              */

/* A file's text in three parts: the preprocessing line, the request lines in the order they
 * were generated (refs says in which order to write them), and the step-level lines after. */
typedef struct {
  GString *head, *body, *tail;
  GArray *refs;
  gsize tail_last_line; /* offset of the last line in tail, for the truncation fault */
} TraceText;

static void
trace_text_clear (TraceText *tt)
{
  g_string_free (tt->head, TRUE);
  g_string_free (tt->body, TRUE);
  g_string_free (tt->tail, TRUE);
  g_array_unref (tt->refs);
}

static int
compare_line_ref (gconstpointer a, gconstpointer b)
{
  const LineRef *x = a, *y = b;
  if (x->end_us != y->end_us)
    return x->end_us < y->end_us ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

static void
trace_text_build (TraceText *tt, const Synth *sy, const RankStep *rs, StatsDamage stats_damage)
{
  int n = sy->n_requests;
  /* ~30 lines of ~330 bytes a request in v2; fewer and shorter in v1. */
  gsize guess = (gsize) n * (sy->schema == SCHEMA_V2 ? 30 * 340 : 6 * 170);
  tt->head = g_string_sized_new (256);
  tt->body = g_string_sized_new (guess);
  tt->tail = g_string_sized_new (4096 + (gsize) n * 12);
  tt->refs = g_array_sized_new (FALSE, FALSE, sizeof (LineRef),
                                (guint) (n * (sy->schema == SCHEMA_V2 ? 32 : 8)));

  g_autofree char *suffix = g_strdup_printf (", \"workid\": %d, \"step\": %d}\n", rs->worker, rs->step);
  LineSink k = { tt->head, NULL, suffix, strlen (suffix), 0, 0 };
  emit_section (&k, rs, sy->schema, SEC_PREPROCESSING);

  /* All requests run at once: write each one's lines in its own order, then sort them all by
   * time, which interleaves them the way a shared log file does. */
  g_autofree int *lengths = g_new (int, n);
  g_autofree int *actual = g_new (int, n);
  k.s = tt->body;
  k.refs = tt->refs;
  RequestPlan plan;
  for (int i = 0; i < n; i++)
    {
      request_plan (&plan, sy->seed, rs->step, rs->worker, i, rs->slow);
      gint64 base = rs->end[SEC_PREPROCESSING] + plan.offset;
      if (sy->schema == SCHEMA_V2)
        emit_request_v2 (&k, &plan, base);
      else
        emit_request_v1 (&k, &plan, base);
      lengths[i] = plan.response_length;
      actual[i] = plan.actual_tokens;
    }
  g_array_sort (tt->refs, compare_line_ref);

  k.s = tt->tail;
  k.refs = NULL;
  for (Section sec = SEC_ASYNC_GENERATE; sec <= SEC_FINAL_CONSTRUCTION; sec++)
    emit_section (&k, rs, sy->schema, sec);
  if (sy->schema == SCHEMA_V2)
    emit_length_stats (&k, rs->stats_time, lengths, actual, n, stats_damage);
  tt->tail_last_line = tt->tail->len;
  emit_section (&k, rs, sy->schema, SEC_TOTAL);
}

static gboolean
write_chunk (FILE *f, const char *data, gsize len, guint64 *bytes)
{
  *bytes += len;
  return fwrite (data, 1, len, f) == len;
}

/* Writes the file's lines in time order, with the damage that falls into this file. */
static gboolean
trace_text_write (const TraceText *tt, const FileDamage *dmg, FILE *f, guint64 *lines,
                  guint64 *bytes)
{
  gboolean ok = write_chunk (f, tt->head->str, tt->head->len, bytes);
  *lines += 1;
  const LineRef *refs = (const LineRef *) (gpointer) tt->refs->data;
  guint n = tt->refs->len;
  for (guint i = 0; i <= n && ok; i++)
    {
      for (int j = 0; dmg != NULL && j < dmg->n_inserted; j++)
        if ((guint) (dmg->inserted[j].at * n) == i)
          {
            const char *text = dmg->inserted[j].text;
            ok = ok && write_chunk (f, text, strlen (text), bytes);
            for (const char *c = text; *c; c++)
              *lines += *c == '\n';
          }
      if (i < n)
        ok = ok && write_chunk (f, tt->body->str + refs[i].offset, refs[i].length, bytes);
    }
  *lines += n;

  gsize tail_len = tt->tail->len;
  if (dmg != NULL && dmg->truncate_last)
    {
      /* The process died while writing its last line: cut mid-object, no newline. */
      gsize last_len = tt->tail->len - tt->tail_last_line;
      gsize keep = MAX ((gsize) 1, (gsize) (dmg->truncate_at * (double) last_len));
      tail_len = tt->tail_last_line + MIN (keep, last_len - 2);
    }
  ok = ok && write_chunk (f, tt->tail->str, tail_len, bytes);
  for (gsize i = 0; i < tail_len; i++)
    *lines += tt->tail->str[i] == '\n';
  if (tail_len < tt->tail->len)
    *lines += 1; /* the cut line counts too */
  return ok;
}

/* Writes OUT-relative `path` through a temporary name in the same folder and renames it when
 * complete, so an error never leaves a half-written worker file where an analyzer would read it.
 * tt == NULL writes an empty file. */
static gboolean
write_file_atomically (const Synth *sy, const char *path, const TraceText *tt,
                       const FileDamage *dmg, guint64 *lines, guint64 *bytes, GError **error)
{
  g_autofree char *final_path = g_build_filename (sy->out_dir, path, NULL);
  g_autofree char *dir = g_path_get_dirname (final_path);
  g_autofree char *base = g_path_get_basename (final_path);
  g_autofree char *tmp_path = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);

  int fd = g_mkstemp_full (tmp_path, O_WRONLY, 0644);
  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_IO, "cannot create a file in %s: %s", dir,
                   g_strerror (saved));
      return FALSE;
    }
  FILE *f = fdopen (fd, "wb");
  if (f == NULL)
    {
      int saved = errno;
      close (fd);
      g_unlink (tmp_path);
      g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_IO, "cannot write %s: %s", final_path,
                   g_strerror (saved));
      return FALSE;
    }
  /* Few, large writes: the text is already in memory, stdio only batches the pieces. */
  setvbuf (f, NULL, _IOFBF, 1 << 20);
  gboolean ok = tt == NULL || trace_text_write (tt, dmg, f, lines, bytes);
  int saved = errno;
  if (fclose (f) != 0 && ok)
    {
      ok = FALSE;
      saved = errno;
    }
  if (ok && g_rename (tmp_path, final_path) != 0)
    {
      ok = FALSE;
      saved = errno;
    }
  if (!ok)
    {
      g_unlink (tmp_path);
      g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_IO, "cannot write %s: %s", final_path,
                   g_strerror (saved));
    }
  return ok;
}

/* GThreadPool task: generate one (step, worker) file and its copies. */
static void
rank_step_write (gpointer data, gpointer user_data)
{
  RankStep *rs = data;
  Synth *sy = user_data;
  if (g_atomic_int_get (&sy->failed))
    return;
  int idx = rs->step_index * sy->n_workers + rs->worker;
  const FileDamage *dmg = sy->damage != NULL ? &sy->damage[idx] : NULL;
  FileFate fate = dmg != NULL ? dmg->fate : FILE_PRESENT;
  int n_copies = dmg != NULL ? dmg->n_copies : 0;
  g_autofree char *path = g_strdup_printf ("step_%d/worker_%d.jsonl", rs->step, rs->worker);
  guint64 lines = 0, bytes = 0, copy_lines = 0, copy_bytes = 0;
  GError *error = NULL;

  TraceText tt;
  gboolean need_text = fate == FILE_PRESENT || n_copies > 0;
  if (need_text)
    trace_text_build (&tt, sy, rs, dmg != NULL ? dmg->stats : STATS_INTACT);

  gboolean ok = TRUE;
  if (fate != FILE_MISSING)
    ok = write_file_atomically (sy, path, fate == FILE_EMPTY ? NULL : &tt, dmg, &lines, &bytes,
                                &error);
  for (int c = 0; ok && c < n_copies; c++)
    ok = write_file_atomically (sy, dmg->copies[c], &tt, dmg, &copy_lines, &copy_bytes, &error);
  if (need_text)
    trace_text_clear (&tt);

  if (!ok)
    {
      synth_fail (sy, error);
      return;
    }
  g_mutex_lock (&sy->lock);
  sy->lines += lines;
  sy->bytes += bytes;
  sy->files += fate != FILE_MISSING;
  g_mutex_unlock (&sy->lock);
}

/* ------------------------------------------------------------------------------------------ */
/* Placing the damage                                                                           */

static gboolean
is_healthy (const FileDamage *d)
{
  return d->fate == FILE_PRESENT;
}

static gboolean
is_healthy_whole (const FileDamage *d)
{
  return d->fate == FILE_PRESENT && !d->truncate_last && d->n_copies == 0;
}

static gboolean
is_healthy_stats_intact (const FileDamage *d)
{
  return d->fate == FILE_PRESENT && d->stats == STATS_INTACT;
}

/* A random file satisfying `ok`, or -1: the candidates are listed so the choice is reproducible. */
static int
pick_file (Rng *r, const Synth *sy, gboolean (*ok) (const FileDamage *))
{
  int n = sy->n_steps * sy->n_workers, count = 0;
  g_autofree int *candidates = g_new (int, n);
  for (int i = 0; i < n; i++)
    if (ok (&sy->damage[i]))
      candidates[count++] = i;
  return count > 0 ? candidates[rng_int (r, 0, count - 1)] : -1;
}

static char *
file_label (const Synth *sy, int idx)
{
  return g_strdup_printf ("step_%d/worker_%d.jsonl", sy->steps[idx / sy->n_workers].number,
                          idx % sy->n_workers);
}

static void
insert_lines (Rng *r, Synth *sy, const char *text, const char *what)
{
  int idx = pick_file (r, sy, is_healthy);
  if (idx < 0)
    return;
  FileDamage *d = &sy->damage[idx];
  if (d->n_inserted == MAX_INSERTED)
    return;
  d->inserted[d->n_inserted].at = rng_uniform (r);
  d->inserted[d->n_inserted++].text = text;
  g_autofree char *label = file_label (sy, idx);
  g_ptr_array_add (sy->fault_notes, g_strdup_printf ("%s in %s", what, label));
}

/* Every kind of damage FORMAT.md mentions, each in one place chosen from the seed, so a few
 * lines out of many are bad and the statistics stay realistic. Returns the notes.txt to write
 * (OUT-relative path and text) through the out parameters. */
static void
damage_plan (Synth *sy, char **notes_path, char **notes_text)
{
  int n = sy->n_steps * sy->n_workers, W = sy->n_workers;
  Rng r;
  rng_seed_stream (&r, sy->seed, STREAM_FAULTS, 0, 0, 0);
  sy->damage = g_new0 (FileDamage, n);
  GPtrArray *notes = sy->fault_notes;

  /* The newest step was still being written when the run stopped. */
  int truncated = (sy->n_steps - 1) * W + (int) rng_int (&r, 0, W - 1);
  sy->damage[truncated].truncate_last = TRUE;
  sy->damage[truncated].truncate_at = rng_range (&r, 0.3, 0.8);
  g_autofree char *truncated_label = file_label (sy, truncated);
  g_ptr_array_add (notes, g_strdup_printf ("truncated last line of %s", truncated_label));

  /* A rank without a file in one older step (present in the others). */
  if (sy->n_steps >= 2 && W >= 2)
    {
      int idx = (int) rng_int (&r, 0, sy->n_steps - 2) * W + (int) rng_int (&r, 0, W - 1);
      sy->damage[idx].fate = FILE_MISSING;
      g_autofree char *label = file_label (sy, idx);
      g_ptr_array_add (notes, g_strdup_printf ("missing %s", label));
    }
  else
    g_ptr_array_add (notes, g_strdup ("no missing file (needs 2+ steps and 2+ workers)"));

  /* A worker rerun after a crash: an empty file, the old content in a .bak, a note about it. */
  int emptied = pick_file (&r, sy, is_healthy_whole);
  int bak_source = emptied >= 0 ? emptied : truncated;
  FileDamage *bd = &sy->damage[bak_source];
  int bak_step = sy->steps[bak_source / W].number, bak_worker = bak_source % W;
  bd->copies[bd->n_copies++] = g_strdup_printf ("step_%d/worker_%d.jsonl.bak", bak_step, bak_worker);
  *notes_path = g_strdup_printf ("step_%d/notes.txt", bak_step);
  *notes_text = g_strdup_printf ("rerun of worker %d after OOM; see worker_%d.jsonl.bak\n",
                                 bak_worker, bak_worker);
  if (emptied >= 0)
    {
      bd->fate = FILE_EMPTY;
      g_ptr_array_add (notes, g_strdup_printf ("empty step_%d/worker_%d.jsonl", bak_step, bak_worker));
    }
  else
    g_ptr_array_add (notes, g_strdup ("no empty file (no spare file)"));
  g_ptr_array_add (notes, g_strdup_printf ("stray step_%d/worker_%d.jsonl.bak and step_%d/notes.txt",
                                           bak_step, bak_worker, bak_step));

  /* Someone kept a trace file in a plotting folder beside the steps. */
  int plot_source = pick_file (&r, sy, is_healthy_whole);
  if (plot_source < 0)
    plot_source = truncated;
  FileDamage *pd = &sy->damage[plot_source];
  if (pd->n_copies < MAX_COPIES)
    {
      pd->copies[pd->n_copies++] = g_strdup ("plots/worker_0.jsonl");
      g_ptr_array_add (notes, g_strdup ("stray plots/worker_0.jsonl"));
    }

  insert_lines (&r, sy, "\n", "empty line");
  insert_lines (&r, sy, traceback_text, "Python traceback (4 lines)");
  insert_lines (&r, sy, "[1, 2]\n", "non-object line [1, 2]");
  insert_lines (&r, sy, "42\n", "non-object line 42");

  /* Only the newer logger writes the statistics line that can hold NaN and Infinity. */
  if (sy->schema == SCHEMA_V2)
    {
      const struct {
        StatsDamage kind;
        const char *what;
      } stats[] = { { STATS_NAN_P95, "NaN p95" }, { STATS_INF_MEAN_MIN, "Infinity/-Infinity mean/min" } };
      for (gsize i = 0; i < G_N_ELEMENTS (stats); i++)
        {
          int idx = pick_file (&r, sy, is_healthy_stats_intact);
          if (idx < 0)
            continue;
          sy->damage[idx].stats = stats[i].kind;
          g_autofree char *label = file_label (sy, idx);
          g_ptr_array_add (notes, g_strdup_printf ("%s in %s", stats[i].what, label));
        }
    }
  else
    g_ptr_array_add (notes, g_strdup ("no NaN/Infinity (v1 has no statistics line)"));
}

static void
damage_free (Synth *sy)
{
  if (sy->damage == NULL)
    return;
  for (int i = 0; i < sy->n_steps * sy->n_workers; i++)
    for (int c = 0; c < sy->damage[i].n_copies; c++)
      g_free (sy->damage[i].copies[c]);
  g_clear_pointer (&sy->damage, g_free);
}

/* ------------------------------------------------------------------------------------------ */
/* Command line                                                                                 */

/* OUT must be new or an empty folder: never mix a synthetic run into existing files. */
static gboolean
output_dir_prepare (const char *out, GError **error)
{
  if (g_file_test (out, G_FILE_TEST_EXISTS))
    {
      if (!g_file_test (out, G_FILE_TEST_IS_DIR))
        {
          g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_USAGE,
                       "%s exists and is not a directory", out);
          return FALSE;
        }
      g_autoptr (GError) dir_error = NULL;
      g_autoptr (GDir) dir = g_dir_open (out, 0, &dir_error);
      if (dir == NULL)
        {
          g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_IO, "cannot read %s: %s", out,
                       dir_error->message);
          return FALSE;
        }
      if (g_dir_read_name (dir) != NULL)
        {
          g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_USAGE,
                       "%s exists and is not empty; give a new or empty directory", out);
          return FALSE;
        }
      return TRUE;
    }
  if (g_mkdir_with_parents (out, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_IO, "cannot create %s: %s", out,
                   g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

static gboolean
make_subdir (const char *out, const char *name, GError **error)
{
  g_autofree char *path = g_build_filename (out, name, NULL);
  if (g_mkdir (path, 0755) != 0 && errno != EEXIST)
    {
      int saved = errno;
      g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_IO, "cannot create %s: %s", path,
                   g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

/* --start: a naive wall-clock time like the traces' own timestamps. */
static gboolean
parse_start (const char *text, gint64 *us, GError **error)
{
  g_autoptr (GTimeZone) utc = g_time_zone_new_utc ();
  g_autoptr (GDateTime) dt = g_date_time_new_from_iso8601 (text, utc);
  if (dt == NULL)
    {
      g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_USAGE,
                   "--start: cannot read '%s' as YYYY-MM-DDTHH:MM:SS[.ffffff]", text);
      return FALSE;
    }
  *us = g_date_time_to_unix (dt) * USEC_PER_SEC + g_date_time_get_microsecond (dt);
  return TRUE;
}

/* ------------------------------------------------------------------------------------------ */
/* The trainer's console log                                                                    */

static void
append_metric (GString *s, const char *name, double v)
{
  char num[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf (s, " - %s:%s", name, g_ascii_formatd (num, sizeof num, "%.6g", v));
}

/* The console of the trainer that drove this rollout, as verl prints it: Ray-prefixed noise, a
 * tqdm bar redrawn with carriage returns, and one metric line per step. Its timing_s/gen is the
 * step's rollout (first preprocessing to last total_step end); the training after it takes the
 * gap before the next step (its own draw for the last one), split among the usual phases. */
static gboolean
write_console_log (const Synth *sy, const char *path, GError **error)
{
  static const struct {
    const char *name;
    double share;
  } phases[] = { { "timing_s/reward", 0.03 }, { "timing_s/old_log_prob", 0.12 },
                 { "timing_s/ref", 0.10 }, { "timing_s/adv", 0.01 }, { "timing_s/update_actor", 0.74 } };
  const int pid = 4242;
  g_autoptr (GString) s = g_string_new (NULL);
  g_string_append_printf (s, "(TaskRunner pid=%d) [validate_config] All configuration checks passed successfully!\n", pid);
  for (int si = 0; si < sy->n_steps; si++)
    {
      const StepPlan *sp = &sy->steps[si];
      Rng r;
      rng_seed_stream (&r, sy->seed, STREAM_TRAINER, sp->number, 0, 0);
      gint64 first = G_MAXINT64, last = G_MININT64;
      double tokens = 0;
      for (int w = 0; w < sy->n_workers; w++)
        {
          const RankStep *rs = synth_rank (sy, si, w);
          first = MIN (first, rs->start[SEC_TOTAL]);
          last = MAX (last, rs->end[SEC_TOTAL]);
          tokens += (double) rs->response_tokens;
        }
      double gen = (double) (last - first) / 1e6;
      double training = si + 1 < sy->n_steps ? (double) sy->steps[si + 1].training_gap_us / 1e6
                                             : rng_range (&r, 30.0, 120.0);
      double step_s = gen;
      for (gsize k = 0; k < G_N_ELEMENTS (phases); k++)
        step_s += training * phases[k].share;
      double progress = 1.0 - exp (-3.0 * (si + 1) / sy->n_steps);

      for (int w = 0; w < MIN (sy->n_workers, 4); w++)
        g_string_append_printf (s, "\x1b[36m(WorkerDict pid=%d)\x1b[0m INFO generating batch of %d prompts "
                                   "on rank %d\n", 5000 + w, sy->n_requests, w);
      g_string_append_printf (s, "Training Progress: %3d%%|          | %d/%d [00:00<?, ?it/s]\r",
                              100 * si / sy->n_steps, si, sy->n_steps);
      g_string_append_printf (s, "(TaskRunner pid=%d) step:%d", pid, sp->number);
      append_metric (s, "timing_s/gen", gen);
      for (gsize k = 0; k < G_N_ELEMENTS (phases); k++)
        append_metric (s, phases[k].name, training * phases[k].share);
      append_metric (s, "timing_s/step", step_s);
      append_metric (s, "timing_per_token_ms/gen", 1000.0 * gen / MAX (tokens, 1.0));
      append_metric (s, "timing_per_token_ms/update_actor", 1000.0 * training * 0.74 / MAX (tokens, 1.0));
      append_metric (s, "perf/throughput", tokens / step_s / sy->n_workers);
      append_metric (s, "perf/total_num_tokens", tokens);
      append_metric (s, "response_length/mean", tokens / ((double) sy->n_workers * sy->n_requests));
      append_metric (s, "critic/score/mean", 0.2 + 0.6 * progress + rng_range (&r, -0.05, 0.05));
      append_metric (s, "actor/entropy", 1.2 - 0.7 * progress + rng_range (&r, -0.03, 0.03));
      append_metric (s, "actor/pg_loss", rng_range (&r, -0.02, 0.02));
      g_string_append_c (s, '\n');
    }
  g_string_append_printf (s, "Training Progress: 100%%|##########| %d/%d [done]\n", sy->n_steps, sy->n_steps);
  return g_file_set_contents (path, s->str, (gssize) s->len, error);
}

static gboolean
options_check (const SynthOptions *o, Schema *schema, GError **error)
{
  const struct {
    const char *name;
    gint value, lo, hi;
  } ranges[] = {
    { "--steps", o->steps, 1, MAX_STEPS },
    { "--workers", o->workers, 1, MAX_WORKERS },
    { "--requests", o->requests, 1, MAX_REQUESTS },
    { "--first-step", o->first_step, 0, G_MAXINT - MAX_STEPS },
    { "--threads", o->threads, 0, 1024 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (ranges); i++)
    if (ranges[i].value < ranges[i].lo || ranges[i].value > ranges[i].hi)
      {
        g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_USAGE, "%s must be between %d and %d",
                     ranges[i].name, ranges[i].lo, ranges[i].hi);
        return FALSE;
      }
  if (g_strcmp0 (o->schema_name, "v1") == 0)
    *schema = SCHEMA_V1;
  else if (g_strcmp0 (o->schema_name, "v2") == 0)
    *schema = SCHEMA_V2;
  else
    {
      g_set_error (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_USAGE, "--schema must be v1 or v2, not '%s'",
                   o->schema_name);
      return FALSE;
    }
  if (o->rest == NULL || g_strv_length (o->rest) != 1)
    {
      g_set_error_literal (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_USAGE,
                           "give exactly one output directory OUT");
      return FALSE;
    }
  return TRUE;
}

/* Runs `func` over every RankStep on a pool of threads and waits for all of them. */
static gboolean
for_each_rank_parallel (Synth *sy, GFunc func, int threads, GError **error)
{
  int n = sy->n_steps * sy->n_workers;
  GThreadPool *pool = g_thread_pool_new (func, sy, MAX (1, MIN (threads, n)), FALSE, error);
  if (pool == NULL)
    return FALSE;
  for (int i = 0; i < n; i++)
    if (!g_thread_pool_push (pool, &sy->ranks[i], error))
      {
        g_thread_pool_free (pool, TRUE, TRUE);
        return FALSE;
      }
  g_thread_pool_free (pool, FALSE, TRUE);
  return TRUE;
}

static int
exit_status_for (const GError *error)
{
  return g_error_matches (error, RT_SYNTH_ERROR, RT_SYNTH_ERROR_USAGE) ? 2 : 1;
}

static int
fail (GError *error)
{
  int status = exit_status_for (error);
  g_printerr ("rt-synth: %s\n", error->message);
  if (status == 2)
    g_printerr ("Try 'rt-synth --help'.\n");
  g_error_free (error);
  return status;
}

static const char synth_description[] =
  "OUT must not exist or be an empty directory. R is per worker: every step holds W x R\n"
  "requests, and a worker's R requests run concurrently, so their lines interleave.\n"
  "\n"
  "Each request has 1-8 turns (geometric), heavy-tailed engine times growing with the turn,\n"
  "tool calls between turns and a few LENGTH finishes at 4096 tokens; one rank per step is a\n"
  "straggler and the others wait for it at the barrier; steps are 30-120 s of training apart.\n"
  "The same arguments give the same bytes, whatever the number of threads.\n"
  "\n"
  "--faults damages the trace the ways FORMAT.md lists, a few lines in all: a truncated last\n"
  "line in the newest step, an empty line, a Python traceback, the non-object lines [1, 2] and\n"
  "42, NaN and Infinity literals in step_response_length_stats (v2), a worker file missing from\n"
  "one step, an empty worker file with its content in a .bak and a notes.txt beside it, and a\n"
  "plots/ folder holding a jsonl copy. The summary on stderr says where each one went.\n"
  "\n"
  "Exit status: 0 success, 1 I/O error, 2 usage error (including an OUT that is not empty).\n"
  "\n"
  "Example:\n"
  "  rt-synth /tmp/exp --steps 10 --workers 8 --requests 300 --seed 7 --faults\n";

int
main (int argc, char **argv)
{
  SynthOptions o = { .steps = 3, .workers = 4, .requests = 12, .first_step = 1, .seed = 1 };
  g_autofree char *start_default = g_strdup ("2025-06-10T09:00:00");
  GOptionEntry entries[] = {
    { "steps", 0, 0, G_OPTION_ARG_INT, &o.steps, "Training steps, folders step_K (default 3)", "S" },
    { "workers", 0, 0, G_OPTION_ARG_INT, &o.workers,
      "Rollout ranks, files worker_M.jsonl in every step (default 4)", "W" },
    { "requests", 0, 0, G_OPTION_ARG_INT, &o.requests,
      "Requests per step PER WORKER (default 12)", "R" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &o.seed, "Seed all randomness derives from (default 1)", "N" },
    { "schema", 0, 0, G_OPTION_ARG_STRING, &o.schema_name,
      "Logger generation: v2 newer, canonical names (default); v1 older names", "v1|v2" },
    { "faults", 0, 0, G_OPTION_ARG_NONE, &o.faults, "Inject the damage FORMAT.md describes (see below)", NULL },
    { "first-step", 0, 0, G_OPTION_ARG_INT, &o.first_step, "Number of the first step (default 1)", "K" },
    { "start", 0, 0, G_OPTION_ARG_STRING, &o.start,
      "Wall-clock start of the first step (default 2025-06-10T09:00:00)", "TIME" },
    { "threads", 0, 0, G_OPTION_ARG_INT, &o.threads,
      "Files generated in parallel (default: one per processor)", "N" },
    { "console-log", 0, 0, G_OPTION_ARG_FILENAME, &o.console_log,
      "Also write the trainer's console log of this run (for rt-train, --train)", "FILE" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &o.quiet, "No summary line on stderr", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.rest, NULL, "OUT" },
    G_OPTION_ENTRY_NULL
  };
  /* Only the character set, so that messages with non-ASCII quotes print; numbers are written
   * with our own code and g_ascii_formatd, and LC_NUMERIC stays "C" anyway. */
  setlocale (LC_CTYPE, "");
  g_autoptr (GOptionContext) context = g_option_context_new (NULL); /* OUT comes from the G_OPTION_REMAINING entry */
  g_option_context_set_summary (context,
                                "Write a synthetic rollout-trace experiment OUT/step_K/worker_M.jsonl: "
                                "realistic, deterministic per seed, optionally damaged.");
  g_option_context_set_description (context, synth_description);
  g_option_context_add_main_entries (context, entries, NULL);

  GError *error = NULL;
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      error->domain = RT_SYNTH_ERROR;
      error->code = RT_SYNTH_ERROR_USAGE;
      return fail (error);
    }
  g_autofree char *schema_name = o.schema_name != NULL ? o.schema_name : g_strdup ("v2");
  g_autofree char *start_text = o.start != NULL ? o.start : g_steal_pointer (&start_default);
  g_auto (GStrv) rest = o.rest;
  g_autofree char *console_log = o.console_log;
  o.schema_name = schema_name;
  o.start = start_text;

  Schema schema;
  gint64 start_us;
  if (!options_check (&o, &schema, &error) || !parse_start (o.start, &start_us, &error))
    return fail (error);
  const char *out = rest[0];
  if (!output_dir_prepare (out, &error))
    return fail (error);

  gint64 t0 = g_get_monotonic_time ();
  Synth sy = {
    .out_dir = out,
    .schema = schema,
    .seed = (guint64) o.seed,
    .n_steps = o.steps,
    .n_workers = o.workers,
    .n_requests = o.requests,
    .fault_notes = g_ptr_array_new_with_free_func (g_free),
  };
  g_mutex_init (&sy.lock);
  int threads = o.threads > 0 ? o.threads : (int) g_get_num_processors ();

  steps_plan (&sy, o.first_step);
  sy.ranks = g_new0 (RankStep, (gsize) sy.n_steps * sy.n_workers);
  for (int si = 0; si < sy.n_steps; si++)
    for (int w = 0; w < sy.n_workers; w++)
      {
        RankStep *rs = synth_rank (&sy, si, w);
        rs->step_index = si;
        rs->step = sy.steps[si].number;
        rs->worker = w;
      }

  g_autofree char *notes_path = NULL, *notes_text = NULL;
  if (o.faults)
    damage_plan (&sy, &notes_path, &notes_text);

  gboolean ok = for_each_rank_parallel (&sy, rank_step_plan, threads, &error);
  if (ok)
    steps_anchor (&sy, start_us);
  for (int si = 0; ok && si < sy.n_steps; si++)
    {
      g_autofree char *name = g_strdup_printf ("step_%d", sy.steps[si].number);
      ok = make_subdir (out, name, &error);
    }
  if (ok && o.faults)
    ok = make_subdir (out, "plots", &error);
  if (ok && notes_path != NULL)
    {
      g_autofree char *path = g_build_filename (out, notes_path, NULL);
      ok = g_file_set_contents (path, notes_text, -1, &error);
    }
  if (ok)
    ok = for_each_rank_parallel (&sy, rank_step_write, threads, &error);
  if (ok && o.console_log != NULL)
    ok = write_console_log (&sy, o.console_log, &error);
  if (ok && sy.error != NULL)
    {
      error = g_steal_pointer (&sy.error);
      ok = FALSE;
    }

  int status = 0;
  if (!ok)
    {
      /* GLib's own errors (a file, a thread) are all I/O trouble here. */
      if (error->domain != RT_SYNTH_ERROR)
        {
          error->domain = RT_SYNTH_ERROR;
          error->code = RT_SYNTH_ERROR_IO;
        }
      status = fail (error);
    }
  else if (!o.quiet)
    {
      double seconds = (double) (g_get_monotonic_time () - t0) / 1e6;
      g_autoptr (GString) faults = g_string_new (NULL);
      if (o.faults)
        {
          append_lit (faults, "; faults: ");
          for (guint i = 0; i < sy.fault_notes->len; i++)
            {
              if (i > 0)
                append_lit (faults, ", ");
              g_string_append (faults, g_ptr_array_index (sy.fault_notes, i));
            }
        }
      g_printerr ("rt-synth: wrote %s: %d steps x %d workers x %d requests, schema %s, "
                  "%" G_GUINT64_FORMAT " files, %" G_GUINT64_FORMAT " lines, %.1f MB in %.2f s "
                  "(%.0f lines/s)%s\n",
                  out, sy.n_steps, sy.n_workers, sy.n_requests, o.schema_name, sy.files, sy.lines,
                  (double) sy.bytes / 1e6, seconds, seconds > 0 ? (double) sy.lines / seconds : 0.0,
                  faults->str);
    }

  damage_free (&sy);
  g_ptr_array_unref (sy.fault_notes);
  g_free (sy.ranks);
  g_free (sy.steps);
  g_mutex_clear (&sy.lock);
  return status;
}
