import { products } from '@shopkit/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState, useSyncExternalStore } from 'react';
import { NavLink, Route, Routes } from 'react-router';
import { humanMessage } from '../errors.ts';
import { useTitle } from '../title.ts';
import { Bulk } from './Bulk.tsx';
import { Collections } from './Collections.tsx';
import { forgetKey, merchantClient, readKey, saveKey } from './client.ts';
import {
  keyRefused,
  MerchantContext,
  mayLeave,
  type UnsavedForms,
  UnsavedProvider,
  unavailable,
  useAskBeforeLeaving,
} from './context.ts';
import { ProductEditor, ProductList } from './Products.tsx';

/**
 * Whether a console read was refused for its key (kept in this tab from before `npm start` made a
 * new one): every page then fails, and its "Try again" cannot help.
 */
function useKeyRefused() {
  const cache = useQueryClient().getQueryCache();
  return useSyncExternalStore(
    (changed) => cache.subscribe(changed),
    () => cache.findAll({ queryKey: ['merchant'] }).some((q) => keyRefused(q.state.error)),
  );
}

function SignIn({ onKey }: { onKey: (key: string) => void }) {
  useTitle('Merchant console');
  const id = useId();
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    // The button stays focusable while the key is checked (aria-disabled): a press meanwhile does nothing.
    if (busy) return;
    const key = String(new FormData(e.currentTarget).get('key') ?? '').trim();
    // `required` lets a key of only spaces through: it is not a key, and is not sent.
    if (!key) {
      setError('Paste the API key: what is in the box is only spaces.');
      document.getElementById(id)?.focus();
      return;
    }
    setBusy(true);
    setError('');
    try {
      // Check the key with an elevated read before keeping it.
      await products.queryProducts(
        merchantClient(key),
        { paging: { limit: 1 } },
        { includeHiddenProducts: true },
      );
      saveKey(key);
      onKey(key);
    } catch (err) {
      // A refusal says what to do about the key; any other failure (offline, a 5xx) is not the
      // key's fault and says what went wrong, not that the key was refused.
      const refused = keyRefused(err);
      setError(
        refused
          ? 'The key was not accepted. Paste the whole API key that npm start printed.'
          : `The key could not be checked: ${humanMessage(err)}`,
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="auth-card">
      <h1>Merchant console</h1>
      <p>
        Paste the shop’s API key (<code>npm start</code> prints it). It stays in this tab only and is sent to
        the platform with each request.
      </p>
      <form onSubmit={submit}>
        <div className="field">
          <label htmlFor={id}>API key</label>
          <input
            id={id}
            name="key"
            type="password"
            autoComplete="off"
            required
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${id}-error` : undefined}
            onChange={() => error && setError('')}
          />
        </div>
        <p id={`${id}-error`} role="alert" className="field-error">
          {error}
        </p>
        {/* `disabled` dropped the focus of a keyboard merchant who pressed it to the page. */}
        <button type="submit" className="button button-primary wide" {...unavailable(busy)}>
          {busy ? 'Checking…' : 'Open the console'}
        </button>
      </form>
    </section>
  );
}

/**
 * The console. Each of its pages sets its own title (`consoleTitle`): a screen reader announces
 * the new title on a move from page to page, which one title for all of them never did.
 */
export default function Console() {
  const [key, setKey] = useState(readKey);
  const qc = useQueryClient();
  // The forms of the page that have values typed and not saved register here.
  const [forms] = useState<UnsavedForms>(() => new Set());
  useAskBeforeLeaving(forms);
  const refused = useKeyRefused();
  if (!key) return <SignIn onKey={setKey} />;
  const client = merchantClient(key);
  const signOut = () => {
    // The console goes with the key: values typed and not saved would go too, so it asks first.
    if (!mayLeave(forms)) return;
    forgetKey();
    qc.removeQueries({ queryKey: ['merchant'] });
    setKey(null);
  };
  return (
    <MerchantContext.Provider value={client}>
      <UnsavedProvider value={forms}>
        <div className="console">
          <div className="console-head">
            <h1>Merchant console</h1>
            <button type="button" className="button" onClick={signOut}>
              Forget the key
            </button>
          </div>
          <nav aria-label="Console" className="tabs">
            <NavLink to="/merchant" end>
              Products
            </NavLink>
            <NavLink to="/merchant/new">New product</NavLink>
            <NavLink to="/merchant/collections">Collections</NavLink>
            <NavLink to="/merchant/bulk">Bulk edit</NavLink>
          </nav>
          {refused && (
            <p className="notice notice-error" role="alert">
              The platform does not accept the key this tab holds (it may have been replaced). Press “Forget
              the key”, then paste the API key that <code>npm start</code> printed.
            </p>
          )}
          <Routes>
            <Route index element={<ProductList />} />
            <Route path="new" element={<ProductEditor />} />
            <Route path="products/:id" element={<ProductEditor />} />
            <Route path="collections" element={<Collections />} />
            <Route path="bulk" element={<Bulk />} />
          </Routes>
        </div>
      </UnsavedProvider>
    </MerchantContext.Provider>
  );
}
