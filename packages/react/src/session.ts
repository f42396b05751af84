import { type AnyClient, identity, type Tokens } from '@shopkit/sdk';
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useSyncExternalStore } from 'react';
import { resetCart, shopkitKeys } from './keys.ts';
import {
  expiries,
  expiryOf,
  type MemberAuth,
  memberAuth,
  memberAuthOf,
  type Role,
  roleOf,
} from './member.ts';
import { useOnce } from './once.ts';
import { useShopkit } from './provider.tsx';
import type { ShopkitHookError } from './retry.ts';

export type LoginResult = identity.LoginResult;
/** What `useLogin` takes: the SDK's `identity.login` parameters (`email`, `password`, `captchaTokens`…). */
export type LoginParams = Parameters<typeof identity.login>[1];
/** What `useRegister` takes: the SDK's `identity.register` parameters (`profile`, `captchaTokens`…). */
export type RegisterParams = Parameters<typeof identity.register>[1];

export type { MemberAuth, Role } from './member.ts';

/** Who is using the shop: `none` before the first call, then `visitor` or `member`. */
export interface MemberSession {
  role: Role;
  member: boolean;
  /**
   * A member's session ended without a logout (refresh refused), in this tab or in another tab of
   * the shop; cleared by the next member login.
   */
  expired: boolean;
  /**
   * The session's last read of the stored tokens failed (a custom token storage that could not be
   * read): `role` stays as it was (`none` when no read succeeded yet); `null` again once a read
   * succeeds or the tokens change.
   */
  error: Error | null;
}

/** By query client, a map of each strategy to what that query client holds of it. */
type ByStrategy<T> = WeakMap<QueryClient, WeakMap<MemberAuth, T>>;
const heldBy = <T>(map: ByStrategy<T>, qc: QueryClient) => {
  const known = map.get(qc) ?? new WeakMap<MemberAuth, T>();
  map.set(qc, known);
  return known;
};

/**
 * By query client, the refresh token each strategy's session was last seen with (a new one is a new
 * session), and its role. Per query client (two React roots of one page may share a Shopkit client,
 * each with a query client of its own): kept per strategy, the first provider to hear of the next
 * member noted the new token, and the second took it for the session its cache already held,
 * keeping the previous member's cart.
 */
const sessions: ByStrategy<{ token: string; role: Role }> = new WeakMap();

/**
 * By query client and strategy, a count of the changes of tokens heard and the re-reads of the
 * stored ones started (by any provider of that query client, in any mount of it, and seen by its
 * `useMemberSession`'s read): an async storage may answer reads out of order, and a read counts
 * only when nothing newer came while it was on its way. Counted per effect run, a StrictMode
 * remount's first read, answered late, undid a newer session; unseen by the session query, its first
 * read did too (nothing refetches it).
 */
const changes: ByStrategy<number> = new WeakMap();
const changed = (counts: WeakMap<MemberAuth, number>, auth: MemberAuth) => {
  const n = (counts.get(auth) ?? 0) + 1;
  counts.set(auth, n);
  return n;
};

/**
 * Keeps what is cached under `'shopkit'` in step with the client's session, for `ShopkitProvider`
 * (so that it holds whichever hooks are mounted): token changes in this tab (`tokensChanged`,
 * whoever set the tokens: these hooks, `identity.logout(client)`, or `client.auth.setTokens` after
 * a hosted login), and other tabs' logins and logouts (a `storage` event, or the tab becoming
 * visible, re-reads the stored tokens). Whenever the session changes (the role, or the refresh
 * token other than by this tab's own renewal: one member straight after another, a new visitor),
 * the cart is emptied and everything else cached under `'shopkit'` refetched, except for the first
 * visitor token, which comes with the first call: the cart and the rest may have been someone
 * else's. Another tab's renewal looks like a new session too, and costs one refetch. The session
 * found on mounting is taken as the one the cache holds (restored from storage on reload), unless
 * a session was cached already (the provider mounted again after a hosted-login route without it).
 */
