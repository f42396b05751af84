import { type RefObject, useState } from 'react';
import { unavailable } from './context.ts';

/**
 * Said above a list the page read again and could not (offline, a 5xx) while it still shows the
 * last one it read: what was just saved is stored all the same (never "went wrong", which invites
 * the change again), with "Load it again". When the list is back, the button goes and the focus
 * goes to `after`, not to the page.
 */
export function StaleList({
  what,
  retry,
  after,
}: {
  /** The list, as the sentence names it: `products`. */
  what: string;
  retry: () => Promise<{ error: unknown }>;
  after: RefObject<HTMLElement | null>;
}) {
  const [busy, setBusy] = useState(false);
  return (
    <div className="notice" role="status">
      <p>{`The ${what} could not be loaded again, so the page may not show all that is stored yet.`}</p>
      <button
        type="button"
        className="button small"
        {...unavailable(busy)}
        onClick={async () => {
          if (busy) return;
          setBusy(true);
          const { error } = await retry();
          setBusy(false);
          if (!error) after.current?.focus();
        }}
      >
        Load it again
      </button>
    </div>
  );
}
