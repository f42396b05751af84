import { shopkitKeys } from '@shopkit/react';
import { type AnyClient, ShopkitError } from '@shopkit/sdk';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useRef } from 'react';
import { useBlocker, useLocation, useNavigationType } from 'react-router';
import { PartlySaved, unanswered } from './saving.ts';

export const MerchantContext = createContext<AnyClient | null>(null);

/** The document title of a console page (`Collections`), or `undefined` while its data loads. */
export const consoleTitle = (page: string | undefined) => page && `${page} · Merchant console`;

export function useMerchant() {
  const c = useContext(MerchantContext);
  if (!c) throw new Error('useMerchant must be used inside the console.');
  return c;
}

/** Every item of a query (the SDK's builders iterate over all pages), in order. */
export async function allOf<T>(query: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of query) all.push(item);
  return all;
}

/**
 * After a write: refetch the console's lists and the shop's cached catalog. True when the console's
 * reads shown on the page came back; false when one failed (offline, a 5xx): the write is stored
 * all the same, only the page may not show it yet.
 */
export function useRefresh() {
  const qc = useQueryClient();
  return async () => {
    await Promise.all([
      qc.invalidateQueries({ queryKey: ['merchant'] }),
      qc.invalidateQueries({ queryKey: shopkitKeys.all }),
    ]);
    return !qc
      .getQueryCache()
      .findAll({ queryKey: ['merchant'], type: 'active' })
      .some((q) => q.state.status === 'error');
  };
}

/** Whether the platform refused the key itself (not a call's fields): it has been replaced or revoked. */
export const keyRefused = (err: unknown) =>
  err instanceof ShopkitError && (err.status === 401 || err.status === 403);

/** The key of every console write (`useWrite`). */
const WRITES = ['merchant', 'write'];

/**
 * A console write. `run` starts it only when none of this write is running (a double click makes
 * one request, not two); after success the console and the shop are refreshed, then `then` runs,
 * told whether the console's reads came back (`reloaded`: false when the write is stored but the
 * page could not read it back, to be said as saved, never as failed); after a failure `failed`
 * runs (the error is in `error` too).
 * `isPending` stays true until the refresh is done, so buttons can be disabled until then.
 * @example const del = useWrite((id: string) => products.deleteProduct(client, id)); del.run(p.id);
 */
export function useWrite<A, R = unknown>(write: (arg: A) => Promise<R>) {
  const refresh = useRefresh();
  const running = useRef(false);
  const reloaded = useRef(true);
  const m = useMutation({
    // Counted by `useAskBeforeLeaving`: closing or reloading the tab would cut it off.
    mutationKey: WRITES,
    mutationFn: write,
    onSuccess: async () => {
      reloaded.current = await refresh();
    },
    // Part of it is stored, or it may be (no answer): the console shows what is stored now, not
    // what was there before. A key refused: the console's reads are refused too, and the console
    // says what to do about the key (a write alone said only "The access token is invalid").
    onError: (e) => (e instanceof PartlySaved || unanswered(e) || keyRefused(e) ? refresh() : undefined),
  });
  const run = (arg: A, then?: (result: R, reloaded: boolean) => void, failed?: (error: Error) => void) => {
    if (running.current) return;
    running.current = true;
    m.mutate(arg, {
      onSuccess: (result) => then?.(result, reloaded.current),
      onError: failed,
      onSettled: () => {
        running.current = false;
      },
    });
  };
  return { run, isPending: m.isPending, error: m.error, data: m.data, reset: m.reset };
}

/**
 * What a part of the page would lose if the page were left now (`the image URL`), or nothing.
 * Asked at the moment the page is left, so it reads the form as it is then.
 */
type Unsaved = () => string | false | undefined;
/** The forms of the page that register with `useUnsaved`. */
export type UnsavedForms = Set<{ current: Unsaved }>;
const lostIn = (forms: UnsavedForms) => [...forms].flatMap((f) => f.current() || []);
/**
 * Whether the page may be left (or the console closed): nothing typed would be lost, or the
 * merchant, asked and told what, agrees to lose it.
 */
export const mayLeave = (forms: UnsavedForms) =>
  !lostIn(forms).length ||
  confirm(`Leave this page with these not saved: ${lostIn(forms).join(', ')}? What you typed is lost.`);
