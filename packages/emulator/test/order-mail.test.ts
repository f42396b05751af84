/**
 * The hosted checkout confirms a placed order by e-mail to the address the buyer typed, as the
 * platform's stores do by default: one message in the development mailbox with the order number,
 * the items and the total charged; none for an order that was not placed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_FORM, mailbox, startTestEmulator, type TestEmulator } from '../src/testing.ts';
import { checkoutSession, formFields, shownTotal } from './http.ts';

describe('order confirmation e-mail', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator('pglite');
  });
  afterAll(() => emu?.stop());

  const post = (url: string, fields: Record<string, string>) =>
    fetch(url, { method: 'POST', redirect: 'manual', body: new URLSearchParams(fields) });
  const buyer = (email: string, subdivision: string) => ({ ...CHECKOUT_FORM, email, subdivision });

  it('mails the buyer the order number, the items and the total charged, once', async () => {
    const email = 'order-mail@example.com';
    const { checkoutId, session } = await checkoutSession(emu, { slug: 'dinner-plate', quantity: 2 });
    const html = await (await fetch(session.fullUrl)).text();
    const total = shownTotal(html)!;
    const placed = await post(session.fullUrl, { ...formFields(html), ...buyer(email, 'US-NY') });
    expect(placed.status).toBe(200);
    const [{ number }] = (await emu.emu.db.query<{ number: number }>(
      'SELECT number FROM orders WHERE checkout_id = $1',
      [checkoutId],
    )) as [{ number: number }];
    const mails = await mailbox(emu, email);
    expect(mails).toHaveLength(1);
    const [mail] = mails;
    expect(mail!.subject).toBe(`Your order #${number} is placed`);
    expect(mail!.text).toContain(`Order number: ${number}`);
    expect(mail!.text).toContain('2 × Stoneware Dinner Plate: $');
    expect(mail!.text).toContain(`Total: ${total}`);
    // Nothing a link or a code would carry: an order mail holds no secret.
    expect(mail!.code).toBeUndefined();
    expect(mail!.link).toBeUndefined();
    // Posted again (Back, then "Place order"), the order is not placed again, nor mailed again.
    await post(session.fullUrl, { ...formFields(html), ...buyer(email, 'US-NY') });
    expect(await mailbox(emu, email)).toHaveLength(1);
  });

  it('mails nothing for an order that was not placed', async () => {
    const email = 'order-not-placed@example.com';
    const { session } = await checkoutSession(emu, { slug: 'dinner-plate' });
    const html = await (await fetch(session.fullUrl)).text();
    // A form error, then an address that prices otherwise: the page is shown again each time.
    expect(
      (await post(session.fullUrl, { ...formFields(html), ...buyer(email, 'US-NY'), lastName: '' })).status,
    ).toBe(400);
    expect((await post(session.fullUrl, { ...formFields(html), ...buyer(email, 'US-CA') })).status).toBe(409);
    expect(await mailbox(emu, email)).toEqual([]);
  });
});
