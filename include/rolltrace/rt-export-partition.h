/* SPDX-License-Identifier: Apache-2.0 */
/* rt-export-partition.h: an export table as a Hive-partitioned dataset, a gzip CSV part per step
 * (DIR/TABLE/step=N/part.csv.gz) and the column types beside them, for readers that span machines. */
#pragma once

#include "rolltrace/analyses/export.h"

G_BEGIN_DECLS

/* The names in a table's folder: the part of a step, and the schema files, one per reader
 * (rt_table_csv_schema), their names starting with '_' so that Spark's listing skips them. */
#define RT_PARTITION_PART "part.csv.gz"
#define RT_PARTITION_COLUMN "step"

typedef struct {
  guint64 rows;               /* rows of every part */
  guint parts;                /* parts made: one per selected step */
  guint parts_written;        /* of them, new or changed (the others were left as they were) */
  guint64 bytes;              /* the parts' size, compressed */
} RtPartitionCounts;

/* The folder of table `which` in the dataset `dir`: DIR/TABLE. */
char *rt_partition_table_dir (const char *dir, RtExportTable which);

/* The glob of the table's parts (DIR/TABLE/STAR/STAR.csv.gz, STAR a '*'), which DuckDB reads. */
char *rt_partition_glob (const char *dir, RtExportTable which);

/* The column types of the table's parts for `schema` (DuckDB: a read_csv of the glob with
 * hive_partitioning; pandas: the dtype of a part; Spark: a DDL with step last), as
 * rt_table_csv_schema writes them, appended to `out`. */
void rt_partition_schema (const char *dir, RtExportTable which, RtCsvSchema schema, GString *out);

/* Writes table `which` of the selected steps (NULL: all) of `t` as DIR/TABLE/step=N/part.csv.gz,
 * the CSV of rt_export_csv without its step column (the folder names it), and the table's
 * schema files DIR/TABLE/_schema.duckdb.sql, _schema.pandas.json and _schema.spark.ddl. Each
 * part is written under a temporary name and renamed when whole; a part that holds the same
 * bytes as the one already there is not replaced, so an export again after steps were
 * appended adds their parts and rewrites only those that changed. Parts of steps not
 * selected are left alone. Adds to `counts`. */
gboolean rt_export_partition (const RtTrace *t, const RtStepSet *steps, RtExportTable which, const char *dir,
                              RtPartitionCounts *counts, GError **error);

G_END_DECLS
