import { collections, type Product, products, ValidationError } from '@shopkit/sdk';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { Link, useLocation, useNavigationType, useSearchParams } from 'react-router';
import { ErrorState, Skeleton } from '../components/States.tsx';
import { isRefusal } from '../errors.ts';
import { count } from '../format.ts';
import { pager } from '../pager.ts';
import { useTitle } from '../title.ts';
import {
  allOf,
  consoleTitle,
  typedIn,
  unavailable,
  useMerchant,
  useOnMove,
  useRefresh,
  useUnsaved,
  useWrite,
} from './context.ts';
import { platformWords } from './draft.ts';
import { PAGE_MAX, useAllProducts } from './Products.tsx';
import { COLLECTIONS_NOT_RELOADED, gone, goneWords, MAYBE_MADE, unanswered } from './saving.ts';

/** A value with something other than spaces in it (`required` lets only spaces through). */
const NAMED = '.*\\S.*';

type Collection = collections.Collection;

/**
 * The collection every product is in: the emulator adds each new product to it and refuses to
 * take one out (the platform's own rule for it is not documented), so the console offers neither.
 */
const ALL_PRODUCTS = 'col-all-products';

/** A collection's products shown at once. */
const PAGE = 10;

/**
 * The collections whose products are shown, each with its page, in the URL (`?open=col-1&open=col-2@3`):
 * Back from a product opened from a collection (the browser's or the editor's link) shows them again.
 */
function openIn(params: URLSearchParams) {
  const open: Record<string, number> = {};
  for (const v of params.getAll('open')) {
    const at = v.lastIndexOf('@');
    const page = at < 0 ? 1 : Math.floor(Number(v.slice(at + 1)));
    open[at < 0 ? v : v.slice(0, at)] = Number.isSafeInteger(page) && page > 1 ? page : 1;
  }
  return open;
}

const openSearch = (open: Record<string, number>) => {
  const params = new URLSearchParams();
  for (const [c, page] of Object.entries(open)) params.append('open', page > 1 ? `${c}@${page}` : c);
  const s = params.toString();
  return s ? `?${s}` : '';
};

/**
 * The navigation state of a product's editor opened from a collection's products: the editor's
 * link back names the collection (`name`) and goes to the collections as they were left (`back`).
 */
export type FromCollection = { collection: { name: string; back: string } };

/**
 * The collection and product whose editor was last opened from a collection's products: on Back
 * (the browser's or the editor's link) that product's link takes the focus again.
 */
let opened: { collection: string; product: string } | undefined;

/**
 * The platform's refusal of a collection's fields, as sentences by the id of the form's field
 * (`fields` maps `collection.name` to it), or `undefined` for any other failure: then the panel's
 * alert says it as a whole.
 */
function refusal(error: unknown, fields: Record<string, string>) {
  if (!(error instanceof ValidationError) || !error.violations.length) return undefined;
  const found: Record<string, string> = {};
  for (const v of error.violations) {
    const at = fields[v.field];
    if (!at) return undefined;
    const said = `${v.description.charAt(0).toUpperCase()}${v.description.slice(1)}.`;
    found[at] = found[at] ? `${found[at]} ${said}` : said;
  }
  return found;
}

/**
 * A form whose write is stored but could not be read back: what it holds is what is stored, so it
 * is no longer an unsaved edit (leaving the page does not ask about it).
 */
/**
 * A collection's field (`field`: the form's field id) edited here and changed elsewhere since the
 * page read it (another tab, another merchant), to `now`: not replaced unseen.
 */
class ChangedElsewhere extends Error {
  constructor(
    readonly field: string,
    readonly now: string,
  ) {
    super('Changed elsewhere since the page read it.');
  }
  get words() {
    const now =
      this.now === '' ? ': it is now empty' : this.now.length <= 80 ? `: it is now “${this.now}”` : '';
    return `Changed elsewhere (another tab or person) since this page read it${now}. Not saved; save again to replace it with yours.`;
  }
}

/** A collection's field as the page read it (`was`) and as a write sends it (`sent`). */
interface Edit {
  /** Reads the collection as stored now. */
  read: () => Promise<Collection>;
  key: 'name' | 'description';
  was: string;
  sent: string;
  /** The form's field (its id). */
  field: string;
}

