/**
 * Checklist 48: stored passwords are scrypt hashes with OWASP's parameters (N = 2^17, r = 8,
 * p = 1) by default, a fresh 16-byte salt per hash, and no trace of the password. Runs an
 * emulator with the default configuration (no test override of the cost).
 */
import { randomBytes, scryptSync } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEmulator, type EmulatorInstance } from '../src/app.ts';

/** OWASP Password Storage Cheat Sheet: equivalent scrypt settings (N, r, p). */
const OWASP_SCRYPT = [
  [2 ** 17, 8, 1],
  [2 ** 16, 8, 2],
  [2 ** 15, 8, 3],
  [2 ** 14, 8, 5],
  [2 ** 13, 8, 10],
];
const PASSWORD = 'the same password';

let emu: EmulatorInstance;
beforeAll(async () => {
  emu = await createEmulator({ db: 'memory', seed: 'none', log: () => {} });
});
afterAll(() => emu?.close());

const post = (path: string, body: object) =>
  emu.app.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

it('hashes with scrypt N=2^17, r=8, p=1 and a new 16-byte salt each time; same password → different hashes', async () => {
  for (const email of ['one@example.test', 'two@example.test']) {
    const res = await post('/_api/iam/authentication/v2/register', {
      loginId: { email },
      password: PASSWORD,
    });
    expect(res.status).toBe(200);
  }
  const rows = await emu.emu.db.query<{ password_hash: string }>(
    'SELECT password_hash FROM members ORDER BY email',
  );
  expect(rows).toHaveLength(2);
  const parsed = rows.map((r) => {
    const m = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(r.password_hash);
    expect(m, 'the stored form is scrypt$N$r$p$salt$key').not.toBeNull();
    return {
      params: [Number(m![1]), Number(m![2]), Number(m![3])],
      salt: Buffer.from(m![4]!, 'base64url'),
      key: Buffer.from(m![5]!, 'base64url'),
    };
  });
  for (const p of parsed) {
    expect(p.params).toEqual([2 ** 17, 8, 1]);
    expect(OWASP_SCRYPT).toContainEqual(p.params);
    expect(p.salt).toHaveLength(16);
    expect(p.key).toHaveLength(32);
  }
  expect(rows[0]!.password_hash).not.toBe(rows[1]!.password_hash);
  expect(parsed[0]!.salt.equals(parsed[1]!.salt)).toBe(false);
  for (const r of rows) expect(r.password_hash).not.toContain(PASSWORD);
  // The hash verifies the right password only.
  const ok = await post('/_api/iam/authentication/v2/login', {
    loginId: { email: 'one@example.test' },
    password: PASSWORD,
  });
  expect(((await ok.json()) as { state: string }).state).toBe('SUCCESS');
  const wrong = await post('/_api/iam/authentication/v2/login', {
    loginId: { email: 'one@example.test' },
    password: 'not the same password',
  });
  expect(wrong.status).toBe(400);
}, 120_000);

it('stores a hash from a cheaper time again at the configured cost when its password logs in (rehash on upgrade)', async () => {
  const email = 'old@example.test';
  const res = await post('/_api/iam/authentication/v2/register', { loginId: { email }, password: PASSWORD });
  expect(res.status).toBe(200);
  // A hash made when the cost was N = 2^10, in the stored form.
  const salt = randomBytes(16);
  const key = scryptSync(PASSWORD.normalize('NFKC'), salt, 32, { N: 2 ** 10, r: 8, p: 1 });
  const old = `scrypt$1024$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
  await emu.emu.db.query('UPDATE members SET password_hash = $2 WHERE email = $1', [email, old]);
  const stored = async () =>
    (
      await emu.emu.db.query<{ password_hash: string }>(
        'SELECT password_hash FROM members WHERE email = $1',
        [email],
      )
    )[0]!.password_hash;
  // A wrong password changes nothing.
  const wrong = await post('/_api/iam/authentication/v2/login', {
    loginId: { email },
    password: 'not it at all',
  });
  expect(wrong.status).toBe(400);
  expect(await stored()).toBe(old);
  // The right one logs in with the old hash, which is then stored again at N = 2^17.
  const ok = await post('/_api/iam/authentication/v2/login', { loginId: { email }, password: PASSWORD });
  expect(((await ok.json()) as { state: string }).state).toBe('SUCCESS');
  const now = await stored();
  expect(now).toMatch(/^scrypt\$131072\$8\$1\$/);
  expect(now).not.toContain(PASSWORD);
  const again = await post('/_api/iam/authentication/v2/login', { loginId: { email }, password: PASSWORD });
  expect(((await again.json()) as { state: string }).state).toBe('SUCCESS');
  expect(await stored()).toBe(now);
}, 120_000);
