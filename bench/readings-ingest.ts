/*
 * Readings per second from the broker to stored rows, against raw COPY into the same table in the
 * same run. On PostgreSQL; run with
 *   npm run bench:ingest-readings        (BENCH_DATABASE_URL names the server, default local)
 * The ingest's path is the whole of it: DCUs log in on the server's embedded broker and publish their
 * meters' load profile (a day of 15-minute rows per meter per message, QoS 1), the server maps device
 * keys to archive ids, screens, batches and merges through a staging table into the table.
 * The baseline is one COPY stream of as many rows straight into reading_profile, with no checks,
 * no staging and no conflict handling: what the table takes at best.
 */
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { OBIS } from '@meterdesk/contracts';
import mqtt from 'mqtt';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { apiClient, fleetDatabase, freePort, ready, startServer } from './lib/fleet-server';

const DCUS = Number(process.env.BENCH_DCUS ?? 20);
const METERS_PER_DCU = Number(process.env.BENCH_METERS_PER_DCU ?? 50);
const DAYS = Number(process.env.BENCH_DAYS ?? 4);
const DAY_MS = 86_400_000;
const INTERVAL_MS = 15 * 60_000;
const INTERVALS = 96;
const firstDay = Math.floor(Date.now() / DAY_MS) * DAY_MS - (DAYS + 1) * DAY_MS;
const totalRows = DCUS * METERS_PER_DCU * DAYS * INTERVALS;

const db = await fleetDatabase('meterdesk_bench_ingest', DCUS, METERS_PER_DCU);
const port = await freePort();
const mqttPort = await freePort();
const server = startServer(db, port, mqttPort);
const api = apiClient(port);
await ready(api, server);

const values = (meter: number, i: number) => ({
  [OBIS.activeImport]: 1_000_000 + meter * 1000 + i * 12,
  [OBIS.activeExport]: 0,
  [OBIS.reactiveImport]: 200_000 + i * 3,
  [OBIS.reactiveExport]: 0,
  [OBIS.activePower]: 480 + (i % 7),
  [OBIS.voltageL1]: 2301,
  [OBIS.currentL1]: 2100,
});

/** One COPY of `rows` profile rows for meters no archive holds (the table takes any key). */
async function rawCopy(tag: string): Promise<number> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const meters = DCUS * METERS_PER_DCU;
  const lines = Readable.from(
    (function* () {
      let chunk = '';
      for (let m = 0; m < meters; m++) {
        const meterId = `${tag}${String(m).padStart(6, '0')}`;
        for (let d = 0; d < DAYS; d++) {
          for (let i = 0; i < INTERVALS; i++) {
            const ts = new Date(firstDay + d * DAY_MS + (i + 1) * INTERVAL_MS).toISOString();
            const v = values(m, i);
            chunk += `${meterId}\t${ts}\t${v[OBIS.activeImport]}\t0\t${v[OBIS.reactiveImport]}\t0\t${v[OBIS.activePower]}\t2301\t2100\n`;
            if (chunk.length >= 65_536) {
              yield chunk;
              chunk = '';
            }
          }
        }
      }
      if (chunk) yield chunk;
    })(),
  );
  const started = performance.now();
  await pipeline(
    lines,
    client.query(
      copyFrom(
        'COPY reading_profile (meter_id, ts, active_import, active_export, reactive_import, reactive_export, active_power, voltage_l1, current_l1) FROM STDIN',
      ),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  await client.end();
  return totalRows / seconds;
}

/** Every DCU publishes its meters' days, one day of all its meters per message, each after the last's PUBACK. */
async function throughBroker(): Promise<number> {
  const fleet = JSON.parse(readFileSync(db.fleetFile, 'utf8')) as {
    dcus: { dcuNo: string; credentials: { username: string; password: string }; meters: { devAddr: string }[] }[];
  };
  const clients = await Promise.all(
    fleet.dcus.map((d) =>
      mqtt.connectAsync(`mqtt://127.0.0.1:${mqttPort}`, {
        protocolVersion: 4,
        username: d.credentials.username,
        password: d.credentials.password,
        clientId: d.credentials.username,
      }),
    ),
  );
  const messages = fleet.dcus.map((d) =>
    Array.from({ length: DAYS }, (_, day) =>
      JSON.stringify(
        d.meters.map((m, meter) => ({
          meter: m.devAddr,
          obis: OBIS.loadProfile,
          ts: new Date(firstDay + (day + 1) * DAY_MS).toISOString(),
          value: Array.from({ length: INTERVALS }, (_, i) => ({
            ts: new Date(firstDay + day * DAY_MS + (i + 1) * INTERVAL_MS).toISOString(),
            values: values(meter, i),
          })),
        })),
      ),
    ),
  );
  const started = performance.now();
  await Promise.all(
    fleet.dcus.map(async (d, n) => {
      const client = clients[n] as mqtt.MqttClient;
      for (const message of messages[n] ?? [])
        await client.publishAsync(`ami/dcu/${d.dcuNo}/data`, message, { qos: 1 });
    }),
  );
  // Done when every row is counted. Counting the table while rows arrive would load the database
  // the ingest is measured on: each DCU's last row is looked up by key until all are there, and only
  // then is the table counted (the broker acknowledges a message before it is stored, so the
  // acknowledgements say nothing).
  const { rows: lastMeters } = await db.sql.query(`select id from meter where dev_addr = any($1)`, [
    fleet.dcus.map((d) => d.meters.at(-1)?.devAddr),
  ]);
  const lastRow = new Date(firstDay + DAYS * DAY_MS);
  const deadline = Date.now() + 600_000;
  for (;;) {
    const { rows: last } = await db.sql.query(
      `select count(*)::int as n from reading_profile where meter_id = any($1) and ts = $2`,
      [lastMeters.map((m) => m.id), lastRow],
    );
    if (last[0].n === DCUS) {
      const { rows } = await db.sql.query(
        `select count(*)::int as n from reading_profile where meter_id not like 'raw%'`,
      );
      if (rows[0].n >= totalRows) break;
    }
    if (Date.now() > deadline) throw new Error(`not all ${totalRows} rows stored within 10 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(clients.map((c) => c.endAsync()));
  return totalRows / seconds;
}

try {
  const before = await rawCopy('rawa');
  const ingest = await throughBroker();
  const after = await rawCopy('rawb');
  const baseline = Math.max(before, after);
  const round = (n: number) => Math.round(n).toLocaleString('en-US');
  console.log(
    `readings ingest: ${round(totalRows)} profile rows (${DCUS} DCUs × ${METERS_PER_DCU} meters × ${DAYS} days × ${INTERVALS})`,
  );
  console.log(`  broker → stored : ${round(ingest)} rows/s`);
  console.log(
    `  raw COPY        : ${round(baseline)} rows/s (before ${round(before)}, after ${round(after)}; the faster kept)`,
  );
  console.log(`  ratio           : ${(ingest / baseline).toFixed(2)} (target ≥ 0.5)`);
} finally {
  api.close();
  server.child.kill('SIGTERM');
  await server.exited;
  await db.drop();
}
