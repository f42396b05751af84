import {
  type LineItem,
  useCart,
  useCartUpdating,
  useRemoveLineItems,
  useUpdateLineItemQuantity,
} from '@shopkit/react';
import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { imageUrl } from '../config.ts';
import { humanMessage } from '../errors.ts';
import { HELD, useHeld } from '../offline.ts';

function describe(l: LineItem) {
  return (l.descriptionLines ?? [])
    .map((d) => `${d.name.original}: ${d.colorInfo?.original ?? d.plainText?.original ?? ''}`)
    .join(', ');
}

/**
 * The changes `CartLines` makes (quantities, removals), held by the page or drawer that shows it:
 * removing the last line empties the cart until the platform answers, and the list goes with it;
 * when the removal fails the line comes back, and why must still be said (`LineChangeError`),
 * which a list mounted afresh no longer knew.
 */
export function useLineChanges() {
  const qty = useUpdateLineItemQuantity();
  const remove = useRemoveLineItems();
  // An error is said of one cart: another (the order placed, a logout, another member's) starts
  // without it (the drawer that holds these is always mounted).
  const id = useCart().data?.id;
  const resets = useRef({ id, qty: qty.reset, remove: remove.reset });
  resets.current.qty = qty.reset;
  resets.current.remove = remove.reset;
  useEffect(() => {
    const r = resets.current;
    if (r.id === id) return;
    r.id = id;
    r.qty();
    r.remove();
  }, [id]);
  // The last change's error only: one that went through after a failed one changed the cart.
  const error = qty.submittedAt > remove.submittedAt ? qty.error : remove.error;
  // A change held while the browser is offline, sent once it is back.
  const held = useHeld(qty.isPaused || remove.isPaused);
  return { qty, remove, error, held };
}
export type LineChanges = ReturnType<typeof useLineChanges>;

/**
 * Why the last change of the cart's lines failed (rolled back), if it did; or that changes are
 * held offline (shown already, sent once the browser is back online).
 */
export function LineChangeError({ changes }: { changes: LineChanges }) {
  if (changes.held)
    return (
      <p className="notice" role="alert">
        {HELD.lines}
      </p>
    );
  return changes.error ? (
    <p className="notice notice-error" role="alert">
      The cart was not changed. {humanMessage(changes.error)}
    </p>
  ) : null;
}

/**
 * The cart's lines with quantity steppers and removal (optimistic; rolled back on failure: the
 * holder of `changes` shows why with `LineChangeError`). Removing a line (with "Remove", or "One
 * fewer" on its last item) moves focus to the next line's name (else the previous one's, else the
 * cart's heading), not to the page's body.
 */
export function CartLines({
  changes,
  compact = false,
  onNavigate,
}: {
  changes: LineChanges;
  compact?: boolean;
  /** A line's link was followed (the drawer closes: the page it leads to may be the one shown). */
  onNavigate?: () => void;
}) {
  const { data } = useCart();
  // Until a change answers, line totals are the ones from before it.
  const updating = useCartUpdating();
  const { qty, remove } = changes;
  const list = useRef<HTMLUListElement>(null);
  const lines = data?.lineItems ?? [];
  const removeLine = (index: number) => {
    const names = [...(list.current?.querySelectorAll<HTMLElement>('.line-name') ?? [])];
    const target =
      names[index + 1] ??
      names[index - 1] ??
      list.current?.closest('dialog, main')?.querySelector<HTMLElement>('h1, h2');
    target?.focus();
    remove.mutate([lines[index]!.id]);
  };
  return (
    <ul ref={list} className={`lines ${compact ? 'compact' : ''}`} aria-label="Cart items">
      {lines.map((l, index) => {
        const name = l.productName?.original ?? 'Item';
        // The line's controls are named by its product and its choices: two sizes of one shirt
        // are two lines, and "One more Linen Shirt" twice did not say which.
        const details = describe(l);
        const named = details ? `${name} (${details})` : name;
        const pending = l.id.startsWith('pending-');
        // A custom line's URL is its seller's own (a partner's page maybe), not the shop's product
        // page: its last segment named another product of the shop's, or none.
        const slug =
          l.url && !l.customLineItem ? new URL(l.url, location.origin).pathname.split('/').pop() : undefined;
        const unavailable =
          l.availability?.status === 'NOT_AVAILABLE' || l.availability?.status === 'NOT_FOUND';
        // The stock left, when the platform counts it: the line cannot be checked out above it, so
        // "One more" stops there (aria-disabled: a disabled button would drop the focus on it).
        const most = l.availability?.quantityAvailable;
        const full = !unavailable && most !== undefined && l.quantity >= most;
        return (
          <li key={l.id} className="line" aria-busy={pending}>
            {l.image ? (
              <img src={imageUrl(l.image)} alt="" width={72} height={72} />
            ) : (
              <span className="line-img" />
            )}
            <div className="line-body">
              <p className="line-name" tabIndex={-1}>
                {slug ? (
                  <Link to={`/products/${slug}`} onClick={onNavigate}>
                    {name}
                  </Link>
                ) : (
                  name
                )}
              </p>
              {details && <p className="muted">{details}</p>}
              {/* What stops the checkout, and what to do: said on the line it is about. */}
              {l.availability?.status === 'NOT_FOUND' && (
                <p className="stock out">No longer available: remove it to check out.</p>
              )}
              {l.availability?.status === 'NOT_AVAILABLE' && (
                <p className="stock out">Out of stock: remove it to check out.</p>
              )}
              {l.availability?.status === 'PARTIALLY_AVAILABLE' && (
                <p className="stock out">Only {most} in stock: lower the quantity to check out.</p>
              )}
              <div className="line-actions">
                {/* The platform fixes some lines' quantity (it refuses a change): no stepper then. */}
                {l.fixedQuantity ? (
                  <p className="muted">Quantity: {l.quantity}</p>
                ) : (
                  <fieldset className="stepper">
                    <legend className="visually-hidden">Quantity of {named}</legend>
                    <button
                      type="button"
                      aria-label={`One fewer ${named}`}
                      disabled={pending}
                      onClick={() =>
                        // The last one goes as a removal does: focus moves on, not to the page's body.
                        l.quantity <= 1
                          ? removeLine(index)
                          : qty.mutate({ id: l.id, quantity: l.quantity - 1 })
                      }
                    >
                      −
                    </button>
                    <output
                      aria-live="polite"
                      aria-label={`${name} quantity${details ? `, ${details}` : ''}`}
                    >
                      {l.quantity}
                    </output>
                    <button
                      type="button"
                      aria-label={`One more ${named}`}
                      disabled={pending}
                      aria-disabled={full || undefined}
                      title={full ? `No more ${named} in stock` : undefined}
                      onClick={() => !full && qty.mutate({ id: l.id, quantity: l.quantity + 1 })}
                    >
                      +
                    </button>
                  </fieldset>
                )}
                <button
                  type="button"
                  className="link-button"
                  disabled={pending}
                  onClick={() => removeLine(index)}
                >
                  Remove<span className="visually-hidden"> {named}</span>
                </button>
              </div>
            </div>
            <p className={updating ? 'line-price updating' : 'line-price'} aria-busy={updating}>
              {l.lineItemPrice?.formattedAmount ?? l.price?.formattedAmount ?? ''}
            </p>
          </li>
        );
      })}
    </ul>
  );
}
