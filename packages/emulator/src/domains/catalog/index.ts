/**
 * The catalog: products, variants, media and collections, read and write (catalog v1 and the
 * collections v2 reader), with the demo store.
 * @module
 */
import type { Domain } from '../../context.ts';
import { collectionMigrations, collectionRoutes, seedCollections } from './collections.ts';
import { CATALOG_EVENTS } from './events.ts';
import { productRoutes } from './products.ts';
import { seedProducts } from './seed.ts';
import { productMigrations } from './store.ts';
import { writeRoutes } from './writes.ts';

export const catalog: Domain = {
  name: 'catalog',
  migrations: [...collectionMigrations, ...productMigrations],
  events: CATALOG_EVENTS,
  plainEvents: CATALOG_EVENTS,
  routes(router, emu) {
    collectionRoutes(router, emu);
    productRoutes(router, emu);
    writeRoutes(router, emu);
  },
  base: (_emu, sql) => seedCollections(sql, true),
  async seed(emu, sql) {
    await seedCollections(sql);
    await seedProducts(emu, sql);
  },
};
