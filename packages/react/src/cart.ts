import {
  type AnyClient,
  type cart as CartModule,
  cart,
  type redirects as RedirectsModule,
  redirects,
  ShopkitError,
  TokenRole,
} from '@shopkit/sdk';
import {
  type QueryClient,
  queryOptions,
  useIsMutating,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { resetsOf, shopkitKeys } from './keys.ts';
import { useOnce } from './once.ts';
import { holds, useShopkit } from './provider.tsx';
import { noting, retry, type ShopkitHookError } from './retry.ts';

export type Cart = CartModule.Cart;
export type LineItem = CartModule.LineItem;
export type LineItemInput = CartModule.LineItemInput;
export type EstimateTotalsOptions = CartModule.EstimateTotalsOptions;
export type EstimateTotalsResponse = CartModule.EstimateTotalsResponse;
export type CreateCheckoutOptions = CartModule.CreateCheckoutOptions;
export type RedirectCallbacks = RedirectsModule.RedirectCallbacks;

/** Cart mutations share one scope: they run one at a time, in the order they were made. */
const CART_SCOPE = { id: 'shopkit:cart' };
const CART_MUTATION = ['shopkit', 'cart', 'mutation'] as const;

/** The platform's answer when the visitor or member has no cart yet: an answer, not a failure. */
async function unlessNoCart<T>(call: Promise<T>): Promise<T | null> {
  try {
    return await call;
  } catch (e) {
    if (e instanceof ShopkitError && e.code === 'OWNED_CART_NOT_FOUND') return null;
    throw e;
  }
}

/** The client a cart change was made through (`undefined` until its `onMutate` has run). */
const madeThrough = (m: { state: { context: unknown } }) =>
  (m.state.context as CartContext | undefined)?.client;

/** The cart changes made through `client` (or not known yet) that are pending: shown, queued or settling. */
const pendingThrough = (qc: QueryClient, client: AnyClient) =>
  qc
    .getMutationCache()
    .findAll({ mutationKey: CART_MUTATION, status: 'pending' })
    .filter((m) => (madeThrough(m) ?? client) === client);

/**
 * Whether a cart change made through `client` (or one not yet known) is shown or queued, and not
 * answered yet (nor refused before sending).
 */
const changing = (qc: QueryClient, client: AnyClient) =>
  pendingThrough(qc, client).some((m) => !(m.state.context as CartContext | undefined)?.answered);

/**
 * The current cart, or `null` when the visitor or member has none yet. A read made while a cart
 * change is on its way (a cart drawer mounting, a refetch on focus) may be answered with the cart
 * from before the change, even after the change's own answer: the cart shown stays instead (the
 * change shown at once, or its answer by then). A read made before a change is cancelled by it.
 */
export const cartQuery = (client: AnyClient) =>
  queryOptions({
    queryKey: shopkitKeys.cart,
    queryFn: noting(async ({ signal, client: qc }): Promise<Cart | null> => {
      const busy = changing(qc, client);
      const read = await unlessNoCart(cart.getCurrentCart(client, { signal }));
      const shown = qc.getQueryData<Cart | null>(shopkitKeys.cart);
      return busy && shown !== undefined ? shown : read;
    }),
    retry,
  });

/** The current cart (`null` when there is none). */
export function useCart() {
  return useQuery(cartQuery(useShopkit()));
}

/** The number of items in the current cart. */
export function useCartCount() {
  const { data } = useCart();
  return data?.lineItems.reduce((n, l) => n + l.quantity, 0) ?? 0;
}

/**
 * Whether cart changes are on their way, or held offline: until they answer, the cart's amounts
 * (the subtotal, line totals, estimates) are the server's from before them, while its lines and
 * quantities already show the changes. Show those amounts as updating meanwhile.
 * @example const updating = useCartUpdating(); <strong aria-busy={updating}>{cart.subtotal.formattedAmount}</strong>
 */
export function useCartUpdating() {
  const client = useShopkit();
  // Not the changes still on their way through a client the provider has since replaced.
  return (
    useIsMutating({ mutationKey: CART_MUTATION, predicate: (m) => (madeThrough(m) ?? client) === client }) > 0
  );
}

/** Ids of lines shown before the server has answered: `pending-<n>`, never one twice. */
let pendingLines = 0;
const pendingId = () => `pending-${++pendingLines}`;

/** By an add's variables, the pending lines its optimistic change showed, and what they add. */
const shownLines = new WeakMap<AddToCartVars, { id: string; input: LineItemInput }[]>();
/**
 * By query client and pending id, the server's id of the line once the add that showed it has
 * answered. Kept while that query client's cart changes are pending (the cart shows pending ids
 * until the last has answered), then let go: kept for good, a long session held one per line added.
 */
export const answeredLines = new WeakMap<QueryClient, Map<string, string>>();
/**
 * The server's id of a line: a change made to a line shown before its add answered (its quantity,
 * its removal, queued behind the add) is sent with the id the add's answer gave it, not with its
 * pending id, which the server does not know.
 */
const lineId = (qc: QueryClient) => (id: string) => answeredLines.get(qc)?.get(id) ?? id;

/**
 * A cart mutation with an optimistic change: the cached cart shows `optimistic(cart, vars)` at
 * once, rolls back (and refetches) on failure, and takes the server's cart when the last queued
 * change has answered. Offline, changes are held (TanStack Query pauses them) and sent in order.
 * `createsCart`: when the cache knows there is no cart (`null`), the change starts from an empty
 * pending one (the server creates the cart).
 *
 * A change made in one session and answered in another (a logout, another member's login while it
 * was on its way) writes nothing to the cache, neither its answer nor its rollback: both are the
 * old session's cart. The session is the strategy's auth epoch, which the change's own first
 * visitor token (when there were no tokens yet) moves by one.
 *
 * A change is sent through the client it was made through, and one made through a client the
 * provider has since replaced writes nothing to the cache either: the new client's cart is another.
 * (TanStack Query hands a pending mutation each render's callbacks, so the client is kept in the
 * change's context, not read from the callbacks' closure.)
 */
function useCartMutation<V>(
  name: string,
  send: (client: AnyClient, vars: V, qc: QueryClient) => Promise<Cart>,
  optimistic?: (cart: Cart, vars: V) => Cart,
  createsCart = false,
) {
  const client = useShopkit();
  const qc = useQueryClient();
  return useMutation<Cart, ShopkitHookError, V, CartContext>({
    mutationKey: [...CART_MUTATION, name],
    scope: CART_SCOPE,
    mutationFn: async (vars: V) => {
      // A member's change held offline, or queued behind others, until the session ended (a
      // logout, another member's login) would change the next session's cart: it is refused. A
      // visitor's change still goes to the member who logs in, whose cart took the visitor's in.
      // The running change is the oldest pending one with these variables: the scope runs in order.
      const own = qc.getMutationCache().find<Cart, ShopkitHookError, V, CartContext>({
        mutationKey: [...CART_MUTATION, name],
        status: 'pending',
        predicate: (m) => m.state.variables === vars,
      });
      const context = own?.state.context;
      // A change queued while the app swapped clients still goes to the cart it was made for.
      const through = context?.client ?? client;
      try {
        if (context?.member && moved(qc, context))
          throw new ShopkitError(
            'The cart change was made in a member session that has ended, and was not sent.',
            {
              code: 'SESSION_ENDED',
              description: 'The session the change was made in has ended',
            },
          );
        return await send(through, vars, qc);
      } finally {
        // Cart reads made from now on are not from before it (see `cartQuery`).
        if (context) context.answered = true;
      }
    },
    onMutate: async (vars): Promise<CartContext> => {
      // The cart shown is the server's when no other change is on its way through this client (it
      // is the only one pending), or none is known in this session (the last has set the cart).
      const first = pendingThrough(qc, client).length === 1;
      await qc.cancelQueries({ queryKey: shopkitKeys.cart, exact: true });
      const previous = qc.getQueryData<Cart | null>(shopkitKeys.cart);
      const resets = resetsOf(qc);
      const known = settled.get(qc);
      if (first || known?.client !== client || known.resets !== resets)
        settled.set(qc, { cart: previous, client, resets });
      const base = previous === null && createsCart ? { id: pendingId(), lineItems: [] } : previous;
      if (base && optimistic) qc.setQueryData(shopkitKeys.cart, optimistic(base, vars));
      return {
        previous,
        client,
        resets,
        ...(await sessionOf(client)),
      };
    },
    onError: (_e, _vars, context) => {
      if (context && !holds(qc, context.client)) return;
      // A later change still queued shows its own change on top of this one's: it decides when it
      // answers (its success sets the server's cart, its failure refetches it).
      if (qc.isMutating({ mutationKey: CART_MUTATION }) > 1) return;
      // Back to the server's cart as the changes before it left it (see `settled`), not to the cart
      // shown before this change: that held earlier changes' optimistic lines (their pending ids),
      // failed ones' too, which stayed on screen when the refetch failed too.
      const base = settled.get(qc);
      settled.delete(qc);
      if (context && !moved(qc, context))
        qc.setQueryData(
          shopkitKeys.cart,
          base?.client === context.client && base.resets === context.resets ? base.cart : context.previous,
        );
      // It failed while being made, after its optimistic change was shown (its session could not be
      // read: a token storage that failed), so it has no context: back to the server's cart all the
      // same. Left as it was, the pending line stayed on screen for as long as the refetch failed too.
      else if (!context && base && holds(qc, base.client) && base.resets === resetsOf(qc))
        qc.setQueryData(shopkitKeys.cart, base.cart);
      return qc.invalidateQueries({ queryKey: shopkitKeys.cart });
    },
    onSuccess: (next, _vars, context) => {
      if (!holds(qc, context.client)) return;
      if (moved(qc, context)) return qc.invalidateQueries({ queryKey: shopkitKeys.cart });
      // Earlier answers would hide later optimistic changes still queued: the last one wins. The
      // answer is kept for a later change that fails (`onError`).
      if (qc.isMutating({ mutationKey: CART_MUTATION }) > 1)
        settled.set(qc, { cart: next, client: context.client, resets: context.resets });
      else {
        settled.delete(qc);
        qc.setQueryData(shopkitKeys.cart, next);
      }
    },
    onSettled: () => {
      // The last pending change (this one) has settled: the cart shows no pending id any more.
      if (qc.isMutating({ mutationKey: CART_MUTATION }) <= 1) answeredLines.delete(qc);
      return qc.invalidateQueries({ queryKey: ['shopkit', 'cart', 'estimate'] });
    },
  });
}

/**
 * By query client, the server's cart as the cart changes on their way through `client` (in the
 * session of `resets`, see {@link CartContext}) have left it so far: the cart shown before the first
 * of them, then the last answer while later ones were still queued (not shown then, as their
 * optimistic lines go on top). A failure leaves it as it was.
 */
const settled = new WeakMap<
  QueryClient,
  { cart: Cart | null | undefined; client: AnyClient; resets: number }
>();

/**
 * What a cart change keeps from when it was made: the cart shown before it, and its session (the
 * context of the cart hooks' mutations, `UseMutationResult<Cart, ShopkitHookError, V, CartContext>`).
 */
export interface CartContext {
  previous: Cart | null | undefined;
  /** The cart's drops for a new session before it was made (`cartResets`). */
  resets: number;
  /** The client it was made through. */
  client: AnyClient;
  /** See {@link sessionOf}. */
  session?: number;
  /** Made in a member's session. */
  member?: boolean;
  /** Its request has answered (or it was refused before sending): it no longer makes reads stale. */
  answered?: boolean;
}

/**
 * The auth epoch a change is made in, plus the one step its own first visitor token takes when
 * there are no tokens yet (`undefined` for a strategy without epochs), and whether it is a member's.
 */
async function sessionOf(client: AnyClient): Promise<Pick<CartContext, 'session' | 'member'>> {
  const auth = client.auth as (AnyClient['auth'] & { getTokens?: () => Promise<unknown> }) | undefined;
  const epoch = auth?.epoch;
  if (epoch === undefined) return {};
  const tokens = (await auth?.getTokens?.()) as
    | { refreshToken?: { value?: string; role?: string } }
    | undefined;
  return {
    session: tokens?.refreshToken?.value ? epoch : epoch + 1,
    member: tokens?.refreshToken?.role === TokenRole.MEMBER,
  };
}
/**
 * Whether the session changed since a change was made: another session's tokens stored through its
 * client (see {@link sessionOf}), or the cart dropped for a new session seen in another tab's
 * storage (which moves no epoch of this tab's strategy).
 */
const moved = (qc: QueryClient, { client, session, resets }: CartContext) =>
  (session !== undefined && (client.auth?.epoch ?? 0) > session) || resetsOf(qc) !== resets;

/** A product without options is stored with the all-zero variant: the same item as one sent without. */
const NO_VARIANT = '00000000-0000-0000-0000-000000000000';
/**
 * A value with its objects' keys in one order: the same choices picked in another order
 * (`{ Size: 'M', Color: 'White' }`, then `{ Color: 'White', Size: 'M' }`, a form that records them
 * as they are picked) are the same item, which the server adds to its line.
 */
const ordered = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(ordered)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, ordered((v as Record<string, unknown>)[k])]),
        )
      : v;
