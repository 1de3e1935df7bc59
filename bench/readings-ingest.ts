/*
 * Readings per second from the broker to stored rows, against raw COPY into the same table in the
 * same run. On PostgreSQL; run with
 *   npm run bench:ingest-readings        (BENCH_DATABASE_URL names the server, default local;
 *                                          BENCH_DCUS, BENCH_METERS_PER_DCU, BENCH_DAYS, BENCH_ROUNDS size it)
 * The ingest's path is the whole of it: DCUs log in on the server's embedded broker and publish their
 * meters' load profile (a day of 15-minute rows per meter per message, QoS 1), the server maps device
 * keys to archive ids, screens, batches and writes them into the table.
 * The baseline is one COPY stream of as many rows straight into reading_profile, with no checks and
 * no conflict handling, its text made before its clock starts as the ingest's messages are: what the
 * table takes at best, of the same rows in the order the devices
 * deliver them (a day of all meters, then the next day). Rows meter by meter, each meter's days
 * together, fill the key's pages one after another and went in up to twice as fast in a separate
 * test: no device delivers them so, and that figure is printed beside, not used for the ratio.
 * Rounds alternate raw COPY and ingest on fresh keys (a shared machine is noisy); each round's ratio
 * is its ingest against the faster of the raw COPYs either side, and the median is the result.
 */
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { OBIS } from '@meterdesk/contracts';
import mqtt from 'mqtt';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { cleanup } from './lib/cleanup.mjs';
import { apiClient, fleetDatabase, freePort, ready, startServer } from './lib/fleet-server';

const DCUS = Number(process.env.BENCH_DCUS ?? 20);
const METERS_PER_DCU = Number(process.env.BENCH_METERS_PER_DCU ?? 50);
const DAYS = Number(process.env.BENCH_DAYS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DAY_MS = 86_400_000;
const INTERVAL_MS = 15 * 60_000;
const INTERVALS = 96;
/** Each round's days are its own: round r holds days firstDay + r·DAYS … */
const firstDay = Math.floor(Date.now() / DAY_MS) * DAY_MS - (ROUNDS * DAYS + 1) * DAY_MS;
const totalRows = DCUS * METERS_PER_DCU * DAYS * INTERVALS;

const db = await fleetDatabase('ingest', DCUS, METERS_PER_DCU);
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

/**
 * One COPY of a round's worth of profile rows for meters no archive holds (the table takes any key):
 * day by day, DCU by DCU, as the devices deliver them, or meter by meter.
 */
async function rawCopy(tag: string, order: 'delivered' | 'byMeter'): Promise<number> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const meters = DCUS * METERS_PER_DCU;
  const meterDays =
    order === 'delivered'
      ? Array.from({ length: DAYS * meters }, (_, n) => [n % meters, Math.floor(n / meters)] as const)
      : Array.from({ length: DAYS * meters }, (_, n) => [Math.floor(n / DAYS), n % DAYS] as const);
  // The text is made before the clock starts, as the ingest side's messages are.
  const chunks: string[] = [];
  let chunk = '';
  for (const [m, d] of meterDays) {
    const meterId = `${tag}${String(m).padStart(6, '0')}`;
    for (let i = 0; i < INTERVALS; i++) {
      const ts = new Date(firstDay + d * DAY_MS + (i + 1) * INTERVAL_MS).toISOString();
      const v = values(m, i);
      chunk += `${meterId}\t${ts}\t${v[OBIS.activeImport]}\t0\t${v[OBIS.reactiveImport]}\t0\t${v[OBIS.activePower]}\t2301\t2100\n`;
      if (chunk.length >= 65_536) {
        chunks.push(chunk);
        chunk = '';
      }
    }
  }
  if (chunk) chunks.push(chunk);
  const started = performance.now();
  await pipeline(
    Readable.from(chunks),
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
const { rows: lastMeters } = await db.sql.query(`select id from meter where dev_addr = any($1)`, [
  fleet.dcus.map((d) => d.meters.at(-1)?.devAddr),
]);

/**
 * Round `round`'s days through the broker: every DCU publishes its meters' days, one day of all its
 * meters per message, each after the last's PUBACK (which the server sends once the rows are stored).
 */
async function throughBroker(round: number): Promise<number> {
  const roundDay = firstDay + round * DAYS * DAY_MS;
  const messages = fleet.dcus.map((d) =>
    Array.from({ length: DAYS }, (_, day) =>
      JSON.stringify(
        d.meters.map((m, meter) => ({
          meter: m.devAddr,
          obis: OBIS.loadProfile,
          ts: new Date(roundDay + (day + 1) * DAY_MS).toISOString(),
          value: Array.from({ length: INTERVALS }, (_, i) => ({
            ts: new Date(roundDay + day * DAY_MS + (i + 1) * INTERVAL_MS).toISOString(),
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
  // Done when every row is counted: each DCU's last row is looked up by key until all are there (a
  // count of the table while rows arrive would load the database being measured), then the round's
  // rows are counted.
  const lastRow = new Date(roundDay + DAYS * DAY_MS);
  const deadline = Date.now() + 600_000;
  for (;;) {
    const { rows: last } = await db.sql.query(
      `select count(*)::int as n from reading_profile where meter_id = any($1) and ts = $2`,
      [lastMeters.map((m) => m.id), lastRow],
    );
    if (last[0].n === DCUS) {
      const { rows } = await db.sql.query(
        `select count(*)::int as n from reading_profile where meter_id not like 'raw%' and ts > $1 and ts <= $2`,
        [new Date(roundDay), lastRow],
      );
      if (rows[0].n >= totalRows) break;
    }
    if (Date.now() > deadline) throw new Error(`not all ${totalRows} rows stored within 10 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return totalRows / ((performance.now() - started) / 1000);
}

const round = (n: number) => Math.round(n).toLocaleString('en-US');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
try {
  const byMeter = await rawCopy('rawm', 'byMeter');
  const raws = [await rawCopy('raw0', 'delivered')];
  const ingests: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    ingests.push(await throughBroker(r));
    raws.push(await rawCopy(`raw${r + 1}`, 'delivered'));
  }
  const ratios = ingests.map((rate, r) => rate / Math.max(raws[r] as number, raws[r + 1] as number));
  console.log(
    `readings ingest: ${round(totalRows)} profile rows a round (${DCUS} DCUs × ${METERS_PER_DCU} meters × ${DAYS} days × ${INTERVALS}), ${ROUNDS} rounds`,
  );
  console.log(`  raw COPY, meter by meter (not the baseline): ${round(byMeter)} rows/s`);
  console.log(`  raw COPY, as delivered : ${raws.map(round).join(' | ')} rows/s`);
  console.log(`  broker → stored        : ${ingests.map(round).join(' | ')} rows/s`);
  console.log(
    `  ratio by round         : ${ratios.map((r) => r.toFixed(2)).join(' | ')} (each against the faster raw COPY beside it)`,
  );
  console.log(`  ratio (median)         : ${median(ratios).toFixed(2)} (target ≥ 0.5)`);
} finally {
  await Promise.all(clients.map((c) => c.endAsync()));
  api.close();
  await cleanup();
}
