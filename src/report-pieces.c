/* SPDX-License-Identifier: Apache-2.0 */
/* report-pieces.c: what a section of rt-report is made of: markup of ours, text of the input
 * (escaped), captions, plots, tables (the first rows in the page, all of them beside as TSV)
 * and notes, each appended to the section as a piece report-page.c writes. */
#include "report-private.h"
#include "rolltrace/rt-outfile.h"
#include "rolltrace/rt-plots.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

void
rt_section_piece_free (Piece *p)
{
  g_free (p->text);
  g_free (p);
}

void
rt_section_free (Section *sec)
{
  g_ptr_array_unref (sec->pieces);
  g_free (sec);
}

/* Markup of our own: a literal, or printf of numbers. Never text from the input. */
void
rt_section_html (Section *sec, const char *fmt, ...)
{
  Piece *p = g_new0 (Piece, 1);
  va_list ap;
  va_start (ap, fmt);
  p->text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_ptr_array_add (sec->pieces, p);
}

/* Text, from the input or not: escaped here, the one place it becomes HTML. */
void
rt_section_text (Section *sec, const char *s)
{
  GString *out = g_string_new (NULL);
  rt_html_append_text (out, s);
  Piece *p = g_new0 (Piece, 1);
  p->text = g_string_free (out, FALSE);
  g_ptr_array_add (sec->pieces, p);
}

void
rt_section_text_printf (Section *sec, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *s = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  rt_section_text (sec, s);
}

/* The one-line caption that says what to look for. */
void
rt_section_caption (Section *sec, const char *what_to_look_for)
{
  rt_section_html (sec, "<p class=\"caption\">");
  rt_section_text (sec, what_to_look_for);
  rt_section_html (sec, "</p>\n");
}

/* A plot drawn by the section: its SVG inline, and a link to its data. */
void
rt_section_plot (Section *sec, const char *name, const char *data_stem)
{
  rt_section_html (sec, "<figure id=\"plot-");
  rt_section_text (sec, name);
  rt_section_html (sec, "\">");
  Piece *p = g_new0 (Piece, 1);
  p->kind = PIECE_SVG;
  p->text = g_strdup (name);
  g_ptr_array_add (sec->pieces, p);
  rt_section_html (sec, "<figcaption>data: <a href=\"");
  rt_section_text_printf (sec, "%s.tsv", data_stem);
  rt_section_html (sec, "\">");
  rt_section_text_printf (sec, "%s.tsv", data_stem);
  rt_section_html (sec, "</a>, script: <a href=\"");
  rt_section_text_printf (sec, "%s.gp", name);
  rt_section_html (sec, "\">");
  rt_section_text_printf (sec, "%s.gp", name);
  rt_section_html (sec, "</a></figcaption></figure>\n");
}

void
rt_section_cell_number (Section *sec, double v, RtColumnType type)
{
  if (isnan (v))
    rt_section_html (sec, "<td class=\"num\">-</td>");
  else if (type == RT_COLUMN_INT || type == RT_COLUMN_BOOL || (fabs (v) < 1e15 && v == floor (v)))
    rt_section_html (sec, "<td class=\"num\">%.0f</td>", v);
  else
    rt_section_html (sec, "<td class=\"num\">%.4g</td>", v);
}

/* `table` as an HTML table of its columns named in `columns` (NULL-terminated; NULL: every
 * column but nested tables), its first TABLE_ROWS_MAX rows; written beside as STEM.tsv when
 * `stem` is not NULL. */
gboolean
rt_section_table (RtReport *r, Section *sec, const RtTable *tab, const char *const *columns, const char *stem,
                  GError **error)
{
  if (stem != NULL && !rt_session_write_table (r->s, tab, stem, error))
    return FALSE;
  g_autoptr (GArray) cols = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint c = 0; c < rt_table_n_columns (tab); c++)
    {
      const RtColumn *col = rt_table_column (tab, c);
      gboolean wanted = columns == NULL ? col->type != RT_COLUMN_TABLE : FALSE;
      for (guint k = 0; columns != NULL && columns[k] != NULL; k++)
        wanted |= strcmp (columns[k], col->name) == 0;
      if (wanted)
        g_array_append_val (cols, c);
    }
  guint n = rt_table_n_rows (tab);
  rt_section_html (sec, "<table class=\"sortable\"><thead><tr>");
  for (guint k = 0; k < cols->len; k++)
    {
      const RtColumn *col = rt_table_column (tab, g_array_index (cols, guint, k));
      rt_section_html (sec, "<th title=\"");
      rt_section_text (sec, col->meaning);
      rt_section_html (sec, "\">");
      rt_section_text (sec, col->name);
      if (col->unit != NULL)
        rt_section_text_printf (sec, " (%s)", col->unit);
      rt_section_html (sec, "</th>");
    }
  rt_section_html (sec, "</tr></thead><tbody>\n");
  for (guint row = 0; row < MIN (n, (guint) TABLE_ROWS_MAX); row++)
    {
      rt_section_html (sec, "<tr>");
      for (guint k = 0; k < cols->len; k++)
        {
          guint c = g_array_index (cols, guint, k);
          const RtColumn *col = rt_table_column (tab, c);
          if (col->type == RT_COLUMN_TEXT)
            {
              rt_section_html (sec, "<td>");
              rt_section_text (sec, rt_table_get_text (tab, row, c) ? rt_table_get_text (tab, row, c) : "-");
              rt_section_html (sec, "</td>");
            }
          else
            rt_section_cell_number (sec, rt_table_get_number (tab, row, c), col->type);
        }
      rt_section_html (sec, "</tr>\n");
    }
  rt_section_html (sec, "</tbody></table>\n");
  if (n > TABLE_ROWS_MAX)
    {
      rt_section_html (sec, "<p class=\"note\">");
      rt_section_text_printf (sec, "The first %u of %u rows%s", TABLE_ROWS_MAX, n, stem ? "; all of them in " : ".");
      if (stem != NULL)
        {
          rt_section_html (sec, "<a href=\"");
          rt_section_text_printf (sec, "%s.tsv", stem);
          rt_section_html (sec, "\">");
          rt_section_text_printf (sec, "%s.tsv", stem);
          rt_section_html (sec, "</a>.");
        }
      rt_section_html (sec, "</p>\n");
    }
  return TRUE;
}

void
rt_section_note (Section *sec, const char *s)
{
  rt_section_html (sec, "<p class=\"note\">");
  rt_section_text (sec, s);
  rt_section_html (sec, "</p>\n");
}
