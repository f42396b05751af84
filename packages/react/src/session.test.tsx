// @vitest-environment jsdom
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import {
  cart,
  createClient,
  identity,
  memoryStorage,
  OAuthStrategy,
  products,
  type TokenStorage,
  ValidationError,
  webStorage,
} from '@shopkit/sdk';
import { onlineManager, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { holdableFetch } from '../test/hold.ts';
import { memberMaker } from '../test/members.ts';
import {
  MemberSessionError,
  ShopkitProvider,
  useAddToCart,
  useCart,
  useLogin,
  useLogout,
  useMemberSession,
  useRegister,
  useVerifyEmail,
} from './index.ts';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());
// A test that takes the page offline and fails midway must not leave the next one offline.
afterEach(() => onlineManager.setOnline(true));

function setup(storage: TokenStorage = webStorage(localStorage, emu.demo.clientId), fetchFn = fetch) {
  const client = createClient({
    baseUrl: emu.url,
    fetch: fetchFn,
    auth: OAuthStrategy({ clientId: emu.demo.clientId, storage }),
  });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>
      <ShopkitProvider client={client}>{children}</ShopkitProvider>
    </QueryClientProvider>
  );
  return { client, wrapper };
}

it('follows logins and logouts that another tab writes to the shared token storage', async () => {
  localStorage.clear();
  const { wrapper } = setup();
  const { result } = renderHook(() => useMemberSession(), { wrapper });
  await waitFor(() => expect(result.current.role).toBe('none'));

  // Another tab stores member tokens: this tab hears only the browser's `storage` event.
  const key = `shopkit:${emu.demo.clientId}:tokens`;
  const member = {
    accessToken: { value: 'access', expiresAt: Math.floor(Date.now() / 1000) + 3600 },
    refreshToken: { value: 'refresh', role: 'member' },
  };
  localStorage.setItem(key, JSON.stringify(member));
  act(() => {
    dispatchEvent(new StorageEvent('storage', { key, newValue: JSON.stringify(member) }));
  });
  await waitFor(() => expect(result.current).toMatchObject({ role: 'member', member: true }));

  // …and logs out.
  localStorage.removeItem(key);
  act(() => {
    dispatchEvent(new StorageEvent('storage', { key, newValue: null }));
  });
  await waitFor(() => expect(result.current).toMatchObject({ role: 'none', member: false }));
  localStorage.clear();
});

it('verifies with a state token after a reload, and reports a session that could not start', async () => {
  await fetch(`${emu.url}/_api/emulator/v1/settings`, {
    method: 'POST',
    headers: { authorization: emu.demo.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ emailVerificationRequired: true }),
  });
  const email = 'reloaded@example.com';
  const before = setup();
  const registered = await identity.register(before.client, { email, password: 'long enough pw' });
  expect(registered.loginState).toBe('EMAIL_VERIFICATION_REQUIRED');
  const stateToken = registered.data!.stateToken!;
  const mail = (await (await fetch(`${emu.url}/_api/emulator/v1/mailbox?to=${email}`)).json()) as {
    messages: { code?: string }[];
  };
  const code = mail.messages.find((m) => m.code)!.code!;

  // A new client: the SDK's in-memory verification state is gone, as after a reload.
  const after = setup();
  const { result } = renderHook(() => useVerifyEmail({ silentLoginTimeoutMs: 200 }), {
    wrapper: after.wrapper,
  });
  const wrong = await act(() => result.current.mutateAsync({ code: '000000', stateToken }));
  expect(wrong).toMatchObject({ loginState: 'FAILURE', errorCode: 'VERIFICATION_FAILED' });

  // Right code: the platform says SUCCESS; jsdom cannot run the silent-login frame, so the
  // hook rejects with MemberSessionError (after 200 ms, not the SDK's 120 s) carrying SUCCESS.
  const error = await act(() =>
    result.current.mutateAsync({ code, stateToken }).then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  expect(error).toBeInstanceOf(MemberSessionError);
  expect((error as MemberSessionError).result.loginState).toBe('SUCCESS');
  expect((error as MemberSessionError).result.data?.sessionToken).toBeTruthy();
});

