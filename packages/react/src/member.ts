import type { AnyClient, Tokens } from '@shopkit/sdk';

/** The parts of the SDK's `OAuthStrategy` the session hooks use. */
export interface MemberAuth {
  getTokens(): Promise<Tokens>;
  setTokens(tokens: Tokens): Promise<void>;
  on(event: 'tokensChanged', listener: (tokens: Tokens, renewed: boolean) => void): () => void;
  on(event: 'sessionExpired', listener: () => void): () => void;
}

export type Role = 'none' | 'visitor' | 'member';

export const roleOf = (t: Tokens | null | undefined): Role => t?.refreshToken.role ?? 'none';

/** The client's strategy, when it has members (`OAuthStrategy`). */
export function memberAuthOf(client: AnyClient): MemberAuth | undefined {
  const auth = client.auth as Partial<MemberAuth> | undefined;
  return auth?.getTokens && auth.on ? (auth as MemberAuth) : undefined;
}

export function memberAuth(client: AnyClient): MemberAuth {
  const auth = memberAuthOf(client);
  if (!auth) throw new Error('Member sessions need a client with OAuthStrategy.');
  return auth;
}

/** One strategy's `expired` flag, shared by every component that reads the session. */
export interface Expiry {
  expired: boolean;
  set(expired: boolean): void;
  /**
   * The refresh token of the last member session seen (this tab's, or another tab's through the
   * shared storage): the session another tab may announce as ended.
   */
  member?: string;
  /** Notes the tokens seen. */
  see(tokens: Tokens | null | undefined): void;
  readonly listeners: Set<() => void>;
}
export const expiries = new WeakMap<MemberAuth, Expiry>();

/**
 * The strategy's expiry flag, following its events from the first session hook (or the provider's
 * tab sync) on, and not only while one is mounted: a component mounted after the refused refresh
 * sees it too.
 */
export function expiryOf(auth: MemberAuth): Expiry {
  const known = expiries.get(auth);
  if (known) return known;
  const listeners = new Set<() => void>();
  const e: Expiry = {
    expired: false,
    listeners,
    set(expired) {
      if (e.expired === expired) return;
      e.expired = expired;
      for (const l of listeners) l();
    },
    see(t) {
      if (roleOf(t) === 'member') e.member = t?.refreshToken.value;
    },
  };
  auth.on('sessionExpired', () => e.set(true));
  auth.on('tokensChanged', (t) => {
    e.see(t);
    if (roleOf(t) === 'member') e.set(false);
  });
  expiries.set(auth, e);
  return e;
}
