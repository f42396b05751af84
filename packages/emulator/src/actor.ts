/**
 * Who the request being served acts as, for what it records on the way: the events it writes carry
 * the caller as the platform's webhook `identity`. The router sets it around every route's handler;
 * outside a request (start-up, the seed, background work) there is none. A store scoped to the
 * request rather than a parameter, because events are written deep inside the domains' shared write
 * helpers (inventory, collections), which would otherwise all take the caller only to pass it on.
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Identity } from './context.ts';

export const actor = new AsyncLocalStorage<Identity>();

/** The platform's webhook identity (`EventIdentity`): who caused an event. */
export type EventIdentity =
  | { identityType: 'ANONYMOUS_VISITOR'; anonymousVisitorId: string }
  | { identityType: 'MEMBER'; memberId: string }
  | { identityType: 'WIX_USER'; wixUserId: string }
  | { identityType: 'APP'; appId: string };

/** A caller as the platform's webhook identity; none for a call without credentials. */
export function eventIdentity(who: Identity | undefined): EventIdentity | undefined {
  switch (who?.type) {
    case 'ANONYMOUS_VISITOR':
      return who.visitorId ? { identityType: who.type, anonymousVisitorId: who.visitorId } : undefined;
    case 'MEMBER':
      return who.memberId ? { identityType: who.type, memberId: who.memberId } : undefined;
    case 'WIX_USER':
      return who.userId ? { identityType: who.type, wixUserId: who.userId } : undefined;
    case 'APP':
      return who.appId ? { identityType: who.type, appId: who.appId } : undefined;
    default:
      return undefined;
  }
}
