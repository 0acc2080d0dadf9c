// SPDX-License-Identifier: Apache-2.0
// duckdb-query.mjs: runs SQL in DuckDB through the Node.js client that `make bench-deps` installs
// into bench/node_modules, and prints each statement's result as one JSON line:
// {"columns": [{"name", "type"}...], "rows": [[...]...]} (BIGINT and DECIMAL values as text).
//
//   node tests/duckdb-query.mjs BENCH_DIR SQL...     exit 77: the client is not installed there
import { createRequire } from 'node:module';
import path from 'node:path';

const [bench, ...statements] = process.argv.slice(2);
let duckdb;
try {
  duckdb = createRequire(path.resolve(bench, 'package.json'))('@duckdb/node-api');
} catch (e) {
  console.error(`no @duckdb/node-api in ${bench}/node_modules (make bench-deps installs it): ${e.message}`);
  process.exit(77);
}
const instance = await duckdb.DuckDBInstance.create(':memory:');
const connection = await instance.connect();
for (const sql of statements) {
  const reader = await connection.runAndReadAll(sql);
  const names = reader.columnNames(), types = reader.columnTypes();
  process.stdout.write(JSON.stringify({
    columns: names.map((name, k) => ({ name, type: String(types[k]) })),
    rows: reader.getRowsJson(),
  }) + '\n');
}
