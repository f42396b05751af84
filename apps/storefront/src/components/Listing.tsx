import { useProducts, useShopkit } from '@shopkit/react';
import { type PlatformQuery, products } from '@shopkit/sdk';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { pager } from '../pager.ts';
import { ProductCard } from './ProductCard.tsx';
import { Empty, ErrorState, GridSkeleton } from './States.tsx';

const PAGE = 8;

/**
 * Newest first. The product query cannot sort by `createdDate`; `numericId` is given to products
 * in the order they are created (and, unlike `lastUpdated`, does not change with an edit).
 */
export const NEWEST_FIRST: PlatformQuery['sort'] = [{ fieldName: 'numericId', order: 'DESC' }];

// Price sorts and the price filter use the list price: the product query cannot sort or filter by
// the discounted price, so a product on sale sorts and filters by its price before the discount.
const SORTS: Record<string, { label: string; sort?: PlatformQuery['sort'] }> = {
  featured: { label: 'Featured' },
  'price-asc': { label: 'Price, low to high', sort: [{ fieldName: 'price', order: 'ASC' }] },
  'price-desc': { label: 'Price, high to low', sort: [{ fieldName: 'price', order: 'DESC' }] },
  name: { label: 'Name, A to Z', sort: [{ fieldName: 'name', order: 'ASC' }] },
  newest: { label: 'Newest', sort: NEWEST_FIRST },
};

/** The listing's query string on another page (page 1 is the address without `page`). */
function pageSearch(params: URLSearchParams, page: number) {
  const next = new URLSearchParams(params);
  if (page > 1) next.set('page', String(page));
  else next.delete('page');
  return `?${next}`;
}

/** Ids of products with at least one variant in stock (store variants, cursor paged). */
function useInStockIds(enabled: boolean) {
  const client = useShopkit();
  return useQuery({
    queryKey: ['shopkit', 'in-stock-product-ids'],
    enabled,
    queryFn: async () => {
      const ids = new Set<string>();
      let cursor: string | undefined;
      do {
        const r = await products.queryStoreVariants(client, {
          filter: { 'stock.inStock': { $eq: true } },
          cursorPaging: { limit: 100, ...(cursor ? { cursor } : {}) },
        });
        for (const v of r.variants) ids.add(v.productId);
        cursor = r.metadata.cursors?.next ?? undefined;
      } while (cursor);
      return [...ids];
    },
  });
}

