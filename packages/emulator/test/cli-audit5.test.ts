/**
 * Findings of an audit of the emulator's command line and storage: a stop (SIGTERM, Ctrl-C,
 * `stop()`) under clients that kept their connections busy never ended (each answered request was
 * followed by the next on the same connection); `--host ''` bound every interface and printed
 * `http://:PORT`; a data directory without its control file gave PGlite's "Aborted(). Build with
 * -sASSERTIONS …" instead of the sentence naming the directory; PostgreSQL's refusal named the
 * URL's user.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startEmulator } from '../src/server.ts';
import { exited, runCli, startCli } from './faults-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'shopkit-cli-audit5-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function run(args: string[]) {
  const cli = runCli(args);
  children.push(cli.child);
  await exited(cli.child);
  return { code: cli.child.exitCode, err: cli.stderr() };
}

it('stops on SIGTERM while clients keep their connections busy, each answer after it closing its connection', async () => {
  const cli = startCli('memory');
  children.push(cli.child);
  const info = await cli.ready;
  let answered = 0;
  // Back to back on kept-alive connections (fetch's default): never an idle moment to close.
  const client = async () => {
    for (;;)
      try {
        const res = await fetch(`${info.url}/stores-reader/v1/collections/slug/all-products`, {
          headers: { authorization: info.apiKey },
        });
        await res.text();
        answered++;
      } catch {
        return; // refused: the server is gone
      }
  };
  const clients = [client(), client(), client()];
  while (answered < 20) await new Promise((r) => setTimeout(r, 10));
  cli.child.kill('SIGTERM');
  // Was: never exited (the test's own timeout said so), serving the busy connections for ever.
  await exited(cli.child);
  expect(cli.child.exitCode).toBe(0);
  await Promise.all(clients);
});

it('refuses an empty --host, which bound every interface and printed http://:PORT', async () => {
  const r = await run(['--port', '0', '--host', '']);
  expect(r.code).toBe(2);
  expect(r.err).toContain('shopkit-emulator: --host must be an address such as 127.0.0.1 or 0.0.0.0, got ""');
});

it('names a data directory without its control file, instead of "Aborted(). Build with -sASSERTIONS"', async () => {
  const data = join(dir, 'damaged');
  const first = await startEmulator({ db: data, log: () => {} });
  await first.stop();
  rmSync(join(data, 'global', 'pg_control'));
  const r = await run(['--port', '0', '--db', data]);
  expect(r.code).toBe(1);
  expect(r.err).toContain(`could not start: the data directory ${data} could not be opened:`);
  expect(r.err).toContain('move it away and start on a new directory');
}, 60_000);

/** What a start on a server that refuses every start-up with `message` (an ErrorResponse) says. */
async function refusedWith(message: string, user: string) {
  const server = createServer((socket) => {
    socket.once('data', () => {
      const fields = Buffer.from(`SFATAL\0VFATAL\0C28000\0M${message}\0\0`, 'utf8');
      const head = Buffer.alloc(5);
      head.write('E', 0);
      head.writeInt32BE(fields.length + 4, 1);
      socket.end(Buffer.concat([head, fields]));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  try {
    const said = await startEmulator({ db: `postgres://${user}:secret@127.0.0.1:${port}/shop` }).then(
      () => 'started',
      (e: Error) => e.message,
    );
    return said.replace(`127.0.0.1:${port}`, 'HOST');
  } finally {
    server.close();
  }
}

it("says PostgreSQL's refusal without the URL's user, and its other words as they are", async () => {
  expect(await refusedWith('role "someone" does not exist', 'someone')).toBe(
    "PostgreSQL at HOST: role (the URL's user) does not exist",
  );
  expect(await refusedWith('password authentication failed for user "someone"', 'someone')).toBe(
    "PostgreSQL at HOST: password authentication failed for user (the URL's user)",
  );
  // A user named as the database (the usual set-up), or within its name, or with a stray `%`.
  expect(await refusedWith('database "shop" does not exist', 'shop')).toBe(
    'PostgreSQL at HOST: database "shop" does not exist',
  );
  expect(await refusedWith('database "shop" does not exist', 'sh')).toBe(
    'PostgreSQL at HOST: database "shop" does not exist',
  );
  expect(await refusedWith('database "shop" does not exist', 'a%zz')).toBe(
    'PostgreSQL at HOST: database "shop" does not exist',
  );
});

it('stops without throwing when a request it cannot read arrives meanwhile (its answer is sent at once)', async () => {
  const emu = await startEmulator({ db: 'memory', log: () => {} });
  const thrown: unknown[] = [];
  const onUncaught = (e: unknown) => thrown.push(e);
  process.on('uncaughtException', onUncaught);
  try {
    const sock = connect(Number(new URL(emu.url).port), '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    let got = '';
    sock.on('data', (d) => {
      got += d;
    });
    // A request line Hono cannot read, its headers unfinished: the connection is busy at the stop.
    sock.write('GET http://[bad/ HTTP/1.1\r\n');
    await new Promise((r) => setTimeout(r, 100));
    const stopped = emu.stop();
    sock.write('Host: x\r\n\r\n');
    await new Promise((r) => sock.once('close', r));
    await stopped;
    expect(got.split('\r\n')[0]).toMatch(/^HTTP\/1\.1 [45]\d\d /);
    // Was: ERR_HTTP_HEADERS_SENT thrown from the stop's listener, which ended the process.
    expect(thrown).toEqual([]);
  } finally {
    process.off('uncaughtException', onUncaught);
  }
});