/** Member tokens for a new member, as a trusted server gets them. */
const memberTokens = memberMaker(() => emu, 'member');

/** Adds a dinner plate (a product without options) to the client's current cart. */
async function addPlate(client: ReturnType<typeof setup>['client']) {
  const { products: list } = await products.queryProducts(client, {
    filter: { slug: { $eq: 'dinner-plate' } },
  });
  await cart.addToCurrentCart(client, {
    lineItems: [{ catalogReference: { appId: cart.STORES_APP_ID, catalogItemId: list[0]!.id }, quantity: 1 }],
  });
}

async function settings(values: Record<string, boolean>) {
  await fetch(`${emu.url}/_api/emulator/v1/settings`, {
    method: 'POST',
    headers: { authorization: emu.demo.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(values),
  });
}

it('refetches the cart when the tokens change in this tab outside the hooks (a hosted-login callback)', async () => {
  const { client, wrapper } = setup(memoryStorage());
  await addPlate(client);
  const { result } = renderHook(() => ({ session: useMemberSession(), cart: useCart() }), { wrapper });
  await waitFor(() => expect(result.current.cart.data?.lineItems).toHaveLength(1));
  expect(result.current.session.role).toBe('visitor');

  // As the README's callback does after the hosted login.
  const tokens = await memberTokens();
  await act(() => client.auth.setTokens(tokens));
  await waitFor(() => expect(result.current.session.role).toBe('member'));
  // The visitor's cart is not the member's: this member has none yet.
  await waitFor(() => expect(result.current.cart.data).toBeNull());
});

it('empties the cached cart on a login and a logout made outside the hooks, with no session hook mounted', async () => {
  const { client, wrapper } = setup(memoryStorage());
  await addPlate(client);
  // Only the cart: the provider follows the session whichever hooks are mounted.
  const { result } = renderHook(() => useCart(), { wrapper });
  await waitFor(() => expect(result.current.data?.lineItems).toHaveLength(1));

  // The README's hosted-login callback: the visitor's cart is not the member's, who has none.
  await act(async () => client.auth.setTokens(await memberTokens()));
  await waitFor(() => expect(result.current.data).toBeNull());
  await act(() => addPlate(client).then(() => addPlate(client)));
  await act(() => result.current.refetch());
  await waitFor(() => expect(result.current.data?.lineItems[0]?.quantity).toBe(2));

  // A logout through the SDK alone: the member's cart goes from the screen with the tokens.
  await act(() => identity.logout(client));
  await waitFor(() => expect(result.current.data).toBeNull());
});

it('shows the member session to a session hook mounted after a login made outside the hooks', async () => {
  const { client, wrapper } = setup(memoryStorage());
  await addPlate(client);
  const shop = renderHook(() => useCart(), { wrapper });
  await waitFor(() => expect(shop.result.current.data?.lineItems).toHaveLength(1));
  await act(async () => client.auth.setTokens(await memberTokens()));
  // A header with the session, shown only now.
  const header = renderHook(() => useMemberSession(), { wrapper });
  await waitFor(() => expect(header.result.current.role).toBe('member'));
  await waitFor(() => expect(shop.result.current.data).toBeNull());
});

it("fetches a member's cart once on mounting, the session restored from storage being the one cached", async () => {
  const carts: string[] = [];
  const counting = ((input: RequestInfo | URL, init?: RequestInit) => {
    if (String(input).endsWith('/ecom/v1/carts/current')) carts.push(init?.method ?? 'GET');
    return fetch(input, init);
  }) as typeof fetch;
  const stored = await memberTokens();
  await addPlate(setup(memoryStorage(stored)).client);
  // The hooks in either order: the session's read may come before the provider's or after.
  const cartFirst = () => ({ cart: useCart(), session: useMemberSession() });
  const sessionFirst = () => {
    const session = useMemberSession();
    return { session, cart: useCart() };
  };
  for (const hooks of [cartFirst, sessionFirst]) {
    carts.length = 0;
    const { wrapper } = setup(memoryStorage(stored), counting);
    const { result, unmount } = renderHook(hooks, { wrapper });
    await waitFor(() => expect(result.current.cart.data?.lineItems).toHaveLength(1));
    await act(() => new Promise((r) => setTimeout(r, 200)));
    expect(result.current.session.role).toBe('member');
    expect(carts, hooks.name).toEqual(['GET']);
    unmount();
  }
});

it('refetches when one member follows another straight away, and not when this tab renews', async () => {
  const carts: string[] = [];
  const counting = ((input: RequestInfo | URL, init?: RequestInit) => {
    if (String(input).endsWith('/ecom/v1/carts/current')) carts.push(String(input));
    return fetch(input, init);
  }) as typeof fetch;
  const { client, wrapper } = setup(memoryStorage(await memberTokens()), counting);
  await addPlate(client);
  const { result } = renderHook(() => ({ session: useMemberSession(), cart: useCart() }), { wrapper });
  await waitFor(() => expect(result.current.cart.data?.lineItems).toHaveLength(1));
  expect(result.current.session.role).toBe('member');

  // This tab's own renewal keeps the session: nothing cached is someone else's.
  const before = carts.length;
  await act(() => client.auth.renewToken());
  await new Promise((r) => setTimeout(r, 200));
  expect(carts.length).toBe(before);

  // Another member's tokens, with no logout between (the role stays `member`): their cart, not the first one's.
  await act(async () => client.auth.setTokens(await memberTokens()));
  await waitFor(() => expect(result.current.cart.data).toBeNull());
  expect(result.current.session.role).toBe('member');
});

it('drops the cached cart when a logout clears the tokens and then rejects a relative return URL', async () => {
  const { client, wrapper } = setup(memoryStorage(await memberTokens()));
  await addPlate(client);
  const visited: string[] = [];
  const { result } = renderHook(() => ({ cart: useCart(), logout: useLogout((url) => visited.push(url)) }), {
    wrapper,
  });
  await waitFor(() => expect(result.current.cart.data?.lineItems).toHaveLength(1));

  const error = await act(() =>
    result.current.logout.mutateAsync({ returnUrl: '/' }).then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  expect(error).toBeInstanceOf(ValidationError);
  expect(visited).toEqual([]);
  // The local logout happened: the member's cart is gone from the cache too.
  expect((await client.auth.getTokens()).refreshToken.role).not.toBe('member');
  await waitFor(() => expect(result.current.cart.data).toBeNull());
});

it('logs out once when asked twice before the first has answered (a double click)', async () => {
  const sessions: string[] = [];
  const counting: typeof fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.endsWith('/redirect-session')) sessions.push(url);
    return fetch(input, init);
  };
  const { wrapper } = setup(memoryStorage(await memberTokens()), counting);
  const visited: string[] = [];
  const { result } = renderHook(() => useLogout((url) => visited.push(url)), { wrapper });
  const vars = { returnUrl: 'http://127.0.0.1/' };
  act(() => {
    result.current.mutate(vars);
    result.current.mutate(vars);
  });
  await waitFor(() => expect(visited).toHaveLength(1));
  await new Promise((r) => setTimeout(r, 300));
  expect(sessions).toHaveLength(1);
  expect(visited).toHaveLength(1);
});