export function useSessionFollow(client: AnyClient) {
  const qc = useQueryClient();
  useEffect(() => {
    const auth = memberAuthOf(client);
    if (!auth) return;
    const expiry = expiryOf(auth);
    const seenBy = heldBy(sessions, qc);
    const counts = heldBy(changes, qc);
    /** Every change of tokens lands here, whichever way it came. */
    const follow = (t: Tokens | null | undefined, renewed = false) => {
      const role = roleOf(t);
      expiry.see(t);
      const cached = qc.getQueryData<Role>(shopkitKeys.session);
      const token = t?.refreshToken.value ?? '';
      const seen = seenBy.get(auth);
      seenBy.set(auth, { token, role });
      // A renewal is the same session, also when the platform rotated its refresh token.
      const same = renewed || seen === undefined || seen.token === token;
      // Nothing cached yet (or the cached role, unobserved, was collected): the session the cache
      // holds is this one (the one `useMemberSession` read too, when its read got there first).
      if (cached === undefined && same) {
        qc.setQueryData(shopkitKeys.session, role);
        return;
      }
      // The role cached, or the one last seen when it was collected: a member's cart seen going to
      // a visitor (another tab's logout and its next call, read at once) goes, as from `none`.
      const before = cached ?? seen?.role;
      // Same role: a new session only when the refresh token changed, and not by this tab's renewal.
      if (role === before && same) return;
      qc.setQueryData(shopkitKeys.session, role);
      if (role === 'member') expiry.set(false);
      // The first visitor token comes with the first call, which is on its way with it.
      if ((before ?? 'none') === 'none' && role === 'visitor') return;
      // The cart (and its estimates) go at once, as on a logout here: never shown to whoever is
      // next, not even while the refetch is on its way or when it fails. The rest is refetched.
      void resetCart(qc);
      void qc.invalidateQueries({
        queryKey: shopkitKeys.all,
        // The session itself was just set.
        predicate: (q) => q.queryKey[1] !== 'session' && q.queryKey[1] !== 'cart',
      });
    };
    // Changes in the order they happened (`changes`); nothing from a run that was cleaned up.
    let live = true;
    const offTokens = auth.on('tokensChanged', (t, renewed) => {
      changed(counts, auth);
      follow(t, renewed);
    });
    // Another tab may have logged in or out: it wrote the shared storage, not this strategy's events.
    // A storage that cannot be read (a custom async one failing) changes nothing here: the session
    // query reads it too and holds the failure (`useMemberSession().error`), not an unhandled
    // rejection of the page.
    const reread = async () => {
      const mine = changed(counts, auth);
      let t: Tokens;
      try {
        t = await auth.getTokens();
      } catch {
        return;
      }
      if (live && mine === counts.get(auth)) follow(t);
    };
    void reread();
    const onVisible = () => {
      if (document.visibilityState === 'visible') void reread();
    };
    const w = typeof window === 'undefined' ? undefined : window;
    w?.addEventListener('storage', reread);
    w?.document.addEventListener('visibilitychange', onVisible);
    return () => {
      live = false;
      offTokens();
      w?.removeEventListener('storage', reread);
      w?.document.removeEventListener('visibilitychange', onVisible);
    };
  }, [client, qc]);
}

/**
 * The session as stored by the strategy (restored from its token storage on reload), kept in
 * step with token changes by `ShopkitProvider` (see {@link useSessionFollow}: a new session also
 * empties the cached cart and refetches the rest, whether or not this hook is mounted).
 * @example const { member } = useMemberSession(); return member ? <AccountLink /> : <LoginLink />;
 */
export function useMemberSession(): MemberSession {
  const client = useShopkit();
  const { data, error } = useQuery({
    queryKey: shopkitKeys.session,
    queryFn: async ({ client: qc }) => {
      const auth = memberAuth(client);
      const counts = heldBy(changes, qc);
      // Tokens stored while the read is on its way (a login's, with a slow storage), or read anew
      // by the provider (another tab's login), are the session: read again, not the older answer
      // kept (nothing refetches it: staleTime).
      let stored = false;
      const off = auth.on('tokensChanged', () => {
        stored = true;
      });
      let t: Awaited<ReturnType<typeof auth.getTokens>>;
      let at: number | undefined;
      try {
        do {
          stored = false;
          at = counts.get(auth);
          t = await auth.getTokens();
        } while (stored || at !== counts.get(auth));
      } finally {
        off();
      }
      expiryOf(auth).see(t);
      // The session the cached data belongs to, for the provider to tell a new one.
      const seenBy = heldBy(sessions, qc);
      if (!seenBy.has(auth)) seenBy.set(auth, { token: t?.refreshToken.value ?? '', role: roleOf(t) });
      return roleOf(t);
    },
    staleTime: Number.POSITIVE_INFINITY,
  });
  const subscribe = useCallback(
    (listener: () => void) => {
      const { listeners } = expiryOf(memberAuth(client));
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    [client],
  );
  const expired = useSyncExternalStore(
    subscribe,
    () => expiries.get(memberAuth(client))?.expired ?? false,
    () => false,
  );
  const role = data ?? 'none';
  return { role, member: role === 'member', expired, error };
}

/**
 * After a login everything cached belongs to someone else: refetch it (also when no
 * `useMemberSession` is mounted to see the role change).
 */
function useAfterIdentityChange() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: shopkitKeys.all });
}

