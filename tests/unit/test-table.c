/* SPDX-License-Identifier: Apache-2.0 */
/* test-table.c: a table declared once gives its TSV and its JSON from the same rows:
 * headers and keys, JSON-only columns, groups, per-name patterns, nulls, text escaping. */
#include <math.h>
#include <string.h>

#include "rolltrace/rt-table.h"
#include "rolltrace/rt-text.h"

static const RtTableSpec spec = {
  "demo", "one per thing",
  (const RtColumn[]) {
    { RT_COL ("step", RT_COLUMN_INT, NULL, "the step") },
    { RT_COL ("total", RT_COLUMN_NUMBER, "s", "the total"), .tsv_name = "total_s" },
    { RT_COL ("name", RT_COLUMN_TEXT, NULL, "a name from the input") },
    { RT_COL ("EACH", RT_COLUMN_NUMBER, "%", "one per part"), .group = "pct", .flags = RT_COLUMN_EACH },
    { RT_COL ("outlier", RT_COLUMN_BOOL, NULL, "beyond 2 std") },
    { RT_COL ("requests", RT_COLUMN_INT, NULL, "JSON only"), .flags = RT_COLUMN_JSON_ONLY },
    { RT_COL ("plot_only", RT_COLUMN_NUMBER, NULL, "TSV only"), .flags = RT_COLUMN_TSV_ONLY },
    RT_COLUMNS_END,
  },
};

static RtTable *
demo_table (void)
{
  RtTable *t = rt_table_new (&spec);
  const char *parts[] = { "a", "b" };
  rt_table_expand (t, "EACH", parts, 2);
  rt_table_int (t, 3);
  rt_table_number (t, 1.5);
  rt_table_text (t, "tab\there\nnew");
  rt_table_number (t, 25);
  rt_table_number (t, NAN);
  rt_table_bool (t, TRUE);
  rt_table_int (t, 7);
  rt_table_number (t, 0.25);
  /* a second row, with nulls */
  rt_table_int (t, 10);
  rt_table_null (t);
  rt_table_text (t, NULL);
  rt_table_number (t, 0.1);
  rt_table_number (t, 99.9);
  rt_table_bool (t, FALSE);
  rt_table_null (t);
  rt_table_number (t, INFINITY);
  return t;
}

static void
test_tsv_has_tsv_columns_in_order (void)
{
  g_autoptr (RtTable) t = demo_table ();
  g_autoptr (GString) tsv = rt_table_tsv (t);
  g_assert_cmpstr (tsv->str, ==,
                   "step\ttotal_s\tname\ta\tb\toutlier\tplot_only\n"
                   "3\t1.5\ttab here new\t25.0\tNaN\t1\t0.25\n"
                   "10\tNaN\tNaN\t0.1\t99.9\t0\tNaN\n");
}

static void
test_json_has_json_keys_and_groups (void)
{
  g_autoptr (RtTable) t = demo_table ();
  g_autoptr (GString) out = g_string_new (NULL);
  RtJsonWriter w;
  rt_jw_init (&w, out);
  rt_table_write_json (t, &w);
  g_assert_cmpstr (out->str, ==,
                   "[{\"step\": 3, \"total\": 1.5, \"name\": \"tab\\there\\nnew\", \"pct\": {\"a\": 25.0, \"b\": null}, "
                   "\"outlier\": true, \"requests\": 7}, "
                   "{\"step\": 10, \"total\": null, \"name\": null, \"pct\": {\"a\": 0.1, \"b\": 99.9}, "
                   "\"outlier\": false, \"requests\": null}]");
}

static void
test_cells_read_back (void)
{
  g_autoptr (RtTable) t = demo_table ();
  g_assert_cmpuint (rt_table_n_rows (t), ==, 2);
  g_assert_cmpuint (rt_table_n_columns (t), ==, 8);
  g_assert_cmpint (rt_table_find (t, "b"), ==, 4);
  g_assert_cmpint (rt_table_find (t, "EACH"), ==, -1);
  g_assert_cmpfloat (rt_table_get_number (t, 0, 1), ==, 1.5);
  g_assert_cmpfloat (rt_table_get_number (t, 1, 0), ==, 10);
  g_assert_true (isnan (rt_table_get_number (t, 1, 1)));
  g_assert_cmpstr (rt_table_get_text (t, 0, 2), ==, "tab\there\nnew");
  g_assert_null (rt_table_get_text (t, 1, 2));
  g_assert_cmpstr (rt_table_column (t, 3)->group, ==, "pct");
}

