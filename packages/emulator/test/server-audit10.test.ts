/**
 * Findings of the tenth audit of the emulator's server (each test failed before its fix): answers
 * that may be cached say that they vary by Origin even when they carry no CORS header.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../src/testing.ts';

const SHOP = 'http://shop.test:5173';
const varies = (res: Response) => /(^|,\s*)Origin(\s*,|$)/i.test(res.headers.get('vary') ?? '');

describe('server audit 10', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator('pglite', { allowedOrigins: [SHOP] });
  });
  afterAll(() => emu?.stop());

  // A product image is public and cached for a day. Loaded first by an <img> (no Origin, so no
  // Access-Control-Allow-Origin), the copy without `Vary: Origin` was the one the browser's cache
  // gave the storefront's later CORS fetch of the same URL, which then failed.
  it('a /media image fetched without Origin, or from another origin, says Vary: Origin', async () => {
    for (const headers of [{}, { origin: 'http://evil.test' }] as Record<string, string>[]) {
      const res = await fetch(`${emu.url}/media/p-1.svg`, { headers });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toMatch(/max-age/);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(varies(res), JSON.stringify(headers)).toBe(true);
      await res.body?.cancel();
    }
    const cors = await fetch(`${emu.url}/media/p-1.svg`, { headers: { origin: SHOP } });
    expect(cors.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(varies(cors)).toBe(true);
    await cors.body?.cancel();
  });

  it('so does an API answer and an error, with one Vary header, not two', async () => {
    for (const path of ['/health', '/no/such/route']) {
      const res = await fetch(emu.url + path);
      expect(res.headers.get('vary'), path).toBe('Origin');
      await res.body?.cancel();
    }
  });
});
