/* SPDX-License-Identifier: Apache-2.0 */
/* rt-json.h: the one door to the JSON parser (simdjson On-Demand, in json-line.cpp).
 * It reads one trace line and hands back only the fields the tables need, as plain C. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The parser reads this many bytes past a line's end (their content is ignored):
 * callers keep that much readable memory after every line they pass. */
#define RT_JSON_PADDING 64

typedef enum {
  RT_LINE_OK = 0,        /* a JSON object; fields below are filled */
  RT_LINE_EMPTY,         /* nothing but white space */
  RT_LINE_NOT_OBJECT,    /* valid JSON, but an array, string, number... */
  RT_LINE_INVALID,       /* not JSON, or an object that does not close */
} RtLineStatus;

/* One turn of a request's `turn_timings`, or the figures of one `turn_end`.
 * Absent or non-finite numbers are NAN. */
typedef struct {
  gint32 turn;           /* -1 when absent */
  double total_s;
  double pre_process_s;
  double engine_call_s;
  double post_process_s;
  double tool_parsing_s;
} RtTurnFigures;

/* A string inside the line being parsed, valid until the next parse. */
typedef struct {
  const char *str;
  gsize len;
} RtStrView;

typedef struct {
  RtStrView event;
  RtStrView timestamp;
  RtStrView request_id;     /* extra.request_id */
  RtStrView finish_reason;  /* extra.finish_reason */
  double duration_s;        /* NAN when absent, non-finite or not a number */
  gint64 turn;              /* extra.turn, -1 when absent */
  gint64 turns;             /* extra.turns, -1 when absent */
  gint64 response_length;   /* extra.response_length, -1 when absent */
  gint64 response_tokens;   /* extra.actual_response_tokens: a JSON integer 0..2^31-1 (digits
                             * alone), else -1 */
  RtTurnFigures turn_end;   /* extra.*_duration of a turn_end line */
  gboolean has_turn_timings;
  GArray *turn_timings;     /* of RtTurnFigures; owned by the parser, reused */
  /* A field that was present with the wrong type ("duration_sec": "3"): the
   * field is treated as absent and the line stays an event. NULL when none. */
  const char *type_problem;
  /* Bytes of the line the object took: less than the line's length when more
   * follows it on the same line (two objects glued by a lost newline). */
  gsize consumed;
} RtLineFields;

typedef struct _RtJsonParser RtJsonParser;

/* A parser with the widest kernel this processor runs (see json-line.cpp); the
 * environment's SIMDJSON_FORCE_IMPLEMENTATION=NAME narrows it to that kernel, or plain. */
RtJsonParser *rt_json_parser_new (void);
/* A parser with the kernel of that name, NULL when this build or processor has none;
 * every kernel gives the same fields for the same bytes. */
RtJsonParser *rt_json_parser_new_kernel (const char *name);
void rt_json_parser_free (RtJsonParser *parser);
/* The kernel's name: "plain" (portable), "haswell" (AVX2), "icelake" (AVX-512). */
const char *rt_json_parser_kernel (const RtJsonParser *parser);
/* The kernel rt_json_parser_new gives. */
const char *rt_json_kernel (void);
/* The kernels of this build, widest first, NULL-terminated (whether or not this
 * processor runs them). */
const char *const *rt_json_kernels (void);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtJsonParser, rt_json_parser_free)

/* Parses `line` (`len` bytes, no newline; RT_JSON_PADDING readable bytes after it).
 * On RT_LINE_OK fills `out`; otherwise `*reason` (static text) says what is wrong.
 * Text after the first object is left unread (see RtLineFields.consumed). */
RtLineStatus rt_json_parse_line (RtJsonParser *parser,
                                 const char *line,
                                 gsize len,
                                 RtLineFields *out,
                                 const char **reason);

/* What rt_json_parse_lines hands over for each line it reads, in order: the line's object, or
 * NULL and why the line is a bad one (an empty line is the only bad line it reads itself). */
typedef void (*RtJsonLineFunc) (gpointer user_data, const RtLineFields *fields, const char *reason);

/* Bytes of lines best given to rt_json_parse_lines at a time. */
#define RT_JSON_BATCH ((gsize) 128 << 10)

/* Reads whole lines (`buf` holds `len` bytes ending with a newline, RT_JSON_PADDING readable
 * bytes after them) as one stream, handing each line to `each` with the fields
 * rt_json_parse_line would give it, until the first line that is not exactly one JSON object
 * or blank, or the last object of the stream (whose end it cannot vouch for): returns where
 * that line starts, or `len`. The caller reads that line with rt_json_parse_line and goes on
 * after it; every line then gets the same fields and problems as when all are read one by one. */
gsize rt_json_parse_lines (RtJsonParser *parser, const char *buf, gsize len, RtJsonLineFunc each,
                           gpointer user_data);

/* Where the first JSON object of `line` ends (just after its closing brace), found
 * by matching braces outside strings; `len` when the line does not start with '{'
 * or the object does not close. For a line that fails as a whole because a second
 * object glued to the first is cut off. */
gsize rt_json_object_end (const char *line, gsize len);

G_END_DECLS
