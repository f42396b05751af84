/**
 * Findings of the eleventh audit of the emulator's server (each test failed before its fix):
 * - two spellings of one receiver URL (`HTTP://127.0.0.1:…`, `…/./hook`, a leading space) were
 *   two subscriptions, each sent every event (a client that retries its create with the URL as
 *   typed elsewhere got its events twice); on the API and on the command line alike;
 * - a `--webhook` URL the API would refuse (over 2048 characters, a control character) passed the
 *   command line's own check and failed the start with exit code 1, "could not start" (and, for
 *   the long one, "got a http: URL"), where a bad command line is exit code 2 and says what is wrong;
 * - a request whose target or Host header makes no URL (`OPTIONS *`, `Host: a b`, `Host: x:99999`)
 *   and an HTTP/1.1 request without a Host header were answered 400 with an empty body, not the
 *   platform's envelope.
 */
import type { ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { exited, startCli } from './faults-cli.ts';

const SUBS = '/_api/emulator/v1/webhooks/subscriptions';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

describe.each(testBackends())('server audit 11 (%s)', (backend) => {
  const emus: TestEmulator[] = [];
  afterAll(async () => {
    for (const e of emus) await e.stop();
  });

  it('two spellings of one receiver URL are one subscription, stored as the URL parser writes it', async () => {
    const emu = await startTestEmulator(backend, { seed: 'none', config: { webhookPollMs: 600_000 } });
    emus.push(emu);
    const subscribe = async (url: string) => {
      const res = await fetch(emu.url + SUBS, {
        method: 'POST',
        headers: { authorization: emu.demo.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ url }),
      });
      expect(res.status, url).toBe(200);
      return (await res.json()).subscription as { id: string; url: string };
    };
    const first = await subscribe('http://127.0.0.1:4999/hook');
    for (const spelling of [
      'HTTP://127.0.0.1:4999/hook',
      'http://127.0.0.1:4999/./hook',
      ' http://127.0.0.1:4999/hook ',
    ]) {
      const again = await subscribe(spelling);
      expect(again.id, spelling).toBe(first.id);
      expect(again.url).toBe('http://127.0.0.1:4999/hook');
    }
    const list = await (await fetch(emu.url + SUBS, { headers: { authorization: emu.demo.apiKey } })).json();
    expect(list.subscriptions).toHaveLength(1);
  });

  it('so are two spellings of one --webhook URL', async () => {
    const emu = await startTestEmulator(backend, {
      seed: 'none',
      config: { webhookPollMs: 600_000 },
      webhooks: ['http://127.0.0.1:4999/in', 'HTTP://127.0.0.1:4999/in'],
    });
    emus.push(emu);
    const list = await (await fetch(emu.url + SUBS, { headers: { authorization: emu.demo.apiKey } })).json();
    expect(list.subscriptions.map((s: { url: string; source: string }) => [s.url, s.source])).toEqual([
      ['http://127.0.0.1:4999/in', 'COMMAND_LINE'],
    ]);
  });
});

/** Sends `request` as written on a new connection; resolves with all the server sent once it closes. */
function rawExchange(url: string, request: string) {
  const { hostname, port } = new URL(url);
  return new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.on('data', (d) => {
      received += d;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.write(request);
  });
}

describe.each(testBackends())('requests that make no URL (%s)', (backend) => {
  let emu: TestEmulator;
  afterAll(() => emu?.stop());

  it.each([
    ['OPTIONS *', 'OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
    ['a Host header with a space', 'GET /health HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n'],
    [
      'a Host header whose port is out of range',
      'GET /health HTTP/1.1\r\nHost: x:99999\r\nConnection: close\r\n\r\n',
    ],
    ['no Host header (HTTP/1.1)', 'GET /health HTTP/1.1\r\n\r\n'],
  ])('%s is a 400 in the platform envelope', async (_, request) => {
    emu ??= await startTestEmulator(backend, { seed: 'none' });
    const answer = await rawExchange(emu.url, request);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/\r\ncontent-type: application\/json/i);
    expect(answer).toMatch(/\r\nx-wix-request-id: [0-9a-f-]{36}\r\n/i);
    const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
    expect(JSON.parse(body)).toMatchObject({
      details: { applicationError: { code: 'MALFORMED_REQUEST', data: {} } },
    });
  });

  it('an HTTP/1.0 request without Host, and one in absolute form, are answered', async () => {
    emu ??= await startTestEmulator(backend, { seed: 'none' });
    for (const request of [
      'GET /health HTTP/1.0\r\n\r\n',
      'GET http://127.0.0.1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    ]) {
      const answer = await rawExchange(emu.url, request);
      expect(answer, request).toMatch(/^HTTP\/1\.1 200 /);
      expect(answer.endsWith('{"ok":true}'), request).toBe(true);
    }
  });
});

describe('--webhook URLs the API would refuse', () => {
  it.each([
    ['over 2048 characters', `http://127.0.0.1:4999/${'a'.repeat(2100)}`, /at most 2048 characters/],
    ['with a control character', 'http://127.0.0.1:4999/in\tx', /absolute http.*control characters/],
  ])('one %s is a bad command line (exit code 2)', async (_, url, message) => {
    const bad = startCli('memory', ['--webhook', url]);
    children.push(bad.child);
    const refused = await bad.ready.then(
      () => new Error('started'),
      (e: Error) => e,
    );
    await exited(bad.child);
    expect(bad.stderr()).toMatch(message);
    expect(bad.stderr()).not.toMatch(/could not start/);
    expect(refused.message).not.toBe('started');
    expect(bad.child.exitCode).toBe(2);
  });
});
