/**
 * Product storage: the `products` and `product_variants` tables and the functions that load a
 * product's state and save it back. Collection membership lives in `collection_products`
 * (collections.ts); a product's `collectionIds` are read from it.
 * @module
 */
import type { Sql } from '../../db/index.ts';
import { appError, invalid } from '../../http/errors.ts';
import type { ProductState, VariantState } from './model.ts';
import { variantInStock, variantName, variantSku, variantVisible } from './model.ts';
import { toDecimalString } from './money.ts';

/** The collection every product belongs to. */
export const ALL_PRODUCTS_COLLECTION_ID = 'col-all-products';

export const productMigrations = [
  {
    id: '0110_products',
    sql: `
      CREATE TABLE products (
        id text PRIMARY KEY,
        numeric_id bigserial NOT NULL UNIQUE,
        slug text NOT NULL UNIQUE,
        name text NOT NULL,
        visible boolean NOT NULL DEFAULT true,
        product_type text NOT NULL,
        sku text,
        description text,
        price numeric(14, 2) NOT NULL,
        discounted_price numeric(14, 2) NOT NULL,
        doc jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX products_name ON products (name);
      CREATE INDEX products_price ON products (price);
      CREATE TABLE product_variants (
        product_id text NOT NULL REFERENCES products(id) ON DELETE CASCADE,
        id text NOT NULL,
        position integer NOT NULL,
        choices jsonb NOT NULL,
        variant_name text NOT NULL,
        sku text,
        visible boolean NOT NULL,
        in_stock boolean NOT NULL,
        quantity integer,
        doc jsonb NOT NULL,
        PRIMARY KEY (product_id, id)
      );
    `,
  },
  {
    // A membership never outlives its product, whatever writes race (collections were made first,
    // so the key is added here). Rows of products already gone are dropped first.
    id: '0120_collection_products_product',
    sql: `
      DELETE FROM collection_products cp WHERE NOT EXISTS (SELECT 1 FROM products p WHERE p.id = cp.product_id);
      ALTER TABLE collection_products ADD CONSTRAINT collection_products_product
        FOREIGN KEY (product_id) REFERENCES products(id) ON DELETE CASCADE;
    `,
  },
];

type Row = Record<string, any>;

/** The SQL that reads a product row (with its numeric id as text). */
export const PRODUCT_COLUMNS = `p.id, p.numeric_id::text AS numeric_id, p.slug, p.name, p.visible, p.product_type,
  p.doc, p.created_at, p.updated_at`;

function rowToState(r: Row, variants: VariantState[], collectionIds: string[]): ProductState {
  return {
    ...(r.doc as Omit<ProductState, 'variants' | 'collectionIds'>),
    id: r.id,
    name: r.name,
    slug: r.slug,
    visible: r.visible,
    productType: r.product_type,
    numericId: String(r.numeric_id),
    createdDate: new Date(r.created_at).toISOString(),
    lastUpdated: new Date(r.updated_at).toISOString(),
    variants,
    collectionIds,
  };
}

/** Loads products by id (in the order of `rows`), with their variants and collections. */
export async function hydrate(sql: Sql, rows: Row[]): Promise<ProductState[]> {
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id as string);
  const [variantRows, memberRows] = await Promise.all([
    sql.query(
      'SELECT product_id, doc FROM product_variants WHERE product_id = ANY($1::text[]) ORDER BY product_id, position',
      [ids],
    ),
    sql.query(
      `SELECT cp.product_id, cp.collection_id FROM collection_products cp
       WHERE cp.product_id = ANY($1::text[]) ORDER BY cp.product_id, cp.collection_id`,
      [ids],
    ),
  ]);
  const variants = new Map<string, VariantState[]>();
  for (const v of variantRows) {
    const list = variants.get(v.product_id) ?? [];
    list.push(v.doc as VariantState);
    variants.set(v.product_id, list);
  }
  const members = new Map<string, string[]>();
  for (const m of memberRows) {
    const list = members.get(m.product_id) ?? [];
    list.push(m.collection_id);
    members.set(m.product_id, list);
  }
  return rows.map((r) => rowToState(r, variants.get(r.id) ?? [], members.get(r.id) ?? []));
}

