/* spans-shim.h: PROVISIONAL stand-in for the shared spans analysis (rt-analyses.h), until it lands.
 * Removed when it does. */
#pragma once
#include "rolltrace/rt-analyses.h"

typedef struct { guint16 event; double start_s, end_s; } RtSpanSection;
typedef enum { RT_SPAN_TURN, RT_SPAN_PHASE } RtSpanKind;
typedef struct { guint16 event; RtSpanKind kind; gint32 turn; double start_s, end_s; } RtSpanLine;
typedef struct { guint request; double start_s, end_s; RtSpanLine *lines; guint n_lines; } RtSpanRequest;
typedef struct { guint file; gint32 worker; RtSpanSection *sections; guint n_sections;
                 RtSpanRequest *requests; guint n_requests; } RtSpansFile;
typedef struct { GArray *files; } RtSpans;

RtSpans *rt_spans_analyse (const RtTrace *t, guint step_index, const RtStepSet *workers);
void rt_spans_free (RtSpans *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtSpans, rt_spans_free)
