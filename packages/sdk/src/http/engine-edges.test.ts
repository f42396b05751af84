/**
 * Edges of the request engine left by last session's audits, over HTTP: against the emulator, or
 * a plain `node:http` server for bodies the emulator never sends. Each test failed before its fix.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testBackends } from '@shopkit/emulator/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupEmulator, visitorClient } from '../../test/contract/setup.ts';
import { createClient } from '../client.ts';
import * as collections from '../modules/collections.ts';
import { request, slotChains } from './engine.ts';
import { HttpError, SystemError, ValidationError } from './errors.ts';
import { op } from './op.ts';

/** A fetch whose token requests wait until `release()`, counting them; others pass at once. */
function gatedTokens() {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const seen = { tokens: 0 };
  const fn: typeof fetch = async (input, init) => {
    if (String(input).endsWith('/oauth2/token')) {
      seen.tokens++;
      await gate;
    }
    return fetch(input, init);
  };
  return { fetch: fn, release, seen };
}

describe.each(testBackends())('the engine against the emulator (%s)', (backend) => {
  const emu = setupEmulator(backend);

  describe('an abort or a timeout while the auth headers are awaited', () => {
    it('an aborted call rejects at once as aborted; the shared token request goes on for the others', async () => {
      const g = gatedTokens();
      const client = visitorClient(emu, { collections }, { fetch: g.fetch });
      const ctl = new AbortController();
      const aborted = client.collections.getCollectionBySlug('kitchen', { signal: ctl.signal });
      const other = client.collections.getCollectionBySlug('kitchen');
      await expect.poll(() => g.seen.tokens).toBe(1);
      const reason = new Error('the visitor left');
      ctl.abort(reason);
      // The token request is still held: the call must not wait for it.
      const err = await aborted.catch((e) => e);
      expect(err).toBeInstanceOf(SystemError);
      expect(err).toMatchObject({ code: 'ABORTED', status: undefined, requestId: null });
      expect(err.cause).toBe(reason);
      g.release();
      expect((await other).collection.slug).toBe('kitchen');
      expect(g.seen.tokens).toBe(1);
    });

    it('a call whose time runs out rejects as timed out, without waiting for the token', async () => {
      const g = gatedTokens();
      const client = visitorClient(emu, { collections }, { fetch: g.fetch });
      const late = client.collections.getCollectionBySlug('kitchen', { timeoutMs: 20 });
      const err = await late.catch((e) => e);
      expect(err).toBeInstanceOf(SystemError);
      expect(err.code).toBe('TIMEOUT');
      expect(g.seen.tokens).toBe(1);
      g.release();
      // The token it waited for serves the next call.
      expect((await client.collections.getCollectionBySlug('kitchen')).collection.slug).toBe('kitchen');
      expect(g.seen.tokens).toBe(1);
    });

    it('a call aborted before it starts waiting rejects as aborted too', async () => {
      const g = gatedTokens();
      const client = visitorClient(emu, { collections }, { fetch: g.fetch });
      const ctl = new AbortController();
      ctl.abort();
      const err = await client.collections
        .getCollectionBySlug('kitchen', { signal: ctl.signal })
        .catch((e) => e);
      expect(err).toMatchObject({ code: 'ABORTED' });
      g.release();
    });
  });

  describe('deadline slots with a long timeout', () => {
    const HOUR = 3_600_000;

    it('sequential calls leave one slot per deadline, not a chain of full ones', async () => {
      const client = visitorClient(emu, { collections });
      for (let i = 0; i < 100; i++)
        await client.collections.getCollectionBySlug('kitchen', { timeoutMs: HOUR });
      // 100 calls fill ten slots of 10; full slots without calls in flight are dropped.
      expect(Math.max(...slotChains())).toBe(1);
    }, 30_000);

    it('two calls at a time keep no more slots than they have calls in flight', async () => {
      const client = visitorClient(emu, { collections });
      let longest = 0;
      const worker = async () => {
        for (let i = 0; i < 80; i++) {
          await client.collections.getCollectionBySlug(i % 2 ? 'kitchen' : 'summer-linen', {
            timeoutMs: HOUR,
          });
          longest = Math.max(longest, ...slotChains());
        }
      };
      await Promise.all([worker(), worker()]);
      expect(longest).toBeLessThanOrEqual(3);
    }, 30_000);
  });
});

describe('error bodies of any shape (a plain HTTP server)', () => {
  /** Answers `bodies[n]` to the n-th request, with status 400 and a request id. */
  let bodies: string[] = [];
  let base = '';
  const server = createServer((req, res) => {
    req.resume();
    const n = Number(/\d+$/.exec(req.url!)?.[0]);
    res.writeHead(400, { 'content-type': 'application/json', 'x-wix-request-id': `req-${n}` });
    res.end(bodies[n]);
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const thing = op<[n: string], unknown>({ method: 'GET', path: '/t/v1/things/{n}', args: ['n'] });

  it('malformed field violations give a ValidationError with the status and request id', async () => {
    const violations = [
      [null],
      [1, 'x', true],
      [{ field: { toString: 1 }, description: { valueOf: 1, toString: 1 } }],
      [{ field: 7, description: 'too long' }, null],
      [{ field: null }],
    ];
    bodies = violations.map((fieldViolations) =>
      JSON.stringify({ message: 'INVALID_ARGUMENT', details: { validationError: { fieldViolations } } }),
    );
    const client = createClient({ baseUrl: base });
    for (let n = 0; n < bodies.length; n++) {
      const err = (await thing(client, String(n)).catch((e) => e)) as ValidationError;
      expect(err, bodies[n]).toBeInstanceOf(ValidationError);
      expect(err).toMatchObject({ status: 400, requestId: `req-${n}`, code: 'INVALID_ARGUMENT' });
      for (const v of err.violations) {
        expect(typeof v.field).toBe('string');
        expect(typeof v.description).toBe('string');
      }
    }
    expect(((await thing(client, '3').catch((e) => e)) as ValidationError).violations).toEqual([
      { field: '7', description: 'too long' },
    ]);
  });

  it('any other shape gives a well-formed error of its class', async () => {
    bodies = [
      { details: { validationError: { fieldViolations: { field: 'a' } } } },
      { details: { validationError: 'x' } },
      { details: { applicationError: { code: { toString: 1 }, description: 'no' } } },
      { details: { applicationError: { code: 'OUT', description: { toString: 1 } } } },
      { details: [] },
      [1, 2],
      'a string',
      null,
    ].map((b) => JSON.stringify(b));
    const client = createClient({ baseUrl: base });
    for (let n = 0; n < bodies.length; n++) {
      const err = await request(client, 'GET', `/t?n=${n}`).catch((e) => e);
      expect(err, bodies[n]).not.toBeInstanceOf(SystemError);
      expect(err).toMatchObject({ status: 400, requestId: `req-${n}` });
      expect(typeof err.message).toBe('string');
      expect(typeof err.code).toBe('string');
      expect(typeof err.description).toBe('string');
    }
    const app = await request(client, 'GET', '/t?n=2').catch((e) => e);
    expect(app).toMatchObject({ name: 'ApplicationError', code: 'BAD_REQUEST', description: 'no' });
    expect(await request(client, 'GET', '/t?n=0').catch((e) => e)).toBeInstanceOf(HttpError);
  });
});
