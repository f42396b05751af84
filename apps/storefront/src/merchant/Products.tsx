import { ApplicationError, type Product, type ProductInput, products } from '@shopkit/sdk';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useMemo, useRef, useState } from 'react';
import { Link, useLocation, useNavigate, useNavigationType, useParams, useSearchParams } from 'react-router';
import { ErrorState, Skeleton } from '../components/States.tsx';
import { isRefusal } from '../errors.ts';
import { count, few, money } from '../format.ts';
import { useTitle } from '../title.ts';
import type { FromCollection } from './Collections.tsx';
import {
  allOf,
  CREATED,
  consoleTitle,
  justCreated,
  typedIn,
  unavailable,
  useMerchant,
  useOnMove,
  useRefresh,
  useUnsaved,
  useWrite,
} from './context.ts';
import {
  type Changes,
  changedElsewhere,
  changes,
  type Draft,
  decimal,
  droppedVariants,
  type Field,
  optionVariants,
  type Problems,
  platformWords,
  rebase,
  refusedAt,
  refusedFields,
  sameDraft,
  settle,
  toDraft,
  variantName,
  variantStock,
} from './draft.ts';
import { StaleList } from './Stale.tsx';
import {
  CREATED_NOT_LOADED,
  gone,
  goneWords,
  LABELS,
  MAYBE_MADE,
  partlySaved,
  SAVED_NOT_RELOADED,
  saveFailure,
  unanswered,
} from './saving.ts';

/** The largest page the platform serves. */
export const PAGE_MAX = 100;

const ALL = { includeHiddenProducts: true, includeMerchantSpecificData: true, includeVariants: true };

/** Every product of the store, hidden ones included, by name: all pages, not only the first. */
export function useAllProducts() {
  const client = useMerchant();
  return useQuery({
    queryKey: ['merchant', 'products'],
    queryFn: () => allOf(products.queryProducts(client, ALL).ascending('name').limit(PAGE_MAX)),
  });
}

/** One product with its variants and merchant data, or `null` when there is none. */
function useProduct(id: string) {
  const client = useMerchant();
  return useQuery({
    queryKey: ['merchant', 'product', id],
    queryFn: async () => {
      try {
        return (await products.getProduct(client, id, { includeMerchantSpecificData: true })).product;
      } catch (e) {
        // The platform's own "not found" (its 404 comes with its envelope, as an ApplicationError);
        // a 404 without it (a wrong base URL) stays an error.
        if (e instanceof ApplicationError && e.status === 404) return null;
        throw e;
      }
    },
  });
}

/**
 * A product's stock as the list says it: its count when counted, and a product some of whose
 * variants are sold out as such (it reads `inStock` while any variant is: "In stock" hid them).
 */
function stockWords(p: Product) {
  const s = p.stock;
  if (!s?.inStock) return 'Out of stock';
  if (s.inventoryStatus === 'PARTIALLY_OUT_OF_STOCK')
    return s.trackInventory
      ? `${s.quantity ?? 0} in stock, some variants sold out`
      : 'Some variants sold out';
  return s.trackInventory ? `${s.quantity ?? 0} in stock` : 'In stock';
}

/** Products shown in the list at once. */
const LIST_PAGE = 50;

/**
 * The product whose editor was last opened from the list: on Back (the browser's or the editor's
 * link) its Edit link takes the focus again, so a keyboard merchant goes on from where they were.
 */
let opened: string | undefined;

/** The list's page in the URL: a whole number from 1 (`?page=1.5`, hand-edited, is page 1). */
function pageOf(params: URLSearchParams) {
  const asked = Math.floor(Number(params.get('page')));
  return Number.isSafeInteger(asked) && asked > 1 ? asked : 1;
}

