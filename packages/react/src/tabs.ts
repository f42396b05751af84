import type { AnyClient } from '@shopkit/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { shopkitKeys } from './keys.ts';
import { expiryOf, memberAuthOf } from './member.ts';

/** What one tab tells the shop's other tabs. */
type TabMessage =
  /** Its cart changed (or a change failed, which may have changed part of it). */
  | { type: 'cart' }
  /** A refused refresh ended a member session: the SHA-256 of its refresh token, never the token. */
  | { type: 'expired'; session: string };

/** The hex SHA-256 of a refresh token; `undefined` without WebCrypto (an insecure context). */
async function sessionId(refreshToken: string): Promise<string | undefined> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return undefined;
  const hash = await subtle.digest('SHA-256', new TextEncoder().encode(refreshToken));
  return Array.from(new Uint8Array(hash), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Keeps the tabs of one shop in step, over a `BroadcastChannel` named from the strategy's client
 * id (`shopkit:<clientId>:tabs`, so two shops on one origin do not mix). The tabs share one cart per
 * visitor or member (their tokens are in shared storage): after each cart change of this package's
 * hooks the other tabs fetch the cart again, and a tab coming back into view does too (the hosted
 * checkout or another device may have changed it). A member session ended by a refused refresh is
 * announced too, so that every tab in that session says so (`useMemberSession().expired`), not
 * only the one whose refresh was refused: another tab would otherwise see only the tokens go, as
 * after a logout. A client without a client id (an API key) has no tabs to follow.
 */
export function useTabSync(client: AnyClient, enabled: boolean) {
  const qc = useQueryClient();
  useEffect(() => {
    const clientId = (client.auth as { clientId?: unknown } | undefined)?.clientId;
    if (!enabled || typeof clientId !== 'string' || typeof BroadcastChannel === 'undefined') return;
    const channel = new BroadcastChannel(`shopkit:${clientId}:tabs`);
    let open = true;
    const post = (message: TabMessage) => {
      if (open) channel.postMessage(message);
    };
    /** A refetch asked for while this tab's own cart changes were on their way. */
    let missed = false;
    const refetchCart = () => {
      // Not under a change of this tab's own on its way: the refetch would show its optimistic
      // lines going and coming back. Its answer may be the server's cart from before the other
      // tab's change (the server took this tab's first), so the cart is fetched once it settles.
      if (qc.isMutating({ mutationKey: shopkitKeys.cart }) > 0) {
        missed = true;
        return;
      }
      missed = false;
      void qc.invalidateQueries({ queryKey: shopkitKeys.cart });
    };
    const auth = memberAuthOf(client);
    const expiry = auth && expiryOf(auth);
    // (a storage that cannot be read is the session query's to report, not an unhandled rejection)
    if (auth)
      auth.getTokens().then(
        (t) => expiry?.see(t),
        () => {},
      );
    channel.onmessage = async ({ data }: MessageEvent<TabMessage>) => {
      if (data?.type === 'cart') refetchCart();
      // Only the session this tab was in: a tab with a storage of its own has a session of its own.
      const mine = expiry?.member;
      if (data?.type === 'expired' && mine && data.session === (await sessionId(mine))) expiry.set(true);
    };
    const offMutations = qc.getMutationCache().subscribe((event) => {
      if (event.type !== 'updated') return;
      const { type } = event.action;
      const key = event.mutation.options.mutationKey ?? [];
      if ((type === 'success' || type === 'error') && shopkitKeys.cart.every((k, i) => key[i] === k)) {
        post({ type: 'cart' });
        // The mutation is settled by now (its callbacks ran): the last one lets the refetch through.
        if (missed) refetchCart();
      }
    });
    const offExpired = auth?.on('sessionExpired', () => {
      // The tokens are gone by now; the session they were is the last member session seen.
      const ended = expiry?.member;
      if (ended) void sessionId(ended).then((session) => session && post({ type: 'expired', session }));
    });
    const onVisible = () => {
      if (document.visibilityState === 'visible') refetchCart();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      open = false;
      channel.close();
      offMutations();
      offExpired?.();
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [client, qc, enabled]);
}