const optionsKey = (options: unknown) => {
  const o = options as Record<string, unknown> | null | undefined;
  const plain = !o || (Object.keys(o).length === 1 && o.variantId === NO_VARIANT);
  return JSON.stringify(plain ? null : ordered(o));
};
const sameItem = (a: LineItem, b: LineItemInput) =>
  a.catalogReference?.catalogItemId === b.catalogReference.catalogItemId &&
  optionsKey(a.catalogReference?.options) === optionsKey(b.catalogReference.options);

export interface AddToCartVars {
  lineItems: LineItemInput[];
  /** What to show for a line that is not in the cart yet, until the server answers. */
  preview?: Partial<LineItem>;
}

/**
 * Adds catalog items to the current cart (creating it when needed). A line not in the cart yet
 * shows at once with an id `pending-<n>` of its own (and `preview`), until the server answers. A
 * change made to that line meanwhile (`useUpdateLineItemQuantity`, `useRemoveLineItems` with its
 * pending id) is sent after the add, with the id the add's answer gave the line.
 * @example const add = useAddToCart(); add.mutate({ lineItems: [{ catalogReference: { appId: cart.STORES_APP_ID, catalogItemId: id }, quantity: 1 }] });
 */
export function useAddToCart() {
  return useCartMutation<AddToCartVars>(
    'add',
    async (client, vars, qc) => {
      const answer = (await cart.addToCurrentCart(client, { lineItems: vars.lineItems })).cart;
      const answered = answeredLines.get(qc) ?? new Map<string, string>();
      for (const { id, input } of shownLines.get(vars) ?? []) {
        const line = answer.lineItems.find((l) => sameItem(l, input));
        if (line) answeredLines.set(qc, answered.set(id, line.id));
      }
      shownLines.delete(vars);
      return answer;
    },
    (c, vars) => {
      const { lineItems, preview } = vars;
      const next = c.lineItems.map((l) => {
        const add = lineItems.find((i) => sameItem(l, i));
        return add ? { ...l, quantity: l.quantity + add.quantity } : l;
      });
      for (const i of lineItems)
        if (!c.lineItems.some((l) => sameItem(l, i))) {
          const id = pendingId();
          shownLines.set(vars, [...(shownLines.get(vars) ?? []), { id, input: i }]);
          next.push({ ...preview, id, quantity: i.quantity, catalogReference: i.catalogReference });
        }
      return { ...c, lineItems: next };
    },
    true,
  );
}

