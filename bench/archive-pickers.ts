/*
 * Archive pickers at scale, on PostgreSQL:
 *   npm run bench:pickers     (BENCH_DATABASE_URL names the server; BENCH_METERS the archive, seeded by
 *                              lib/scale-db.mjs, 1,000,000 unless told; BENCH_REUSE=1 keeps it for the next run)
 * Each case asks an options call through the archive kit (ArchiveService.options, what the route
 * runs), then replays the very SQL the kit sent bare through `pg`; both are timed in this process and
 * the ratio of their p95 printed (the kit also resolves the caller's scope). The absolute times say
 * whether a picker stays interactive.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { OptionsQuery } from '@meterdesk/contracts';
import { asc, eq, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { SecretBox } from '../packages/server/src/crypto/secret-box';
import type { Db } from '../packages/server/src/db/driver';
import { newId } from '../packages/server/src/db/ids';
import * as schema from '../packages/server/src/db/schema';
import type { SessionContext } from '../packages/server/src/http/operation';
import { createArchive } from '../packages/server/src/modules/archive/archive';
import { seed } from '../packages/server/src/seed/seed';
import { cleanup } from './lib/cleanup.mjs';
import { scaleDatabase } from './lib/scale-db.mjs';

const url = await scaleDatabase(Number(process.env.BENCH_METERS ?? 1_000_000));
const RUNS = Number(process.env.BENCH_RUNS ?? 30);

/** Every statement the kit sends, so the search can be replayed bare. */
const sent: { text: string; params: unknown[] }[] = [];
const pool = new pg.Pool({ connectionString: url, max: 4 });
const db = drizzle(pool, {
  schema,
  casing: 'snake_case',
  logger: { logQuery: (text, params) => sent.push({ text, params }) },
}) as unknown as Db;
const bare = new pg.Client({ connectionString: url });
await bare.connect();
await seed(db, { adminPassword: 'Bench-admin-1' });
const archive = createArchive(db, new SecretBox(randomBytes(32)));

const { powerGrid, sysGroup, sysUser, sysUserGroup, meter, poc } = schema;
const session = (userId: string) => ({ userId, username: 'bench', language: 1 }) as SessionContext;
const [admin] = await db.select({ id: sysUser.id }).from(sysUser).where(eq(sysUser.username, 'admin'));
if (!admin) throw new Error('no admin user');

/** A user whose data scope is one substation of the seeded run and what lies below it. */
const [substation] = await db
  .select({ id: powerGrid.id, code: powerGrid.gridCode })
  .from(powerGrid)
  .where(eq(powerGrid.gridType, 1))
  .orderBy(asc(powerGrid.gridCode))
  .limit(1);
if (!substation) throw new Error('no substation: seed the archive first');
const scopedId = newId();
const groupId = newId();
await db.insert(sysUser).values({ id: scopedId, username: `bench-${scopedId.slice(0, 8)}`, passwordHash: 'none' });
await db.insert(sysGroup).values({ id: groupId, groupName: 'bench', groupCode: groupId, gridId: substation.id });
await db.insert(sysUserGroup).values({ userId: scopedId, groupId });

const [{ total } = { total: 0 }] = await db.select({ total: sql<number>`count(*)::int` }).from(meter);
const [middle] = await db
  .select({ devAddr: meter.devAddr, gridId: meter.gridId })
  .from(meter)
  .orderBy(asc(meter.devAddr))
  .offset(Math.floor(total / 2))
  .limit(1);
const [area] = await db.select({ gridId: poc.gridId }).from(poc).limit(1);
if (!middle || !area) throw new Error('no meters: seed the archive first');

type Service = { options(q: OptionsQuery, s: SessionContext): Promise<{ list: unknown[]; more: boolean }> };
interface Case {
  name: string;
  service: Service;
  query: OptionsQuery & Record<string, unknown>;
  userId: string;
}
const ask = (query: Partial<OptionsQuery> & Record<string, unknown>) => ({ keyword: '', ids: [], ...query });
const cases: Case[] = [
  { name: 'meter: first page', service: archive.meters, query: ask({}), userId: admin.id },
  {
    name: 'meter: one serial (rare keyword)',
    service: archive.meters,
    query: ask({ keyword: middle.devAddr }),
    userId: admin.id,
  },
  { name: 'meter: no match', service: archive.meters, query: ask({ keyword: 'ZZZ-NONE' }), userId: admin.id },
  { name: 'meter: free only (none is)', service: archive.meters, query: ask({ free: true }), userId: admin.id },
  { name: 'meter: scoped first page', service: archive.meters, query: ask({}), userId: scopedId },
  { name: 'meter: scoped, no match', service: archive.meters, query: ask({ keyword: 'ZZZ-NONE' }), userId: scopedId },
  { name: 'module: free first page (none is)', service: archive.modules, query: ask({ free: true }), userId: admin.id },
  { name: 'consumer: a common name', service: archive.consumers, query: ask({ keyword: 'al' }), userId: admin.id },
  { name: 'dcu: first page', service: archive.dcus, query: ask({}), userId: admin.id },
  {
    name: 'poc: primary tables of an area',
    service: archive.pocs,
    query: ask({ nature: 3, gridId: area.gridId }),
    userId: admin.id,
  },
];

const percentile = (times: number[], p: number) => {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
};
const ms = (n: number) => n.toFixed(1).padStart(8);

console.log(`${total.toLocaleString('en-US')} meters; ${RUNS} runs a case; scoped user: substation ${substation.code}`);
console.log(
  `${'case'.padEnd(36)} ${'kit p50'.padStart(8)} ${'kit p95'.padStart(8)} ${'bare p95'.padStart(8)}  ratio  answered`,
);
for (const c of cases) {
  const kit: number[] = [];
  let answered = '';
  for (let run = 0; run < RUNS; run++) {
    sent.length = 0;
    const start = performance.now();
    const answer = await c.service.options(c.query, session(c.userId));
    kit.push(performance.now() - start);
    answered = `${answer.list.length}${answer.more ? '+more' : ''}`;
  }
  // The search is the statement that cuts the answer one past the cap.
  const search = sent.find((s) => /limit \$\d+$/.test(s.text) && !/"sys_user"/.test(s.text));
  if (!search) throw new Error(`${c.name}: no search statement seen`);
  const raw: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    await bare.query(search.text, search.params);
    raw.push(performance.now() - start);
  }
  const ratio = percentile(kit, 95) / percentile(raw, 95);
  console.log(
    `${c.name.padEnd(36)} ${ms(percentile(kit, 50))} ${ms(percentile(kit, 95))} ${ms(percentile(raw, 95))}  ${ratio.toFixed(2).padStart(5)}  ${answered}`,
  );
}

await db.delete(sysUserGroup).where(eq(sysUserGroup.userId, scopedId));
await db.delete(sysGroup).where(eq(sysGroup.id, groupId));
await db.delete(sysUser).where(eq(sysUser.id, scopedId));
await bare.end();
await pool.end();
await cleanup();