static const RtTableSpec inner_spec = {
  "inner", "one per bin",
  (const RtColumn[]) {
    { RT_COL ("turns", RT_COLUMN_INT, NULL, "turns") },
    RT_COLUMNS_END,
  },
};

static const RtTableSpec outer_spec = {
  "outer", "one per step",
  (const RtColumn[]) {
    { RT_COL ("step", RT_COLUMN_INT, NULL, "the step") },
    { RT_COL ("bins", RT_COLUMN_TABLE, NULL, "its bins") },
    RT_COLUMNS_END,
  },
};

static void
test_nested_table_is_json_only (void)
{
  g_autoptr (RtTable) t = rt_table_new (&outer_spec);
  RtTable *inner = rt_table_new (&inner_spec);
  rt_table_int (inner, 1);
  rt_table_int (inner, 4);
  rt_table_int (t, 2);
  rt_table_table (t, inner);
  g_autoptr (GString) tsv = rt_table_tsv (t);
  g_assert_cmpstr (tsv->str, ==, "step\n2\n");
  g_autoptr (GString) out = g_string_new (NULL);
  RtJsonWriter w;
  rt_jw_init (&w, out);
  rt_table_write_json_row (t, 0, &w);
  g_assert_cmpstr (out->str, ==, "{\"step\": 2, \"bins\": [{\"turns\": 1}, {\"turns\": 4}]}");
  g_assert_nonnull (rt_table_get_table (t, 0, 1));
}

static void
test_help_lists_every_column (void)
{
  g_autoptr (GString) help = g_string_new (NULL);
  rt_table_spec_describe (&spec, help, 2);
  g_assert_nonnull (strstr (help->str, "demo: one per thing"));
  g_assert_nonnull (strstr (help->str, "total"));
  g_assert_nonnull (strstr (help->str, "TSV column total_s"));
  g_assert_nonnull (strstr (help->str, "pct.EACH"));
  g_assert_nonnull (strstr (help->str, "requests"));
  g_assert_nonnull (strstr (help->str, "[JSON only]"));
}


/* ---- CSV ---- */

static void
test_csv_has_tsv_columns_nulls_empty (void)
{
  g_autoptr (RtTable) t = demo_table ();
  g_autoptr (GString) csv = rt_table_csv (t);
  /* the TSV's columns and header names; null, NaN and infinity are empty fields; the
   * newline of the text keeps the field quoted, the tab stays as read */
  g_assert_cmpstr (csv->str, ==,
                   "step,total_s,name,a,b,outlier,plot_only\n"
                   "3,1.5,\"tab\there\nnew\",25.0,,1,0.25\n"
                   "10,,,0.1,99.9,0,\n");
}

static const RtTableSpec parted_spec = {
  "parted", "one per thing",
  (const RtColumn[]) {
    { RT_COL ("step", RT_COLUMN_INT, NULL, "the step") },
    { RT_COL ("n", RT_COLUMN_NUMBER, "s", "a number") },
    { RT_COL ("ok", RT_COLUMN_BOOL, NULL, "a flag") },
    { RT_COL ("id", RT_COLUMN_TEXT, NULL, "a text") },
    RT_COLUMNS_END,
  },
};

/* A column left out (a partitioned export's step) is in neither the CSV nor its schemas but
 * as the partition of the folders, and still in JSON; Spark's booleans are INT. */
