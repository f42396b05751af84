import { describe, expect, it, vi } from 'vitest';
import { createClient } from '../client.ts';
import { call } from '../http/op.ts';
import { OAuthStrategy } from './oauth.ts';
import type { Tokens } from './tokens.ts';

/** Web Locks for one page: one holder per name at a time, the others wait in turn. */
function fakeLocks() {
  const tails = new Map<string, Promise<unknown>>();
  const held = new Set<string>();
  return {
    request(name: string, ...rest: unknown[]) {
      const cb = rest[rest.length - 1] as (lock: object | null) => unknown;
      const options = (rest.length > 1 ? rest[0] : {}) as { ifAvailable?: boolean };
      if (options.ifAvailable && held.has(name)) return Promise.resolve(cb(null));
      const run = (tails.get(name) ?? Promise.resolve()).then(async () => {
        held.add(name);
        try {
          return await cb({ name });
        } finally {
          held.delete(name);
        }
      });
      tails.set(
        name,
        run.catch(() => {}),
      );
      return run;
    },
  };
}

describe('auth audit 9: two tabs on one shared storage with Web Locks', () => {
  it("keep a member's login stored by one tab while the other tab's visitor renewal compares and sets", async () => {
    vi.stubGlobal('navigator', { locks: fakeLocks() });
    try {
      const expiredVisitor: Tokens = {
        accessToken: { value: 'visitor-access', expiresAt: 1 },
        refreshToken: { value: 'visitor-refresh', role: 'visitor' },
      };
      const member: Tokens = {
        accessToken: { value: 'member-access', expiresAt: Math.floor(Date.now() / 1000) + 3600 },
        refreshToken: { value: 'member-refresh', role: 'member' },
      };
      // A shared async store (IndexedDB, say): a read answers what it found when it started, and a
      // write another tab commits meanwhile is not in it.
      let stored = expiredVisitor;
      let duringRead: (() => void) | undefined;
      const shared = {
        async getTokens() {
          const snapshot = stored;
          const f = duringRead;
          duringRead = undefined;
          f?.();
          await new Promise((r) => setTimeout(r, 20));
          return snapshot;
        },
        async setTokens(t: Tokens) {
          stored = t;
        },
      };
      const renewing = OAuthStrategy({ clientId: 'c', storage: shared });
      const loggingIn = OAuthStrategy({ clientId: 'c', storage: shared });
      let release!: () => void;
      const gate = new Promise<void>((r) => {
        release = r;
      });
      const grants: string[] = [];
      const client = createClient({
        baseUrl: 'http://h',
        auth: renewing,
        fetch: async (input) => {
          if (!String(input).endsWith('/oauth2/token')) return Response.json({});
          grants.push('refresh_token');
          await gate;
          return Response.json({
            access_token: 'renewed',
            refresh_token: 'renewed-refresh',
            expires_in: 3600,
          });
        },
      });
      const pending = call(client, { method: 'GET', path: '/things/v1/x' }, []);
      await vi.waitFor(() => expect(grants).toEqual(['refresh_token']));
      // The other tab's login lands while this tab reads the storage to compare before it writes.
      let login: Promise<void> | undefined;
      duringRead = () => {
        login = loggingIn.setTokens(member);
      };
      release();
      await pending;
      await login;
      expect(stored.refreshToken).toEqual(member.refreshToken);
      expect(await loggingIn.loggedIn()).toBe(true);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
