/** Edges of the request engine found by the tenth audit: each test failed before its fix. */
import { describe, expect, it, vi } from 'vitest';
import { createClient } from '../client.ts';
import { op } from './op.ts';

const getThing = op<[id: string], { v: number }>({ method: 'GET', path: '/t/v1/things/{id}', args: ['id'] });

describe('a retry wait past timers’ range', () => {
  // 2^31 ms and more is past what a timer can wait: Node fires such a timer after 1 ms (with a
  // TimeoutOverflowWarning), so a `Retry-After` of 30 days was a retry at once.
  it.each(['2592000', new Date(Date.now() + 40 * 86_400_000).toUTCString()])(
    'Retry-After %j with no limits: the 503 fails the call at once, unretried',
    async (retryAfter) => {
      const warnings: string[] = [];
      const onWarning = (w: Error) => warnings.push(w.name);
      process.on('warning', onWarning);
      try {
        const fetch = vi.fn(async () =>
          fetch.mock.calls.length > 1
            ? Response.json({ v: 1 })
            : new Response('{}', { status: 503, headers: { 'Retry-After': retryAfter } }),
        );
        const client = createClient({
          baseUrl: 'http://h',
          fetch: fetch as unknown as typeof globalThis.fetch,
          timeoutMs: Number.POSITIVE_INFINITY,
          retry: { maxDelayMs: Number.POSITIVE_INFINITY },
        });
        const outcome = await getThing(client, 'a').then(
          (v) => ({ v }),
          (e: { status?: number }) => ({ status: e.status }),
        );
        // Let a process warning (emitted on the next tick) arrive.
        await new Promise((r) => setTimeout(r, 5));
        expect(outcome).toEqual({ status: 503 });
        expect(fetch).toHaveBeenCalledTimes(1);
        expect(warnings).not.toContain('TimeoutOverflowWarning');
      } finally {
        process.off('warning', onWarning);
      }
    },
  );

  it('a Retry-After within range is still waited for, up to maxDelayMs', async () => {
    const fetch = vi.fn(async () =>
      fetch.mock.calls.length > 1
        ? Response.json({ v: 1 })
        : new Response('{}', { status: 429, headers: { 'Retry-After': '1' } }),
    );
    const client = createClient({
      baseUrl: 'http://h',
      fetch: fetch as unknown as typeof globalThis.fetch,
      retry: { maxDelayMs: 20 },
    });
    expect(await getThing(client, 'a')).toEqual({ v: 1 });
    expect(fetch).toHaveBeenCalledTimes(2);
  });
});