/**
 * `update`, unless the collection's `key` was changed elsewhere since the page read it to another
 * value than the one sent: then `ChangedElsewhere`. When the collection cannot be read now
 * (offline, a 5xx, deleted), the update goes ahead as before.
 */
async function unlessChanged({ read, key, was, sent, field }: Edit, update: () => Promise<unknown>) {
  const now = await read().then(
    (c) => c[key] ?? '',
    () => undefined,
  );
  if (now !== undefined && now !== was && now !== sent) throw new ChangedElsewhere(field, now);
  return update();
}

function storedAsTyped(form: HTMLFormElement) {
  for (const el of form.querySelectorAll('input, textarea'))
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) el.defaultValue = el.value;
}

/** What a collections write does besides saying what it did (`write`'s options). */
interface WriteOptions {
  /** Runs once it is stored and the console read again (`reloaded`: whether that read came back). */
  saved?: (reloaded: boolean) => void;
  /**
   * The form's fields whose refusal is said next to them, the focus on the first, by the
   * platform's name of each (`collection.description` → the field's id); the panel's alert still
   * says that the change was not saved.
   */
  fields?: Record<string, string>;
  /** Runs when no answer came: the write may be stored, and the console reads it again. */
  lost?: () => void;
  /** The form whose values the write sends: while it is on its way, leaving does not ask about them. */
  form?: HTMLFormElement;
}

