// node's memjs (npm, binary protocol) as applications use it: stats on connect, JSON
// values with a type flag through a serializer of the application's, parallel gets,
// add/replace/append (memjs 1.3.2's prepend sends the append opcode, so it is left out), increment with an initial value, touch, expiry, key
// hashing over two servers, and reconnecting after a restart. Run as
// `node memjs_client.js HOST:PORT HOST:PORT PREFIX` with memjs on NODE_PATH; prints
// `ok <check>` or `FAIL <check>: <why>` per check and `restart` where the test
// restarts the first server (then reads a line); exits 0 only when every check passed.
'use strict';
const memjs = require('memjs');
const { Checks, expect, sleepUntil, STATS_FIELDS, VERSION } = require('./checks.js');

const c = new Checks();
const [a, b] = c.servers;
const quiet = { log() {} };
// A serializer as applications write one: JSON, with flag 1 saying so.
const json = {
  serialize(opcode, value, extras) {
    if (Buffer.isBuffer(value) || !extras || extras.length < 4) return { value, extras };
    const flagged = Buffer.from(extras); flagged.writeUInt32BE(1, 0);
    return { value: Buffer.from(JSON.stringify(value)), extras: flagged };
  },
  deserialize(opcode, value, extras) {
    const flags = extras && extras.length >= 4 ? extras.readUInt32BE(0) : 0;
    return { value: flags === 1 ? JSON.parse(value.toString()) : value, extras: flags };
  },
};
const client = (servers, options = {}) => memjs.Client.create(servers,
  Object.assign({ logger: quiet, timeout: 5, retries: 2, retry_delay: 0.2 }, options));
const mc = client(a, { serializer: json });
let expiringSince = Date.now();  // the last write that expires: the expiry wait counts from it

function stats(m) {
  return new Promise((resolve, reject) => {
    const all = {};
    let left = m.servers.length;
    m.stats((err, server, s) => {
      if (err) return reject(err);
      all[server] = s;
      if (--left === 0) resolve(all);
    });
  });
}

(async () => {
  await mc.set(c.key('ttl'), 'soon', { expires: 1 });
  await mc.set(c.key('stays'), 'long', { expires: 3600 });

  await c.check('stats on connect', async () => {
    const s = (await stats(mc))[a];
    const missing = STATS_FIELDS.filter((f) => !(f in s));
    if (missing.length) throw new Error(`stats lacks ${missing}`);
    if (!VERSION.test(s.version)) throw new Error(`version = '${s.version}'`);
  });

  await c.check('JSON values through flags', async () => {
    const value = { user: 'ann', cart: [1, 2, 3], total: 12.5 };
    expect((await mc.set(c.key('obj'), value)), true, 'set');
    const got = await mc.get(c.key('obj'));
    expect(got.flags, 1, 'flags');
    expect(got.value, value);
    const raw = Buffer.from([0, 1, 2, 250, 255]);
    await mc.set(c.key('raw'), raw);
    const back = await mc.get(c.key('raw'));
    expect(back.flags, 0, 'flags of a Buffer');
    expect([...back.value], [...raw]);
  });

  await c.check('200 gets in parallel', async () => {
    const keys = [...Array(200).keys()].map((i) => c.key(`m${i}`));
    await Promise.all(keys.map((k, i) => mc.set(k, { i })));
    const got = await Promise.all(keys.concat([c.key('absent')]).map((k) => mc.get(k)));
    expect(got.map((g) => g.value), keys.map((k, i) => ({ i })).concat([null]));
  });

  await c.check('add, replace, append', async () => {
    expect(await mc.add(c.key('ar'), Buffer.from('mid')), true, 'add');
    expect(await mc.add(c.key('ar'), Buffer.from('x')), false, 'add of a present key');
    expect(await mc.replace(c.key('absent-ar'), Buffer.from('x')), false, 'replace of a missing key');
    await mc.append(c.key('ar'), Buffer.from('>'));
    expect((await mc.get(c.key('ar'))).value.toString(), 'mid>');
  });

  await c.check('increment and decrement', async () => {
    let r = await mc.increment(c.key('n'), 5, { initial: 10 });
    expect(r.value, 10, 'increment of a missing key creates it with the initial value');
    r = await mc.increment(c.key('n'), 5, {});
    expect(r.value, 15);
    r = await mc.decrement(c.key('n'), 100, {});
    expect(r.value, 0, 'decrement below zero');
  });

  await c.check('delete and touch', async () => {
    await mc.set(c.key('del'), 'x');
    expect(await mc.delete(c.key('del')), true, 'delete');
    expect(await mc.delete(c.key('del')), false, 'a second delete');
    expect((await mc.get(c.key('del'))).value, null);
    await mc.set(c.key('touched'), 'x', { expires: 3600 });
    expect(await mc.touch(c.key('touched'), 1), true, 'touch');
    expect(await mc.touch(c.key('absent-t'), 1), false, 'touch of a missing key');
    expiringSince = Date.now();
  });

  await c.check('key hashing over two servers', async () => {
    const ring = client(`${a},${b}`);
    const keys = [...Array(100).keys()].map((i) => c.key(`h${i}`));
    await Promise.all(keys.map((k) => ring.set(k, k)));
    const got = await Promise.all(keys.map((k) => ring.get(k)));
    expect(got.map((g) => g.value.toString()), keys);
    const on = [];
    for (const s of [a, b]) {
      const one = client(s);
      const found = await Promise.all(keys.map((k) => one.get(k)));
      on.push(keys.filter((k, i) => found[i].value !== null));
      one.close();
    }
    if (!on[0].length || !on[1].length)
      throw new Error(`keys on each server: ${on[0].length}, ${on[1].length}`);
    if (on[0].some((k) => on[1].includes(k)) || on[0].length + on[1].length !== 100)
      throw new Error('a key not on exactly one server');
    await Promise.all(keys.map((k) => ring.delete(k)));
    ring.close();
  });

  await c.check('expiry', async () => {
    await sleepUntil(expiringSince, 2200);
    expect((await mc.get(c.key('ttl'))).value, null, 'an item past its exptime');
    expect((await mc.get(c.key('touched'))).value, null, 'an item past its touched exptime');
    expect((await mc.get(c.key('stays'))).value, 'long');
  });

  await c.waitForRestart();

  await c.check('reconnect after a restart', async () => {
    const deadline = Date.now() + 15000;
    for (;;) {
      try { await mc.set(c.key('after'), 'back'); break; } catch (e) {
        if (Date.now() > deadline) throw e;
        await sleepUntil(Date.now(), 200);
      }
    }
    expect((await mc.get(c.key('after'))).value, 'back');
  });
  mc.close();
  process.exit(c.failed ? 1 : 0);
})();
