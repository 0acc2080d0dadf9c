/* SPDX-License-Identifier: Apache-2.0 */
/* test-outstream.c: the writer thread's stream (every byte, in order, whatever the sizes of the
 * writes; its base's errors reported, never lost) and the output file renamed only when whole. */
#include "rolltrace/rt-outfile.h"
#include "rolltrace/rt-outstream.h"

#include <glib/gstdio.h>
#include <string.h>

/* Bytes that tell any two positions apart within a few MB, so that a block written twice,
 * dropped or out of order shows. */
static guint8 *
numbered_bytes (gsize n)
{
  guint8 *b = g_malloc (n);
  for (gsize i = 0; i < n; i++)
    b[i] = (guint8) ((i * 2654435761u) >> 13);
  return b;
}

/* Writes `n` bytes of `data` in pieces of random sizes (empty, a few bytes, more than a block). */
static gboolean
write_in_pieces (GOutputStream *out, const guint8 *data, gsize n, GRand *rand, GError **error)
{
  gsize at = 0;
  while (at < n)
    {
      gsize piece;
      switch (g_rand_int_range (rand, 0, 4))
        {
        case 0: piece = (gsize) g_rand_int_range (rand, 0, 16); break;
        case 1: piece = (gsize) g_rand_int_range (rand, 1, 4096); break;
        case 2: piece = (gsize) g_rand_int_range (rand, 200000, 300000); break;
        default: piece = (gsize) g_rand_int_range (rand, 300000, 1200000); break;
        }
      piece = MIN (piece, n - at);
      if (!g_output_stream_write_all (out, data + at, piece, NULL, NULL, error))
        return FALSE;
      at += piece;
    }
  return TRUE;
}

static void
test_writer_keeps_every_byte_in_order (gconstpointer threaded)
{
  const gsize n = 7 * 1000 * 1000 + 123;
  g_autofree guint8 *data = numbered_bytes (n);
  g_autoptr (GRand) rand = g_rand_new_with_seed (16);
  for (int round = 0; round < 4; round++)
    {
      g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();
      g_autoptr (GOutputStream) w = rt_writer_stream_new_full (mem, GPOINTER_TO_INT (threaded));
      g_autoptr (GError) error = NULL;
      gsize len = round == 0 ? 0 : n >> (round - 1);
      g_assert_true (write_in_pieces (w, data, len, rand, &error));
      g_assert_true (g_output_stream_close (w, NULL, &error));
      g_assert_no_error (error);
      g_assert_true (g_output_stream_is_closed (mem));   /* closing the writer closes its base */
      GMemoryOutputStream *m = G_MEMORY_OUTPUT_STREAM (mem);
      g_assert_cmpuint (g_memory_output_stream_get_data_size (m), ==, len);
      g_assert_true (len == 0 || memcmp (g_memory_output_stream_get_data (m), data, len) == 0);
    }
}

/* A flush returns once the base holds everything written before it. */
static void
test_writer_flush_waits_for_the_thread (gconstpointer threaded)
{
  const gsize n = 3 * 1000 * 1000;
  g_autofree guint8 *data = numbered_bytes (n);
  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();
  g_autoptr (GOutputStream) w = rt_writer_stream_new_full (mem, GPOINTER_TO_INT (threaded));
  g_autoptr (GError) error = NULL;
  GMemoryOutputStream *m = G_MEMORY_OUTPUT_STREAM (mem);
  for (gsize at = 0; at < n; at += n / 3)
    {
      g_assert_true (g_output_stream_write_all (w, data + at, n / 3, NULL, NULL, &error));
      g_assert_true (g_output_stream_flush (w, NULL, &error));
      g_assert_cmpuint (g_memory_output_stream_get_data_size (m), ==, at + n / 3);
    }
  g_assert_no_error (error);
  g_assert_cmpmem (g_memory_output_stream_get_data (m), n, data, n);
}

/* The base fails (a full disk): the failure comes back by a later write or by the close,
 * with the base's message, and the base is closed all the same. */
