/**
 * Findings of the tenth audit of the emulator's server (each test failed before its fix): a stop
 * never ended while a client trickled a request's body (its headers had arrived, so the request
 * was being answered; Node stops timing requests out once the server closes).
 */
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../src/server.ts';

const sockets: Socket[] = [];
const timers: NodeJS.Timeout[] = [];
afterAll(() => {
  for (const t of timers) clearInterval(t);
  for (const s of sockets) s.destroy();
});

/** A connection to `url` that has sent `sent`. */
async function open(url: string, sent: string) {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  sockets.push(socket);
  socket.on('error', () => {});
  await new Promise((r) => socket.once('connect', r));
  socket.write(sent);
  return socket;
}

/** Resolves with 'done' once `p` settles, or with 'still waiting' after `ms`. */
const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p.then(() => 'done'), new Promise((r) => setTimeout(() => r('still waiting'), ms))]);

describe('stopping while a request body trickles in', () => {
  it('stop() ends within the headers time limit, the trickling request closed unanswered', async () => {
    const emu = await startEmulator({ db: 'memory', log: () => {}, headersTimeoutMs: 1000 });
    const body = JSON.stringify({ grant_type: 'anonymous', client_id: 'nobody' });
    // The headers, then one byte of the body every 100 ms: it would take a day to arrive.
    const slow = await open(
      emu.url,
      `POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length + 1_000_000}\r\n\r\n`,
    );
    let received = '';
    slow.on('data', (d) => {
      received += d;
    });
    timers.push(setInterval(() => slow.writable && slow.write(' '), 100));
    // Let the request reach its route, which reads the body.
    await new Promise((r) => setTimeout(r, 300));
    const closed = new Promise((r) => slow.once('close', r));
    // Was: still waiting, for ever (Node's request timeout is not enforced once closing).
    expect(await within(emu.stop(), 15_000)).toBe('done');
    await closed;
    expect(received).toBe('');
  }, 30_000);

  it('a request whose body arrives within the time limit is answered', async () => {
    const emu = await startEmulator({ db: 'memory', log: () => {}, headersTimeoutMs: 1000 });
    const body = JSON.stringify({ grant_type: 'anonymous', client_id: 'nobody' });
    const late = await open(
      emu.url,
      `POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    let received = '';
    late.on('data', (d) => {
      received += d;
    });
    await new Promise((r) => setTimeout(r, 300));
    const closed = new Promise((r) => late.once('close', r));
    const stopped = emu.stop();
    late.write(body);
    await stopped;
    await closed;
    expect(received).toMatch(/^HTTP\/1\.1 4\d\d [\s\S]*"message"/);
  }, 30_000);
});
