import type { Product } from '@shopkit/sdk';
import { Link } from 'react-router';
import { money, shownPrice } from '../format.ts';

export function PriceTag({ product }: { product: Product }) {
  const { from, price, sale } = shownPrice(product);
  const f = product.price?.formatted;
  // The platform's own formatting of the product's price; a variant's lowest is formatted here.
  const show = (n: number, formatted?: string) => (!from && formatted) || money(n, product.price?.currency);
  return (
    <p className="price">
      {from && <span className="from">From </span>}
      {sale !== undefined ? (
        <>
          <span className="sale">{show(sale, f?.discountedPrice)}</span>{' '}
          <s>
            <span className="visually-hidden">was </span>
            {show(price, f?.price)}
          </s>
        </>
      ) : (
        <span>{show(price, f?.price)}</span>
      )}
    </p>
  );
}

/** A product's first image: its main media, or the first image after a video that comes first. */
export const firstImage = (product: Product) =>
  product.media?.mainMedia?.image ?? product.media?.items?.find((m) => m.image)?.image;

export function ProductCard({ product }: { product: Product }) {
  const img = firstImage(product);
  const soldOut = product.stock?.inStock === false;
  const ribbon = product.ribbon || product.ribbons?.[0]?.text;
  return (
    <li className="card">
      <Link to={`/products/${product.slug}`} className="card-link">
        <div className="card-media">
          {/* The card's heading names the link: an image named too made screen readers say the
              product's name twice ("Linen Shirt Linen Shirt"). */}
          {img && <img src={img.url} alt="" width={400} height={400} loading="lazy" />}
          {ribbon && <span className="ribbon">{ribbon}</span>}
        </div>
        <h3 className="card-title">{product.name}</h3>
      </Link>
      <PriceTag product={product} />
      {soldOut && <p className="stock out">Sold out</p>}
    </li>
  );
}
