/**
 * Test helpers: an emulator on port 0 per test file, on embedded storage, or on PostgreSQL in a
 * schema of its own (dropped afterwards) when `SHOPKIT_TEST_DATABASE_URL` is set.
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { EmulatorOptions } from './app.ts';
import { type RunningEmulator, type ServerOptions, startEmulator } from './server.ts';

export type Backend = 'pglite' | 'postgres';

/** The backends to run contract suites on: embedded always, PostgreSQL when configured. */
export function testBackends(): Backend[] {
  return process.env.SHOPKIT_TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
}

export interface TestEmulator extends RunningEmulator {
  backend: Backend;
  /** The PostgreSQL schema of this emulator (postgres backend only). */
  schema?: string;
}

/**
 * Starts an emulator for tests on port 0 (cheap password hashing, demo seed unless told
 * otherwise): the backend first, then the options of `startEmulator` (`db` and `schema` are the
 * backend's unless given). Stop it with `stop()`.
 *
 * @example
 * const emu = await startTestEmulator('pglite', { config: { webhookPollMs: 25 } });
 */
export async function startTestEmulator(
  backend: Backend = 'pglite',
  options: EmulatorOptions & Pick<ServerOptions, 'headersTimeoutMs'> = {},
): Promise<TestEmulator> {
  if (backend !== 'pglite' && backend !== 'postgres')
    throw new TypeError(
      `startTestEmulator(backend, options): backend must be 'pglite' or 'postgres', got ${
        typeof backend === 'string'
          ? JSON.stringify(backend)
          : backend !== null && typeof backend === 'object'
            ? 'an object (the options go second)'
            : String(backend)
      }`,
    );
  // Another database on the test server may be named by `db` (a `postgres://` URL): the schema
  // is made, and dropped, there.
  const pgUrl = typeof options.db === 'string' ? options.db : process.env.SHOPKIT_TEST_DATABASE_URL;
  if (backend === 'postgres' && !pgUrl) throw new Error('SHOPKIT_TEST_DATABASE_URL is not set');
  const schema = backend === 'postgres' ? `t_${randomBytes(6).toString('hex')}` : undefined;
  const running = await startEmulator({
    schema,
    log: () => {},
    ...options,
    db: options.db ?? (backend === 'postgres' ? pgUrl : 'memory'),
    config: { scryptN: 2 ** 10, ...options.config },
    port: 0,
  });
  return {
    ...running,
    backend,
    schema,
    async stop() {
      await running.stop();
      if (schema && pgUrl) {
        const { default: pg } = await import('pg');
        const c = new pg.Client({ connectionString: pgUrl });
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await c.end();
      }
    },
  };
}

/**
 * Logs in on the emulator's hosted login page as a browser would: loads `authUrl` (an authorize
 * URL), reads the page's redirect session and posts its form with `action` (default `login`), without
 * following the answer. Returns the page (its headers) and the answer, whose `Location` carries the
 * code. `fetchFn` is for tests that replace the global fetch.
 * @example const { answer } = await loginOnHostedPage(authUrl, { email, password });
 */
export async function loginOnHostedPage(
  authUrl: string,
  form: { email: string; password: string; action?: string },
  fetchFn: typeof fetch = fetch,
) {
  const page = await fetchFn(authUrl);
  const html = await page.text();
  const session = /name="redirect_session_id" value="([^"]+)"/.exec(html)?.[1];
  if (!session) throw new Error(`no hosted login form at ${new URL(authUrl).pathname} (HTTP ${page.status})`);
  const answer = await fetchFn(new URL('/oauth2/authorize/submit', authUrl), {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({ redirect_session_id: session, action: 'login', ...form }),
  });
  return { page, answer };
}

/** Good answers for the hosted checkout page's form (the total the page shows aside). */
export const CHECKOUT_FORM = {
  email: 'ada@example.com',
  firstName: 'Ada',
  lastName: 'Lovelace',
  addressLine: '1 Main St',
  city: 'Albany',
  postalCode: '12207',
  country: 'US',
  subdivision: 'US-NY',
};

/** The messages the emulator "sent" to `to`, newest first, from its development mailbox. */
export const mailbox = async (emu: { url: string }, to: string) =>
  (await (await fetch(`${emu.url}/_api/emulator/v1/mailbox?to=${encodeURIComponent(to)}`)).json())
    .messages as { subject: string; text: string; code?: string; link?: string }[];
