/* SPDX-License-Identifier: Apache-2.0 */
/* rt-command.h: the command-line layer every executable shares.
 * A command is a table (name, options, run function); rt_command_main does the rest once. */
#pragma once

#include <glib.h>

#include "rolltrace/rt-analysis.h"
#include "rolltrace/rt-jsonw.h"
#include "rolltrace/rt-rollouts.h"
#include "rolltrace/rt-steps.h"
#include "rolltrace/rt-table.h"
#include "rolltrace/rt-text.h"
#include "rolltrace/rt-trace.h"

G_BEGIN_DECLS

typedef struct _RtSession RtSession;

/* Returns the exit status (0, or 1 when the trace lacks the data); on a failure
 * sets `error` and the caller prints it and picks the status. */
typedef int (*RtRunFunc) (RtSession *s, GError **error);

typedef enum {
  RT_COMMAND_LOADS_TRACE = 1 << 0,   /* first argument is EXP, loaded before run */
  RT_COMMAND_WRITES_PLOTS = 1 << 1,  /* takes --out, --format, --no-render */
  RT_COMMAND_LOADS_TRACES = 1 << 2,  /* every argument is an EXP (min_args to max_args of
                                      * them), each loaded before run: EXP... */
  RT_COMMAND_LISTS_PROBLEMS = 1 << 3,/* the command lists the bad lines itself, so no note
                                      * about them is printed on stderr */
  RT_COMMAND_NO_ARGUMENTS = 1 << 4, /* takes options only (rt-cache) */
  RT_COMMAND_ALL_ROLLOUTS = 1 << 5, /* an inventory: reads every rollout unless --rollouts
                                      * says otherwise (analyses read training ones) */
  RT_COMMAND_SHOWS_IDS = 1 << 6,     /* shows request ids, shortened: takes --full-ids */
  RT_COMMAND_ANALYZER = RT_COMMAND_LOADS_TRACE | RT_COMMAND_WRITES_PLOTS,
} RtCommandFlags;

typedef struct {
  const char *name;          /* "rt-cdf" */
  const char *parameters;    /* "EXP", shown in --help */
  const char *summary;       /* what it computes, one paragraph */
  const char *description;   /* the JSON it prints and examples, shown under the options */
  const GOptionEntry *entries;  /* the command's own options, or NULL */
  RtRunFunc run;
  RtCommandFlags flags;
  int min_args, max_args;    /* positional arguments, EXP included; both 0: exactly one */
  const RtTableSpec *const *tables;  /* the tables it writes (TSV files, JSON arrays), NULL-
                                      * terminated: --help lists their columns */
  const char *tables_heading;        /* --help's line above them when they are written some
                                      * other way (rt-export: CSV); NULL: TSV files and JSON */
  char ***experiment_option; /* the storage of one of `entries` (G_OPTION_ARG_FILENAME_ARRAY):
                              * each value is one more experiment, loaded after those of the
                              * arguments (rt-report --compare EXP2); NULL: none */
  const char *out_subdir;    /* the default --out is rt-out/EXPNAME/out_subdir; NULL: rt-out/EXPNAME */
  const RtAnalysisSpec *const *analyses;  /* the analyses run may do, NULL-terminated: a load
                              * keeps what those it does read (RtAnalysisSpec.reads) and no
                              * more; NULL: every table */
  gboolean (*runs) (const RtSession *s, const RtAnalysisSpec *analysis);
                             /* asked once the options are parsed: whether run does `analysis`
                              * with them; NULL: it does every one. When it does none, no
                              * experiment is read (rt-export --schema): EXP may be left out,
                              * and one given only names the default --out */
  const char *step_help;     /* the command takes --step N|slowest (RtSession.step), which
                              * this explains; NULL: it takes none */
  gboolean (*before_load) (RtSession *s, GError **error);
                             /* run once the options are parsed, before the experiments are
                              * loaded (rt-report --watch waits there for EXP to appear);
                              * NULL: nothing */
} RtCommand;

/* One experiment of the command line, loaded (RT_COMMAND_LOADS_TRACE or _TRACES). */
typedef struct {
  RtTrace *trace;
  char *label;               /* its folder's name; a name already given to an earlier
                              * experiment gets "#2", "#3"...: "exp", "exp#2" */
  GArray *steps;             /* guint: indices into trace->steps that --steps and --rollouts
                              * select, ascending, never empty */
  RtRolloutMap *rollouts;    /* its rollouts, training or validation (--train applies to the
                              * first experiment, --validation-steps to each) */
  RtStepSet *step_set;       /* the folders --steps selects that hold a rollout --rollouts reads */
} RtExperiment;

