/**
 * Data a newer emulator wrote: an older emulator started on it (a branch checked out after a newer
 * one ran on the same data directory) says so, naming the migrations it does not know, instead of
 * starting in silence on tables that may hold columns and rules it has never heard of.
 */
import { expect, it } from 'vitest';
import { createEmulator } from '../src/app.ts';
import { openDb } from '../src/db/index.ts';

it('warns when the database holds migrations this emulator does not know, and not otherwise', async () => {
  const db = await openDb('memory');
  try {
    const lines: string[] = [];
    await createEmulator({ db, log: (l) => lines.push(l) });
    expect(lines.filter((l) => l.includes('newer emulator'))).toEqual([]);
    // What a newer emulator would leave behind: migrations past this version's.
    await db.query("INSERT INTO _migrations (id) VALUES ('9998_from_the_future'), ('9999_later_still')");
    await createEmulator({ db, log: (l) => lines.push(l) });
    expect(lines.filter((l) => l.includes('newer emulator'))).toEqual([
      '[emulator] warning: this database was written by a newer emulator (migrations unknown here: 9998_from_the_future, 9999_later_still); it may not work as expected: run the newer emulator, or start on a new data directory',
    ]);
  } finally {
    await db.close();
  }
}, 120_000);
