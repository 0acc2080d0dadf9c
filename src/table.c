/* SPDX-License-Identifier: Apache-2.0 */
/* table.c: result tables, their columns declared once, written as TSV and as JSON from the same rows.
 * Each format owns its escaping (rt_tsv_append_text, the JSON writer), so no caller spells a row twice. */
#include "rolltrace/rt-table.h"
#include "rolltrace/rt-text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  gboolean null;
  union {
    gint64 i;
    double d;
    char *s;
    RtTable *t;
  };
} Cell;

struct _RtTable {
  const RtTableSpec *spec;
  GArray *columns;           /* RtColumn; names of expanded columns live in `names` */
  GPtrArray *names;          /* char*: the names rt_table_expand copied */
  /* The cells, row after row, appended in place: a table of a plot's data takes hundreds
   * of thousands of them, and a call and a copy through GArray for each was a tenth of
   * a cached rt-timeline. */
  Cell *cells;
  gsize n_cells, cells_size;
  guint next;                /* the column of the next cell: n_cells % columns->len, kept */
  GStringChunk *texts;       /* the text cells, in one arena rather than a malloc each */
  int step_column;           /* with a trainer's step map: the "step" column, whose row's
                              * trainer step the last column (train_step) gets; else -1 */
};

/* The trainer's step of a step folder, for every table made after it is set (that has no
 * train_step of its own): one map per
 * process, set by the command layer once it knows the rollouts (rt_table_map_steps). */
static RtTableStepMap step_map;
static gconstpointer step_map_data;

void
rt_table_map_steps (RtTableStepMap map, gconstpointer data)
{
  step_map = map;
  step_map_data = data;
}

static const RtColumn train_step_column = {
  RT_COL ("train_step", RT_COLUMN_INT, NULL, "the trainer's step of the rollout read (--train); null when unknown"),
};

/* Frees the tables among the cells (the texts go with their arena). */
static void
clear_tables (RtTable *t)
{
  guint n_columns = t->columns->len;
  for (guint k = 0; k < n_columns; k++)
    if (g_array_index (t->columns, RtColumn, k).type == RT_COLUMN_TABLE)
      for (gsize i = k; i < t->n_cells; i += n_columns)
        if (!t->cells[i].null)
          rt_table_free (t->cells[i].t);
}

RtTable *
rt_table_new (const RtTableSpec *spec)
{
  RtTable *t = g_new0 (RtTable, 1);
  t->spec = spec;
  t->columns = g_array_new (FALSE, FALSE, sizeof (RtColumn));
  for (const RtColumn *c = spec->columns; c->name != NULL; c++)
    g_array_append_val (t->columns, *c);
  t->step_column = -1;
  int step = rt_table_find (t, "step");
  if (step_map != NULL && step >= 0 && rt_table_find (t, "train_step") < 0
      && !(g_array_index (t->columns, RtColumn, step).flags & RT_COLUMN_TRAINER_STEP)
      && g_array_index (t->columns, RtColumn, step).type == RT_COLUMN_INT
      && g_array_index (t->columns, RtColumn, step).group == NULL)
    {
      t->step_column = step;
      g_array_append_val (t->columns, train_step_column);   /* last: the TSV's columns keep their numbers */
    }
  t->names = g_ptr_array_new_with_free_func (g_free);
  t->texts = g_string_chunk_new (4096);
  return t;
}

void
rt_table_free (RtTable *t)
{
  if (t == NULL)
    return;
  clear_tables (t);
  g_free (t->cells);
  g_string_chunk_free (t->texts);
  g_array_unref (t->columns);
  g_ptr_array_unref (t->names);
  g_free (t);
}

void
rt_table_expand (RtTable *t, const char *pattern, const char *const *names, guint n)
{
  g_return_if_fail (t->n_cells == 0);
  int at = rt_table_find (t, pattern);
  g_return_if_fail (at >= 0 && (g_array_index (t->columns, RtColumn, at).flags & RT_COLUMN_EACH));
  RtColumn each = g_array_index (t->columns, RtColumn, at);
  each.flags &= ~RT_COLUMN_EACH;
  each.tsv_name = NULL;
  if (each.flags & RT_COLUMN_ARRAY)
    each.group = g_array_index (t->columns, RtColumn, at).name;   /* the spec's, static */
  g_array_remove_index (t->columns, at);
  for (guint k = 0; k < n; k++)
    {
      char *name = g_strdup (names[k]);
      g_ptr_array_add (t->names, name);
      each.name = name;
      g_array_insert_val (t->columns, at + k, each);
    }
  if (t->step_column >= 0)
    t->step_column = rt_table_find (t, "step");
}