export function ProductList() {
  useTitle(consoleTitle('Products'));
  const list = useAllProducts();
  const client = useMerchant();
  const id = useId();
  const del = useWrite((id: string) => products.deleteProduct(client, id));
  const countRef = useRef<HTMLParagraphElement>(null);
  // The filter and the page are kept in the URL (`?q=shirt&page=2`), so that Back from a product
  // (its "Back to products" link or the browser's) shows the list as it was left. The field answers
  // at once; the URL follows it, replaced (the router applies it in a transition).
  const [params, setParams] = useSearchParams();
  const [filter, setFilter] = useState(() => params.get('q') ?? '');
  const [page, setPage] = useState(() => pageOf(params));
  const location = useLocation();
  const how = useNavigationType();
  // A link to the list (the Products tab) or the browser's Back or Forward shows its URL's list;
  // the list's own changes are replacements, already shown. Adopted while rendering, not in an
  // effect: an effect ran after the list was shown, and cleared what had been typed in between.
  const [shownAt, setShownAt] = useState(location.key);
  if (shownAt !== location.key) {
    setShownAt(location.key);
    if (how !== 'REPLACE') {
      const asked = new URLSearchParams(location.search);
      setFilter(asked.get('q') ?? '');
      setPage(pageOf(asked));
    }
  }
  const loaded = !!list.data;
  useEffect(() => {
    // Only on arriving (Back, or the editor's link back): the list's own changes (its filter or
    // page put in the URL, replaced) may land after an Edit link was pressed, on a slow device,
    // and took the product meant for the Back from its editor.
    if (!loaded || !opened || how === 'REPLACE') return;
    const back = how === 'POP' || (location.state as FromList | null)?.back;
    const link = back && document.querySelector<HTMLElement>(`[data-edit="${CSS.escape(opened)}"]`);
    opened = undefined;
    if (link) link.focus();
  }, [loaded, how, location.state]);
  const keep = (q: string, to: number) => {
    const next = new URLSearchParams();
    if (q) next.set('q', q);
    if (to > 1) next.set('page', String(to));
    setParams(next, { replace: true });
  };
  if (list.isPending) return <Skeleton lines={8} label="Loading products" />;
  // Only when there is no list to show: a list read again that failed (after a delete that is
  // stored all the same) keeps the last one shown, and says so (`StaleList`).
  if (!list.data) return <ErrorState error={list.error!} retry={() => list.refetch()} />;
  // Every product is loaded: the filter and the pages are the list's, not further requests.
  const wanted = filter.trim().toLowerCase();
  const matches = wanted ? list.data.filter((p) => p.name.toLowerCase().includes(wanted)) : list.data;
  const pages = Math.max(1, Math.ceil(matches.length / LIST_PAGE));
  // A page emptied by deletions (or a shorter list) shows the last one that has products.
  const at = Math.min(page, pages);
  const shown = matches.slice((at - 1) * LIST_PAGE, at * LIST_PAGE);
  // The buttons stay, with the focus, at either end (aria-disabled): a press there does nothing.
  const turn = (to: number) => () => {
    if (to < 1 || to > pages) return;
    setPage(to);
    keep(filter, to);
  };
  return (
    <>
      {del.error &&
        // No answer: it may be deleted all the same (the list read again shows whether it is).
        (unanswered(del.error) ? (
          <p className="notice notice-error" role="alert">
            {MAYBE_MADE}
          </p>
        ) : gone(del.error) ? (
          // Deleted already: the list read again no longer shows it.
          <p className="notice" role="status">
            That product was already deleted elsewhere (another tab or person).
          </p>
        ) : (
          <ErrorState error={del.error} title="The product was not deleted" />
        ))}
      {list.error && <StaleList what="products" retry={() => list.refetch()} after={countRef} />}
      <div className="field">
        <label htmlFor={`${id}-filter`}>Filter by name</label>
        <input
          id={`${id}-filter`}
          type="search"
          value={filter}
          onChange={(e) => {
            setFilter(e.target.value);
            setPage(1);
            keep(e.target.value, 1);
          }}
        />
      </div>
      <p className="muted" ref={countRef} tabIndex={-1} aria-live="polite">
        {!wanted
          ? count(list.data.length, 'product')
          : matches.length
            ? `${matches.length} of ${count(list.data.length, 'product')} match “${filter.trim()}”.`
            : `No product of the ${list.data.length} matches “${filter.trim()}”.`}
      </p>
      <div className="table-wrap">
        <table className="table">
          <caption className="visually-hidden">Products</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Price</th>
              <th scope="col">Cost</th>
              <th scope="col">Stock</th>
              <th scope="col">Visible</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((p) => (
              <tr key={p.id}>
                <th scope="row">{p.name}</th>
                <td>{p.priceData?.formatted?.price}</td>
                <td>{p.costAndProfitData?.formattedItemCost ?? '—'}</td>
                <td>{stockWords(p)}</td>
                <td>{p.visible ? 'Yes' : 'No'}</td>
                <td className="actions">
                  <Link
                    to={`/merchant/products/${p.id}`}
                    state={{ list: location.search } satisfies FromList}
                    data-edit={p.id}
                    onClick={() => {
                      opened = p.id;
                    }}
                  >
                    Edit<span className="visually-hidden"> {p.name}</span>
                  </Link>
                  <button
                    type="button"
                    className="link-button danger"
                    {...unavailable(del.isPending)}
                    onClick={() => {
                      if (!del.isPending && confirm(`Delete “${p.name}”? This cannot be undone.`))
                        // Its row goes (with no answer it may go too): the focus goes to the count
                        // above the list, not to the page.
                        del.run(
                          p.id,
                          () => countRef.current?.focus(),
                          (e) => {
                            if (gone(e)) void list.refetch();
                            if (unanswered(e) || gone(e)) countRef.current?.focus();
                          },
                        );
                    }}
                  >
                    Delete<span className="visually-hidden"> {p.name}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {pages > 1 && (
        <nav className="pager" aria-label="Pages of products">
          <button type="button" className="button small" {...unavailable(at <= 1)} onClick={turn(at - 1)}>
            Previous
          </button>
          <span aria-current="page" aria-live="polite">
            Page {at} of {pages}
          </span>
          <button type="button" className="button small" {...unavailable(at >= pages)} onClick={turn(at + 1)}>
            Next
          </button>
        </nav>
      )}
    </>
  );
}

/**
 * The navigation state of a product's editor opened from the list (`list`: the list's filter and
 * page), and of the list reached by its "Back to products" (`back`).
 */
type FromList = { list?: string; back?: boolean };

export function ProductEditor() {
  const { id } = useParams();
  const location = useLocation();
  // Back to the list as it was left (its filter and page), when the editor was opened from it;
  // back to the collection, when it was opened from a collection's products.
  const list = (location.state as FromList | null)?.list;
  const collection = (location.state as Partial<FromCollection> | null)?.collection;
  const toCollection =
    typeof collection?.back === 'string' && collection.back.startsWith('/merchant/collections') && collection;
  return (
    <>
      {id && (
        <p>
          {toCollection ? (
            <Link to={toCollection.back} state={{ back: true }}>
              Back to the collection {toCollection.name}
            </Link>
          ) : (
            <Link
              to={`/merchant${typeof list === 'string' && list.startsWith('?') ? list : ''}`}
              state={{ back: true } satisfies FromList}
            >
              Back to products
            </Link>
          )}
        </p>
      )}
      {id ? <StoredProduct key={id} id={id} /> : <NewProduct />}
    </>
  );
}

function StoredProduct({ id }: { id: string }) {
  const product = useProduct(id);
  useTitle(
    consoleTitle(
      product.isPending
        ? undefined
        : product.data
          ? `Edit ${product.data.name}`
          : product.data === null
            ? 'Product not found'
            : 'Product not loaded',
    ),
  );
  const location = useLocation();
  const notice = useRef<HTMLParagraphElement>(null);
  const unloadedNew = product.data === undefined && !!product.error && justCreated(location.state);
  useEffect(() => {
    // The form that was pressed is gone: the notice takes the focus, not the page.
    if (unloadedNew) notice.current?.focus();
  }, [unloadedNew]);
  if (product.isPending) return <Skeleton lines={8} label="Loading the product" />;
  // Just created, and only reading it failed: it is stored. Said as created, with no form that
  // would create it a second time; the state stays until the editor shows, which says "Created.".
  if (unloadedNew)
    return (
      <div className="notice" role="status">
        <p ref={notice} tabIndex={-1}>
          {CREATED_NOT_LOADED}
        </p>
        <button type="button" className="button" onClick={() => product.refetch()}>
          Load it again
        </button>
      </div>
    );
  if (product.data === undefined)
    return <ErrorState error={product.error!} retry={() => product.refetch()} />;
  if (!product.data) return <p className="notice">This product no longer exists.</p>;
  // A read again after a write that failed keeps the editor, with what was read last.
  return <Editor product={product.data} reload={async () => !(await product.refetch()).error} />;
}

function NewProduct() {
  useTitle(consoleTitle('New product'));
  return <Editor key="new" />;
}

/** What a save sends, and the draft it comes of (`sent`) and the stored product's as last read (`read`). */
type Sending = Omit<Changes, 'problems'> & { sent: Draft; read: Draft };

/** A save not sent: fields edited in the form were changed elsewhere since it read the product. */
class ChangedElsewhere extends Error {
  constructor(readonly fields: Partial<Record<Field, string>>) {
    super('Changed elsewhere since the form read it.');
  }
  /** What each field says: what is stored now, and that a second save replaces it. */
  problems(): Problems {
    return Object.fromEntries(
      Object.entries(this.fields).map(([k, now]) => [
        k,
        `Changed elsewhere (another tab or person) since this page read it${
          now === '' ? ': it is now empty' : now.length <= 80 ? `: it is now “${now}”` : ''
        }. Not saved; save again to replace it with yours.`,
      ]),
    );
  }
}

/** A quantity not sent: it was changed elsewhere (an order, another tab) since the page read it. */
class QuantityChanged extends Error {
  constructor(readonly now: number) {
    super(
      `Changed elsewhere (an order, another tab or person) since this page read it: it is now ${now}. Not saved; save again to replace it with yours.`,
    );
  }
}

/**
 * A variant's price not sent: it was changed elsewhere (another tab or person, a bulk change)
 * since the page read it.
 */
class PriceChanged extends Error {
  constructor(readonly now: number) {
    super(
      `Changed elsewhere (another tab or person) since this page read it: it is now ${money(now)}. Not saved; save again to replace it with yours.`,
    );
  }
}

/** Asks before a save whose new options delete stored variants; true when it may go ahead. */
function confirmOptions(product: Product, input: ProductInput, removeOptions: boolean) {
  if (removeOptions) return confirm(removeOptionsQuestion(product));
  const dropped = input.productOptions ? droppedVariants(product, input.productOptions) : [];
  if (!dropped.length) return true;
  // The units they hold, as "Remove all options" says them: "and stock" alone hid how many go.
  const stock = variantStock(dropped);
  return confirm(
    `These options delete ${count(dropped.length, 'variant')} of the ${optionVariants(product).length} of “${product.name}” ` +
      `(${few(dropped.map(variantName), 5)}), ` +
      `with their own prices and stock${stock === undefined ? '' : ` (${stock} in stock)`}. Save anyway?`,
  );
}

function removeOptionsQuestion(product: Product) {
  const variants = optionVariants(product);
  const stock = variantStock(variants);
  return (
    `Remove every option of “${product.name}”? Its ${count(variants.length, 'variant')} are deleted, ` +
    `with their own prices${stock === undefined ? '' : ` and stock (${stock} in stock)`}; ` +
    'the product goes back to a single variant.'
  );
}

function Editor({ product, reload }: { product?: Product; reload?: () => Promise<boolean> }) {
  const client = useMerchant();
  const navigate = useNavigate();
  const id = useId();
  // The form follows what is stored: after every write and refetch, the fields the merchant has
  // not edited show the stored values again (a removed ribbon or options box empties).
  const stored = useMemo(() => toDraft(product), [product]);
  const [form, setForm] = useState({ base: stored, draft: stored });
  if (!sameDraft(form.base, stored)) setForm({ base: stored, draft: rebase(form.draft, form.base, stored) });
  const { base, draft } = form;
  const [problems, setProblems] = useState<Problems>({});
  const location = useLocation();
  const [note, setNote] = useState<'created' | 'saved' | 'unchanged' | 'unread' | null>(() =>
    justCreated(location.state) ? 'created' : null,
  );
  // A note from before says nothing about the page reached; one with "Load it again" stays.
  useOnMove(() => setNote((n) => (n === 'unread' ? n : null)));
  // What the last save stored while reading it back failed: those values are not unsaved edits.
  const [unread, setUnread] = useState<Draft | null>(null);
  // What the save on its way sends: leaving for another page of the console lets it finish, so
  // those values are not lost (values typed after the press are).
  const [sending, setSending] = useState<Draft | null>(null);
  useUnsaved(
    () =>
      !sameDraft(draft, base) &&
      !(unread && sameDraft(draft, unread)) &&
      !(sending && sameDraft(draft, sending)) &&
      (product ? `your changes to “${product.name}”` : 'the new product'),
  );
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (!justCreated(location.state)) return;
    // The form that was pressed is gone: the new product's editor takes the focus. Said once: the
    // state goes, so a reload or a return to this page does not say it again.
    heading.current?.focus();
    navigate('.', { replace: true, state: null });
  }, [location.state, navigate]);
  const save = useWrite(async ({ input, create, removeOptions, sent, read }: Sending) => {
    // A new product's editor reads it by id; if that read fails it still says "Created".
    if (!product) {
      // `changes` gives a create input whenever the draft has no problems, and submit sends no
      // draft with problems: this only guards against that ever changing.
      if (!create) throw new Error('A new product needs a name, a type and a price.');
      return (await products.createProduct(client, create)).product;
    }
    // A field edited here and changed elsewhere since the form read it (another tab): not replaced
    // unseen. When the product cannot be read now (offline, a 5xx), the save goes ahead as before.
    const now = await products
      .getProduct(client, product.id, { includeMerchantSpecificData: true })
      .then((r) => toDraft(r.product))
      .catch(() => undefined);
    const elsewhere = now && changedElsewhere(sent, read, now);
    if (elsewhere && Object.keys(elsewhere).length) throw new ChangedElsewhere(elsewhere);
    if (Object.keys(input).length) await products.updateProduct(client, product.id, input);
    if (removeOptions)
      try {
        await products.deleteProductOptions(client, product.id);
      } catch (e) {
        // The update before it is stored: say so, not that nothing was saved.
        if (!Object.keys(input).length) throw e;
        throw partlySaved(input, 'the options were not removed', e);
      }
    // As stored now, in the platform's form: what the saved fields show from here on. The save is
    // stored even when this read fails (offline, a 5xx): `undefined`, said as saved, never as failed.
    try {
      return (await products.getProduct(client, product.id, { includeMerchantSpecificData: true })).product;
    } catch {
      return undefined;
    }
  });
  const set = (k: Field, v: string | boolean) => {
    setNote(null);
    setForm((f) => ({ ...f, draft: { ...f.draft, [k]: v } }));
    if (problems[k]) setProblems(({ [k]: _, ...rest }) => rest);
  };
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    // The button stays focusable while saving (aria-disabled): a press meanwhile does nothing.
    if (save.isPending) return;
    setNote(null);
    const { input, create, removeOptions, problems: found } = changes(draft, product && base);
    setProblems(found);
    const first = Object.keys(found)[0];
    if (first) {
      document.getElementById(`${id}-${first}`)?.focus();
      return;
    }
    if (product && !Object.keys(input).length && !removeOptions) {
      setNote('unchanged');
      return;
    }
    if (product && !confirmOptions(product, input, removeOptions)) return;
    const sent = draft;
    setSending(sent);
    save.run(
      { input, create, removeOptions, sent, read: base },
      (p) => {
        setSending(null);
        setUnread(p ? null : sent);
        setNote(p ? 'saved' : 'unread');
        if (!p) return;
        if (!product) navigate(`/merchant/products/${p.id}`, { state: CREATED });
        // The saved fields are no longer edits: they show what is stored and follow later writes.
        else setForm((f) => ({ ...f, draft: settle(f.draft, sent, toDraft(p)) }));
      },
      (err) => {
        setSending(null);
        if (err instanceof ChangedElsewhere) {
          // Said next to each field; the form reads the product again, so a second save replaces
          // what is stored now with what the merchant typed, knowingly.
          save.reset();
          setProblems(err.problems());
          document.getElementById(`${id}-${Object.keys(err.fields)[0]}`)?.focus();
          void reload?.();
          return;
        }
        // The platform refused fields: each says why next to it, as the form's own checks do.
        const refused = refusedFields(err, sent);
        if (!refused) return;
        save.reset();
        setProblems(refused);
        document.getElementById(`${id}-${Object.keys(refused)[0]}`)?.focus();
      },
    );
  };
  const describe = (k: Field, help?: string) => {
    const ids = [problems[k] && `${id}-${k}-error`, help].filter(Boolean).join(' ');
    return { 'aria-invalid': problems[k] ? true : undefined, 'aria-describedby': ids || undefined };
  };
  /**
   * A field's problem. Below a row of fields (`named`) it names its field: "Must have at most 40
   * characters." under SKU, Ribbon and Brand did not say which of them it was about.
   */
  const error = (k: Field, named = false) =>
    problems[k] && (
      <p id={`${id}-${k}-error`} className="field-error">
        {named && k !== 'visible' && `${LABELS[k]}: `}
        {problems[k]}
      </p>
    );
  const field = (k: Exclude<Field, 'visible' | 'options' | 'description' | 'productType'>, extra = {}) => (
    <div className="field">
      <label htmlFor={`${id}-${k}`}>{LABELS[k]}</label>
      <input
        id={`${id}-${k}`}
        name={k}
        value={draft[k]}
        onChange={(e) => set(k, e.target.value)}
        {...describe(k)}
        {...extra}
      />
    </div>
  );
  const invalid = Object.keys(problems).length;
  return (
    <div className="editor">
      <form onSubmit={submit} className="panel" aria-labelledby={`${id}-title`}>
        <h2 id={`${id}-title`} ref={heading} tabIndex={-1}>
          {product ? `Edit ${product.name}` : 'New product'}
        </h2>
        {field('name', { required: true })}
        {error('name')}
        <div className="field">
          <label htmlFor={`${id}-description`}>{LABELS.description}</label>
          <textarea
            id={`${id}-description`}
            name="description"
            rows={3}
            value={draft.description}
            onChange={(e) => set('description', e.target.value)}
            {...describe('description')}
          />
          {error('description')}
        </div>
        <div className="field">
          <label htmlFor={`${id}-productType`}>{LABELS.productType}</label>
          <select
            id={`${id}-productType`}
            name="productType"
            value={draft.productType}
            onChange={(e) => set('productType', e.target.value)}
            {...describe('productType')}
          >
            <option value="physical">Physical (shipped)</option>
            <option value="digital">Digital (no shipping)</option>
          </select>
          {error('productType')}
        </div>
        <div className="row">
          {field('price', { type: 'number', required: true, step: '0.01', min: 0 })}
          {field('cost', { type: 'number', step: '0.01', min: 0 })}
          {field('weight', { type: 'number', step: '0.001', min: 0 })}
        </div>
        {error('price', true)}
        {error('cost', true)}
        {error('weight', true)}
        <div className="row">
          {field('sku')}
          {field('ribbon')}
          {field('brand')}
        </div>
        {error('sku', true)}
        {error('ribbon', true)}
        {error('brand', true)}
        <div className="field">
          <label htmlFor={`${id}-options`}>{LABELS.options}</label>
          <textarea
            id={`${id}-options`}
            name="options"
            rows={3}
            value={draft.options}
            onChange={(e) => set('options', e.target.value)}
            {...describe('options', `${id}-options-help`)}
          />
          {error('options')}
          <p id={`${id}-options-help`} className="muted">
            One option per line, such as <code>Size: S, M, L</code>. For a colour option give every choice a
            colour code: <code>Color: Red #c0392b, Blue #2e86de</code>; a line where only some choices have
            one is refused. Changing or emptying the options deletes the variants they no longer make, with
            their prices and stock.
          </p>
        </div>
        <div className="field checkbox">
          <input
            id={`${id}-visible`}
            name="visible"
            type="checkbox"
            checked={draft.visible}
            onChange={(e) => set('visible', e.target.checked)}
            {...describe('visible')}
          />
          <label htmlFor={`${id}-visible`}>Visible in the shop</label>
        </div>
        {error('visible')}
        <p role="alert" className="field-error">
          {invalid
            ? `Not saved: ${invalid === 1 ? 'a field needs' : `${invalid} fields need`} attention (see above).`
            : save.error
              ? saveFailure(save.error, !product)
              : ''}
        </p>
        <div aria-live="polite">
          {note === 'created' && <p className="notice notice-ok">Created.</p>}
          {note === 'saved' && <p className="notice notice-ok">Saved.</p>}
          {note === 'unread' && (
            <div className="notice notice-ok">
              <p>{SAVED_NOT_RELOADED}</p>
              {reload && (
                <button
                  type="button"
                  className="button small"
                  onClick={async () => {
                    if (!(await reload())) return;
                    setUnread(null);
                    setNote('saved');
                    // The button goes with the note: the focus goes to the editor's heading.
                    heading.current?.focus();
                  }}
                >
                  Load it again
                </button>
              )}
            </div>
          )}
          {note === 'unchanged' && <p className="notice">No changes to save.</p>}
        </div>
        <button type="submit" className="button button-primary" {...unavailable(save.isPending)}>
          {save.isPending ? 'Saving…' : product ? 'Save changes' : 'Create product'}
        </button>
      </form>
      {product && <Extras product={product} />}
    </div>
  );
}

