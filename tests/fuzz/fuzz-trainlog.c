/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz-trainlog.c: libFuzzer target for the trainer-log reader: the input is a console log, read
 * by rt_train_log_read from a file, its lines also fed one by one, and every series read back. */
#include <math.h>
#include <string.h>

#include "fuzz-util.h"
#include "rolltrace/rt-trainlog.h"

static char *log_path;

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  rt_fuzz_init ();
  g_autofree char *tmpl = g_build_filename (g_get_tmp_dir (), "rt-fuzz-trainlog-XXXXXX", NULL);
  g_autofree char *dir = rt_fuzz_scratch_dir (tmpl);
  log_path = g_build_filename (dir, "trainer.log", NULL);
  return 0;
}

/* Every series as rt-train and rt-overview read it: names, values by step, values. */
static void
read_back (const RtTrainLog *log)
{
  g_autoptr (GPtrArray) names = rt_train_log_names (log);
  if (names->len != g_hash_table_size (log->metrics))
    rt_fuzz_fail ("%u names for %u metrics", names->len, g_hash_table_size (log->metrics));
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      rt_fuzz_touch_string (name);
      const RtMetric *m = rt_train_log_metric (log, name);
      if (m == NULL)
        rt_fuzz_fail ("metric \"%s\" listed but not found", name);
      g_autoptr (GArray) values = rt_metric_values (m);
      guint finite = 0;
      for (guint k = 0; k < log->steps->len; k++)
        finite += !isnan (rt_metric_at (m, g_array_index (log->steps, gint32, k)));
      /* a metric's finite values are its values at the steps that had a metric line */
      if (finite != values->len)
        rt_fuzz_fail ("metric \"%s\": %u finite values by step, %u in rt_metric_values",
                      name, finite, values->len);
    }
  for (guint k = 1; k < log->steps->len; k++)
    if (g_array_index (log->steps, gint32, k - 1) >= g_array_index (log->steps, gint32, k))
      rt_fuzz_fail ("steps not ascending at %u", k);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  /* 1. the input as a log file, read the way rt-train reads it */
  rt_fuzz_write (log_path, data, size);
  g_autoptr (GError) error = NULL;
  g_autoptr (RtTrainLog) log = rt_train_log_read (log_path, &error);
  if (log == NULL)
    rt_fuzz_fail ("a readable log failed to load: %s", error->message);
  read_back (log);

  /* 2. each line, with exactly its own bytes (a read past its end is reported) */
  g_autoptr (RtTrainLog) fed = rt_train_log_new ();
  const char *p = (const char *) data, *end = p + size;
  while (p < end)
    {
      const char *nl = memchr (p, '\n', (gsize) (end - p));
      gsize len = (gsize) ((nl ? nl : end) - p);
      g_autofree char *line = rt_fuzz_exact_copy (p, len);
      rt_train_log_feed_line (fed, line, len);
      if (nl == NULL)
        break;
      p = nl + 1;
    }
  if (g_hash_table_size (fed->metrics) != g_hash_table_size (log->metrics))
    rt_fuzz_fail ("%u metrics fed line by line, %u read from the file",
                  g_hash_table_size (fed->metrics), g_hash_table_size (log->metrics));

  /* 3. the whole input as one value */
  g_autofree char *exact = rt_fuzz_exact_copy (data, size);
  double v;
  if (rt_parse_metric_value (exact, size, &v) && isinf (v))
    rt_fuzz_fail ("rt_parse_metric_value gave an infinite value (non-finite ones are NAN)");
  return 0;
}
