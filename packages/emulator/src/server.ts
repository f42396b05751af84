/**
 * Serves the emulator over HTTP with @hono/node-server and shuts it down cleanly.
 * @module
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
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
  /** Stops accepting requests, lets in-flight ones finish, closes storage. */
  stop(): Promise<void>;
}

/** Starts an emulator listening on `host:port` (port 0 = any free port). */
export async function startEmulator(
  options: EmulatorOptions & { port?: number; host?: string } = {},
): Promise<RunningEmulator> {
  // A data directory it cannot use is refused in a sentence by createEmulator (datadir.ts).
  const instance = await createEmulator(options);
  const host = options.host ?? '127.0.0.1';
  // A port in use or an address that cannot be bound closes the storage again (a data directory
  // is left free for the next start).
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: instance.app.fetch, port: options.port ?? 0, hostname: host }, () => resolve(s));
    s.once('error', reject);
  }).catch(async (e: Error) => {
    await instance.close().catch(() => {});
    throw e;
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  instance.setPublicUrl(url);
  const webhookWorker = await startWebhooks(instance.emu, options.webhooks).catch(async (e: Error) => {
    server.close();
    await instance.close();
    throw e;
  });
  let stopping: Promise<void> | undefined;
  return {
    ...instance,
    url,
    deliverWebhooks: () => webhookWorker.flush(),
    stop() {
      stopping ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
        });
        await webhookWorker.stop();
        await instance.close();
      })();
      return stopping;
    },
  };
}
