/* SPDX-License-Identifier: Apache-2.0 */
/* rt-synth's lines: the frame every line of a worker file shares (timestamp, event, extra,
 * workid and step, or the 2026 logger's step and worker), and the one writer of a turn's lines
 * that both logger generations feed a table. */
#include "synth.h"

/* The turn's finish as the newer logger's turn lines print it. */
static const char *const turn_finish_names[] = { "tool_calls", "stop", "length" };
/* The request's finish as verl's enum prints; TOOL_CALL means it ran out of turns mid-tool-use. */
static const char *const request_finish_names[] = {
  "FinishReasonTypeEnum.TOOL_CALL", "FinishReasonTypeEnum.STOP", "FinishReasonTypeEnum.LENGTH",
};

void
append_key (GString *s, const char *key)
{
  append_lit (s, ", \"");
  g_string_append (s, key);
  append_lit (s, "\": ");
}

static void
append_quoted (GString *s, const char *text)
{
  g_string_append_c (s, '"');
  g_string_append (s, text);
  g_string_append_c (s, '"');
}

void
line_open (LineSink *k, gint64 end_us, const char *event)
{
  k->line_offset = k->s->len;
  k->line_end = end_us;
  k->in_extra = FALSE;
  append_lit (k->s, "{\"timestamp\": \"");
  append_timestamp (k->s, end_us);
  g_string_append_c (k->s, '"');
  if (k->prefix_len > 0)
    g_string_append_len (k->s, k->prefix, (gssize) k->prefix_len);
  append_lit (k->s, ", \"event\": ");
  append_quoted (k->s, event);
}

/* A timed section: the line is written at its end; the duration is measured on the same
 * microsecond clock so that start = timestamp - duration_sec holds exactly. */
void
line_open_timed (LineSink *k, gint64 start_us, gint64 end_us, const char *event)
{
  line_open (k, end_us, event);
  put_key (k->s, "duration_sec");
  append_seconds (k->s, end_us - start_us);
}

/* The next key of the line's extra object, which the first key opens. */
void
line_key (LineSink *k, const char *key)
{
  if (!k->in_extra)
    {
      append_lit (k->s, ", \"extra\": {\"");
      g_string_append (k->s, key);
      append_lit (k->s, "\": ");
      k->in_extra = TRUE;
    }
  else
    append_key (k->s, key);
}

static void
append_request_id (GString *s, const RequestPlan *p)
{
  g_string_append_c (s, '"');
  g_string_append_len (s, p->id, 36);
  g_string_append_c (s, '"');
}

void
line_request_id (LineSink *k, const RequestPlan *p)
{
  line_key (k, "request_id");
  append_request_id (k->s, p);
}

void
line_close (LineSink *k)
{
  if (k->in_extra)
    g_string_append_c (k->s, '}');
  g_string_append_len (k->s, k->suffix, (gssize) k->suffix_len);
  if (k->refs != NULL)
    {
      LineRef ref = { k->line_end, k->line_offset, (guint32) (k->s->len - k->line_offset),
                      k->refs->len };
      g_array_append_val (k->refs, ref);
    }
}

/* A request-level timed section whose extra holds only the request id. */
void
emit_request_section (LineSink *k, const RequestPlan *p, gint64 base, gint64 start, gint64 end,
                      const char *event)
{
  line_open_timed (k, base + start, base + end, event);
  line_request_id (k, p);
  line_close (k);
}

/* The request's summary as both generations start it; the newer one goes on with its figures. */
void
request_complete_open (LineSink *k, const RequestPlan *p, gint64 base)
{
  line_open_timed (k, base, base + p->end, "async_rollout_request_complete");
  line_request_id (k, p);
  put_key (k->s, "batch_data_id");
  append_int (k->s, p->batch_data_id);
  put_key (k->s, "finish_reason");
  append_quoted (k->s, request_finish_names[p->finish]);
  put_key (k->s, "turns");
  append_int (k->s, p->n_turns);
}

double
percent (gint64 part, gint64 whole)
{
  return whole > 0 ? 100.0 * (double) part / (double) whole : 0.0;
}

/* How a value is read from the turn's plan. */
typedef enum {
  VALUE_REQUEST_ID,
  VALUE_TURN,   /* the turn's index plus `a` */
  VALUE_INT,    /* the int at offset `a` */
  VALUE_BOOL,   /* the gboolean at offset `a` */
  VALUE_FINISH, /* the turn's finish */
  VALUE_SPAN,   /* seconds from the time at `a` to the time at `b` */
  VALUE_SHARE,  /* that span as a percentage of the whole turn */
} ValueKind;

#define ONE_FIELD(field) TURN_FIELD (field), 0

