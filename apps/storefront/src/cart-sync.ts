/**
 * The cart is one per visitor or member, and every tab of the shop shares it (the tokens are in
 * localStorage): a change made in one tab is announced to the others, which fetch the cart again,
 * and a tab coming back into view fetches it again too (the hosted checkout or another device may
 * have changed it). Without this a tab kept its old cart: the drawer's lines and subtotal, and a
 * checkout button for a cart that is no longer the one the platform will check out.
 */
import { shopkitKeys } from '@shopkit/react';
import type { QueryClient } from '@tanstack/react-query';

/** Cart changes of `@shopkit/react`: their mutation keys start with the cart's query key. */
const CART_CHANGE: readonly unknown[] = shopkitKeys.cart;

/** Starts following the other tabs' cart changes; returns the function that stops it. */
export function syncCartAcrossTabs(qc: QueryClient, channelName: string): () => void {
  const refetch = () => {
    // A change of this tab's own on its way answers with the server's cart, the other tab's
    // change included: refetching under it would show its optimistic lines going and coming back.
    if (qc.isMutating({ mutationKey: CART_CHANGE }) > 0) return;
    void qc.invalidateQueries({ queryKey: shopkitKeys.cart });
  };
  const channel = typeof BroadcastChannel === 'undefined' ? undefined : new BroadcastChannel(channelName);
  if (channel) channel.onmessage = refetch;
  const offMutations = qc.getMutationCache().subscribe((event) => {
    if (event.type !== 'updated' || !channel) return;
    const { type } = event.action;
    const key = event.mutation.options.mutationKey ?? [];
    // A failure may have changed part of the cart too, and its rollback refetches it here.
    if ((type === 'success' || type === 'error') && CART_CHANGE.every((k, i) => key[i] === k))
      channel.postMessage('cart');
  });
  const onVisible = () => {
    if (document.visibilityState === 'visible') refetch();
  };
  document.addEventListener('visibilitychange', onVisible);
  return () => {
    offMutations();
    channel?.close();
    document.removeEventListener('visibilitychange', onVisible);
  };
}