void
rt_table_leave_out (RtTable *t, const char *name)
{
  g_return_if_fail (t->n_cells == 0);
  int at = rt_table_find (t, name);
  g_return_if_fail (at >= 0);
  g_array_index (t->columns, RtColumn, at).flags |= RT_COLUMN_JSON_ONLY;
}

void
rt_table_reserve_rows (RtTable *t, gsize n)
{
  gsize want = t->n_cells + n * t->columns->len;
  if (want > t->cells_size)
    {
      t->cells_size = want;
      t->cells = g_renew (Cell, t->cells, t->cells_size);
    }
}

/* The column the next cell belongs to. */
static const RtColumn *
next_column (RtTable *t)
{
  return &g_array_index (t->columns, RtColumn, t->next);
}

static inline void
append (RtTable *t, Cell cell, RtColumnType type)
{
  const RtColumn *c = next_column (t);
  g_return_if_fail (!(c->flags & RT_COLUMN_EACH));
  if (!cell.null && c->type != type && !(c->type == RT_COLUMN_NUMBER && type == RT_COLUMN_INT))
    g_critical ("table %s: column %s is not of the type given", t->spec->name, c->name);
  if (!cell.null && c->type == RT_COLUMN_NUMBER && type == RT_COLUMN_INT)
    cell.d = (double) cell.i;
  if (G_UNLIKELY (t->n_cells == t->cells_size))
    {
      t->cells_size = MAX (t->cells_size * 2, 64);
      t->cells = g_renew (Cell, t->cells, t->cells_size);
    }
  t->cells[t->n_cells++] = cell;
  if (++t->next == t->columns->len)
    t->next = 0;
  if (G_UNLIKELY (t->step_column >= 0) && t->next == t->columns->len - 1)
    {
      /* the row's last cell: the trainer's step of its step */
      const Cell *step = &t->cells[t->n_cells - t->next + (guint) t->step_column];
      gint32 train = step->null ? -1 : step_map (step_map_data, (gint32) step->i);
      if (G_UNLIKELY (t->n_cells == t->cells_size))
        {
          t->cells_size = MAX (t->cells_size * 2, 64);
          t->cells = g_renew (Cell, t->cells, t->cells_size);
        }
      t->cells[t->n_cells++] = train >= 0 ? (Cell) { .i = train } : (Cell) { .null = TRUE };
      t->next = 0;
    }
}

void
rt_table_int (RtTable *t, gint64 v)
{
  append (t, (Cell) { .i = v }, RT_COLUMN_INT);
}

void
rt_table_number (RtTable *t, double v)
{
  append (t, (Cell) { .d = v }, RT_COLUMN_NUMBER);
}

void
rt_table_text (RtTable *t, const char *s)
{
  if (s == NULL)
    {
      append (t, (Cell) { .null = TRUE }, RT_COLUMN_TEXT);
      return;
    }
  /* the same text as the row above's (a request's id on each of its rows) is kept once */
  guint n_columns = t->columns->len;
  if (t->n_cells >= n_columns)
    {
      const Cell *above = &t->cells[t->n_cells - n_columns];
      if (!above->null && next_column (t)->type == RT_COLUMN_TEXT && strcmp (above->s, s) == 0)
        {
          append (t, (Cell) { .s = above->s }, RT_COLUMN_TEXT);
          return;
        }
    }
  append (t, (Cell) { .s = g_string_chunk_insert (t->texts, s) }, RT_COLUMN_TEXT);
}

void
rt_table_text_borrowed (RtTable *t, const char *s)
{
  append (t, (Cell) { .null = s == NULL, .s = (char *) s }, RT_COLUMN_TEXT);
}

void
rt_table_bool (RtTable *t, gboolean v)
{
  append (t, (Cell) { .i = v != 0 }, RT_COLUMN_BOOL);
}

void
rt_table_null (RtTable *t)
{
  append (t, (Cell) { .null = TRUE }, next_column (t)->type);
}

void
rt_table_table (RtTable *t, RtTable *cell)
{
  append (t, (Cell) { .null = cell == NULL, .t = cell }, RT_COLUMN_TABLE);
}