struct _RtSession {
  const RtCommand *command;
  /* common options */
  char *out_dir;
  gboolean out_given;        /* --out was given (out_dir is otherwise the default) */
  char *steps_spec;
  char *step;                /* --step (RtCommand.step_help): N, "slowest", or NULL */
  char *format;              /* png, svg or pdf */
  char *cache_dir;
  gboolean json, quiet, verbose, no_render, no_cache;
  gboolean full_ids;         /* --full-ids: request ids whole in text, not their first 8 characters */
  RtStepSet *steps;          /* what the analyses read: once loaded, the first experiment's
                              * step_set (--steps and --rollouts); before, --steps */
  RtStepSet *user_steps;     /* --steps alone */
  char *train_path;          /* --train LOG: the trainer's console log */
  RtTrainLog *train;         /* read once loaded (again on a reload) */
  char *validation_steps_spec;   /* --validation-steps SPEC */
  RtStepSet *validation_steps;
  char *rollouts_spec;       /* --rollouts training|validation|all */
  RtRolloutSelect rollouts;
  /* positional arguments, program name excluded */
  char **args;
  int n_args;
  RtTrace *trace;            /* with RT_COMMAND_LOADS_TRACE */
  char *subject;             /* what plot titles and the default --out are named after:
                              * the experiment, or the file the command reads */
  GPtrArray *scripts;        /* gnuplot scripts written, to render at the end (added to
                              * by one thread at a time: plots may be written side by side) */
  gboolean out_ready;
  GString *json_doc;         /* the --json document, printed once the command is done */
  RtJsonWriter json_writer;
  GPtrArray *experiments;    /* RtExperiment*, in the order given, `trace` being the first's;
                              * NULL for a command that loads no experiment */
};

int rt_command_main (const RtCommand *cmd, int argc, char **argv);

/* Creates the output folder, unless it was already: every writer of the session calls it
 * first, and a command that writes from several threads at once, before they start. */
gboolean rt_session_ensure_out_dir (RtSession *s, GError **error);

/* Human summary on stdout, silent with --quiet or --json. */
void rt_session_print (RtSession *s, const char *fmt, ...) G_GNUC_PRINTF (2, 3);
/* A number of a summary's table as `format` (one double) writes it, or "-" when it is NAN (null
 * in the JSON): written into buf, and buf returned. */
const char *rt_summary_cell (char buf[32], const char *format, double v);

/* The writer of the command's --json document; rt_command_main prints it (with --json)
 * when the command returns, whatever its status. */
RtJsonWriter *rt_session_json (RtSession *s);

/* "step": `step` in the object being written, and "train_step" (the trainer's step, or null)
 * when the trainer's steps are known (--train), as tables with a step column have it. */
void rt_session_json_step (RtSession *s, gint32 step);

/* The whole --json document as {"key": [the rows of `table`]}. */
void rt_session_json_rows (RtSession *s, const char *key, const RtTable *table);

/* For a trace without what the analysis needs: says why on stderr and returns the
 * exit status 1. */
