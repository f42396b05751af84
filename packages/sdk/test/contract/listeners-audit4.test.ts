/**
 * Node warns (`MaxListenersExceededWarning`, on stderr) when more than 10 listeners wait on one
 * AbortSignal. Calls whose deadlines fall in one slot share its signal, and each call with a
 * signal of the caller's own (React Query passes one to every query) listens on it: more than 10
 * such calls at once printed the warning in every Node server that used the SDK. Over real HTTP
 * (Node's own fetch, which listens on the signal it is given too), against the emulator.
 */
import { testBackends } from '@shopkit/emulator/testing';
import { expect, it } from 'vitest';
import * as collections from '../../src/modules/collections.ts';
import { setupEmulator, visitorClient } from './setup.ts';

// Embedded storage: the warning is the client's, whatever the storage.
const emu = setupEmulator(testBackends()[0]!);

it('sends 40 calls at once, each with a signal of its own, and 40 in a row, with no listener warning', async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => {
    if (w.name === 'MaxListenersExceededWarning') warnings.push(w.message);
  };
  process.on('warning', onWarning);
  try {
    const client = visitorClient(emu);
    const get = () =>
      collections.getCollectionBySlug(client, 'kitchen', { signal: new AbortController().signal });
    await get(); // the visitor's token first
    const all = await Promise.all(Array.from({ length: 40 }, get));
    expect(all.every((r) => r.collection?.slug === 'kitchen')).toBe(true);
    for (let i = 0; i < 40; i++) await collections.getCollectionBySlug(client, 'kitchen');
    // Warnings are emitted on the next tick.
    await new Promise((r) => setImmediate(r));
    expect(warnings).toEqual([]);
  } finally {
    process.off('warning', onWarning);
  }
}, 60_000);
