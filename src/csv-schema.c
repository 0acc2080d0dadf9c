/* SPDX-License-Identifier: Apache-2.0 */
/* csv-schema.c: the types of a table's CSV columns as DuckDB and pandas take them, from the
 * same declarations that write the CSV, so that no reader has to guess a type from the rows. */
#include "rolltrace/rt-table.h"
#include "rolltrace/rt-text.h"

#include <string.h>

static const char *const schema_names[RT_N_CSV_SCHEMAS] = {
  [RT_CSV_SCHEMA_DUCKDB] = "duckdb",
  [RT_CSV_SCHEMA_PANDAS] = "pandas",
};

/* By RtColumnType (RT_COLUMN_TABLE never reaches a CSV). The integers are pandas' nullable
 * Int64, not int64: an unknown value (an empty field) would otherwise turn the column into
 * floats; boolean and string are nullable too. */
static const char *const schema_types[RT_N_CSV_SCHEMAS][RT_COLUMN_TABLE] = {
  [RT_CSV_SCHEMA_DUCKDB] = {
    [RT_COLUMN_INT] = "BIGINT", [RT_COLUMN_NUMBER] = "DOUBLE", [RT_COLUMN_TEXT] = "VARCHAR",
    [RT_COLUMN_BOOL] = "BOOLEAN",
  },
  [RT_CSV_SCHEMA_PANDAS] = {
    [RT_COLUMN_INT] = "Int64", [RT_COLUMN_NUMBER] = "float64", [RT_COLUMN_TEXT] = "string",
    [RT_COLUMN_BOOL] = "boolean",
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

/* read_csv with the dialect the writer uses (no guess left to the sniffer), a quoted empty
 * field read as an empty text (an empty field alone is unknown), and a column per line. */
static void
duckdb_schema (const RtTable *table, const char *file, GString *out)
{
  g_string_append (out, "read_csv(");
  rt_sql_append_literal (out, file);
  g_string_append (out, ", header = true, delim = ',', quote = '\"', escape = '\"',\n"
                        "  allow_quoted_nulls = false, columns = {");
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

void
rt_table_csv_schema (const RtTable *table, RtCsvSchema schema, const char *file, GString *out)
{
  g_return_if_fail (schema < RT_N_CSV_SCHEMAS);
  if (schema == RT_CSV_SCHEMA_DUCKDB)
    duckdb_schema (table, file, out);
  else
    pandas_schema (table, out);
}
