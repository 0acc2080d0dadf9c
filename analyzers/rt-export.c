/* SPDX-License-Identifier: Apache-2.0 */
/* rt-export: the loaded tables (requests, turns, events, steps, workers) as CSV, for DuckDB, Spark,
 * pandas or a spreadsheet to take over where rolltrace stops. Written as a stream, gzip when asked. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-export-partition.h"
#include "rolltrace/rt-outfile.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-outstream.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static char *opt_table;
static char *opt_schema;
static char *opt_partition;

/* Where the CSV goes, as -o/--out (shared with the analyzers) reads: "-" is stdout; a name
 * ending in .csv or .gz (any case) is the file itself; any other is a folder that gets TABLE.csv
 * (default rt-out/EXPNAME/TABLE.csv). The command layer has refused it inside the experiment. */
static char *
csv_path (RtSession *s, const char *table)
{
  const char *out = s->out_dir;
  gsize n = strlen (out);
  if ((n >= 4 && g_ascii_strcasecmp (out + n - 4, ".csv") == 0) || rt_path_wants_gzip (out) || strcmp (out, "-") == 0)
    return g_strdup (out);
  g_autofree char *file = g_strdup_printf ("%s.csv", table);
  return g_build_filename (out, file, NULL);
}

/* Where the CSV's pieces go: to the output stream, or to stdout. */
typedef struct {
  GOutputStream *stream;      /* NULL: stdout */
  GError *error;
} CsvWriter;

static gboolean
write_text (const char *text, gsize len, gpointer data)
{
  CsvWriter *w = data;
  if (w->stream != NULL)
    return g_output_stream_write_all (w->stream, text, len, NULL, NULL, &w->error);
  if (fwrite (text, 1, len, stdout) == len)
    return TRUE;
  int e = errno;
  g_set_error (&w->error, RT_ERROR, RT_ERROR_IO, "cannot write to stdout: %s", g_strerror (e));
  return FALSE;
}

static void
write_json (RtSession *s, const char *path, const RtTable *columns, guint64 rows, guint64 bytes)
{
  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_member_string (w, "file", path);
  rt_jw_member_string (w, "table", rt_table_name (columns));
  rt_jw_member_int (w, "rows", (gint64) rows);
  rt_jw_member_int (w, "bytes", (gint64) bytes);
  rt_jw_key (w, "columns");
  rt_jw_begin_array (w);
  for (guint k = 0; k < rt_table_n_columns (columns); k++)
    rt_jw_string (w, rt_table_column (columns, k)->name);
  rt_jw_end_array (w);
  rt_jw_end_object (w);
}

/* --partition step and its folder, checked before the experiment is read: the dataset is a
 * folder named with -o (never the default rt-out/EXPNAME, where the plain exports go). */
static gboolean
partition_check (RtSession *s, GError **error)
{
  if (opt_partition == NULL)
    return TRUE;
  if (strcmp (opt_partition, RT_PARTITION_COLUMN) != 0)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE,
                   "--partition: '%s' is not step (the one partition key: a folder step=N per step)", opt_partition);
      return FALSE;
    }
  if (!s->out_given)
    {
      g_set_error_literal (error, RT_ERROR, RT_ERROR_USAGE,
                           "--partition step writes a dataset folder: name it with -o DIR (DIR/TABLE/step=N/part.csv.gz)");
      return FALSE;
    }
  gsize n = strlen (s->out_dir);
  if (strcmp (s->out_dir, "-") == 0 || (n >= 4 && g_ascii_strcasecmp (s->out_dir + n - 4, ".csv") == 0)
      || rt_path_wants_gzip (s->out_dir))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE,
                   "--partition step writes a folder of files, not one: -o DIR, not %s", s->out_dir);
      return FALSE;
    }
  return TRUE;
}

/* With --schema the experiment is not read: the columns and their types are the table's own. */
static gboolean
runs (G_GNUC_UNUSED const RtSession *s, G_GNUC_UNUSED const RtAnalysisSpec *analysis)
{
  return opt_schema == NULL;
}

/* --schema: how DuckDB or pandas reads the CSV with its columns' types, the file named as the
 * export with the same options would name it ('TABLE.csv' without EXP or -o; stdin for -o -). */
/* The step map of a schema printed with --train: the column only, no value to map. */
static gint32
no_train_step (G_GNUC_UNUSED gconstpointer data, G_GNUC_UNUSED gint32 step)
{
  return -1;
}

