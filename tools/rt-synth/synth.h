/* SPDX-License-Identifier: Apache-2.0 */
/* rt-synth's private header: the plan of an experiment (steps, ranks, requests, turns), the damage
 * to place in it, and the functions each file of tools/rt-synth/ offers the others. */
#pragma once

#include <glib.h>

#define USEC_PER_SEC G_GINT64_CONSTANT (1000000)
#define USEC_PER_DAY (86400 * USEC_PER_SEC)

/* Limits that keep every count in an int and a file's text within memory. */
#define MAX_STEPS 100000
#define MAX_WORKERS 4096
#define MAX_REQUESTS 200000

#define MAX_TURNS 8           /* assistant turns per request, as in the traces we mimic */
#define RESPONSE_CAP 4096     /* max response tokens; reaching it ends a request with LENGTH */
#define REQUEST_STAGGER_US 400 /* asyncio starts the requests of a rank one after another */

#define RT_SYNTH_ERROR (rt_synth_error_quark ())
GQuark rt_synth_error_quark (void);
gboolean synth_io_error (GError **error, int saved_errno, const char *what, const char *path);

typedef enum {
  RT_SYNTH_ERROR_USAGE, /* exit status 2 */
  RT_SYNTH_ERROR_IO,    /* exit status 1 */
} RtSynthError;

/* ------------------------------------------------------------------------------------------ */
/* Random numbers (rng.c)                                                                      */

typedef struct {
  guint64 s[4];
} Rng;

typedef enum {
  STREAM_STEP = 1, /* per step: straggler, training gap before it */
  STREAM_RANK,     /* per (step, worker): step-level section durations */
  STREAM_REQUEST,  /* per (step, worker, request): the request's whole life */
  STREAM_FAULTS,   /* where the damage goes */
  STREAM_TRAINER,  /* per step: the trainer's console log (--console-log) */
  /* Validation draws from streams of its own, so that adding it changes no training line. */
  STREAM_VAL_STEP,    /* per validation: its score, the pause before the next step */
  STREAM_VAL_RANK,    /* per (validation, worker) */
  STREAM_VAL_REQUEST, /* per (validation, worker, request) */
} StreamKind;

void rng_seed_stream (Rng *r, guint64 seed, StreamKind kind, gint64 a, gint64 b, gint64 c);
guint64 rng_next (Rng *r);
double rng_uniform (Rng *r);
double rng_range (Rng *r, double lo, double hi);
gint64 rng_int (Rng *r, gint64 lo, gint64 hi);
gboolean rng_chance (Rng *r, double p);
double rng_lognormal (Rng *r, double median, double sigma, double lo, double hi);
gint64 rng_duration_us (Rng *r, double median_s, double sigma, double lo_s, double hi_s);

/* ------------------------------------------------------------------------------------------ */
/* Python-compatible text (text.c)                                                             */

#define append_lit(s, lit) g_string_append_len ((s), "" lit, (gssize) sizeof (lit) - 1)
/* The separators of Python's json.dumps: ", " between items, ": " after keys. */
#define put_key(s, key) append_lit ((s), ", \"" key "\": ")

void append_int (GString *s, gint64 v);
void append_bool (GString *s, gboolean v);
void append_float (GString *s, double v);
void append_seconds (GString *s, gint64 us);
void append_timestamp (GString *s, gint64 us);
void format_uuid4 (char out[37], guint64 hi, guint64 lo);

/* ------------------------------------------------------------------------------------------ */
/* The plan (plan.c)                                                                           */

typedef enum {
  TURN_TOOL_CALLS, /* the model called a tool: the request goes on after the tool runs */
  TURN_STOP,       /* the model answered */
  TURN_LENGTH,     /* the response hit RESPONSE_CAP tokens */
} TurnFinish;

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

/* How a rollout's ranks and requests are drawn: training samples its answers, validation answers
 * greedily, with shorter answers and fewer tool calls, on a smaller batch. */
typedef struct {
  StreamKind rank_stream, request_stream;
  double token_scale;    /* on the tokens a turn generates */
  double p_another_turn; /* chance that a turn calls a tool and the request goes on */
  double prep_scale;     /* on the preprocessing time */
} RolloutStyle;

extern const RolloutStyle style_training, style_validation;

/* Per training step: its number (the trainer's step, which keys its random streams), the folder
 * step_N its rollout goes to, which rank straggles, how long training ran before its rollout and
 * after it, and the validation that follows it (an index into Synth.vals, or -1). */
typedef struct {
  int number, folder;
  int straggler;
  double straggler_slow;
  gint64 training_gap_us, training_after_us;
  gint64 start; /* when its ranks start (each plus its jitter), from steps_anchor */
  int validation;
} StepPlan;

