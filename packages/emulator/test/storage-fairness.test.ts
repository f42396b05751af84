/**
 * Fairness of embedded storage under concurrent load. PGlite runs synchronously behind promises on
 * one connection: its jobs must be served in the order they arrive, and must not keep Node's event
 * loop from reading sockets and accepting connections meanwhile. What is asserted is counts and
 * orders of events, never times.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDb } from '../src/db/index.ts';
import { createCollection, exited, getCollection, startCli } from './faults-cli.ts';

describe('embedded storage (PGlite)', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openDb('memory');
    await db.exec('CREATE SEQUENCE turn; CREATE TABLE seen (call int NOT NULL, n int NOT NULL)');
  });
  afterAll(() => db?.close());

  it('serves statements, scripts and transactions in the order they were queued', async () => {
    const insert = "INSERT INTO seen (call, n) VALUES ($1, nextval('turn'))";
    const kinds = ['statement', 'transaction', 'script'] as const;
    await Promise.all(
      Array.from({ length: 30 }, (_, call) => {
        const kind = kinds[call % 3]!;
        if (kind === 'statement') return db.query(insert, [call]);
        if (kind === 'script') return db.exec(`INSERT INTO seen (call, n) VALUES (${call}, nextval('turn'))`);
        return db.tx(async (sql) => {
          await sql.query(insert, [call]);
          // A transaction holds the connection across other turns of the event loop.
          await new Promise((r) => setImmediate(r));
          await sql.query(insert, [call]);
        });
      }),
    );
    const order = (await db.query<{ call: number }>('SELECT call FROM seen ORDER BY n')).map((r) => r.call);
    const expected = Array.from({ length: 30 }, (_, call) =>
      kinds[call % 3] === 'transaction' ? [call, call] : [call],
    );
    expect(order).toEqual(expected.flat());
  });

  it('gives the event loop a turn between any two queued jobs', async () => {
    let done = 0;
    const jobs = Array.from({ length: 20 }, (_, i) =>
      db.query('SELECT $1::int AS i', [i]).then(() => {
        done++;
      }),
    );
    // Stands for other work that becomes ready meanwhile (a socket to read, a connection to
    // accept): one piece per turn of the event loop, noting how many jobs ran since the last one.
    const between: number[] = [];
    let seen = 0;
    let stop = false;
    const watch = () => {
      between.push(done - seen);
      seen = done;
      if (!stop) setImmediate(watch);
    };
    setImmediate(watch);
    await Promise.all(jobs);
    stop = true;
    await new Promise((r) => setImmediate(r));
    expect(Math.max(...between), `jobs between turns: ${between.join(', ')}`).toBeLessThanOrEqual(1);
  });
});

describe('the emulator on embedded storage under load', () => {
  const BUSY = 32;
  const LATE = 8;
  let cli: ReturnType<typeof startCli>;
  let info: { url: string; apiKey: string };
  beforeAll(async () => {
    cli = startCli('memory');
    info = await cli.ready;
  });
  afterAll(async () => {
    cli?.child.kill('SIGTERM');
    if (cli) await exited(cli.child);
  });

  it('serves a request on a new connection before requests sent after it (bounded overtaking)', async () => {
    const id = await createCollection(info.url, info.apiKey, 'Fairness');
    // When each request was sent and when it finished, as numbers from one counter: "before" and
    // "after" are orders of events, not times.
    let clock = 0;
    const busyDone: Array<{ sent: number; done: number }> = [];
    const rounds = new Array<number>(BUSY).fill(0);
    let stop = false;
    const busy = Array.from({ length: BUSY }, async (_, w) => {
      while (!stop) {
        const sent = ++clock;
        const res = await getCollection(info.url, info.apiKey, id);
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`busy client got ${res.status}`);
        busyDone.push({ sent, done: ++clock });
        rounds[w]!++;
      }
    });
    const failed = Promise.all(busy).then(() => {});
    let late: Array<{ sent: number; done: number }>;
    try {
      // Every busy client has its keep-alive connection, and together they keep the queue full.
      while (rounds.some((r) => r < 3)) await Promise.race([failed, new Promise((r) => setTimeout(r, 10))]);
      // Late clients each open a new connection and send one request.
      late = await Promise.all(
        Array.from(
          { length: LATE },
          () =>
            new Promise<{ sent: number; done: number }>((resolve, reject) => {
              const sent = ++clock;
              const req = http.get(
                `${info.url}/v2/collections/${encodeURIComponent(id)}`,
                { agent: false, headers: { authorization: info.apiKey } },
                (res) => {
                  res.resume();
                  res.on('end', () =>
                    res.statusCode === 200
                      ? resolve({ sent, done: ++clock })
                      : reject(new Error(`late client got ${res.statusCode}`)),
                  );
                },
              );
              req.on('error', reject);
            }),
        ),
      );
    } finally {
      stop = true;
      await failed;
    }

    // A request overtakes a late one if it was sent after it and finished before it. First come,
    // first served leaves room only for the few sent while the late one was still connecting:
    // fewer than one round of the busy clients' traffic. Unfair service (each new connection
    // accepted only after a full round of the others' requests) made it several rounds.
    const overtaken = late.map((l) => busyDone.filter((b) => b.sent > l.sent && b.done < l.done).length);
    expect(Math.max(...overtaken), `overtakes per late request: ${overtaken.join(', ')}`).toBeLessThan(BUSY);
  });
});