const char *
rt_table_name (const RtTable *t)
{
  return t->spec->name;
}

guint
rt_table_n_rows (const RtTable *t)
{
  return (guint) (t->n_cells / t->columns->len);
}

guint
rt_table_n_columns (const RtTable *t)
{
  return t->columns->len;
}

const RtColumn *
rt_table_column (const RtTable *t, guint column)
{
  return &g_array_index (t->columns, RtColumn, column);
}

int
rt_table_find (const RtTable *t, const char *name)
{
  for (guint i = 0; i < t->columns->len; i++)
    if (strcmp (g_array_index (t->columns, RtColumn, i).name, name) == 0)
      return (int) i;
  return -1;
}

/* (a row of the table: its last cell is among those written; no division per cell read) */
static const Cell *
cell_at (const RtTable *t, guint row, guint column)
{
  gsize n_columns = t->columns->len, first = (gsize) row * n_columns;
  g_return_val_if_fail (column < n_columns && first + n_columns <= t->n_cells, NULL);
  return &t->cells[first + column];
}

double
rt_table_get_number (const RtTable *t, guint row, guint column)
{
  const Cell *c = cell_at (t, row, column);
  if (c == NULL || c->null)
    return NAN;
  switch (rt_table_column (t, column)->type)
    {
    case RT_COLUMN_NUMBER:
      return c->d;
    case RT_COLUMN_INT:
    case RT_COLUMN_BOOL:
      return (double) c->i;
    default:
      return NAN;
    }
}

const char *
rt_table_get_text (const RtTable *t, guint row, guint column)
{
  const Cell *c = cell_at (t, row, column);
  return c != NULL && !c->null && rt_table_column (t, column)->type == RT_COLUMN_TEXT ? c->s : NULL;
}

const RtTable *
rt_table_get_table (const RtTable *t, guint row, guint column)
{
  const Cell *c = cell_at (t, row, column);
  return c != NULL && !c->null && rt_table_column (t, column)->type == RT_COLUMN_TABLE ? c->t : NULL;
}

/* ---- formats ---- */

gboolean
rt_column_in_tsv (const RtColumn *c)
{
  return !(c->flags & RT_COLUMN_JSON_ONLY) && c->type != RT_COLUMN_TABLE;
}

const char *
rt_column_tsv_name (const RtColumn *c)
{
  return c->tsv_name != NULL ? c->tsv_name : c->name;
}

/* The texts of the last few numbers written: a plot's rows repeat their numbers (where
 * one phase ends the next begins), and formatting one is the dearest part of a row. */
#define MEMO_SLOTS 4
typedef struct {
  guint64 bits[MEMO_SLOTS];   /* the double's bits */
  guint8 len[MEMO_SLOTS];     /* 0: an empty slot */
  char text[MEMO_SLOTS][40];
  guint last;                 /* the slot written last */
} NumberMemo;

/* `v` as `format` writes it, from the memo when it holds it. Inlined: a plot's TSV writes
 * tens of thousands of numbers, and the call (through a pointer) was a tenth of each. */
static G_ALWAYS_INLINE inline void
memo_number (GString *out, NumberMemo *memo, double v, void (*format) (GString *out, double v))
{
  guint64 bits;
  memcpy (&bits, &v, sizeof bits);
  for (guint i = 0; i < MEMO_SLOTS; i++)
    if (memo->len[i] != 0 && memo->bits[i] == bits)
      {
        rt_string_put (out, memo->text[i], memo->len[i]);
        return;
      }
  gsize at = out->len;
  format (out, v);
  gsize len = out->len - at;
  if (len > 0 && len <= sizeof memo->text[0])
    {
      guint i = memo->last = (memo->last + 1) % MEMO_SLOTS;
      memo->bits[i] = bits;
      memo->len[i] = (guint8) len;
      memcpy (memo->text[i], out->str + at, len);
    }
}

/* The text of each integer from 0 to 999 as the bytes of a word, the first digit lowest, and
 * its length in the top byte. */
#define SMALL_INT(v) ((v) >= 100 ? (guint32) ('0' + (v) / 100) | (guint32) ('0' + (v) / 10 % 10) << 8 \
                                     | (guint32) ('0' + (v) % 10) << 16 | 3u << 24                     \
                      : (v) >= 10 ? (guint32) ('0' + (v) / 10) | (guint32) ('0' + (v) % 10) << 8 | 2u << 24 \
                                  : (guint32) ('0' + (v)) | 1u << 24)
