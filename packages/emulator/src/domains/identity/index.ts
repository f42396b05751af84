/**
 * Visitors and members: identities, passwords, login and registration, recovery, verification,
 * the authorize endpoint with its hosted login page, SSO with an (emulated) identity provider,
 * the member grants and token-info, apps and their tokens, and the development mailbox.
 * @module
 */
import type { Domain } from '../../context.ts';
import { appRoutes } from './apps.ts';
import { authenticationRoutes, recoveryRoutes, verificationRoutes } from './auth.ts';
import { devRoutes } from './dev.ts';
import { oauthRoutes } from './oauth.ts';
import { ssoRoutes } from './sso.ts';
import { IDENTITY_EVENTS, identityMigrations } from './store.ts';

export const identity: Domain = {
  name: 'identity',
  migrations: identityMigrations,
  events: Object.values(IDENTITY_EVENTS),
  routes(router, emu) {
    authenticationRoutes(router, emu);
    recoveryRoutes(router, emu);
    verificationRoutes(router, emu);
    oauthRoutes(router, emu);
    appRoutes(router, emu);
    ssoRoutes(router, emu);
    devRoutes(router, emu);
  },
};
