/**
 * Serves the emulator over HTTP with @hono/node-server and shuts it down cleanly.
 * @module
 */
import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { getRequestListener, RequestError } from '@hono/node-server';
import { createEmulator, type EmulatorInstance, type EmulatorOptions } from './app.ts';
import { startWebhooks } from './domains/webhooks/index.ts';

export interface RunningEmulator extends EmulatorInstance {
  /** `http://host:port`, with the port actually bound. */
  url: string;
  /**
   * Delivers now what the webhook worker would deliver over its next polls (every
   * `webhookPollMs`, default 250 ms): events written before the call are queued and sent, one
   * after another per entity, and it resolves when each delivery due has been answered or has
   * failed. A failed delivery's retry, scheduled for later, is not waited for; storage that fails
   * rejects it. For tests:
   *
   * @example
   * await cart.addToCurrentCart({ lineItems });
   * await emulator.deliverWebhooks();
   * expect(received).toHaveLength(1);
   */
  deliverWebhooks(): Promise<void>;
  /**
   * Stops accepting requests, lets in-flight ones finish (a request still arriving, its headers
   * or its body, has `headersTimeoutMs`), closes idle connections and storage.
   */
  stop(): Promise<void>;
}

/** Where and how the HTTP server listens; the rest of the options are the emulator's own. */
export interface ServerOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Address to listen on (default `127.0.0.1`). */
  host?: string;
  /**
   * How long a client may take to send a request's line and headers, in milliseconds (default
   * 60 000, Node's; at most 300 000, the limit for a whole request). A slower one is answered 408
   * `REQUEST_TIMEOUT` and its connection closed, so that trickling clients cannot hold connections.
   */
  headersTimeoutMs?: number;
}

/** Node's limit for a whole request, which the headers' limit cannot pass. */
const REQUEST_TIMEOUT_MS = 300_000;

