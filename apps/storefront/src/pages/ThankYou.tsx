import { shopkitKeys } from '@shopkit/react';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useTitle } from '../title.ts';

/** Where the hosted checkout returns once the order is placed. */
export function ThankYou() {
  useTitle('Thank you');
  const [params] = useSearchParams();
  const qc = useQueryClient();
  // The order emptied the cart on the platform.
  useEffect(() => {
    void qc.invalidateQueries({ queryKey: shopkitKeys.cart });
  }, [qc]);
  return (
    <section className="notice thank-you">
      <h1>Thank you for your order</h1>
      <p>We have received it and will send a confirmation by e-mail.</p>
      {params.get('checkoutId') && <p className="muted">Checkout reference: {params.get('checkoutId')}</p>}
      <Link to="/products" className="button button-primary">
        Continue shopping
      </Link>
    </section>
  );
}
