import { collections, products, ValidationError } from '@shopkit/sdk';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useId, useRef, useState } from 'react';
import { ErrorState, Skeleton } from '../components/States.tsx';
import { count } from '../format.ts';
import { allOf, unavailable, useMerchant, useWrite } from './context.ts';
import { PAGE_MAX, useAllProducts } from './Products.tsx';

/** A value with something other than spaces in it (`required` lets only spaces through). */
const NAMED = '.*\\S.*';

/** The platform's refusal of a collection's name, as a sentence, or `undefined` for any other failure. */
function refusedName(error: unknown) {
  if (!(error instanceof ValidationError)) return undefined;
  const all = error.violations.filter((v) => v.field === 'collection.name');
  if (!all.length || all.length !== error.violations.length) return undefined;
  return all.map((v) => `${v.description[0]!.toUpperCase()}${v.description.slice(1)}.`).join(' ');
}

export function Collections() {
  const client = useMerchant();
  const id = useId();
  const list = useQuery({
    queryKey: ['merchant', 'collections'],
    queryFn: () => allOf(collections.queryCollections(client).limit(PAGE_MAX)),
  });
  const all = useAllProducts();
  const act = useWrite((f: () => Promise<unknown>) => f());
  const heading = useRef<HTMLHeadingElement>(null);
  const busy = act.isPending;
  // A name the platform refused: the id of its field (`${id}-name`, `${id}-${collection id}`) and why.
  const [refused, setRefused] = useState<{ field: string; text: string } | null>(null);
  /**
   * After a failed write of the name in `field`: a refused name is said next to it, with the focus
   * (the panel's alert still says that the change was not saved).
   */
  const nameFailed = (field: string) => (err: Error) => {
    const text = refusedName(err);
    if (!text) return;
    setRefused({ field, text });
    document.getElementById(field)?.focus();
  };
  const named = (field: string) => {
    const text = refused?.field === field ? refused.text : undefined;
    return {
      id: field,
      'aria-invalid': text ? true : undefined,
      'aria-describedby': text ? `${field}-error` : undefined,
      onChange: () => text && setRefused(null),
    } as const;
  };
  const nameError = (field: string) =>
    refused?.field === field && (
      <p id={`${field}-error`} className="field-error">
        {refused.text}
      </p>
    );
  const create = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const name = String(f.get('name') ?? '').trim();
    const description = String(f.get('description') ?? '').trim();
    // Cleared only once it is created: a refused name stays for correcting.
    act.run(
      () => products.createCollection(client, { name, ...(description ? { description } : {}) }),
      () => form.reset(),
      nameFailed(`${id}-name`),
    );
  };
  const rename = (e: FormEvent<HTMLFormElement>, cid: string) => {
    e.preventDefault();
    const name = String(new FormData(e.currentTarget).get('name') ?? '').trim();
    act.run(() => products.updateCollection(client, cid, { name }), undefined, nameFailed(`${id}-${cid}`));
  };
  const addProduct = (e: FormEvent<HTMLFormElement>, cid: string) => {
    e.preventDefault();
    const pid = String(new FormData(e.currentTarget).get('product') ?? '');
    if (pid) act.run(() => products.addProductsToCollection(client, cid, [pid]));
  };
  if (list.isPending) return <Skeleton lines={6} label="Loading collections" />;
  if (list.error) return <ErrorState error={list.error} retry={() => list.refetch()} />;
  return (
    <div className="editor">
      <form onSubmit={create} className="panel" aria-labelledby={`${id}-new`}>
        <h2 id={`${id}-new`}>New collection</h2>
        <div className="field">
          <label htmlFor={`${id}-name`}>Name</label>
          {/* Only spaces is no name: the browser refuses it before anything is sent. */}
          <input
            name="name"
            required
            pattern={NAMED}
            title="A name that is not only spaces"
            {...named(`${id}-name`)}
          />
          {nameError(`${id}-name`)}
        </div>
        <div className="field">
          <label htmlFor={`${id}-desc`}>Description</label>
          <input id={`${id}-desc`} name="description" />
        </div>
        <button type="submit" className="button button-primary" {...unavailable(busy)}>
          Create collection
        </button>
      </form>
      <div className="panel">
        {act.error && <ErrorState error={act.error} title="The change was not saved" />}
        <h2 ref={heading} tabIndex={-1}>
          Collections
        </h2>
        <ul className="collection-admin">
          {list.data.map((c) => (
            <li key={c.id}>
              <form className="row" onSubmit={(e) => rename(e, c.id)}>
                <div className="field grow">
                  <label htmlFor={`${id}-${c.id}`}>Name of {c.name}</label>
                  <input
                    name="name"
                    defaultValue={c.name}
                    required
                    pattern={NAMED}
                    title="A name that is not only spaces"
                    {...named(`${id}-${c.id}`)}
                  />
                  {nameError(`${id}-${c.id}`)}
                </div>
                <button type="submit" className="button small" {...unavailable(busy)}>
                  Rename<span className="visually-hidden"> {c.name}</span>
                </button>
                <button
                  type="button"
                  className="button small danger"
                  disabled={c.id === 'col-all-products'}
                  {...unavailable(busy)}
                  onClick={() =>
                    !busy &&
                    confirm(`Delete the collection “${c.name}”?`) &&
                    // Its row goes: focus goes to the list's heading, not to the page.
                    act.run(
                      () => products.deleteCollection(client, c.id),
                      () => heading.current?.focus(),
                    )
                  }
                >
                  Delete<span className="visually-hidden"> {c.name}</span>
                </button>
              </form>
              <p className="muted">
                {count(c.numberOfProducts ?? 0, 'product')}
                {c.visible === false && ' · hidden from the shop'}
              </p>
              <form className="row" onSubmit={(e) => addProduct(e, c.id)}>
                <div className="field grow">
                  <label htmlFor={`${id}-${c.id}-p`}>Add a product to {c.name}</label>
                  <select id={`${id}-${c.id}-p`} name="product" defaultValue="">
                    <option value="" disabled>
                      Choose a product
                    </option>
                    {all.data?.map((p) => (
                      <option key={p.id} value={p.id}>
                        {p.name}
                        {p.visible ? '' : ' (hidden)'}
                      </option>
                    ))}
                  </select>
                </div>
                <button type="submit" className="button small" {...unavailable(busy)}>
                  Add
                </button>
              </form>
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
