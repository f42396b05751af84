/**
 * Silent login (wire §7): a hidden frame loads the authorize page with `prompt=none` and
 * `response_mode=web_message`; the answer is accepted only from the authorize page's exact origin
 * and from that frame's window, with the right state. Listener, timer and frame are removed in
 * every outcome.
 * @module
 */
import type { AnyClient } from '../client.ts';
import { fail } from '../http/engine.ts';
import { ShopkitError, systemError } from '../http/errors.ts';
import type { CallOptions } from '../http/op.ts';
import { createRedirectSession, type RedirectSessionOptions } from '../modules/redirects.ts';
import { exchangeCode, oauth } from './exchange.ts';
import { generateChallenge, generateState, generateVerifier } from './pkce.ts';
import { REDIRECT_SESSION_PATH } from './return-url.ts';
import type { Tokens } from './tokens.ts';

/**
 * The URL of a new redirect session, for the login flows. An answer without an absolute http(s)
 * one is unreadable (`INVALID_RESPONSE`), reported as a call's failure is: a missing
 * `redirectSession` was a `TypeError`, an `authUrl` of `undefined` sent the browser to
 * `/undefined`, and a `javascript:` URL ran as script of the page in the silent login's frame (or
 * where the application sends the browser).
 */
export async function sessionUrl(
  client: AnyClient,
  options: RedirectSessionOptions,
  call?: CallOptions,
): Promise<string> {
  const url = (await createRedirectSession(client, options, call)).redirectSession?.fullUrl;
  if (typeof url !== 'string' || !/^https?:\/\//i.test(url) || !URL.canParse(url))
    fail(
      client,
      systemError(null, {
        status: 200,
        code: 'INVALID_RESPONSE',
        reason: 'the answer holds no redirect session URL',
      }),
      'POST',
      REDIRECT_SESSION_PATH,
    );
  return url;
}

/**
 * Member tokens for a session token from `login`/`register` (role `member`; not stored: call
 * `client.auth.setTokens`). Browser only. Waits `timeoutMs` (default 120 000) for the answer.
 */
export async function getMemberTokensForDirectLogin(
  client: AnyClient,
  sessionToken: string,
  options: { timeoutMs?: number } = {},
): Promise<Tokens> {
  const w = globalThis as unknown as { window?: Window; document?: Document };
  if (!w.window || !w.document?.body)
    fail(
      client,
      new ShopkitError('getMemberTokensForDirectLogin needs a browser (window and document)', {
        code: 'BROWSER_REQUIRED',
        description: 'Silent login runs in a browser only',
      }),
      'GET',
      '/oauth2/authorize',
    );
  // A client without `OAuthStrategy` (an API key's, or none) is told so: it was a `TypeError`
  // reading its client id, or a redirect session sent with none and the frame's code then
  // exchanged by no strategy (checklist 34).
  const auth = oauth(client, REDIRECT_SESSION_PATH);
  const codeVerifier = generateVerifier();
  const state = generateState();
  const fullUrl = await sessionUrl(client, {
    auth: {
      authRequest: {
        clientId: auth.clientId,
        codeChallenge: await generateChallenge(codeVerifier),
        codeChallengeMethod: 'S256',
        responseMode: 'web_message',
        responseType: 'code',
        scope: 'offline_access',
        state,
        sessionToken,
      },
      prompt: 'none',
    },
  });
  const origin = new URL(fullUrl).origin;
  // The authorize page's answer; a refusal or the timeout is reported as a call's failure is.
  const code = await new Promise<string>((resolve, reject) => {
    const frame = w.document!.createElement('iframe');
    const end = () => {
      w.window!.removeEventListener('message', onMessage);
      clearTimeout(timer);
      frame.remove();
    };
    const onMessage = (ev: MessageEvent) => {
      const d = ev.data as {
        state?: unknown;
        code?: unknown;
        error?: unknown;
        error_description?: unknown;
      } | null;
      if (
        ev.origin !== origin ||
        ev.source !== frame.contentWindow ||
        !d ||
        typeof d !== 'object' ||
        d.state !== state
      )
        return;
      end();
      if (typeof d.code === 'string') resolve(d.code);
      else
        reject(
          new ShopkitError(`Silent login failed: ${String(d.error ?? 'no code')}`, {
            code: String(d.error ?? 'invalid_response'),
            description: String(
              d.error_description ?? d.error ?? 'The authorize page answered without a code',
            ),
          }),
        );
    };
    // Within timers' range: one of 2^31 ms or more (`Infinity`, for no limit) fired at once.
    const timer = setTimeout(
      () => {
        end();
        reject(
          new ShopkitError('OAuth flow timed out', { code: 'TIMEOUT', description: 'OAuth flow timed out' }),
        );
      },
      Math.min(options.timeoutMs ?? 120_000, 2 ** 31 - 1),
    );
    w.window!.addEventListener('message', onMessage);
    frame.style.display = 'none';
    frame.src = fullUrl;
    w.document!.body.appendChild(frame);
  }).catch((e) => fail(client, e, 'GET', '/oauth2/authorize'));
  return exchangeCode(client, auth, code, codeVerifier);
}