static void
test_csv_left_out_column_is_the_partition (void)
{
  g_autoptr (RtTable) t = rt_table_new (&parted_spec);
  rt_table_leave_out (t, "step");
  rt_table_int (t, 3);
  rt_table_number (t, 1.5);
  rt_table_bool (t, TRUE);
  rt_table_text (t, "a");
  g_autoptr (GString) csv = rt_table_csv (t);
  g_assert_cmpstr (csv->str, ==, "n,ok,id\n1.5,1,a\n");
  g_autoptr (GString) json = g_string_new (NULL);
  RtJsonWriter w;
  rt_jw_init (&w, json);
  rt_table_write_json (t, &w);
  g_assert_nonnull (strstr (json->str, "\"step\": 3"));

  g_autoptr (GString) spark = g_string_new (NULL);
  rt_table_csv_schema (t, RT_CSV_SCHEMA_SPARK, "x", "step", spark);
  g_assert_cmpstr (spark->str, ==, "n DOUBLE, ok INT, id STRING, step BIGINT\n");
  g_autoptr (GString) pandas = g_string_new (NULL);
  rt_table_csv_schema (t, RT_CSV_SCHEMA_PANDAS, "x", "step", pandas);
  g_assert_cmpstr (pandas->str, ==, "{\"n\": \"float64\", \"ok\": \"boolean\", \"id\": \"string\"}\n");
  g_autoptr (GString) duckdb = g_string_new (NULL);
  rt_table_csv_schema (t, RT_CSV_SCHEMA_DUCKDB, "d/t/*/*.csv.gz", "step", duckdb);
  g_assert_cmpstr (duckdb->str, ==,
                   "read_csv('d/t/*/*.csv.gz', header = true, delim = ',', quote = '\"', escape = '\"',\n"
                   "  allow_quoted_nulls = false, hive_partitioning = true, hive_types = {'step': 'BIGINT'},\n"
                   "  columns = {\n    'n': 'DOUBLE',\n    'ok': 'BOOLEAN',\n    'id': 'VARCHAR'})\n");
}

static const RtTableSpec text_spec = {
  "texts", "one per text",
  (const RtColumn[]) {
    { RT_COL ("id", RT_COLUMN_TEXT, NULL, "a text") },
    { RT_COL ("n", RT_COLUMN_NUMBER, "s", "a number") },
    RT_COLUMNS_END,
  },
};

/* A reader of RFC 4180 as a user's tool reads it: the fields of each record. */
static GPtrArray *
csv_parse (const char *s)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  GPtrArray *row = g_ptr_array_new_with_free_func (g_free);
  GString *field = g_string_new (NULL);
  gboolean quoted = FALSE;
  for (const char *p = s; *p != '\0'; p++)
    {
      if (quoted)
        {
          if (*p == '"' && p[1] == '"')
            g_string_append_c (field, *p++);
          else if (*p == '"')
            quoted = FALSE;
          else
            g_string_append_c (field, *p);
          continue;
        }
      if (*p == '"')
        quoted = TRUE;
      else if (*p == ',' || *p == '\n')
        {
          g_ptr_array_add (row, g_strdup (field->str));
          g_string_truncate (field, 0);
          if (*p == '\n')
            {
              g_ptr_array_add (rows, row);
              row = g_ptr_array_new_with_free_func (g_free);
            }
        }
      else
        g_string_append_c (field, *p);
    }
  g_assert_false (quoted);
  g_assert_cmpuint (row->len, ==, 0);   /* the last record ends with its newline */
  g_ptr_array_unref (row);
  g_string_free (field, TRUE);
  return rows;
}

static void
test_csv_quotes_only_what_needs_it (void)
{
  g_autoptr (RtTable) t = rt_table_new (&text_spec);
  const char *texts[] = { "plain id", "a,b", "say \"hi\"", "cr\rhere", "", " spaced ", "=1+2" };
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      rt_table_text (t, texts[i]);
      rt_table_int (t, i);
    }
  g_autoptr (GString) csv = rt_table_csv (t);
  g_assert_cmpstr (csv->str, ==,
                   "id,n\n"
                   "plain id,0.0\n"
                   "\"a,b\",1.0\n"
                   "\"say \"\"hi\"\"\",2.0\n"
                   "\"cr\rhere\",3.0\n"
                   "\"\",4.0\n"          /* an empty text is not an unknown one */
                   " spaced ,5.0\n"
                   "=1+2,6.0\n");
}

static void
test_csv_hostile_text_stays_in_its_field (void)
{
  const char *hostile[] = { "id,with,commas", "\"", "\"\"\n\"", "line\nbreak\r\n,\"x\"", "\n", ",", "a\"b,c\rd" };
  g_autoptr (RtTable) t = rt_table_new (&text_spec);
  for (guint i = 0; i < G_N_ELEMENTS (hostile); i++)
    {
      rt_table_text (t, hostile[i]);
      rt_table_number (t, 0.5 + i);
    }
  g_autoptr (GString) csv = rt_table_csv (t);
  g_autoptr (GPtrArray) rows = csv_parse (csv->str);
  g_assert_cmpuint (rows->len, ==, 1 + G_N_ELEMENTS (hostile));
  for (guint i = 0; i < G_N_ELEMENTS (hostile); i++)
    {
      GPtrArray *row = g_ptr_array_index (rows, i + 1);
      g_assert_cmpuint (row->len, ==, 2);
      g_assert_cmpstr (g_ptr_array_index (row, 0), ==, hostile[i]);
      g_assert_cmpfloat (g_ascii_strtod (g_ptr_array_index (row, 1), NULL), ==, 0.5 + i);
    }
}

