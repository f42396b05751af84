import { useCollections, useProducts } from '@shopkit/react';
import { Link } from 'react-router';
import { NEWEST_FIRST } from '../components/Listing.tsx';
import { ProductCard } from '../components/ProductCard.tsx';
import { ErrorState, GridSkeleton } from '../components/States.tsx';
import { useTitle } from '../title.ts';

const FEATURED = { sort: [{ fieldName: 'name', order: 'ASC' as const }], paging: { limit: 20 } };
const NEW_IN = { sort: NEWEST_FIRST, paging: { limit: 4 } };

export function Home() {
  useTitle('Loom & Kiln');
  const cols = useCollections(FEATURED);
  const fresh = useProducts(NEW_IN);
  const featured = cols.data?.collections.filter((c) => c.slug !== 'all-products');
  return (
    <>
      <section className="hero">
        <h1>Linen, stoneware and small good things</h1>
        <p>Made to be used every day, and to last.</p>
        <Link to="/products" className="button button-primary">
          Shop all products
        </Link>
      </section>
      <section aria-labelledby="featured-heading">
        <h2 id="featured-heading">Featured collections</h2>
        {cols.isPending && <GridSkeleton count={4} label="Loading collections" />}
        {cols.error && <ErrorState error={cols.error} retry={() => cols.refetch()} />}
        {featured && (
          <ul className="grid collections" aria-label="Collections">
            {featured.map((c) => (
              <li key={c.id} className="card">
                <Link to={`/collections/${c.slug}`} className="card-link">
                  <div className="card-media wide">
                    {c.media?.mainMedia?.image && (
                      <img src={c.media.mainMedia.image.url} alt="" width={400} height={300} loading="lazy" />
                    )}
                  </div>
                  <h3 className="card-title">{c.name}</h3>
                </Link>
                <p className="muted">{c.description}</p>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="new-heading">
        <h2 id="new-heading">New in</h2>
        {fresh.isPending && <GridSkeleton count={4} />}
        {fresh.error && <ErrorState error={fresh.error} retry={() => fresh.refetch()} />}
        {fresh.data && (
          <ul className="grid" aria-label="New products">
            {fresh.data.products.map((p) => (
              <ProductCard key={p.id} product={p} />
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
