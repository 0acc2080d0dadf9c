/* SPDX-License-Identifier: Apache-2.0 */
/* test-export.c: rt_export_csv, made on both cores, writes the same text as the rows of
 * rt_export_rows formatted one batch after the other, for every table; a failed write stops it. */
#include "rolltrace/rt-analyses.h"
#include "test-util.h"

/* An experiment big enough that a file's events pass the 1 MB a unit keeps before writing,
 * with more files than units wait ahead of the one being written. */
static char *
synth_experiment (char **dir)
{
  *dir = g_dir_make_tmp ("rt-export-XXXXXX", NULL);
  char *exp = g_build_filename (*dir, "exp", NULL);
  const char *argv[] = { RT_SYNTH, exp, "--steps", "3", "--workers", "4", "--requests", "600", "--seed", "16",
                         "--faults", "--quiet", NULL };
  gint status = 0;
  g_autoptr (GError) error = NULL;
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return exp;
}

/* The reference: rt_export_rows' batches as CSV, the header before the first. */
typedef struct {
  GString *text;
  gboolean header_written;
} Batches;

static gboolean
append_batch (RtTable *rows, gpointer data)
{
  Batches *b = data;
  rt_table_csv_append (rows, b->text, !b->header_written);
  b->header_written = TRUE;
  return TRUE;
}

typedef struct {
  GString *text;
  guint calls;
  guint fail_at;              /* the call that fails (0: none) */
  gint in_write;              /* (atomic) a call is running */
  gboolean overlapped;
  gsize largest;
} Pieces;

static gboolean
append_piece (const char *text, gsize len, gpointer data)
{
  Pieces *p = data;
  if (!g_atomic_int_compare_and_exchange (&p->in_write, 0, 1))
    p->overlapped = TRUE;
  p->calls++;
  gboolean ok = p->fail_at == 0 || p->calls < p->fail_at;
  if (ok)
    g_string_append_len (p->text, text, (gssize) len);
  p->largest = MAX (p->largest, len);
  g_usleep (p->calls % 7 == 0 ? 200 : 0);   /* a slow writer now and then: the other thread runs ahead */
  g_atomic_int_set (&p->in_write, 0);
  return ok;
}

static void
test_csv_as_the_batches_make_it (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *exp = synth_experiment (&dir);
  g_autoptr (RtTrace) t = rt_test_load (exp);
  g_autoptr (RtStepSet) all = NULL;
  g_autoptr (RtStepSet) some = rt_test_steps ("2-3");
  const RtStepSet *sets[] = { all, some };
  for (guint k = 0; k < G_N_ELEMENTS (sets); k++)
    for (int which = 0; which < RT_N_EXPORT_TABLES; which++)
      {
        g_autoptr (GString) expected = g_string_new (NULL);
        Batches b = { .text = expected };
        guint64 expected_rows = 0;
        g_assert_true (rt_export_rows (t, sets[k], which, 333, append_batch, &b, &expected_rows));
        g_autoptr (GString) got = g_string_new (NULL);
        Pieces p = { .text = got };
        guint64 rows = 0;
        g_assert_true (rt_export_csv (t, sets[k], which, append_piece, &p, &rows));
        g_assert_false (p.overlapped);
        g_assert_cmpuint (rows, ==, expected_rows);
        g_assert_cmpuint (got->len, ==, expected->len);
        g_assert_true (memcmp (got->str, expected->str, got->len) == 0);
        if (which == RT_EXPORT_EVENTS && k == 0)
          {
            g_assert_cmpuint (expected->len, >, 12u << 20);   /* the case this test is for */
            g_assert_cmpuint (p.largest, <=, 2u << 20);       /* written as it goes, not whole */
          }
      }
  rt_test_remove_tree (dir);
}

/* A write fails: the export stops and says so, and nothing is written after. */
static void
test_csv_stops_at_a_failed_write (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *exp = synth_experiment (&dir);
  g_autoptr (RtTrace) t = rt_test_load (exp);
  for (guint fail_at = 1; fail_at <= 9; fail_at += 4)
    {
      g_autoptr (GString) got = g_string_new (NULL);
      Pieces p = { .text = got, .fail_at = fail_at };
      guint64 rows = 0;
      g_assert_false (rt_export_csv (t, NULL, RT_EXPORT_EVENTS, append_piece, &p, &rows));
      g_assert_cmpuint (p.calls, ==, fail_at);
      g_assert_false (p.overlapped);
    }
  rt_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/export/csv/as-the-batches-make-it", test_csv_as_the_batches_make_it);
  g_test_add_func ("/export/csv/stops-at-a-failed-write", test_csv_stops_at_a_failed_write);
  return g_test_run ();
}
