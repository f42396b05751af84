/**
 * Running `shopkit-emulator` the way people do by mistake: twice on one data directory, against a
 * PostgreSQL that never answers, on a port that is taken. Each ends in a sentence on stderr and
 * exit code 1 (2 is for bad flags), with no secret from the command line in it.
 * SIGKILL and a restart on the same data directory are in faults.test.ts.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../src/server.ts';
import { createCollection, exited, getCollection, runCli, startCli } from './faults-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'shopkit-cli-run-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** A TCP server that accepts connections and never says a word (a PostgreSQL that hangs). */
async function silentServer() {
  const sockets: Socket[] = [];
  const server: Server = createServer((s) => sockets.push(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const close = () => {
    for (const s of sockets) s.destroy();
    return new Promise((resolve) => server.close(resolve));
  };
  return { port, close };
}

describe('the shopkit-emulator command, run by mistake', () => {
  it('refuses a data directory another emulator is using, and the first one keeps its writes', async () => {
    const data = join(dir, 'shared');
    const first = startCli(data);
    children.push(first.child);
    const info = await first.ready;

    // Two PGlite instances on one directory each keep their own pages: writes acknowledged by one
    // were lost. The second is refused before it opens anything.
    const second = runCli(['--port', '0', '--db', data, '--json']);
    children.push(second.child);
    await expect(second.printed('\n')).rejects.toThrow('exited early with 1');
    expect(second.stderr()).toContain(
      `shopkit-emulator: could not start: the data directory ${data} is in use by another emulator (pid ${first.child.pid})`,
    );
    expect(second.stderr()).not.toMatch(/Usage:|\n {4}at /);

    const id = await createCollection(info.url, info.apiKey, 'Kept');
    first.child.kill('SIGTERM');
    await exited(first.child);
    expect(first.child.exitCode).toBe(0);

    // Stopped, it leaves the directory to the next one, with the write in it.
    const third = startCli(data);
    children.push(third.child);
    const again = await third.ready;
    expect((await getCollection(again.url, again.apiKey, id)).status).toBe(200);
    third.child.kill('SIGTERM');
    await exited(third.child);
  }, 120_000);

  it('gives up on a PostgreSQL that never answers, saying where, without the password', async () => {
    const silent = await silentServer();
    try {
      const started = Date.now();
      const cli = runCli([
        '--port',
        '0',
        '--db',
        `postgres://app:s3cr3t-pw@127.0.0.1:${silent.port}/shop?sslmode=disable`,
      ]);
      children.push(cli.child);
      await expect(cli.printed('\n')).rejects.toThrow('exited early with 1');
      expect(Date.now() - started).toBeLessThan(25_000);
      expect(cli.stderr()).toContain(
        `shopkit-emulator: could not start: PostgreSQL at 127.0.0.1:${silent.port} did not answer within 10 s`,
      );
      expect(cli.stderr()).not.toMatch(/s3cr3t|app:|Usage:/);
    } finally {
      await silent.close();
    }
  }, 40_000);

  it('says which PostgreSQL refused, without the password', async () => {
    const silent = await silentServer();
    await silent.close(); // now nobody listens on that port
    const cli = runCli(['--port', '0', '--db', `postgres://app:s3cr3t-pw@127.0.0.1:${silent.port}/shop`]);
    children.push(cli.child);
    await expect(cli.printed('\n')).rejects.toThrow('exited early with 1');
    expect(cli.stderr().split('\n')[0]).toBe(
      `shopkit-emulator: could not start: PostgreSQL at 127.0.0.1:${silent.port}: connect ECONNREFUSED 127.0.0.1:${silent.port}`,
    );
    expect(cli.stderr()).not.toMatch(/s3cr3t|Usage:/);
  });

  it('names a taken port, exits 1, and leaves the data directory free', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    const data = join(dir, 'port');
    try {
      const cli = runCli(['--port', String(port), '--db', data]);
      children.push(cli.child);
      await expect(cli.printed('\n')).rejects.toThrow('exited early with 1');
      expect(cli.stderr().split('\n')[0]).toBe(
        `shopkit-emulator: could not start: port ${port} on 127.0.0.1 is in use; stop what holds it, or pick another with --port (0 = any free port)`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
    const next = startCli(data);
    children.push(next.child);
    await next.ready;
    next.child.kill('SIGTERM');
    await exited(next.child);
    expect(next.child.exitCode).toBe(0);
  }, 60_000);
});

describe('the shopkit-emulator command with --seed none', () => {
  it('prints credentials that work, on a store with no demo data but its All Products collection', async () => {
    const data = join(dir, 'unseeded');
    const empty = startCli(data, ['--seed', 'none']);
    children.push(empty.child);
    const info = await empty.ready;
    const merchant = (path: string, init: RequestInit = {}) =>
      fetch(info.url + path, {
        ...init,
        headers: { authorization: info.apiKey, 'content-type': 'application/json' },
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const visitor = await fetch(`${info.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: info.clientId, grantType: 'anonymous' }),
    });
    expect(visitor.status).toBe(200);
    const query = (path: string) => merchant(path, { method: 'POST', body: JSON.stringify({ query: {} }) });
    const PRODUCTS = '/stores-reader/v1/products/query-platformized';
    expect((await query(PRODUCTS)).body.metadata.total).toBe(0);
    const collections = await query('/v2/collections/query');
    expect(collections.body.collections.map((c: any) => c.slug)).toEqual(['all-products']);
    const made = await merchant('/stores/v1/products', {
      method: 'POST',
      body: JSON.stringify({ product: { name: 'First', productType: 'physical', priceData: { price: 1 } } }),
    });
    expect(made.status).toBe(200);
    expect(made.body.product.collectionIds).toEqual(['col-all-products']);
    empty.child.kill('SIGTERM');
    await exited(empty.child);

    // The same store started with the demo later gets it, and keeps what was made meanwhile.
    const demo = startCli(data);
    children.push(demo.child);
    const again = await demo.ready;
    expect(again.apiKey).toBe(info.apiKey);
    const all = await fetch(`${again.url}${PRODUCTS}`, {
      method: 'POST',
      headers: { authorization: again.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ query: { paging: { limit: 100 } }, includeHiddenProducts: true }),
    }).then((r) => r.json() as Promise<any>);
    expect(all.products.map((p: any) => p.name)).toContain('First');
    expect(all.products.map((p: any) => p.slug)).toContain('linen-shirt');
    demo.child.kill('SIGTERM');
    await exited(demo.child);
  }, 60_000);
});

describe('startEmulator with the demo on a store first started without it', () => {
  it('keeps what the merchant made meanwhile, and seeds the rest of the demo', async () => {
    const data = join(dir, 'demo-later');
    const empty = await startEmulator({ db: data, port: 0, seed: 'none' });
    const merchant = (method: string, path: string, body: object) =>
      fetch(empty.url + path, {
        method,
        headers: { authorization: empty.demo.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.status);
    // A product of a demo product's slug, a collection of a demo collection's, All Products renamed.
    expect(
      await merchant('POST', '/stores/v1/products', {
        product: { name: 'Dinner Plate', productType: 'physical', priceData: { price: 99 } },
      }),
    ).toBe(200);
    expect(await merchant('POST', '/stores/v1/collections', { collection: { name: 'Sale' } })).toBe(200);
    expect(
      await merchant('PATCH', '/stores/v1/collections/col-all-products', {
        collection: { name: 'Everything' },
      }),
    ).toBe(200);
    await empty.stop();

    const demo = await startEmulator({ db: data, port: 0 });
    try {
      const read = (path: string, more = {}) =>
        fetch(demo.url + path, {
          method: 'POST',
          headers: { authorization: demo.demo.apiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ query: { paging: { limit: 100 } }, ...more }),
        }).then((r) => r.json() as Promise<any>);
      const { products } = await read('/stores-reader/v1/products/query-platformized', {
        includeHiddenProducts: true,
      });
      const plates = products.filter((p: any) => p.slug === 'dinner-plate');
      expect(plates.map((p: any) => p.price.price)).toEqual([99]);
      expect(products.map((p: any) => p.slug)).toContain('linen-shirt');
      const { collections } = await read('/v2/collections/query');
      const slugs = collections.map((c: any) => c.slug);
      expect(slugs.filter((s: string) => s === 'sale')).toHaveLength(1);
      expect(slugs).toEqual(expect.arrayContaining(['summer-linen', 'kitchen']));
      // All Products keeps the merchant's name (its slug cannot change), and is there once.
      const all = collections.filter((c: any) => c.slug === 'all-products');
      expect(all.map((c: any) => c.name)).toEqual(['Everything']);
    } finally {
      await demo.stop();
    }
  }, 60_000);
});

describe('startEmulator on a port that is taken', () => {
  it('rejects and closes its storage: the data directory can be opened again in this process', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    const data = join(dir, 'in-process');
    try {
      await expect(startEmulator({ db: data, port, seed: 'none' })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
    const emu = await startEmulator({ db: data, port: 0, seed: 'none' });
    await emu.stop();
  }, 60_000);
});

describe('startEmulator with a headers time limit it cannot keep', () => {
  it.each([0, -5, 1.5, 300_001, Number.NaN])('refuses %s before opening anything', async (ms) => {
    await expect(startEmulator({ db: 'memory', headersTimeoutMs: ms })).rejects.toThrow(
      new RangeError(`headersTimeoutMs must be a whole number of milliseconds from 1 to 300000, not ${ms}`),
    );
  });
});