/** Sets a line's quantity (0 removes it). */
export function useUpdateLineItemQuantity() {
  return useCartMutation<{ id: string; quantity: number }>(
    'quantity',
    async (client, { id, quantity }, qc) =>
      (await cart.updateCurrentCartLineItemQuantity(client, [{ id: lineId(qc)(id), quantity }])).cart,
    (c, { id, quantity }) => ({
      ...c,
      lineItems: c.lineItems.flatMap((l) => (l.id !== id ? [l] : quantity > 0 ? [{ ...l, quantity }] : [])),
    }),
  );
}

/** Removes lines by id. */
export function useRemoveLineItems() {
  return useCartMutation<string[]>(
    'remove',
    async (client, ids, qc) => (await cart.removeLineItemsFromCurrentCart(client, ids.map(lineId(qc)))).cart,
    (c, ids) => ({ ...c, lineItems: c.lineItems.filter((l) => !ids.includes(l.id)) }),
  );
}

/**
 * Applies a coupon code; a refused code rejects with the platform's `ApplicationError`. Not
 * optimistic: only the server knows whether the code applies and what it takes off.
 */
export function useApplyCoupon() {
  return useCartMutation<string>('coupon', (client, couponCode) =>
    cart.updateCurrentCart(client, { couponCode }),
  );
}