static void
test_csv_replaces_invalid_utf8 (void)
{
  g_autoptr (RtTable) t = rt_table_new (&text_spec);
  rt_table_text (t, "bad\xff,\xfe");
  rt_table_null (t);
  g_autoptr (GString) csv = rt_table_csv (t);
  g_assert_cmpstr (csv->str, ==, "id,n\n\"bad\xEF\xBF\xBD,\xEF\xBF\xBD\",\n");
  g_assert_true (g_utf8_validate (csv->str, -1, NULL));
}

static void
test_csv_numbers_read_back_exactly (void)
{
  const double values[] = { 0.1, 1.0 / 3, 1e-7, 123456.789012, -2.5, 1e300, 0 };
  g_autoptr (RtTable) t = rt_table_new (&text_spec);
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      rt_table_text (t, "x");
      rt_table_number (t, values[i]);
    }
  g_autoptr (GString) csv = rt_table_csv (t);
  g_autoptr (GPtrArray) rows = csv_parse (csv->str);
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      const char *text = g_ptr_array_index ((GPtrArray *) g_ptr_array_index (rows, i + 1), 1);
      g_assert_cmpfloat (g_ascii_strtod (text, NULL), ==, values[i]);
    }
}

static const RtTableSpec numbers_spec = {
  "numbers", "one per number",
  (const RtColumn[]) {
    { RT_COL ("x", RT_COLUMN_NUMBER, "s", "a number") },
    { RT_COL ("n", RT_COLUMN_INT, NULL, "a whole number") },
    RT_COLUMNS_END,
  },
};

/* The CSV writes numbers by a faster way for whole microseconds: its text must be the TSV's
 * (rt_format_double) for those, for values near its limits, and for any other double. */
static void
test_csv_numbers_as_in_the_tsv (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (12);
  g_autoptr (RtTable) t = rt_table_new (&numbers_spec);
  const double edges[] = { 0, -0.0, 1e-4, 9.9e-5, 1.5e-4, -1e-4, 1e9, 999999999.999999, -999999999.999999,
                           0.000001, 0.1, -0.5, 5, -3.5, 1.0 / 3, 12.345678000000001, 1e15, 2.5e-7 };
  for (guint i = 0; i < G_N_ELEMENTS (edges); i++)
    {
      rt_table_number (t, edges[i]);
      rt_table_int (t, (gint64) i - 9);
    }
  for (guint i = 0; i < 200000; i++)
    {
      /* whole microseconds of every size, their neighbours, and doubles of any kind */
      gint64 k = g_rand_int_range (rand, -1000000, 1000000) * (gint64) g_rand_int_range (rand, 1, 1000000);
      double v = (i % 3 == 0) ? k / 1e6 : (i % 3 == 1) ? nextafter (k / 1e6, INFINITY)
                 : g_rand_double_range (rand, -1e4, 1e4) * pow (10, g_rand_int_range (rand, -8, 8));
      rt_table_number (t, v);
      rt_table_int (t, k);
    }
  g_autoptr (GString) csv = rt_table_csv (t);
  g_autoptr (GString) tsv = rt_table_tsv (t);
  g_strdelimit (tsv->str, "\t", ',');
  g_assert_cmpstr (csv->str, ==, tsv->str);
}

static void
test_csv_in_batches_equals_whole (void)
{
  g_autoptr (RtTable) whole = demo_table ();
  g_autoptr (GString) expected = rt_table_csv (whole);
  /* the same rows, the table emptied after each: a stream of batches */
  g_autoptr (RtTable) t = demo_table ();
  g_autoptr (GString) csv = g_string_new (NULL);
  rt_table_csv_append (t, csv, TRUE);
  rt_table_clear_rows (t);
  g_assert_cmpuint (rt_table_n_rows (t), ==, 0);
  g_assert_cmpuint (rt_table_n_columns (t), ==, 8);
  rt_table_csv_append (t, csv, FALSE);   /* no row: nothing */
  g_autoptr (RtTable) again = demo_table ();
  rt_table_csv_append (again, csv, FALSE);
  g_autoptr (GString) twice = g_string_new (expected->str);
  g_string_append (twice, strchr (expected->str, '\n') + 1);
  g_assert_cmpstr (csv->str, ==, twice->str);
}

