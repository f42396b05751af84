import { useAddToCart, useCart, useOptionsAvailability, useProductBySlug } from '@shopkit/react';
import { cart, type Product } from '@shopkit/sdk';
import { useId, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { firstImage, PriceTag } from '../components/ProductCard.tsx';
import { ErrorState, LoadingHeading, Skeleton } from '../components/States.tsx';
import { HELD, useHeld } from '../offline.ts';
import { parseQuantity, quantityInCart, quantityProblem, trackedStock } from '../quantity.ts';
import { useTitle } from '../title.ts';

/** A media item's video file, when it is a video. */
const videoFile = (m: NonNullable<NonNullable<Product['media']>['items']>[number]) =>
  m.mediaType === 'video' ? m.video?.files?.[0] : undefined;

function Gallery({ product, focus }: { product: Product; focus?: string }) {
  // Videos too: a merchant's video was dropped here, with no way for the shopper to see it.
  const items = (product.media?.items ?? []).filter((m) => m.image || videoFile(m));
  // A thumbnail picked under another colour no longer counts: a new colour shows its own image.
  const [picked, setPicked] = useState<{ id?: string; focus?: string }>();
  const shown = picked && picked.focus === focus ? picked.id : focus;
  const current = items.find((m) => m.id === shown) ?? items[0];
  if (!current) return <div className="gallery-main placeholder" />;
  const video = videoFile(current);
  return (
    <div className="gallery">
      {video ? (
        // biome-ignore lint/a11y/useMediaCaption: the platform gives a product video no captions
        <video
          key={current.id}
          className="gallery-main"
          src={video.url}
          controls
          preload="metadata"
          aria-label={current.title ?? `${product.name}, video`}
          width={800}
          height={800}
        />
      ) : (
        <img
          className="gallery-main"
          src={current.image!.url}
          alt={current.image!.altText ?? product.name}
          width={800}
          height={800}
        />
      )}
      {items.length > 1 && (
        <ul className="thumbs" aria-label="Product images">
          {items.map((m) => (
            <li key={m.id}>
              <button
                type="button"
                aria-pressed={m.id === current.id}
                aria-label={
                  videoFile(m)
                    ? `Show the video${m.title ? `, ${m.title}` : ''}`
                    : `Show ${m.image?.altText ?? m.title ?? 'image'}`
                }
                onClick={() => setPicked({ id: m.id, focus })}
              >
                {m.image ? (
                  <img src={m.image.url} alt="" width={72} height={72} />
                ) : (
                  <span className="video-thumb" aria-hidden="true">
                    ▶
                  </span>
                )}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function ProductPage() {
  const { slug = '' } = useParams();
  const q = useProductBySlug(slug);
  // A failed read names the page as its error state does, not as the page before it.
  useTitle(q.error ? 'Something went wrong' : q.data === null ? 'Product not found' : q.data?.name);
  if (q.isPending)
    return (
      <div className="product">
        <LoadingHeading />
        <div className="gallery-main skeleton-block" />
        <Skeleton lines={5} label="Loading the product" />
      </div>
    );
  if (q.error) return <ErrorState error={q.error} retry={() => q.refetch()} page />;
  if (!q.data)
    return (
      <div className="notice">
        <h1>Product not found</h1>
        <p>
          There is no product “{slug}”. <Link to="/products">Browse all products</Link>.
        </p>
      </div>
    );
  return <ProductDetail key={q.data.id} product={q.data} />;
}

function ProductDetail({ product }: { product: Product }) {
  const options = product.productOptions ?? [];
  const [choices, setChoices] = useState<Record<string, string>>({});
  // The box's text as typed: it may be empty or unfinished while the shopper types.
  const [quantityText, setQuantityText] = useState('1');
  const [added, setAdded] = useState(false);
  const complete = options.every((o) => choices[o.name ?? '']);
  const avail = useOptionsAvailability(product.id, choices);
  // The answer for these choices: while it loads, the hook keeps the last choices' answer, whose
  // price and stock are another variant's (or no variant's: "Out of stock" for a size in stock).
  const known = avail.isPlaceholderData ? undefined : avail.data;
  const add = useAddToCart();
  // Offline, the add is held until the browser is back online: said, not only "Adding…".
  const held = useHeld(add.isPaused);
  const { data: currentCart } = useCart();
  const id = useId();
  const variant = known?.selectedVariant;
  const focus = options
    .flatMap((o) => o.choices?.filter((c) => c.description === choices[o.name ?? '']) ?? [])
    .find((c) => c.media?.mainMedia)?.media?.mainMedia?.id;
  const soldOut = product.stock?.inStock === false;

  // The box's rules (quantity.ts): a whole number from 1 up to the stock left and the limit at a time.
  const quantity = parseQuantity(quantityText);
  const problem = quantityProblem(quantityText, {
    stock: trackedStock(variant),
    inCart: quantityInCart(currentCart?.lineItems, product.id, options.length ? variant?.id : undefined),
  });
  const canBuy = !soldOut && complete && !!known?.availableForPurchase && !avail.isFetching && !problem;

  // What was said of the last add (it went in, or why not), once the choice or quantity changed.
  const forgetAdd = () => {
    setAdded(false);
    if (!add.isPending) add.reset();
  };
  // Set at once, before `isPending` re-renders: a double click adds once.
  const adding = useRef(false);
  const onAdd = () => {
    // No number only while the box shows a problem, when the button is disabled.
    if (quantity === undefined || adding.current) return;
    adding.current = true;
    setAdded(false);
    add.mutate(
      {
        lineItems: [
          {
            catalogReference: {
              appId: cart.STORES_APP_ID,
              catalogItemId: product.id,
              ...(options.length ? { options: { variantId: variant?.id } } : {}),
            },
            quantity,
          },
        ],
        preview: { productName: { original: product.name }, image: firstImage(product)?.url },
      },
      {
        onSuccess: () => setAdded(true),
        onSettled: () => {
          adding.current = false;
        },
      },
    );
  };

  let status = '';
  if (soldOut) status = 'Sold out';
  else if (!complete)
    status = `Choose ${options
      .filter((o) => !choices[o.name ?? ''])
      .map((o) => o.name?.toLowerCase())
      .join(' and ')}`;
  else if (known && !known.availableForPurchase) status = 'Out of stock';
  else if (variant?.inStock)
    status =
      variant.quantity !== undefined && variant.quantity < 5 ? `Only ${variant.quantity} left` : 'In stock';

  return (
    <article className="product">
      <Gallery product={product} focus={focus} />
      <div className="product-info">
        {(product.ribbon || product.ribbons?.[0]?.text) && (
          <span className="ribbon static">{product.ribbon || product.ribbons?.[0]?.text}</span>
        )}
        <h1>{product.name}</h1>
        {product.brand && <p className="muted">{product.brand}</p>}
        <div className="variant-price" aria-live="polite">
          {variant?.price?.formatted ? (
            <p className="price">
              {variant.price.discountedPrice !== undefined &&
              variant.price.discountedPrice < (variant.price.price ?? 0) ? (
                <>
                  <span className="sale">{variant.price.formatted.discountedPrice}</span>{' '}
                  <s>
                    <span className="visually-hidden">was </span>
                    {variant.price.formatted.price}
                  </s>
                </>
              ) : (
                <span>{variant.price.formatted.price}</span>
              )}
            </p>
          ) : (
            <PriceTag product={product} />
          )}
          <p
            className={`stock ${status === 'Out of stock' || status === 'Sold out' ? 'out' : ''}`}
            data-testid="availability"
          >
            {status}
          </p>
        </div>
        {options.map((o) => (
          <fieldset key={o.name} className="option">
            <legend>
              {o.name}
              {choices[o.name ?? ''] && <span className="muted">: {choices[o.name ?? '']}</span>}
            </legend>
            <div className={o.optionType === 'color' ? 'swatches' : 'choices'}>
              {/* Not a choice the merchant hid (all its variants hidden): it is not sold, not sold out. */}
              {o.choices
                ?.filter((c) => c.visible !== false)
                .map((c) => {
                  const inputId = `${id}-${o.name}-${c.description}`;
                  return (
                    <span key={c.description} className="choice">
                      <input
                        type="radio"
                        id={inputId}
                        name={`${id}-${o.name}`}
                        value={c.description}
                        checked={choices[o.name ?? ''] === c.description}
                        onChange={() => {
                          // "Added to your cart" (or why it could not be) was said of the variant
                          // chosen before.
                          forgetAdd();
                          setChoices((s) => ({ ...s, [o.name ?? '']: c.description ?? '' }));
                        }}
                      />
                      <label
                        htmlFor={inputId}
                        className={c.inStock === false ? 'unavailable' : ''}
                        style={o.optionType === 'color' ? { ['--swatch' as string]: c.value } : undefined}
                        title={
                          o.optionType === 'color' && c.inStock === false
                            ? `${c.description}, sold out`
                            : undefined
                        }
                      >
                        {o.optionType === 'color' ? (
                          <span className="visually-hidden">{c.description}</span>
                        ) : (
                          c.description
                        )}
                        {c.inStock === false && <span className="visually-hidden"> (sold out)</span>}
                      </label>
                    </span>
                  );
                })}
            </div>
          </fieldset>
        ))}
        {/* Without an answer the variant cannot be bought: say why, rather than a blank status. */}
        {avail.error && (
          <ErrorState
            error={avail.error}
            retry={() => avail.refetch()}
            title="The availability could not be checked"
          />
        )}
        {/* A form: Enter in the quantity box adds, as the button does. */}
        <form
          className="buy"
          onSubmit={(e) => {
            e.preventDefault();
            if (canBuy) onAdd();
          }}
        >
          <div className="field qty">
            <label htmlFor={`${id}-qty`}>Quantity</label>
            <input
              id={`${id}-qty`}
              type="text"
              inputMode="numeric"
              autoComplete="off"
              value={quantityText}
              aria-invalid={problem ? true : undefined}
              aria-describedby={`${id}-qty-error`}
              onChange={(e) => {
                forgetAdd();
                setQuantityText(e.target.value);
              }}
            />
          </div>
          <button
            type="submit"
            className="button button-primary"
            // While the item is added: aria-disabled, not disabled, so that keyboard focus stays on it.
            disabled={!canBuy && !add.isPending}
            aria-disabled={add.isPending || undefined}
          >
            {add.isPending ? 'Adding…' : soldOut ? 'Sold out' : 'Add to cart'}
          </button>
        </form>
        <p id={`${id}-qty-error`} className="field-error" aria-live="polite">
          {problem}
        </p>
        <div aria-live="polite">
          {added && (
            <p className="notice notice-ok">
              Added to your cart. <Link to="/cart">View cart</Link>
            </p>
          )}
          {add.error && <ErrorState error={add.error} title="Could not add to the cart" />}
        </div>
        {/* A status region of its own, always there (a region added with its words is not read
            out): that the add waits for the connection is said as it starts waiting. */}
        <div role="status">{held && <p className="notice">{HELD.add}</p>}</div>
        {product.description && <p className="description">{product.description}</p>}
        {product.additionalInfoSections?.map((s) => (
          <details key={s.title}>
            <summary>{s.title}</summary>
            <p>{s.description}</p>
          </details>
        ))}
      </div>
    </article>
  );
}
