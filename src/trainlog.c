/* SPDX-License-Identifier: Apache-2.0 */
/* trainlog.c: reads the trainer's console log, keeping only its `step:N - name:value` lines.
 * Everything else a real log holds (Ray prefixes, colours, progress bars, tracebacks) is skipped. */
#define _GNU_SOURCE   /* memmem: glibc's is many times faster than a naive search */
#include "rolltrace/rt-trainlog.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-text.h"
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

static void
cut_clear (gpointer data)
{
  g_free (((RtTrainCut *) data)->text);
}

RtTrainLog *
rt_train_log_new (void)
{
  RtTrainLog *log = g_new0 (RtTrainLog, 1);
  log->metrics = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, metric_free);
  log->steps = g_array_new (FALSE, FALSE, sizeof (gint32));
  log->cuts = g_array_new (FALSE, FALSE, sizeof (RtTrainCut));
  g_array_set_clear_func (log->cuts, cut_clear);
  log->open_item = g_string_new (NULL);
  return log;
}

void
rt_train_log_free (RtTrainLog *log)
{
  if (log == NULL)
    return;
  g_hash_table_unref (log->metrics);
  g_array_unref (log->steps);
  g_array_unref (log->cuts);
  g_string_free (log->open_item, TRUE);
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

/* A step of a metric line: listed once it has a value. */
static void
list_step (RtTrainLog *log, gint32 step)
{
  g_array_append_val (log->steps, step);
  if (log->steps->len >= 2 * log->steps_settled + FOLD_SLACK)
    settle_steps (log);
  log->metric_lines++;
}

/* Records the item [item, end) for `step` when it reads as name:value; TRUE when it did.
 * The name ends at the first ':' (names hold '/', not ':'). */
static gboolean
record_item (RtTrainLog *log, gint32 step, const char *item, const char *end)
{
  const char *colon = memchr (item, ':', (gsize) (end - item));
  double v;
  if (colon == NULL || colon == item || !rt_parse_metric_value (colon + 1, (gsize) (end - colon - 1), &v))
    return FALSE;
  record (log, step, item, (gsize) (colon - item), v);
  return TRUE;
}

/* Records the items of [p, end), separated by " - ", for `step`: how many read as values.
 * `last` is set to where the last item begins. */
static guint
record_items (RtTrainLog *log, gint32 step, const char *p, const char *end, const char **last)
{
  guint pairs = 0;
  for (;;)
    {
      const char *sep = memmem (p, (gsize) (end - p), " - ", 3);
      pairs += record_item (log, step, p, sep ? sep : end);
      if (sep == NULL)
        break;
      p = sep + 3;
    }
  *last = p;
  return pairs;
}

/* Moves *end back over trailing blanks; TRUE when the text then ends with a separator that
 * the end of the line cut short (" -"), which is left out too. */
static gboolean
trim_separator (const char *p, const char **end)
{
  const char *e = *end;
  while (e > p && g_ascii_isspace (e[-1]))
    e--;
  gboolean separator = e - p >= 2 && e[-1] == '-' && e[-2] == ' ';
  if (separator)
    for (e -= 2; e > p && g_ascii_isspace (e[-1]);)
      e--;
  *end = e;
  return separator;
}

/* The step line is open to a continuation: its step, and its last item (empty after a
 * separator). An item too long to be a metric closes it. */
static void
open_item (RtTrainLog *log, const char *item, const char *end, gboolean after_separator)
{
  g_string_truncate (log->open_item, 0);
  if (!after_separator)
    g_string_append_len (log->open_item, item, end - item);
  log->open = log->open_item->len <= RT_TRAIN_MAX_ITEM;
}

/* Where the pairs of a step line begin ("step:N", after an optional "(Actor pid=N)" prefix),
 * with its step; NULL when [p, end) is no step line. */
static const char *
step_start (const char *p, const char *end, gint32 *step)
{
  while (p < end && g_ascii_isspace (*p))
    p++;
  if (p < end && *p == '(')
    {
      const char *close = memchr (p, ')', (gsize) (end - p));
      if (close == NULL)
        return NULL;
      p = close + 1;
      while (p < end && g_ascii_isspace (*p))
        p++;
    }
  if (end - p < 6 || strncmp (p, "step:", 5) != 0)
    return NULL;
  p += 5;
  gint64 n = 0;
  const char *digits = p;
  while (p < end && g_ascii_isdigit (*p) && n < G_MAXINT32 / 10)
    n = n * 10 + (*p++ - '0');
  if (p == digits || (p < end && *p != ' '))
    return NULL;
  *step = (gint32) n;
  return p;
}

/* One piece of a line (between carriage returns): "step:N - a:1 - b:2" after an
 * optional "(Actor pid=N)" prefix. The last piece of a line, when it is a step line with an
 * item or a separator, is left open: the next line may continue it. */
static gboolean
feed_piece (RtTrainLog *log, const char *p, const char *end, gboolean last_piece)
{
  gint32 step;
  if ((p = step_start (p, end, &step)) == NULL)
    return FALSE;

  /* the pairs: " - name:value" until the end of the piece (a separator there is the line's
   * break, before an item the next line holds) */
  gboolean after_separator = trim_separator (p, &end);
  const char *first = memmem (p, (gsize) (end - p), " - ", 3);
  const char *last = end;
  guint pairs = first != NULL ? record_items (log, step, first + 3, end, &last) : 0;
  if (last_piece && (first != NULL || after_separator))
    {
      log->open_step = step;
      log->open_listed = pairs > 0;
      open_item (log, last, end, after_separator);
    }
  if (pairs == 0)
    return FALSE;
  list_step (log, step);
  return TRUE;
}

/* Whether [p, end) reads as the rest of a step line: items separated by " - ", none empty or
 * holding a blank, those between two separators name:value. The first and the last may be
 * pieces of a name or a value that the breaks cut. */
static gboolean
continuation_shape (const char *p, const char *end)
{
  if (p == end)
    return TRUE;
  for (gboolean first = TRUE;; first = FALSE)
    {
      const char *sep = memmem (p, (gsize) (end - p), " - ", 3);
      const char *item_end = sep ? sep : end;
      if (item_end == p)
        return FALSE;
      for (const char *c = p; c < item_end; c++)
        if (g_ascii_isspace (*c))
          return FALSE;
      if (!first && sep != NULL && memchr (p, ':', (gsize) (item_end - p)) == NULL)
        return FALSE;
      if (sep == NULL)
        return TRUE;
      p = sep + 3;
    }
}

static void
note_cut (RtTrainLog *log, gboolean kept)
{
  log->cut_lines++;
  if (log->cuts->len >= RT_TRAIN_MAX_CUTS)
    return;
  RtTrainCut cut = {
    .line = log->lines, .step = log->open_step, .kept = kept,
    .text = g_strndup (log->open_item->str, MIN (log->open_item->len, 160)),
  };
  g_array_append_val (log->cuts, cut);
}

/* A line (ANSI codes gone) after an open step line: when it only continues it, its items are
 * the step's, the first joined to the step line's last item unless a separator stands between
 * them (at the end of the one, or the start of the other). TRUE when it was joined. */
static gboolean
continue_step_line (RtTrainLog *log, const char *p, const char *end)
{
  if (memchr (p, '\r', (gsize) (end - p)) != NULL)
    return FALSE;
  while (p < end && g_ascii_isspace (*p))
    p++;
  gboolean after_separator = p < end && *p == '-' && (end - p == 1 || p[1] == ' ');
  if (after_separator)
    while (++p < end && g_ascii_isspace (*p))
      ;
  gboolean before_separator = trim_separator (p, &end);
  if ((p == end && !after_separator && !before_separator) || !continuation_shape (p, end))
    return FALSE;
  const char *sep = memmem (p, (gsize) (end - p), " - ", 3);
  const char *first_end = sep ? sep : end;
  gboolean cut = !after_separator && log->open_item->len > 0 && p < end;
  if (cut && log->open_item->len + (gsize) (first_end - p) > RT_TRAIN_MAX_ITEM)
    return FALSE;

  log->joined_lines++;
  guint pairs = 0;
  if (cut)
    {
      /* the pieces joined as they stand: a break that took no character leaves them right */
      g_string_append_len (log->open_item, p, first_end - p);
      gboolean kept = record_item (log, log->open_step, log->open_item->str,
                                   log->open_item->str + log->open_item->len);
      pairs += kept;
      note_cut (log, kept);
    }
  if (!cut || sep != NULL)
    {
      const char *last = p;
      pairs += record_items (log, log->open_step, cut ? sep + 3 : p, end, &last);
      open_item (log, last, end, FALSE);
    }
  if (before_separator)
    open_item (log, end, end, TRUE);
  if (pairs > 0 && !log->open_listed)
    {
      list_step (log, log->open_step);
      log->open_listed = TRUE;
    }
  return TRUE;
}

gboolean
rt_train_log_feed_line (RtTrainLog *log, const char *line, gsize len)
{
  log->lines++;
  /* cheap test first: most lines of a console log are no metric line */
  gboolean has_step = memmem (line, len, "step:", 5) != NULL;
  if (!has_step && !log->open)
    return FALSE;
  g_autoptr (GString) clean = g_string_sized_new (len);
  strip_ansi (line, len, clean);
  /* a continuation holds no step line ("timing_s/step:90" is a metric of one) */
  gint32 step;
  if (log->open && step_start (clean->str, clean->str + clean->len, &step) == NULL)
    {
      log->open = continue_step_line (log, clean->str, clean->str + clean->len) && log->open;
      if (log->open || !has_step)
        return FALSE;
    }
  log->open = FALSE;
  if (!has_step)
    return FALSE;
  gboolean any = FALSE;
  const char *p = clean->str, *end = clean->str + clean->len;
  while (p <= end)
    {
      const char *cr = memchr (p, '\r', (gsize) (end - p));
      const char *piece_end = cr ? cr : end;
      any |= feed_piece (log, p, piece_end, cr == NULL);
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
  if (too_long)
    {
      log->lines++;
      log->open = FALSE;
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

/* The cuts named in the note; the JSON lists up to RT_TRAIN_MAX_CUTS. */
#define CUTS_NAMED 5

char *
rt_train_log_describe_joins (const RtTrainLog *log)
{
  if (log->joined_lines == 0)
    return NULL;
  GString *text = g_string_new (NULL);
  g_string_append_printf (text, "%" G_GUINT64_FORMAT " line%s only continued the step line above (a line broken in "
                          "two when the log was copied) and %s joined to it", log->joined_lines,
                          log->joined_lines == 1 ? "" : "s", log->joined_lines == 1 ? "was" : "were");
  if (log->cut_lines == 0)
    return g_string_free (text, FALSE);
  g_string_append_printf (text, "; %" G_GUINT64_FORMAT " of the breaks cut a metric's name or value, its two pieces "
                          "joined as they stand (check %s in the log):", log->cut_lines,
                          log->cut_lines == 1 ? "it" : "them");
  for (guint i = 0; i < log->cuts->len && i < CUTS_NAMED; i++)
    {
      const RtTrainCut *c = &g_array_index (log->cuts, RtTrainCut, i);
      g_string_append_printf (text, "%s line %" G_GUINT64_FORMAT " (step %d) '", i == 0 ? "" : ";", c->line, c->step);
      rt_tsv_append_text (text, c->text);   /* text of the log: no control character reaches a terminal */
      g_string_append (text, c->kept ? "'" : "', no value: what stood before the break stays as read");
    }
  if (log->cut_lines > CUTS_NAMED)
    g_string_append_printf (text, "; and %" G_GUINT64_FORMAT " more", log->cut_lines - CUTS_NAMED);
  return g_string_free (text, FALSE);
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
