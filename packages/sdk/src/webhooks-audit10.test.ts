/** `webhooks.process` called from plain JavaScript without its options, found by the tenth audit: failed before its fix. */
import { expect, it } from 'vitest';
import { process as processWebhook, WebhookError } from './webhooks.ts';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

it('without its options, a body is refused as a WebhookError (no key), not a TypeError', async () => {
  // `options.publicKey` of no options was a TypeError, not the error the module documents.
  const body = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64({ iat: 1 })}.${b64('sig')}`;
  const err = await (processWebhook as (body: string) => Promise<unknown>)(body).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(WebhookError);
  expect(err).toMatchObject({ code: 'INVALID_KEY' });
});
