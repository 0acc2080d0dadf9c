/* SPDX-License-Identifier: Apache-2.0 */
/* rt-analyses.h: every analysis of rolltrace as a function of a loaded trace, the steps chosen and
 * its options, returning plain results (freed with one call, no I/O), and the tables made of them.
 * Each analysis has a header of its own under analyses/; this one includes them all. */
#pragma once

#include "rolltrace/analyses/common.h"
#include "rolltrace/analyses/cdf.h"
#include "rolltrace/analyses/overview.h"
#include "rolltrace/analyses/workers.h"
#include "rolltrace/analyses/requests.h"
#include "rolltrace/analyses/request-view.h"
#include "rolltrace/analyses/turns.h"
#include "rolltrace/analyses/turn-dist.h"
#include "rolltrace/analyses/events.h"
#include "rolltrace/analyses/check.h"
#include "rolltrace/analyses/train.h"
#include "rolltrace/analyses/spans.h"
#include "rolltrace/analyses/timeline.h"
#include "rolltrace/analyses/export.h"
#include "rolltrace/analyses/compare.h"
#include "rolltrace/analyses/fit.h"
#include "rolltrace/analyses/findings.h"
#include "rolltrace/analyses/tail.h"
#include "rolltrace/analyses/mix.h"
#include "rolltrace/analyses/whatif.h"