static const RtTableSpec repeats_spec = {
  "repeats", "one per piece",
  (const RtColumn[]) {
    { RT_COL ("lane", RT_COLUMN_INT, NULL, "a lane") },
    { RT_COL ("id", RT_COLUMN_TEXT, NULL, "an id, repeated on the rows of one request") },
    { RT_COL ("start", RT_COLUMN_NUMBER, "s", "where one piece begins") },
    { RT_COL ("end", RT_COLUMN_NUMBER, "s", "where it ends, the next one's start") },
    RT_COLUMNS_END,
  },
};

/* A TSV written in batches of rows (append, clear, and again) is the TSV of the whole table,
 * byte for byte: the texts and numbers the rows repeat across a batch's edge included, for
 * batches of every size from 1 to 9 rows. */
static void
test_tsv_in_batches_equals_whole (void)
{
  static const char *const ids[] = { "a", "a", "tab\there", NULL, "b", "b", "b", "" };
  static const double values[] = { 0.0, -0.0, 1.5, 0.1 + 0.2, 0.1 + 0.2, 1e-7, 12345.678901, NAN };
  g_autoptr (RtTable) whole = rt_table_new (&repeats_spec);
  for (guint r = 0; r < 40; r++)
    {
      rt_table_int (whole, (gint64) r * 37 - 100);
      rt_table_text (whole, ids[r % G_N_ELEMENTS (ids)]);
      rt_table_number (whole, values[r % G_N_ELEMENTS (values)]);
      rt_table_number (whole, values[(r + 1) % G_N_ELEMENTS (values)]);
    }
  g_autoptr (GString) expected = rt_table_tsv (whole);
  for (guint batch = 1; batch <= 9; batch++)
    {
      g_autoptr (RtTable) t = rt_table_new (&repeats_spec);
      g_autoptr (GString) tsv = g_string_new (NULL);
      rt_table_tsv_append (t, tsv, TRUE);
      for (guint r = 0; r < 40; r++)
        {
          rt_table_int (t, (gint64) r * 37 - 100);
          rt_table_text (t, ids[r % G_N_ELEMENTS (ids)]);
          rt_table_number (t, values[r % G_N_ELEMENTS (values)]);
          rt_table_number (t, values[(r + 1) % G_N_ELEMENTS (values)]);
          if ((r + 1) % batch == 0 || r == 39)
            {
              rt_table_tsv_append (t, tsv, FALSE);
              rt_table_clear_rows (t);
            }
        }
      g_assert_cmpstr (tsv->str, ==, expected->str);
    }
}

/* A TSV's integers as printf writes them, those below 1000 (most of a plot's) by a short
 * way of their own: each from -20 to 1100 and the powers of ten around, in a row of one
 * cell and beside others. */
static void
test_tsv_integers_as_printf_writes_them (void)
{
  g_autoptr (RtTable) t = rt_table_new (&repeats_spec);
  g_autoptr (GString) want = g_string_new ("lane\tid\tstart\tend\n");
  static const gint64 far[] = { 9999, 10000, 99999, 100000, 1000000007, -999, -1000, G_MAXINT64, G_MININT64 };
  for (gint64 v = -20; v < 1100 + (gint64) G_N_ELEMENTS (far); v++)
    {
      gint64 x = v < 1100 ? v : far[v - 1100];
      rt_table_int (t, x);
      rt_table_text (t, "r");
      rt_table_number (t, 0.5);
      rt_table_int (t, x);   /* into a number column: written as the double it is */
      g_string_append_printf (want, "%" G_GINT64_FORMAT "\tr\t0.5\t", x);
      rt_format_double (want, (double) x);
      g_string_append_c (want, '\n');
    }
  g_autoptr (GString) tsv = rt_table_tsv (t);
  g_assert_cmpstr (tsv->str, ==, want->str);
  g_assert_cmpuint (tsv->len, ==, strlen (tsv->str));
}

