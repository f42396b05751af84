/**
 * A server-side guard for web methods (spec 6): `anyone` (visitor, member or platform user),
 * `site-member` (member or user), `admin` (user only), checked with token-info.
 * @module
 */
import type { AnyClient } from '../client.ts';
import { ShopkitError } from '../http/errors.ts';
import { call } from '../http/op.ts';

export type AccessLevel = 'anyone' | 'site-member' | 'admin';

const ALLOWED: Record<AccessLevel, string[]> = {
  anyone: ['VISITOR', 'MEMBER', 'USER'],
  'site-member': ['MEMBER', 'USER'],
  admin: ['USER'],
};

const denied = (message: string, code: string) => new ShopkitError(message, { code, description: message });

/**
 * Checks the caller of a web method; resolves with the token's subject, or throws
 * `Request is missing authentication data` / `Insufficient permissions`.
 * @example
 * const who = await requireAccess(client, 'site-member', request.headers.get('authorization'));
 */
export async function requireAccess(
  client: AnyClient,
  level: AccessLevel,
  authorization: string | null | undefined,
) {
  // The raw token, as the platform's clients send it (wire §1.6), also from a caller that sends
  // the usual `Bearer <token>`: token-info was asked about that whole string, and refused it.
  const token = authorization
    ?.split(',')[0]
    ?.replace(/^\s*Bearer\s/i, '')
    .trim();
  if (!token) throw denied('Request is missing authentication data', 'UNAUTHENTICATED');
  const info = await call<{ active: boolean; subjectType: string; subjectId?: string }>(
    client,
    { method: 'POST', path: '/oauth2/token-info', args: ['token'] },
    [token],
  );
  if (!info.active || !ALLOWED[level].includes(info.subjectType))
    throw denied('Insufficient permissions', 'PERMISSION_DENIED');
  return info;
}

/** Wraps a web method with `requireAccess`: `(authorization, ...args) => fn(...args)`. */
export const webMethod =
  <A extends unknown[], R>(client: AnyClient, level: AccessLevel, fn: (...args: A) => R | Promise<R>) =>
  async (authorization: string | null | undefined, ...args: A): Promise<R> => {
    await requireAccess(client, level, authorization);
    return fn(...args);
  };
