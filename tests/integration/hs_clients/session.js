// A session of node-handlersocket (npm), the HandlerSocket client for Node.js, as
// its README shows it: open an index, find by id, a secondary index with limit,
// offset, a filter and IN, then every write it has on the write port, and errors.
// test_hs_clients.py runs it against rowsocket and against the original plugin in the
// same server, and compares what it prints. Arguments: host, read port, write port.
// Prints one line per answer: the records (their values `|`-separated, NULL as `NULL`,
// records `;`-separated), the rows changed, or `error <code>`.
'use strict';
const hs = require('node-handlersocket');
const { promisify } = require('util');

const [host, port, portWr] = process.argv.slice(2, 5);

function connect(p) {
  return new Promise((resolve, reject) => {
    const con = hs.connect({ host, port: Number(p) }, () => resolve(con));
    con.once('error', reject);
  });
}
function open(con, ...args) {
  return promisify(con.openIndex.bind(con))(...args);
}
function show(what, records) {
  const row = (r) => (Array.isArray(r) ? r : [r]).map((v) => (v === null ? 'NULL' : v)).join('|');
  console.log(`${what}: ${Array.isArray(records) ? records.map(row).join(';') : records}`);
}
async function run(what, fn) {
  try { show(what, await fn()); } catch (e) { console.log(`${what}: error ${e.message}`); }
}
function call(index, method, ...args) {
  return promisify(index[method].bind(index))(...args);
}

(async () => {
  const con = await connect(port);
  const user = await open(con, 'test', 'user', 'PRIMARY', ['user_name', 'user_email', 'created']);
  const [row] = await call(user, 'find', '=', [101]);
  console.log(row.join('\t'));

  const byName = await open(con, 'test', 'hsc', 'k_name', ['id', 'name', 'n'], ['n']);
  await run('find secondary', () => call(byName, 'find', '=', ['bob'], { limit: 10 }));
  await run('find default limit', () => call(byName, 'find', '>=', ['a']));
  await run('find with offset', () => call(byName, 'find', '>=', ['a'], { limit: 2, offset: 1 }));
  await run('find with filter', () => call(byName, 'find', '>=', ['a'],
    { limit: 10, filters: [hs.filter('n', '>', 15)] }));
  await run('find with IN', () => call(byName, 'find', '=', [hs.in('carol', 'alice')], { limit: 10 }));
  await run('open a missing table', () => open(con, 'test', 'no_such_table', 'PRIMARY', ['id']).then(() => 'opened'));
  await run('open a missing column', () => open(con, 'test', 'hsc', 'PRIMARY', ['nope']).then(() => 'opened'));

  const wr = await connect(portWr);
  const all = await open(wr, 'test', 'hsc', 'PRIMARY', ['id', 'name', 'n']);
  const n = await open(wr, 'test', 'hsc', 'PRIMARY', ['n']);
  await run('insert', () => call(all, 'insert', [10, 'dave', 40]));
  await run('insert a duplicate', () => call(all, 'insert', [10, 'dave', 40]));
  await run('update', () => call(all, 'update', '=', [2], [2, 'bobby', 21]));
  await run('increment', () => call(n, 'increment', '=', [1], [5]));
  await run('decrement', () => call(n, 'decrement', '=', [3], [1]));
  await run('delete', () => call(all, 'delete', '=', [10]));
  await run('update and get', () => call(all, 'updateAndGet', '>=', [0], [1, 'first', 16]));
  await run('increment and get', () => call(n, 'incrementAndGet', '=', [3], [2]));
  await run('after', () => call(all, 'find', '>=', [0], { limit: 100 }));
  con.close();
  wr.close();
})().catch((e) => { console.error(e); process.exit(1); });
