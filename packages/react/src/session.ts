import type { AnyClient, Tokens } from '@shopkit/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { shopkitKeys } from './catalog.ts';
import { useShopkit } from './provider.tsx';

/** Outcome of login, register and verification (spec 4: login and register outcome mapping). */
export interface LoginResult {
  loginState: string;
  data?: { sessionToken?: string; stateToken?: string };
  error?: string;
  errorCode?: string;
}

/**
 * The member methods of the SDK's `OAuthStrategy` these hooks use. Typed structurally so that
 * the hooks work with any strategy that offers them.
 */
export interface MemberAuth {
  getTokens(): Promise<Tokens>;
  setTokens(tokens: Tokens): Promise<void>;
  loggedIn(): Promise<boolean>;
  on(event: 'tokensChanged', listener: (tokens: Tokens) => void): () => void;
  on(event: 'sessionExpired', listener: () => void): () => void;
  login?(params: { email: string; password: string }): Promise<LoginResult>;
  register?(params: {
    email: string;
    password: string;
    profile?: Record<string, unknown>;
  }): Promise<LoginResult>;
  processVerification?(params: { verificationCode: string }): Promise<LoginResult>;
  getMemberTokensForDirectLogin?(sessionToken: string): Promise<Tokens>;
  sendPasswordResetEmail?(email: string, redirectUri: string): Promise<void>;
  logout?(originalUrl: string): Promise<{ logoutUrl: string }>;
}

/** Who is using the shop: `none` before the first call, then `visitor` or `member`. */
export interface MemberSession {
  role: 'none' | 'visitor' | 'member';
  member: boolean;
  /** A member's session ended without a logout (refresh refused). */
  expired: boolean;
}

function memberAuth(client: AnyClient): MemberAuth {
  const auth = client.auth as Partial<MemberAuth> | undefined;
  if (!auth?.getTokens || !auth.on) throw new Error('Member sessions need a client with OAuthStrategy.');
  return auth as MemberAuth;
}

function required<K extends keyof MemberAuth>(auth: MemberAuth, name: K): NonNullable<MemberAuth[K]> {
  const f = auth[name];
  if (typeof f !== 'function') throw new Error(`This auth strategy has no ${String(name)}().`);
  return (f as (...a: unknown[]) => unknown).bind(auth) as NonNullable<MemberAuth[K]>;
}

const roleOf = (t: Tokens | null | undefined): MemberSession['role'] => t?.refreshToken.role ?? 'none';

/**
 * The session as stored by the strategy (restored from its token storage on reload), kept in
 * step with token changes.
 * @example const { member } = useMemberSession(); return member ? <AccountLink /> : <LoginLink />;
 */
export function useMemberSession(): MemberSession {
  const client = useShopkit();
  const qc = useQueryClient();
  const [expired, setExpired] = useState(false);
  const { data } = useQuery({
    queryKey: shopkitKeys.session,
    queryFn: async () => roleOf(await memberAuth(client).getTokens()),
    staleTime: Number.POSITIVE_INFINITY,
  });
  useEffect(() => {
    const auth = memberAuth(client);
    const offTokens = auth.on('tokensChanged', (t) => {
      qc.setQueryData(shopkitKeys.session, roleOf(t));
      if (roleOf(t) === 'member') setExpired(false);
    });
    const offExpired = auth.on('sessionExpired', () => {
      setExpired(true);
      // Member data (cart, account) is gone: refetch as a visitor.
      void qc.invalidateQueries({ queryKey: shopkitKeys.all });
    });
    return () => {
      offTokens();
      offExpired();
    };
  }, [client, qc]);
  const role = data ?? 'none';
  return { role, member: role === 'member', expired };
}

/** After a login or logout everything cached belongs to someone else: refetch it. */
function useAfterIdentityChange() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: shopkitKeys.all });
}

/** Finishes a `SUCCESS` result: member tokens through the silent login, stored by the strategy. */
async function finish(auth: MemberAuth, result: LoginResult) {
  if (result.loginState === 'SUCCESS' && result.data?.sessionToken) {
    const tokens = await required(auth, 'getMemberTokensForDirectLogin')(result.data.sessionToken);
    await auth.setTokens(tokens);
  }
  return result;
}

/**
 * Logs a member in with e-mail and password. On `SUCCESS` the member tokens are fetched (silent
 * login) and stored; other states (`EMAIL_VERIFICATION_REQUIRED`, `FAILURE` with `errorCode`) are
 * returned for the UI.
 */
export function useLogin() {
  const client = useShopkit();
  const after = useAfterIdentityChange();
  return useMutation({
    mutationKey: ['shopkit', 'login'],
    mutationFn: async (params: { email: string; password: string }) => {
      const auth = memberAuth(client);
      return finish(auth, await required(auth, 'login')(params));
    },
    onSuccess: (r) => (r.loginState === 'SUCCESS' ? after() : undefined),
  });
}

/** Registers a member; logs in at once on `SUCCESS`, else returns the state (usually verification). */
export function useRegister() {
  const client = useShopkit();
  const after = useAfterIdentityChange();
  return useMutation({
    mutationKey: ['shopkit', 'register'],
    mutationFn: async (params: { email: string; password: string; profile?: Record<string, unknown> }) => {
      const auth = memberAuth(client);
      return finish(auth, await required(auth, 'register')(params));
    },
    onSuccess: (r) => (r.loginState === 'SUCCESS' ? after() : undefined),
  });
}

/** Sends the e-mail verification code; on `SUCCESS` the member is logged in. */
export function useVerifyEmail() {
  const client = useShopkit();
  const after = useAfterIdentityChange();
  return useMutation({
    mutationKey: ['shopkit', 'verify'],
    mutationFn: async (verificationCode: string) => {
      const auth = memberAuth(client);
      return finish(auth, await required(auth, 'processVerification')({ verificationCode }));
    },
    onSuccess: (r) => (r.loginState === 'SUCCESS' ? after() : undefined),
  });
}

/** Asks for a password-reset e-mail whose link returns to `redirectUri` once the password is set. */
export function useSendPasswordReset() {
  const client = useShopkit();
  return useMutation({
    mutationKey: ['shopkit', 'password-reset'],
    mutationFn: ({ email, redirectUri }: { email: string; redirectUri: string }) =>
      required(memberAuth(client), 'sendPasswordResetEmail')(email, redirectUri),
  });
}

/**
 * Logs out: the strategy clears its tokens and returns the platform's logout URL, which ends the
 * member's session on the platform and comes back to `returnUrl`; `navigate` goes there.
 */
export function useLogout(navigate: (url: string) => void = (url) => globalThis.location.assign(url)) {
  const client = useShopkit();
  const after = useAfterIdentityChange();
  return useMutation({
    mutationKey: ['shopkit', 'logout'],
    mutationFn: ({ returnUrl }: { returnUrl: string }) => required(memberAuth(client), 'logout')(returnUrl),
    onSuccess: async ({ logoutUrl }) => {
      await after();
      navigate(logoutUrl);
    },
  });
}
