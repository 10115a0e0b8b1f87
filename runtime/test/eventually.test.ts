import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventually, eventuallyPasses, steadily } from '../src/testing/eventually.js';

describe('eventually', () => {
  it('resolves with the first truthy value, trying again after falsy ones and throws', async () => {
    let tries = 0;
    const value = await eventually(() => {
      tries++;
      if (tries === 1) throw new Error('not ready');
      return tries < 4 ? undefined : { tries };
    }, { intervalMs: 1 });
    assert.deepEqual(value, { tries: 4 });
  });

  it('awaits an async check', async () => {
    let n = 0;
    assert.equal(await eventually(async () => (++n >= 3 ? `n=${n}` : ''), { intervalMs: 1 }), 'n=3');
  });

  it('times out with the message, the time waited and the last value', async () => {
    const started = Date.now();
    await assert.rejects(eventually(() => 0, { timeoutMs: 150, intervalMs: 10, message: 'the count to reach 3' }), (err: Error) => {
      assert.match(err.message, /^Timed out after \d+ ms \(\d+ tries\) waiting for the count to reach 3; last try returned 0$/);
      assert.ok(Number(/after (\d+) ms/.exec(err.message)![1]) >= 150, err.message);
      return true;
    });
    assert.ok(Date.now() - started < 5000, 'gave up near its time-out');
  });

  it('calls a message function when it gives up, to say what was seen then', async () => {
    let seen = 0;
    await assert.rejects(eventually(() => ++seen > 1e9, { timeoutMs: 50, message: () => `more than 1e9 tries (${seen} seen)` }), (err: Error) => {
      const tries = Number(/\((\d+) tries\)/.exec(err.message)![1]);
      assert.match(err.message, new RegExp(`waiting for more than 1e9 tries \\(${tries} seen\\)`));
      return true;
    });
  });

  it("times out naming the last try's error, kept as the cause", async () => {
    const cause = new Error('connection refused');
    await assert.rejects(eventually(() => Promise.reject(cause), { timeoutMs: 50 }), (err: Error) => {
      assert.match(err.message, /waiting for the check; last try threw: connection refused$/);
      assert.equal(err.cause, cause);
      return true;
    });
  });

  it('gives up at the deadline even when a try never settles', async () => {
    const started = Date.now();
    await assert.rejects(eventually(() => new Promise<boolean>(() => undefined), { timeoutMs: 100, message: 'a hung check' }), /a hung check; no try finished in time/);
    assert.ok(Date.now() - started < 5000);
  });
});

describe('eventuallyPasses', () => {
  it('retries an async assertion until it passes, and resolves with what the check returned', async () => {
    let n = 0;
    const got = await eventuallyPasses(
      async () => {
        n++;
        assert.equal(n, 3);
        return 'passed';
      },
      { intervalMs: 1 },
    );
    assert.equal(got, 'passed');
    assert.equal(n, 3);
  });

  it('passes on a check that returns nothing', async () => {
    assert.equal(await eventuallyPasses(() => undefined), undefined);
  });

  it("times out with the last assertion's message", async () => {
    await assert.rejects(eventuallyPasses(() => assert.deepEqual([1, 2], [1, 3]), { timeoutMs: 60, message: 'the list' }), (err: Error) => {
      assert.match(err.message, /waiting for the list; last try threw: Expected values to be strictly deep-equal/);
      assert.equal((err.cause as Error).name, 'AssertionError');
      return true;
    });
  });
});

describe('steadily', () => {
  it('keeps trying for the whole window while the check holds, and resolves with the tries', async () => {
    const started = Date.now();
    let n = 0;
    const tries = await steadily(() => ++n, { forMs: 100, intervalMs: 10 });
    assert.ok(Date.now() - started >= 100, 'kept checking for the whole window');
    assert.equal(tries, n);
    assert.ok(tries >= 3, `${tries} tries`);
  });

  it('fails at the first try that does not hold, naming the message and the try', async () => {
    let n = 0;
    await assert.rejects(steadily(() => ++n < 4, { forMs: 5000, intervalMs: 1, message: 'every agent served' }), /^Error: every agent served stopped holding after \d+ ms, at try 4: it returned false$/);
    assert.equal(n, 4, 'no try after the one that failed');
  });

  it('fails on a try that throws, with the error as its cause', async () => {
    const cause = new Error('503');
    await assert.rejects(steadily(() => Promise.reject(cause), { forMs: 1000 }), (err: Error) => {
      assert.match(err.message, /the check stopped holding after \d+ ms, at try 1: it threw: 503$/);
      assert.equal(err.cause, cause);
      return true;
    });
  });
});
