import { Listing } from '../components/Listing.tsx';
import { useTitle } from '../title.ts';

export function ProductsPage() {
  useTitle('All products');
  return (
    <>
      <h1>All products</h1>
      <Listing label="All products" />
    </>
  );
}
