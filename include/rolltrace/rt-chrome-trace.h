/* SPDX-License-Identifier: Apache-2.0 */
/* rt-chrome-trace.h: Chrome Trace Event Format files (the JSON object form Perfetto, chrome://tracing,
 * speedscope and DevTools open), written as a stream, and the two rules such viewers need kept. */
#pragma once

#include <gio/gio.h>

#include "rolltrace/rt-jsonw.h"

G_BEGIN_DECLS

/* ---- the writer ---------------------------------------------------------------------- */

/* Events go out as they are written: into a buffer that is handed to the stream whenever it
 * holds RT_CHROME_TRACE_CHUNK bytes, so memory does not grow with the output. Every string
 * goes through the JSON writer (rt-jsonw.h), every number is an integer: a trace written
 * here is valid JSON whatever the input's texts. Times are integer microseconds. */
#define RT_CHROME_TRACE_CHUNK (256 * 1024)

typedef struct _RtChromeTrace RtChromeTrace;

/* Starts {"displayTimeUnit": "ms", "traceEvents": [ on `out` (not owned, not closed). */
RtChromeTrace *rt_chrome_trace_new (GOutputStream *out);
/* Ends the array and the object and flushes. FALSE with the first write error, if any:
 * events written after an error are dropped. */
gboolean rt_chrome_trace_finish (RtChromeTrace *ct, GError **error);
void rt_chrome_trace_free (RtChromeTrace *ct);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtChromeTrace, rt_chrome_trace_free)

guint64 rt_chrome_trace_events (const RtChromeTrace *ct);   /* elements of traceEvents */
guint64 rt_chrome_trace_bytes (const RtChromeTrace *ct);    /* JSON bytes written so far */

/* Calls `func` once, when the JSON written passes `bytes` (a viewer's limit). */
void rt_chrome_trace_on_size (RtChromeTrace *ct, guint64 bytes, void (*func) (gpointer data), gpointer data);

/* Metadata (ph "M"): a process's name and place in the viewer's list, a thread's likewise.
 * Their category is "__metadata", as in Chrome's own traces. */
void rt_chrome_trace_process (RtChromeTrace *ct, gint64 pid, const char *name, gint64 sort_index);
void rt_chrome_trace_thread (RtChromeTrace *ct, gint64 pid, gint64 tid, const char *name, gint64 sort_index);

/* Every other event has a category, `cat` ("cat" in the file: what Perfetto groups, filters
 * and queries by), one of the caller's few constant texts. */

/* A complete event (ph "X") from ts_us to ts_us + dur_us. */
void rt_chrome_trace_complete (RtChromeTrace *ct, gint64 pid, gint64 tid, const char *name, const char *cat,
                               gint64 ts_us, gint64 dur_us);
/* The same with arguments: returns the writer inside the event's "args" object, for the
 * caller's members; rt_chrome_trace_end_args closes it and the event. */
RtJsonWriter *rt_chrome_trace_complete_args (RtChromeTrace *ct, gint64 pid, gint64 tid, const char *name,
                                             const char *cat, gint64 ts_us, gint64 dur_us);
void rt_chrome_trace_end_args (RtChromeTrace *ct);
/* A name and category that many events share (an event's, a turn's), written as JSON once,
 * here: an event of it then copies that text instead of escaping the name again (most of the
 * cost of an event of a trace). Valid for the life of `ct`. */
typedef guint RtChromeName;
RtChromeName rt_chrome_trace_name (RtChromeTrace *ct, const char *name, const char *cat);
/* rt_chrome_trace_complete, of a name of rt_chrome_trace_name: the same bytes. */
void rt_chrome_trace_complete_name (RtChromeTrace *ct, gint64 pid, gint64 tid, RtChromeName name, gint64 ts_us,
                                    gint64 dur_us);
/* A counter sample (ph "C"): track `name` of process `pid` has `value` of `series` from ts_us on. */
void rt_chrome_trace_counter (RtChromeTrace *ct, gint64 pid, const char *name, const char *cat, gint64 ts_us,
                              const char *series, gint64 value);

