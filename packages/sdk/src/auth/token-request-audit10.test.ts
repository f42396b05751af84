/** Token requests' retry waits, found by the tenth audit: each test failed before its fix. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../client.ts';
import { OAuthStrategy } from './oauth.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a token request’s retry wait past timers’ range', () => {
  // 2^31 ms and more is past what a timer can wait: Node fires such a timer after 1 ms (with a
  // TimeoutOverflowWarning), so a backoff of weeks was a retry at once, as the engine's was.
  it('with a huge baseDelayMs and maxDelayMs Infinity: the 503 fails at once, unretried', async () => {
    // The backoff's jitter at its middle: half of 2^40 ms, far past 2^31.
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const fetch = vi.fn(async () =>
        fetch.mock.calls.length > 1
          ? Response.json({ access_token: 'a', refresh_token: 'r', expires_in: 60 })
          : new Response('{}', { status: 503 }),
      );
      const auth = OAuthStrategy({ clientId: 'c' });
      createClient({
        baseUrl: 'http://h',
        auth,
        fetch: fetch as unknown as typeof globalThis.fetch,
        retry: { baseDelayMs: 2 ** 40, maxDelayMs: Number.POSITIVE_INFINITY },
      });
      const outcome = await auth.generateVisitorTokens().then(
        () => 'tokens',
        (e: { status?: number; code?: string }) => ({ status: e.status, code: e.code }),
      );
      // Let a process warning (emitted on the next tick) arrive.
      await new Promise((r) => setTimeout(r, 5));
      expect(outcome).toEqual({ status: 503, code: 'TOKEN_REQUEST_FAILED' });
      expect(fetch).toHaveBeenCalledTimes(1);
      expect(warnings).not.toContain('TimeoutOverflowWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a wait within range is still made: the 503 is tried again', async () => {
    const fetch = vi.fn(async () =>
      fetch.mock.calls.length > 1
        ? Response.json({ access_token: 'a', refresh_token: 'r', expires_in: 60 })
        : new Response('{}', { status: 503 }),
    );
    const auth = OAuthStrategy({ clientId: 'c' });
    createClient({
      baseUrl: 'http://h',
      auth,
      fetch: fetch as unknown as typeof globalThis.fetch,
      retry: { baseDelayMs: 1, maxDelayMs: Number.POSITIVE_INFINITY },
    });
    expect((await auth.generateVisitorTokens()).accessToken.value).toBe('a');
    expect(fetch).toHaveBeenCalledTimes(2);
  });
});
