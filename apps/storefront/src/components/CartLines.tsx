import {
  type LineItem,
  useCart,
  useCartUpdating,
  useRemoveLineItems,
  useUpdateLineItemQuantity,
} from '@shopkit/react';
import { useRef } from 'react';
import { Link } from 'react-router';
import { imageUrl } from '../config.ts';
import { humanMessage } from '../errors.ts';

function describe(l: LineItem) {
  return (l.descriptionLines ?? [])
    .map((d) => `${d.name.original}: ${d.colorInfo?.original ?? d.plainText?.original ?? ''}`)
    .join(', ');
}

/**
 * The cart's lines with quantity steppers and removal (optimistic; rolled back on failure).
 * Removing a line (with "Remove", or "One fewer" on its last item) moves focus to the next line's
 * name (else the previous one's, else the cart's heading), not to the page's body.
 */
export function CartLines({ compact = false }: { compact?: boolean }) {
  const { data } = useCart();
  // Until a change answers, line totals are the ones from before it.
  const updating = useCartUpdating();
  const qty = useUpdateLineItemQuantity();
  const remove = useRemoveLineItems();
  const list = useRef<HTMLUListElement>(null);
  const lines = data?.lineItems ?? [];
  const error = qty.error ?? remove.error;
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
    <>
      {error && (
        <p className="notice notice-error" role="alert">
          The cart was not changed. {humanMessage(error)}
        </p>
      )}
      <ul ref={list} className={`lines ${compact ? 'compact' : ''}`} aria-label="Cart items">
        {lines.map((l, index) => {
          const name = l.productName?.original ?? 'Item';
          const pending = l.id.startsWith('pending-');
          const slug = l.url ? new URL(l.url, location.origin).pathname.split('/').pop() : undefined;
          const unavailable =
            l.availability?.status === 'NOT_AVAILABLE' || l.availability?.status === 'NOT_FOUND';
          return (
            <li key={l.id} className="line" aria-busy={pending}>
              {l.image ? (
                <img src={imageUrl(l.image)} alt="" width={72} height={72} />
              ) : (
                <span className="line-img" />
              )}
              <div className="line-body">
                <p className="line-name" tabIndex={-1}>
                  {slug ? <Link to={`/products/${slug}`}>{name}</Link> : name}
                </p>
                {describe(l) && <p className="muted">{describe(l)}</p>}
                {unavailable && <p className="stock out">No longer available</p>}
                <div className="line-actions">
                  <fieldset className="stepper">
                    <legend className="visually-hidden">Quantity of {name}</legend>
                    <button
                      type="button"
                      aria-label={`One fewer ${name}`}
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
                    <output aria-live="polite" aria-label={`${name} quantity`}>
                      {l.quantity}
                    </output>
                    <button
                      type="button"
                      aria-label={`One more ${name}`}
                      disabled={pending}
                      onClick={() => qty.mutate({ id: l.id, quantity: l.quantity + 1 })}
                    >
                      +
                    </button>
                  </fieldset>
                  <button
                    type="button"
                    className="link-button"
                    disabled={pending}
                    onClick={() => removeLine(index)}
                  >
                    Remove<span className="visually-hidden"> {name}</span>
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
    </>
  );
}
