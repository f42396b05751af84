/**
 * The catalog: collections (and, with the catalog issue, products, variants and writes).
 * @module
 */
import type { Domain } from '../../context.ts';
import { collectionMigrations, collectionRoutes, seedCollections } from './collections.ts';

export const catalog: Domain = {
  name: 'catalog',
  migrations: [...collectionMigrations],
  routes(router, emu) {
    collectionRoutes(router, emu);
  },
  async seed(_emu, sql) {
    await seedCollections(sql);
  },
};
