/**
 * Changes held offline. TanStack Query holds the cart's changes (an add, a quantity, a removal, a
 * coupon) while the browser is offline and sends them, in order, once it is back: meanwhile the
 * page says so, as it says why a change failed, rather than showing it busy with nothing said.
 * @module
 */
import { onlineManager } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';

const subscribe = (listener: () => void) => onlineManager.subscribe(listener);

/** Whether the browser is online, as TanStack Query sees it (it holds changes while it is not). */
export function useOnline() {
  return useSyncExternalStore(
    subscribe,
    () => onlineManager.isOnline(),
    () => true,
  );
}

/**
 * Whether a change is held for the network: paused while the browser is offline (a change queued
 * behind another one on its way is paused too, but online: that one is only waiting its turn).
 * @example const held = useHeld(apply.isPaused); <p role="alert">{held ? HELD.coupon : ''}</p>
 */
export function useHeld(paused: boolean) {
  const online = useOnline();
  return paused && !online;
}

/** What the shopper is told of a change held offline. */
export const HELD = {
  add: 'You are offline. The item will be added once you are back online.',
  lines: 'You are offline. Your cart changes will be sent once you are back online.',
  coupon: 'You are offline. The coupon will be applied once you are back online.',
  uncoupon: 'You are offline. The coupon will be removed once you are back online.',
} as const;