/** What a change beside the product form does besides saying what it did (`run`'s options). */
interface ChangeOptions {
  /** Runs once it is stored. */
  saved?: () => void;
  failed?: (err: Error) => void;
  /** The form whose values it sends: while it is on its way, leaving does not ask about them. */
  form?: HTMLFormElement;
}

type Media = NonNullable<NonNullable<Product['media']>['items']>[number];

/**
 * An image as its Remove button names it: by its alt text or title, else its place (images
 * without either were all "Remove image").
 */
// A video is no image: it was named "image 2", and showed nothing but its Remove button.
const imageName = (m: Media, i: number) =>
  m.image?.altText || m.title || `${m.mediaType === 'video' ? 'video' : 'image'} ${i + 1}`;

function Extras({ product }: { product: Product }) {
  const client = useMerchant();
  const id = useId();
  const act = useWrite((f: () => Promise<unknown>) => f());
  const busy = act.isPending;
  const refresh = useRefresh();
  const mediaHeading = useRef<HTMLHeadingElement>(null);
  const mediaForm = useRef<HTMLFormElement>(null);
  const variantTable = useRef<HTMLTableElement>(null);
  // The form whose change is on its way: what it holds is being saved, not something leaving loses.
  const sending = useRef<HTMLFormElement | null>(null);
  useUnsaved(() => typedIn(mediaForm.current, sending.current) && 'the image URL');
  useUnsaved(() => typedIn(variantTable.current, sending.current) && 'a variant’s price');
  const stockForm = useRef<HTMLFormElement>(null);
  useUnsaved(() => typedIn(stockForm.current, sending.current) && 'the stock');
  // The field (its id) whose typed value cannot be sent or was refused, and why.
  const [bad, setBad] = useState<{ at: string; text: string } | null>(null);
  const refuse = (at: string, text: string) => {
    setBad({ at, text });
    document.getElementById(at)?.focus();
  };
  // What the last change did, said in the status line once it is stored (a screen reader hears
  // it: the button pressed keeps the focus, and nothing else would say that it worked).
  const [said, setSaid] = useState('');
  useOnMove(() => setSaid(''));
  /** Runs `f`; once it is stored, says `done` and runs `saved`; `failed` runs if it fails. */
  const run = (f: () => Promise<unknown>, done: string, { saved, failed, form }: ChangeOptions = {}) => {
    if (busy) return;
    setSaid('');
    sending.current = form ?? null;
    act.run(
      f,
      () => {
        sending.current = null;
        setSaid(done);
        saved?.();
      },
      (err) => {
        sending.current = null;
        // A refusal may come of a product older than the store (its options removed in another
        // tab, a variant gone): read it again, so that what is offered next is what is there. A
        // product deleted elsewhere keeps its editor, with what was typed, and says so.
        if (isRefusal(err) && !gone(err)) void refresh();
        failed?.(err);
      },
    );
  };
  /**
   * `run`, and a refusal of the fields `fields` matches is said next to the field `at`; `lost` runs
   * when no answer came (it may be stored all the same).
   */
  const write = (
    f: () => Promise<unknown>,
    done: string,
    {
      at,
      fields,
      lost,
      ...rest
    }: Omit<ChangeOptions, 'failed'> & { at: string; fields: RegExp; lost?: () => void },
  ) =>
    run(f, done, {
      ...rest,
      failed: (err) => {
        if (unanswered(err)) return lost?.();
        // Said beside the field, with what is stored now, as the platform's refusals are.
        if (err instanceof PriceChanged) {
          act.reset();
          return refuse(at, err.message);
        }
        const text = refusedAt(err, fields);
        if (text) refuse(at, text);
      },
    });
  const addMedia = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (busy) return;
    const form = e.currentTarget;
    const url = String(new FormData(form).get('url') ?? '').trim();
    // Cleared only once the image is added: a refused URL stays for correcting.
    if (url) {
      setBad(null);
      write(() => products.addProductMedia(client, product.id, [{ url }]), 'Image added.', {
        at: `${id}-url`,
        fields: /^media\b/,
        saved: () => form.reset(),
        // It may be added: the page reads the product again and shows it (a second add would
        // make a second image), so the URL is no longer something typed that leaving would lose.
        lost: () => form.reset(),
        form,
      });
    }
  };
  const badAt = (at: string) => {
    const text = bad?.at === at ? bad.text : undefined;
    return {
      id: at,
      'aria-invalid': text ? true : undefined,
      'aria-describedby': text ? `${at}-error` : undefined,
      onChange: () => text && setBad(null),
    } as const;
  };
  const fieldError = (at: string) =>
    bad?.at === at && (
      <p id={`${at}-error`} className="field-error" role="alert">
        {bad.text}
      </p>
    );
  // A variant's price as stored when a save of it was refused for being changed elsewhere: a second
  // save replaces that price, knowingly.
  const seenPrices = useRef(new Map<string, number>());
  const setVariantPrice = (
    e: FormEvent<HTMLFormElement>,
    variantId: string,
    name: string,
    shown: number | undefined,
  ) => {
    e.preventDefault();
    if (busy) return;
    const form = e.currentTarget;
    const price = decimal(String(new FormData(form).get('price') ?? ''), 2);
    // The input is required and in cents, but the browser takes `1e3` as a number: an empty,
    // unreadable or finer value is refused with a reason, as the product price is.
    const at = `${id}-${variantId}`;
    if (price === undefined || price === null) {
      refuse(
        at,
        price === undefined
          ? 'Enter a price: an empty price is not $0.00.'
          : 'Enter the price as an amount such as 12.50.',
      );
      return;
    }
    setBad(null);
    const read = seenPrices.current.get(variantId) ?? shown;
    const send = async () => {
      // As the stock's quantity: a price another tab or a bulk change stored since the page read it
      // is not replaced unseen (the page is not read again: what was typed stays for a second
      // save). When the product cannot be read now, the save goes ahead.
      const now = await products
        .getProduct(client, product.id, { includeMerchantSpecificData: true })
        .then((r) => r.product.variants?.find((v) => v.id === variantId)?.variant?.priceData?.price)
        .catch(() => undefined);
      if (now !== undefined && now !== read && now !== price) {
        seenPrices.current.set(variantId, now);
        throw new PriceChanged(now);
      }
      return products.updateProductVariants(client, product.id, [{ variantIds: [variantId], price }]);
    };
    write(send, `Set the price of ${name} to ${money(price)}.`, {
      at,
      fields: /^variants\[0\]\.price$/,
      // Stored: the input shows the stored price (`10` for `10.00`), no longer a value typed.
      saved: () => {
        seenPrices.current.delete(variantId);
        form.reset();
      },
      form,
    });
  };
  const variants = product.variants ?? [];
  const hasOptions = (product.productOptions?.length ?? 0) > 0;
  // Whether the stock form counts units (its checkbox, until saved): it shows a quantity, else the
  // availability. Back to what is stored whenever that changes.
  const tracked = !!product.stock?.trackInventory;
  const [track, setTrack] = useState(tracked);
  const [wasTracked, setWasTracked] = useState(tracked);
  if (wasTracked !== tracked) {
    setWasTracked(tracked);
    setTrack(tracked);
  }
  // In stock, out of stock, or (a product with options) some variants sold out.
  const availability =
    product.stock?.inventoryStatus === 'PARTIALLY_OUT_OF_STOCK'
      ? 'some'
      : product.stock?.inStock
        ? 'in'
        : 'out';
  const saveStock = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (busy) return;
    const form = e.currentTarget;
    const data = new FormData(form);
    const at = `${id}-quantity`;
    const stock: NonNullable<ProductInput['stock']> = {};
    if (track !== tracked) stock.trackInventory = track;
    if (track) {
      const typed = String(data.get('quantity') ?? '').trim();
      // With options the quantity is every variant's: left empty, each keeps its own. Counting
      // starts with one (a product not counted yet has no quantity to keep).
      if (typed === '' && !(hasOptions && tracked))
        return refuse(at, 'Enter the quantity in stock, such as 12.');
      if (typed !== '' && !/^\d+$/.test(typed))
        return refuse(at, 'Enter the quantity as a whole number such as 12.');
      const quantity = typed === '' ? undefined : Number(typed);
      // Sent only when it changes: the platform reads a tracked product's quantity sent with its
      // other stock fields as the sum it was read with, and leaves the variants as they are.
      if (quantity !== undefined && (hasOptions || !tracked || quantity !== product.stock?.quantity))
        stock.quantity = quantity;
    } else {
      const chosen = String(data.get('inStock') ?? availability);
      // Sent only when it changes (sent as read, "in stock" would put a product's sold-out
      // variants back on sale); "some sold out" is only ever kept.
      if (chosen !== 'some' && (track !== tracked || chosen !== availability))
        stock.inStock = chosen === 'in';
    }
    setBad(null);
    if (!Object.keys(stock).length) {
      setSaid('No changes to the stock to save.');
      return;
    }
    const what =
      stock.quantity !== undefined
        ? hasOptions
          ? `${stock.quantity} of each variant in stock`
          : `${stock.quantity} in stock`
        : track
          ? 'counted'
          : `${stock.inStock ? 'in stock' : 'sold out'}${hasOptions ? ' (every variant)' : ''}, not counted`;
    const read = product.stock?.quantity;
    const send = async () => {
      // Orders take units while the page stays open: a quantity typed over one it no longer holds
      // (12 read, 10 now, 13 typed for "one more") would count units that are not there. Said
      // beside the field, with what is stored now; a second save replaces it, knowingly. When the
      // product cannot be read now, the save goes ahead.
      if (stock.quantity !== undefined && tracked && !hasOptions) {
        const now = await products
          .getProduct(client, product.id, { includeMerchantSpecificData: true })
          .then((r) => r.product.stock?.quantity)
          .catch(() => undefined);
        if (now !== undefined && now !== read && now !== stock.quantity) throw new QuantityChanged(now);
      }
      return products.updateProduct(client, product.id, { stock });
    };
    run(send, `Saved the stock: ${what}.`, {
      saved: () => {
        form.reset();
        // The box shows what is stored again (the product as read back): so do the fields under it.
        setTrack((form.elements.namedItem('track') as HTMLInputElement).checked);
      },
      failed: (err) => {
        if (err instanceof QuantityChanged) {
          act.reset();
          refuse(at, err.message);
          void refresh();
          return;
        }
        const text = !unanswered(err) && refusedAt(err, /^product\.stock\b/);
        if (text) refuse(at, text);
      },
      form,
    });
  };
  // Options that went while this editor was open ("Remove all options", a save that emptied the
  // box): the Variants section goes, and a note says why in its place.
  const [hadOptions, setHadOptions] = useState(hasOptions);
  const [optionsGone, setOptionsGone] = useState(false);
  if (hadOptions !== hasOptions) {
    setHadOptions(hasOptions);
    setOptionsGone(!hasOptions);
  }
  const goneNote = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    // The section took the focus with it (its "Remove all options" button, a variant's price):
    // the note gets it, not the page. Focus the merchant has moved elsewhere stays there.
    if (optionsGone && (!document.activeElement || document.activeElement === document.body))
      goneNote.current?.focus();
  }, [optionsGone]);
  return (
    <div className="panel">
      {act.error &&
        (unanswered(act.error) ? (
          <p className="notice notice-error" role="alert">
            {MAYBE_MADE}
          </p>
        ) : gone(act.error) ? (
          <p className="notice notice-error" role="alert">
            {goneWords('this product')}
          </p>
        ) : platformWords(act.error) && !bad ? (
          // A refusal no field here shows: in the platform's own words (not "check the details").
          <p className="notice notice-error" role="alert">
            <strong>The change was not saved.</strong> The platform refused it: “{platformWords(act.error)}”.
          </p>
        ) : (
          <ErrorState error={act.error} title="The change was not saved" />
        ))}
      <p className="muted" role="status">
        {said}
      </p>
      <h2>Ribbon and brand</h2>
      <div className="row">
        <button
          type="button"
          className="button"
          {...unavailable(!product.ribbon || busy)}
          onClick={() =>
            product.ribbon &&
            run(() => products.removeRibbon(client, product.id), `Removed the ribbon “${product.ribbon}”.`)
          }
        >
          Remove ribbon{product.ribbon ? ` “${product.ribbon}”` : ''}
        </button>
        <button
          type="button"
          className="button"
          {...unavailable(!product.brand || busy)}
          onClick={() =>
            product.brand &&
            run(() => products.removeBrand(client, product.id), `Removed the brand “${product.brand}”.`)
          }
        >
          Remove brand{product.brand ? ` “${product.brand}”` : ''}
        </button>
      </div>
      <h2 ref={mediaHeading} tabIndex={-1}>
        Media
      </h2>
      <ul className="media-list" aria-label="Media">
        {(product.media?.items ?? []).map((m, i) => (
          <li key={m.id}>
            {m.image ? (
              <img src={m.image.url} alt={m.image.altText ?? ''} width={64} height={64} />
            ) : (
              // Its button says the name too: heard once.
              <span className="muted" aria-hidden="true">
                {imageName(m, i)}
              </span>
            )}
            <button
              type="button"
              className="link-button danger"
              {...unavailable(busy)}
              onClick={() =>
                // Its item goes (with no answer it may go too): focus goes to the section's
                // heading, not to the page.
                run(
                  () => products.removeProductMedia(client, product.id, [m.id!]),
                  `Removed ${imageName(m, i)}.`,
                  {
                    saved: () => mediaHeading.current?.focus(),
                    failed: (e) => unanswered(e) && mediaHeading.current?.focus(),
                  },
                )
              }
            >
              Remove
              <span className="visually-hidden"> {imageName(m, i)}</span>
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={addMedia} className="row" ref={mediaForm}>
        <div className="field grow">
          <label htmlFor={`${id}-url`}>Image URL</label>
          <input name="url" type="url" required {...badAt(`${id}-url`)} />
          {fieldError(`${id}-url`)}
        </div>
        <button type="submit" className="button" {...unavailable(busy)}>
          Add image
        </button>
      </form>
      <h2>Stock</h2>
      <form onSubmit={saveStock} ref={stockForm} aria-label="Stock">
        <div className="field checkbox">
          {/* Keyed by what is stored: a save or a change elsewhere shows it again. */}
          <input
            key={String(tracked)}
            id={`${id}-track`}
            name="track"
            type="checkbox"
            defaultChecked={tracked}
            onChange={(e) => {
              setTrack(e.target.checked);
              setBad(null);
            }}
          />
          <label htmlFor={`${id}-track`}>Count the units in stock</label>
        </div>
        {track ? (
          <div className="field">
            <label htmlFor={`${id}-quantity`}>
              {hasOptions ? 'Quantity of each variant' : 'Quantity in stock'}
            </label>
            {/* Not keyed by the quantity: a stored one read again shows unless one is typed (which
                stays, for a second save). */}
            <input
              key={String(tracked)}
              {...badAt(`${id}-quantity`)}
              name="quantity"
              type="number"
              step="1"
              min="0"
              defaultValue={!hasOptions && tracked ? (product.stock?.quantity ?? 0) : ''}
              aria-describedby={
                [bad?.at === `${id}-quantity` && `${id}-quantity-error`, hasOptions && `${id}-quantity-help`]
                  .filter(Boolean)
                  .join(' ') || undefined
              }
            />
            {fieldError(`${id}-quantity`)}
            {hasOptions && (
              <p id={`${id}-quantity-help`} className="muted">
                Gives every variant this quantity;{' '}
                {tracked ? 'left empty, each keeps its own' : 'required to start counting'} (see Variants).
              </p>
            )}
          </div>
        ) : (
          <div className="field">
            <label htmlFor={`${id}-inStock`}>Availability</label>
            <select
              key={`${tracked}-${availability}`}
              id={`${id}-inStock`}
              name="inStock"
              defaultValue={availability}
            >
              <option value="in">{hasOptions ? 'Every variant in stock' : 'In stock'}</option>
              <option value="out">{hasOptions ? 'Every variant sold out' : 'Sold out'}</option>
              {availability === 'some' && <option value="some">Some variants sold out (as now)</option>}
            </select>
          </div>
        )}
        <button type="submit" className="button" {...unavailable(busy)}>
          Save stock
        </button>
      </form>
      {optionsGone && (
        <p ref={goneNote} tabIndex={-1} className="notice">
          All options removed: the product has a single variant.
        </p>
      )}
      {hasOptions && (
        <>
          <h2 id={`${id}-variants`}>Variants</h2>
          <div className="table-wrap">
            {/* Named: a screen reader's list of tables said only "table" for it. */}
            <table className="table" ref={variantTable} aria-labelledby={`${id}-variants`}>
              <thead>
                <tr>
                  <th scope="col">Variant</th>
                  <th scope="col">Price</th>
                  <th scope="col">Stock</th>
                </tr>
              </thead>
              <tbody>
                {variants.map((v) => {
                  const name = variantName(v);
                  const price = v.variant?.priceData?.price;
                  return (
                    <tr key={v.id}>
                      <th scope="row">{name}</th>
                      <td>
                        <form className="inline" onSubmit={(e) => setVariantPrice(e, v.id, name, price)}>
                          <label className="visually-hidden" htmlFor={`${id}-${v.id}`}>
                            Price of {name}
                          </label>
                          {/* Keyed by the stored price: a reset or a change shows the new value. Only
                              the input: the button pressed stays, with the focus. */}
                          <input
                            key={price}
                            {...badAt(`${id}-${v.id}`)}
                            name="price"
                            type="number"
                            step="0.01"
                            min="0"
                            required
                            defaultValue={price ?? ''}
                          />
                          <button type="submit" className="button small" {...unavailable(busy)}>
                            Set<span className="visually-hidden"> price of {name}</span>
                          </button>
                        </form>
                        {fieldError(`${id}-${v.id}`)}
                      </td>
                      <td>
                        {v.stock?.trackQuantity ? (v.stock.quantity ?? 0) : v.stock?.inStock ? 'Yes' : 'No'}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <div className="row">
            <button
              type="button"
              className="button"
              {...unavailable(busy)}
              onClick={() =>
                !busy &&
                confirm(
                  `Reset every variant of “${product.name}” to the product’s price, cost, weight and SKU? ` +
                    'The variants’ own prices and other values are lost.',
                ) &&
                run(
                  () => products.resetAllProductVariantData(client, product.id),
                  'Reset every variant to the product’s price, cost, weight and SKU.',
                )
              }
            >
              Reset variant prices
            </button>
            <button
              type="button"
              className="button danger"
              {...unavailable(busy)}
              onClick={() =>
                !busy &&
                confirm(removeOptionsQuestion(product)) &&
                run(() => products.deleteProductOptions(client, product.id), 'Removed all options.')
              }
            >
              Remove all options
            </button>
          </div>
        </>
      )}
      <p className="muted">
        Price in the shop: {money(product.priceData?.discountedPrice ?? product.priceData?.price)}
      </p>
    </div>
  );
}