export function Collections() {
  useTitle(consoleTitle('Collections'));
  const client = useMerchant();
  const id = useId();
  const list = useQuery({
    queryKey: ['merchant', 'collections'],
    queryFn: () => allOf(collections.queryCollections(client).limit(PAGE_MAX)),
  });
  const all = useAllProducts();
  const act = useWrite((f: () => Promise<unknown>) => f());
  const heading = useRef<HTMLHeadingElement>(null);
  const newForm = useRef<HTMLFormElement>(null);
  // The form whose write is on its way: what it holds is being saved, not something leaving loses.
  const sending = useRef<HTMLFormElement | null>(null);
  useUnsaved(() => typedIn(newForm.current, sending.current) && 'the new collection');
  // A collection's forms (name, description, product to add) typed in and not saved.
  useUnsaved(() => {
    const typed = list.data?.filter((c) =>
      typedIn(document.getElementById(`${id}-${c.id}-item`), sending.current),
    );
    return !!typed?.length && `your changes to ${typed.map((c) => `“${c.name}”`).join(', ')}`;
  });
  const busy = act.isPending;
  // What the last write did, for the status line (a screen reader hears it too).
  const [done, setDone] = useState('');
  useOnMove(() => setDone(''));
  // The last write is stored but reading the console back after it failed (offline, a 5xx): said
  // as done, with "Load it again", never as failed (which would invite a second create).
  const [unread, setUnread] = useState(false);
  const refresh = useRefresh();
  const [reloading, setReloading] = useState(false);
  const reload = async () => {
    if (reloading) return;
    setReloading(true);
    const ok = await refresh();
    setReloading(false);
    if (!ok) return;
    setUnread(false);
    // The button goes: the focus goes to the list's heading, not to the page.
    heading.current?.focus();
  };
  // The collections whose products are shown, and the page of each.
  const [params, setParams] = useSearchParams();
  const open = openIn(params);
  const setOpen = (next: Record<string, number>) =>
    setParams(new URLSearchParams(openSearch(next)), { replace: true });
  // Refused fields: the id of each (`${id}-name`, `${id}-${collection id}`, …) and why. One form's
  // refusal leaves another's: its field still holds what was not saved.
  const [refused, setRefused] = useState<Record<string, string>>({});
  /**
   * Starts the write `f`; once it is saved and the console refreshed, says `said` and runs `saved`.
   * @example write(() => products.deleteCollection(client, c.id), `Deleted ${c.name}.`, { saved: focusList })
   */
  const write = (
    f: () => Promise<unknown>,
    said: string,
    { saved, fields, lost, form }: WriteOptions = {},
  ) => {
    if (busy) return;
    setDone('');
    setUnread(false);
    // What was said beside the form's fields (refused, changed elsewhere) is about the send before:
    // a second save that is stored said "Not saved" there still. Said again if refused again.
    if (form)
      setRefused((r) =>
        Object.fromEntries(Object.entries(r).filter(([at]) => !form.contains(document.getElementById(at)))),
      );
    sending.current = form ?? null;
    act.run(
      f,
      (_, reloaded) => {
        sending.current = null;
        setDone(said);
        setUnread(!reloaded);
        saved?.(reloaded);
      },
      (err) => {
        sending.current = null;
        if (err instanceof ChangedElsewhere) {
          // Said next to the field; the list is read again, so a second save replaces what is
          // stored now with what the merchant typed, knowingly.
          act.reset();
          setRefused((r) => ({ ...r, [err.field]: err.words }));
          document.getElementById(err.field)?.focus();
          void refresh();
          return;
        }
        if (unanswered(err)) return lost?.();
        // A refusal may come of a list older than the store (a product deleted elsewhere, still
        // offered): read them again, so that what is offered next is what is there.
        if (isRefusal(err)) void refresh();
        // Deleted elsewhere: its row goes with the list read again, the focus to the list's heading.
        if (gone(err)) return heading.current?.focus();
        const found = fields && refusal(err, fields);
        if (!found) return;
        setRefused((r) => ({ ...r, ...found }));
        const first = Object.values(fields).find((k) => found[k]);
        if (first) document.getElementById(first)?.focus();
      },
    );
  };
  const checked = (field: string) => {
    const text = refused[field];
    return {
      id: field,
      'aria-invalid': text ? true : undefined,
      'aria-describedby': text ? `${field}-error` : undefined,
      onChange: () => text && setRefused(({ [field]: _, ...rest }) => rest),
    } as const;
  };
  const fieldError = (field: string) =>
    refused[field] && (
      <p id={`${field}-error`} className="field-error">
        {refused[field]}
      </p>
    );
  /**
   * Refuses, beside the field `field`, a name another collection has (in any case): the platform
   * takes it, and the two were then told apart nowhere (their fields, buttons and the shop's
   * links all said the same name). True when refused.
   */
  const taken = (name: string, field: string, self?: string) => {
    const other = list.data?.find((o) => o.id !== self && o.name.toLowerCase() === name.toLowerCase());
    if (!other) return false;
    setRefused((r) => ({
      ...r,
      [field]: `Another collection is named “${other.name}”: give this one a name of its own.`,
    }));
    document.getElementById(field)?.focus();
    return true;
  };
  const create = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const name = String(f.get('name') ?? '').trim();
    const description = String(f.get('description') ?? '').trim();
    if (busy || taken(name, `${id}-name`)) return;
    // Cleared only once it is created: a refused name or description stays for correcting.
    write(
      () => products.createCollection(client, { name, ...(description ? { description } : {}) }),
      `Created ${name}.`,
      {
        saved: () => form.reset(),
        fields: { 'collection.name': `${id}-name`, 'collection.description': `${id}-desc` },
        // It may be created: the list read again shows it (a second press would make a second
        // one), so what was typed is no longer something leaving would lose.
        lost: () => form.reset(),
        form,
      },
    );
  };
  const rename = (e: FormEvent<HTMLFormElement>, c: Collection) => {
    e.preventDefault();
    const form = e.currentTarget;
    const name = String(new FormData(form).get('name') ?? '').trim();
    if (busy || taken(name, `${id}-${c.id}`, c.id)) return;
    const read = () => collections.getCollection(client, c.id);
    const update = () => products.updateCollection(client, c.id, { name });
    write(
      () => unlessChanged({ read, key: 'name', was: c.name, sent: name, field: `${id}-${c.id}` }, update),
      `Renamed ${c.name} to ${name}.`,
      {
        saved: (reloaded) => reloaded || storedAsTyped(form),
        fields: { 'collection.name': `${id}-${c.id}` },
        form,
      },
    );
  };
  const describe = (e: FormEvent<HTMLFormElement>, c: Collection) => {
    e.preventDefault();
    const form = e.currentTarget;
    // An empty description is sent as such: the emulator clears it (the platform's way is UNCONFIRMED).
    const description = String(new FormData(form).get('description') ?? '').trim();
    const read = () => collections.getCollection(client, c.id);
    const update = () => products.updateCollection(client, c.id, { description });
    write(
      () =>
        unlessChanged(
          { read, key: 'description', was: c.description ?? '', sent: description, field: `${id}-${c.id}-d` },
          update,
        ),
      `Saved the description of ${c.name}.`,
      {
        saved: (reloaded) => reloaded || storedAsTyped(form),
        fields: { 'collection.description': `${id}-${c.id}-d` },
        form,
      },
    );
  };
  const addProduct = (e: FormEvent<HTMLFormElement>, c: Collection) => {
    e.preventDefault();
    const form = e.currentTarget;
    const pid = String(new FormData(form).get('product') ?? '');
    const name = all.data?.find((p) => p.id === pid)?.name;
    // Back to "Choose a product": the product added is no longer a choice. So with no answer: it
    // may be added, and once it is no longer offered the browser would choose another product.
    if (pid)
      write(() => products.addProductsToCollection(client, c.id, [pid]), `Added ${name} to ${c.name}.`, {
        saved: () => form.reset(),
        lost: () => form.reset(),
        form,
      });
  };
  const remove = (c: Collection, p: Product, saved: () => void) =>
    write(
      () => products.removeProductsFromCollection(client, c.id, [p.id]),
      `Removed ${p.name} from ${c.name}.`,
      { saved },
    );
  if (list.isPending) return <Skeleton lines={6} label="Loading collections" />;
  // Only when there is no list to show: a list read again that failed keeps the last one shown,
  // and says so below.
  if (!list.data) return <ErrorState error={list.error!} retry={() => list.refetch()} />;
  const stale = unread || !!list.error;
  return (
    <div className="editor">
      <form onSubmit={create} className="panel" aria-labelledby={`${id}-new`} ref={newForm}>
        <h2 id={`${id}-new`}>New collection</h2>
        <div className="field">
          <label htmlFor={`${id}-name`}>Name</label>
          {/* Only spaces is no name: the browser refuses it before anything is sent. */}
          <input
            name="name"
            required
            pattern={NAMED}
            title="A name that is not only spaces"
            {...checked(`${id}-name`)}
          />
          {fieldError(`${id}-name`)}
        </div>
        <div className="field">
          <label htmlFor={`${id}-desc`}>Description</label>
          <input name="description" {...checked(`${id}-desc`)} />
          {fieldError(`${id}-desc`)}
        </div>
        <button type="submit" className="button button-primary" {...unavailable(busy)}>
          Create collection
        </button>
      </form>
      <div className="panel">
        {act.error &&
          (unanswered(act.error) ? (
            <p className="notice notice-error" role="alert">
              {MAYBE_MADE}
            </p>
          ) : gone(act.error) ? (
            // The list is read again after it (a refusal): the collection goes from it.
            <p className="notice notice-error" role="alert">
              {goneWords('that collection')}
            </p>
          ) : platformWords(act.error) && !Object.keys(refused).length ? (
            // A refusal no field of the form shows: in the platform's own words (not "check the details").
            <p className="notice notice-error" role="alert">
              <strong>The change was not saved.</strong> The platform refused it: “{platformWords(act.error)}
              ”.
            </p>
          ) : (
            <ErrorState error={act.error} title="The change was not saved" />
          ))}
        <h2 ref={heading} tabIndex={-1}>
          Collections
        </h2>
        <div role="status">
          <p className="muted">
            {done}
            {stale && `${done ? ' ' : ''}${COLLECTIONS_NOT_RELOADED}`}
          </p>
        </div>
        {stale && (
          <button type="button" className="button small" {...unavailable(reloading)} onClick={reload}>
            Load it again
          </button>
        )}
        <ul className="collection-admin">
          {list.data.map((c) => (
            <li key={c.id} id={`${id}-${c.id}-item`}>
              <form className="row" onSubmit={(e) => rename(e, c)}>
                <div className="field grow">
                  <label htmlFor={`${id}-${c.id}`}>Name of {c.name}</label>
                  <input
                    name="name"
                    defaultValue={c.name}
                    required
                    pattern={NAMED}
                    title="A name that is not only spaces"
                    {...checked(`${id}-${c.id}`)}
                  />
                  {fieldError(`${id}-${c.id}`)}
                </div>
                <button type="submit" className="button small" {...unavailable(busy)}>
                  Rename<span className="visually-hidden"> {c.name}</span>
                </button>
                <button
                  type="button"
                  className="button small danger"
                  disabled={c.id === ALL_PRODUCTS}
                  {...unavailable(busy)}
                  onClick={() =>
                    !busy &&
                    confirm(`Delete the collection “${c.name}”?`) &&
                    // Its row goes (with no answer it may go too): focus goes to the list's
                    // heading, not to the page.
                    write(() => products.deleteCollection(client, c.id), `Deleted ${c.name}.`, {
                      saved: () => heading.current?.focus(),
                      lost: () => heading.current?.focus(),
                    })
                  }
                >
                  Delete<span className="visually-hidden"> {c.name}</span>
                </button>
              </form>
              <form className="row" onSubmit={(e) => describe(e, c)}>
                <div className="field grow">
                  <label htmlFor={`${id}-${c.id}-d`}>Description of {c.name}</label>
                  <textarea
                    name="description"
                    defaultValue={c.description ?? ''}
                    {...checked(`${id}-${c.id}-d`)}
                  />
                  {fieldError(`${id}-${c.id}-d`)}
                </div>
                <button type="submit" className="button small" {...unavailable(busy)}>
                  Save<span className="visually-hidden"> the</span> description
                  <span className="visually-hidden"> of {c.name}</span>
                </button>
              </form>
              <p className="muted">
                {count(c.numberOfProducts ?? 0, 'product')}
                {c.visible === false && ' · hidden from the shop'}{' '}
                <button
                  type="button"
                  className="link-button"
                  aria-expanded={!!open[c.id]}
                  onClick={() => {
                    const { [c.id]: shown, ...others } = open;
                    setOpen(shown ? others : { ...open, [c.id]: 1 });
                  }}
                >
                  {open[c.id] ? 'Hide' : 'Show'} products<span className="visually-hidden"> in {c.name}</span>
                </button>
              </p>
              {open[c.id] && (
                <Members
                  collection={c}
                  busy={busy}
                  remove={c.id === ALL_PRODUCTS ? undefined : remove}
                  page={open[c.id] ?? 1}
                  turn={(page) => setOpen({ ...open, [c.id]: page })}
                  search={openSearch(open)}
                />
              )}
              {c.id === ALL_PRODUCTS ? (
                <p className="hint">
                  Every product is in All Products: a new product joins it, and leaves it only when deleted.
                </p>
              ) : (
                <form className="row" onSubmit={(e) => addProduct(e, c)}>
                  <div className="field grow">
                    <label htmlFor={`${id}-${c.id}-p`}>Add a product to {c.name}</label>
                    {/* Required: "Add" with no product chosen did nothing and said nothing. */}
                    <select id={`${id}-${c.id}-p`} name="product" defaultValue="" required>
                      <option value="" disabled>
                        Choose a product
                      </option>
                      {/* Only products not in it yet: adding one again would do nothing. */}
                      {all.data
                        ?.filter((p) => !p.collectionIds?.includes(c.id))
                        .map((p) => (
                          <option key={p.id} value={p.id}>
                            {p.name}
                            {p.visible ? '' : ' (hidden)'}
                          </option>
                        ))}
                    </select>
                  </div>
                  <button type="submit" className="button small" {...unavailable(busy)}>
                    Add<span className="visually-hidden"> to {c.name}</span>
                  </button>
                </form>
              )}
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}

/**
 * A collection's products, hidden ones too, by name and a page at a time, each with its Remove
 * button unless `remove` is not given. Once a product is removed the focus goes to the next
 * product's Remove button, or to the list's heading when none follows.
 */
function Members({
  collection: c,
  busy,
  remove,
  page,
  turn: setPage,
  search,
}: {
  collection: Collection;
  busy: boolean;
  remove?: (c: Collection, p: Product, then: () => void) => void;
  /** The page shown, and the way to show another. */
  page: number;
  turn: (page: number) => void;
  /** The collections page's URL search as it is (which collections are shown, at which page). */
  search: string;
}) {
  const client = useMerchant();
  const id = useId();
  const location = useLocation();
  const how = useNavigationType();
  const list = useQuery({
    queryKey: ['merchant', 'collection', c.id, page],
    queryFn: () =>
      products.queryProducts(
        client,
        {
          filter: { collectionIds: { $hasSome: [c.id] } },
          sort: [{ fieldName: 'name', order: 'ASC' }],
          paging: { limit: PAGE, offset: (page - 1) * PAGE },
        },
        { includeHiddenProducts: true },
      ),
    placeholderData: keepPreviousData,
  });
  const heading = useRef<HTMLHeadingElement>(null);
  // The product just removed and its place on the page: the focus goes there once it has gone.
  const [removed, setRemoved] = useState<{ id: string; at: number } | null>(null);
  const shown = list.data?.products;
  useEffect(() => {
    // Removed, but its list could not be read again: the button pressed has gone with the list.
    if (removed && list.error) {
      setRemoved(null);
      heading.current?.focus();
      return;
    }
    if (!removed || !shown || list.isPlaceholderData || shown.some((p) => p.id === removed.id)) return;
    setRemoved(null);
    // The last product of a page past the first: that page is no more, show the one before.
    if (!shown.length && page > 1) setPage(page - 1);
    const next = shown[removed.at];
    (next ? document.getElementById(`${id}-${next.id}`) : heading.current)?.focus();
  }, [removed, shown, list.isPlaceholderData, list.error, page, id, setPage]);
  useEffect(() => {
    // Back from a product opened here (the browser's Back or the editor's link): its link takes
    // the focus again.
    if (!shown || list.isPlaceholderData || opened?.collection !== c.id) return;
    const back = how === 'POP' || (location.state as { back?: boolean } | null)?.back;
    const link = back && document.getElementById(`${id}-${opened.product}-link`);
    opened = undefined;
    if (link) link.focus();
  }, [shown, list.isPlaceholderData, c.id, how, location.state, id]);
  const paged = pager(list.data?.metadata, page, PAGE, shown?.length ?? 0);
  const turn = (to: number) => () => {
    if (to >= 1 && (to < page || paged.hasNext)) setPage(to);
  };
  return (
    <section aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`} ref={heading} tabIndex={-1}>
        Products in {c.name}
      </h3>
      {list.error ? (
        <ErrorState
          error={list.error}
          retry={() => list.refetch()}
          title={`The products in ${c.name} could not be loaded`}
        />
      ) : !shown ? (
        <Skeleton lines={3} label={`Loading the products in ${c.name}`} />
      ) : (
        <>
          <p className="muted">{paged.label}</p>
          {shown.length ? (
            <ul className="collection-admin" aria-labelledby={`${id}-h`}>
              {shown.map((p, at) => (
                <li key={p.id} className="row">
                  <span>
                    <Link
                      to={`/merchant/products/${p.id}`}
                      id={`${id}-${p.id}-link`}
                      state={
                        {
                          collection: { name: c.name, back: `/merchant/collections${search}` },
                        } satisfies FromCollection
                      }
                      onClick={() => {
                        opened = { collection: c.id, product: p.id };
                      }}
                    >
                      {p.name}
                    </Link>
                    {p.visible ? '' : ' (hidden)'}
                  </span>
                  {remove && (
                    <button
                      type="button"
                      id={`${id}-${p.id}`}
                      className="button small danger"
                      {...unavailable(busy)}
                      // No question first: adding it back undoes it.
                      onClick={() => remove(c, p, () => setRemoved({ id: p.id, at }))}
                    >
                      Remove
                      <span className="visually-hidden">
                        {' '}
                        {p.name} from {c.name}
                      </span>
                    </button>
                  )}
                </li>
              ))}
            </ul>
          ) : (
            <p>No products in this collection.</p>
          )}
          {(page > 1 || paged.hasNext) && (
            <nav className="pager" aria-label={`Pages of ${c.name}`}>
              <button
                type="button"
                className="button small"
                {...unavailable(page <= 1)}
                onClick={turn(page - 1)}
              >
                Previous
              </button>
              <span aria-current="page">
                Page {page}
                {paged.pages ? ` of ${paged.pages}` : ''}
              </span>
              <button
                type="button"
                className="button small"
                {...unavailable(!paged.hasNext)}
                onClick={turn(page + 1)}
              >
                Next
              </button>
            </nav>
          )}
        </>
      )}
    </section>
  );
}