/** The product listing: sort, price range, in-stock filter and paging, all kept in the URL. */
export function Listing({ collectionId, label }: { collectionId?: string; label: string }) {
  const [params, setParams] = useSearchParams();
  const sort = SORTS[params.get('sort') ?? ''] ? params.get('sort')! : 'featured';
  const min = params.get('min') ?? '';
  const max = params.get('max') ?? '';
  const inStock = params.get('stock') === 'in';
  // The box answers at once; the URL (applied by the router in a transition) follows.
  const [stockChecked, setStockChecked] = useState(inStock);
  useEffect(() => setStockChecked(inStock), [inStock]);
  // A whole page number: `?page=1.5` (hand-edited or shared) is page 1, not an offset of 4.
  const asked = Math.floor(Number(params.get('page')));
  const page = Number.isSafeInteger(asked) && asked > 1 ? asked : 1;
  const stockIds = useInStockIds(inStock);
  const filter: Record<string, unknown>[] = [];
  if (collectionId) filter.push({ collectionIds: { $hasSome: [collectionId] } });
  if (min !== '' && Number.isFinite(Number(min))) filter.push({ price: { $gte: Number(min) } });
  if (max !== '' && Number.isFinite(Number(max))) filter.push({ price: { $lte: Number(max) } });
  if (inStock) filter.push({ id: { $in: stockIds.data ?? [] } });
  // A filter the shopper set (a sort is not one): an empty answer is then the filters'.
  const filtered = filter.length > (collectionId ? 1 : 0);
  const query: PlatformQuery = {
    ...(filter.length ? { filter: filter.length === 1 ? filter[0] : { $and: filter } } : {}),
    ...(SORTS[sort]!.sort ? { sort: SORTS[sort]!.sort } : {}),
    paging: { limit: PAGE, offset: (page - 1) * PAGE },
  };
  const ready = !inStock || stockIds.isSuccess;
  // Not asked before the in-stock ids are known: an `$in: []` query would answer "0 products",
  // which would then stay shown ("No products match") while the real query loads.
  const list = useProducts(query, { enabled: ready });
  const id = useId();

  const update = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) v ? next.set(k, v) : next.delete(k);
    if (!('page' in changes)) next.delete('page');
    setParams(next);
  };
  // The price form is made anew for every range in the URL (its boxes show the URL's): the box or
  // button it was sent from went with the old one, and focus fell to the page's body. It goes to
  // the same one in the new form.
  const priceForm = useRef<HTMLFormElement>(null);
  const sentFrom = useRef<string>(undefined);
  const applyPrice = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const active = document.activeElement;
    sentFrom.current = active instanceof HTMLInputElement ? active.name : 'apply';
    update({ min: String(f.get('min') ?? ''), max: String(f.get('max') ?? '') });
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once the new range's form is made
  useEffect(() => {
    const name = sentFrom.current;
    sentFrom.current = undefined;
    if (!name || (document.activeElement && document.activeElement !== document.body)) return;
    const f = priceForm.current;
    (name === 'apply'
      ? f?.querySelector('button')
      : f?.querySelector<HTMLElement>(`[name="${name}"]`)
    )?.focus();
  }, [min, max]);

  // The pager, and the buttons and links in place of a list, go with the list while the next one
  // loads: focus goes to the results (the start of what comes next), not to the page's body.
  const results = useRef<HTMLElement>(null);
  const focusResults = () => results.current?.focus();

  const stale = list.isPlaceholderData;
  const shown = pager(list.data?.metadata, page, PAGE, list.data?.products.length ?? 0);
  // The page to offer past the end: the last, or the first when the platform did not count them all.
  const pages = shown.pages ?? 1;
  return (
    <div className="listing">
      <aside className="filters" aria-label="Filters">
        <div className="field">
          <label htmlFor={`${id}-sort`}>Sort by</label>
          <select id={`${id}-sort`} value={sort} onChange={(e) => update({ sort: e.target.value })}>
            {Object.entries(SORTS).map(([k, s]) => (
              <option key={k} value={k}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
        {/* In dollars and cents (`step`): the browser took whole numbers only, refusing 19.60. */}
        <form ref={priceForm} onSubmit={applyPrice} className="price-filter" key={`${min}-${max}`}>
          <fieldset>
            <legend>Price (USD)</legend>
            <div className="row">
              <div className="field">
                <label htmlFor={`${id}-min`}>Min</label>
                <input
                  id={`${id}-min`}
                  name="min"
                  type="number"
                  min="0"
                  step="0.01"
                  inputMode="decimal"
                  defaultValue={min}
                />
              </div>
              <div className="field">
                <label htmlFor={`${id}-max`}>Max</label>
                <input
                  id={`${id}-max`}
                  name="max"
                  type="number"
                  min="0"
                  step="0.01"
                  inputMode="decimal"
                  defaultValue={max}
                />
              </div>
            </div>
            <button type="submit" className="button">
              Apply price
            </button>
          </fieldset>
        </form>
        <div className="field checkbox">
          <input
            id={`${id}-stock`}
            type="checkbox"
            checked={stockChecked}
            onChange={(e) => {
              setStockChecked(e.target.checked);
              update({ stock: e.target.checked ? 'in' : null });
            }}
          />
          <label htmlFor={`${id}-stock`}>In stock only</label>
        </div>
      </aside>
      <section
        ref={results}
        tabIndex={-1}
        className="results"
        aria-label={label}
        aria-busy={list.isFetching || !ready}
      >
        {/* The products' names are `h3`s (as under the home page's sections): without a heading of
            the level between, they came right under the page's `h1`. */}
        <h2 className="visually-hidden">Products</h2>
        {stockIds.error && <ErrorState error={stockIds.error} retry={() => stockIds.refetch()} />}
        {list.error && <ErrorState error={list.error} retry={() => list.refetch()} />}
        {(list.isPending || !ready) && !list.error && !stockIds.error && <GridSkeleton count={PAGE} />}
        {list.data && ready && (
          <>
            {/* While another page or filter's products load, the last ones stay on screen (the
                query keeps them): said, and shown faded, not as the page asked for ("Page 2"
                above page 1's products, the count of the filters before). */}
            <p className="muted" role="status">
              {stale ? 'Loading products…' : shown.label}
            </p>
            {shown.beyond ? (
              <Empty>
                <p>This page does not exist.</p>
                <Link to={{ search: pageSearch(params, pages) }} className="button" onClick={focusResults}>
                  {pages === 1 ? 'Go to the first page' : `Go to the last page (${pages})`}
                </Link>
              </Empty>
            ) : list.data.products.length === 0 && !filtered ? (
              // Nothing to clear: "No products match these filters" and a "Clear filters" that did nothing.
              <Empty>
                <p>There are no products here yet.</p>
                {collectionId && (
                  <Link to="/products" className="button">
                    Browse all products
                  </Link>
                )}
              </Empty>
            ) : list.data.products.length === 0 ? (
              <Empty>
                <p>No products match these filters.</p>
                <button
                  type="button"
                  className="button"
                  onClick={() => {
                    setParams(new URLSearchParams());
                    focusResults();
                  }}
                >
                  Clear filters
                </button>
              </Empty>
            ) : (
              <ul className={stale ? 'grid updating' : 'grid'} aria-label="Products">
                {list.data.products.map((p) => (
                  <ProductCard key={p.id} product={p} />
                ))}
              </ul>
            )}
            {(page > 1 || shown.hasNext) && !shown.beyond && (
              <nav className="pager" aria-label="Pages">
                <button
                  type="button"
                  className="button"
                  disabled={page <= 1}
                  onClick={() => {
                    update({ page: String(page - 1) });
                    focusResults();
                  }}
                >
                  Previous
                </button>
                <span aria-current="page">
                  Page {page}
                  {shown.pages ? ` of ${shown.pages}` : ''}
                </span>
                <button
                  type="button"
                  className="button"
                  disabled={!shown.hasNext}
                  onClick={() => {
                    update({ page: String(page + 1) });
                    focusResults();
                  }}
                >
                  Next
                </button>
              </nav>
            )}
          </>
        )}
      </section>
    </div>
  );
}
