/* rt-jsonw.h: a small streaming JSON writer for the --json summaries.
 * Numbers are written in the shortest form that reads back to the same double; NAN is null. */
#pragma once

#include <glib.h>

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

G_END_DECLS