/* Rows that repeat their texts and numbers (as a plot's pieces do) give each cell as if it
 * were alone: a text kept once for the row below still reads back and is escaped in each
 * row; a number written from the memo of recent ones is the text rt_format_double gives
 * it, 0 and -0 apart, each whole number its digits; a text borrowed rather than copied
 * (the same pointer row after row, written once and copied from the TSV) likewise. */
static void
test_repeated_cells_as_alone (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  g_autoptr (RtTable) t = rt_table_new (&repeats_spec);
  g_autoptr (RtTable) borrowed = rt_table_new (&repeats_spec);   /* the same rows, its texts not copied */
  g_autoptr (GString) want = g_string_new ("lane\tid\tstart\tend\n");
  const char *ids[] = { "a", "a", "tab\there", "tab\there", NULL, "a", "", "" };
  const double values[] = { 0.0, -0.0, 1.5, 0.1 + 0.2, 0.3, 1e-7, 12345.678901, -2.5 };
  double start = values[0];
  for (guint r = 0; r < 4000; r++)
    {
      gint64 lane = g_rand_int_range (rand, -12, 12);
      const char *id = ids[g_rand_int_range (rand, 0, G_N_ELEMENTS (ids))];
      double end = values[g_rand_int_range (rand, 0, G_N_ELEMENTS (values))];
      rt_table_int (t, lane);
      rt_table_text (t, id);
      rt_table_number (t, start);
      rt_table_number (t, end);
      rt_table_int (borrowed, lane);
      rt_table_text_borrowed (borrowed, id);
      rt_table_number (borrowed, start);
      rt_table_number (borrowed, end);
      g_string_append_printf (want, "%" G_GINT64_FORMAT "\t", lane);
      if (id != NULL)
        rt_tsv_append_text (want, id);
      else
        g_string_append (want, "NaN");
      g_string_append_c (want, '\t');
      rt_format_double (want, start);
      g_string_append_c (want, '\t');
      rt_format_double (want, end);
      g_string_append_c (want, '\n');
      g_assert_cmpstr (rt_table_get_text (t, r, 1), ==, id);
      start = end;
    }
  g_autoptr (GString) tsv = rt_table_tsv (t);
  g_auto (GStrv) got_lines = g_strsplit (tsv->str, "\n", -1), want_lines = g_strsplit (want->str, "\n", -1);
  g_assert_cmpuint (g_strv_length (got_lines), ==, g_strv_length (want_lines));
  for (guint i = 0; want_lines[i] != NULL; i++)
    g_assert_cmpstr (got_lines[i], ==, want_lines[i]);
  g_autoptr (GString) borrowed_tsv = rt_table_tsv (borrowed);
  g_assert_cmpstr (borrowed_tsv->str, ==, want->str);
}

static const RtTableSpec writer_spec = {
  "written", "one per row",
  (const RtColumn[]) {
    { RT_COL ("hidden", RT_COLUMN_INT, NULL, "JSON only, before the first TSV column"), .flags = RT_COLUMN_JSON_ONLY },
    { RT_COL ("lane", RT_COLUMN_INT, NULL, "an integer") },
    { RT_COL ("id", RT_COLUMN_TEXT, NULL, "a text") },
    { RT_COL ("count", RT_COLUMN_NUMBER, NULL, "a number given as an integer") },
    { RT_COL ("more", RT_COLUMN_TEXT, NULL, "JSON only, between"), .flags = RT_COLUMN_JSON_ONLY },
    { RT_COL ("end", RT_COLUMN_NUMBER, "s", "a number") },
    RT_COLUMNS_END,
  },
};

/* A TSV written row by row as it is made (RtTsvWriter) is the table's TSV of the same rows:
 * JSON-only columns left out wherever they stand, integers of every size, an integer in a
 * column of numbers written as a number, nulls, numbers that are not finite, and texts that
 * come back by address among more than the writer keeps (some the same text at another
 * address, one with a tab); integers given a few at once too. */
