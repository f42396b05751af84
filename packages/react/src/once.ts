import { type QueryClient, type UseMutationResult, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useSyncExternalStore } from 'react';

/** How the last run went, for the hooks that joined it rather than started it. */
type RunState =
  | { status: 'pending' }
  | { status: 'success'; data: unknown }
  | { status: 'error'; error: unknown };

/** A run under way (or done), and how many mounted hooks share it. */
interface Shared {
  run?: Promise<unknown>;
  users: number;
  /** The last run's state (none before one, or after a reset), and who hears of its changes. */
  state?: RunState;
  heard: Set<() => void>;
}
/** By query client and name: every hook of one name shares its run. */
const runs = new WeakMap<QueryClient, Map<string, Shared>>();

/** No run and no state: the next call starts one. */
const forget = (shared: Shared) => {
  shared.run = undefined;
  shared.state = undefined;
};

/**
 * A mutation that leaves the page (checkout, logout) run once: a call while one is under way, or
 * after one succeeded (while the browser leaves), gets that run instead of starting another, so a
 * double click makes one request, and so do two buttons (the cart drawer's and the cart page's):
 * the run is kept for every mounted hook of this `name` under one query client, until the last of
 * them unmounts (or, when that is while the run is under way, until it ends: the drawer that
 * started a checkout closes, the cart page's button shows it busy). A failed run lets the next call
 * start; `reset()`, or coming back through the back-forward cache, allows a new run. Every hook
 * shows the run's state, the ones that joined it too (busy while it runs, then its error or its
 * data).
 */
export function useOnce<D, E, V, C>(name: string, m: UseMutationResult<D, E, V, C>) {
  const { mutateAsync: send, reset: clear } = m;
  const qc = useQueryClient();
  const byName = runs.get(qc) ?? new Map<string, Shared>();
  runs.set(qc, byName);
  const shared = byName.get(name) ?? { users: 0, heard: new Set() };
  byName.set(name, shared);
  useEffect(() => {
    shared.users++;
    return () => {
      if (!--shared.users && shared.state?.status !== 'pending') forget(shared);
    };
  }, [shared]);
  // Kept in the click itself: the mutation's own state reaches React a tick later, after a double
  // click's second click.
  const mutateAsync = useCallback<typeof send>(
    (...args) => {
      if (!shared.run) {
        const tell = (state: RunState | undefined) => {
          shared.state = state;
          for (const l of shared.heard) l();
        };
        const run: Promise<D> = send(...args).then(
          (data) => {
            if (shared.run === run) {
              tell({ status: 'success', data });
              // Every hook unmounted while it ran: nothing shows it any more.
              if (!shared.users) forget(shared);
            }
            return data;
          },
          (e: unknown) => {
            if (shared.run === run) {
              shared.run = undefined;
              tell({ status: 'error', error: e });
              if (!shared.users) forget(shared);
            }
            throw e;
          },
        );
        shared.run = run;
        tell({ status: 'pending' });
      }
      return shared.run as Promise<D>;
    },
    [send, shared],
  );
  // A hook that joined another's run (the cart page's button, the drawer's run) shows that run's
  // state: busy while it runs, its error or its data after. Its own mutation stays idle.
  const state = useSyncExternalStore(
    useCallback(
      (listener: () => void) => {
        shared.heard.add(listener);
        return () => void shared.heard.delete(listener);
      },
      [shared],
    ),
    () => shared.state,
    () => undefined,
  );
  const mutate = useCallback<typeof m.mutate>(
    (...args) => {
      // Errors are in `error`, as with TanStack Query's own `mutate`.
      mutateAsync(...args).catch(() => {});
    },
    [mutateAsync],
  );
  const reset = useCallback(() => {
    forget(shared);
    for (const l of shared.heard) l();
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
  const joined =
    m.status === 'idle' && state
      ? {
          status: state.status,
          isIdle: false,
          isPending: state.status === 'pending',
          isSuccess: state.status === 'success',
          isError: state.status === 'error',
          data: state.status === 'success' ? (state.data as D) : undefined,
          error: state.status === 'error' ? (state.error as E) : null,
        }
      : {};
  return { ...m, ...joined, mutate, mutateAsync, reset } as UseMutationResult<D, E, V, C>;
}
