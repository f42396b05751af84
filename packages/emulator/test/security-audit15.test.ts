/**
 * Findings of a fifteenth audit of the emulator against the security checklist, over raw HTTP on
 * each storage: the token endpoint's raw-HTTP envelope (wire §5.6) answered tokens in an inner
 * HTTP answer without `Cache-Control: no-store` (checklist 42), so a server passing the envelope
 * on as it is made them cacheable. And a plain authorization request whose redirect session the
 * storage failed to keep was told "Unknown client" with a 400, as a client id that is unknown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { authorizeUrl, jsonCalls } from './http.ts';

describe.each(testBackends())('security audit 15 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    // The shop's origin, for a plain authorization request's redirect URI.
    emu = await startTestEmulator(backend, { allowedOrigins: ['http://localhost:5173'] });
  });
  afterAll(() => emu?.stop());
  const { call } = jsonCalls(() => emu);

  describe('checklist 42: the raw-HTTP envelope of the token endpoint', () => {
    /** Posts `inner` to the token endpoint as the generated oauth module does; the envelope back. */
    const enveloped = async (inner: object) => {
      const res = await call('POST', '/oauth2/token', {
        body: Buffer.from(JSON.stringify(inner)).toString('base64'),
      });
      expect(res.status).toBe(200);
      const answer = res.body as {
        body: string;
        statusCode: number;
        headers: { key: string; value: string }[];
      };
      return {
        ...answer,
        json: JSON.parse(Buffer.from(answer.body, 'base64').toString('utf8')),
        header: (name: string) =>
          answer.headers.filter((h) => h.key.toLowerCase() === name.toLowerCase()).map((h) => h.value),
      };
    };

    it('says no-store and no-cache in the answer that carries the tokens, as the plain answer does', async () => {
      const visitor = await enveloped({ clientId: emu.demo.clientId, grantType: 'anonymous' });
      expect(visitor.statusCode).toBe(200);
      expect(visitor.json.access_token).toEqual(expect.any(String));
      const renewed = await enveloped({
        clientId: emu.demo.clientId,
        grantType: 'refresh_token',
        refreshToken: visitor.json.refresh_token,
      });
      expect(renewed.statusCode).toBe(200);
      expect(renewed.json.refresh_token).toEqual(expect.any(String));
      for (const answer of [visitor, renewed]) {
        expect(answer.header('Cache-Control')).toEqual(['no-store']);
        expect(answer.header('Pragma')).toEqual(['no-cache']);
        expect(answer.header('Content-Type')).toEqual(['application/json']);
      }
    });

    it('says so in a refused grant too', async () => {
      const refused = await enveloped({
        clientId: emu.demo.clientId,
        grantType: 'refresh_token',
        refreshToken: 'x',
      });
      expect(refused.statusCode).toBe(400);
      expect(refused.json.details.applicationError.code).toBe('invalid_grant');
      expect(refused.header('Cache-Control')).toEqual(['no-store']);
      expect(refused.header('Content-Type')).toEqual(['application/json']);
    });
  });

  describe('a plain authorization request when the storage fails', () => {
    it('answers as a storage failure (503), not as an unknown client (400), and the known client is served after', async () => {
      const url = authorizeUrl(emu, 'http://localhost:5173/callback', { response_mode: 'query' });
      const db = emu.emu.db;
      const tx = db.tx.bind(db);
      db.tx = (() => Promise.reject(new Error('Connection terminated unexpectedly'))) as typeof db.tx;
      let failed: Response;
      try {
        failed = await fetch(url, { redirect: 'manual' });
      } finally {
        db.tx = tx;
      }
      expect(failed.status).toBe(503);
      expect(await failed.text()).not.toContain('Unknown client');
      const served = await fetch(url, { redirect: 'manual' });
      expect(served.status).toBe(200);
      // An unknown client is still told so.
      const unknown = await fetch(
        authorizeUrl(emu, 'http://localhost:5173/callback', { client_id: 'no-such-client' }),
      );
      expect(unknown.status).toBe(400);
      expect(await unknown.text()).toContain('Unknown client');
    });
  });
});