/* A validation rollout: the training step it follows (-1: before training), the trainer's step it
 * is logged at (which keys its streams), its folder, whether it has that folder to itself or is
 * appended to the training step's files, and where it fell in time. */
typedef struct {
  int after, number, folder;
  gboolean own_folder;
  double squeeze;   /* below 1 when it was run faster to fit in the training gap */
  gint64 start, end; /* first preprocessing start, last total end */
  gint64 testing_us; /* from its start to the next training step's start (timing_s/testing) */
  double score;      /* its val-core reward, for the console log */
} ValPlan;

typedef enum {
  VALIDATION_NONE,
  VALIDATION_FOLDERS, /* a folder per rollout call, validation included */
  VALIDATION_APPEND,  /* the 2026 logger: appended to the training step's files */
} ValidationLayout;

/* One (step, worker): first the durations that do not depend on when the step starts (planned
 * in parallel), then absolute section times, which need every rank of the step (the barrier)
 * and the previous step (the training gap), set in order afterwards. */
typedef struct {
  int step_index, step, worker; /* step: the folder, and the lines' "step" */
  int key;                      /* the trainer's step, which keys its random streams */
  const RolloutStyle *style;
  int n_requests;
  double straggle;   /* on its engine times: the step's straggler is slower */
  double squeeze;    /* on its engine, tool and preprocessing times: below 1 for a validation
                        made faster to fit in the training gap */
  double tool_scale; /* --tool-scale */
  double slow;
  /* relative, from rank_step_plan */
  gint64 start_jitter, prep_duration, generation_span, barrier_overhead;
  gint64 response_tokens; /* of all its requests, for the trainer's log */
  int turns_min, turns_max, turns_sum; /* of its requests, for the validation metrics */
  gint64 gap[N_SECTIONS], duration[N_SECTIONS];
  gint64 stats_gap, total_gap;
  /* absolute, from steps_anchor */
  gint64 start[N_SECTIONS], end[N_SECTIONS];
  gint64 stats_time;
} RankStep;

/* ------------------------------------------------------------------------------------------ */
/* Damage (damage.c)                                                                           */

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

/* ------------------------------------------------------------------------------------------ */
/* Lines (lines.c, write-v1.c, write-v2.c)                                                     */

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
  const char *prefix; /* after the timestamp: , "step": S, "worker": W (the 2026 logger) or "" */
  const char *suffix; /* , "workid": W, "step": S}\n, or }\n */
  gsize prefix_len, suffix_len;
  gsize line_offset;
  gint64 line_end;
  gboolean in_extra; /* the line's extra object is open */
} LineSink;

/* A value a turn's line carries in its extra (lines.c has each one's key and source). */
typedef enum {
  TV_END,        /* ends a list of values */
  TV_REQUEST_ID, /* the request's id */
  TV_TURN,       /* the turn's index from 0 */
  TV_TURN_FROM_1, /* ... from 1, as some lines of the older logger count */
  TV_NEXT_TURN,   /* the next turn's index from 0: a tool call asked for by turn n - 1 is n */
  TV_SEQUENCE_LENGTH,
  TV_PROMPT_LENGTH,
  TV_GENERATED_TOKENS,
  TV_TEXT_LENGTH,
  TV_RAW_TOOL_CALLS,
  TV_PARSED_TOOL_CALLS,
  TV_HAS_TOOL_CALLS,
  TV_FINISH,
  TV_TOTAL_DURATION,
  TV_PRE_DURATION,
  TV_ENGINE_DURATION,
  TV_POST_DURATION,
  TV_PARSING_DURATION,
  TV_ENGINE_PCT,
  TV_POST_PCT,
} TurnValue;

#define MAX_TURN_VALUES 10

typedef enum {
  TURN_LINE_ALWAYS,
  TURN_LINE_IF_TOOL_CALLS, /* the model called a tool in this turn */
  TURN_LINE_IF_TOOLS_RUN,  /* ... and the tools ran, because another turn follows */
} TurnLineWhen;

#define TURN_FIELD(field) G_STRUCT_OFFSET (TurnPlan, field)
#define TURN_SPAN(from, to) TURN_FIELD (from), TURN_FIELD (to)
#define TURN_INSTANT (-1) /* a TurnLine's end: the line marks a moment and has no duration */

/* One line a logger writes for every turn (or every turn that `when` selects): its event, the
 * TurnPlan times it spans (G_STRUCT_OFFSET), and the values of its extra in order. */
typedef struct {
  const char *event;
  TurnLineWhen when;
  glong start, end;
  TurnValue values[MAX_TURN_VALUES]; /* up to the first TV_END, or all of them */
} TurnLine;

