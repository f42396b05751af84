/**
 * Helpers of the fault tests: the emulator's command line as a child process, and the raw HTTP
 * calls they make (no SDK, so that nothing retries behind the test's back).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/shopkit-emulator.mjs', import.meta.url));

/** Starts `shopkit-emulator --port 0 --db <db> --json`; `ready` resolves with its first line. */
export function startCli(db: string) {
  const child = spawn(process.execPath, [bin, '--port', '0', '--db', db, '--json'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  const ready = new Promise<{ url: string; apiKey: string }>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (l) => resolve(JSON.parse(l)));
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}: ${stderr.slice(-500)}`)));
  });
  return { child, ready, stderr: () => stderr };
}

/** Resolves once the child has exited. One killed by a signal has `signalCode` set, not `exitCode`. */
export const exited = (child: ChildProcess) =>
  new Promise<void>((r) =>
    child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r()),
  );

/** POST a new collection (merchant call). */
export const postCollection = (url: string, apiKey: string, name: string, signal?: AbortSignal) =>
  fetch(`${url}/stores/v1/collections`, {
    method: 'POST',
    headers: { authorization: apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ collection: { name } }),
    signal,
  });

/** Creates a collection; throws unless the emulator answers 200. Resolves with its id. */
export async function createCollection(url: string, apiKey: string, name: string) {
  const res = await postCollection(url, apiKey, name);
  if (res.status !== 200) throw new Error(`create failed with ${res.status}`);
  return (await res.json()).collection.id as string;
}

export const getCollection = (url: string, apiKey: string, id: string, signal?: AbortSignal) =>
  fetch(`${url}/v2/collections/${encodeURIComponent(id)}`, { headers: { authorization: apiKey }, signal });
