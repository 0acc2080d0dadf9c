/* SPDX-License-Identifier: Apache-2.0 */
/* error.c: the rolltrace GError domain and how its codes become exit statuses.
 * Kept apart so every command maps errors to exit codes the same way. */
#include "rolltrace/rt-error.h"

G_DEFINE_QUARK (rolltrace-error-quark, rt_error)

int
rt_error_exit_status (const GError *error)
{
  if (error != NULL && error->domain == RT_ERROR && error->code == RT_ERROR_USAGE)
    return 2;
  if (error != NULL && error->domain == G_OPTION_ERROR)
    return 2;
  return 1;
}
