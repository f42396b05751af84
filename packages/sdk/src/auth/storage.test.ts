import { describe, expect, it } from 'vitest';
import { OAuthStrategy } from './oauth.ts';
import { type Tokens, webStorage } from './tokens.ts';

/** A Web Storage area over a Map (what localStorage offers, without a browser). */
function area(): Storage {
  const m = new Map<string, string>();
  return {
    get length() {
      return m.size;
    },
    key: (i) => [...m.keys()][i] ?? null,
    getItem: (k) => m.get(k) ?? null,
    setItem: (k, v) => void m.set(k, String(v)),
    removeItem: (k) => void m.delete(k),
    clear: () => m.clear(),
  };
}

const pair = (v: string): Tokens => ({
  accessToken: { value: `at-${v}`, expiresAt: 4_000_000_000 },
  refreshToken: { value: `rt-${v}`, role: 'visitor' },
});

describe('checklist 30: storage keys are namespaced by client id', () => {
  it('two clients with different ids on one storage area never read each other’s tokens', async () => {
    const shared = area();
    const a = OAuthStrategy({ clientId: 'client-a', storage: webStorage(shared, 'client-a') });
    const b = OAuthStrategy({ clientId: 'client-b', storage: webStorage(shared, 'client-b') });
    await a.setTokens(pair('a'));
    expect((await b.getTokens()).accessToken.value).toBe('');
    await b.setTokens(pair('b'));
    expect((await a.getTokens()).accessToken.value).toBe('at-a');
    expect((await b.getTokens()).accessToken.value).toBe('at-b');
    expect([shared.key(0), shared.key(1)].sort()).toEqual([
      'shopkit:client-a:tokens',
      'shopkit:client-b:tokens',
    ]);
  });
});
