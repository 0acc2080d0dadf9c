/* SPDX-License-Identifier: Apache-2.0 */
/* rt-table.h: a table of results, its columns declared once (name, type, unit, meaning).
 * From one table come its TSV file, its JSON array of objects and the --help list of its keys. */
#pragma once

#include <glib.h>

#include "rolltrace/rt-jsonw.h"

G_BEGIN_DECLS

typedef enum {
  RT_COLUMN_INT,             /* a whole number; TSV NaN and JSON null when unknown */
  RT_COLUMN_NUMBER,          /* a double; NAN is NaN in the TSV (gnuplot's missing value), null in JSON */
  RT_COLUMN_TEXT,            /* text, from the input or ours; escaped by each format */
  RT_COLUMN_BOOL,            /* 0/1 in the TSV, false/true in JSON */
  RT_COLUMN_TABLE,           /* a table of its own: JSON only, an array of objects */
} RtColumnType;

typedef enum {
  RT_COLUMN_JSON_ONLY = 1 << 0,  /* left out of the TSV file */
  RT_COLUMN_TSV_ONLY = 1 << 1,   /* left out of the JSON objects */
  RT_COLUMN_EACH = 1 << 2,       /* a pattern: one column per name given to rt_table_expand,
                                  * named after it, with this column's type, unit and group */
  RT_COLUMN_ARRAY = 1 << 3,      /* with RT_COLUMN_EACH: in JSON the expanded columns are one
                                  * array under the pattern's name (one value per experiment) */
  RT_COLUMN_NULL_GROUP = 1 << 4, /* on a grouped column: the group's object is null in JSON
                                  * when every cell of it is null in that row */
  RT_COLUMN_TRAINER_STEP = 1 << 5, /* on "step": not one step folder of one experiment (the
                                  * trainer's own step, or steps paired across experiments):
                                  * no train_step is added beside it */
} RtColumnFlags;

typedef struct {
  const char *name;          /* the JSON key; the TSV header too, unless `tsv_name` */
  RtColumnType type;
  const char *unit;          /* "s", "%", "tokens"... or NULL */
  const char *meaning;       /* one line, for --help */
  const char *tsv_name;      /* the TSV header where it differs from the key, or NULL */
  const char *group;         /* in JSON, consecutive columns of one group form an object
                              * under this key ({"pct": {...}}); NULL: none */
  RtColumnFlags flags;
} RtColumn;

/* A column in a declaration: { RT_COL ("total_max", RT_COLUMN_NUMBER, "s", "the longest"),
 * .tsv_name = "total_max_s" }, and RT_COLUMNS_END after the last. */
#define RT_COL(name_, type_, unit_, meaning_) .name = (name_), .type = (type_), .unit = (unit_), .meaning = (meaning_)
#define RT_COLUMNS_END { .name = NULL }

/* A column is in the TSV file and the CSV (not JSON-only, not a table), under this header name. */
gboolean rt_column_in_tsv (const RtColumn *c);
const char *rt_column_tsv_name (const RtColumn *c);

/* A table's declaration: written once, as a static array, beside the analysis. */
typedef struct {
  const char *name;          /* the file stem: NAME.tsv */
  const char *row;           /* what one row is, for --help ("one per selected step") */
  const RtColumn *columns;   /* ending with RT_COLUMNS_END */
} RtTableSpec;

typedef struct _RtTable RtTable;

RtTable *rt_table_new (const RtTableSpec *spec);

/* The trainer's step of step folder `step` (-1: unknown). Set (by the command layer, once it
 * knows the experiment's rollouts: --train), every table made after it that has an integer
 * "step" column gets a "train_step" column: the last of its TSV and CSV, right after "step"
 * in its JSON objects. NULL: none (the default). One per process. */
typedef gint32 (*RtTableStepMap) (gconstpointer data, gint32 step);
void rt_table_map_steps (RtTableStepMap map, gconstpointer data);
void rt_table_free (RtTable *table);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtTable, rt_table_free)

/* Replaces the RT_COLUMN_EACH column `pattern` by one column per name (copied), before
 * the first row: the sections of a step, the numbers of turns that occur, the metrics. */
void rt_table_expand (RtTable *table, const char *pattern, const char *const *names, guint n);

/* Leaves the column `name` out of the TSV and CSV files (and so of their schemas), before the
 * first row: its cells are still given, in JSON still written. A partitioned export's step,
 * which the partition's folder names (a Hive reader takes it from there). */
void rt_table_leave_out (RtTable *table, const char *name);

/* Room for n rows more, when their number is known before (the cells then grow once). */
void rt_table_reserve_rows (RtTable *table, gsize n);

/* Rows are appended a cell at a time, in column order; a row ends with its last cell. */
void rt_table_int (RtTable *table, gint64 v);
void rt_table_number (RtTable *table, double v);
void rt_table_text (RtTable *table, const char *s);      /* copied; NULL is null */
/* `s` kept as it is, not copied: for a text that outlives the table (a name of a static table,
 * a request id of the trace the table is made of), in the rows of a large table. */
void rt_table_text_borrowed (RtTable *table, const char *s);
void rt_table_bool (RtTable *table, gboolean v);
void rt_table_null (RtTable *table);                     /* an unknown value of any type */
void rt_table_table (RtTable *table, RtTable *cell);    /* takes `cell` */