/* Every value a turn line can carry, under the key the loggers give it in every line. */
static const struct {
  const char *key;
  ValueKind kind;
  glong a, b;
} turn_values[] = {
  [TV_REQUEST_ID] = { "request_id", VALUE_REQUEST_ID, 0, 0 },
  [TV_TURN] = { "turn", VALUE_TURN, 0, 0 },
  [TV_TURN_FROM_1] = { "turn", VALUE_TURN, 1, 0 },
  [TV_NEXT_TURN] = { "turn", VALUE_TURN, 1, 0 },
  [TV_SEQUENCE_LENGTH] = { "current_sequence_length", VALUE_INT, ONE_FIELD (sequence_length) },
  [TV_PROMPT_LENGTH] = { "generation_prompt_length", VALUE_INT,
                         ONE_FIELD (generation_prompt_length) },
  [TV_GENERATED_TOKENS] = { "generated_tokens", VALUE_INT, ONE_FIELD (generated_tokens) },
  [TV_TEXT_LENGTH] = { "output_text_length", VALUE_INT, ONE_FIELD (text_length) },
  [TV_RAW_TOOL_CALLS] = { "raw_tool_calls", VALUE_INT, ONE_FIELD (raw_tool_calls) },
  [TV_PARSED_TOOL_CALLS] = { "parsed_tool_calls", VALUE_INT, ONE_FIELD (parsed_tool_calls) },
  [TV_HAS_TOOL_CALLS] = { "has_tool_calls", VALUE_BOOL, ONE_FIELD (has_tool_calls) },
  [TV_FINISH] = { "finish_reason", VALUE_FINISH, 0, 0 },
  [TV_TOTAL_DURATION] = { "total_duration", VALUE_SPAN, TURN_SPAN (start, end) },
  [TV_PRE_DURATION] = { "pre_process_duration", VALUE_SPAN, TURN_SPAN (start, pre_end) },
  [TV_ENGINE_DURATION] = { "engine_call_duration", VALUE_SPAN,
                           TURN_SPAN (engine_start, engine_end) },
  [TV_POST_DURATION] = { "post_process_duration", VALUE_SPAN, TURN_SPAN (post_start, post_end) },
  /* 0.0 for a turn without tool calls: request_plan leaves its parse times at zero. */
  [TV_PARSING_DURATION] = { "tool_parsing_duration", VALUE_SPAN,
                            TURN_SPAN (parse_start, parse_end) },
  [TV_ENGINE_PCT] = { "engine_call_pct", VALUE_SHARE, TURN_SPAN (engine_start, engine_end) },
  [TV_POST_PCT] = { "post_process_pct", VALUE_SHARE, TURN_SPAN (post_start, post_end) },
};

static void
append_turn_value (GString *s, const RequestPlan *p, int turn, TurnValue v)
{
  const TurnPlan *tp = &p->turns[turn];
  glong a = turn_values[v].a, b = turn_values[v].b;
  switch (turn_values[v].kind)
    {
    case VALUE_REQUEST_ID:
      append_request_id (s, p);
      break;
    case VALUE_TURN:
      append_int (s, turn + a);
      break;
    case VALUE_INT:
      append_int (s, G_STRUCT_MEMBER (int, tp, a));
      break;
    case VALUE_BOOL:
      append_bool (s, G_STRUCT_MEMBER (gboolean, tp, a));
      break;
    case VALUE_FINISH:
      append_quoted (s, turn_finish_names[tp->finish]);
      break;
    case VALUE_SPAN:
      append_seconds (s, G_STRUCT_MEMBER (gint64, tp, b) - G_STRUCT_MEMBER (gint64, tp, a));
      break;
    case VALUE_SHARE:
      append_float (s, percent (G_STRUCT_MEMBER (gint64, tp, b) - G_STRUCT_MEMBER (gint64, tp, a),
                                tp->end - tp->start));
      break;
    }
}

/* `values` (up to TV_END) as ", key: value" pairs of an object the caller opened. */
void
append_turn_values (GString *s, const RequestPlan *p, int turn, const TurnValue *values)
{
  for (const TurnValue *v = values; *v != TV_END; v++)
    {
      append_key (s, turn_values[*v].key);
      append_turn_value (s, p, turn, *v);
    }
}

static gboolean
turn_line_applies (const TurnLine *line, const TurnPlan *tp)
{
  switch (line->when)
    {
    case TURN_LINE_ALWAYS:
      return TRUE;
    case TURN_LINE_IF_TOOL_CALLS:
      return tp->has_tool_calls;
    case TURN_LINE_IF_TOOLS_RUN:
      return tp->executes_tools;
    }
  g_assert_not_reached ();
}

/* The lines of one turn, in the order of `lines`: each is written at its end time, with its
 * duration unless it is an instant, and an extra holding its values in order. */
void
emit_turn_lines (LineSink *k, const RequestPlan *p, gint64 base, int turn, const TurnLine *lines,
                 gsize n_lines)
{
  const TurnPlan *tp = &p->turns[turn];
  for (gsize i = 0; i < n_lines; i++)
    {
      const TurnLine *line = &lines[i];
      if (!turn_line_applies (line, tp))
        continue;
      gint64 start = base + G_STRUCT_MEMBER (gint64, tp, line->start);
      if (line->end == TURN_INSTANT)
        line_open (k, start, line->event);
      else
        line_open_timed (k, start, base + G_STRUCT_MEMBER (gint64, tp, line->end), line->event);
      for (int j = 0; j < MAX_TURN_VALUES && line->values[j] != TV_END; j++)
        {
          line_key (k, turn_values[line->values[j]].key);
          append_turn_value (k->s, p, turn, line->values[j]);
        }
      line_close (k);
    }
}

void
emit_section (LineSink *k, const RankStep *rs, const Generation *gen, Section sec)
{
  line_open_timed (k, rs->start[sec], rs->end[sec], gen->section_names[sec]);
  line_close (k);
}
