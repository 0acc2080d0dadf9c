/* trainlog.c: reads the trainer's console log, keeping only its `step:N - name:value` lines.
 * Everything else a real log holds (Ray prefixes, colours, progress bars, tracebacks) is skipped. */
#define _GNU_SOURCE   /* memmem: glibc's is many times faster than a naive search */
#include "rolltrace/rt-trainlog.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-trace.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
metric_free (gpointer data)
{
  RtMetric *m = data;
  g_free (m->name);
  g_array_unref (m->points);
  g_free (m);
}

RtTrainLog *
rt_train_log_new (void)
{
  RtTrainLog *log = g_new0 (RtTrainLog, 1);
  log->metrics = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, metric_free);
  log->steps = g_array_new (FALSE, FALSE, sizeof (gint32));
  return log;
}

void
rt_train_log_free (RtTrainLog *log)
{
  if (log == NULL)
    return;
  g_hash_table_unref (log->metrics);
  g_array_unref (log->steps);
  g_free (log);
}

gboolean
rt_parse_metric_value (const char *s, gsize len, double *out)
{
  char buf[64];
  while (len > 0 && g_ascii_isspace (*s))
    s++, len--;
  while (len > 0 && g_ascii_isspace (s[len - 1]))
    len--;
  /* numpy 2 prints scalars as np.float64(0.5), np.int64(3) */
  if (len > 4 && strncmp (s, "np.", 3) == 0)
    {
      const char *open = memchr (s, '(', len);
      if (open == NULL || s[len - 1] != ')')
        return FALSE;
      len = (gsize) (s + len - 1 - (open + 1));
      s = open + 1;
    }
  if (len == 0 || len >= sizeof buf)
    return FALSE;
  memcpy (buf, s, len);
  buf[len] = '\0';
  if (g_ascii_strcasecmp (buf, "nan") == 0 || g_ascii_strcasecmp (buf, "inf") == 0
      || g_ascii_strcasecmp (buf, "-inf") == 0 || g_ascii_strcasecmp (buf, "infinity") == 0
      || g_ascii_strcasecmp (buf, "-infinity") == 0)
    {
      *out = NAN;
      return TRUE;
    }
  char *end;
  double v = g_ascii_strtod (buf, &end);
  if (end == buf || *end != '\0')
    return FALSE;
  *out = isfinite (v) ? v : NAN;
  return TRUE;
}

