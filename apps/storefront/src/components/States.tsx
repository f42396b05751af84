/** Loading skeletons, error states with retry, empty states. */
import { type ReactNode, useLayoutEffect, useRef } from 'react';
import { humanMessage } from '../errors.ts';

export function Skeleton({ lines = 3, label = 'Loading' }: { lines?: number; label?: string }) {
  return (
    <div className="skeleton" role="status" aria-live="polite" aria-busy="true">
      <span className="visually-hidden">{label}…</span>
      {Array.from({ length: lines }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: placeholders have no identity
        <div key={i} className="skeleton-line" />
      ))}
    </div>
  );
}

export function GridSkeleton({ count = 6, label = 'Loading products' }: { count?: number; label?: string }) {
  return (
    <div role="status" aria-busy="true">
      <span className="visually-hidden">{label}…</span>
      <ul className="grid" aria-hidden="true">
        {Array.from({ length: count }, (_, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: placeholders have no identity
          <li key={i} className="card card-skeleton">
            <div className="card-media skeleton-block" />
            <div className="skeleton-line" />
            <div className="skeleton-line short" />
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The heading of a page whose data is on its way (every page has one, for screen readers). */
export function LoadingHeading() {
  return <h1 className="visually-hidden">Loading…</h1>;
}

export function ErrorState({
  error,
  retry,
  title = 'Something went wrong',
  page = false,
  message = humanMessage(error),
}: {
  error: Error;
  retry?: () => void;
  title?: string;
  /** The whole page failed: the title is the page's heading. */
  page?: boolean;
  /** What to say of the error, if not its `humanMessage`. */
  message?: string;
}) {
  // "Try again" pressed and answered: the error state goes, and its focused button with it. Focus
  // goes to the nearest part of the page that takes it (a listing's results, the page's main), not
  // to the page's body (where a keyboard or screen-reader user was told nothing of what came back).
  // The cleanup of a layout effect runs while the button is still in the page.
  const box = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = box.current;
    return () => {
      if (!el?.contains(document.activeElement)) return;
      const home = el.parentElement?.closest<HTMLElement>('[tabindex="-1"]');
      queueMicrotask(() => {
        const active = document.activeElement;
        if ((!active || active === document.body) && home?.isConnected) home.focus({ preventScroll: true });
      });
    };
  }, []);
  return (
    <div ref={box} className="notice notice-error" role="alert">
      {page && <h1>{title}</h1>}
      <p>
        {!page && (
          <>
            <strong>{title}.</strong>{' '}
          </>
        )}
        {message}
      </p>
      {retry && (
        <button type="button" className="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="notice">{children}</div>;
}