it('shows a session that ended to a component mounted after it ended', async () => {
  // A member whose access token has expired and whose refresh token the platform refuses.
  const { wrapper } = setup(
    memoryStorage({
      accessToken: { value: 'expired', expiresAt: 0 },
      refreshToken: { value: 'refused', role: 'member' },
    }),
  );
  const first = renderHook(() => ({ session: useMemberSession(), cart: useCart() }), { wrapper });
  await waitFor(() => expect(first.result.current.session).toMatchObject({ expired: true, member: false }));
  await waitFor(() => expect(first.result.current.cart.data).toBeNull());
  const later = renderHook(() => useMemberSession(), { wrapper });
  expect(later.result.current.expired).toBe(true);
});

it('passes captcha tokens (and all else the SDK takes) through login and registration', async () => {
  await settings({ captchaRequired: true, emailVerificationRequired: false });
  try {
    const captcha = async () =>
      (
        (await (await fetch(`${emu.url}/_api/emulator/v1/captcha-token`, { method: 'POST' })).json()) as {
          token: string;
        }
      ).token;
    const { wrapper } = setup(memoryStorage());
    const { result } = renderHook(
      () => ({
        login: useLogin({ silentLoginTimeoutMs: 200 }),
        register: useRegister({ silentLoginTimeoutMs: 200 }),
      }),
      { wrapper },
    );
    const email = 'captcha@example.com';
    const password = 'long enough pw';
    // The platform says SUCCESS; jsdom cannot run the silent-login frame (MemberSessionError).
    const outcome = (p: Promise<unknown>) =>
      p.then(
        (r) => r,
        (e: unknown) => (e instanceof MemberSessionError ? e.result : e),
      );
    const registered = await act(() =>
      outcome(
        result.current.register.mutateAsync({ email, password, captchaTokens: { recaptchaToken: '' } }),
      ),
    );
    expect(registered).toMatchObject({ loginState: 'FAILURE', errorCode: 'missingCaptchaToken' });
    // Registration, then a login, each with a fresh captcha token.
    for (const hook of ['register', 'login'] as const)
      expect(
        await act(async () =>
          outcome(
            result.current[hook].mutateAsync({
              email,
              password,
              captchaTokens: { recaptchaToken: await captcha() },
            }),
          ),
        ),
        hook,
      ).toMatchObject({ loginState: 'SUCCESS' });
  } finally {
    await settings({ captchaRequired: false });
  }
});

