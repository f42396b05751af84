import { collections, products } from '@shopkit/sdk';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useId, useRef } from 'react';
import { ErrorState, Skeleton } from '../components/States.tsx';
import { count } from '../format.ts';
import { allOf, unavailable, useMerchant, useWrite } from './context.ts';
import { PAGE_MAX, useAllProducts } from './Products.tsx';

/** A value with something other than spaces in it (`required` lets only spaces through). */
const NAMED = '.*\\S.*';

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
    );
  };
  const rename = (e: FormEvent<HTMLFormElement>, cid: string) => {
    e.preventDefault();
    const name = String(new FormData(e.currentTarget).get('name') ?? '').trim();
    act.run(() => products.updateCollection(client, cid, { name }));
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
            id={`${id}-name`}
            name="name"
            required
            pattern={NAMED}
            title="A name that is not only spaces"
          />
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
                    id={`${id}-${c.id}`}
                    name="name"
                    defaultValue={c.name}
                    required
                    pattern={NAMED}
                    title="A name that is not only spaces"
                  />
                </div>
                <button type="submit" className="button small" {...unavailable(busy)}>
                  Rename
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
