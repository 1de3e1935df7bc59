import { sql } from 'drizzle-orm';
import { openDatabase } from './db/driver';
import { rowsOf } from './db/rows';
import { CollectionReportService } from './modules/collection/collection-report.service';
import { DashboardService } from './modules/dashboard/dashboard.service';
import type { Scope } from './rbac/scope';

const d = await openDatabase({ databaseUrl: process.argv[2]! });
const db = d.db;
const svc = new DashboardService(db, new CollectionReportService(db));
const [sub] = await rowsOf<{ id: string }>(db, sql`select id from power_grid where parent_id in (select id from power_grid where grid_code = ${process.argv[3]!}) order by grid_code limit 1`);
const scopes: Record<string, Scope> = { admin: { all: true, orgId: null, gridIds: [] }, substation: { all: false, orgId: null, gridIds: [sub!.id] } };
const time = async (label: string, f: () => Promise<unknown>) => {
  await f();
  const t: number[] = [];
  for (let i = 0; i < 10; i++) { const s = performance.now(); await f(); t.push(performance.now() - s); }
  t.sort((a, b) => a - b);
  console.log(label.padEnd(40), 'median', t[5]!.toFixed(1), 'ms  max', t[9]!.toFixed(1));
};
for (const [name, scope] of Object.entries(scopes)) {
  await time(`${name} archive`, () => svc.archive(scope));
  await time(`${name} consumers`, () => svc.consumers(scope));
  await time(`${name} modules`, () => svc.modules(scope));
  await time(`${name} energy`, () => svc.energy(scope));
  await time(`${name} collection`, () => svc.collection(scope));
  await time(`${name} alarmTrend`, () => svc.alarmTrend(scope));
  await time(`${name} alarms`, () => svc.alarms(scope, { pageSize: 5, curPage: 1 }));
  await time(`${name} operations`, () => svc.operations(scope, 1));
}
await time('raw: meters by status (all)', () => rowsOf(db, sql`select status, count(*) from meter group by status`));
await time('raw: consumers (all)', () => rowsOf(db, sql`select consumer_type, payment_mode, special, count(*) from consumer group by 1,2,3`));
await d.close();
