/* SPDX-License-Identifier: Apache-2.0 */
/* rt-outstream.h: an output file written as a stream (a trace, a CSV export), gzip-compressed when
 * asked, under a temporary name that only a complete write renames into place (rt-outfile.h). */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _RtOutStream RtOutStream;

/* Opens a temporary beside `path`, to be renamed to it by rt_out_stream_commit; with `gzip`
 * what is written goes through GIO's zlib compressor (gzip format). The folder must exist. */
RtOutStream *rt_out_stream_open (const char *path, gboolean gzip, GError **error);
/* The stream to write to (owned by `o`). */
GOutputStream *rt_out_stream_get (RtOutStream *o);
/* Closes the stream and renames the temporary to the path; `bytes` (may be NULL) gets the
 * size of the file. On a failure the temporary is removed. */
gboolean rt_out_stream_commit (RtOutStream *o, guint64 *bytes, GError **error);
/* The same; with `keep_same`, a file already at the path that holds the very bytes written
 * is left as it is (its time too) and the temporary removed. `replaced` (may be NULL) tells
 * whether the path now names the new file. */
gboolean rt_out_stream_commit_changed (RtOutStream *o, gboolean keep_same, guint64 *bytes, gboolean *replaced,
                                       GError **error);
/* Removes the temporary unless committed. */
void rt_out_stream_free (RtOutStream *o);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtOutStream, rt_out_stream_free)

/* A stream that writes what it is given to `base` on a thread of its own, in order, through
 * a few blocks of 256 KB (a write returns once its bytes are copied; it waits only when every
 * block is queued). The base's first error is returned by the next write, flush or close;
 * closing it writes what is queued and closes `base`. rt_out_stream_open's stream is one. */
GOutputStream *rt_writer_stream_new (GOutputStream *base);
/* The same, `threaded` FALSE: written by the caller (what rt_writer_stream_new falls back to
 * when no thread can be started; for the tests). */
GOutputStream *rt_writer_stream_new_full (GOutputStream *base, gboolean threaded);

/* `path` ends in ".gz" (any case): the name asks for compression. */
gboolean rt_path_wants_gzip (const char *path);

G_END_DECLS
