/* test-table.c: a table declared once gives its TSV and its JSON from the same rows:
 * headers and keys, JSON-only columns, groups, per-name patterns, nulls, text escaping. */
#include <math.h>
#include <string.h>

#include "rolltrace/rt-table.h"

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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/table/tsv-has-tsv-columns-in-order", test_tsv_has_tsv_columns_in_order);
  g_test_add_func ("/table/json-has-json-keys-and-groups", test_json_has_json_keys_and_groups);
  g_test_add_func ("/table/cells-read-back", test_cells_read_back);
  g_test_add_func ("/table/nested-table-is-json-only", test_nested_table_is_json_only);
  g_test_add_func ("/table/help-lists-every-column", test_help_lists_every_column);
  return g_test_run ();
}
