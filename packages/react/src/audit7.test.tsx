// @vitest-environment jsdom
/**
 * React bindings, audit 7. Two failed cart changes in a row, the refetch after them failing too
 * (offline), rolled the cart back to the second's snapshot, which held the first's pending line;
 * a checkout (or logout) run with the provider's old client was handed out as the new client's;
 * a double click on a login form started two logins and two silent logins (and on a registration
 * or verification form, two registrations, the second refused, or two uses of one code).
 */
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import { type AnyClient, cart, createClient, identity, OAuthStrategy, products } from '@shopkit/sdk';
import { act, renderHook, waitFor } from '@testing-library/react';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { providers } from '../test/providers.tsx';
import {
  useAddToCart,
  useCart,
  useCheckout,
  useLogin,
  useRegister,
  useUpdateLineItemQuantity,
  useVerifyEmail,
} from './index.ts';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());

/** Requests whose URL ends with one of `suffixes`, as they are sent. */
function counting(suffixes: string[]) {
  const sent: string[] = [];
  const fetchFn: typeof fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const suffix = suffixes.find((s) => url.endsWith(s));
    if (suffix) sent.push(suffix);
    return fetch(input, init);
  };
  return { sent, fetchFn };
}

/** A product without options, as a cart line. */
async function line(client: AnyClient, slug: string) {
  const { products: list } = await products.queryProducts(client, { filter: { slug: { $eq: slug } } });
  return { catalogReference: { appId: cart.STORES_APP_ID, catalogItemId: list[0]!.id! }, quantity: 1 };
}

it('rolls two failed cart changes back to the server’s cart, without the first one’s pending line, when the refetch fails too', async () => {
  // Once `held`, adds wait for `release`; once `offline`, every request fails as a network failure does.
  let release!: () => void;
  let held: Promise<void> | undefined;
  let offline = false;
  const fetchFn: typeof fetch = async (input, init) => {
    if (held && String(input instanceof Request ? input.url : input).endsWith('/add-to-cart')) await held;
    if (offline) throw new TypeError('Failed to fetch');
    return fetch(input, init);
  };
  const client = createClient({
    baseUrl: emu.url,
    fetch: fetchFn,
    retry: { baseDelayMs: 1 },
    auth: OAuthStrategy({ clientId: emu.demo.clientId }),
  });
  await cart.addToCurrentCart(client, { lineItems: [await line(client, 'dinner-plate')] });
  const spoon = await line(client, 'olive-wood-spoon');
  const { wrapper } = providers(client);
  const hook = renderHook(
    () => ({ cart: useCart(), add: useAddToCart(), qty: useUpdateLineItemQuantity() }),
    {
      wrapper,
    },
  );
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(1));
  const plate = hook.result.current.cart.data!.lineItems[0]!;
  held = new Promise<void>((r) => {
    release = r;
  });
  let added!: Promise<unknown>;
  let changed!: Promise<unknown>;
  act(() => {
    added = hook.result.current.add.mutateAsync({ lineItems: [spoon] }).catch((e: unknown) => e);
    changed = hook.result.current.qty.mutateAsync({ id: plate.id, quantity: 2 }).catch((e: unknown) => e);
  });
  // Both show at once: the spoon's pending line, and the plate's new quantity.
  await waitFor(() =>
    expect(hook.result.current.cart.data?.lineItems.map((l) => l.quantity)).toEqual([2, 1]),
  );
  offline = true;
  release();
  expect(await act(() => added)).toBeInstanceOf(Error);
  expect(await act(() => changed)).toBeInstanceOf(Error);
  await waitFor(() => expect(hook.result.current.cart.isFetching).toBe(false));
  await act(() => new Promise((r) => setTimeout(r, 100)));
  // What the server last said: the plate alone, once; no line it never had.
  expect(hook.result.current.cart.data!.lineItems.map((l) => [l.id, l.quantity])).toEqual([[plate.id, 1]]);
  offline = false;
  expect((await cart.getCurrentCart(client)).lineItems.map((l) => [l.id, l.quantity])).toEqual([
    [plate.id, 1],
  ]);
});

it("runs a checkout afresh through the provider's new client, not answering the old client's", async () => {
  // Two visitors, each with a plate in a cart of their own.
  const old = counting(['/create-checkout']);
  const next = counting(['/create-checkout']);
  const clients = [old, next].map(({ fetchFn }) =>
    createClient({ baseUrl: emu.url, fetch: fetchFn, auth: OAuthStrategy({ clientId: emu.demo.clientId }) }),
  );
  for (const c of clients) await cart.addToCurrentCart(c, { lineItems: [await line(c, 'dinner-plate')] });
  const current = { client: clients[0]! };
  const { wrapper } = providers(() => current.client);
  const visited: string[] = [];
  const hook = renderHook(() => useCheckout((url) => visited.push(url)), { wrapper });
  const vars = { callbacks: { postFlowUrl: 'http://127.0.0.1/thanks' } };
  const first = await act(() => hook.result.current.mutateAsync(vars));

  current.client = clients[1]!;
  hook.rerender();
  // Nothing of the old client's checkout shows through the new one…
  expect(hook.result.current.isIdle).toBe(true);
  expect(hook.result.current.data).toBeUndefined();
  // …and its checkout is its own.
  const second = await act(() => hook.result.current.mutateAsync(vars));
  expect(second.checkoutId).not.toBe(first.checkoutId);
  expect({ old: old.sent.length, next: next.sent.length, visited: visited.length }).toEqual({
    old: 1,
    next: 1,
    visited: 2,
  });
});

