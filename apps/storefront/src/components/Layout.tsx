import { useCartCount } from '@shopkit/react';
import { useEffect, useRef, useState } from 'react';
import { Link, NavLink, Outlet, ScrollRestoration, useLocation } from 'react-router';
import { useCheckoutChoicesSession } from '../checkout.ts';
import { useSession } from '../session.ts';
import { CartDrawer } from './CartDrawer.tsx';

export function Layout() {
  const count = useCartCount();
  const session = useSession();
  // The cart page's address is forgotten when a member's session ends.
  useCheckoutChoicesSession();
  const [drawer, setDrawer] = useState(false);
  const location = useLocation();
  const main = useRef<HTMLElement>(null);
  // Arriving on another page closes the drawer, unless it was opened on the way there: a link
  // changes the address at once, but the page it leads to renders as a transition, so the page
  // before stays on screen a while (long on a slow device), and a drawer opened meanwhile is the
  // arriving page's. The address bar at the opening tells which page the drawer was opened on.
  const openedOn = useRef('');
  useEffect(() => {
    if (location.pathname !== openedOn.current) setDrawer(false);
  }, [location.pathname]);
  // Arriving on another page by a link in the page before (a product card, a line's name), whose
  // element went with that page: focus goes to the new page's content, not to the page's body
  // (where a screen reader said nothing of the new page, and Tab went on from where the link
  // was). A link that stays (the header's) keeps it; the first page starts at the top.
  const shownPath = useRef(location.pathname);
  useEffect(() => {
    if (shownPath.current === location.pathname) return;
    shownPath.current = location.pathname;
    const active = document.activeElement;
    if (!active || active === document.body) main.current?.focus({ preventScroll: true });
  }, [location.pathname]);
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <div className="header-inner">
          <Link to="/" className="brand">
            <span aria-hidden="true">◐</span> Loom &amp; Kiln
          </Link>
          <nav aria-label="Main">
            <ul>
              <li>
                <NavLink to="/products">Shop all</NavLink>
              </li>
              <li>
                <NavLink to="/collections/summer-linen">Summer Linen</NavLink>
              </li>
              <li>
                <NavLink to="/collections/kitchen">Kitchen &amp; Table</NavLink>
              </li>
            </ul>
          </nav>
          <div className="header-actions">
            <NavLink to={session.member ? '/account' : '/login'} className="header-link">
              {session.member ? 'Account' : 'Log in'}
            </NavLink>
            <button
              type="button"
              className="cart-button"
              onClick={() => {
                openedOn.current = window.location.pathname;
                setDrawer(true);
              }}
              aria-haspopup="dialog"
            >
              <span aria-hidden="true">
                Cart <span className="badge">{count}</span>
              </span>
              <span className="visually-hidden">{`Cart, ${count} ${count === 1 ? 'item' : 'items'}`}</span>
            </button>
          </div>
        </div>
      </header>
      {/* A logout that could not reach the platform (offline, a 5xx): the session ended in this
          browser only, which the member is told rather than nothing; not once a member again (the
          page came back by Back after the next login). */}
      {(location.state as { loggedOutHereOnly?: boolean } | null)?.loggedOutHereOnly && !session.member && (
        <p className="banner" role="alert">
          You are logged out in this browser, but the shop could not be reached to end your session on its
          side.
        </p>
      )}
      {session.expired && (
        <p className="banner" role="alert">
          {/* On the login page, no link to the page itself. */}
          Your session has ended.{' '}
          {location.pathname === '/login' ? 'Log in again' : <Link to="/login">Log in again</Link>} to see
          your account.
        </p>
      )}
      <main id="main" ref={main} tabIndex={-1}>
        <Outlet />
      </main>
      <footer className="site-footer">
        <p>Loom &amp; Kiln, a Shopkit demo store. Prices in US dollars.</p>
        <p>
          <Link to="/merchant">Merchant console</Link>
        </p>
      </footer>
      <CartDrawer open={drawer} onClose={() => setDrawer(false)} />
      <ScrollRestoration />
    </>
  );
}
