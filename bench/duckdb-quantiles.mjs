// SPDX-License-Identifier: Apache-2.0
// duckdb-quantiles.mjs: the query a user would write in DuckDB instead of running rt-cdf, for the
// benchmark's side-by-side rows. Per-step and overall request-duration statistics, printed as
// rt-cdf --json prints them, so that bench/compare-cdf.py can check that the answers agree.
//
//   node bench/duckdb-quantiles.mjs EXP [THREADS]     (THREADS defaults to the cores DuckDB sees)
//   node bench/duckdb-quantiles.mjs --start-only      (Node, the library and `SELECT 1`: the part
//                                                      of the time that is not the query)
//
// One read_json over EXP/step_*/worker_*.jsonl with explicit columns (DuckDB skips every other
// key) and ignore_errors (a damaged line is skipped, as rolltrace skips it). The step is the
// folder's number, as rolltrace takes it. Non-finite durations (Python's NaN, Infinity) are left
// out, as rolltrace leaves them out. quantile_cont interpolates between closest ranks, as numpy's
// default percentile and rt-cdf do; std is the population std.
import { DuckDBInstance } from '@duckdb/node-api';

const [exp, threads] = process.argv.slice(2);
if (exp === '--start-only') {
  const instance = await DuckDBInstance.create(':memory:');
  await (await instance.connect()).run('SELECT 1');
  process.exit(0);
}
if (!exp) {
  console.error('usage: node bench/duckdb-quantiles.mjs EXP [THREADS]');
  process.exit(2);
}

const QUANTILES = [
  ['p50', 0.5], ['p80', 0.8], ['p90', 0.9], ['p95', 0.95], ['p99', 0.99], ['p999', 0.999],
];
const quote = (s) => `'${s.replaceAll("'", "''")}'`;

const sql = `
  WITH d AS (
    SELECT CAST(regexp_extract(filename, 'step_([0-9]+)/worker_[0-9]+\\.jsonl$', 1) AS INTEGER) AS step,
           duration_sec AS s
    FROM read_json(${quote(exp + '/step_*/worker_*.jsonl')},
                   columns = {event: 'VARCHAR', duration_sec: 'DOUBLE'},
                   format = 'newline_delimited', ignore_errors = true, filename = true)
    WHERE event = 'async_rollout_request_complete' AND isfinite(duration_sec))
  SELECT step, grouping(step) AS overall, count(*) AS count, avg(s) AS mean,
         stddev_pop(s) AS std, min(s) AS min, max(s) AS max,
         ${QUANTILES.map(([name, q]) => `quantile_cont(s, ${q}) AS ${name}`).join(', ')}
  FROM d
  GROUP BY GROUPING SETS ((step), ())
  ORDER BY overall, step`;

const options = threads ? { threads: String(threads) } : {};
const instance = await DuckDBInstance.create(':memory:', options);
const connection = await instance.connect();
const reader = await connection.runAndReadAll(sql);

const figures = (row) => {
  const out = { count: Number(row.count) };
  for (const key of ['mean', 'std', 'min', 'max', ...QUANTILES.map(([name]) => name)])
    out[key] = row[key];
  return out;
};
const doc = { event: 'async_rollout_request_complete', steps: [], all: null };
for (const row of reader.getRowObjects()) {
  if (Number(row.overall) === 1)
    doc.all = figures(row);
  else
    doc.steps.push({ step: row.step, ...figures(row) });
}
process.stdout.write(JSON.stringify(doc) + '\n');
