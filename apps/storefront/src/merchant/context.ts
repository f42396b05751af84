import { shopkitKeys } from '@shopkit/react';
import type { AnyClient } from '@shopkit/sdk';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useRef } from 'react';

export const MerchantContext = createContext<AnyClient | null>(null);

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

/** After a write: refetch the console's lists and the shop's cached catalog. */
function useRefresh() {
  const qc = useQueryClient();
  return () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: ['merchant'] }),
      qc.invalidateQueries({ queryKey: shopkitKeys.all }),
    ]);
}

/**
 * A console write. `run` starts it only when none of this write is running (a double click makes
 * one request, not two); after success the console and the shop are refreshed, then `then` runs;
 * after a failure `failed` runs (the error is in `error` too).
 * `isPending` stays true until the refresh is done, so buttons can be disabled until then.
 * @example const del = useWrite((id: string) => products.deleteProduct(client, id)); del.run(p.id);
 */
export function useWrite<A, R = unknown>(write: (arg: A) => Promise<R>) {
  const refresh = useRefresh();
  const running = useRef(false);
  const m = useMutation({ mutationFn: write, onSuccess: () => refresh() });
  const run = (arg: A, then?: (result: R) => void, failed?: (error: Error) => void) => {
    if (running.current) return;
    running.current = true;
    m.mutate(arg, {
      onSuccess: then,
      onError: failed,
      onSettled: () => {
        running.current = false;
      },
    });
  };
  return { run, isPending: m.isPending, error: m.error, data: m.data, reset: m.reset };
}

/**
 * A button's props while it cannot be used (a write is on its way, or there is nothing to do):
 * `aria-disabled` rather than `disabled`, so that the button a keyboard merchant pressed keeps
 * focus (a `disabled` button drops it to the page). Its handler must ignore presses meanwhile;
 * `useWrite`'s `run` does. It looks unavailable by `styles.css`'s `[aria-disabled='true']` rule.
 */
export const unavailable = (off: boolean) => (off ? ({ 'aria-disabled': true } as const) : {});