static int
compare_points (gconstpointer a, gconstpointer b)
{
  const RtMetricPoint *x = a, *y = b;
  if (x->step != y->step)
    return x->step < y->step ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Orders a metric's points by step, keeping only the last value read for a step. */
static void
settle (RtMetric *m)
{
  if (m->settled)
    return;
  g_array_sort (m->points, compare_points);
  guint out = 0;
  for (guint i = 0; i < m->points->len; i++)
    {
      RtMetricPoint *p = &g_array_index (m->points, RtMetricPoint, i);
      if (out > 0 && g_array_index (m->points, RtMetricPoint, out - 1).step == p->step)
        out--;   /* the later value replaces the earlier */
      g_array_index (m->points, RtMetricPoint, out) = *p;
      /* numbered again from 0, so that the points recorded next, numbered from the
       * new length, come after every point kept */
      g_array_index (m->points, RtMetricPoint, out).seq = out;
      out++;
    }
  g_array_set_size (m->points, out);
  m->settled = TRUE;
}

/* A log that repeats steps without end (a restart loop, or a hostile log of one line
 * again and again) must not grow memory with its length: once the points read since the
 * last settling outnumber those kept, the repeats are folded (the later value wins). */
#define FOLD_SLACK 64   /* small: 65536 metrics may each hold this many repeats */

static void
record (RtTrainLog *log, gint32 step, const char *name, gsize name_len, double v)
{
  char buf[256];
  g_autofree char *heap = NULL;
  const char *key = buf;
  if (name_len < sizeof buf)
    {
      memcpy (buf, name, name_len);
      buf[name_len] = '\0';
    }
  else
    key = heap = g_strndup (name, name_len);
  RtMetric *m = g_hash_table_lookup (log->metrics, key);
  if (m == NULL)
    {
      if (g_hash_table_size (log->metrics) >= RT_TRAIN_MAX_METRICS)
        {
          log->dropped_values++;
          return;
        }
      m = g_new0 (RtMetric, 1);
      m->name = g_strdup (key);
      m->points = g_array_new (FALSE, FALSE, sizeof (RtMetricPoint));
      g_hash_table_insert (log->metrics, m->name, m);
    }
  /* kept in reading order; a restart's repeated steps are resolved in settle () */
  RtMetricPoint pt = { step, m->points->len, v };
  g_array_append_val (m->points, pt);
  m->settled = FALSE;
  if (m->points->len >= 2 * m->settled_len + FOLD_SLACK)
    {
      settle (m);
      m->settled_len = m->points->len;
    }
}

/* Copies `line` without ANSI escape sequences ("\x1b[1;32m") into `out`. */
static void
strip_ansi (const char *line, gsize len, GString *out)
{
  g_string_truncate (out, 0);
  for (gsize i = 0; i < len; i++)
    {
      if (line[i] == '\x1b' && i + 1 < len && line[i + 1] == '[')
        {
          i += 2;
          while (i < len && !(line[i] >= '@' && line[i] <= '~'))
            i++;
          continue;
        }
      g_string_append_c (out, line[i]);
    }
}

/* The steps, each once, in order. */
static void
settle_steps (RtTrainLog *log)
{
  g_array_sort (log->steps, rt_compare_gint32);
  guint out = 0;
  for (guint i = 0; i < log->steps->len; i++)
    if (out == 0 || g_array_index (log->steps, gint32, i) != g_array_index (log->steps, gint32, out - 1))
      g_array_index (log->steps, gint32, out++) = g_array_index (log->steps, gint32, i);
  g_array_set_size (log->steps, out);
  log->steps_settled = out;
}

/* One piece of a line (between carriage returns): "step:N - a:1 - b:2" after an
 * optional "(Actor pid=N)" prefix. */
static gboolean
feed_piece (RtTrainLog *log, const char *p, const char *end)
{
  while (p < end && g_ascii_isspace (*p))
    p++;
  if (p < end && *p == '(')
    {
      const char *close = memchr (p, ')', (gsize) (end - p));
      if (close == NULL)
        return FALSE;
      p = close + 1;
      while (p < end && g_ascii_isspace (*p))
        p++;
    }
  if (end - p < 6 || strncmp (p, "step:", 5) != 0)
    return FALSE;
  p += 5;
  gint64 step = 0;
  const char *digits = p;
  while (p < end && g_ascii_isdigit (*p) && step < G_MAXINT32 / 10)
    step = step * 10 + (*p++ - '0');
  if (p == digits || (p < end && *p != ' '))
    return FALSE;

  /* the pairs: " - name:value" until the end of the piece */
  guint pairs = 0;
  while (p < end)
    {
      const char *sep = memmem (p, (gsize) (end - p), " - ", 3);
      if (sep == NULL)
        break;
      const char *item = sep + 3;
      const char *next = memmem (item, (gsize) (end - item), " - ", 3);
      const char *item_end = next ? next : end;
      /* the name ends at the last ':' before a value: names hold '/', not ':' */
      const char *colon = memchr (item, ':', (gsize) (item_end - item));
      double v;
      if (colon != NULL && colon > item
          && rt_parse_metric_value (colon + 1, (gsize) (item_end - colon - 1), &v))
        {
          record (log, (gint32) step, item, (gsize) (colon - item), v);
          pairs++;
        }
      p = item_end;
    }
  if (pairs == 0)
    return FALSE;
  gint32 s = (gint32) step;
  g_array_append_val (log->steps, s);
  if (log->steps->len >= 2 * log->steps_settled + FOLD_SLACK)
    settle_steps (log);
  log->metric_lines++;
  return TRUE;
}

gboolean
rt_train_log_feed_line (RtTrainLog *log, const char *line, gsize len)
{
  /* cheap test first: most lines of a console log are no metric line */
  if (memmem (line, len, "step:", 5) == NULL)
    return FALSE;
  g_autoptr (GString) clean = g_string_sized_new (len);
  strip_ansi (line, len, clean);
  gboolean any = FALSE;
  const char *p = clean->str, *end = clean->str + clean->len;
  while (p <= end)
    {
      const char *cr = memchr (p, '\r', (gsize) (end - p));
      const char *piece_end = cr ? cr : end;
      any |= feed_piece (log, p, piece_end);
      if (cr == NULL)
        break;
      p = cr + 1;
    }
  return any;
}


/* One line is done: a line longer than the limit was skipped, the others are parsed. */
static void
end_line (RtTrainLog *log, const char *line, gsize len, gboolean too_long)
{
  log->lines++;
  if (too_long)
    {
      if (log->long_lines++ == 0)
        log->first_long_line = log->lines;
    }
  else
    rt_train_log_feed_line (log, line, len);
}

RtTrainLog *
rt_train_log_read (const char *path, GError **error)
{
  return rt_train_log_read_with_limit (path, RT_LINE_MAX, error);
}

RtTrainLog *
rt_train_log_read_with_limit (const char *path, gsize line_max, GError **error)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      int e = errno;
      g_set_error (error, RT_ERROR, e == ENOENT ? RT_ERROR_NO_EXPERIMENT : RT_ERROR_IO,
                   "cannot read the trainer log %s: %s", path, g_strerror (e));
      return NULL;
    }
  g_autoptr (RtTrainLog) log = rt_train_log_new ();
  /* The buffer holds the start of one line at most: it grows up to line_max + 1 bytes,
   * and a line that fills that much without a newline is longer than line_max. */
  const gsize limit = line_max + 1;
  gsize cap = MIN (limit, (gsize) 1 << 20), have = 0;
  g_autofree char *buf = g_malloc (cap);
  gboolean skipping = FALSE;   /* inside a line longer than line_max */
  for (;;)
    {
      if (have == cap)
        {
          if (cap < limit)
            buf = g_realloc (buf, cap = MIN (cap * 2, limit));
          else
            {
              skipping = TRUE;   /* too long to hold: drop it and look for its end */
              have = 0;
            }
        }
      gssize n = read (fd, buf + have, cap - have);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int e = errno;
          close (fd);
          g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot read %s: %s", path, g_strerror (e));
          return NULL;
        }
      if (n == 0)
        break;
      /* the bytes held before this read had no newline: search only the new ones */
      char *line = buf, *scan = buf + have, *end = buf + have + n, *nl;
      if (skipping)
        {
          if ((nl = memchr (scan, '\n', (gsize) (end - scan))) == NULL)
            {
              have = 0;
              continue;
            }
          end_line (log, NULL, 0, TRUE);
          skipping = FALSE;
          line = scan = nl + 1;
        }
      while ((nl = memchr (scan, '\n', (gsize) (end - scan))) != NULL)
        {
          end_line (log, line, (gsize) (nl - line), FALSE);
          line = scan = nl + 1;
        }
      have = (gsize) (end - line);
      memmove (buf, line, have);
    }
  close (fd);
  if (skipping || have > 0)
    end_line (log, buf, have, skipping);

  settle_steps (log);
  return g_steal_pointer (&log);
}