/**
 * The platform accepted the member (login, registration or verification `SUCCESS`), but the
 * member session could not start: the silent login's hidden frame failed or timed out. The
 * account is fine; logging in again usually works. `result` is the platform's answer; its
 * `data.sessionToken` (a credential: it can still be traded for the member's tokens) is there to
 * read but not enumerable, so an error logged or reported (`console.error`, JSON) does not show it.
 */
export class MemberSessionError extends Error {
  readonly result: LoginResult;
  constructor(result: LoginResult, cause: unknown) {
    super('The member session could not start; log in again', { cause });
    this.name = 'MemberSessionError';
    const { sessionToken, ...data } = result.data ?? {};
    this.result = result.data
      ? { ...result, data: Object.defineProperty(data, 'sessionToken', { value: sessionToken }) }
      : result;
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
 * The member's own steps (login, sign-up, verification, reset e-mails, logout) are sent at once
 * whatever the browser says of the network, not held until it is back online as TanStack Query
 * holds mutations by default: held, a login offline showed "Please wait…" for as long as the
 * connection was gone (never the SDK's network failure and its words), and a logout never cleared
 * the member's tokens (checklist 33). And they are forgotten as soon as no form shows them: kept
 * (TanStack Query keeps a mutation five minutes by default), their variables held the password or
 * the code where anything holding the query client could read them.
 */
const AT_ONCE = { networkMode: 'always', gcTime: 0 } as const;

/**
 * A step that may log a member in (a login, a registration, a verification code): `step`'s result
 * through {@link finish}, and everything refetched on `SUCCESS`. A submit while one of the same
 * `name` is under way (a double click, or a second form) joins it, as {@link useCheckout} does, and
 * answers its outcome; once it has answered, the next submit sends its own (a password typed again
 * after a refusal). Sent twice, a registration would be refused as an e-mail already registered,
 * and a code the first one spent would count as a wrong one.
 */
function useLoginStep<V>(
  name: string,
  step: (client: AnyClient, vars: V) => Promise<LoginResult>,
  options: LoginHookOptions,
) {
  const client = useShopkit();
  const after = useAfterIdentityChange();
  return useOnce(
    name,
    useMutation<LoginResult, ShopkitHookError | MemberSessionError, V>({
      mutationKey: ['shopkit', name],
      ...AT_ONCE,
      mutationFn: async (vars: V) => finish(client, await step(client, vars), options),
      onSuccess: (r) => (r.loginState === 'SUCCESS' ? after() : undefined),
    }),
    { leaves: false },
  );
}

/**
 * Logs a member in with e-mail and password (and whatever else `identity.login` takes, such as
 * `captchaTokens`). On `SUCCESS` the member tokens are fetched (silent
 * login) and stored; other states (`EMAIL_VERIFICATION_REQUIRED`, `FAILURE` with `errorCode`) are
 * returned for the UI. A silent login that fails rejects with {@link MemberSessionError}. A submit
 * while a login is under way joins it (see {@link useLoginStep}).
 */
export const useLogin = (options: LoginHookOptions = {}) =>
  useLoginStep('login', (client, params: LoginParams) => identity.login(client, params), options);

/**
 * Registers a member (with the parameters of `identity.register`: `profile`, `captchaTokens`…);
 * logs in at once on `SUCCESS`, else returns the state (usually verification).
 */
export const useRegister = (options: LoginHookOptions = {}) =>
  useLoginStep('register', (client, params: RegisterParams) => identity.register(client, params), options);

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
export const useVerifyEmail = (options: LoginHookOptions = {}) =>
  useLoginStep(
    'verify',
    (client, vars: string | VerifyEmailVars) => {
      const { code, stateToken } = typeof vars === 'string' ? { code: vars } : vars;
      return identity.processVerification(client, { code, stateToken });
    },
    options,
  );

/**
 * Mails a new verification code for a pending login or registration (its `stateToken`); the old
 * code stops working. Rejects with the platform's error when the state token has expired or no
 * more codes are allowed (log in again for a new one).
 */
export function useResendVerification() {
  const client = useShopkit();
  return useMutation<void, ShopkitHookError, string>({
    mutationKey: ['shopkit', 'verify', 'resend'],
    ...AT_ONCE,
    mutationFn: async (stateToken: string) => {
      await identity.resendVerification(client, stateToken);
    },
  });
}

/** Asks for a password-reset e-mail whose link returns to `redirectUri` once the password is set. */
export function useSendPasswordReset() {
  const client = useShopkit();
  return useMutation<
    Awaited<ReturnType<typeof identity.sendPasswordResetEmail>>,
    ShopkitHookError,
    { email: string; redirectUri: string }
  >({
    mutationKey: ['shopkit', 'password-reset'],
    ...AT_ONCE,
    mutationFn: ({ email, redirectUri }: { email: string; redirectUri: string }) =>
      identity.sendPasswordResetEmail(client, email, redirectUri),
  });
}

/** Where {@link useLogout} sends the member back to. */
export interface LogoutVars {
  /** An absolute http(s) URL (`${location.origin}/`); a path is refused by the SDK. */
  returnUrl: string;
}

/**
 * Logs out: the strategy clears its tokens and returns the platform's logout URL, which ends the
 * member's session on the platform and comes back to `returnUrl`; `navigate` goes there. The
 * tokens are cleared even when the call then rejects (a `returnUrl` that is not an absolute
 * http(s) URL is a `ValidationError`), so the cached cart and session are dropped however it
 * ends. One logout at a time, as {@link useCheckout}: a call while one is under way or after one
 * succeeded gets that one, until `reset()` or the next member login (in this tab, or in another tab
 * sharing its token storage).
 * @example const logout = useLogout(); logout.mutate({ returnUrl: `${location.origin}/` });
 */
export function useLogout(navigate: (url: string) => void = (url) => globalThis.location.assign(url)) {
  const client = useShopkit();
  const qc = useQueryClient();
  const m = useOnce(
    'logout',
    useMutation<Awaited<ReturnType<typeof identity.logout>>, ShopkitHookError, LogoutVars>({
      mutationKey: ['shopkit', 'logout'],
      ...AT_ONCE,
      mutationFn: ({ returnUrl }: LogoutVars) => identity.logout(client, returnUrl),
      onSuccess: ({ logoutUrl }, { returnUrl }) => navigate(logoutUrl ?? returnUrl),
      // The member's cart goes at once (never shown to whoever is next); the rest is refetched.
      onSettled: () =>
        Promise.all([
          resetCart(qc),
          qc.invalidateQueries({ queryKey: shopkitKeys.all, predicate: (q) => q.queryKey[1] !== 'cart' }),
        ]),
    }),
  );
  // A member logged in again (without leaving the page), here or in another tab: the next logout
  // is a new one.
  const { reset } = m;
  useEffect(() => {
    // (a client without member logins, an API key's, has no events to follow)
    const offTokens = memberAuthOf(client)?.on('tokensChanged', (t, renewed) => {
      // Not when the logout's own call renews the member's token on its way.
      if (!renewed && roleOf(t) === 'member') reset();
    });
    // Another tab's login is no event of this tab's strategy: the provider reads it from the shared
    // storage (see `useSessionFollow`) and sets the cached role, which turns from a known visitor's
    // (or none) to `member`. Not the first role read (the session found on mounting), which a
    // logout already on its way may follow.
    let role = qc.getQueryData<Role>(shopkitKeys.session);
    const offCache = qc.getQueryCache().subscribe((event) => {
      const key = event.query.queryKey;
      if (event.type !== 'updated' || key.length !== 2 || key[0] !== 'shopkit' || key[1] !== 'session')
        return;
      const before = role;
      role = event.query.state.data as Role | undefined;
      if (role === 'member' && before !== undefined && before !== 'member') reset();
    });
    return () => {
      offTokens?.();
      offCache();
    };
  }, [client, qc, reset]);
  return m;
}