static void
test_tsv_writer_as_the_table (void)
{
  static const char a_copy[] = "a";
  const char *ids[] = { "a", a_copy, "tab\there", NULL, "b", "c", "d", "e", "", "b", "f", "g", "h", "i" };
  const double values[] = { 0.0, -0.0, 1.5, 0.1 + 0.2, NAN, INFINITY, -INFINITY, 1e300, 12345.0, -2.5, 1e-7 };
  const gint64 ints[] = { 0, 7, 999, 1000, -1, -1000, G_MAXINT64, G_MININT64, 123456789 };
  g_autoptr (GRand) rand = g_rand_new_with_seed (11);
  g_autoptr (RtTable) t = rt_table_new (&writer_spec);
  g_autoptr (GString) got = g_string_new ("before\n");
  g_autoptr (RtTsvWriter) w = rt_tsv_writer_new (t, got, TRUE);
  for (guint r = 0; r < 3000; r++)
    {
      gint64 hidden = ints[g_rand_int_range (rand, 0, G_N_ELEMENTS (ints))];
      gint64 lane = g_rand_boolean (rand) ? g_rand_int_range (rand, -20, 1100)
                                          : ints[g_rand_int_range (rand, 0, G_N_ELEMENTS (ints))];
      const char *id = ids[g_rand_int_range (rand, 0, G_N_ELEMENTS (ids))];
      gint64 count = ints[g_rand_int_range (rand, 0, 6)];
      const char *more = ids[g_rand_int_range (rand, 0, G_N_ELEMENTS (ids))];
      double end = values[g_rand_int_range (rand, 0, G_N_ELEMENTS (values))];
      if (r % 2 == 1)
        {
          /* two at once, the first left out */
          hidden = g_rand_int_range (rand, 0, 2000);
          lane = g_rand_int_range (rand, 0, 2000);
          guint both[] = { (guint) hidden, (guint) lane };
          rt_tsv_writer_uints (w, both, 2);
        }
      else
        {
          rt_tsv_writer_int (w, hidden);
          rt_tsv_writer_int (w, lane);
        }
      rt_tsv_writer_text (w, id);
      rt_tsv_writer_int (w, count);
      rt_tsv_writer_text (w, more);
      rt_tsv_writer_number (w, end);
      rt_table_int (t, hidden);
      rt_table_int (t, lane);
      rt_table_text_borrowed (t, id);
      rt_table_int (t, count);
      rt_table_text_borrowed (t, more);
      rt_table_number (t, end);
    }
  g_autoptr (GString) want = g_string_new ("before\n");
  rt_table_tsv_append (t, want, TRUE);
  g_assert_cmpstr (got->str, ==, want->str);
  g_assert_true (strstr (want->str, "\tNaN\t") != NULL && strstr (want->str, "9223372036854775807") != NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/table/tsv-has-tsv-columns-in-order", test_tsv_has_tsv_columns_in_order);
  g_test_add_func ("/table/json-has-json-keys-and-groups", test_json_has_json_keys_and_groups);
  g_test_add_func ("/table/cells-read-back", test_cells_read_back);
  g_test_add_func ("/table/nested-table-is-json-only", test_nested_table_is_json_only);
  g_test_add_func ("/table/help-lists-every-column", test_help_lists_every_column);
  g_test_add_func ("/table/csv-has-tsv-columns-nulls-empty", test_csv_has_tsv_columns_nulls_empty);
  g_test_add_func ("/table/csv-left-out-column-is-the-partition", test_csv_left_out_column_is_the_partition);
  g_test_add_func ("/table/csv-quotes-only-what-needs-it", test_csv_quotes_only_what_needs_it);
  g_test_add_func ("/table/csv-hostile-text-stays-in-its-field", test_csv_hostile_text_stays_in_its_field);
  g_test_add_func ("/table/csv-replaces-invalid-utf8", test_csv_replaces_invalid_utf8);
  g_test_add_func ("/table/csv-numbers-read-back-exactly", test_csv_numbers_read_back_exactly);
  g_test_add_func ("/table/csv-numbers-as-in-the-tsv", test_csv_numbers_as_in_the_tsv);
  g_test_add_func ("/table/csv-in-batches-equals-whole", test_csv_in_batches_equals_whole);
  g_test_add_func ("/table/repeated-cells-as-alone", test_repeated_cells_as_alone);
  g_test_add_func ("/table/tsv-integers-as-printf-writes-them", test_tsv_integers_as_printf_writes_them);
  g_test_add_func ("/table/tsv-in-batches-equals-whole", test_tsv_in_batches_equals_whole);
  g_test_add_func ("/table/tsv-writer-as-the-table", test_tsv_writer_as_the_table);
  return g_test_run ();
}
