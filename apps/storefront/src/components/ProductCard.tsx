import type { Product } from '@shopkit/sdk';
import { Link } from 'react-router';

export function PriceTag({ product }: { product: Product }) {
  const p = product.price;
  const f = p?.formatted;
  const discounted = p && p.discountedPrice !== undefined && p.discountedPrice < (p.price ?? 0);
  const range = product.priceRange && product.priceRange.minValue !== product.priceRange.maxValue;
  return (
    <p className="price">
      {range && <span className="from">From </span>}
      {discounted ? (
        <>
          <span className="sale">{f?.discountedPrice}</span>{' '}
          <s>
            <span className="visually-hidden">was </span>
            {f?.price}
          </s>
        </>
      ) : (
        <span>{f?.price}</span>
      )}
    </p>
  );
}

export function ProductCard({ product }: { product: Product }) {
  const img = product.media?.mainMedia?.image;
  const soldOut = product.stock?.inStock === false;
  const ribbon = product.ribbon || product.ribbons?.[0]?.text;
  return (
    <li className="card">
      <Link to={`/products/${product.slug}`} className="card-link">
        <div className="card-media">
          {img && (
            <img src={img.url} alt={img.altText ?? product.name} width={400} height={400} loading="lazy" />
          )}
          {ribbon && <span className="ribbon">{ribbon}</span>}
        </div>
        <h3 className="card-title">{product.name}</h3>
      </Link>
      <PriceTag product={product} />
      {soldOut && <p className="stock out">Sold out</p>}
    </li>
  );
}