static void
test_writer_reports_the_base_error (gconstpointer threaded)
{
  const gsize n = 4 * 1000 * 1000;
  g_autofree guint8 *data = numbered_bytes (n);
  static guint8 small[1000];
  g_autoptr (GOutputStream) full = g_memory_output_stream_new (small, sizeof small, NULL, NULL);
  g_autoptr (GOutputStream) w = rt_writer_stream_new_full (full, GPOINTER_TO_INT (threaded));
  g_autoptr (GError) error = NULL;
  gboolean wrote = g_output_stream_write_all (w, data, n, NULL, NULL, &error);
  if (wrote)
    {
      g_assert_no_error (error);
      g_assert_false (g_output_stream_close (w, NULL, &error));
    }
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE);
  g_clear_error (&error);
  /* and every later write or close says so too, however small */
  g_assert_false (g_output_stream_write_all (w, data, 1, NULL, NULL, &error) && g_output_stream_close (w, NULL, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_output_stream_close (w, NULL, NULL);
  g_assert_true (g_output_stream_is_closed (full));
  g_assert_cmpmem (small, sizeof small, data, sizeof small);
}

/* Dropped without a close (the caller failed elsewhere): the thread ends, nothing hangs. */
static void
test_writer_dropped_unclosed (gconstpointer threaded)
{
  g_autofree guint8 *data = numbered_bytes (1000000);
  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();
  GOutputStream *w = rt_writer_stream_new_full (mem, GPOINTER_TO_INT (threaded));
  g_assert_true (g_output_stream_write_all (w, data, 1000000, NULL, NULL, NULL));
  g_object_unref (w);
  g_assert_true (g_output_stream_is_closed (mem));
}

static char *
read_file (const char *path)
{
  char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

static guint
files_in (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;
  while (g_dir_read_name (d) != NULL)
    n++;
  return n;
}

/* The output file appears only when committed, whole; before, and after a failure, the folder
 * holds nothing of it (not even the temporary once freed). */
static void
test_out_stream_renamed_when_whole (void)
{
  g_autofree char *dir = g_dir_make_tmp ("rt-outstream-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "out.csv", NULL);
  g_autoptr (GError) error = NULL;

  RtOutStream *o = rt_out_stream_open (path, FALSE, &error);
  g_assert_no_error (error);
  g_assert_true (g_output_stream_write_all (rt_out_stream_get (o), "a,b\n1,2\n", 8, NULL, NULL, &error));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  guint64 bytes = 0;
  g_assert_true (rt_out_stream_commit (o, &bytes, &error));
  g_assert_no_error (error);
  rt_out_stream_free (o);
  g_assert_cmpuint (bytes, ==, 8);
  g_autofree char *text = read_file (path);
  g_assert_cmpstr (text, ==, "a,b\n1,2\n");
  g_assert_cmpuint (files_in (dir), ==, 1);

  /* not committed: the earlier file stays as it was, the temporary goes */
  o = rt_out_stream_open (path, FALSE, &error);
  g_assert_true (g_output_stream_write_all (rt_out_stream_get (o), "half", 4, NULL, NULL, &error));
  rt_out_stream_free (o);
  g_autofree char *again = read_file (path);
  g_assert_cmpstr (again, ==, "a,b\n1,2\n");
  g_assert_cmpuint (files_in (dir), ==, 1);

  g_unlink (path);
  g_rmdir (dir);
}

/* Committed with keep_same, a file that already holds the very bytes is left as it is (the
 * same inode, so the same time: a dataset exported again keeps its unchanged parts), and one
 * that differs, or none, is replaced. */
static void
test_out_stream_keeps_the_same_file (void)
{
  g_autofree char *dir = g_dir_make_tmp ("rt-outstream-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "part.csv.gz", NULL);
  g_autoptr (GError) error = NULL;
  static const char *const texts[] = { "a,b\n1,2\n", "a,b\n1,2\n", "a,b\n1,3\n" };
  static const gboolean replaced_want[] = { TRUE, FALSE, TRUE };
  GStatBuf before = { 0 };
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      RtOutStream *o = rt_out_stream_open (path, TRUE, &error);
      g_assert_no_error (error);
      g_assert_true (g_output_stream_write_all (rt_out_stream_get (o), texts[i], strlen (texts[i]), NULL, NULL, &error));
      gboolean replaced = !replaced_want[i];
      guint64 bytes = 0;
      g_assert_true (rt_out_stream_commit_changed (o, TRUE, &bytes, &replaced, &error));
      g_assert_no_error (error);
      rt_out_stream_free (o);
      g_assert_cmpint (replaced, ==, replaced_want[i]);
      GStatBuf st;
      g_assert_cmpint (g_stat (path, &st), ==, 0);
      g_assert_cmpuint (bytes, ==, (guint64) st.st_size);
      if (!replaced_want[i])
        g_assert_cmpuint (st.st_ino, ==, before.st_ino);
      else if (i > 0)
        g_assert_cmpuint (st.st_ino, !=, before.st_ino);
      before = st;
      g_assert_cmpuint (files_in (dir), ==, 1);   /* no temporary left */
    }
  g_unlink (path);
  g_rmdir (dir);
}

/* A .gz output is the bytes that GIO's compressor alone makes of the same text: the writer
 * thread adds no flush of its own (a sync-flush block would change the file, not its text). */
static void
test_out_stream_gzip_as_the_compressor_writes_it (void)
{
  const gsize n = 3 * 1000 * 1000;
  g_autofree guint8 *data = numbered_bytes (n);
  for (gsize i = 0; i < n; i++)
    data[i] = (guint8) ('a' + data[i] % 4);   /* something that compresses */
  g_autofree char *dir = g_dir_make_tmp ("rt-outstream-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "out.csv.gz", NULL);
  g_autoptr (GError) error = NULL;
  RtOutStream *o = rt_out_stream_open (path, TRUE, &error);
  g_assert_no_error (error);
  g_assert_true (g_output_stream_write_all (rt_out_stream_get (o), data, n, NULL, NULL, &error));
  g_assert_true (rt_out_stream_commit (o, NULL, &error));
  rt_out_stream_free (o);

  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();
  g_autoptr (GZlibCompressor) z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 1);
  g_autoptr (GOutputStream) gz = g_converter_output_stream_new (mem, G_CONVERTER (z));
  g_assert_true (g_output_stream_write_all (gz, data, n, NULL, NULL, &error));
  g_assert_true (g_output_stream_close (gz, NULL, &error));
  GMemoryOutputStream *m = G_MEMORY_OUTPUT_STREAM (mem);

  g_autofree char *file = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, &file, &len, NULL));
  g_assert_cmpmem (file, len, g_memory_output_stream_get_data (m), g_memory_output_stream_get_data_size (m));
  g_unlink (path);
  g_rmdir (dir);
}

/* Threads naming temporaries and forgetting them at once: each forgets its own name while
 * the others' come and go in the registry (the sanitized build reported a read of a name another
 * thread had just freed, in rt-report's writer threads). */
static gpointer
name_and_forget (gpointer data)
{
  guint id = GPOINTER_TO_UINT (data);
  for (guint k = 0; k < 20000; k++)
    {
      g_autofree char *final = g_strdup_printf ("/nonexistent/rolltrace-test/thread-%u-file-%u.tsv", id, k);
      g_autofree char *tmp = rt_temp_name (final);
      rt_temp_forget (tmp);
    }
  return NULL;
}

static void
test_temp_names_forgotten_from_threads (void)
{
  GThread *threads[4];
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("namer", name_and_forget, GUINT_TO_POINTER (i));
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* each with the writer's thread, and without one (where none could be started) */
  static const struct {
    const char *name;
    GTestDataFunc func;
  } writer_tests[] = {
    { "every-byte-in-order", test_writer_keeps_every_byte_in_order },
    { "flush-waits", test_writer_flush_waits_for_the_thread },
    { "base-error", test_writer_reports_the_base_error },
    { "dropped-unclosed", test_writer_dropped_unclosed },
  };
  for (guint i = 0; i < G_N_ELEMENTS (writer_tests); i++)
    for (int threaded = 1; threaded >= 0; threaded--)
      {
        g_autofree char *path = g_strdup_printf ("/outstream/writer%s/%s", threaded ? "" : "-unthreaded",
                                                 writer_tests[i].name);
        g_test_add_data_func (path, GINT_TO_POINTER (threaded), writer_tests[i].func);
      }
  g_test_add_func ("/outstream/file/renamed-when-whole", test_out_stream_renamed_when_whole);
  g_test_add_func ("/outstream/temp-names-forgotten-from-threads", test_temp_names_forgotten_from_threads);
  g_test_add_func ("/outstream/file/gzip-as-the-compressor-writes-it", test_out_stream_gzip_as_the_compressor_writes_it);
  g_test_add_func ("/outstream/file/keeps-the-same-file", test_out_stream_keeps_the_same_file);
  return g_test_run ();
}
