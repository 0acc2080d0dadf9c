/* SPDX-License-Identifier: Apache-2.0 */
/* rt-text.h: text read from a trace made safe for the formats it is written into.
 * Each output language has one escaping function (JSON in jsonw.c, gnuplot, SQL, TSV and HTML here). */
#pragma once

#include <glib.h>
#include <string.h>

G_BEGIN_DECLS

/* g_string_append_len for the writers' inner loops: GLib's goes through g_string_insert_len,
 * which costs more than the copy for the few bytes of a key or a number. */
static inline void
rt_string_put (GString *out, const char *s, gsize n)
{
  if (G_UNLIKELY (out->len + n >= out->allocated_len))
    {
      g_string_append_len (out, s, (gssize) n);
      return;
    }
  memcpy (out->str + out->len, s, n);
  out->len += n;
  out->str[out->len] = '\0';
}
/* the same for a string literal, its length known at compile time */
#define RT_STRING_PUT_LITERAL(out, literal) rt_string_put ((out), "" literal, sizeof (literal) - 1)

/* Appends `s` (`len` bytes, or up to its NUL when len < 0) as valid UTF-8: every byte
 * that does not start a valid sequence becomes U+FFFD. Returns TRUE when any was replaced. */
gboolean rt_utf8_append (GString *out, const char *s, gssize len);

/* A gnuplot string literal holding `s`: single-quoted, the only quoting in which gnuplot
 * substitutes neither backquoted commands nor macros; a quote is doubled, control
 * characters (a newline would end the command) become spaces, invalid UTF-8 U+FFFD. */
char *rt_gnuplot_quote (const char *s);

/* Appends `s` as an SQL string literal: single-quoted, a quote doubled, invalid UTF-8 U+FFFD
 * (DuckDB takes nothing else); every other character, a newline too, stands as it is. */
void rt_sql_append_literal (GString *out, const char *s);

/* Appends `s` as one TSV field (or the text of a '#' comment line): tabs, newlines
 * and other control characters become spaces, invalid UTF-8 U+FFFD. */
void rt_tsv_append_text (GString *out, const char *s);

/* Whether the `len` bytes at `s` are all printable ASCII (0x20..0x7e): text that needs
 * no change in a TSV field. */
gboolean rt_text_is_printable_ascii (const char *s, gsize len);

/* Appends `s` as HTML text, fit for an element's content and a quoted attribute's value alike:
 * & < > " ' become entities, control characters spaces, invalid UTF-8 U+FFFD. Nothing
 * read from the input becomes markup, script or a URL. */
void rt_html_append_text (GString *out, const char *s);

/* Levenshtein's distance between a and b (insertions, deletions and substitutions of
 * bytes), counted up to `most`: anything farther is most + 1. For "did you mean". */
guint rt_edit_distance (const char *a, const char *b, guint most);

G_END_DECLS
