import { useCollectionBySlug } from '@shopkit/react';
import { ShopkitError } from '@shopkit/sdk';
import { Link, useParams } from 'react-router';
import { Listing } from '../components/Listing.tsx';
import { ErrorState, Skeleton } from '../components/States.tsx';
import { useTitle } from '../title.ts';

export function CollectionPage() {
  const { slug = '' } = useParams();
  const col = useCollectionBySlug(slug);
  const missing = col.error instanceof ShopkitError && col.error.status === 404;
  useTitle(missing ? 'Collection not found' : col.data?.name);
  if (col.isPending) return <Skeleton lines={2} label="Loading the collection" />;
  if (col.error)
    return missing ? (
      <div className="notice">
        <h1>Collection not found</h1>
        <p>
          There is no collection “{slug}”. <Link to="/products">Browse all products</Link>.
        </p>
      </div>
    ) : (
      <ErrorState error={col.error} retry={() => col.refetch()} />
    );
  return (
    <>
      <h1>{col.data.name}</h1>
      {col.data.description && <p className="lead">{col.data.description}</p>}
      <Listing collectionId={col.data.id} label={col.data.name} />
    </>
  );
}
