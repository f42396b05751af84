import { useCollectionBySlug } from '@shopkit/react';
import { Link, useParams } from 'react-router';
import { Listing } from '../components/Listing.tsx';
import { ErrorState, LoadingHeading, Skeleton } from '../components/States.tsx';
import { useTitle } from '../title.ts';

export function CollectionPage() {
  const { slug = '' } = useParams();
  const col = useCollectionBySlug(slug);
  // `null`: the shop has no such collection (an answer, not an error, so it is not retried).
  // A failed read names the page as its error state does, not as the page before it.
  useTitle(col.error ? 'Something went wrong' : col.data === null ? 'Collection not found' : col.data?.name);
  if (col.isPending)
    return (
      <>
        <LoadingHeading />
        <Skeleton lines={2} label="Loading the collection" />
      </>
    );
  if (col.error) return <ErrorState error={col.error} retry={() => col.refetch()} page />;
  if (!col.data)
    return (
      <div className="notice">
        <h1>Collection not found</h1>
        <p>
          There is no collection “{slug}”. <Link to="/products">Browse all products</Link>.
        </p>
      </div>
    );
  return (
    <>
      <h1>{col.data.name}</h1>
      {col.data.description && <p className="lead">{col.data.description}</p>}
      <Listing collectionId={col.data.id} label={col.data.name} />
    </>
  );
}
