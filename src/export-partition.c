/* SPDX-License-Identifier: Apache-2.0 */
/* export-partition.c: an export table as a Hive-partitioned dataset: a gzip CSV part per step, each
 * written whole under a temporary name, and left as it is when an export again makes the same. */
#include "rolltrace/rt-export-partition.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-outfile.h"
#include "rolltrace/rt-outstream.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

static const char *const schema_files[RT_N_CSV_SCHEMAS] = {
  [RT_CSV_SCHEMA_DUCKDB] = "_schema.duckdb.sql",
  [RT_CSV_SCHEMA_PANDAS] = "_schema.pandas.json",
  [RT_CSV_SCHEMA_SPARK] = "_schema.spark.ddl",
};

char *
rt_partition_table_dir (const char *dir, RtExportTable which)
{
  return g_build_filename (dir, rt_export_spec (which)->name, NULL);
}

char *
rt_partition_glob (const char *dir, RtExportTable which)
{
  return g_build_filename (dir, rt_export_spec (which)->name, "*", "*.csv.gz", NULL);
}

void
rt_partition_schema (const char *dir, RtExportTable which, RtCsvSchema schema, GString *out)
{
  g_autoptr (RtTable) columns = rt_export_table_new_full (which, RT_EXPORT_NO_STEP);
  g_autofree char *glob = rt_partition_glob (dir, which);
  rt_table_csv_schema (columns, schema, glob, RT_PARTITION_COLUMN, out);
}

/* Writes `text` as `path` unless the file already holds it (its time then stays). */
static gboolean
write_unless_same (const char *path, const GString *text, GError **error)
{
  g_autofree char *old = NULL;
  gsize len = 0;
  if (g_file_get_contents (path, &old, &len, NULL) && len == text->len && memcmp (old, text->str, len) == 0)
    return TRUE;
  return rt_file_write_atomic (path, text->str, text->len, error);
}

/* The CSV's pieces into the part's stream. */
typedef struct {
  GOutputStream *stream;
  GError *error;
} PartWriter;

static gboolean
write_piece (const char *text, gsize len, gpointer data)
{
  PartWriter *w = data;
  return g_output_stream_write_all (w->stream, text, len, NULL, NULL, &w->error);
}

/* DIR/TABLE/step=N/part.csv.gz of one step. */
static gboolean
write_part (const RtTrace *t, gint32 step, RtExportTable which, const char *table_dir,
            RtPartitionCounts *counts, GError **error)
{
  g_autofree char *folder = g_strdup_printf ("%s=%d", RT_PARTITION_COLUMN, step);
  g_autofree char *path = g_build_filename (table_dir, folder, RT_PARTITION_PART, NULL);
  g_autoptr (RtOutStream) out = NULL;
  if (!rt_make_parent_dir (path, error) || (out = rt_out_stream_open (path, TRUE, error)) == NULL)
    return FALSE;
  g_autoptr (RtStepSet) one = rt_step_set_new_list (&step, 1);
  PartWriter w = { .stream = rt_out_stream_get (out) };
  guint64 rows = 0, bytes = 0;
  gboolean replaced = FALSE;
  if (!rt_export_csv_full (t, one, which, RT_EXPORT_NO_STEP, write_piece, &w, &rows)
      || !rt_out_stream_commit_changed (out, TRUE, &bytes, &replaced, &w.error))
    {
      g_propagate_prefixed_error (error, w.error, "%s: ", path);
      g_clear_pointer (&out, rt_out_stream_free);   /* the temporary goes */
      g_autofree char *made = g_path_get_dirname (path);
      g_rmdir (made);                              /* a step's folder made for it, still empty */
      return FALSE;
    }
  counts->rows += rows;
  counts->parts++;
  counts->parts_written += replaced;
  counts->bytes += bytes;
  return TRUE;
}

gboolean
rt_export_partition (const RtTrace *t, const RtStepSet *steps, RtExportTable which, const char *dir,
                     RtPartitionCounts *counts, GError **error)
{
  g_return_val_if_fail (which < RT_N_EXPORT_TABLES, FALSE);
  g_autofree char *table_dir = rt_partition_table_dir (dir, which);
  if (g_mkdir_with_parents (table_dir, 0777) != 0)
    {
      int e = errno;
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot create %s: %s", table_dir, g_strerror (e));
      return FALSE;
    }
  /* the types first: a reader that finds a part finds how to read it */
  for (int schema = 0; schema < RT_N_CSV_SCHEMAS; schema++)
    {
      g_autoptr (GString) text = g_string_new (NULL);
      rt_partition_schema (dir, which, schema, text);
      g_autofree char *path = g_build_filename (table_dir, schema_files[schema], NULL);
      if (!write_unless_same (path, text, error))
        return FALSE;
    }
  g_autoptr (GArray) selected = rt_trace_select_steps (t, steps);
  for (guint i = 0; i < selected->len; i++)
    {
      const RtStep *st = rt_trace_step (t, g_array_index (selected, guint, i));
      if (!write_part (t, st->step, which, table_dir, counts, error))
        return FALSE;
    }
  return TRUE;
}
