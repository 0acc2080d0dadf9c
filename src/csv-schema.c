/* SPDX-License-Identifier: Apache-2.0 */
/* csv-schema.c: the types of a table's CSV columns as DuckDB and pandas take them, from the
 * same declarations that write the CSV, so that no reader has to guess a type from the rows. */
#include "rolltrace/rt-table.h"
#include "rolltrace/rt-text.h"

#include <string.h>

static const char *const schema_names[RT_N_CSV_SCHEMAS] = {
  [RT_CSV_SCHEMA_DUCKDB] = "duckdb",
  [RT_CSV_SCHEMA_PANDAS] = "pandas",
  [RT_CSV_SCHEMA_SPARK] = "spark",
};

/* By RtColumnType (RT_COLUMN_TABLE never reaches a CSV). The integers are pandas' nullable
 * Int64, not int64: an unknown value (an empty field) would otherwise turn the column into
 * floats; boolean and string are nullable too. Spark's CSV reader takes only true and false
 * for a BOOLEAN (0 and 1 would be malformed): a boolean column is an INT there. */
static const char *const schema_types[RT_N_CSV_SCHEMAS][RT_COLUMN_TABLE] = {
  [RT_CSV_SCHEMA_DUCKDB] = {
    [RT_COLUMN_INT] = "BIGINT", [RT_COLUMN_NUMBER] = "DOUBLE", [RT_COLUMN_TEXT] = "VARCHAR",
    [RT_COLUMN_BOOL] = "BOOLEAN",
  },
  [RT_CSV_SCHEMA_PANDAS] = {
    [RT_COLUMN_INT] = "Int64", [RT_COLUMN_NUMBER] = "float64", [RT_COLUMN_TEXT] = "string",
    [RT_COLUMN_BOOL] = "boolean",
  },
  [RT_CSV_SCHEMA_SPARK] = {
    [RT_COLUMN_INT] = "BIGINT", [RT_COLUMN_NUMBER] = "DOUBLE", [RT_COLUMN_TEXT] = "STRING",
    [RT_COLUMN_BOOL] = "INT",
  },
};

int
rt_csv_schema_find (const char *name)
{
  for (int i = 0; i < RT_N_CSV_SCHEMAS; i++)
    if (strcmp (schema_names[i], name) == 0)
      return i;
  return -1;
}

const char *
rt_csv_schema_type (RtCsvSchema schema, RtColumnType type)
{
  g_return_val_if_fail (schema < RT_N_CSV_SCHEMAS && type < RT_COLUMN_TABLE, NULL);
  return schema_types[schema][type];
}

/* The column `name` of the table, in the files or not (a partition column is left out). */
static const RtColumn *
column_named (const RtTable *table, const char *name)
{
  int k = name != NULL ? rt_table_find (table, name) : -1;
  return k >= 0 ? rt_table_column (table, (guint) k) : NULL;
}

/* read_csv with the dialect the writer uses (no guess left to the sniffer), a quoted empty
 * field read as an empty text (an empty field alone is unknown), and a column per line; a
 * partition column's values and type come from the folders' names (step=3). */
static void
duckdb_schema (const RtTable *table, const char *file, const RtColumn *partition, GString *out)
{
  g_string_append (out, "read_csv(");
  rt_sql_append_literal (out, file);
  g_string_append (out, ", header = true, delim = ',', quote = '\"', escape = '\"',\n"
                        "  allow_quoted_nulls = false, ");
  if (partition != NULL)
    {
      g_string_append (out, "hive_partitioning = true, hive_types = {");
      rt_sql_append_literal (out, partition->name);
      g_string_append (out, ": ");
      rt_sql_append_literal (out, rt_csv_schema_type (RT_CSV_SCHEMA_DUCKDB, partition->type));
      g_string_append (out, "},\n  ");
    }
  g_string_append (out, "columns = {");
  gboolean first = TRUE;
  for (guint k = 0; k < rt_table_n_columns (table); k++)
    {
      const RtColumn *c = rt_table_column (table, k);
      if (!rt_column_in_tsv (c))
        continue;
      g_string_append (out, first ? "\n    " : ",\n    ");
      rt_sql_append_literal (out, rt_column_tsv_name (c));
      g_string_append (out, ": ");
      rt_sql_append_literal (out, rt_csv_schema_type (RT_CSV_SCHEMA_DUCKDB, c->type));
      first = FALSE;
    }
  g_string_append (out, "})\n");
}

static void
pandas_schema (const RtTable *table, GString *out)
{
  RtJsonWriter w;
  rt_jw_init (&w, out);
  rt_jw_begin_object (&w);
  for (guint k = 0; k < rt_table_n_columns (table); k++)
    {
      const RtColumn *c = rt_table_column (table, k);
      if (rt_column_in_tsv (c))
        rt_jw_member_string (&w, rt_column_tsv_name (c), rt_csv_schema_type (RT_CSV_SCHEMA_PANDAS, c->type));
    }
  rt_jw_end_object (&w);
  g_string_append_c (out, '\n');
}

/* A DDL string (`step BIGINT, worker BIGINT, ...`) for spark.read.schema: the columns of the
 * files in their order (Spark maps them by position), then the partition column, which Spark
 * reads from the folders' names and puts last. The names are ours, plain identifiers. */
static void
spark_schema (const RtTable *table, const RtColumn *partition, GString *out)
{
  gboolean first = TRUE;
  for (guint k = 0; k < rt_table_n_columns (table); k++)
    {
      const RtColumn *c = rt_table_column (table, k);
      if (!rt_column_in_tsv (c))
        continue;
      g_string_append_printf (out, "%s%s %s", first ? "" : ", ", rt_column_tsv_name (c),
                              rt_csv_schema_type (RT_CSV_SCHEMA_SPARK, c->type));
      first = FALSE;
    }
  if (partition != NULL)
    g_string_append_printf (out, "%s%s %s", first ? "" : ", ", partition->name,
                            rt_csv_schema_type (RT_CSV_SCHEMA_SPARK, partition->type));
  g_string_append_c (out, '\n');
}

void
rt_table_csv_schema (const RtTable *table, RtCsvSchema schema, const char *file, const char *partition,
                     GString *out)
{
  g_return_if_fail (schema < RT_N_CSV_SCHEMAS);
  const RtColumn *by = column_named (table, partition);
  g_return_if_fail (partition == NULL || (by != NULL && !rt_column_in_tsv (by)));
  switch (schema)
    {
    case RT_CSV_SCHEMA_DUCKDB:
      duckdb_schema (table, file, by, out);
      break;
    case RT_CSV_SCHEMA_PANDAS:
      pandas_schema (table, out);
      break;
    default:
      spark_schema (table, by, out);
      break;
    }
}
