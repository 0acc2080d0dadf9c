/* SPDX-License-Identifier: Apache-2.0 */
/* rt-jsonw.h: a small streaming JSON writer for the --json summaries.
 * Numbers are written in the shortest form that reads back to the same double; NAN is null. */
#pragma once

#include "rolltrace/rt-text.h"

#include <glib.h>
#include <string.h>

G_BEGIN_DECLS

#define RT_JSON_MAX_DEPTH 32

typedef struct {
  GString *buf;
  guint depth;
  gboolean has_items[RT_JSON_MAX_DEPTH];
  gboolean after_key;
  guint replaced_texts;      /* strings that held invalid UTF-8 (written with U+FFFD) */
} RtJsonWriter;

void rt_jw_init (RtJsonWriter *w, GString *buf);
void rt_jw_begin_object (RtJsonWriter *w);
void rt_jw_end_object (RtJsonWriter *w);
void rt_jw_begin_array (RtJsonWriter *w);
void rt_jw_end_array (RtJsonWriter *w);
void rt_jw_key (RtJsonWriter *w, const char *key);
void rt_jw_number (RtJsonWriter *w, double v);
void rt_jw_int (RtJsonWriter *w, gint64 v);
void rt_jw_string (RtJsonWriter *w, const char *s);   /* NULL writes null */
void rt_jw_null (RtJsonWriter *w);
void rt_jw_bool (RtJsonWriter *w, gboolean v);

/* key + value in one call */
void rt_jw_member_number (RtJsonWriter *w, const char *key, double v);
void rt_jw_member_int (RtJsonWriter *w, const char *key, gint64 v);
void rt_jw_member_string (RtJsonWriter *w, const char *key, const char *s);

/* Appends the shortest decimal text of v that reads back as v ("NaN" never occurs:
 * callers decide what a NAN means). Shared by the TSV writers. */
void rt_format_double (GString *out, double v);

/* Appends v as printf's "%.<precision>g" writes it in the C locale, byte for byte: without
 * printf (exact integer arithmetic) for 1 to 17 digits of a v within about 10^+-27 of its
 * digits, with it otherwise. The plots' data files hold hundreds of thousands of them. */
void rt_format_g (GString *out, double v, int precision);

/* Appends one point of a CDF block: "%.9g\t%.6g\n" of x and fraction, as rt_format_g writes
 * each (a plot's data file holds hundreds of thousands of them). */
void rt_format_cdf_point (GString *out, double x, double fraction);

/* Appends the decimal text of v, as "%" G_GINT64_FORMAT writes it, without printf: the trace
 * writer prints hundreds of millions of them. */
void rt_format_int (GString *out, gint64 v);

/* Grows out's buffer to hold n more bytes and the NUL (rt_string_room's rare case, out of line). */
void rt_string_grow (GString *out, gsize n);

/* Room for n more bytes and the NUL in out's buffer, and where they go: a writer puts its text
 * straight there, then ends out with rt_string_end_at. */
static inline char *
rt_string_room (GString *out, gsize n)
{
  if (G_UNLIKELY (out->len + n >= out->allocated_len))
    rt_string_grow (out, n);
  return out->str + out->len;
}

/* Ends out at `end`, after text written from rt_string_room. */
static inline void
rt_string_end_at (GString *out, char *end)
{
  out->len = (gsize) (end - out->str);
  *end = '\0';
}

G_END_DECLS