#define SMALL_INTS_10(v) SMALL_INT (v), SMALL_INT (v + 1), SMALL_INT (v + 2), SMALL_INT (v + 3), SMALL_INT (v + 4), \
                         SMALL_INT (v + 5), SMALL_INT (v + 6), SMALL_INT (v + 7), SMALL_INT (v + 8), SMALL_INT (v + 9)
#define SMALL_INTS_100(v) SMALL_INTS_10 (v), SMALL_INTS_10 (v + 10), SMALL_INTS_10 (v + 20), SMALL_INTS_10 (v + 30), \
                          SMALL_INTS_10 (v + 40), SMALL_INTS_10 (v + 50), SMALL_INTS_10 (v + 60), \
                          SMALL_INTS_10 (v + 70), SMALL_INTS_10 (v + 80), SMALL_INTS_10 (v + 90)
static const guint32 small_ints[1000] = {
  SMALL_INTS_100 (0), SMALL_INTS_100 (100), SMALL_INTS_100 (200), SMALL_INTS_100 (300), SMALL_INTS_100 (400),
  SMALL_INTS_100 (500), SMALL_INTS_100 (600), SMALL_INTS_100 (700), SMALL_INTS_100 (800), SMALL_INTS_100 (900),
};

/* An integer from 0 to 999 (a flag, a count in flight, a worker, a lane: most of a plot's)
 * into out's buffer, which has room for 5 bytes more: its word of text from the table, and
 * the NUL after it. */
static inline void
put_small_int (GString *out, guint32 v)
{
  guint32 word = small_ints[v];
  guint32 text = word & 0xffffff;   /* its fourth byte a NUL, or the NUL after */
  memcpy (out->str + out->len, &text, 4);
  out->len += word >> 24;
  out->str[out->len] = '\0';
}

static void
tsv_cell (GString *out, const RtColumn *c, const Cell *cell, NumberMemo *memo)
{
  if (cell->null)
    {
      g_string_append (out, "NaN");
      return;
    }
  switch (c->type)
    {
    case RT_COLUMN_INT:
    case RT_COLUMN_BOOL:
      if (cell->i >= 0 && cell->i < 1000 && out->len + 5 < out->allocated_len)
        put_small_int (out, (guint32) cell->i);
      else
        rt_format_int (out, cell->i);
      break;
    case RT_COLUMN_NUMBER:
      if (isfinite (cell->d))
        memo_number (out, memo, cell->d, rt_format_double);
      else
        g_string_append (out, "NaN");
      break;
    case RT_COLUMN_TEXT:
      rt_tsv_append_text (out, cell->s);
      break;
    case RT_COLUMN_TABLE:
      break;
    }
}

/* A delimited format (TSV, CSV): its separator and how it writes a text and a cell. */
typedef struct {
  char separator;
  void (*text) (GString *out, const char *s);
  void (*cell) (GString *out, const RtColumn *c, const Cell *cell, NumberMemo *memo);
} LineFormat;

/* One line of the columns of the TSV file in `format`: the header (row < 0) or a row. */
static void
delimited_line (GString *out, const RtTable *t, int row, const LineFormat *format, NumberMemo *memo)
{
  gboolean first = TRUE;
  guint n_columns = t->columns->len;
  const RtColumn *columns = (const RtColumn *) (void *) t->columns->data;
  const Cell *cells = row < 0 ? NULL : &t->cells[(gsize) row * n_columns];
  for (guint k = 0; k < n_columns; k++)
    {
      const RtColumn *c = &columns[k];
      if (!rt_column_in_tsv (c))
        continue;
      if (!first)
        g_string_append_c (out, format->separator);
      if (row < 0)
        format->text (out, rt_column_tsv_name (c));
      else
        format->cell (out, c, &cells[k], memo);
      first = FALSE;
    }
  g_string_append_c (out, '\n');
}

static const LineFormat tsv_format = { '\t', rt_tsv_append_text, tsv_cell };

/* A text cell of a TSV column: the text is written once, and a row whose cell is the very
 * text of the row above (a request's id on each of its rows, borrowed or kept once) copies
 * what was written for it, `at` and `len` in out. */