static int
print_schema (RtSession *s, RtExportTable which, const char *table_name, GError **error)
{
  int schema = rt_csv_schema_find (opt_schema);
  if (schema < 0)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "--schema: '%s' is not duckdb, pandas or spark", opt_schema);
      return 2;
    }
  if (!partition_check (s, error))
    return 2;
  g_autofree char *path = s->out_dir != NULL ? csv_path (s, table_name) : g_strdup_printf ("%s.csv", table_name);
  /* with --train, the export of a table with a step column ends in train_step (when the log
   * matches the trace): the schema says so too, without loading the trace */
  if (s->train_path != NULL)
    rt_table_map_steps (no_train_step, NULL);
  RtExportFlags flags = opt_partition != NULL ? RT_EXPORT_NO_STEP : 0;
  g_autoptr (RtTable) columns = rt_export_table_new_full (which, flags);
  g_autoptr (GString) text = g_string_new (NULL);
  if (opt_partition != NULL)
    rt_partition_schema (s->out_dir, which, schema, text);
  else
    rt_table_csv_schema (columns, schema, strcmp (path, "-") == 0 ? "/dev/stdin" : path, NULL, text);
  rt_table_map_steps (NULL, NULL);
  if (s->json)
    {
      RtJsonWriter *w = rt_session_json (s);
      rt_jw_begin_object (w);
      rt_jw_member_string (w, "table", table_name);
      rt_jw_member_string (w, "schema", opt_schema);
      if (opt_partition != NULL)
        rt_jw_member_string (w, "partition", opt_partition);
      rt_jw_key (w, "types");
      rt_jw_begin_object (w);
      for (guint k = 0; k < rt_table_n_columns (columns); k++)
        {
          const RtColumn *c = rt_table_column (columns, k);
          if (rt_column_in_tsv (c))
            rt_jw_member_string (w, rt_column_tsv_name (c), rt_csv_schema_type (schema, c->type));
        }
      rt_jw_end_object (w);
      rt_jw_end_object (w);
      return 0;
    }
  fputs (text->str, stdout);
  return 0;
}

/* --partition step: every table (or the one --table names) as DIR/TABLE/step=N/part.csv.gz. */
static int
run_partitioned (RtSession *s, int which, GError **error)
{
  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_member_string (w, "dir", s->out_dir);
  rt_jw_member_string (w, "partition", opt_partition);
  rt_jw_key (w, "tables");
  rt_jw_begin_array (w);
  guint64 rows = 0;
  int status = 0;
  for (int k = 0; k < RT_N_EXPORT_TABLES && status == 0; k++)
    {
      if (which >= 0 && k != which)
        continue;
      RtPartitionCounts c = { 0 };
      if (!rt_export_partition (s->trace, s->steps, k, s->out_dir, &c, error))
        status = 1;
      g_autofree char *dir = rt_partition_table_dir (s->out_dir, k);
      g_autoptr (RtTable) columns = rt_export_table_new_full (k, RT_EXPORT_NO_STEP);
      rt_jw_begin_object (w);
      rt_jw_member_string (w, "table", rt_table_name (columns));
      rt_jw_member_string (w, "dir", dir);
      rt_jw_member_int (w, "rows", (gint64) c.rows);
      rt_jw_member_int (w, "parts", c.parts);
      rt_jw_member_int (w, "parts_written", c.parts_written);
      rt_jw_member_int (w, "bytes", (gint64) c.bytes);
      rt_jw_end_object (w);
      if (status != 0)
        break;
      g_autofree char *size = g_format_size (c.bytes);
      rt_session_print (s, "%s: %" G_GUINT64_FORMAT " rows of %s in %u parts, %u written, %u unchanged (%s)\n", dir,
                        c.rows, rt_table_name (columns), c.parts, c.parts_written, c.parts - c.parts_written, size);
      rows += c.rows;
    }
  rt_jw_end_array (w);
  rt_jw_end_object (w);
  if (status == 0 && rows == 0)
    return rt_session_no_data (s, "no row in the selected steps (each part holds the header only)");
  return status;
}