/**
 * Removes the applied coupon. Not optimistic, as {@link useApplyCoupon}: a coupon is money, and the
 * cart keeps the coupon and the amounts it discounts together until the server answers (show the
 * coupon busy meanwhile: `isPending`, or {@link useCartUpdating}); offline, it is held like any
 * other cart change.
 */
export function useRemoveCoupon() {
  return useCartMutation<void>(
    'uncoupon',
    async (client) => (await cart.removeCouponFromCurrentCart(client)).cart,
  );
}

/**
 * Estimated totals of the current cart for an address and shipping option, or `null` when there is
 * no cart (as {@link cartQuery}); refreshed after every cart change.
 */
export const estimateTotalsQuery = (client: AnyClient, options: EstimateTotalsOptions = {}) =>
  queryOptions({
    queryKey: shopkitKeys.estimate(options),
    queryFn: noting(
      ({ signal }): Promise<EstimateTotalsResponse | null> =>
        unlessNoCart(cart.estimateCurrentCartTotals(client, options, { signal })),
    ),
    retry,
  });

/** Estimated totals of the current cart (`null` when there is none); the previous answer stays shown while the next loads. */
export function useEstimateTotals(options: EstimateTotalsOptions = {}, { enabled = true } = {}) {
  const client = useShopkit();
  const query = estimateTotalsQuery(client, options);
  return useQuery({ ...query, enabled, placeholderData: (prev) => prev });
}