const RtMetric *
rt_train_log_metric (const RtTrainLog *log, const char *name)
{
  return g_hash_table_lookup (log->metrics, name);
}

double
rt_metric_at (const RtMetric *m, gint32 step)
{
  if (m == NULL)
    return NAN;
  settle ((RtMetric *) m);   /* settling only reorders: the metric stays the same */
  guint lo = 0, hi = m->points->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      gint32 s = g_array_index (m->points, RtMetricPoint, mid).step;
      if (s == step)
        return g_array_index (m->points, RtMetricPoint, mid).value;
      if (s < step)
        lo = mid + 1;
      else
        hi = mid;
    }
  return NAN;
}

GArray *
rt_metric_values (const RtMetric *m)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (double));
  /* settled points are one per step, in step order: no lookup per step needed */
  settle ((RtMetric *) m);
  for (guint i = 0; i < m->points->len; i++)
    {
      double v = g_array_index (m->points, RtMetricPoint, i).value;
      if (!isnan (v))
        g_array_append_val (out, v);
    }
  return out;
}

GPtrArray *
rt_train_log_names (const RtTrainLog *log)
{
  GPtrArray *names = g_ptr_array_new ();
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, log->metrics);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_ptr_array_add (names, key);
  g_ptr_array_sort (names, rt_compare_strings);
  return names;
}