/** The catalog id of the dinner plate (a product without options). */
const plateId = async (client: ReturnType<typeof setup>['client']) =>
  (await products.queryProducts(client, { filter: { slug: { $eq: 'dinner-plate' } } })).products[0]!.id;

it("keeps a cart change answered after a logout, or after another member's login, out of the next session's cache", async () => {
  for (const next of ['logout', 'another member'] as const) {
    const { fetchFn, hold } = holdableFetch();
    const { client, wrapper } = setup(memoryStorage(await memberTokens()), fetchFn);
    await addPlate(client);
    const plate = await plateId(client);
    const hook = renderHook(
      () => ({
        session: useMemberSession(),
        cart: useCart(),
        add: useAddToCart(),
        logout: useLogout(() => {}),
      }),
      {
        wrapper,
      },
    );
    await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(1));
    // The member adds a plate; the answer (the member's cart) is held until the session changed.
    const release = hold();
    let added!: Promise<unknown>;
    act(() => {
      added = hook.result.current.add.mutateAsync({
        lineItems: [{ catalogReference: { appId: cart.STORES_APP_ID, catalogItemId: plate }, quantity: 1 }],
      });
    });
    await waitFor(() => expect(hook.result.current.cart.data?.lineItems[0]?.quantity).toBe(2));
    if (next === 'logout')
      await act(() => hook.result.current.logout.mutateAsync({ returnUrl: 'http://127.0.0.1/' }));
    else await act(async () => client.auth.setTokens(await memberTokens()));
    await waitFor(() => expect(hook.result.current.cart.data).toBeNull());
    release();
    await act(() => added);
    await new Promise((r) => setTimeout(r, 300));
    // The new session has no cart; the first member's is not shown to it.
    expect(hook.result.current.cart.data).toBeNull();
    hook.unmount();
  }
});

