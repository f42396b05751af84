/**
 * `createEmulator` called directly (the package's export, as a test harness or another server
 * would) with a data directory it cannot use: the same sentences as `startEmulator` and the CLI
 * (test/cli-audit3.test.ts), never PGlite's raw errors, and nothing written among other files.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../src/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'shopkit-datadir-direct-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('createEmulator on a data directory it cannot use', () => {
  it('names a db that is a file, and leaves the file as it was', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'mine\n');
    await expect(createEmulator({ db: file, seed: 'none' })).rejects.toThrow(
      `the data directory ${file} is a file, not a directory; give the emulator a directory`,
    );
    expect(readFileSync(file, 'utf8')).toBe('mine\n');
  });

  it('refuses a directory of other files and writes nothing into it', async () => {
    const project = join(dir, 'project');
    mkdirSync(join(project, 'src'), { recursive: true });
    writeFileSync(join(project, 'package.json'), '{}');
    await expect(createEmulator({ db: project, seed: 'none' })).rejects.toThrow(
      `${project} is not an emulator data directory: it holds other files (package.json, src) and no database; give the emulator a new or empty directory`,
    );
    expect(readdirSync(project).sort()).toEqual(['package.json', 'src']);
  });

  it('says data of another PostgreSQL version cannot be read, not "PGlite failed to initialize properly"', async () => {
    const older = join(dir, 'pg17');
    mkdirSync(older);
    writeFileSync(join(older, 'PG_VERSION'), '17\n');
    await expect(createEmulator({ db: older, seed: 'none' })).rejects.toThrow(
      `the data directory ${older} could not be opened: it holds PostgreSQL 17 data that this emulator's PGlite cannot read (written by another version, or damaged); move it away and start on a new directory`,
    );
    expect(readdirSync(older)).toEqual(['PG_VERSION']);
  });

  it('opens a new directory, and the same directory again once closed', async () => {
    const data = join(dir, 'data');
    const first = await createEmulator({ db: data, seed: 'none' });
    await first.close();
    const again = await createEmulator({ db: data, seed: 'none' });
    await again.close();
    expect(readdirSync(data)).toContain('PG_VERSION');
  });
});
