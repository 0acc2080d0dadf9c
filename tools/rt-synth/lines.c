/* rt-synth's lines: the frame every line of a worker file shares (timestamp, event, extra,
 * workid, step) and the names both logger generations use. */
#include "synth.h"

const char *const turn_finish_names[] = { "tool_calls", "stop", "length" };
/* The request's finish as verl's enum prints; TOOL_CALL means it ran out of turns mid-tool-use. */
const char *const request_finish_names[] = {
  "FinishReasonTypeEnum.TOOL_CALL", "FinishReasonTypeEnum.STOP", "FinishReasonTypeEnum.LENGTH",
};

const char *const section_names[2][N_SECTIONS] = {
  [SCHEMA_V1] = { "preprocessing", "async_generate", "sorting", "barrier", "broadcast",
                  "data_extraction", "padding", "concatenation", "batch_construction",
                  "cache_flush", "final_construction", "total" },
  [SCHEMA_V2] = { "preprocessing_duration", "async_generate_duration", "sorting_duration",
                  "barrier_wait_duration", "broadcast_duration", "data_extraction_duration",
                  "padding_duration", "concatenation_duration", "batch_construction_duration",
                  "cache_flush_duration", "final_construction_duration", "total_step_duration" },
};

void
line_open (LineSink *k, gint64 end_us, const char *event)
{
  k->line_offset = k->s->len;
  k->line_end = end_us;
  append_lit (k->s, "{\"timestamp\": \"");
  append_timestamp (k->s, end_us);
  append_lit (k->s, "\", \"event\": \"");
  g_string_append (k->s, event);
  g_string_append_c (k->s, '"');
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

void
extra_open_request (LineSink *k, const char *request_id)
{
  append_lit (k->s, ", \"extra\": {\"request_id\": \"");
  g_string_append_len (k->s, request_id, 36);
  g_string_append_c (k->s, '"');
}

void
line_close (LineSink *k, gboolean had_extra)
{
  if (had_extra)
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
  extra_open_request (k, p->id);
  line_close (k, TRUE);
}

void
emit_turn_section (LineSink *k, const RequestPlan *p, gint64 base, gint64 start, gint64 end,
                   const char *event, int turn)
{
  line_open_timed (k, base + start, base + end, event);
  extra_open_request (k, p->id);
  put_key (k->s, "turn");
  append_int (k->s, turn);
  line_close (k, TRUE);
}

double
percent (gint64 part, gint64 whole)
{
  return whole > 0 ? 100.0 * (double) part / (double) whole : 0.0;
}

void
emit_section (LineSink *k, const RankStep *rs, Schema schema, Section sec)
{
  line_open_timed (k, rs->start[sec], rs->end[sec], section_names[schema][sec]);
  line_close (k, FALSE);
}