/** Starts an emulator listening on `host:port` (port 0 = any free port). */
export async function startEmulator(options: EmulatorOptions & ServerOptions = {}): Promise<RunningEmulator> {
  const headersTimeout = options.headersTimeoutMs ?? 60_000;
  if (!Number.isInteger(headersTimeout) || headersTimeout < 1 || headersTimeout > REQUEST_TIMEOUT_MS)
    throw new RangeError(
      `headersTimeoutMs must be a whole number of milliseconds from 1 to ${REQUEST_TIMEOUT_MS}, not ${headersTimeout}`,
    );
  // A data directory it cannot use is refused in a sentence by createEmulator (datadir.ts).
  const instance = await createEmulator(options);
  const host = options.host ?? '127.0.0.1';
  // A port in use or an address that cannot be bound closes the storage again (a data directory
  // is left free for the next start).
  // Hono's listener answers a request it cannot make a URL of (`OPTIONS *`, a Host header that
  // names no host: `a b`, `x:99999`) with an empty 400, and Node one without a Host header (HTTP/1.1)
  // with another: each gets the platform's envelope instead, as every other refusal does.
  const honoListener = getRequestListener(instance.app.fetch, {
    hostname: host,
    errorHandler: (e) =>
      e instanceof RequestError
        ? envelope(400, 'MALFORMED_REQUEST', 'The request target or its Host header is not a valid URL')
        : envelope(500, 'INTERNAL_ERROR', 'Internal error'),
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = createServer(
      {
        headersTimeout,
        requestTimeout: REQUEST_TIMEOUT_MS,
        // Node looks for late requests this often (30 s by default): a shorter limit is kept to
        // within a quarter of itself.
        connectionsCheckingInterval: Math.min(30_000, Math.max(10, Math.floor(headersTimeout / 4))),
        // Checked below, to answer it in the envelope (RFC 9112 §3.2: a 400 all the same).
        requireHostHeader: false,
      },
      (req, res) => {
        if (req.httpVersion === '1.1' && req.headers.host === undefined)
          writeEnvelope(res, 400, 'MALFORMED_REQUEST', 'An HTTP/1.1 request needs a Host header');
        else honoListener(req, res);
      },
    );
    s.once('error', reject);
    s.listen(options.port ?? 0, host, () => resolve(s));
  }).catch(async (e: Error) => {
    await instance.close().catch(() => {});
    throw e;
  });
  server.on('clientError', answerClientError);
  // A CONNECT (a proxy tunnel) goes to this listener, not the app; without one Node closed it unanswered.
  server.on('connect', (_: unknown, socket: Duplex) =>
    refuse(socket, 405, 'METHOD_NOT_ALLOWED', 'CONNECT is not supported: the emulator is no proxy'),
  );
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  instance.setPublicUrl(url);
  const webhookWorker = await startWebhooks(instance.emu, options.webhooks).catch(async (e: Error) => {
    server.close();
    await instance.close();
    throw e;
  });
  // `close()` ends idle connections only, and a client that keeps its connection busy sends the
  // next request on it as soon as one is answered: a stop under load never ended. Once stopping,
  // every answer closes its connection.
  let closing = false;
  // Per connection, the requests being answered and the bytes read when it was last at rest.
  // `close()` waits for every connection to end, and Node stops timing connections out once it
  // closes: one on which a client sent no request (a browser's preconnection) held a stop for
  // ever. The stop closes a connection at rest that has sent nothing since, gives one that has
  // (a request on its way, its headers or its body) the headers' time limit, and closes one being
  // answered after its answer.
  const connections = new Map<Socket, { answering: number; restAt: number; req?: IncomingMessage }>();
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { answering: 0, restAt: 0 });
    socket.once('close', () => connections.delete(socket));
  });
  // (Not an answer Hono made at once, as to a request line it cannot read: its headers are sent.)
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const state = connections.get(req.socket as Socket);
    if (state) {
      state.answering++;
      state.req = req;
    }
    res.once('close', () => {
      if (state && !--state.answering) state.restAt = req.socket.bytesRead;
    });
    if (closing && !res.headersSent) res.setHeader('Connection', 'close');
  });
  // `late`: the headers' time limit has passed since the stop; a request whose body is still
  // arriving (a client trickling it) is closed then too, unanswered, as its headers would have been
  // (nothing was written: its route was still reading it). One whose body is all here is answered.
  const closeAtRest = (late: boolean) => {
    for (const [socket, { answering, restAt, req }] of connections)
      if (answering ? late && req && !req.complete : late || socket.bytesRead === restAt) socket.destroy();
  };
  let stopping: Promise<void> | undefined;
  return {
    ...instance,
    url,
    deliverWebhooks: () => webhookWorker.flush(),
    stop() {
      stopping ??= (async () => {
        closing = true;
        await new Promise<void>((resolve) => {
          const late = setTimeout(() => closeAtRest(true), headersTimeout);
          server.close(() => {
            clearTimeout(late);
            resolve();
          });
          closeAtRest(false);
        });
        await webhookWorker.stop();
        await instance.close();
      })();
      return stopping;
    },
  };
}

/**
 * Answers what Node's HTTP parser refuses before the app sees a request (a request line and
 * headers over 16 KiB, a malformed request line or header, a body with two lengths) in the
 * platform's envelope, as every other refusal: Node's own answer is a status line with no body. The
 * connection closes after it, as Node's does (the rest of the stream cannot be read as requests).
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket) {
  const answering = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || answering?.headersSent) return socket.destroy();
  if (err.code === 'HPE_HEADER_OVERFLOW')
    refuse(
      socket,
      431,
      'REQUEST_HEADER_FIELDS_TOO_LARGE',
      'The request line and headers are larger than 16 KiB',
    );
  else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    refuse(socket, 408, 'REQUEST_TIMEOUT', 'The request did not arrive in time');
  else refuse(socket, 400, 'MALFORMED_REQUEST', 'The request is not well-formed HTTP/1.1');
}

/** The body of the platform's error envelope. */
const envelopeBody = (code: string, description: string) =>
  JSON.stringify({ message: description, details: { applicationError: { code, description, data: {} } } });

/** The platform's error envelope as a `Response`. */
function envelope(status: number, code: string, description: string) {
  return new Response(envelopeBody(code, description), {
    status,
    headers: { 'Content-Type': 'application/json', 'X-Wix-Request-Id': randomUUID() },
  });
}

/** Answers `res` with the platform's error envelope, its connection closed after it. */
function writeEnvelope(res: ServerResponse, status: number, code: string, description: string) {
  const body = envelopeBody(code, description);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'X-Wix-Request-Id': randomUUID(),
    Connection: 'close',
  });
  res.end(body);
}

/** Writes the platform's error envelope straight to `socket`, and closes it. */
function refuse(socket: Duplex, status: number, code: string, description: string) {
  const body = envelopeBody(code, description);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Wix-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
  );
}
