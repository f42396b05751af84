/**
 * The emulator's command line as a child process, for the tests that run it (faults, webhooks,
 * the command itself), and the raw HTTP calls the fault tests make (no SDK, so that nothing
 * retries behind the test's back).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/shopkit-emulator.mjs', import.meta.url));

/** What `shopkit-emulator --json` prints on its first line when it is ready. */
export interface CliInfo {
  url: string;
  clientId: string;
  apiKey: string;
  siteId: string;
}

/**
 * Runs `shopkit-emulator <args>` (in `cwd`, with `env`, when given). `printed(text)` resolves with the standard output once it holds
 * `text`, and rejects (with the end of the standard error) if the command exits first.
 */
export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => {
    stdout += d;
  });
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  let closed = false; // exited, and its output read to the end
  child.once('close', () => {
    closed = true;
  });
  const printed = (text: string) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        if (stdout.includes(text)) resolve(stdout);
        else if (closed)
          reject(new Error(`emulator exited early with ${child.exitCode}: ${stderr.slice(-500)}`));
      };
      child.stdout!.on('data', check);
      child.once('close', check);
      check();
    });
  return { child, printed, stderr: () => stderr };
}

/**
 * Starts `shopkit-emulator --port 0 --db <db> --json <more…>`; `ready` resolves with its first
 * line.
 */
export function startCli(db: string, more: string[] = []) {
  const cli = runCli(['--port', '0', '--db', db, '--json', ...more]);
  const ready = cli.printed('\n').then((out) => JSON.parse(out.slice(0, out.indexOf('\n'))) as CliInfo);
  return { ...cli, ready };
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
