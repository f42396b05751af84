import { OptionType, type Product, type ProductInput, products } from '@shopkit/sdk';
import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ErrorState, Skeleton } from '../components/States.tsx';
import { money } from '../format.ts';
import { useMerchant, useRefresh } from './context.ts';

export const ALL = { includeHiddenProducts: true, includeMerchantSpecificData: true, includeVariants: true };

export function useAllProducts() {
  const client = useMerchant();
  return useQuery({
    queryKey: ['merchant', 'products'],
    queryFn: async () =>
      (
        await products.queryProducts(
          client,
          { sort: [{ fieldName: 'name', order: 'ASC' }], paging: { limit: 100 } },
          ALL,
        )
      ).products,
  });
}

export function ProductList() {
  const list = useAllProducts();
  const client = useMerchant();
  const refresh = useRefresh();
  const del = useMutation({
    mutationFn: (id: string) => products.deleteProduct(client, id),
    onSuccess: refresh,
  });
  if (list.isPending) return <Skeleton lines={8} label="Loading products" />;
  if (list.error) return <ErrorState error={list.error} retry={() => list.refetch()} />;
  return (
    <>
      {del.error && <ErrorState error={del.error} title="The product was not deleted" />}
      <div className="table-wrap">
        <table className="table">
          <caption className="visually-hidden">Products</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Price</th>
              <th scope="col">Cost</th>
              <th scope="col">Stock</th>
              <th scope="col">Visible</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((p) => (
              <tr key={p.id}>
                <th scope="row">{p.name}</th>
                <td>{p.priceData?.formatted?.price}</td>
                <td>{p.costAndProfitData?.formattedItemCost ?? '—'}</td>
                <td>{p.stock?.inStock ? 'In stock' : 'Out of stock'}</td>
                <td>{p.visible ? 'Yes' : 'No'}</td>
                <td className="actions">
                  <Link to={`/merchant/products/${p.id}`}>
                    Edit<span className="visually-hidden"> {p.name}</span>
                  </Link>
                  <button
                    type="button"
                    className="link-button danger"
                    onClick={() => {
                      if (confirm(`Delete “${p.name}”? This cannot be undone.`)) del.mutate(p.id);
                    }}
                  >
                    Delete<span className="visually-hidden"> {p.name}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** "Color: White #f4f1ea, Sand #d8c3a5" per line; a `#rrggbb` makes it a colour option. */
export function parseOptions(text: string): NonNullable<ProductInput['productOptions']> {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((line) => {
      const [name, rest = ''] = line.split(/:(.*)/s) as [string, string?];
      const choices = rest
        .split(',')
        .map((c) => c.trim())
        .filter(Boolean)
        .map((c) => {
          const m = /^(.*?)\s+(#[0-9a-f]{6})$/i.exec(c);
          return m ? { description: m[1]!, value: m[2]! } : { description: c, value: c };
        });
      const color = choices.length > 0 && choices.every((c) => c.value.startsWith('#'));
      return { name: name.trim(), optionType: color ? OptionType.color : OptionType.drop_down, choices };
    });
}

const formatOptions = (p?: Product) =>
  (p?.productOptions ?? [])
    .map(
      (o) =>
        `${o.name}: ${(o.choices ?? []).map((c) => (o.optionType === 'color' ? `${c.description} ${c.value}` : c.description)).join(', ')}`,
    )
    .join('\n');

function num(f: FormData, k: string) {
  const v = String(f.get(k) ?? '').trim();
  return v === '' ? undefined : Number(v);
}

export function ProductEditor() {
  const { id } = useParams();
  const list = useAllProducts();
  const product = id ? list.data?.find((p) => p.id === id) : undefined;
  if (id && list.isPending) return <Skeleton lines={8} label="Loading the product" />;
  if (id && list.error) return <ErrorState error={list.error} retry={() => list.refetch()} />;
  if (id && !product) return <p className="notice">This product no longer exists.</p>;
  return <Editor key={product?.id ?? 'new'} product={product} />;
}

function Editor({ product }: { product?: Product }) {
  const client = useMerchant();
  const refresh = useRefresh();
  const navigate = useNavigate();
  const id = useId();
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: (input: ProductInput) =>
      product ? products.updateProduct(client, product.id, input) : products.createProduct(client, input),
    onSuccess: async ({ product: p }) => {
      await refresh();
      setSaved(true);
      if (!product) navigate(`/merchant/products/${p.id}`);
    },
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setSaved(false);
    const f = new FormData(e.currentTarget);
    const s = (k: string) => String(f.get(k) ?? '').trim();
    const options = parseOptions(s('options'));
    const input: ProductInput = {
      name: s('name'),
      description: s('description'),
      productType: 'physical',
      priceData: { price: num(f, 'price') ?? 0 },
      visible: f.get('visible') === 'on',
      ...(s('sku') ? { sku: s('sku') } : {}),
      ...(num(f, 'cost') !== undefined ? { costAndProfitData: { itemCost: num(f, 'cost')! } } : {}),
      ...(num(f, 'weight') !== undefined ? { weight: num(f, 'weight')! } : {}),
      ...(s('ribbon') ? { ribbon: s('ribbon') } : {}),
      ...(s('brand') ? { brand: s('brand') } : {}),
      ...(options.length ? { productOptions: options, manageVariants: true } : {}),
    };
    save.mutate(input);
  };
  const field = (name: string, label: string, value?: string | number, type = 'text', extra = {}) => (
    <div className="field">
      <label htmlFor={`${id}-${name}`}>{label}</label>
      <input id={`${id}-${name}`} name={name} type={type} defaultValue={value ?? ''} {...extra} />
    </div>
  );
  return (
    <div className="editor">
      <form onSubmit={submit} className="panel" aria-labelledby={`${id}-title`}>
        <h2 id={`${id}-title`}>{product ? `Edit ${product.name}` : 'New product'}</h2>
        {field('name', 'Name', product?.name, 'text', { required: true })}
        <div className="field">
          <label htmlFor={`${id}-description`}>Description</label>
          <textarea
            id={`${id}-description`}
            name="description"
            rows={3}
            defaultValue={product?.description ?? ''}
          />
        </div>
        <div className="row">
          {field('price', 'Price (USD)', product?.priceData?.price, 'number', {
            required: true,
            step: '0.01',
            min: 0,
          })}
          {field('cost', 'Cost (USD)', product?.costAndProfitData?.itemCost, 'number', {
            step: '0.01',
            min: 0,
          })}
          {field('weight', 'Weight (kg)', product?.weight, 'number', { step: '0.001', min: 0 })}
        </div>
        <div className="row">
          {field('sku', 'SKU', product?.sku)}
          {field('ribbon', 'Ribbon', product?.ribbon)}
          {field('brand', 'Brand', product?.brand)}
        </div>
        <div className="field">
          <label htmlFor={`${id}-options`}>Options</label>
          <textarea
            id={`${id}-options`}
            name="options"
            rows={3}
            aria-describedby={`${id}-options-help`}
            defaultValue={formatOptions(product)}
          />
          <p id={`${id}-options-help`} className="muted">
            One option per line, such as <code>Size: S, M, L</code> or{' '}
            <code>Color: Red #c0392b, Blue #2e86de</code>.
          </p>
        </div>
        <div className="field checkbox">
          <input
            id={`${id}-visible`}
            name="visible"
            type="checkbox"
            defaultChecked={product?.visible ?? true}
          />
          <label htmlFor={`${id}-visible`}>Visible in the shop</label>
        </div>
        <p role="alert" className="field-error">
          {save.error?.message ?? ''}
        </p>
        <div aria-live="polite">{saved && <p className="notice notice-ok">Saved.</p>}</div>
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : product ? 'Save changes' : 'Create product'}
        </button>
      </form>
      {product && <Extras product={product} />}
    </div>
  );
}

function Extras({ product }: { product: Product }) {
  const client = useMerchant();
  const refresh = useRefresh();
  const id = useId();
  const act = useMutation({ mutationFn: (f: () => Promise<unknown>) => f(), onSuccess: refresh });
  const run = (f: () => Promise<unknown>) => act.mutate(f);
  const addMedia = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const url = String(new FormData(e.currentTarget).get('url') ?? '').trim();
    if (url) run(() => products.addProductMedia(client, product.id, [{ url }]));
    e.currentTarget.reset();
  };
  const setVariantPrice = (e: FormEvent<HTMLFormElement>, variantId: string) => {
    e.preventDefault();
    const price = Number(new FormData(e.currentTarget).get('price'));
    run(() => products.updateProductVariants(client, product.id, [{ variantIds: [variantId], price }]));
  };
  return (
    <div className="panel">
      {act.error && <ErrorState error={act.error} title="The change was not saved" />}
      <h2>Ribbon and brand</h2>
      <div className="row">
        <button
          type="button"
          className="button"
          disabled={!product.ribbon}
          onClick={() => run(() => products.removeRibbon(client, product.id))}
        >
          Remove ribbon{product.ribbon ? ` “${product.ribbon}”` : ''}
        </button>
        <button
          type="button"
          className="button"
          disabled={!product.brand}
          onClick={() => run(() => products.removeBrand(client, product.id))}
        >
          Remove brand{product.brand ? ` “${product.brand}”` : ''}
        </button>
      </div>
      <h2>Media</h2>
      <ul className="media-list" aria-label="Media">
        {(product.media?.items ?? []).map((m) => (
          <li key={m.id}>
            {m.image && <img src={m.image.url} alt={m.image.altText ?? ''} width={64} height={64} />}
            <button
              type="button"
              className="link-button danger"
              onClick={() => run(() => products.removeProductMedia(client, product.id, [m.id!]))}
            >
              Remove<span className="visually-hidden"> {m.image?.altText ?? m.title ?? 'image'}</span>
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={addMedia} className="row">
        <div className="field grow">
          <label htmlFor={`${id}-url`}>Image URL</label>
          <input id={`${id}-url`} name="url" type="url" required />
        </div>
        <button type="submit" className="button">
          Add image
        </button>
      </form>
      {(product.productOptions?.length ?? 0) > 0 && (
        <>
          <h2>Variants</h2>
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Variant</th>
                  <th scope="col">Price</th>
                  <th scope="col">In stock</th>
                </tr>
              </thead>
              <tbody>
                {(product.variants ?? []).map((v) => {
                  const name = Object.values(v.choices).join(' / ');
                  return (
                    <tr key={v.id}>
                      <th scope="row">{name}</th>
                      <td>
                        <form className="inline" onSubmit={(e) => setVariantPrice(e, v.id)}>
                          <label className="visually-hidden" htmlFor={`${id}-${v.id}`}>
                            Price of {name}
                          </label>
                          <input
                            id={`${id}-${v.id}`}
                            name="price"
                            type="number"
                            step="0.01"
                            min="0"
                            defaultValue={v.variant?.priceData?.price ?? ''}
                          />
                          <button type="submit" className="button small">
                            Set<span className="visually-hidden"> price of {name}</span>
                          </button>
                        </form>
                      </td>
                      <td>{v.stock?.inStock ? 'Yes' : 'No'}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <div className="row">
            <button
              type="button"
              className="button"
              onClick={() => run(() => products.resetAllProductVariantData(client, product.id))}
            >
              Reset variant prices
            </button>
            <button
              type="button"
              className="button danger"
              onClick={() => run(() => products.deleteProductOptions(client, product.id))}
            >
              Remove all options
            </button>
          </div>
        </>
      )}
      <p className="muted">
        Price in the shop: {money(product.priceData?.discountedPrice ?? product.priceData?.price)}
      </p>
    </div>
  );
}