const char *rt_table_name (const RtTable *table);
guint rt_table_n_rows (const RtTable *table);
guint rt_table_n_columns (const RtTable *table);
const RtColumn *rt_table_column (const RtTable *table, guint column);
/* The column named `name` (the JSON key), or -1. */
int rt_table_find (const RtTable *table, const char *name);
/* A cell as a double (INT, NUMBER, BOOL; NAN when null) or as text (TEXT; NULL when null). */
double rt_table_get_number (const RtTable *table, guint row, guint column);
const char *rt_table_get_text (const RtTable *table, guint row, guint column);
const RtTable *rt_table_get_table (const RtTable *table, guint row, guint column);

/* The TSV file: a header line of the column names, then a line per row. */
GString *rt_table_tsv (const RtTable *table);
/* The same appended to `out`, its header line first when `header`: a table of many rows
 * can be written in batches of rows (append, rt_table_clear_rows, and again), its cells
 * never taking more than a batch's room. */
void rt_table_tsv_append (const RtTable *table, GString *out, gboolean header);

/* The rows as a JSON array of objects, as the value of the writer's current position. */
void rt_table_write_json (const RtTable *table, RtJsonWriter *w);
/* One row as a JSON object (a table of one row that stands for one thing). */
void rt_table_write_json_row (const RtTable *table, guint row, RtJsonWriter *w);
/* Its members alone, into an object the caller has begun, so that it can add members of its
 * own (rt-compare --fit: each experiment's "fit"). */
void rt_table_write_json_members (const RtTable *table, guint row, RtJsonWriter *w);

/* CSV (RFC 4180), from the columns of the TSV file and its header names: a header line
 * when `header`, then a line per row, each ended by "\n". A null or non-finite cell is
 * an empty field; numbers as in the TSV (the shortest text that reads back exactly);
 * BOOL 0/1; text as read, invalid UTF-8 replaced by U+FFFD, quoted ("...", a quote
 * doubled) when it holds a comma, a quote, CR or LF, or is empty (so that "" is an empty
 * text and an empty field unknown). Appended to `out`, so that rows can be streamed out
 * in batches: append, write, rt_table_clear_rows, and again. */
void rt_table_csv_append (const RtTable *table, GString *out, gboolean header);
/* The whole table as CSV, its header first. */
GString *rt_table_csv (const RtTable *table);
/* The readers a CSV's column types are written for (rt-export --schema). Told the types, a
 * reader no longer guesses them from the rows, where a column empty in every row of a file
 * would read as text, and a whole-number column with an empty field as floats. */
typedef enum {
  RT_CSV_SCHEMA_DUCKDB,      /* BIGINT, DOUBLE, VARCHAR, BOOLEAN */
  RT_CSV_SCHEMA_PANDAS,      /* the nullable Int64, float64, string, boolean */
  RT_CSV_SCHEMA_SPARK,       /* BIGINT, DOUBLE, STRING, INT (0/1: Spark reads true/false only) */
  RT_N_CSV_SCHEMAS,
} RtCsvSchema;

/* The schema named `name` ("duckdb", "pandas", "spark"), or -1. */
int rt_csv_schema_find (const char *name);
/* The type `schema` gives a column of type `type` (not RT_COLUMN_TABLE, never in a CSV). */
const char *rt_csv_schema_type (RtCsvSchema schema, RtColumnType type);
/* The column types of the table's CSV, appended to `out` as the reader takes them: for DuckDB
 * a read_csv('FILE', ...) expression with its columns struct, FILE `file`; for pandas a dtype
 * dict (a JSON object, which Python reads too; `file` unused); for Spark a DDL string for
 * spark.read.schema; each ended by "\n". `partition` (NULL: none) names a column left out of
 * the files (rt_table_leave_out) that a Hive-partitioned dataset has in its folders' names
 * (NAME=VALUE): DuckDB reads it with hive_partitioning and its type, Spark as the last column,
 * pandas not at all (the reader adds it). */
void rt_table_csv_schema (const RtTable *table, RtCsvSchema schema, const char *file, const char *partition,
                          GString *out);

/* Drops every row and keeps the columns: a table reused for the next batch of rows. */
void rt_table_clear_rows (RtTable *table);

/* A table's TSV rows written straight into a text, cell after cell in column order as with
 * rt_table_int and the like, the cells never kept: the text is the one rt_table_tsv_append
 * makes of the same rows. For the large tables of a plot's data, written once (a Gantt's
 * bars, the counts in flight), where keeping each cell to read it back cost more than
 * writing it. The table gives the columns only (it may hold no row) and must outlive the
 * writer; `out` too, which may be emptied between cells (its text let go as it is made). */
typedef struct _RtTsvWriter RtTsvWriter;
RtTsvWriter *rt_tsv_writer_new (const RtTable *table, GString *out, gboolean header);
void rt_tsv_writer_free (RtTsvWriter *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtTsvWriter, rt_tsv_writer_free)
void rt_tsv_writer_int (RtTsvWriter *w, gint64 v);
void rt_tsv_writer_number (RtTsvWriter *w, double v);
/* n integer cells at once (a row's counts) */
void rt_tsv_writer_uints (RtTsvWriter *w, const guint *v, gsize n);
/* NULL: null; not copied, and compared by address with the column's text above, so that a
 * text repeated row after row (a request's id) is written from the first copy */
void rt_tsv_writer_text (RtTsvWriter *w, const char *s);

/* The --help text of a declaration: what a row is, then a line per column
 * ("  step            the step number"), indented by `indent` spaces. */
void rt_table_spec_describe (const RtTableSpec *spec, GString *out, guint indent);

G_END_DECLS
