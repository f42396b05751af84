import { describe, expect, it, vi } from 'vitest';
import { createClient } from '../client.ts';
import { generateOAuthData } from '../modules/identity.ts';
import { OAuthStrategy } from './oauth.ts';
import { generateChallenge, generateState, generateVerifier } from './pkce.ts';

describe('PKCE', () => {
  it('passes the RFC 7636 Appendix B vector', async () => {
    expect(await generateChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('makes verifiers of 43 (default) to 128 unreserved characters from the CSPRNG only', () => {
    const spy = vi.spyOn(Math, 'random');
    expect(generateVerifier()).toMatch(/^[A-Za-z0-9._~-]{43}$/);
    expect(generateVerifier(128)).toMatch(/^[A-Za-z0-9._~-]{128}$/);
    for (let i = 0; i < 1000; i++) expect(generateVerifier()).toMatch(/^[A-Za-z0-9._~-]{43,128}$/);
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });

  it('refuses other lengths with the spec message', () => {
    expect(() => generateVerifier(42)).toThrow('Expected a length between 43 and 128. Received 42.');
    expect(() => generateVerifier(129)).toThrow('Expected a length between 43 and 128. Received 129.');
  });

  it('samples the 66 characters uniformly (no modulo bias)', () => {
    const counts = new Map<string, number>();
    const total = 66 * 3000;
    let drawn = 0;
    while (drawn < total) {
      for (const ch of generateVerifier(128)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
      drawn += 128;
    }
    expect(counts.size).toBe(66);
    // Chi-square with 65 degrees of freedom; p = 0.0001 critical value is about 118.
    const expected = drawn / 66;
    let chi = 0;
    for (const c of counts.values()) chi += (c - expected) ** 2 / expected;
    expect(chi).toBeLessThan(118);
  });

  it('fresh state and verifier every time; a challenge is 43 characters without padding', async () => {
    expect(generateState()).not.toBe(generateState());
    expect(generateVerifier()).not.toBe(generateVerifier());
    // Every authorization request gets its own verifier, challenge and state (checklist 5).
    const client = createClient({ auth: OAuthStrategy({ clientId: 'c' }) });
    const [a, b] = await Promise.all([generateOAuthData(client), generateOAuthData(client)]);
    expect(a.codeVerifier).not.toBe(b.codeVerifier);
    expect(a.codeChallenge).not.toBe(b.codeChallenge);
    expect(a.state).not.toBe(b.state);
    expect(a.codeChallenge).toBe(await generateChallenge(a.codeVerifier));
    expect(generateState()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const c = await generateChallenge(generateVerifier());
    expect(c).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
