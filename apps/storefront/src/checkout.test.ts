/**
 * The cart page's checkout choices kept for the tab (`checkoutStore`): stored and read back, never
 * a token, forgotten when the order is placed, and kept only for the shopper who made them.
 */
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
    // A member's, whose member is not known on this page yet: not shown.
    expect(next.get()).toEqual({});
    expect(tab.getItem(KEY)).toContain('New York');
    next.session(false);
    expect(next.get()).toEqual({});
  });

  it("keeps a visitor's choices when the visitor logs in, then forgets them at the logout", () => {
    const { page: a } = chosenBy(null);
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

const la: CheckoutChoices = {
  destination: { country: 'US', subdivision: 'CA', city: 'Los Angeles', postalCode: '90001' },
};

/**
 * A tab where `who` (a member's id, or `null` for a visitor) chose `choices` on a page: the tab's
 * storage and that page's store.
 */
function chosenBy(who: string | null, choices = ny) {
  const tab = area();
  const page = checkoutStore(() => tab, KEY);
  page.session(who !== null, who ?? undefined);
  page.set(choices);
  return { tab, page };
}

/** The member the tab's stored choices belong to. */
const ownerIn = (tab: Storage) => JSON.parse(tab.getItem(KEY) ?? '{}').owner;

describe('checkoutStore: whose choices they are', () => {
  it("drops member A's choices when member B is the session, in this page or the next", () => {
    const { tab, page: a } = chosenBy('member-a');
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
    const { tab } = chosenBy('member-a');
    // The next page learns the role before the member id: it cannot tell yet.
    const next = checkoutStore(() => tab, KEY);
    next.session(true);
    next.session(true, 'member-b');
    expect(next.get()).toEqual({});
  });

  it("keeps a visitor's choices when the visitor logs in, and they are then that member's", () => {
    const { tab, page: a } = chosenBy(null);
    a.session(true, 'member-a');
    expect(a.get()).toEqual(ny);
    expect(ownerIn(tab)).toBe('member-a');
    // Now the member's: another member is not given them.
    a.session(true, 'member-b');
    expect(a.get()).toEqual({});
  });

  it("keeps a visitor's choices when the member id comes after the role", () => {
    const { tab, page: a } = chosenBy(null);
    a.session(true);
    expect(a.get()).toEqual(ny);
    a.session(true, 'member-a');
    expect(a.get()).toEqual(ny);
    expect(ownerIn(tab)).toBe('member-a');
    a.session(true, 'member-b');
    expect(a.get()).toEqual({});
  });

  it("keeps a visitor's choices stored by an earlier page when the next page logs in", () => {
    const { tab } = chosenBy(null);
    const next = checkoutStore(() => tab, KEY);
    next.session(true);
    next.session(true, 'member-a');
    expect(next.get()).toEqual(ny);
  });

  it('keeps the choices of the same member, in this page and the next, and their changes', () => {
    const { tab, page: a } = chosenBy('member-a');
    a.session(true, 'member-a');
    expect(a.get()).toEqual(ny);
    // A renewal or a re-read: the role first, then the same id.
    a.session(true);
    a.session(true, 'member-a');
    expect(a.get()).toEqual(ny);
    a.set(la);
    const next = checkoutStore(() => tab, KEY);
    // The next page shows them once it knows the member is the same one.
    next.session(true);
    expect(next.get()).toEqual({});
    next.session(true, 'member-a');
    expect(next.get()).toEqual(la);
  });

  it("shows no member's choices while who the member is is not known, in this page or the next", () => {
    const { tab, page: a } = chosenBy('member-a');
    const heard: CheckoutChoices[] = [];
    a.subscribe(() => heard.push(a.get()));
    // The session is read again (a login in another tab): it may be another member's now.
    a.session(true);
    expect(a.get()).toEqual({});
    expect(heard).toEqual([{}]);
    a.session(true, 'member-a');
    expect(a.get()).toEqual(ny);
    expect(heard).toEqual([{}, ny]);

    // A new page of the tab, before anything is told and while only the role is known.
    const next = checkoutStore(() => tab, KEY);
    expect(next.get()).toEqual({});
    next.session(true);
    expect(next.get()).toEqual({});
    // Another member: never shown, and gone.
    next.session(true, 'member-b');
    expect(next.get()).toEqual({});
    expect(tab.getItem(KEY)).toBeNull();
  });

  it('gives choices made before the member id is known to the member the session turns out to be', () => {
    const { tab } = chosenBy('member-a');
    // The next page: the shopper at the keyboard picks an address before the id comes.
    const next = checkoutStore(() => tab, KEY);
    next.session(true);
    next.set(la);
    expect(next.get()).toEqual(la);
    next.session(true, 'member-b');
    expect(next.get()).toEqual(la);
    expect(ownerIn(tab)).toBe('member-b');

    // The same before even the role is told: not the last member's, the member's who typed them.
    const third = checkoutStore(() => tab, KEY);
    third.set(ny);
    expect(ownerIn(tab)).toBeUndefined();
    third.session(true, 'member-c');
    expect(third.get()).toEqual(ny);
    expect(ownerIn(tab)).toBe('member-c');
  });

  it("keeps choices made while the member's id was on its way, as that member's", () => {
    const tab = area();
    const a = checkoutStore(() => tab, KEY);
    a.session(true);
    a.set(ny);
    a.session(true, 'member-a');
    expect(a.get()).toEqual(ny);
    expect(ownerIn(tab)).toBe('member-a');
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
