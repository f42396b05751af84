import { type QueryClient, type UseMutationResult, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect } from 'react';

/** A run under way (or done), and how many mounted hooks share it. */
interface Shared {
  run?: Promise<unknown>;
  users: number;
}
/** By query client and name: every hook of one name shares its run. */
const runs = new WeakMap<QueryClient, Map<string, Shared>>();

/**
 * A mutation that leaves the page (checkout, logout) run once: a call while one is under way, or
 * after one succeeded (while the browser leaves), gets that run instead of starting another, so a
 * double click makes one request, and so do two buttons (the cart drawer's and the cart page's):
 * the run is kept for every mounted hook of this `name` under one query client, until the last of
 * them unmounts. A failed run lets the next call start; `reset()`, or coming back through the
 * back-forward cache, allows a new run.
 */
export function useOnce<D, E, V, C>(name: string, m: UseMutationResult<D, E, V, C>) {
  const { mutateAsync: send, reset: clear } = m;
  const qc = useQueryClient();
  const byName = runs.get(qc) ?? new Map<string, Shared>();
  runs.set(qc, byName);
  const shared = byName.get(name) ?? { users: 0 };
  byName.set(name, shared);
  useEffect(() => {
    shared.users++;
    return () => {
      if (!--shared.users) shared.run = undefined;
    };
  }, [shared]);
  // Kept in the click itself: the mutation's own state reaches React a tick later, after a double
  // click's second click.
  const mutateAsync = useCallback<typeof send>(
    (...args) => {
      if (!shared.run) {
        const run: Promise<D> = send(...args).catch((e: unknown) => {
          if (shared.run === run) shared.run = undefined;
          throw e;
        });
        shared.run = run;
      }
      return shared.run as Promise<D>;
    },
    [send, shared],
  );
  const mutate = useCallback<typeof m.mutate>(
    (...args) => {
      // Errors are in `error`, as with TanStack Query's own `mutate`.
      mutateAsync(...args).catch(() => {});
    },
    [mutateAsync],
  );
  const reset = useCallback(() => {
    shared.run = undefined;
    clear();
  }, [clear, shared]);
  // Back from the page it left, through the back-forward cache: the page is as it was left.
  useEffect(() => {
    const onShow = (e: PageTransitionEvent) => {
      if (e.persisted) reset();
    };
    globalThis.addEventListener?.('pageshow', onShow);
    return () => globalThis.removeEventListener?.('pageshow', onShow);
  }, [reset]);
  return { ...m, mutate, mutateAsync, reset };
}
