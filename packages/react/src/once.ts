import type { AnyClient } from '@shopkit/sdk';
import { type QueryClient, type UseMutationResult, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useSyncExternalStore } from 'react';
import { useShopkit } from './provider.tsx';

/** How the last run went, for the hooks that joined it rather than started it. */
type RunState = (
  | { status: 'pending' }
  | { status: 'success'; data: unknown }
  | { status: 'error'; error: unknown }
) & {
  /**
   * What the run was called with: TanStack Query types a pending, answered or failed mutation's
   * `variables` as given, and a joined run's are the run's own (as its data and error are).
   */
  variables: unknown;
};

/** A run under way (or done), and how many mounted hooks share it. */
interface Shared {
  run?: Promise<unknown>;
  users: number;
  /** The last run's state (none before one, or after a reset), and who hears of its changes. */
  state?: RunState;
  heard: Set<() => void>;
}
/**
 * By query client, Shopkit client and name: every hook of one name shares its run, and a run made
 * through a client the provider has since replaced is not the new client's.
 */
const runs = new WeakMap<QueryClient, WeakMap<AnyClient, Map<string, Shared>>>();

/** No run and no state: the next call starts one. */
const forget = (shared: Shared) => {
  shared.run = undefined;
  shared.state = undefined;
};

/**
 * A mutation that leaves the page (checkout, logout) run once: a call while one is under way, or
 * after one succeeded (while the browser leaves), gets that run instead of starting another, so a
 * double click makes one request, and so do two buttons (the cart drawer's and the cart page's):
 * the run is kept for every mounted hook of this `name` under one query client and Shopkit client,
 * until the last of them unmounts (or, when that is while the run is under way, until it ends: the
 * drawer that started a checkout closes, the cart page's button shows it busy). A failed run lets
 * the next call start; `reset()`, or coming back through the back-forward cache, allows a new run.
 * Every hook shows the run's state, the ones that joined it too (busy while it runs, then its error
 * or its data). A new client in the provider starts afresh: the old client's run is not its own.
 * `leaves: false` (a login) keeps a run only while it is under way: once it has answered, the next
 * call starts another (a login refused for a mistyped password, then sent again).
 */
export function useOnce<D, E, V, C>(
  name: string,
  m: UseMutationResult<D, E, V, C>,
  { leaves = true }: { leaves?: boolean } = {},
) {
  const { mutateAsync: send, reset: clear } = m;
  const qc = useQueryClient();
  const client = useShopkit();
  const byClient = runs.get(qc) ?? new WeakMap<AnyClient, Map<string, Shared>>();
  runs.set(qc, byClient);
  const byName = byClient.get(client) ?? new Map<string, Shared>();
  byClient.set(client, byName);
  const shared = byName.get(name) ?? { users: 0, heard: new Set() };
  byName.set(name, shared);
  // This hook's own run, made through the provider's old client, is not shown for the new one, and
  // is let go of once that has rendered.
  const through = useRef(shared);
  const own = through.current === shared ? m.status : 'idle';
  useEffect(() => {
    if (through.current === shared) return;
    through.current = shared;
    clear();
  }, [shared, clear]);
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
        const [variables] = args;
        const tell = (state: RunState | undefined) => {
          shared.state = state;
          for (const l of shared.heard) l();
        };
        const run: Promise<D> = send(...args).then(
          (data) => {
            if (shared.run === run) {
              if (!leaves) shared.run = undefined;
              tell({ status: 'success', data, variables });
              // Every hook unmounted while it ran: nothing shows it any more.
              if (!shared.users) forget(shared);
            }
            return data;
          },
          (e: unknown) => {
            if (shared.run === run) {
              shared.run = undefined;
              tell({ status: 'error', error: e, variables });
              if (!shared.users) forget(shared);
            }
            throw e;
          },
        );
        shared.run = run;
        tell({ status: 'pending', variables });
      }
      return shared.run as Promise<D>;
    },
    [send, shared, leaves],
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
    own === 'idle' && state
      ? {
          status: state.status,
          isIdle: false,
          isPending: state.status === 'pending',
          isSuccess: state.status === 'success',
          isError: state.status === 'error',
          data: state.status === 'success' ? (state.data as D) : undefined,
          error: state.status === 'error' ? (state.error as E) : null,
          variables: state.variables as V,
        }
      : own !== m.status
        ? {
            status: 'idle' as const,
            isIdle: true,
            isPending: false,
            isSuccess: false,
            isError: false,
            data: undefined,
            error: null,
            variables: undefined,
          }
        : {};
  return { ...m, ...joined, mutate, mutateAsync, reset } as UseMutationResult<D, E, V, C>;
}
