/**
 * The demo catalog: a small linen-and-kitchen shop with options, variant prices, discounts,
 * ribbons, brands, unit prices, tracked and untracked stock, some of it sold out, and generated
 * images served by the emulator. Ids are fixed so that tests and docs can name them.
 * @module
 */
import { createHash } from 'node:crypto';
import type { Emulator } from '../../context.ts';
import type { Sql } from '../../db/index.ts';
import {
  type Discount,
  discounted,
  generateVariants,
  type MediaItem,
  type ProductOption,
  type ProductState,
  type VariantState,
} from './model.ts';
import { PERCENT_SCALE } from './money.ts';
import { ALL_PRODUCTS_COLLECTION_ID, saveProduct } from './store.ts';

/** The fixed id of a demo product, from its slug. */
export function demoProductId(slug: string): string {
  const h = createHash('sha1').update(`shopkit-demo-product:${slug}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-9${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

interface DemoOption {
  name: string;
  color?: boolean;
  /** `Name` or `Name:#rrggbb` for colours. */
  choices: string[];
}

interface DemoProduct {
  slug: string;
  name: string;
  description: string;
  price: number;
  cost?: number;
  weight?: number;
  sku: string;
  brand?: string;
  ribbon?: string;
  discount?: { type: 'AMOUNT' | 'PERCENT'; value: number };
  digital?: boolean;
  hidden?: boolean;
  collections: string[];
  options?: DemoOption[];
  /** Variant price overrides (cents) by a choice description. */
  variantPrices?: Record<string, number>;
  /** Tracked stock: quantity per variant (by index), or one number for all. */
  quantity?: number | number[];
  /** Untracked stock: in stock unless listed here (by variant index), `true` = all sold out. */
  soldOut?: true | number[];
  unit?: [total: number, totalUnit: string, base: number, baseUnit: string];
  info?: [string, string][];
}

const cents = (amount: number) => Math.round(amount * 100);

/** The demo products. Collections are named by slug (see `DEMO_COLLECTIONS`). */
export const DEMO_PRODUCTS: DemoProduct[] = [
  {
    slug: 'linen-shirt',
    name: 'Linen Shirt',
    description: 'A relaxed shirt in washed European linen that softens with every wear.',
    price: 68,
    cost: 24,
    weight: 0.32,
    sku: 'LS',
    brand: 'Loomwell',
    ribbon: 'New',
    collections: ['summer-linen'],
    options: [
      { name: 'Size', choices: ['S', 'M', 'L', 'XL'] },
      { name: 'Color', color: true, choices: ['White:#f4f1ea', 'Sand:#d8c3a5', 'Sage:#a3bcb6'] },
    ],
    variantPrices: { XL: 72 },
    quantity: [4, 6, 0, 8, 5, 3, 2, 0, 7, 1, 0, 0],
    info: [['Care', 'Machine wash cold, line dry.']],
  },
  {
    slug: 'linen-trousers',
    name: 'Linen Trousers',
    description: 'Drawstring trousers with a straight leg and deep pockets.',
    price: 84,
    cost: 30,
    weight: 0.45,
    sku: 'LT',
    brand: 'Loomwell',
    ribbon: 'Sale',
    discount: { type: 'PERCENT', value: 20 },
    collections: ['summer-linen', 'sale'],
    options: [{ name: 'Size', choices: ['S', 'M', 'L'] }],
    quantity: [5, 0, 3],
  },
  {
    slug: 'linen-dress',
    name: 'Linen Midi Dress',
    description: 'A sleeveless midi dress cut on the bias.',
    price: 120,
    cost: 41,
    weight: 0.4,
    sku: 'LD',
    brand: 'Loomwell',
    collections: ['summer-linen'],
    options: [
      { name: 'Color', color: true, choices: ['Clay:#c97b63', 'Navy:#2e3a59'] },
      { name: 'Size', choices: ['XS', 'S', 'M', 'L'] },
    ],
    variantPrices: { Navy: 126 },
    quantity: 3,
  },
  {
    slug: 'linen-tea-towels',
    name: 'Linen Tea Towels (Set of 3)',
    description: 'Absorbent, lint-free towels in three stripes.',
    price: 18,
    cost: 6.5,
    weight: 0.21,
    sku: 'TT-3',
    brand: 'Loomwell',
    collections: ['kitchen', 'summer-linen'],
  },
  {
    slug: 'stoneware-mug',
    name: 'Stoneware Mug',
    description: 'A 350 ml mug thrown by hand and glazed in small batches.',
    price: 24,
    cost: 8,
    weight: 0.38,
    sku: 'SM',
    brand: 'Kiln & Co.',
    collections: ['kitchen'],
    options: [{ name: 'Color', color: true, choices: ['Oat:#e6dccb', 'Charcoal:#3c403d', 'Moss:#7fb685'] }],
    soldOut: [1],
  },
  {
    slug: 'dinner-plate',
    name: 'Stoneware Dinner Plate',
    description: 'A 27 cm plate with a raw rim, dishwasher safe.',
    price: 32,
    cost: 11,
    weight: 0.9,
    sku: 'DP',
    brand: 'Kiln & Co.',
    ribbon: 'Sale',
    discount: { type: 'AMOUNT', value: 5 },
    collections: ['kitchen', 'sale'],
    quantity: 40,
  },
  {
    slug: 'olive-wood-spoon',
    name: 'Olive Wood Spoon',
    description: 'Carved from a single piece of olive wood.',
    price: 14,
    cost: 4,
    weight: 0.06,
    sku: 'OWS',
    collections: ['kitchen'],
    soldOut: true,
  },
  {
    slug: 'cast-iron-skillet',
    name: 'Cast Iron Skillet',
    description: 'Pre-seasoned cast iron that lasts a lifetime.',
    price: 45,
    cost: 18,
    weight: 2.1,
    sku: 'CIS',
    brand: 'Hearthworks',
    collections: ['kitchen'],
    options: [{ name: 'Size', choices: ['20 cm', '26 cm', '30 cm'] }],
    variantPrices: { '26 cm': 59, '30 cm': 72 },
    quantity: [12, 7, 0],
  },
  {
    slug: 'beeswax-candle',
    name: 'Beeswax Candle',
    description: 'Pure beeswax in a reusable tin; burns for about 40 hours.',
    price: 22,
    cost: 7,
    weight: 0.26,
    sku: 'BC-200',
    collections: ['kitchen'],
    unit: [200, 'G', 100, 'G'],
    quantity: 25,
  },
  {
    slug: 'canvas-tote',
    name: 'Canvas Tote',
    description: 'Heavy cotton canvas with leather handles.',
    price: 35,
    cost: 12,
    weight: 0.5,
    sku: 'CT',
    brand: 'Fieldbag',
    collections: ['accessories'],
    options: [{ name: 'Color', color: true, choices: ['Natural:#efe6d2', 'Olive:#6b7045', 'Black:#1d1d1b'] }],
  },
  {
    slug: 'straw-sun-hat',
    name: 'Straw Sun Hat',
    description: 'A wide-brimmed hat woven from paper straw.',
    price: 48,
    cost: 15,
    weight: 0.15,
    sku: 'SSH',
    brand: 'Fieldbag',
    ribbon: 'Sold out',
    collections: ['accessories', 'summer-linen'],
    options: [{ name: 'Size', choices: ['S/M', 'L/XL'] }],
    quantity: 0,
  },
  {
    slug: 'leather-card-holder',
    name: 'Leather Card Holder',
    description: 'Vegetable-tanned leather, four card slots.',
    price: 40,
    cost: 13,
    weight: 0.04,
    sku: 'LCH',
    brand: 'Fieldbag',
    collections: ['accessories'],
    options: [{ name: 'Color', color: true, choices: ['Tan:#b07a4a', 'Black:#1d1d1b'] }],
    quantity: [9, 2],
  },
  {
    slug: 'wool-beanie',
    name: 'Merino Beanie',
    description: 'Ribbed merino wool, one size.',
    price: 28,
    cost: 9,
    weight: 0.09,
    sku: 'MB',
    ribbon: 'Sale',
    discount: { type: 'PERCENT', value: 30 },
    collections: ['accessories', 'sale'],
    options: [{ name: 'Color', color: true, choices: ['Rust:#b5532f', 'Charcoal:#3c403d'] }],
    quantity: 6,
  },
  {
    slug: 'gift-card',
    name: 'Gift Card',
    description: 'Delivered by e-mail; never expires.',
    price: 50,
    sku: 'GC-50',
    digital: true,
    collections: ['accessories'],
  },
  {
    slug: 'enamel-pitcher',
    name: 'Enamel Pitcher',
    description: 'Retired: a one-litre enamel pitcher.',
    price: 38,
    cost: 14,
    weight: 0.6,
    sku: 'EP',
    hidden: true,
    collections: ['archive'],
  },
];

const colName = (slug: string) => `col-${slug}`;

/** Builds the state of one demo product (without storage). */
export function demoProductState(d: DemoProduct, now: string): ProductState {
  const id = demoProductId(d.slug);
  const media: MediaItem[] = [
    {
      id: `${d.slug}.svg`,
      mediaType: 'image',
      url: `/media/${d.slug}.svg`,
      width: 800,
      height: 800,
      title: d.name,
      altText: d.name,
    },
    {
      id: `${d.slug}-detail.svg`,
      mediaType: 'image',
      url: `/media/${d.slug}-detail.svg`,
      width: 800,
      height: 800,
      title: `${d.name}, detail`,
      altText: `${d.name}, detail`,
    },
  ];
  const productOptions: ProductOption[] = (d.options ?? []).map((o) => ({
    optionType: o.color ? 'color' : 'drop_down',
    name: o.name,
    choices: o.choices.map((text) => {
      const [description, code] = text.split(':') as [string, string?];
      const mediaIds: string[] = [];
      if (o.color) {
        const mid = `${d.slug}-${description.toLowerCase()}.svg`;
        media.push({
          id: mid,
          mediaType: 'image',
          url: `/media/${mid}`,
          width: 800,
          height: 800,
          title: `${d.name}, ${description}`,
          altText: `${d.name} in ${description}`,
        });
        mediaIds.push(mid);
      }
      return { value: code ?? description, description, mediaIds };
    }),
  }));
  const tracked = d.quantity !== undefined;
  let variants: VariantState[] = generateVariants(id, productOptions, []);
  variants = variants.map((v, i) => {
    const own = Object.values(v.choices)
      .map((c) => d.variantPrices?.[c])
      .find((x) => x !== undefined);
    const quantity = tracked
      ? Array.isArray(d.quantity)
        ? (d.quantity[i] ?? 0)
        : (d.quantity as number)
      : null;
    const soldOut = d.soldOut === true || (Array.isArray(d.soldOut) && d.soldOut.includes(i));
    return {
      ...v,
      ...(own !== undefined ? { price: cents(own) } : {}),
      ...(Object.keys(v.choices).length ? { sku: `${d.sku}-${Object.values(v.choices).join('-')}` } : {}),
      quantity,
      inStock: tracked ? (quantity ?? 0) > 0 : !soldOut,
    };
  });
  const discount: Discount = d.discount
    ? {
        type: d.discount.type,
        value:
          d.discount.type === 'PERCENT' ? d.discount.value * 10 ** PERCENT_SCALE : cents(d.discount.value),
      }
    : { type: 'NONE', value: 0 };
  return {
    id,
    name: d.name,
    slug: d.slug,
    visible: !d.hidden,
    productType: d.digital ? 'digital' : 'physical',
    description: d.description,
    sku: d.sku,
    ...(d.weight !== undefined ? { weight: Math.round(d.weight * 1000) } : {}),
    price: cents(d.price),
    ...(d.cost !== undefined ? { cost: cents(d.cost) } : {}),
    discount,
    ...(d.ribbon ? { ribbon: d.ribbon } : {}),
    ...(d.brand ? { brand: d.brand } : {}),
    trackInventory: tracked,
    manageVariants: !!d.variantPrices,
    ...(d.unit
      ? {
          pricePerUnitData: {
            totalQuantity: d.unit[0],
            totalMeasurementUnit: d.unit[1],
            baseQuantity: d.unit[2],
            baseMeasurementUnit: d.unit[3],
          },
        }
      : {}),
    additionalInfoSections: (d.info ?? []).map(([title, description]) => ({ title, description })),
    customTextFields: [],
    productOptions,
    media,
    variants,
    collectionIds: [],
    numericId: '0',
    createdDate: now,
    lastUpdated: now,
  };
}

/** Seeds the demo products and their collection memberships. */
export async function seedProducts(emu: Emulator, sql: Sql) {
  const now = emu.now();
  for (const [position, d] of DEMO_PRODUCTS.entries()) {
    const p = demoProductState(d, now.toISOString());
    // A store first started without the demo may have a product of its own by that slug (or id):
    // the merchant's stays, and the demo's is left out.
    const taken = await sql.query('SELECT 1 FROM products WHERE id = $1 OR slug = $2', [p.id, p.slug]);
    if (taken.length) continue;
    await saveProduct(sql, p, now, discounted(p.price, p.discount));
    // Every product joins All Products, hidden ones too, as createProduct adds every new product;
    // a visitor's `numberOfProducts` leaves the hidden ones out.
    for (const slug of [ALL_PRODUCTS_COLLECTION_ID.slice(4), ...d.collections])
      await sql.query(
        `INSERT INTO collection_products (collection_id, product_id, position)
         SELECT id, $2, $3 FROM collections WHERE id = $1 ON CONFLICT DO NOTHING`,
        [colName(slug), p.id, position],
      );
  }
}
