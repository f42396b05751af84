import { useShopkit } from '@shopkit/react';
import { collections } from '@shopkit/sdk';
import { useQuery } from '@tanstack/react-query';

/** The storefront's home: the shop's collections. */
export function App() {
  const client = useShopkit();
  const { data, error, isPending, refetch } = useQuery({
    queryKey: ['shopkit', 'collections', 'home'],
    queryFn: async () => (await collections.queryCollections(client).ascending('name').find()).items,
  });
  return (
    <main>
      <h1>Shopkit demo store</h1>
      <h2>Collections</h2>
      {isPending && <p aria-busy="true">Loading collections…</p>}
      {error && (
        <div role="alert">
          <p>{error.message}</p>
          <button type="button" onClick={() => refetch()}>
            Try again
          </button>
        </div>
      )}
      {data && (
        <ul aria-label="Collections">
          {data.map((c) => (
            <li key={c.id}>
              <strong>{c.name}</strong> <span>{c.description}</span>
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
