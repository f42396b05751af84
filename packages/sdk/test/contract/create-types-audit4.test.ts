/**
 * `createProduct` takes `NewProduct`: the emulator refuses a create without `name`, `productType`
 * or `priceData.price` (REQUIRED_FIELD), so a create without them must not compile; `updateProduct`
 * keeps the all-optional `ProductInput` (PATCH). `tsc` checks the `@ts-expect-error` lines: each
 * fails the typecheck once the type no longer refuses that shape.
 */
import { expectTypeOf, it } from 'vitest';
import { type NewProduct, type ProductInput, products } from '../../src/index.ts';
import type { merchantClient } from './setup.ts';

type Merchant = ReturnType<typeof merchantClient<{ products: typeof products }>>['products'];

/** Never called: `tsc` checks it. */
export function createContract(m: Merchant) {
  // @ts-expect-error a create needs a name, a type and a price.
  void m.createProduct({});
  // @ts-expect-error a create needs a name.
  void m.createProduct({ productType: 'physical', priceData: { price: 1 } });
  // @ts-expect-error a create needs a type.
  void m.createProduct({ name: 'A', priceData: { price: 1 } });
  // @ts-expect-error a create needs a price.
  void m.createProduct({ name: 'A', productType: 'physical' });
  // @ts-expect-error a create needs priceData.price, not an empty priceData.
  void m.createProduct({ name: 'A', productType: 'physical', priceData: {} });
  // @ts-expect-error the tree-shaken call refuses it too.
  void products.createProduct({} as never, { name: 'A', productType: 'digital' });
  const input: ProductInput = { name: 'A', productType: 'physical', priceData: { price: 1 } };
  // @ts-expect-error a ProductInput is not a create input, even when it happens to hold the fields.
  void m.createProduct(input);

  void m.createProduct({ name: 'A', productType: 'physical', priceData: { price: 1 } });
  void m.createProduct({ name: 'A', productType: 'digital', priceData: { price: 0 }, sku: 'S', weight: 1 });
  void products.createProduct({} as never, { name: 'A', productType: 'digital', priceData: { price: 1 } });
  // An update stays a partial patch.
  void m.updateProduct('p', {});
  void m.updateProduct('p', { sku: 'S' });
}

it('types a create input with its required fields and an update as a partial patch', () => {
  expectTypeOf<NewProduct>().toExtend<ProductInput>();
  expectTypeOf<NewProduct['name']>().toEqualTypeOf<string>();
  expectTypeOf<NewProduct['productType']>().toEqualTypeOf<'physical' | 'digital'>();
  expectTypeOf<NewProduct['priceData']['price']>().toEqualTypeOf<number>();
  expectTypeOf<{ name: string }>().not.toExtend<NewProduct>();
  expectTypeOf<Merchant['createProduct']>().parameter(0).toEqualTypeOf<NewProduct>();
  expectTypeOf<Merchant['updateProduct']>().parameter(1).toEqualTypeOf<ProductInput>();
  expectTypeOf(products.createProduct).parameter(1).toEqualTypeOf<NewProduct>();
});