const UnsavedContext = createContext<UnsavedForms>(new Set());
export const UnsavedProvider = UnsavedContext.Provider;

/** Registers a part of the page (a form) whose typed and unsaved values leaving would lose. */
export function useUnsaved(unsaved: Unsaved) {
  const forms = useContext(UnsavedContext);
  const ref = useRef(unsaved);
  ref.current = unsaved;
  useEffect(() => {
    forms.add(ref);
    return () => {
      forms.delete(ref);
    };
  }, [forms]);
}

/** The navigation state of a new product's editor just after it was created. */
export const CREATED = { created: true };
export const justCreated = (state: unknown) => (state as typeof CREATED | null)?.created === true;

/**
 * While a form of the page has values typed and not saved, leaving the page for another page of
 * the console asks first, naming what would be lost, and so does the browser before the tab is
 * closed or reloaded. Opening a new product's editor once it is created (navigation state
 * `CREATED`) is not leaving it. One for the console: a router takes one blocker at a time.
 */
export function useAskBeforeLeaving(forms: UnsavedForms) {
  const qc = useQueryClient();
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      currentLocation.pathname !== nextLocation.pathname &&
      !justCreated(nextLocation.state) &&
      lostIn(forms).length > 0,
  );
  useEffect(() => {
    if (blocker.state !== 'blocked') return;
    if (mayLeave(forms)) blocker.proceed();
    else blocker.reset();
  }, [blocker, forms]);
  useEffect(() => {
    // A write on its way counts too: another page of the console lets it finish (its values are
    // not unsaved, so moving there does not ask), but closing or reloading the tab cuts it off.
    const ask = (e: BeforeUnloadEvent) => {
      if (lostIn(forms).length || qc.isMutating({ mutationKey: WRITES })) e.preventDefault();
    };
    addEventListener('beforeunload', ask);
    return () => removeEventListener('beforeunload', ask);
  }, [forms, qc]);
}

/**
 * Whether a field inside `root` (an uncontrolled one: React keeps a controlled field's default
 * equal to its value) holds something other than what it showed: text typed, a choice made.
 * Fields inside `sending` (the form whose write is on its way) do not count: what they hold is
 * being saved, and leaving for another page of the console lets that write finish.
 */
export function typedIn(root: Element | null, sending?: Element | null) {
  if (!root) return false;
  for (const el of root.querySelectorAll('input, textarea, select')) {
    if (sending?.contains(el)) continue;
    if (el instanceof HTMLSelectElement) {
      if ([...el.options].some((o) => o.selected !== o.defaultSelected)) return true;
    } else if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio')) {
      if (el.checked !== el.defaultChecked) return true;
    } else if (
      (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) &&
      el.value.trim() !== el.defaultValue.trim()
    )
      return true;
  }
  return false;
}

/**
 * A button's props while it cannot be used (a write is on its way, or there is nothing to do):
 * `aria-disabled` rather than `disabled`, so that the button a keyboard merchant pressed keeps
 * focus (a `disabled` button drops it to the page). Its handler must ignore presses meanwhile;
 * `useWrite`'s `run` does. It looks unavailable by `styles.css`'s `[aria-disabled='true']` rule.
 */
export const unavailable = (off: boolean) => (off ? ({ 'aria-disabled': true } as const) : {});

/**
 * Runs `moved` when the merchant goes somewhere while the page stays (a link to the page already
 * shown, which the router replaces; the browser's Back or Forward): a status line's "Saved." from
 * before says nothing about the page reached, and goes. The page's own replacements are no move:
 * a list's filter or page, the products shown in a collection (its URL's search), a new product's
 * editor dropping its `CREATED` state.
 */
export function useOnMove(moved: () => void) {
  const location = useLocation();
  const how = useNavigationType();
  const ref = useRef(moved);
  ref.current = moved;
  const last = useRef(location);
  useEffect(() => {
    const before = last.current;
    last.current = location;
    if (before.key === location.key) return;
    const own =
      how === 'REPLACE' &&
      before.pathname === location.pathname &&
      (before.search !== location.search || justCreated(before.state));
    if (!own) ref.current();
  }, [location, how]);
}
