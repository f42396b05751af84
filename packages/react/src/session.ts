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
 * step with token changes: this tab's (`tokensChanged`), and other tabs' logins and logouts
 * (a `storage` event, or the tab becoming visible, re-reads the stored tokens).
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
    // Another tab may have logged in or out: it wrote the shared storage, not this strategy's events.
    const reread = async () => {
      const before = qc.getQueryData<MemberSession['role']>(shopkitKeys.session);
      const role = roleOf(await auth.getTokens());
      if (role === before) return;
      qc.setQueryData(shopkitKeys.session, role);
      if (before !== undefined && (before === 'member') !== (role === 'member'))
        void qc.invalidateQueries({ queryKey: shopkitKeys.all });
    };
    const onVisible = () => {
      if (document.visibilityState === 'visible') void reread();
    };
    const w = typeof window === 'undefined' ? undefined : window;
    w?.addEventListener('storage', reread);
    w?.document.addEventListener('visibilitychange', onVisible);
    return () => {
      offTokens();
      offExpired();
      w?.removeEventListener('storage', reread);
      w?.document.removeEventListener('visibilitychange', onVisible);
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

/**
 * The platform accepted the member (login, registration or verification `SUCCESS`), but the
 * member session could not start: the silent login's hidden frame failed or timed out. The
 * account is fine; logging in again usually works. `result` is the platform's answer.
 */
export class MemberSessionError extends Error {
  readonly result: LoginResult;
  constructor(result: LoginResult, cause: unknown) {
    super('The member session could not start; log in again', { cause });
    this.name = 'MemberSessionError';
    this.result = result;
  }
}

/** Options of the hooks that log a member in. */
export interface LoginHookOptions {
  /** How long the silent login's hidden frame may take (default: the SDK's, 120 s). */
  silentLoginTimeoutMs?: number;
}

/** Finishes a `SUCCESS` result: member tokens through the silent login, stored by the strategy. */
async function finish(client: AnyClient, result: LoginResult, { silentLoginTimeoutMs }: LoginHookOptions) {
  if (result.loginState === 'SUCCESS' && result.data?.sessionToken) {
    let tokens: Tokens;
    try {
      tokens = await identity.getMemberTokensForDirectLogin(
        client,
        result.data.sessionToken,
        silentLoginTimeoutMs ? { timeoutMs: silentLoginTimeoutMs } : {},
      );
    } catch (e) {
      throw new MemberSessionError(result, e);
    }
    await memberAuth(client).setTokens(tokens);
  }
  return result;
}

/**
 * Logs a member in with e-mail and password. On `SUCCESS` the member tokens are fetched (silent
 * login) and stored; other states (`EMAIL_VERIFICATION_REQUIRED`, `FAILURE` with `errorCode`) are
 * returned for the UI. A silent login that fails rejects with {@link MemberSessionError}.
 */
export function useLogin(options: LoginHookOptions = {}) {
  const client = useShopkit();
  const after = useAfterIdentityChange();
  return useMutation({
    mutationKey: ['shopkit', 'login'],
    mutationFn: async (params: { email: string; password: string }) => {
      return finish(client, await identity.login(client, params), options);
    },
    onSuccess: (r) => (r.loginState === 'SUCCESS' ? after() : undefined),
  });
}

/** Registers a member; logs in at once on `SUCCESS`, else returns the state (usually verification). */
export function useRegister(options: LoginHookOptions = {}) {
  const client = useShopkit();
  const after = useAfterIdentityChange();
  return useMutation({
    mutationKey: ['shopkit', 'register'],
    mutationFn: async (params: { email: string; password: string; profile?: Record<string, unknown> }) => {
      return finish(client, await identity.register(client, params), options);
    },
    onSuccess: (r) => (r.loginState === 'SUCCESS' ? after() : undefined),
  });
}

/** A verification code, and the `stateToken` of the login or registration that asked for it. */
export interface VerifyEmailVars {
  code: string;
  /**
   * The `data.stateToken` of the `EMAIL_VERIFICATION_REQUIRED` result. Without it the SDK's
   * in-memory state is used, which a reload loses; a shop may keep the state token in
   * `sessionStorage` (never in a URL or a log) to finish after a reload.
   */
  stateToken?: string;
}

/**
 * Sends the e-mail verification code; on `SUCCESS` the member is logged in. Takes the code alone
 * (the SDK's in-memory state, lost on reload) or `{ code, stateToken }`.
 * @example verify.mutate({ code, stateToken: sessionStorage.getItem('verification') ?? undefined });
 */
export function useVerifyEmail(options: LoginHookOptions = {}) {
  const client = useShopkit();
  const after = useAfterIdentityChange();
  return useMutation({
    mutationKey: ['shopkit', 'verify'],
    mutationFn: async (vars: string | VerifyEmailVars) => {
      const { code, stateToken } = typeof vars === 'string' ? { code: vars } : vars;
      return finish(client, await identity.processVerification(client, { code, stateToken }), options);
    },
    onSuccess: (r) => (r.loginState === 'SUCCESS' ? after() : undefined),
  });
}

/**
 * Mails a new verification code for a pending login or registration (its `stateToken`); the old
 * code stops working. Rejects with the platform's error when the state token has expired or no
 * more codes are allowed (log in again for a new one).
 */
export function useResendVerification() {
  const client = useShopkit();
  return useMutation({
    mutationKey: ['shopkit', 'verify', 'resend'],
    mutationFn: async (stateToken: string) => {
      await identity.resendVerification(client, stateToken);
    },
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