typedef struct {
  const char *s;
  gsize at, len;
} TextMemo;

GString *
rt_table_tsv (const RtTable *t)
{
  /* room for a plot's rows at once: growing by doubling copied them into fresh pages
   * again and again (only the pages written are ever touched) */
  GString *out = g_string_sized_new (MIN (t->n_cells * 24 + 4096, (gsize) 256 << 20));
  rt_table_tsv_append (t, out, TRUE);
  return out;
}

void
rt_table_tsv_append (const RtTable *t, GString *out, gboolean header)
{
  NumberMemo memo = { .last = 0 };
  if (header)
    delimited_line (out, t, -1, &tsv_format, &memo);
  /* the columns of the file, and a text memo for each */
  guint n_columns = t->columns->len, n_tsv = 0;
  const RtColumn *columns = (const RtColumn *) (void *) t->columns->data;
  g_autofree guint *tsv_columns = g_new (guint, MAX (n_columns, 1u));
  g_autofree TextMemo *texts = g_new0 (TextMemo, MAX (n_columns, 1u));
  for (guint k = 0; k < n_columns; k++)
    if (rt_column_in_tsv (&columns[k]))
      tsv_columns[n_tsv++] = k;
  guint n_rows = rt_table_n_rows (t);
  for (guint r = 0; r < n_rows; r++)
    {
      const Cell *cells = &t->cells[(gsize) r * n_columns];
      /* a number takes 25 bytes at most, an integer 20, and their writers write straight into
       * the buffer with 40 to spare: texts ask for their own room */
      rt_string_room (out, (gsize) n_tsv * 48 + 2);
      for (guint i = 0; i < n_tsv; i++)
        {
          guint k = tsv_columns[i];
          const Cell *cell = &cells[k];
          if (i > 0)
            out->str[out->len++] = '\t';
          RtColumnType type = columns[k].type;
          if ((type == RT_COLUMN_INT || type == RT_COLUMN_BOOL) && !cell->null && cell->i >= 0 && cell->i < 1000)
            {
              put_small_int (out, (guint32) cell->i);   /* the row's room holds it */
              continue;
            }
          if (type == RT_COLUMN_TEXT && !cell->null)
            {
              TextMemo *m = &texts[k];
              if (cell->s == m->s)
                {
                  rt_string_room (out, m->len + (gsize) (n_tsv - i) * 48 + 2);
                  memcpy (out->str + out->len, out->str + m->at, m->len);
                  out->len += m->len;
                  continue;
                }
              gsize at = out->len;
              rt_tsv_append_text (out, cell->s);
              *m = (TextMemo) { cell->s, at, out->len - at };
              rt_string_room (out, (gsize) (n_tsv - i) * 48 + 2);
              continue;
            }
          tsv_cell (out, &columns[k], cell, &memo);
        }
      out->str[out->len++] = '\n';
      out->str[out->len] = '\0';
    }
}

/* ---- TSV rows written as they are made ---- */

/* The texts a writer's column wrote last, by address (a Gantt's phases take turns, a
 * request's id stays for its rows), and what was written for them (kept here: the text
 * written may have been let go since). */
#define TEXT_SLOTS 8
#define TEXT_SLOT_BYTES 64
typedef struct {
  const char *s[TEXT_SLOTS];
  guint8 len[TEXT_SLOTS];
  char text[TEXT_SLOTS][TEXT_SLOT_BYTES];
  guint last;
} TextSlots;

#define LEFT_OUT 0xff

struct _RtTsvWriter {
  GString *out;
  const RtColumn *columns;
  guint n_columns;
  guint next;                /* the column of the next cell */
  guint8 *types;             /* each column's RtColumnType, or LEFT_OUT when it is not in the TSV */
  guint8 *separated;         /* 1 where a tab goes before the column's cell (not the first in the TSV) */
  NumberMemo memo;
  TextSlots *texts;          /* a memo per column */
};

