import { shopkitKeys } from '@shopkit/react';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, useSearchParams } from 'react-router';
import { checkoutReturned } from '../checkout.ts';
import { useTitle } from '../title.ts';

/**
 * Where the hosted checkout returns once the order is placed. The platform sends the shopper back
 * to the `postFlowUrl` as given, with nothing about the order (the wire protocol names no order id
 * on it), and the storefront has no call that reads an order or a checkout's order: it cannot know
 * the order number. So no reference is shown here: the checkout id in the URL is an opaque id that
 * means nothing to a shopper.
 */
export function ThankYou() {
  useTitle('Thank you');
  const qc = useQueryClient();
  const checkoutId = useSearchParams()[0].get('checkoutId');
  useEffect(() => {
    // The order took its lines out of the cart on the platform.
    void qc.invalidateQueries({ queryKey: shopkitKeys.cart });
    // Its address is not the next order's: forgotten on the buyer's return from their checkout
    // only, not when anyone opens this page (a link shared, a reload, a visitor who ordered nothing).
    checkoutReturned(checkoutId);
  }, [qc, checkoutId]);
  return (
    <section className="notice thank-you">
      <h1>Thank you for your order</h1>
      <p>Your order is placed.</p>
      {/* The platform e-mails the buyer about the order (UNCONFIRMED for every store's settings);
          the emulator's checkout does (packages/emulator/test/order-mail.test.ts). */}
      <p>
        The store will confirm it at the e-mail address you gave at checkout; keep that e-mail for any
        question about the order.
      </p>
      <Link to="/products" className="button button-primary">
        Continue shopping
      </Link>
    </section>
  );
}
