/**
 * In-memory clusters from a cached copy (src/db/snapshot.ts): the first open runs initdb and
 * writes the copy, later ones start from it; a broken copy is replaced; no cache, no copy.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { PGLITE_PARAMS } from '../src/db/index.ts';
import { openMemoryCluster, snapshotFile } from '../src/db/snapshot.ts';

const options = () => ({ startParams: [...PGlite.defaultStartParams, ...PGLITE_PARAMS] });
const dir = mkdtempSync(join(tmpdir(), 'shopkit-snapshot-'));
const open: PGlite[] = [];

async function cluster() {
  const { pg, from } = await openMemoryCluster(PGlite, options());
  open.push(pg);
  return { pg, from };
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((pg) => pg.close()));
  vi.unstubAllEnvs();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('in-memory clusters from a cached copy', () => {
  it('runs initdb once, then starts from the copy, which holds nothing written after it', async () => {
    vi.stubEnv('SHOPKIT_PGLITE_CACHE', join(dir, 'a'));
    const file = snapshotFile(options().startParams)!;
    expect(file.startsWith(join(dir, 'a'))).toBe(true);
    expect(existsSync(file)).toBe(false);

    const first = await cluster();
    expect(first.from).toBe('initdb');
    expect(existsSync(file)).toBe(true);
    await first.pg.exec('CREATE TABLE t (a int); INSERT INTO t VALUES (1)');

    const second = await cluster();
    expect(second.from).toBe('snapshot');
    // A working cluster of its own: the first one's table is not in the copy.
    expect((await second.pg.query(`SELECT to_regclass('t') AS t`)).rows).toEqual([{ t: null }]);
    await second.pg.exec('CREATE TABLE t (b text)');
    await second.pg.query('INSERT INTO t VALUES ($1)', ['x']);
    expect((await second.pg.query('SELECT b FROM t')).rows).toEqual([{ b: 'x' }]);
    expect((await first.pg.query('SELECT a FROM t')).rows).toEqual([{ a: 1 }]);
    // Written under a temporary name and renamed: nothing else is left in the directory.
    expect(readdirSync(join(dir, 'a'))).toEqual([file.split('/').pop()]);
  });

  it('replaces a copy it cannot start from, and the cluster still opens', async () => {
    vi.stubEnv('SHOPKIT_PGLITE_CACHE', join(dir, 'b'));
    const file = snapshotFile(options().startParams)!;
    await cluster();
    for (const broken of [Buffer.from('not a tar'), Buffer.alloc(0)]) {
      writeFileSync(file, broken);
      const { pg, from } = await cluster();
      expect(from).toBe('initdb');
      expect((await pg.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      expect((await cluster()).from).toBe('snapshot');
    }
  });

  it('does without a cache: turned off, or a directory it cannot write', async () => {
    vi.stubEnv('SHOPKIT_PGLITE_CACHE', 'off');
    expect(snapshotFile(options().startParams)).toBeUndefined();
    expect((await cluster()).from).toBe('initdb');

    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, '');
    vi.stubEnv('SHOPKIT_PGLITE_CACHE', join(blocker, 'cache'));
    const { pg, from } = await cluster();
    expect(from).toBe('initdb');
    expect((await pg.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    expect((await cluster()).from).toBe('initdb');
  });

  it('opens when the copy cannot be made (a dump that cannot be read back, as under jsdom)', async () => {
    vi.stubEnv('SHOPKIT_PGLITE_CACHE', join(dir, 'd'));
    class UnreadableDump extends PGlite {
      override async dumpDataDir(): Promise<File | Blob> {
        return {} as Blob;
      }
    }
    const { pg, from } = await openMemoryCluster(UnreadableDump, options());
    open.push(pg);
    expect(from).toBe('initdb');
    expect((await pg.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    expect(existsSync(join(dir, 'd'))).toBe(false);
  });

  it('keys the copy on the start parameters', () => {
    vi.stubEnv('SHOPKIT_PGLITE_CACHE', join(dir, 'c'));
    const a = snapshotFile(options().startParams);
    const b = snapshotFile([...options().startParams, '-c', 'work_mem=8MB']);
    expect(a).not.toBe(b);
    expect(snapshotFile(options().startParams)).toBe(a);
  });
});
