import { randomBytes } from 'node:crypto';
import { DEFAULT_MAP_POSITION, ROOT_PARENT_ID, TRANSFORMER_AREA } from '@meterdesk/contracts';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/driver';
import { anyRow } from '../db/rows';
import { commModule, consumer, dcu, meter, meterType, poc, powerGrid, supplier, tariff } from '../db/schema';
import { FAMILIES, FEMALE, MALE, supplierRow } from './demo-archive';
import { demoTariffRows } from './demo-tariffs';
import { HISTORY_TABLES, type HistoryMeter, type HistoryOptions, ScaleHistory } from './scale-history';
import { type Position, pick, pointNear, seededRandom } from './seeded-random';
import { SEEDED_DCU_TASK } from './seeded-task';

/*
 * A large archive for benchmarks and load tests: one region per run, its substations, feeders and
 * transformer areas, a DCU per area, and N meters each with a consumer, a module and a POC. Rows
 * are made and written a batch at a time (COPY on PostgreSQL), so memory stays flat whatever N is.
 * Every business key starts with the run's code: a run can be repeated, and never takes a key the
 * archive already has.
 */

export const METERS_PER_AREA = 500;
const AREAS_PER_FEEDER = 10;
const FEEDERS_PER_SUBSTATION = 10;
/** Transformer areas spread over a city-sized disc; each area's meters within a few hundred metres. */
const CITY_RADIUS_KM = 25;
const AREA_RADIUS_KM = 0.5;

export interface ScaleProgress {
  meters: number;
  total: number;
  /** Rows written in every table so far. */
  rows: number;
  seconds: number;
}

export interface ScaleResult extends ScaleProgress {
  run: string;
}

export interface ScaleOptions {
  meters: number;
  /** Meters per batch; each batch is four COPYs (consumers, modules, meters, POCs). */
  batchSize?: number;
  /** Meters per transformer area, each with its DCU (default METERS_PER_AREA): a head-end bench wants more DCUs. */
  metersPerArea?: number;
  onProgress?: (progress: ScaleProgress) => void;
  /** The readings history of the run's meters (seed/scale-history.ts); none without. */
  history?: HistoryOptions;
}

/**
 * Record ids (32 hex characters): a random half for the run, a counting half for the row. Rows
 * land at the end of every id index instead of all over it, which keeps a million-row load from
 * spending its time on index pages read back from disk.
 */
function idSource(): () => string {
  const run = randomBytes(8).toString('hex');
  let n = 0;
  return () => run + (n++).toString(16).padStart(16, '0');
}

/** A code no grid node has yet: `S` and five letters or digits. */
async function newRunCode(database: Database): Promise<string> {
  for (;;) {
    const run = `S${randomBytes(4).readUInt32BE().toString(36).toUpperCase().padStart(7, '0').slice(-5)}`;
    if (!(await anyRow(database.db, powerGrid, sql`lower(${powerGrid.gridCode}) like ${`${run.toLowerCase()}%`}`)))
      return run;
  }
}

/**
 * Adds `meters` meters with everything around them, in one transaction: a run that fails or is
 * interrupted leaves nothing behind. Statistics are refreshed afterwards, so the planner sees the
 * new sizes at once.
 */