RtTsvWriter *
rt_tsv_writer_new (const RtTable *table, GString *out, gboolean header)
{
  RtTsvWriter *w = g_new0 (RtTsvWriter, 1);
  w->out = out;
  w->columns = (const RtColumn *) (void *) table->columns->data;
  w->n_columns = table->columns->len;
  w->types = g_new (guint8, MAX (w->n_columns, 1u));
  w->separated = g_new (guint8, MAX (w->n_columns, 1u));
  gboolean first = TRUE;
  for (guint k = 0; k < w->n_columns; k++)
    {
      gboolean tsv = rt_column_in_tsv (&w->columns[k]);
      w->types[k] = tsv ? (guint8) w->columns[k].type : LEFT_OUT;
      w->separated[k] = tsv && !first;
      first = first && !tsv;
    }
  w->texts = g_new0 (TextSlots, MAX (w->n_columns, 1u));
  if (header)
    delimited_line (out, table, -1, &tsv_format, &w->memo);
  return w;
}

void
rt_tsv_writer_free (RtTsvWriter *w)
{
  if (w == NULL)
    return;
  g_free (w->texts);
  g_free (w->types);
  g_free (w->separated);
  g_free (w);
}

/* The next cell's column when it is in the TSV and of one of the types given (its separator
 * then written, with room for a number after it), else NULL (the cell is skipped). */
static inline const RtColumn *
writer_cell (RtTsvWriter *w, RtColumnType type, RtColumnType other_type)
{
  guint k = w->next;
  guint8 column_type = w->types[k];
  if (G_UNLIKELY (column_type != type && column_type != other_type))
    {
      if (column_type != LEFT_OUT)
        g_critical ("TSV of a table: column %s is not of the type given", w->columns[k].name);
      return NULL;
    }
  char *p = rt_string_room (w->out, 48 + 2);
  *p = '\t';   /* kept where it goes */
  w->out->len += w->separated[k];
  return &w->columns[k];
}

/* After a cell: the line ends with the last column's. */
static inline void
writer_next (RtTsvWriter *w)
{
  if (++w->next < w->n_columns)
    return;
  w->next = 0;
  char *p = rt_string_room (w->out, 1);
  *p++ = '\n';
  rt_string_end_at (w->out, p);
}

void
rt_tsv_writer_int (RtTsvWriter *w, gint64 v)
{
  const RtColumn *c = writer_cell (w, RT_COLUMN_INT, RT_COLUMN_NUMBER);
  if (c == NULL)
    ;
  else if (c->type == RT_COLUMN_NUMBER)   /* as rt_table_int makes it a double there */
    memo_number (w->out, &w->memo, (double) v, rt_format_double);
  else if (v >= 0 && v < 1000)
    put_small_int (w->out, (guint32) v);   /* writer_cell's room holds it */
  else
    rt_format_int (w->out, v);
  writer_next (w);
}

void
rt_tsv_writer_uints (RtTsvWriter *w, const guint *v, gsize n)
{
  for (gsize i = 0; i < n;)
    {
      /* a run of integer cells below 1000 before the line's last cell, written in one go */
      guint k = w->next;
      gsize most = MIN (n - i, (gsize) (w->n_columns - 1 - k));
      char *p = rt_string_room (w->out, most * 5 + 1);
      gsize j = 0;
      for (; j < most && w->types[k + j] == RT_COLUMN_INT && v[i + j] < 1000; j++)
        {
          *p = '\t';
          p += w->separated[k + j];
          guint32 word = small_ints[v[i + j]], text = word & 0xffffff;
          memcpy (p, &text, 4);
          p += word >> 24;
        }
      rt_string_end_at (w->out, p);
      w->next = k + (guint) j;
      i += j;
      if (i < n)
        rt_tsv_writer_int (w, v[i++]);   /* the rarer cases, and the line's last cell */
    }
}

void
rt_tsv_writer_number (RtTsvWriter *w, double v)
{
  const RtColumn *c = writer_cell (w, RT_COLUMN_NUMBER, RT_COLUMN_NUMBER);
  if (c == NULL)
    ;
  else if (isfinite (v))
    memo_number (w->out, &w->memo, v, rt_format_double);
  else
    g_string_append (w->out, "NaN");
  writer_next (w);
}

