/* SPDX-License-Identifier: Apache-2.0 */
/* json-kernel-private.h: one build of the line parser (json-line.cpp) for one instruction set,
 * as a table of functions; the plain build chooses among those the processor runs. */
#pragma once

#include "rolltrace/rt-json.h"

G_BEGIN_DECLS

typedef struct {
  const char *name;   /* "plain", or simdjson's name of the kernel: "haswell", "icelake" */
  void *(*parser_new) (void);
  void (*parser_free) (void *state);
  RtLineStatus (*parse_line) (void *state, const char *line, gsize len, RtLineFields *out,
                              const char **reason);
  gsize (*parse_lines) (void *state, const char *buf, gsize len, RtJsonLineFunc each,
                        gpointer user_data);
} RtJsonKernel;

extern const RtJsonKernel rt_json_kernel_plain;
extern const RtJsonKernel rt_json_kernel_haswell;   /* RT_JSON_HAVE_HASWELL */
extern const RtJsonKernel rt_json_kernel_icelake;   /* RT_JSON_HAVE_ICELAKE */

G_END_DECLS
