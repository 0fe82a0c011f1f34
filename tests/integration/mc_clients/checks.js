// What the node client scripts of test_memcached_clients.py share (checks.py says how
// a script is run and what it prints).
'use strict';
const assert = require('assert');
const readline = require('readline');

// The general-purpose fields of memcached 1.6's `stats` applications read.
const STATS_FIELDS = ['pid', 'uptime', 'time', 'version', 'curr_connections',
  'total_connections', 'cmd_get', 'cmd_set', 'get_hits', 'get_misses', 'curr_items',
  'bytes', 'limit_maxbytes', 'threads', 'evictions'];
// node memcached's own pattern for a version: digits last.
const VERSION = /^\d+\.\d+\.\d+$/;

class Checks {
  constructor() {
    this.servers = process.argv.slice(2, 4);
    this.prefix = process.argv[4];
    this.failed = 0;
  }
  key(name) { return `${this.prefix}:${name}`; }
  async check(name, fn) {
    try { await fn(); console.log(`ok ${name}`); } catch (e) {
      this.failed++;
      console.log(`FAIL ${name}: ${String(e && e.message || e).split('\n')[0].slice(0, 300)}`);
    }
  }
  waitForRestart() {
    console.log('restart');
    return new Promise((resolve) => {
      const rl = readline.createInterface({ input: process.stdin });
      rl.once('line', () => { rl.close(); resolve(); });
      rl.once('close', resolve);
    });
  }
}

function expect(got, wanted, what = 'value') {
  try { assert.deepStrictEqual(got, wanted); } catch (e) {
    throw new Error(`${what}: got ${JSON.stringify(got)}, expected ${JSON.stringify(wanted)}`.slice(0, 300));
  }
}

function sleepUntil(start, ms) {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, start + ms - Date.now())));
}

module.exports = { Checks, expect, sleepUntil, STATS_FIELDS, VERSION };