/* ---- packing: intervals onto as few lanes (threads) as possible -------------------------- */

/* Greedy interval partitioning. Fed intervals [start, end) in order of start, each goes to
 * the lane that became free first (the lower lane on a tie) if that lane is free at its start,
 * else to a new lane. Minimal: a new lane opens only when every lane holds an interval that
 * started no later and ends after this start, so that many intervals plus this one overlap at
 * one instant and no packing does with fewer. Fed out of order it stays valid (no two
 * intervals of a lane overlap), only no longer surely minimal. An interval of length 0 needs
 * a lane free at its instant, like any other. */
typedef struct {
  GArray *heap;               /* (free_at, lane) min-heap */
  guint n_lanes;
} RtLanes;

void rt_lanes_init (RtLanes *l);
void rt_lanes_clear (RtLanes *l);
guint rt_lanes_place (RtLanes *l, gint64 start, gint64 end);

/* ---- nesting: the events of one thread, strictly inside one another or apart ----------- */

/* Viewers drop complete events that overlap partially on one thread. A span is one event
 * to be; its level says what may hold what (a request 0, its turns 1, their phases 2). */
typedef struct {
  gint64 start, end;          /* microseconds; changed by rt_nest_spans when clamped */
  guint level;
  guint order;                /* the caller's index, the last tie-break */
  gboolean keep;              /* set by rt_nest_spans: written, or a violation */
  gboolean moved;             /* moved to fit, counted as clamped when kept: set by rt_nest_spans,
                               * or before it by a caller that moved the span itself */
} RtSpan;

/* How far (microseconds) an end may stick out of its parent, a start lie before a holder's
 * start or a start lie before the end of the sibling before it, and be moved to fit: the
 * rounding of start = timestamp - duration to whole microseconds, not a real overlap. */
#define RT_NEST_CLAMP_US 5

typedef struct {
  guint64 clamped;            /* spans moved by at most RT_NEST_CLAMP_US to fit */
  guint64 violations;         /* spans left out: they would overlap partially */
} RtNestCounts;

/* The stack of the spans open on one thread; it lives across the groups written there. */
typedef struct {
  GArray *open;               /* gint64 ends of the spans that hold the next one */
  gint64 last_start;
} RtNest;

void rt_nest_init (RtNest *n);
void rt_nest_clear (RtNest *n);

/* Decides which spans of one group (a request with its turns and phases; a worker file's
 * step sections) are written and sorts them in the order to write them (parents first).
 * With `rooted`, spans[0] is the group's root (a request): every other span must lie in it.
 * The rule, deterministic:
 *  0. with `rooted`, a span that sticks out of the root by at most RT_NEST_CLAMP_US is cut
 *     to it; one that sticks out further is a violation (it belongs to no other request);
 *  1. a span that starts at most RT_NEST_CLAMP_US before a span that it overlaps and that
 *     can hold it (longer, ending no more than RT_NEST_CLAMP_US before it, whatever its level; of
 *     two as long, the one of the lower level) starts
 *     with it: a phase logged a microsecond before its turn is in it, and so is a turn that
 *     starts a microsecond before the main_loop phase holding it; holders move first, by
 *     level, so that what they hold follows them;
 *  2. spans are taken by start, then the longer first, then level, then `order`;
 *  3. the spans still open that end at or before its start are closed; then a span that
 *     ends after the innermost open one: by at most RT_NEST_CLAMP_US, ends with it; else,
 *     when it starts at most RT_NEST_CLAMP_US before that one's end, starts there (a
 *     sibling) and is tried against the next open span; else it is a violation, left out;
 *  4. a span that ends before it starts, or starts before a span written earlier on the
 *     thread, is a violation too.
 * Every span kept is then inside each open span it meets, or after it: no partial overlap. */
void rt_nest_spans (RtNest *n, RtSpan *spans, guint n_spans, gboolean rooted, RtNestCounts *counts);

G_END_DECLS
