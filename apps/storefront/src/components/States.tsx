/** Loading skeletons, error states with retry, empty states. */
import type { ReactNode } from 'react';
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

export function ErrorState({
  error,
  retry,
  title = 'Something went wrong',
}: {
  error: Error;
  retry?: () => void;
  title?: string;
}) {
  return (
    <div className="notice notice-error" role="alert">
      <p>
        <strong>{title}.</strong> {humanMessage(error)}
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
