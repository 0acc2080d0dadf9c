/* SPDX-License-Identifier: Apache-2.0 */
/* rt-error.h: the project's GError domain.
 * Every failure a user can cause carries one of these codes up to the one place that prints it. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define RT_ERROR (rt_error_quark ())
GQuark rt_error_quark (void);

typedef enum {
  RT_ERROR_USAGE,          /* bad command line: exit status 2 */
  RT_ERROR_NO_EXPERIMENT,  /* missing, empty, unreadable or step-less folder: exit 1 */
  RT_ERROR_IO,             /* reading or writing failed: exit 1 */
  RT_ERROR_NO_DATA,        /* the trace lacks what an analysis needs: exit 1 */
} RtErrorCode;

/* Exit status for an error: 2 for usage errors, 1 for everything else. */
int rt_error_exit_status (const GError *error);

G_END_DECLS