static int
run (RtSession *s, GError **error)
{
  const char *name = opt_table ? opt_table : "requests";
  int which = rt_export_table_find (name);
  if (opt_partition != NULL && opt_schema == NULL)
    {
      if (!partition_check (s, error))
        return 2;
      if (opt_table == NULL)
        return run_partitioned (s, -1, error);   /* every table */
    }
  if (which < 0)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "--table: '%s' is not requests, turns, events, steps or workers",
                   name);
      return 2;
    }
  if (opt_schema != NULL)
    return print_schema (s, which, name, error);
  if (opt_partition != NULL)
    return run_partitioned (s, which, error);
  g_autofree char *path = csv_path (s, name);
  gboolean to_stdout = strcmp (path, "-") == 0;
  if (to_stdout && s->json)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "-o - writes the CSV on stdout, where --json would go too");
      return 2;
    }
  g_autoptr (RtOutStream) out = NULL;
  if (!to_stdout && (!rt_make_parent_dir (path, error)
                     || (out = rt_out_stream_open (path, rt_path_wants_gzip (path), error)) == NULL))
    return 1;

  CsvWriter w = { .stream = out ? rt_out_stream_get (out) : NULL };
  guint64 rows = 0, bytes = 0;
  gboolean ok = rt_export_csv (s->trace, s->steps, which, write_text, &w, &rows);
  if (ok && to_stdout && fflush (stdout) != 0)
    {
      int e = errno;
      g_set_error (&w.error, RT_ERROR, RT_ERROR_IO, "cannot write to stdout: %s", g_strerror (e));
      ok = FALSE;
    }
  if (!ok || (out != NULL && !rt_out_stream_commit (out, &bytes, &w.error)))
    {
      g_propagate_prefixed_error (error, w.error, "%s: ", to_stdout ? "stdout" : path);
      return 1;
    }

  g_autoptr (RtTable) columns = rt_export_table_new (which);
  write_json (s, path, columns, rows, bytes);
  if (!to_stdout)
    {
      g_autofree char *size = g_format_size (bytes);
      rt_session_print (s, "%s: %" G_GUINT64_FORMAT " rows of %s, %u columns (%s)\n", path, rows,
                        rt_table_name (columns), rt_table_n_columns (columns), size);
    }
  if (rows == 0)
    return rt_session_no_data (s, "no %s row in the selected steps (the file holds the header only)", name);
  return 0;
}