export async function seedScaleArchive(database: Database, options: ScaleOptions): Promise<ScaleResult> {
  const total = options.meters;
  const batchSize = options.batchSize ?? 10_000;
  const started = performance.now();
  const run = await newRunCode(database);
  const random = seededRandom(Number.parseInt(run.slice(1), 36));
  const nextId = idSource();
  const width = Math.max(7, String(total).length);
  const serial = (n: number) => String(n).padStart(width, '0');
  const dcuNo = (area: number) => `${run}D${serial(area + 1)}`;

  const metersPerArea = options.metersPerArea ?? METERS_PER_AREA;
  const areaCount = Math.ceil(total / metersPerArea);
  const feederCount = Math.ceil(areaCount / AREAS_PER_FEEDER);
  const substationCount = Math.ceil(feederCount / FEEDERS_PER_SUBSTATION);
  const regionId = nextId();
  const substationIds = Array.from({ length: substationCount }, nextId);
  const feederIds = Array.from({ length: feederCount }, nextId);
  const areas = Array.from({ length: areaCount }, () => ({
    id: nextId(),
    dcuId: nextId(),
    centre: pointNear(DEFAULT_MAP_POSITION, CITY_RADIUS_KM, random),
  }));

  let rows = 0;
  const seconds = () => (performance.now() - started) / 1000;
  const history = options.history
    ? new ScaleHistory(
        Number.parseInt(run.slice(1), 36),
        areas.map((a, t) => ({ id: a.id, dcuId: a.dcuId, dcuNo: dcuNo(t) })),
        nextId,
        options.history,
      )
    : null;
  await history?.prepare(database.db);

  await database.writeAtomically(async (writer) => {
    const { bulk } = writer;
    const grid = (id: string, gridCode: string, gridName: string, gridType: number, parentId: string) => ({
      id,
      gridCode,
      gridName,
      gridType,
      parentId,
      capacity: gridType === TRANSFORMER_AREA ? 630 : null,
      remark: '',
    });
    rows += await bulk(powerGrid, [
      grid(regionId, run, `Scale region ${run}`, 0, ROOT_PARENT_ID),
      ...substationIds.map((id, s) => grid(id, `${run}S${s + 1}`, `Substation ${run} ${s + 1}`, 1, regionId)),
      ...feederIds.map((id, f) =>
        grid(
          id,
          `${run}F${f + 1}`,
          `Feeder ${run} ${f + 1}`,
          2,
          substationIds[Math.floor(f / FEEDERS_PER_SUBSTATION)]!,
        ),
      ),
      ...areas.map((a, t) =>
        grid(a.id, `${run}T${t + 1}`, `Transformer ${run} ${t + 1}`, 3, feederIds[Math.floor(t / AREAS_PER_FEEDER)]!),
      ),
    ]);

    const supplierId = nextId();
    rows += await bulk(supplier, [
      supplierRow(supplierId, { code: run, name: `Scale supplier ${run}` }, 'npm run seed'),
    ]);
    const residentialTariff = nextId();
    const commercialTariff = nextId();
    rows += await bulk(
      tariff,
      demoTariffRows((key) => (key === 'commercial' ? commercialTariff : residentialTariff), `${run} `),
    );
    const singlePhase = nextId();
    const threePhase = nextId();
    const type = (id: string, modelName: string, wiring: string) => ({
      id,
      modelName,
      supplierId,
      wiring,
      side: 'secondary',
      ratedVoltage: wiring === '1P2W' ? 230 : 400,
      ratedCurrent: 5,
      maxCurrent: 100,
      accuracyClass: '1',
      commTypes: ['PLC'],
      remark: '',
    });
    rows += await bulk(meterType, [
      type(singlePhase, `${run} single-phase PLC`, '1P2W'),
      type(threePhase, `${run} three-phase PLC`, '3P4W'),
    ]);

    rows += await bulk(
      dcu,
      areas.map((a, t) => ({
        id: a.dcuId,
        dcuNo: dcuNo(t),
        dcuName: '',
        model: 'NM-DC300',
        supplierId,
        address: '',
        longitude: a.centre.lng,
        latitude: a.centre.lat,
        llsLevel: 0,
        blacklist: [],
        ...SEEDED_DCU_TASK,
        executionOffsetMinutes: 0,
        remark: '',
        gridId: a.id,
      })),
    );

    for (let from = 0; from < total; from += batchSize) {
      const to = Math.min(total, from + batchSize);
      const consumers: (typeof consumer.$inferInsert)[] = [];
      const modules: (typeof commModule.$inferInsert)[] = [];
      const meters: (typeof meter.$inferInsert)[] = [];
      const pocs: (typeof poc.$inferInsert)[] = [];
      const historyMeters: HistoryMeter[] = [];
      for (let i = from; i < to; i++) {
        const area = areas[Math.floor(i / metersPerArea)]!;
        const at: Position = pointNear(area.centre, AREA_RADIUS_KM, random);
        const n = serial(i + 1);
        const commercial = random() < 0.1;
        const female = random() < 0.35;
        const draw = random();
        const status = draw < 0.9 ? 2 : draw < 0.96 ? 1 : draw < 0.99 ? 3 : 5;
        const consumerId = nextId();
        const moduleId = nextId();
        const meterId = nextId();
        const devAddr = `${run}${n}`;
        consumers.push({
          id: consumerId,
          consumerCode: `${run}C${n}`,
          consumerName: `${pick(female ? FEMALE : MALE, random)} ${pick(FAMILIES, random)}`,
          identityNumber: '',
          address: '',
          longitude: at.lng,
          latitude: at.lat,
          consumerType: commercial ? 'commercial' : 'residential',
          special: false,
          paymentMode: random() < 0.7 ? 'prepay' : 'postpay',
          label: '',
          gender: female ? 'female' : 'male',
          email: '',
          phone: '',
          protected: i % 1000 === 7,
          remark: '',
          gridId: area.id,
        });
        modules.push({
          id: moduleId,
          moduleNo: `${run}M${n}`,
          commAddress: devAddr,
          simNo: '',
          deviceType: 2,
          workingMode: 'server',
          remark: '',
          gridId: area.id,
        });
        meters.push({
          id: meterId,
          devAddr,
          meterTypeId: commercial ? threePhase : singlePhase,
          supplierId,
          status,
          commType: 'PLC',
          authType: 'hls',
          securityType: 3,
          dataChannel: 'HES-PLC-01',
          interfaceType: 'PLC',
          virtual: false,
          meterBoxNo: '',
          moduleId,
          dcuId: area.dcuId,
          tariffId: commercial ? commercialTariff : residentialTariff,
          hesPassword: null,
          longitude: at.lng,
          latitude: at.lat,
          remark: '',
          gridId: area.id,
        });
        historyMeters.push({ id: meterId, devAddr, gridId: area.id, dcuId: area.dcuId, status, commercial });
        pocs.push({
          id: nextId(),
          pocNo: `${run}P${n}`,
          nature: 1,
          ctRatio: 1,
          ptRatio: 1,
          capacity: commercial ? 60 : 15,
          syncStatus: status === 1 ? 0 : 1,
          registered: status !== 1,
          tariffId: commercial ? commercialTariff : residentialTariff,
          taskGroupId: 1,
          dcuId: area.dcuId,
          consumerId,
          meterId,
          remark: '',
          gridId: area.id,
        });
      }
      // Referenced rows first: a meter needs its module, a POC its consumer and meter.
      rows += await bulk(consumer, consumers);
      rows += await bulk(commModule, modules);
      rows += await bulk(meter, meters);
      rows += await bulk(poc, pocs);
      if (history) rows += await history.writeMeters(writer, historyMeters);
      options.onProgress?.({ meters: to, total, rows, seconds: seconds() });
    }
    if (history) rows += await history.finish(writer, regionId, run, total);
  });
  await database.db.execute(sql`analyze power_grid, supplier, meter_type, dcu, consumer, comm_module, meter, poc`);
  if (history) await database.db.execute(sql.raw(`analyze ${HISTORY_TABLES.join(', ')}`));
  return { run, meters: total, total, rows, seconds: seconds() };
}
