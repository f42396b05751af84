import type { UseMutationResult } from '@tanstack/react-query';
import { useCallback, useEffect, useRef } from 'react';

/**
 * A mutation that leaves the page (checkout, logout) run once: a call while one is under way, or
 * after one succeeded (while the browser leaves), gets that run instead of starting another, so a
 * double click makes one request. A failed run lets the next call start; `reset()`, or coming back
 * through the back-forward cache, allows a new run.
 */
export function useOnce<D, E, V, C>(m: UseMutationResult<D, E, V, C>) {
  const { mutateAsync: send, reset: clear } = m;
  // The run under way (or done). Set in the click itself: the mutation's own state reaches React
  // a tick later, after a double click's second click.
  const current = useRef<Promise<D> | undefined>(undefined);
  const mutateAsync = useCallback<typeof send>(
    (...args) => {
      current.current ??= send(...args).catch((e: unknown) => {
        current.current = undefined;
        throw e;
      });
      return current.current;
    },
    [send],
  );
  const mutate = useCallback<typeof m.mutate>(
    (...args) => {
      // Errors are in `error`, as with TanStack Query's own `mutate`.
      mutateAsync(...args).catch(() => {});
    },
    [mutateAsync],
  );
  const reset = useCallback(() => {
    current.current = undefined;
    clear();
  }, [clear]);
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
