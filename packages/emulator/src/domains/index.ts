/** Every domain the emulator serves, in registration order. */
import type { Domain } from '../context.ts';
import { cart } from './cart/index.ts';
import { catalog } from './catalog/index.ts';
import { graphql } from './graphql/index.ts';
import { identity } from './identity/index.ts';
import { platform } from './platform/index.ts';
import { redirects } from './redirects/index.ts';
import { webhooks } from './webhooks/index.ts';

export const DOMAINS: Domain[] = [platform, catalog, redirects, identity, cart, webhooks, graphql];