/** One product's state, or undefined. `lock` takes a row lock for a read-modify-write. */
export async function loadProduct(sql: Sql, id: string, lock = false): Promise<ProductState | undefined> {
  const rows = await sql.query(
    `SELECT ${PRODUCT_COLUMNS} FROM products p WHERE p.id = $1${lock ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return (await hydrate(sql, rows))[0];
}

/**
 * Locks the rows of these products (in id order, so that two transactions locking overlapping sets
 * cannot deadlock) until the transaction ends. Reads in the same transaction then see their latest
 * committed state, and no other writer changes them meanwhile. Unknown ids are ignored; the ids
 * found are returned. `NO KEY UPDATE` for a write that changes no key (a membership's `updated_at`).
 */
export async function lockProducts(
  sql: Sql,
  ids: readonly string[],
  mode: 'UPDATE' | 'NO KEY UPDATE' = 'UPDATE',
): Promise<Set<string>> {
  const unique = [...new Set(ids)].sort();
  if (!unique.length) return new Set();
  const rows = await sql.query<{ id: string }>(
    `SELECT id FROM products WHERE id = ANY($1::text[]) ORDER BY id FOR ${mode}`,
    [unique],
  );
  return new Set(rows.map((r) => r.id));
}

function docOf(p: ProductState) {
  const {
    variants: _v,
    collectionIds: _c,
    numericId: _n,
    createdDate: _cd,
    lastUpdated: _lu,
    id: _id,
    ...doc
  } = p;
  return doc;
}

/** The URL a product's media item `id` was added by (an `ext-` id's), from any product holding it. */
export async function mediaItemUrl(sql: Sql, id: string): Promise<string | undefined> {
  const [found] = await sql.query<{ url: string }>(
    `SELECT m->>'url' AS url FROM products p, jsonb_array_elements(p.doc->'media') m
      WHERE m->>'id' = $1 LIMIT 1`,
    [id],
  );
  return found?.url;
}

/**
 * Writes a product and its variants (replacing the stored variants). Returns the product with its
 * numeric id and dates as stored.
 */
export async function saveProduct(sql: Sql, p: ProductState, now: Date, discountedCents: number) {
  const params = [
    p.id,
    p.slug,
    p.name,
    p.visible,
    p.productType,
    p.sku ?? null,
    p.description ?? null,
    toDecimalString(p.price),
    toDecimalString(discountedCents),
    JSON.stringify(docOf(p)),
    now,
  ];
  const rows = await sql.query(
    `INSERT INTO products (id, slug, name, visible, product_type, sku, description, price, discounted_price, doc, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
     ON CONFLICT (id) DO UPDATE SET slug = $2, name = $3, visible = $4, product_type = $5, sku = $6,
       description = $7, price = $8, discounted_price = $9, doc = $10, updated_at = $11
     RETURNING numeric_id::text AS numeric_id, created_at, updated_at`,
    params,
  );
  await sql.query('DELETE FROM product_variants WHERE product_id = $1', [p.id]);
  if (p.variants.length) {
    const values: string[] = [];
    const vp: unknown[] = [];
    p.variants.forEach((v, i) => {
      const b = vp.length;
      values.push(`(${Array.from({ length: 10 }, (_, k) => `$${b + k + 1}`).join(', ')})`);
      vp.push(
        p.id,
        v.id,
        i,
        JSON.stringify(v.choices),
        variantName(p, v),
        variantSku(p, v) ?? null,
        variantVisible(v),
        variantInStock(p, v),
        p.trackInventory ? (v.quantity ?? 0) : null,
        JSON.stringify(v),
      );
    });
    await sql.query(
      `INSERT INTO product_variants (product_id, id, position, choices, variant_name, sku, visible, in_stock, quantity, doc) VALUES ${values.join(', ')}`,
      vp,
    );
  }
  const r = rows[0]!;
  return {
    ...p,
    numericId: String(r.numeric_id),
    createdDate: new Date(r.created_at).toISOString(),
    lastUpdated: new Date(r.updated_at).toISOString(),
  };
}

/** Times a write with a slug made from the name runs when a concurrent writer took that slug. */
const SLUG_ATTEMPTS = 5;

/**
 * Runs a write (`fn`, a transaction of its own) that stores a slug. A unique-slug violation from a
 * concurrent writer (PostgreSQL 23505 on a slug index) becomes the same field violation a
 * sequential writer would get when the caller gave the slug. When it was made from the name
 * (`generated`), the caller asked for none: the write runs again and `uniqueSlug` picks a free one.
 */
export async function slugSafe<T>(
  field: string,
  what: string,
  generated: boolean,
  fn: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      const err = e as { code?: string; constraint?: string; message?: string };
      if (err?.code !== '23505' || !/slug/.test(err.constraint ?? err.message ?? '')) throw e;
      if (generated && attempt < SLUG_ATTEMPTS) continue;
      throw generated
        ? appError(409, 'SLUG_CONFLICT', `No free slug for the ${what} could be made; try again`)
        : invalid([
            {
              field,
              description: `is already used by another ${what}`,
              violatedRule: 'OTHER',
              ruleName: 'UNIQUE',
            },
          ]);
    }
  }
}

/**
 * Latin letters that are no base letter with a mark (NFKD leaves them whole), as the common slug
 * libraries spell them: `ß` is `ss`, `æ` is `ae`, `ø` is `o`, `ł` is `l`, … (lower case: the name
 * is lowered first, `ẞ` to `ß`, `Ł` to `ł`).
 */
const LETTERS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ħ: 'h',
  ı: 'i',
  ĸ: 'k',
  ŋ: 'ng',
  ŧ: 't',
  ſ: 's',
};
const LETTER_RE = new RegExp(`[${Object.keys(LETTERS).join('')}]`, 'g');

/**
 * A slug from a name: lower case ASCII words joined by hyphens. Letters with marks lose them
 * (`ä` is `a`, `é` is `e`), the letters of `LETTERS` are spelled out; anything else (another
 * script) is a separator, and a name of nothing else is `item`.
 */
export function slugify(name: string): string {
  const s = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(LETTER_RE, (l) => LETTERS[l]!)
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
  return s || 'item';
}

/**
 * A slug not yet used in `table` (`base`, `base-2`, `base-3`, …), ignoring the row `exceptId`.
 * Writers of the same base take turns until their transactions end, so that concurrent ones do
 * not all pick the same free slug (on PGlite, whose transactions already run one at a time, the
 * lock is free).
 */
export async function uniqueSlug(
  sql: Sql,
  table: 'products' | 'collections',
  base: string,
  exceptId?: string,
) {
  await sql.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${table}.slug:${base}`]);
  const rows = await sql.query<{ slug: string }>(
    `SELECT slug FROM ${table} WHERE (slug = $1 OR slug LIKE $2) AND id IS DISTINCT FROM $3`,
    [base, `${base.replace(/[\\%_]/g, '\\$&')}-%`, exceptId ?? null],
  );
  const taken = new Set(rows.map((r) => r.slug));
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

/**
 * The slug of a product or collection: the given one, which must be free (else a 400 naming
 * `<entity>.slug`), or a free one made from its name.
 */
export async function entitySlug(
  sql: Sql,
  entity: 'product' | 'collection',
  wanted: string | undefined,
  name: string,
  id: string,
) {
  const table = entity === 'product' ? 'products' : 'collections';
  if (wanted === undefined) return uniqueSlug(sql, table, slugify(name), id);
  const taken = await sql.query(`SELECT 1 FROM ${table} WHERE slug = $1 AND id <> $2`, [wanted, id]);
  if (taken.length)
    throw invalid([
      {
        field: `${entity}.slug`,
        description: `is already used by another ${entity}`,
        violatedRule: 'OTHER',
        ruleName: 'UNIQUE',
      },
    ]);
  return wanted;
}
