/**
 * Storage of apps and their tokens (tables `apps`, `app_codes`, `app_refresh_tokens` and the apps'
 * rows of `access_tokens`): what the grants, the installer and `POST /oauth/access` in `apps.ts`
 * read and write. Tokens and codes are stored only as hashes.
 * @module
 */
import type { Emulator } from '../../context.ts';
import { hashToken, newToken } from '../../crypto.ts';
import type { Sql } from '../../db/index.ts';

/** Install codes live 10 minutes and work once. */
const APP_CODE_TTL_MS = 10 * 60 * 1000;

export interface AppRow {
  app_id: string;
  name: string;
  secret_hash: string;
  redirect_urls: string[];
}

export const appById = async (sql: Sql, appId: string) =>
  (await sql.query<AppRow>('SELECT * FROM apps WHERE app_id = $1', [appId]))[0];

/**
 * A new access token for an app on an instance (`instanceId` null: the app itself, no instance).
 * `installCodeHash` names the install code it comes from (directly or through the code's refresh
 * token), so that a replay of that code can revoke it.
 */
export async function issueAppToken(
  emu: Emulator,
  sql: Sql,
  appId: string,
  instanceId: string | null,
  installCodeHash: string | null = null,
) {
  const access = newToken('OauthNG.');
  const ttl = emu.config.accessTokenTtl;
  await sql.query(
    `INSERT INTO access_tokens (token_hash, client_id, subject_type, app_id, instance_id, refresh_family, expires_at, created_at)
     VALUES ($1,$2,'APP',$2,$3,$4,$5,$6)`,
    [
      hashToken(access),
      appId,
      instanceId,
      installCodeHash,
      new Date(emu.now().getTime() + ttl * 1000),
      emu.now(),
    ],
  );
  return { access_token: access, expires_in: ttl, token_type: 'Bearer' };
}

/** The app and instance of a live app access token, if it is one. */
export async function appTokenOwner(emu: Emulator, accessToken: string) {
  const [token] = await emu.db.query<{ app_id: string | null; instance_id: string | null }>(
    "SELECT app_id, instance_id FROM access_tokens WHERE token_hash = $1 AND expires_at > $2 AND subject_type = 'APP'",
    [hashToken(accessToken), emu.now()],
  );
  return token;
}

/** A new one-shot install code of an app on an instance. */
export async function newInstallCode(emu: Emulator, appId: string, instanceId: string) {
  const code = newToken('OAC.');
  await emu.db.query(
    'INSERT INTO app_codes (code_hash, app_id, instance_id, expires_at) VALUES ($1, $2, $3, $4)',
    [hashToken(code), appId, instanceId, new Date(emu.now().getTime() + APP_CODE_TTL_MS)],
  );
  return code;
}

type Grant = { tokens: Record<string, unknown> } | { error: string };

/**
 * Trades an install code for an access token and the refresh token kept with the installation.
 * A code works once, for its own app, within its 10 minutes; a replayed one revokes the refresh
 * token it gave and every access token issued from the code or that refresh token (as for member
 * codes, checklist 36).
 */
export async function redeemInstallCode(
  emu: Emulator,
  sql: Sql,
  appId: string,
  code: string,
): Promise<Grant> {
  const codeHash = hashToken(code);
  const [row] = await sql.query<{
    app_id: string;
    instance_id: string;
    expires_at: Date;
    used_at: Date | null;
  }>('SELECT * FROM app_codes WHERE code_hash = $1 FOR UPDATE', [codeHash]);
  if (!row || row.app_id !== appId) return { error: 'The authorization code is invalid' };
  if (row.used_at) {
    await sql.query('UPDATE app_refresh_tokens SET revoked_at = $2 WHERE code_hash = $1', [
      codeHash,
      emu.now(),
    ]);
    // The access tokens it produced too, through the refresh token as well (RFC 6749 §4.1.2).
    await sql.query('DELETE FROM access_tokens WHERE refresh_family = $1', [codeHash]);
    return { error: 'The authorization code was already used' };
  }
  if (new Date(row.expires_at) <= emu.now()) return { error: 'The authorization code has expired' };
  await sql.query('UPDATE app_codes SET used_at = $2 WHERE code_hash = $1', [codeHash, emu.now()]);
  const refresh = newToken('OauthNG.');
  await sql.query(
    'INSERT INTO app_refresh_tokens (token_hash, app_id, instance_id, code_hash, created_at) VALUES ($1, $2, $3, $4, $5)',
    [hashToken(refresh), appId, row.instance_id, codeHash, emu.now()],
  );
  const token = await issueAppToken(emu, sql, appId, row.instance_id, codeHash);
  return { tokens: { ...token, refresh_token: refresh } };
}

/**
 * A new access token for an installation's refresh token. The legacy endpoint's refresh tokens
 * last until revoked, and come back unchanged.
 */
export async function refreshAppToken(
  emu: Emulator,
  sql: Sql,
  appId: string,
  refreshToken: string,
): Promise<Grant> {
  // Held shared: a revoke or a replayed code (which take it for update) waits, or is waited for,
  // so no access token made here outlives them.
  const [rt] = await sql.query<{
    app_id: string;
    instance_id: string;
    code_hash: string;
    revoked_at: Date | null;
  }>(
    'SELECT app_id, instance_id, code_hash, revoked_at FROM app_refresh_tokens WHERE token_hash = $1 FOR SHARE',
    [hashToken(refreshToken)],
  );
  if (!rt || rt.revoked_at || rt.app_id !== appId)
    return { error: 'The refresh token is invalid or revoked' };
  const token = await issueAppToken(emu, sql, appId, rt.instance_id, rt.code_hash);
  return { tokens: { ...token, refresh_token: refreshToken } };
}