it("refuses a member's cart change held offline until the session ended, and sends a visitor's to the member who logs in", async () => {
  for (const next of ['logout', 'another member', 'visitor logs in'] as const) {
    const { client, wrapper } = setup(
      memoryStorage(next === 'visitor logs in' ? undefined : await memberTokens()),
    );
    await addPlate(client);
    const plate = await plateId(client);
    const hook = renderHook(() => ({ cart: useCart(), add: useAddToCart() }), { wrapper });
    await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(1));
    // Offline: the change shows at once and waits, its session recorded.
    onlineManager.setOnline(false);
    let added!: Promise<unknown>;
    act(() => {
      added = hook.result.current.add.mutateAsync({
        lineItems: [{ catalogReference: { appId: cart.STORES_APP_ID, catalogItemId: plate }, quantity: 1 }],
      });
      added.catch(() => {});
    });
    await waitFor(() => expect(hook.result.current.add.isPaused).toBe(true));
    if (next === 'logout') await act(() => identity.logout(client, 'http://127.0.0.1/'));
    else await act(async () => client.auth.setTokens(await memberTokens()));
    act(() => onlineManager.setOnline(true));
    if (next === 'visitor logs in') {
      // The member's cart took nothing at login (the visitor's was not merged here, tokens were
      // set by hand): the visitor's change went to the member's cart.
      await act(() => added);
      expect((await cart.getCurrentCart(client)).lineItems.map((l) => l.quantity)).toEqual([1]);
    } else {
      await expect(added).rejects.toMatchObject({ code: 'SESSION_ENDED' });
      // Nothing reached the next session's cart (it has none).
      await expect(cart.getCurrentCart(client)).rejects.toMatchObject({ code: 'OWNED_CART_NOT_FOUND' });
    }
    hook.unmount();
  }
});

it('drops the cart at once when another tab logs out, even while the refetch fails', async () => {
  localStorage.clear();
  const key = `shopkit:${emu.demo.clientId}:tokens`;
  localStorage.setItem(key, JSON.stringify(await memberTokens()));
  let offline = false;
  const flaky: typeof fetch = (input, init) =>
    offline && String(input).endsWith('/ecom/v1/carts/current')
      ? Promise.reject(new TypeError('offline'))
      : fetch(input, init);
  const { client, wrapper } = setup(undefined, flaky);
  await addPlate(client);
  const { result } = renderHook(() => ({ session: useMemberSession(), cart: useCart() }), { wrapper });
  await waitFor(() => expect(result.current.cart.data?.lineItems).toHaveLength(1));
  expect(result.current.session.role).toBe('member');
  offline = true;
  localStorage.removeItem(key);
  act(() => {
    dispatchEvent(new StorageEvent('storage', { key, newValue: null }));
  });
  await waitFor(() => expect(result.current.session.role).not.toBe('member'));
  // The refetch (a new visitor's token from the emulator, then three attempts at the cart that fail)
  // ends: given up to 25 s, as a loaded full run (Chromium beside it) once took more than 8 s.
  await waitFor(() => expect(result.current.cart.fetchStatus).toBe('idle'), { timeout: 25_000 });
  expect(result.current.cart.data ?? null).toBeNull();
  localStorage.clear();
});

it('keeps the latest of two re-reads of an async token storage that answer out of order', async () => {
  const member = {
    accessToken: { value: 'access', expiresAt: Math.floor(Date.now() / 1000) + 3600 },
    refreshToken: { value: 'refresh', role: 'member' as const },
  };
  // An async storage (a server's cookie store, say) whose reads take the time they are given.
  let stored: typeof member | null = null;
  const delays: number[] = [];
  const slow: TokenStorage = {
    getTokens: () => {
      const value = stored;
      return new Promise((r) => setTimeout(() => r(value), delays.shift() ?? 0));
    },
    setTokens: () => {},
  };
  const { wrapper } = setup(slow);
  const { result } = renderHook(() => useMemberSession(), { wrapper });
  await waitFor(() => expect(result.current.role).toBe('none'));
  // Another tab logs in (this read is slow), then out (this read is quick): the login's answer
  // arrives last and is older.
  stored = member;
  delays.push(150);
  act(() => void dispatchEvent(new StorageEvent('storage')));
  stored = null;
  delays.push(0);
  act(() => void dispatchEvent(new StorageEvent('storage')));
  await new Promise((r) => setTimeout(r, 300));
  expect(result.current.role).toBe('none');
});