int rt_session_no_data (RtSession *s, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

/* A step is selected by --steps (and holds a rollout --rollouts reads). */
gboolean rt_session_step_selected (RtSession *s, gint32 step);

/* Indices into trace->steps of the selected steps, ascending. */
GArray *rt_session_selected_steps (RtSession *s);

/* The i-th experiment of the command line (i < s->experiments->len). */
static inline const RtExperiment *
rt_session_experiment (const RtSession *s, guint i)
{
  return (const RtExperiment *) g_ptr_array_index (s->experiments, i);
}

/* The one step resolver of every command with --step: the index into trace->steps of `--step N`
 * (RtSession.step), or, when it is NULL or "slowest", of the step with the longest rollout
 * among those --steps selects (rt_view_slowest_step). A step the trace lacks, or no step with a
 * rollout, is "nothing to show" (exit 1, as a --steps that selects no step); a step the trace has
 * but --steps leaves out is a usage error (exit 2): the two options contradict each other. */
gboolean rt_session_resolve_step (RtSession *s, guint *step_index, GError **error);
/* The same in the trace `t`, with the steps `steps` selects (NULL: all), of --step `value`. */
gboolean rt_trace_resolve_step (const RtTrace *t, const RtStepSet *steps, const char *value,
                                guint *step_index, GError **error);

/* Labels for experiments named `names` (their folders' names), in order: a name
 * already used is followed by "#2", "#3"..., the first that is still free. */
GStrv rt_experiment_labels (const char *const *names, guint n);

/* Fails (a usage error) when `dir`, given as `option`, lies inside the experiment
 * folder `exp_path`, links resolved on both sides. NULL `dir`: nothing to check. */
gboolean rt_check_outside_experiment (const char *exp_path, const char *option, const char *dir, GError **error);


/* Loads every experiment again (through the cache: only what was appended since is read),
 * as before run: a command that keeps running (rt-report --watch) sees the lines written
 * since. s->trace and s->experiments then hold the new tables; the old ones are freed. */
gboolean rt_session_reload (RtSession *s, GError **error);

/* ---- output files: written whole to a temporary name, then renamed ---- */

/* Writes `content` to OUT/name, creating OUT on first use. */
gboolean rt_session_write (RtSession *s, const char *name, const GString *content, GError **error);

/* Writes the n_parts strings one after another as the one file OUT/name (text made in
 * pieces, on more than one thread, is not joined first). */
gboolean rt_session_write_parts (RtSession *s, const char *name, const GString *const *parts, guint n_parts,
                                 GError **error);

/* Writes `table` as OUT/<stem>.tsv. */
gboolean rt_session_write_table (RtSession *s, const RtTable *table, const char *stem, GError **error);
/* The same for a table's TSV made beforehand (rt_table_tsv), perhaps on another thread. */
gboolean rt_session_write_tsv (RtSession *s, const GString *tsv, const char *stem, GError **error);
/* The same for a TSV made in n parts (one after another in the file), perhaps each on its
 * own thread: rt_session_write_parts as OUT/<stem>.tsv. */
gboolean rt_session_write_tsv_parts (RtSession *s, const GString *const *parts, guint n, const char *stem,
                                     GError **error);

/* A file of OUT compared with its new text while the text is made, a part at a time, so
 * that a file that stays the same (a cached run again into the same folder) costs neither
 * the whole text in memory nor a copy of the file: each part's text is compared with the
 * file where the part stands and let go as long as it is the same; from the first
 * difference on (or without a file there) the part keeps its text. The parts may be made
 * on different threads, one part on one thread. */
typedef struct _RtOutCheck RtOutCheck;
RtOutCheck *rt_session_check_new (RtSession *s, const char *name);
void rt_out_check_free (RtOutCheck *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtOutCheck, rt_out_check_free)
/* Up to n bytes of the file from `at` into buf: how many (0 at its end or without a file). */
gsize rt_out_check_read (RtOutCheck *c, guint64 at, char *buf, gsize n);
/* The file's size (0 without a file). */
guint64 rt_out_check_size (const RtOutCheck *c);

/* One part: its text made into `text`, which rt_out_part_compare empties while it is the
 * file's bytes from `offset` on. An offset that is wrong (a file that differs) costs only
 * the comparison: the file is then written whole. */
typedef struct {
  RtOutCheck *check;
  guint64 offset;             /* where the part would begin in the file */
  guint64 same;               /* its bytes found the same there, no longer in `text` */
  gboolean differs;           /* `text` keeps all the part's bytes after `same` */
  GString *text;
} RtOutPart;
void rt_out_part_begin (RtOutPart *p, RtOutCheck *c, guint64 offset, GString *text);
/* Compares the text made since with the file (every so often, as the text grows). */
void rt_out_part_compare (RtOutPart *p);
/* After the last of its parts (in the file's order) is made: leaves the file as it is when
 * the parts are it, byte for byte, else writes them as the file. */
gboolean rt_session_check_finish (RtSession *s, RtOutCheck *c, RtOutPart *parts, guint n_parts, GError **error);

/* Path of OUT/name (OUT as given or defaulted). */
char *rt_session_out_path (RtSession *s, const char *name);

/* "steps 1-40" for the given indices into trace->steps, for plot titles. */
char *rt_session_describe_step_indices (RtSession *s, GArray *step_indices);

/* TRUE when --train gave the trainer's step of every one of these steps and some differ
 * from the folders' numbers: plots then name the trainer's steps. */
gboolean rt_session_train_steps_differ (RtSession *s, GArray *step_indices);

/* x tics (see rt_gnuplot_int_tics) for a plot over these step indices (not empty);
 * with rt_session_train_steps_differ: the trainer's steps as labels, and the x label. */
char *rt_session_step_xtics (RtSession *s, GArray *step_indices);

/* ---- plots ---- */

/* Fills gnuplot/<template>.gp and writes it as OUT/<name>.gp, to be rendered into
 * OUT/<name>.<format>. `vars` are KEY, VALUE pairs ending in NULL that replace
 * {{KEY}}; TITLE, OUTPUT, TERMINAL and EXP are supplied here. The title names the
 * experiment and `what`. */
gboolean rt_session_plot (RtSession *s, const char *template_name, const char *name,
                          const char *what, const char *const *vars, GError **error);
/* The same, plotting OUT/<data_stem>.tsv: several plots of one table share it. */
gboolean rt_session_plot_data (RtSession *s, const char *template_name, const char *name,
                               const char *data_stem, const char *what, const char *const *vars,
                               GError **error);

/* Renders the scripts written so far now, rather than when the command returns (a command
 * that reads its pictures back: rt-report), and forgets them. */
gboolean rt_session_render (RtSession *s, GError **error);

/* "steps 1-40" / "steps 3, 5, 9" / "step 7" for titles, from step numbers. */
char *rt_describe_steps (const gint32 *steps, guint n);

/* "set xtics START, INC" for integer positions first..last: a round increment
 * (1, 2, 5, 10, 20, 50...) giving at most `max_ticks` ticks, so 500 steps stay readable. */
char *rt_gnuplot_int_tics (const char *axis, gint32 first, gint32 last, int max_ticks);


G_END_DECLS