void
rt_tsv_writer_text (RtTsvWriter *w, const char *s)
{
  const RtColumn *c = writer_cell (w, RT_COLUMN_TEXT, RT_COLUMN_TEXT);
  if (c == NULL)
    ;
  else if (s == NULL)
    g_string_append (w->out, "NaN");
  else
    {
      TextSlots *m = &w->texts[w->next];
      guint i = m->last, tries = 0;   /* the latest first: a request's id comes row after row */
      for (; tries < TEXT_SLOTS && m->s[i] != s; tries++)
        i = (i + TEXT_SLOTS - 1) % TEXT_SLOTS;
      if (tries < TEXT_SLOTS)
        {
          char *p = rt_string_room (w->out, TEXT_SLOT_BYTES);
          memcpy (p, m->text[i], TEXT_SLOT_BYTES);
          rt_string_end_at (w->out, p + m->len[i]);
        }
      else
        {
          gsize at = w->out->len;
          rt_tsv_append_text (w->out, s);
          gsize len = w->out->len - at;
          if (len < TEXT_SLOT_BYTES)   /* a longer one is written each time */
            {
              m->last = (m->last + 1) % TEXT_SLOTS;
              m->s[m->last] = s;
              m->len[m->last] = (guint8) len;
              memcpy (m->text[m->last], w->out->str + at, len);
            }
        }
    }
  writer_next (w);
}

static void
json_cell (RtJsonWriter *w, const RtColumn *c, const Cell *cell)
{
  if (cell->null)
    {
      rt_jw_null (w);
      return;
    }
  switch (c->type)
    {
    case RT_COLUMN_INT:
      rt_jw_int (w, cell->i);
      break;
    case RT_COLUMN_NUMBER:
      rt_jw_number (w, cell->d);
      break;
    case RT_COLUMN_TEXT:
      rt_jw_string (w, cell->s);
      break;
    case RT_COLUMN_BOOL:
      rt_jw_bool (w, cell->i != 0);
      break;
    case RT_COLUMN_TABLE:
      rt_table_write_json (cell->t, w);
      break;
    }
}

/* Column k opens a group of RT_COLUMN_NULL_GROUP columns whose cells in row r are all null. */
static gboolean
group_all_null (const RtTable *t, guint r, guint k)
{
  const RtColumn *head = rt_table_column (t, k);
  if (!(head->flags & RT_COLUMN_NULL_GROUP))
    return FALSE;
  for (guint j = k; j < t->columns->len && g_strcmp0 (rt_table_column (t, j)->group, head->group) == 0; j++)
    {
      const Cell *cell = cell_at (t, r, j);
      gboolean is_null = cell->null || (rt_table_column (t, j)->type == RT_COLUMN_NUMBER && !isfinite (cell->d));
      if (!is_null)
        return FALSE;
    }
  return TRUE;
}

void
rt_table_write_json_row (const RtTable *t, guint r, RtJsonWriter *w)
{
  rt_jw_begin_object (w);
  rt_table_write_json_members (t, r, w);
  rt_jw_end_object (w);
}

void
rt_table_write_json_members (const RtTable *t, guint r, RtJsonWriter *w)
{
  const char *group = NULL;   /* the nested object (or array) open, if any */
  gboolean array = FALSE, skip = FALSE;
  for (guint k = 0; k < t->columns->len; k++)
    {
      const RtColumn *c = rt_table_column (t, k);
      if (c->flags & RT_COLUMN_TSV_ONLY)
        continue;
      if (group != NULL && g_strcmp0 (group, c->group) != 0 && !skip)
        (array ? rt_jw_end_array : rt_jw_end_object) (w);
      if (c->group != NULL && g_strcmp0 (group, c->group) != 0)
        {
          rt_jw_key (w, c->group);
          array = (c->flags & RT_COLUMN_ARRAY) != 0;
          skip = group_all_null (t, r, k);
          if (skip)
            rt_jw_null (w);
          else
            (array ? rt_jw_begin_array : rt_jw_begin_object) (w);
        }
      else if (c->group == NULL)
        skip = array = FALSE;
      group = c->group;
      if (skip || (t->step_column >= 0 && k == t->columns->len - 1))
        continue;
      if (!array)
        rt_jw_key (w, c->name);
      json_cell (w, c, cell_at (t, r, k));
      if ((int) k == t->step_column)
        {
          /* train_step right after step in JSON (in the TSV it is the last column) */
          rt_jw_key (w, train_step_column.name);
          json_cell (w, &train_step_column, cell_at (t, r, t->columns->len - 1));
        }
    }
  if (group != NULL && !skip)
    (array ? rt_jw_end_array : rt_jw_end_object) (w);
}

void
rt_table_write_json (const RtTable *t, RtJsonWriter *w)
{
  rt_jw_begin_array (w);
  for (guint r = 0; r < rt_table_n_rows (t); r++)
    rt_table_write_json_row (t, r, w);
  rt_jw_end_array (w);
}

