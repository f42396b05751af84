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
const la: CheckoutChoices = {
  destination: { country: 'US', subdivision: 'CA', city: 'Los Angeles', postalCode: '90001' },
};

describe('checkoutStore: whose choices they are', () => {
  it("drops member A's choices when member B is the session, in this page or the next", () => {
    const tab = area();
    const a = checkoutStore(() => tab, KEY);
    a.session(true, 'member-a');
    a.set(ny);
    const heard: CheckoutChoices[] = [];
    a.subscribe(() => heard.push(a.get()));
    // A logged out and B logged in, in another tab, while this one was hidden: still a member.
    a.session(true, 'member-b');
    expect(a.get()).toEqual({});
    expect(heard).toEqual([{}]);
    expect(tab.getItem(KEY)).toBeNull();

    // The same seen by the next page of the tab (a reload after the switch).
    a.session(true, 'member-a');
    a.set(ny);
    const next = checkoutStore(() => tab, KEY);
    next.session(true, 'member-b');
    expect(next.get()).toEqual({});
    expect(tab.getItem(KEY)).toBeNull();
  });

  it('drops them once the new member is known, when the role was told first', () => {
    const tab = area();
    checkoutStore(() => tab, KEY).session(true, 'member-a');
    const a = checkoutStore(() => tab, KEY);
    a.session(true, 'member-a');
    a.set(ny);
    // The next page learns the role before the member id: it cannot tell yet.
    const next = checkoutStore(() => tab, KEY);
    next.session(true);
    next.session(true, 'member-b');
    expect(next.get()).toEqual({});
  });

  it("keeps a visitor's choices when the visitor logs in, and they are then that member's", () => {
    const tab = area();
    const a = checkoutStore(() => tab, KEY);
    a.session(false);
    a.set(ny);
    a.session(true, 'member-a');
    expect(a.get()).toEqual(ny);
    expect(JSON.parse(tab.getItem(KEY) ?? '{}').owner).toBe('member-a');
    // Now the member's: another member is not given them.
    a.session(true, 'member-b');
    expect(a.get()).toEqual({});
  });

  it("keeps a visitor's choices when the member id comes after the role", () => {
    const tab = area();
    const a = checkoutStore(() => tab, KEY);
    a.session(false);
    a.set(ny);
    a.session(true);
    expect(a.get()).toEqual(ny);
    a.session(true, 'member-a');
    expect(a.get()).toEqual(ny);
    expect(JSON.parse(tab.getItem(KEY) ?? '{}').owner).toBe('member-a');
    a.session(true, 'member-b');
    expect(a.get()).toEqual({});
  });

  it("keeps a visitor's choices stored by an earlier page when the next page logs in", () => {
    const tab = area();
    const a = checkoutStore(() => tab, KEY);
    a.session(false);
    a.set(ny);
    const next = checkoutStore(() => tab, KEY);
    next.session(true);
    next.session(true, 'member-a');
    expect(next.get()).toEqual(ny);
  });

  it('keeps the choices of the same member, in this page and the next, and their changes', () => {
    const tab = area();
    const a = checkoutStore(() => tab, KEY);
    a.session(true, 'member-a');
    a.set(ny);
    a.session(true, 'member-a');
    expect(a.get()).toEqual(ny);
    // A renewal or a re-read: the role first, then the same id.
    a.session(true);
    a.session(true, 'member-a');
    expect(a.get()).toEqual(ny);
    a.set(la);
    const next = checkoutStore(() => tab, KEY);
    next.session(true);
    expect(next.get()).toEqual(la);
    next.session(true, 'member-a');
    expect(next.get()).toEqual(la);
  });

  it("keeps choices made while the member's id was on its way, as that member's", () => {
    const tab = area();
    const a = checkoutStore(() => tab, KEY);
    a.session(true);
    a.set(ny);
    a.session(true, 'member-a');
    expect(a.get()).toEqual(ny);
    expect(JSON.parse(tab.getItem(KEY) ?? '{}').owner).toBe('member-a');
  });

  it("treats a member's stored value without an owner (an older version) as no one's", () => {
    const tab = area();
    tab.setItem(KEY, JSON.stringify({ member: true, choices: ny }));
    const a = checkoutStore(() => tab, KEY);
    // Whose it is cannot be told: not given to the member now logged in.
    a.session(true, 'member-b');
    expect(a.get()).toEqual({});
    expect(tab.getItem(KEY)).toBeNull();

    // Nor once the role alone is known, then the id.
    tab.setItem(KEY, JSON.stringify({ member: true, choices: ny }));
    const b = checkoutStore(() => tab, KEY);
    b.session(true);
    b.session(true, 'member-a');
    expect(b.get()).toEqual({});

    // A visitor's value from the older version is still the visitor's.
    tab.setItem(KEY, JSON.stringify({ member: false, choices: ny }));
    const c = checkoutStore(() => tab, KEY);
    c.session(true, 'member-a');
    expect(c.get()).toEqual(ny);
  });

  it('reads an owner that is not a string as no owner', () => {
    const tab = area();
    tab.setItem(KEY, JSON.stringify({ member: true, owner: { id: 'member-a' }, choices: ny }));
    const a = checkoutStore(() => tab, KEY);
    a.session(true, 'member-a');
    expect(a.get()).toEqual({});
  });
});
