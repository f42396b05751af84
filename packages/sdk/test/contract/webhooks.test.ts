/**
 * Lifecycle events end to end: every event type of spec point 4 produced by a real SDK call
 * against the emulator, delivered to a test receiver as a signed JWT, verified and dispatched by
 * `webhooks.process`; subscriptions with event types; the receiver down and back up (delivered
 * later, in order); duplicates recognisable by event id; dead letters and redelivery; the state
 * endpoint and page; a tampered body rejected.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import { startTestEmulator, type TestEmulator, testBackends } from '@shopkit/emulator/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApplicationError,
  cart,
  createClient,
  identity,
  OAuthStrategy,
  op,
  type ProductInput,
  products,
  redirects,
  type ShopkitError,
  STORES_APP_ID,
  ValidationError,
  webhooks,
} from '../../src/index.ts';
import { CHECKOUT_FORM, merchantClient, postForm, visitorClient } from './setup.ts';

interface Hit {
  body: string;
  status: number;
}

/** A webhook receiver on a port of its own; `answer` picks the status for each request. */
async function receiver(port = 0) {
  const hits: Hit[] = [];
  let answer = (_n: number) => 200;
  const server: Server = createServer((req, res) => {
    // A request cut off by its sender records nothing, as if it never arrived.
    text(req).then(
      (body) => {
        const status = answer(hits.length);
        hits.push({ body, status });
        res.writeHead(status).end();
      },
      () => {},
    );
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    hits,
    url: `http://127.0.0.1:${bound}/hook`,
    port: bound,
    set answer(fn: (n: number) => number) {
      answer = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
type Receiver = Awaited<ReturnType<typeof receiver>>;

/** Waits (polling) until `check` returns a value; the test's own timeout bounds it. */
async function until<T>(check: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> {
  for (;;) {
    const v = await check();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
}

const fail = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e) => e as ShopkitError,
  );

// The emulator's webhook endpoints, declared like any domain call.
interface Subscription {
  id: string;
  url: string;
  eventTypes?: string[];
  source: string;
  deliveries?: { pending: number; delivered: number; dead: number };
}
interface Delivery {
  subscriptionId: string;
  eventId: string;
  eventType: string;
  entityId: string;
  sequence: number;
  state: 'PENDING' | 'DELIVERED' | 'DEAD';
  attempts: number;
  lastStatus?: number;
  lastError?: string;
}
const W = '/_api/emulator/v1/webhooks';
const subscribe = op<[url: string, eventTypes?: string[]], Subscription>({
  method: 'POST',
  path: `${W}/subscriptions`,
  args: ['url', 'eventTypes'],
  unwrap: 'subscription',
});
const listSubscriptions = op<[], { subscriptions: Subscription[] }>({
  method: 'GET',
  path: `${W}/subscriptions`,
});
const unsubscribe = op<[id: string], Record<string, never>>({
  method: 'DELETE',
  path: `${W}/subscriptions/{id}`,
  args: ['id'],
});
const listDeliveries = op<[query: { subscriptionId?: string; state?: string }], { deliveries: Delivery[] }>({
  method: 'GET',
  path: `${W}/deliveries`,
  args: ['query:'],
});
const redeliver = op<[subscriptionId: string], { redelivering: number }>({
  method: 'POST',
  path: `${W}/deliveries/redeliver`,
  args: ['subscriptionId'],
});

describe.each(testBackends())('webhooks (%s)', (backend) => {
  let emu: TestEmulator;
  let main: Receiver;
  let publicKey: string;
  let jwk: JsonWebKey;
  const MAX_ATTEMPTS = 6;

  beforeAll(async () => {
    main = await receiver();
    emu = await startTestEmulator(backend, {
      webhooks: [main.url],
      config: {
        webhookPollMs: 25,
        webhookRetryBaseMs: 40,
        webhookRetryMaxMs: 300,
        webhookMaxAttempts: MAX_ATTEMPTS,
      },
    });
    const key = await fetch(`${emu.url}${W}/public-key`).then((r) => r.json());
    publicKey = key.pem;
    jwk = key.jwk;
  });
  afterAll(async () => {
    await emu?.stop();
    await main?.close();
  });

  const merchant = () => merchantClient(emu, { products });
  const admin = () => merchantClient(emu);
  const visitor = () => visitorClient(emu, { cart, redirects });
  const newProduct = (name: string, extra: ProductInput = {}) =>
    merchant().products.createProduct({ name, productType: 'physical', priceData: { price: 12 }, ...extra });

  /** Verified events of the bodies a receiver accepted, in arrival order. */
  const verified = (r: Receiver) =>
    Promise.all(r.hits.filter((h) => h.status === 200).map((h) => webhooks.process(h.body, { publicKey })));
  const eventsOf = async (r: Receiver, entityId: string) =>
    (await verified(r)).filter((e) => e.entityId === entityId);

  it('delivers every lifecycle event, signed, to typed handlers', async () => {
    // Catalog writes as the merchant.
    const m = merchant().products;
    const { product } = await newProduct('Webhook Mug');
    await m.updateProduct(product.id, { description: 'Stoneware.' });
    const { product: shirt } = await newProduct('Webhook Shirt', {
      productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'M' }] }],
    });
    await m.updateProductVariants(shirt.id, [{ choices: { Size: 'M' }, price: 15 }]);
    const { collection } = await m.createCollection({ name: 'Webhook Picks' });
    await m.updateCollection(collection.id, { name: 'Webhook Picks 2' });
    await m.deleteCollection(collection.id);
    await m.deleteProduct(shirt.id);
    // The cart as a visitor.
    const v = visitor();
    const line = { catalogReference: { appId: STORES_APP_ID, catalogItemId: product.id }, quantity: 1 };
    const { cart: created } = await v.cart.addToCurrentCart({ lineItems: [line] });
    await v.cart.addToCurrentCart({ lineItems: [line] });
    await v.cart.deleteCurrentCart();
    // A redirect session.
    const { redirectSession } = await v.redirects.createRedirectSession({
      storesProduct: { productSlug: product.slug },
    });
    // A checkout, and its order placed on the hosted page, by another visitor.
    const buyer = visitor();
    await buyer.cart.addToCurrentCart({ lineItems: [line] });
    const { checkoutId } = await buyer.cart.createCheckoutFromCurrentCart({ email: 'ada@example.com' });
    const { redirectSession: pay } = await buyer.redirects.createRedirectSession({
      ecomCheckout: { checkoutId },
    });
    const placed = await postForm(pay.fullUrl, new URLSearchParams(CHECKOUT_FORM).toString(), {
      Origin: emu.url,
    });
    // Without a post-flow URL the hosted page says the order is placed.
    expect(await placed.text()).toContain('has been placed');
    const [order] = await emu.emu.db.query<{ id: string }>('SELECT id FROM orders WHERE checkout_id = $1', [
      checkoutId,
    ]);
    // A member registers.
    const newcomer = `hooks-${backend}-${Date.now()}@example.com`;
    const registered = await visitorClient(emu, { identity }).identity.register({
      email: newcomer,
      password: 'long enough pw',
    });
    const identityId = registered.data?.identity?.id;
    expect(identityId).toBeTruthy();

    const seen: Record<string, string[]> = {};
    const note = (name: string) => (e: webhooks.WebhookEvent) => {
      seen[name] ??= [];
      seen[name].push(e.entityId);
    };
    const handlers: webhooks.WebhookHandlers = {
      onCartCreated: (e) => {
        expect(e.entity.lineItems[0]?.quantity).toBe(1);
        note('onCartCreated')(e);
      },
      onCartUpdated: (e) => {
        expect(e.entity.id).toBe(created.id);
        // The same item again: its line changed, not the cart's contact info.
        expect(e.modifiedFields).toEqual(expect.arrayContaining(['lineItems', 'updatedDate']));
        expect(e.modifiedFields).not.toContain('contactInfo');
        note('onCartUpdated')(e);
      },
      onCartDeleted: note('onCartDeleted'),
      // The catalog's events are the platform's catalog v1 payloads, with its `originatedFromVersion`.
      onProductCreated: (e) => {
        expect(e.entity).toMatchObject({
          productId: e.entityId,
          name: e.entityId === product.id ? 'Webhook Mug' : 'Webhook Shirt',
          price: { price: 12, currency: 'USD' },
          visible: true,
          productPageUrl: { path: expect.stringMatching(/^\/product-page\//) },
          originatedFromVersion: 'V1_CATALOG',
        });
        note('onProductCreated')(e);
      },
      onProductChanged: (e) => {
        expect(e.entity).toEqual({
          productId: e.entityId,
          changedFields: e.modifiedFields,
          originatedFromVersion: 'V1_CATALOG',
        });
        note('onProductChanged')(e);
      },
      onProductDeleted: (e) => {
        expect(e.entity).toEqual({ productId: shirt.id, originatedFromVersion: 'V1_CATALOG' });
        note('onProductDeleted')(e);
      },
      onProductVariantsChanged: (e) => {
        const m = shirt.variants!.find((x) => x.choices.Size === 'M')!;
        expect(e.entity).toEqual({
          productId: shirt.id,
          variants: [
            { variantId: m.id, choices: { Size: 'M' }, changedFields: ['convertedPriceData', 'priceData'] },
          ],
          originatedFromVersion: 'V1_CATALOG',
        });
        note('onProductVariantsChanged')(e);
      },
      onCollectionCreated: (e) => {
        expect(e.entity).toMatchObject({
          collection_Id: collection.id,
          name: 'Webhook Picks',
          slug: collection.slug,
          visible: true,
        });
        note('onCollectionCreated')(e);
      },
      onCollectionChanged: (e) => {
        expect(e.entity.changedFields).toContain('name');
        note('onCollectionChanged')(e);
      },
      onCollectionDeleted: (e) => {
        expect(e.entity).toEqual({ collection_Id: collection.id, originatedFromVersion: 'V1_CATALOG' });
        note('onCollectionDeleted')(e);
      },
      onRedirectSessionCreated: (e) => {
        if (e.entityId === redirectSession.id) expect(e.entity.fullUrl).toBe(redirectSession.fullUrl);
        expect(e.entity.createdDate).toBeInstanceOf(Date);
        note('onRedirectSessionCreated')(e);
      },
      // Checkouts, orders and identities read as the calls read them.
      onCheckoutCreated: (e) => {
        expect(e.entity).toMatchObject({
          id: checkoutId,
          buyerInfo: { email: 'ada@example.com' },
          completed: false,
        });
        expect(e.entity.lineItems[0]?.catalogReference?.catalogItemId).toBe(product.id);
        expect(e.entity.createdDate).toBeInstanceOf(Date);
        note('onCheckoutCreated')(e);
      },
      onOrderCreated: (e) => {
        // The platform's order shape (its GetOrder example): the form's name and address bill and
        // ship; the option's cost as orders state it.
        const at = { address: { addressLine1: '1 Main St' }, contactDetails: { firstName: 'Ada' } };
        expect(e.entity).toMatchObject({
          id: order!.id,
          checkoutId,
          status: 'APPROVED',
          fulfillmentStatus: 'NOT_FULFILLED',
          buyerInfo: { email: 'ada@example.com' },
          billingInfo: at,
          recipientInfo: at,
          shippingInfo: { logistics: { shippingDestination: at } },
          activities: [{ type: 'ORDER_PLACED' }],
        });
        const cost = e.entity.shippingInfo!.cost;
        expect(Object.keys(cost).sort()).toEqual(
          ['discount', 'price', 'taxDetails', 'totalPriceAfterTax', 'totalPriceBeforeTax'].sort(),
        );
        expect(e.entity.priceSummary!.totalPrice).toEqual(e.entity.priceSummary!.total);
        expect(e.entity.createdBy).toEqual({ visitorId: e.entity.buyerInfo!.visitorId });
        expect(e.entity.createdDate).toBeInstanceOf(Date);
        expect(e.entity.activities![0]!.createdDate).toBeInstanceOf(Date);
        note('onOrderCreated')(e);
      },
      onIdentityCreated: (e) => {
        expect(e.entity).toMatchObject({ id: identityId, email: { address: newcomer } });
        expect(e.entity.createdDate).toBeInstanceOf(Date);
        note('onIdentityCreated')(e);
      },
    };
    const mine = new Set([
      product.id,
      shirt.id,
      collection.id,
      created.id,
      redirectSession.id,
      pay.id,
      checkoutId,
      order!.id,
      identityId!,
    ]);
    const expected: Record<string, string[]> = {
      onProductCreated: [product.id, shirt.id],
      onProductChanged: [product.id, shirt.id],
      onProductVariantsChanged: [shirt.id],
      onProductDeleted: [shirt.id],
      onCollectionCreated: [collection.id],
      onCollectionChanged: [collection.id],
      onCollectionDeleted: [collection.id],
      onCartCreated: [created.id],
      onCartUpdated: [created.id],
      onCartDeleted: [created.id],
      onRedirectSessionCreated: [redirectSession.id, pay.id],
      onCheckoutCreated: [checkoutId],
      onOrderCreated: [order!.id],
      onIdentityCreated: [identityId!],
    };
    const done = () =>
      Object.entries(expected).every(([name, ids]) => ids.every((id) => seen[name]?.includes(id)));
    let handled = 0;
    await until(async () => {
      for (const h of main.hits.slice(handled)) {
        handled++;
        const e = await webhooks.process(h.body, { publicKey });
        if (mine.has(e.entityId)) await webhooks.process(h.body, { publicKey, ...handlers });
      }
      return done();
    });
    expect(Object.keys(seen).sort()).toEqual(Object.keys(webhooks.EVENT_TYPES).sort());

    // Each entity's events arrive in the order they happened, with the event's fields.
    const mug = await eventsOf(main, product.id);
    expect(mug.slice(0, 2).map((e) => e.type)).toEqual([
      'com.wix.ecommerce.catalog.api.v1.ProductCreated',
      'com.wix.ecommerce.catalog.api.v1.ProductChanged',
    ]);
    const c = await eventsOf(main, created.id);
    expect(c.map((e) => e.type)).toEqual([
      'wix.ecom.v1.cart_created',
      'wix.ecom.v1.cart_updated',
      'wix.ecom.v1.cart_deleted',
    ]);
    for (const list of [mug, c, await eventsOf(main, shirt.id), await eventsOf(main, collection.id)]) {
      const seqs = list.map((e) => e.sequence!);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    }
    expect(mug[1]).toMatchObject({
      instanceId: emu.demo.siteId,
      modifiedFields: ['description', 'lastUpdated'],
    });
    expect(mug[1]!.time).toBeInstanceOf(Date);
    // Every event has an id of its own, for de-duplication (the emulator's addition to the envelope).
    expect(new Set(mug.map((e) => e.id)).size).toBe(mug.length);
    // The ProductChanged that follows VariantsChanged names what the variant update changed on the
    // product, against its state before the update.
    const shirtEvents = await eventsOf(main, shirt.id);
    const afterVariants = shirtEvents[shirtEvents.findIndex((e) => e.type.endsWith('VariantsChanged')) + 1];
    expect(afterVariants?.type).toBe('com.wix.ecommerce.catalog.api.v1.ProductChanged');
    expect(afterVariants!.modifiedFields).toEqual(
      expect.arrayContaining(['variants', 'priceRange', 'lastUpdated', 'manageVariants']),
    );
    expect(afterVariants!.modifiedFields).not.toContain('name');
    // The JWK verifies too, and every body is a compact RS256 JWS.
    expect((await webhooks.process(main.hits[0]!.body, { publicKey: jwk })).id).toBeTruthy();
    expect(JSON.parse(Buffer.from(main.hits[0]!.body.split('.')[0]!, 'base64url').toString())).toMatchObject({
      alg: 'RS256',
      typ: 'JWT',
    });
  });

  it('rejects a tampered body in process, without calling the handler', async () => {
    const { product } = await newProduct('Tamper Lamp');
    const hit = await until(async () => {
      for (const h of main.hits)
        if ((await webhooks.process(h.body, { publicKey })).entityId === product.id) return h;
    });
    const [header, payload, signature] = hit.body.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forged = Buffer.from(
      JSON.stringify({ ...claims, data: claims.data.replace('Tamper Lamp', 'Free Lamp') }),
    ).toString('base64url');
    let called = false;
    const e = await fail(
      webhooks.process(`${header}.${forged}.${signature}`, {
        publicKey,
        onProductCreated: () => {
          called = true;
        },
      }),
    );
    expect(e).toBeInstanceOf(webhooks.WebhookError);
    expect(e).toMatchObject({
      code: 'INVALID_SIGNATURE',
      message: 'The webhook signature does not match the public key',
    });
    expect(called).toBe(false);
  });

  it('subscribes by endpoint to chosen event types, and refuses bad subscriptions with the envelope', async () => {
    const only = await receiver();
    try {
      const sub = await subscribe(admin(), only.url, ['wix.ecom.v1.cart_created']);
      expect(sub).toMatchObject({ url: only.url, eventTypes: ['wix.ecom.v1.cart_created'], source: 'API' });
      const { product } = await newProduct('Filter Bowl');
      const v = visitor();
      const { cart: c } = await v.cart.addToCurrentCart({
        lineItems: [{ catalogReference: { appId: STORES_APP_ID, catalogItemId: product.id }, quantity: 2 }],
      });
      await v.cart.addToCurrentCart({
        lineItems: [{ catalogReference: { appId: STORES_APP_ID, catalogItemId: product.id }, quantity: 1 }],
      });
      const [got] = await until(async () => {
        const list = await eventsOf(only, c.id);
        return list.length > 0 && list;
      });
      expect(got!.type).toBe('wix.ecom.v1.cart_created');
      // The main receiver has the cart's update by now, so the filtered one would have had it too.
      await until(async () =>
        (await eventsOf(main, c.id)).some((e) => e.type === 'wix.ecom.v1.cart_updated'),
      );
      await until(async () => {
        const { deliveries } = await listDeliveries(admin(), { subscriptionId: sub.id });
        return deliveries.every((d) => d.state === 'DELIVERED');
      });
      expect((await verified(only)).map((e) => e.type)).toEqual(['wix.ecom.v1.cart_created']);

      const before = (await listSubscriptions(admin())).subscriptions;
      const bad = await fail(subscribe(admin(), 'ftp://example.test/hook'));
      expect(bad).toBeInstanceOf(ValidationError);
      expect(bad).toMatchObject({ status: 400 });
      expect(bad.message).toBe('INVALID_ARGUMENT: "url" must be an absolute http:// or https:// URL');
      const empty = await fail(subscribe(admin(), only.url, []));
      expect(empty.message).toBe('INVALID_ARGUMENT: "eventTypes" must have at least 1 item');
      const typo = await fail(subscribe(admin(), only.url, ['cart created']));
      expect(typo.message).toContain(
        '"eventTypes[0]" must be an event type such as wix.ecom.v1.cart_created',
      );
      // A well-formed type the emulator never sends would never fire: refused, naming the known ones.
      const unsent = await fail(
        subscribe(admin(), only.url, ['wix.ecom.v1.cart_created', 'wix.ecom.v1.cart_updatd']),
      );
      expect(unsent).toBeInstanceOf(ValidationError);
      const [violation, ...more] = (unsent as ValidationError).violations;
      expect(more).toEqual([]);
      expect(violation).toMatchObject({
        field: 'eventTypes[1]',
        violatedRule: 'INVALID_ENUM_VALUE',
        data: { values: expect.arrayContaining(['wix.ecom.v1.cart_updated', 'wix.iam.v1.identity_created']) },
      });
      expect(violation!.description).toMatch(
        /^is not an event type the emulator sends \(it sends .*wix\.ecom\.v1\.cart_updated/,
      );
      const asVisitor = await fail(
        subscribe(
          createClient({ baseUrl: emu.url, auth: OAuthStrategy({ clientId: emu.demo.clientId }) }),
          only.url,
        ),
      );
      expect(asVisitor).toMatchObject({ status: 403, code: 'PERMISSION_DENIED' });
      expect((await listSubscriptions(admin())).subscriptions).toEqual(before);
      const missing = await fail(unsubscribe(admin(), 'nope'));
      expect(missing).toBeInstanceOf(ApplicationError);
      expect(missing).toMatchObject({ status: 404, code: 'SUBSCRIPTION_NOT_FOUND' });

      await unsubscribe(admin(), sub.id);
      expect((await listSubscriptions(admin())).subscriptions.map((s) => s.id)).not.toContain(sub.id);
    } finally {
      await only.close();
    }
  });

  it('keeps events while the receiver is down and delivers them later, in order', async () => {
    const probe = await receiver();
    const port = probe.port;
    await probe.close(); // nothing listens on the port now
    const sub = await subscribe(admin(), `http://127.0.0.1:${port}/hook`, [
      'com.wix.ecommerce.catalog.api.v1.ProductCreated',
      'com.wix.ecommerce.catalog.api.v1.ProductChanged',
      'com.wix.ecommerce.catalog.api.v1.ProductDeleted',
    ]);
    const { product } = await newProduct('Outage Vase');
    for (const d of ['one', 'two', 'three'])
      await merchant().products.updateProduct(product.id, { description: d });
    await merchant().products.deleteProduct(product.id);
    // Retries are failing: the first event is pending with attempts and a reason; the rest wait behind it.
    const failing = await until(async () => {
      const { deliveries } = await listDeliveries(admin(), { subscriptionId: sub.id });
      const first = deliveries.find((d) => d.eventType.endsWith('ProductCreated'));
      return deliveries.length === 5 && first && first.attempts >= 2 && deliveries;
    });
    expect(failing).toHaveLength(5);
    expect(failing.every((d) => d.state === 'PENDING')).toBe(true);
    expect(failing.find((d) => d.attempts >= 2)!.lastError).toMatch(/^could not reach the receiver/);
    expect(failing.filter((d) => d.attempts > 0).map((d) => d.eventType)).toEqual([
      'com.wix.ecommerce.catalog.api.v1.ProductCreated',
    ]);

    const back = await receiver(port);
    try {
      const got = await until(async () => {
        const list = await eventsOf(back, product.id);
        return list.length === 5 && list;
      });
      expect(got.map((e) => e.type.replace('com.wix.ecommerce.catalog.api.v1.', ''))).toEqual([
        'ProductCreated',
        'ProductChanged',
        'ProductChanged',
        'ProductChanged',
        'ProductDeleted',
      ]);
      const sequences = got.map((e) => e.sequence!);
      expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
      expect(got.map((e) => e.modifiedFields)).toEqual([
        undefined,
        ['description', 'lastUpdated'],
        ['description', 'lastUpdated'],
        ['description', 'lastUpdated'],
        undefined,
      ]);
    } finally {
      await back.close();
      await unsubscribe(admin(), sub.id);
    }
  });

  it('retries a failed delivery with the same event id, so duplicates are recognisable', async () => {
    const flaky = await receiver();
    flaky.answer = (n) => (n === 0 ? 500 : 200);
    const sub = await subscribe(admin(), flaky.url, ['com.wix.ecommerce.catalog.api.v1.ProductCreated']);
    try {
      const { product } = await newProduct('Retry Jug');
      await until(() => flaky.hits.length >= 2);
      const [first, second] = await Promise.all(
        flaky.hits.slice(0, 2).map((h) => webhooks.process(h.body, { publicKey })),
      );
      expect(first!.entityId).toBe(product.id);
      expect(second!.id).toBe(first!.id);
      const { deliveries } = await listDeliveries(admin(), { subscriptionId: sub.id });
      expect(deliveries[0]).toMatchObject({
        state: 'DELIVERED',
        attempts: 2,
        lastStatus: 200,
        eventId: first!.id,
      });
    } finally {
      await flaky.close();
      await unsubscribe(admin(), sub.id);
    }
  });

  it(`dead-letters after ${MAX_ATTEMPTS} attempts, shows it on the page, and redelivers on request`, async () => {
    const broken = await receiver();
    broken.answer = () => 503;
    const sub = await subscribe(admin(), broken.url, ['com.wix.ecommerce.catalog.api.v1.CollectionCreated']);
    try {
      const { collection } = await merchant().products.createCollection({ name: 'Dead Letters' });
      const dead = await until(
        async () => (await listDeliveries(admin(), { subscriptionId: sub.id, state: 'DEAD' })).deliveries[0],
      );
      expect(dead).toMatchObject({
        entityId: collection.id,
        attempts: MAX_ATTEMPTS,
        lastStatus: 503,
        lastError: 'the receiver answered HTTP 503',
      });
      expect(broken.hits).toHaveLength(MAX_ATTEMPTS);
      const listed = (await listSubscriptions(admin())).subscriptions.find((s) => s.id === sub.id);
      expect(listed!.deliveries).toEqual({ pending: 0, delivered: 0, dead: 1 });

      const page = await fetch(`${emu.url}/webhooks`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain(collection.id);
      expect(html).toContain('DEAD');
      expect(html).toContain('the receiver answered HTTP 503');

      broken.answer = () => 200;
      expect(await redeliver(admin(), sub.id)).toEqual({ redelivering: 1 });
      await until(
        async () =>
          (await listDeliveries(admin(), { subscriptionId: sub.id, state: 'DELIVERED' })).deliveries[0],
      );
      expect((await webhooks.process(broken.hits.at(-1)!.body, { publicKey })).entityId).toBe(collection.id);
    } finally {
      await broken.close();
      await unsubscribe(admin(), sub.id);
    }
  });

  it('sends no event for a write that failed', async () => {
    const count = async () =>
      (await emu.emu.db.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM events'))[0]!.n;
    const before = await count();
    const m = merchant().products;
    await fail(m.createProduct({ name: '', productType: 'physical', priceData: { price: 1 } }));
    await fail(m.updateProduct('no-such-product', { name: 'x' }));
    await fail(m.deleteCollection('no-such-collection'));
    await fail(visitor().cart.deleteCurrentCart());
    expect(await count()).toBe(before);
  });
});