export interface CheckoutVars extends CreateCheckoutOptions {
  /** Where the hosted checkout returns; a function gets the new checkout's id. */
  callbacks: RedirectCallbacks | ((checkoutId: string) => RedirectCallbacks);
}

/**
 * Creates a checkout from the current cart and a redirect session to the hosted checkout page,
 * then sends the browser there (`navigate`, default `location.assign`). Without a cart it rejects
 * with the platform's `OWNED_CART_NOT_FOUND`: offer it only when `useCart()` has lines. Calls made
 * while one is under way (a double click, or a second checkout button mounted elsewhere on the
 * page) are ignored: one checkout, one redirect session. After success the mutation stays
 * `isSuccess`, and later calls answer that same checkout while the browser leaves: `reset()`
 * allows a new one (coming back from the back-forward cache resets it, and so does the last
 * mounted `useCheckout` unmounting).
 * @example const checkout = useCheckout(); checkout.mutate({ callbacks: (id) => ({ postFlowUrl: `${location.origin}/thank-you?checkoutId=${id}` }) });
 */
export function useCheckout(navigate: (url: string) => void = (url) => globalThis.location.assign(url)) {
  const client = useShopkit();
  return useOnce(
    'checkout',
    useMutation<{ checkoutId: string; url: string }, ShopkitHookError, CheckoutVars>({
      mutationKey: ['shopkit', 'checkout'],
      scope: CART_SCOPE,
      // Sent at once, offline too (it fails, saying why): held, it would show busy with nothing said
      // and leave for the hosted page whenever the network came back. Cart changes held offline
      // before it still go first (the scope).
      networkMode: 'always',
      mutationFn: async ({ callbacks, ...options }: CheckoutVars) => {
        const { checkoutId } = await cart.createCheckoutFromCurrentCart(client, options);
        const { redirectSession } = await redirects.createRedirectSession(client, {
          ecomCheckout: { checkoutId },
          callbacks: typeof callbacks === 'function' ? callbacks(checkoutId) : callbacks,
        });
        return { checkoutId, url: redirectSession.fullUrl };
      },
      onSuccess: ({ url }) => navigate(url),
    }),
  );
}