it('sees tokens that changed while no session hook was mounted', async () => {
  const { client, wrapper } = setup(memoryStorage());
  const first = renderHook(() => useMemberSession(), { wrapper });
  await waitFor(() => expect(first.result.current.role).not.toBe('member'));
  first.unmount();
  // A route without the hooks stores member tokens (a hosted-login callback).
  await client.auth.setTokens(await memberTokens());
  const later = renderHook(() => useMemberSession(), { wrapper });
  await waitFor(() => expect(later.result.current.role).toBe('member'));
});

it('logs out once on a double click even when the logout renews the member token on its way', async () => {
  const { fetchFn, hold } = holdableFetch();
  const sessions: string[] = [];
  const counting: typeof fetch = (input, init) => {
    if (String(input instanceof Request ? input.url : input).endsWith('/redirect-session'))
      sessions.push('session');
    return fetchFn(input, init);
  };
  const tokens = await memberTokens();
  // The access token has expired: the logout's own call renews it first.
  const { client, wrapper } = setup(
    memoryStorage({ ...tokens, accessToken: { value: tokens.accessToken.value, expiresAt: 0 } }),
    counting,
  );
  const renewals: boolean[] = [];
  client.auth.on('tokensChanged', (_t, renewed) => renewals.push(renewed));
  const visited: string[] = [];
  const { result } = renderHook(() => useLogout((url) => visited.push(url)), { wrapper });
  const vars = { returnUrl: 'http://127.0.0.1/' };
  const release = hold('/redirect-session');
  act(() => result.current.mutate(vars));
  await waitFor(() => expect(renewals).toContain(true));
  act(() => result.current.mutate(vars));
  release();
  await waitFor(() => expect(visited).toHaveLength(1));
  await new Promise((r) => setTimeout(r, 300));
  expect(sessions).toHaveLength(1);
  expect(visited).toHaveLength(1);
});

it("sends a login and a logout made offline at once: the login fails in the network's words, the logout clears the tokens", async () => {
  const tokens = await memberTokens();
  let down = false;
  const flaky: typeof fetch = (input, init) =>
    down ? Promise.reject(new TypeError('Failed to fetch')) : fetch(input, init);
  const { client, wrapper } = setup(memoryStorage(tokens), flaky);
  const navigated: string[] = [];
  const hook = renderHook(() => ({ login: useLogin(), logout: useLogout((url) => navigated.push(url)) }), {
    wrapper,
  });
  down = true;
  onlineManager.setOnline(false);
  // Held, as TanStack Query holds mutations offline by default, each said "please wait" for as
  // long as the connection was gone, and the logout never cleared the member's tokens.
  act(() => hook.result.current.login.mutate({ email: 'ada@example.test', password: 'long enough pw' }));
  await waitFor(() => expect(hook.result.current.login.isSuccess).toBe(true));
  expect(hook.result.current.login.isPaused).toBe(false);
  expect(hook.result.current.login.data).toMatchObject({ loginState: 'FAILURE', errorCode: 'network' });
  act(() => hook.result.current.logout.mutate({ returnUrl: 'http://127.0.0.1/' }));
  await waitFor(() => expect(hook.result.current.logout.isSuccess).toBe(true));
  expect((await client.auth.getTokens()).refreshToken.role).toBe('none');
  expect(hook.result.current.logout.data?.warning?.code).toBe('NETWORK_ERROR');
  expect(navigated).toEqual(['http://127.0.0.1/']);
  hook.unmount();
});