int
main (int argc, char **argv)
{
  static const GOptionEntry entries[] = {
    { "table", 't', 0, G_OPTION_ARG_STRING, &opt_table,
      "The table to export: requests (default), turns, events, steps or workers", "NAME" },
    { "schema", 0, 0, G_OPTION_ARG_STRING, &opt_schema,
      "Print the table's column types for DuckDB (a read_csv expression), pandas (a dtype dict) or "
      "Spark (a DDL string) instead of exporting (EXP may be left out)", "duckdb|pandas|spark" },
    { "partition", 0, 0, G_OPTION_ARG_STRING, &opt_partition,
      "Write a Hive-partitioned dataset into the folder -o DIR: DIR/TABLE/step=N/part.csv.gz for every "
      "table (or --table's) and selected step, with the column types beside (step is the only key)", "step" },
    G_OPTION_ENTRY_NULL
  };
  static const RtTableSpec *const tables[] = {
    &rt_export_requests_spec, &rt_export_turns_spec, &rt_export_events_spec, &rt_export_steps_spec,
    &rt_export_workers_spec, NULL,
  };
  static const RtAnalysisSpec *const analyses[] = { &rt_export_analysis, NULL };
  static const RtCommand cmd = {
    .name = "rt-export",
    .parameters = "EXP",
    .summary = "A table of the selected steps as CSV for DuckDB, pandas or a spreadsheet. It writes\n"
               "one of the loaded tables as CSV (RFC 4180) with a header line, for DuckDB, Spark,\n"
               "pandas or a spreadsheet: requests, turn records, event lines, steps or worker\n"
               "files, one row each. Export step ranges on several machines and query\n"
               "the files together (docs/export.md).\n\n"
               "Times are RELATIVE, in seconds to the microsecond, never wall-clock dates: of a request,\n"
               "turn, event or worker file from its step's start (the earliest timestamp - duration_sec\n"
               "of the step's lines); of a step from the first start of any step of the trace that\n"
               "holds a rollout of the kind read (--rollouts). The loggers' clocks are per host and\n"
               "without a zone.",
    .description = "-o/--out FILE.csv, or FILE.csv.gz (any name ending in .gz: compressed), names the CSV\n"
                   "file; - writes it on stdout; any other name is a folder, which gets TABLE.csv (default\n"
                   "rt-out/EXPNAME/TABLE.csv). --format and --no-render, shared with the analyzers that\n"
                   "plot, change nothing.\n\n"
                   "CSV: a header of column names, then a row per line, ended by LF. An unknown value is an\n"
                   "empty field; numbers read back exactly; booleans 0/1; text as read, invalid UTF-8\n"
                   "replaced by U+FFFD, quoted (\"...\", a quote doubled) when it holds a comma, a quote, CR\n"
                   "or LF, or is empty, so no text can break a row. The file is written as a stream (memory\n"
                   "holds a few MB of it) under a temporary name renamed when complete; a name ending\n"
                   "in .gz is gzip-compressed. Never inside EXP.\n\n"
                   "--schema duckdb|pandas|spark prints the table's column types instead, reading no experiment\n"
                   "(EXP may be left out), for a reader that would otherwise guess them from the rows (a\n"
                   "column empty in every row as text, whole numbers with an empty field as floats):\n"
                   "duckdb, a read_csv('FILE', ..., columns = {...}) expression to use as the query's table\n"
                   "(BIGINT, DOUBLE, VARCHAR, BOOLEAN; FILE as the export names it: -o, which may be a glob,\n"
                   "else rt-out/EXPNAME/TABLE.csv, or TABLE.csv without EXP); pandas, the dtype of\n"
                   "pd.read_csv as a JSON object (Int64, the nullable whole numbers, float64, string,\n"
                   "boolean); spark, a DDL string for spark.read.schema (BIGINT, DOUBLE, STRING, and INT\n"
                   "for a 0/1 boolean, which Spark's CSV reader would not take as BOOLEAN). docs/export.md\n"
                   "has the queries.\n\n"
                   "--partition step -o DIR writes a Hive-partitioned dataset instead: for every table, or\n"
                   "the one named by --table, and every selected step DIR/TABLE/step=N/part.csv.gz, the CSV\n"
                   "of that step without its step column (the folder names it; Spark would shift the\n"
                   "columns otherwise), and beside the parts DIR/TABLE/_schema.duckdb.sql,\n"
                   "_schema.pandas.json and _schema.spark.ddl, what --schema prints with --partition step\n"
                   "-o DIR (DuckDB's reads DIR/TABLE/*/*.csv.gz with hive_partitioning, so that WHERE step\n"
                   "= N reads one folder). Each part is renamed into place when whole, and one that holds\n"
                   "the same bytes as the file there is left as it is: an export again after steps were\n"
                   "appended adds their parts and rewrites only those that changed. -o DIR is required;\n"
                   "no part is ever removed.\n\n"
                   "JSON (--json): {\"file\", \"table\", \"rows\", \"bytes\" (the file's size), \"columns\"\n"
                   "(their names)}; with --schema {\"table\", \"schema\", \"types\" (column: type)}, and\n"
                   "\"partition\" with --partition; with --partition {\"dir\", \"partition\", \"tables\": [{\"table\",\n"
                   "\"dir\", \"rows\", \"parts\", \"parts_written\" (new or changed), \"bytes\"}]}. Exit\n"
                   "status 1 when the table has no row in the selected steps (the file holds the header\n"
                   "only; with --partition, when no table has one), 2 for a usage error.\n\n"
                   "Examples:\n  rt-export logs/exp --steps 1-100 -o exp-1-100.csv.gz\n"
                   "  rt-export logs/exp --partition step -o exp-dataset\n"
                   "  duckdb -c \"SELECT step, max(duration_s) FROM $(rt-export --schema duckdb -o 'exp-*.csv.gz')\n"
                   "              GROUP BY step\"\n"
                   "  rt-export logs/exp --table events -o - | duckdb -c \"SELECT event, count(*) FROM "
                   "read_csv('/dev/stdin') GROUP BY 1\"",
    .entries = entries,
    .tables = tables,
    .tables_heading = "Tables (written as NAME.csv, never in the JSON; EVENT_s columns are seconds summed\n"
                      "over the lines of that event), by column:",
    .run = run,
    .analyses = analyses,
    .runs = runs,
    .before_load = partition_check,
    .flags = RT_COMMAND_ANALYZER,
  };
  return rt_command_main (&cmd, argc, argv);
}