/* What differs between the two logger generations; the rest of the writing is shared. */
typedef struct {
  const char *name; /* as --schema gives it */
  const char *section_names[N_SECTIONS];
  void (*emit_request) (LineSink *k, const RequestPlan *p, gint64 base);
  /* The step_response_length_stats line, NULL for a generation without it. */
  void (*emit_length_stats) (LineSink *k, gint64 when, const int *lengths, const int *actual,
                             int n, StatsDamage damage);
  int lines_per_request, bytes_per_request; /* rough, to size the buffers */
} Generation;

extern const Generation generation_v1, generation_v2;

void append_key (GString *s, const char *key);
double percent (gint64 part, gint64 whole);
void append_turn_values (GString *s, const RequestPlan *p, int turn, const TurnValue *values);

void line_open (LineSink *k, gint64 end_us, const char *event);
void line_open_timed (LineSink *k, gint64 start_us, gint64 end_us, const char *event);
void line_key (LineSink *k, const char *key);
void line_request_id (LineSink *k, const RequestPlan *p);
void line_close (LineSink *k);
void emit_request_section (LineSink *k, const RequestPlan *p, gint64 base, gint64 start, gint64 end,
                           const char *event);
void emit_turn_lines (LineSink *k, const RequestPlan *p, gint64 base, int turn,
                      const TurnLine *lines, gsize n_lines);
void request_complete_open (LineSink *k, const RequestPlan *p, gint64 base);
void emit_section (LineSink *k, const RankStep *rs, const Generation *gen, Section sec);

/* ------------------------------------------------------------------------------------------ */
/* The whole run                                                                               */

typedef struct {
  const char *out_dir;
  const Generation *gen;
  guint64 seed;
  int n_steps, n_workers, n_requests;
  double tool_scale;  /* tool execution times are multiplied by it (--tool-scale) */
  StepPlan *steps;    /* [n_steps] */
  RankStep *ranks;    /* [step_index * n_workers + worker] */
  gboolean faults;    /* --faults: the run was killed in its last step */
  FileDamage *damage; /* same indexing as ranks; NULL without --faults */
  GPtrArray *fault_notes;

  /* Validation (--validation): its layout, when it runs, and its rollouts in time order. */
  ValidationLayout validation;
  gboolean val_before_train;
  int test_freq, val_requests;
  int n_vals;
  ValPlan *vals;       /* [n_vals] */
  RankStep *val_ranks; /* [val_index * n_workers + worker] */

  /* Results of the parallel writing: the first error wins, the rest of the work is skipped. */
  GMutex lock;
  GError *error;
  gint failed;
  guint64 lines, bytes, files;
} Synth;

static inline RankStep *
synth_rank (const Synth *sy, int step_index, int worker)
{
  return &sy->ranks[step_index * sy->n_workers + worker];
}

void synth_fail (Synth *sy, GError *error);
gboolean synth_parallel (Synth *sy, RankStep *items, int n, GFunc func, int threads, GError **error);

static inline RankStep *
synth_val_rank (const Synth *sy, int val_index, int worker)
{
  return &sy->val_ranks[val_index * sy->n_workers + worker];
}

void request_plan (RequestPlan *p, const RolloutStyle *style, guint64 seed, int key, int worker,
                   int index, double slow, double tool_scale);
void steps_plan (Synth *sy, int first_step);
void rank_step_plan (gpointer data, gpointer user_data);
void steps_anchor (Synth *sy, gint64 start_us);
gint64 rollout_anchor (RankStep *ranks, int n_workers, gint64 start);

/* Validation (validation.c) */
void validations_plan (Synth *sy, int first_step);
gboolean validations_place (Synth *sy, int threads, GError **error);

/* The training after a step's rollout, by phase, as the trainer times it (console log, and the
 * 2026 logger's worker_-1.jsonl): each phase's share of the time the validation leaves. */
#define N_TRAIN_PHASES 5
typedef struct {
  const char *timing_name;  /* in the console log */
  const char *section_name; /* in worker_-1.jsonl */
  double share;
} TrainPhase;
extern const TrainPhase train_phases[N_TRAIN_PHASES];
void training_phases_us (const Synth *sy, int step_index, gint64 durations[N_TRAIN_PHASES]);
gint64 step_rollout_end (const Synth *sy, int step_index);

void damage_plan (Synth *sy, char **notes_path, char **notes_text);
void damage_free (Synth *sy);

/* ------------------------------------------------------------------------------------------ */
/* Files (files.c) and the console log (console.c)                                             */

void rank_step_write (gpointer data, gpointer user_data);
void val_rank_write (gpointer data, gpointer user_data);
gboolean trainer_files_write (Synth *sy, GError **error);
gboolean write_console_log (const Synth *sy, const char *path, GError **error);
