import { type AnyClient, identity, type Tokens } from '@shopkit/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { shopkitKeys } from './catalog.ts';
import { useShopkit } from './provider.tsx';

export type LoginResult = identity.LoginResult;

/** The parts of the SDK's `OAuthStrategy` the session hooks use. */
export interface MemberAuth {
  getTokens(): Promise<Tokens>;
  setTokens(tokens: Tokens): Promise<void>;
  on(event: 'tokensChanged', listener: (tokens: Tokens) => void): () => void;
  on(event: 'sessionExpired', listener: () => void): () => void;
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
async function finish(client: AnyClient, result: LoginResult) {
  if (result.loginState === 'SUCCESS' && result.data?.sessionToken) {
    const tokens = await identity.getMemberTokensForDirectLogin(client, result.data.sessionToken);
    await memberAuth(client).setTokens(tokens);
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
      return finish(client, await identity.login(client, params));
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
      return finish(client, await identity.register(client, params));
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
      return finish(client, await identity.processVerification(client, { verificationCode }));
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
      identity.sendPasswordResetEmail(client, email, redirectUri),
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
    mutationFn: ({ returnUrl }: { returnUrl: string }) => identity.logout(client, returnUrl),
    onSuccess: async ({ logoutUrl }, { returnUrl }) => {
      await after();
      navigate(logoutUrl ?? returnUrl);
    },
  });
}
