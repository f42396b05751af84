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

describe('webStorage when the area refuses a write (full, or storage turned off)', () => {
  /** An area whose `setItem` throws as a full one does; `full = false` lets writes through again. */
  const fullArea = () => {
    const a = area();
    const state = { full: true };
    const set = a.setItem;
    a.setItem = (k, v) => {
      if (state.full) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      set(k, v);
    };
    return { a, state };
  };

  it('keeps the tokens in memory, and drops the ones stored before (a spent refresh token)', async () => {
    const { a, state } = fullArea();
    state.full = false;
    const storage = webStorage(a, 'c');
    storage.setTokens(pair('old'));
    state.full = true;
    expect(() => storage.setTokens(pair('new'))).not.toThrow();
    expect(storage.getTokens()).toEqual(pair('new'));
    expect(a.getItem('shopkit:c:tokens')).toBeNull();
    // Once the area takes writes again, it holds the tokens once more.
    state.full = false;
    storage.setTokens(pair('next'));
    expect(JSON.parse(a.getItem('shopkit:c:tokens')!)).toEqual(pair('next'));
    expect(storage.getTokens()).toEqual(pair('next'));
  });

  it('lets a strategy store and read back its tokens: a renewal is not lost', async () => {
    const { a } = fullArea();
    const strategy = OAuthStrategy({ clientId: 'c', storage: webStorage(a, 'c') });
    await strategy.setTokens(pair('member'));
    expect(await strategy.getTokens()).toEqual(pair('member'));
    // No token request: the stored member tokens are the ones used.
    const transport = {
      baseUrl: 'https://shop.invalid',
      fetch: () => Promise.reject(new Error('no request expected')),
    };
    expect(await strategy.getAuthHeaders(transport)).toEqual({ Authorization: 'at-member' });
  });
});
