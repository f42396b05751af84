import { describe, expect, it } from 'vitest';
import { type CheckoutChoices, checkoutStore } from './checkout.ts';

/** A Web Storage area in memory. */
function area(): Storage {
  const m = new Map<string, string>();
  return {
    get length() {
      return m.size;
    },
    clear: () => m.clear(),
    getItem: (k) => m.get(k) ?? null,
    key: (i) => [...m.keys()][i] ?? null,
    removeItem: (k) => void m.delete(k),
    setItem: (k, v) => void m.set(k, String(v)),
  };
}

const KEY = 'shopkit:client-a:checkout';
const ny: CheckoutChoices = {
  destination: { country: 'US', subdivision: 'NY', city: 'New York', postalCode: '10001' },
  shipping: 'express',
  shippingTitle: 'Express',
};

describe('checkoutStore', () => {
  it('keeps the choices in its storage, so a new page of the tab (Back, a reload) has them', () => {
    const tab = area();
    const a = checkoutStore(() => tab, KEY);
    a.set(ny);
    expect(a.get()).toEqual(ny);
    // The page after Back or a reload: a new store over the same tab storage.
    expect(checkoutStore(() => tab, KEY).get()).toEqual(ny);
  });

  it('is scoped by its key: another shop on the origin does not see them', () => {
    const tab = area();
    checkoutStore(() => tab, KEY).set(ny);
    expect(checkoutStore(() => tab, 'shopkit:client-b:checkout').get()).toEqual({});
  });

  it('forgets them once the order is placed, for the next page too', () => {
    const tab = area();
    const a = checkoutStore(() => tab, KEY);
    a.set(ny);
    const heard: CheckoutChoices[] = [];
    a.subscribe(() => heard.push(a.get()));
    a.clear();
    expect(a.get()).toEqual({});
    expect(heard).toEqual([{}]);
    expect(tab.getItem(KEY)).toBeNull();
    expect(checkoutStore(() => tab, KEY).get()).toEqual({});
  });

  it("forgets a member's choices when the session is no longer a member's, in this page or the next", () => {
    const tab = area();
    const a = checkoutStore(() => tab, KEY);
    a.session(true);
    a.set(ny);
    a.session(false);
    expect(a.get()).toEqual({});
    expect(tab.getItem(KEY)).toBeNull();

    // Logged out while this tab was away (through the platform's logout page, another tab): the
    // next page learns the session is a visitor's.
    a.session(true);
    a.set(ny);
    const next = checkoutStore(() => tab, KEY);
    expect(next.get()).toEqual(ny);
    next.session(false);
    expect(next.get()).toEqual({});
  });

  it("keeps a visitor's choices when the visitor logs in, then forgets them at the logout", () => {
    const tab = area();
    const a = checkoutStore(() => tab, KEY);
    a.session(false);
    a.set(ny);
    a.session(false);
    expect(a.get()).toEqual(ny);
    a.session(true);
    expect(a.get()).toEqual(ny);
    a.session(false);
    expect(a.get()).toEqual({});
  });

  it('reads a stored value that is not its own as nothing, and works without storage', () => {
    const tab = area();
    tab.setItem(KEY, '{not json');
    expect(checkoutStore(() => tab, KEY).get()).toEqual({});
    tab.setItem(KEY, JSON.stringify({ member: false, choices: { destination: 'x', shipping: 3 } }));
    expect(checkoutStore(() => tab, KEY).get()).toEqual({});
    const none = checkoutStore(() => {
      throw new Error('SecurityError');
    }, KEY);
    none.set(ny);
    expect(none.get()).toEqual(ny);
  });
});
