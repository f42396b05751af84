/** `requireAccess` with a header in the `Bearer <token>` form (the SDK's thirteenth audit). */
import { expect, it } from 'vitest';
import { createClient } from '../client.ts';
import { requireAccess } from './guard.ts';

/** A client whose fetch answers token-info as the platform would for `token`, and records what it was asked. */
function platform(token: string) {
  const asked: unknown[] = [];
  const fetch = (async (_url: string, init: RequestInit) => {
    const body = JSON.parse(String(init.body)) as { token: string };
    asked.push(body.token);
    return Response.json(
      body.token === token
        ? { active: true, subjectType: 'MEMBER', subjectId: 'm-1' }
        : { active: false, subjectType: 'UNKNOWN' },
    );
  }) as typeof globalThis.fetch;
  return { asked, client: createClient({ baseUrl: 'https://platform.test', fetch }) };
}

it('asks token-info about the token itself when the web method was called with "Bearer <token>"', async () => {
  // The platform's clients send the raw token (wire §1.6); a web method called by one that sends
  // the usual bearer form was refused as "Insufficient permissions": token-info was asked about
  // the string "Bearer <token>".
  const { asked, client } = platform('tok-1');
  for (const header of ['Bearer tok-1', 'bearer  tok-1', 'tok-1', 'Bearer tok-1,IST.key'])
    expect(await requireAccess(client, 'site-member', header)).toMatchObject({ subjectId: 'm-1' });
  expect(asked).toEqual(['tok-1', 'tok-1', 'tok-1', 'tok-1']);
  // A bare "Bearer" carries no token: refused before anything is sent.
  await expect(requireAccess(client, 'anyone', 'Bearer ')).rejects.toThrow(
    'Request is missing authentication data',
  );
  expect(asked).toHaveLength(4);
});