void
rt_table_spec_describe (const RtTableSpec *spec, GString *out, guint indent)
{
  g_string_append_printf (out, "%*s%s: %s\n", indent, "", spec->name, spec->row);
  for (const RtColumn *c = spec->columns; c->name != NULL; c++)
    {
      g_autofree char *key = c->group ? g_strdup_printf ("%s.%s", c->group, c->name) : g_strdup (c->name);
      g_autofree char *unit = c->unit ? g_strdup_printf (" (%s)", c->unit) : g_strdup ("");
      const char *where = (c->flags & RT_COLUMN_JSON_ONLY) || c->type == RT_COLUMN_TABLE ? " [JSON only]"
                          : (c->flags & RT_COLUMN_TSV_ONLY) ? " [TSV only]" : "";
      g_string_append_printf (out, "%*s  %-22s %s%s%s%s%s\n", indent, "", key, c->meaning, unit, where,
                              c->tsv_name ? "; TSV column " : "", c->tsv_name ? c->tsv_name : "");
    }
}

/* ---- CSV ---- */

void
rt_table_clear_rows (RtTable *t)
{
  clear_tables (t);
  t->n_cells = 0;
  t->next = 0;
  g_string_chunk_clear (t->texts);
}

/* One CSV field of text: quoted only where RFC 4180 needs it, so that a field can never end
 * early or break its row; an empty text is quoted to tell it from an unknown (empty) field. */
static void
csv_text (GString *out, const char *s)
{
  g_autoptr (GString) valid = NULL;
  if (!g_utf8_validate (s, -1, NULL))
    {
      valid = g_string_new (NULL);
      rt_utf8_append (valid, s, -1);
      s = valid->str;
    }
  if (*s != '\0' && strpbrk (s, ",\"\r\n") == NULL)
    {
      g_string_append (out, s);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *p = s; *p != '\0'; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

/* A number as rt_format_double writes it, faster for the times of an export, which are
 * whole microseconds: a double that is the nearest to k / 10^6 reads back from the decimal
 * k / 10^6, which is also the text rt_format_double finds (at most 15 significant digits,
 * no exponent between 1e-4 and 1e9). Any other value takes the general way. */
static void
csv_number (GString *out, double v)
{
  double scaled = v * 1e6;
  if (fabs (v) >= 1e-4 && fabs (v) < 1e9 && scaled == nearbyint (scaled) && nearbyint (scaled) / 1e6 == v)
    {
      gint64 k = (gint64) nearbyint (scaled);
      gint64 whole = k / 1000000, frac = llabs (k % 1000000);
      if (k < 0 && whole == 0)
        g_string_append_c (out, '-');
      rt_format_int (out, whole);
      g_string_append_c (out, '.');
      char digits[7];
      int n = 6;
      for (int i = 5; i >= 0; i--, frac /= 10)
        digits[i] = (char) ('0' + frac % 10);
      while (n > 1 && digits[n - 1] == '0')
        n--;
      g_string_append_len (out, digits, n);
      return;
    }
  rt_format_double (out, v);
}

static void
csv_cell (GString *out, const RtColumn *c, const Cell *cell, NumberMemo *memo)
{
  if (cell->null)
    return;
  switch (c->type)
    {
    case RT_COLUMN_INT:
    case RT_COLUMN_BOOL:
      rt_format_int (out, cell->i);   /* an export writes tens of millions of them */
      break;
    case RT_COLUMN_NUMBER:
      if (isfinite (cell->d))
        memo_number (out, memo, cell->d, csv_number);
      break;
    case RT_COLUMN_TEXT:
      csv_text (out, cell->s);
      break;
    case RT_COLUMN_TABLE:
      break;
    }
}

static const LineFormat csv_format = { ',', csv_text, csv_cell };

void
rt_table_csv_append (const RtTable *t, GString *out, gboolean header)
{
  NumberMemo memo = { .last = 0 };
  for (int r = header ? -1 : 0; r < (int) rt_table_n_rows (t); r++)
    delimited_line (out, t, r, &csv_format, &memo);
}

GString *
rt_table_csv (const RtTable *t)
{
  GString *out = g_string_new (NULL);
  rt_table_csv_append (t, out, TRUE);
  return out;
}
