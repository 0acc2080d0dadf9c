#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-golden-cached.sh: t-golden.sh's cases answered from the cache that a run before each wrote:
# every answer (JSON, summary, exit status, TSV files, gnuplot scripts) byte for byte the same.
GOLDEN_CACHED=1 exec bash "$(dirname "$0")/t-golden.sh" "$@"
