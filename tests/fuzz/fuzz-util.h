/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz-util.h: what the fuzz targets share: a scratch folder per process, writing and
 * removing files, and the entry points every target defines (for libFuzzer and replay.c). */
#pragma once

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#include "rolltrace/rt-trace.h"

G_BEGIN_DECLS

/* libFuzzer's entry points. Every target defines both; replay.c calls them too. */
int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* What every target does first: a GLib error (g_error, a failed g_assert) stops the
 * process with SIGTRAP, which libFuzzer does not catch, so that no input would be
 * kept; it is turned into an abort, which libFuzzer reports and saves. And idle
 * loader threads are kept to the end (see fuzz-util.c). */
void rt_fuzz_init (void);

/* A fresh folder `template` (ending in XXXXXX) for this process, removed with
 * everything in it when the process exits normally, or by a later call with the
 * same template once this process is gone. Aborts when none can be made. */
char *rt_fuzz_scratch_dir (const char *template_path);

/* Writes `len` bytes to `path` (created or truncated in place, so it keeps its
 * inode). Aborts on failure: a harness that cannot write its input tests nothing. */
void rt_fuzz_write (const char *path, const void *data, gsize len);

/* Removes `path` and, if it is a folder, everything below it. */
void rt_fuzz_remove_tree (const char *path);

/* A copy of `len` bytes in a block of exactly that size (free with g_free), so that
 * ASan reports a read past its end; never NULL, even for 0 bytes. */
char *rt_fuzz_exact_copy (const void *data, gsize len);

/* Reads every byte of a NUL-terminated string, so that ASan sees a string that
 * points outside its memory or does not end. Returns its length. */
gsize rt_fuzz_touch_string (const char *s);

/* Reads every table of a loaded trace as an analyzer would, and checks that every
 * index lands inside the table it points into, event rows from a cache included. */
void rt_fuzz_check_trace (const RtTrace *t);

/* Reports a broken invariant and aborts, so that libFuzzer keeps the input. */
G_NORETURN void rt_fuzz_fail (const char *format, ...) G_GNUC_PRINTF (1, 2);

G_END_DECLS