/** Three submits at once of `hook`'s `page` and `header` mutations, each settled as `{r}` or `{e}`. */
function submitThrice<V>(
  current: () => {
    page: { mutateAsync(v: V): Promise<unknown> };
    header: { mutateAsync(v: V): Promise<unknown> };
  },
  vars: V,
) {
  let calls!: Promise<{ r?: unknown; e?: unknown }>[];
  act(() => {
    const settle = (p: Promise<unknown>) =>
      p.then(
        (r) => ({ r }),
        (e: unknown) => ({ e }),
      );
    calls = [
      settle(current().page.mutateAsync(vars)),
      settle(current().page.mutateAsync(vars)),
      settle(current().header.mutateAsync(vars)),
    ];
  });
  return act(() => Promise.all(calls));
}

it('starts one login and one silent login on a double submit, both answering its outcome', async () => {
  const email = 'double-submit-audit@example.com';
  const password = 'long enough pw';
  const { sent, fetchFn } = counting(['/v2/login', '/redirect-session']);
  const client = createClient({
    baseUrl: emu.url,
    fetch: fetchFn,
    auth: OAuthStrategy({ clientId: emu.demo.clientId }),
  });
  await identity.register(client, { email, password });
  const { wrapper } = providers(client);
  // Two login forms (the header's and the page's), the page's submitted twice.
  const hook = renderHook(
    () => ({
      header: useLogin({ silentLoginTimeoutMs: 300 }),
      page: useLogin({ silentLoginTimeoutMs: 300 }),
    }),
    { wrapper },
  );
  const submit = (vars: { email: string; password: string }) => submitThrice(() => hook.result.current, vars);

  // A wrong password: one login, answered FAILURE to every submit.
  const refused = await submit({ email, password: 'not the password' });
  expect(sent).toEqual(['/v2/login']);
  expect(refused[0]).toMatchObject({ r: { loginState: 'FAILURE' } });
  for (const answer of refused) expect(answer.r).toBe(refused[0]!.r);

  // Corrected: a login of its own (not the refused one's answer), and one silent login, which jsdom
  // cannot finish: every submit rejects with the same error.
  const accepted = await submit({ email, password });
  expect(sent).toEqual(['/v2/login', '/v2/login', '/redirect-session']);
  const error = accepted[0]!.e;
  expect(error).toBeInstanceOf(Error);
  for (const answer of accepted) expect(answer.e).toBe(error);
  await waitFor(() =>
    expect([hook.result.current.page.isError, hook.result.current.header.isError]).toEqual([true, true]),
  );
  // Nothing further starts once it has ended.
  await act(() => new Promise((r) => setTimeout(r, 300)));
  expect(sent).toHaveLength(3);
});

it('registers once on a double submit, every submit answering its outcome', async () => {
  const email = 'double-register-audit@example.com';
  const { sent, fetchFn } = counting(['/v2/register']);
  const client = createClient({
    baseUrl: emu.url,
    fetch: fetchFn,
    auth: OAuthStrategy({ clientId: emu.demo.clientId }),
  });
  const { wrapper } = providers(client);
  const hook = renderHook(
    () => ({
      header: useRegister({ silentLoginTimeoutMs: 300 }),
      page: useRegister({ silentLoginTimeoutMs: 300 }),
    }),
    { wrapper },
  );
  const answers = await submitThrice(() => hook.result.current, { email, password: 'long enough pw' });
  expect(sent).toEqual(['/v2/register']);
  // Registered (the silent login jsdom cannot finish rejects): the same outcome for every submit,
  // not an "e-mail already exists" for the second.
  expect(answers[0]!.e).toBeInstanceOf(Error);
  for (const answer of answers) expect(answer.e).toBe(answers[0]!.e);
});

it('sends a verification code once on a double submit, every submit answering its outcome', async () => {
  await fetch(`${emu.url}/_api/emulator/v1/settings`, {
    method: 'POST',
    headers: { authorization: emu.demo.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ emailVerificationRequired: true }),
  });
  const email = 'double-verify-audit@example.com';
  const { sent, fetchFn } = counting(['/auth/verify']);
  const client = createClient({
    baseUrl: emu.url,
    fetch: fetchFn,
    auth: OAuthStrategy({ clientId: emu.demo.clientId }),
  });
  const registered = await identity.register(client, { email, password: 'long enough pw' });
  expect(registered.loginState).toBe('EMAIL_VERIFICATION_REQUIRED');
  const stateToken = registered.data!.stateToken!;
  const mail = (await (await fetch(`${emu.url}/_api/emulator/v1/mailbox?to=${email}`)).json()) as {
    messages: { code?: string }[];
  };
  const code = mail.messages.find((m) => m.code)!.code!;
  const { wrapper } = providers(client);
  const hook = renderHook(
    () => ({
      header: useVerifyEmail({ silentLoginTimeoutMs: 300 }),
      page: useVerifyEmail({ silentLoginTimeoutMs: 300 }),
    }),
    { wrapper },
  );
  const answers = await submitThrice(() => hook.result.current, { code, stateToken });
  expect(sent).toEqual(['/auth/verify']);
  // Verified (the silent login jsdom cannot finish rejects with the SUCCESS it carries), for every
  // submit: none spent the code a second time and was told it is wrong.
  expect((answers[0]!.e as { result?: { loginState?: string } }).result?.loginState).toBe('SUCCESS');
  for (const answer of answers) expect(answer.e).toBe(answers[0]!.e);
});
