import { DEFAULT_MAP_POSITION, PRIMARY_TABLE_NATURE, ROOT_PARENT_ID, TRANSFORMER_AREA } from '@meterdesk/contracts';
import { eq, inArray, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { SecretBox } from '../crypto/secret-box';
import type { Executor } from '../db/driver';
import { stableId } from '../db/ids';
import { anyRow } from '../db/rows';
import {
  billingRule,
  billingRuleMeter,
  commModule,
  consumer,
  dcu,
  meter,
  meterStatusHistory,
  meterTariff,
  meterType,
  poc,
  powerGrid,
  supplier,
  tariff,
} from '../db/schema';
import { DEMO_TARIFFS, type DemoTariff, demoTariffRows } from './demo-tariffs';
import { type Position, pick, pointNear, seededRandom } from './seeded-random';
import { SEEDED_DCU_TASK } from './seeded-task';

/*
 * The demo archive: what a first start on the embedded defaults shows, so that every archive page,
 * the GIS map and the operations have something believable to work on. Fixed seed and stable ids:
 * every install gets the same archive (its secrets are sealed under that install's own key).
 */

const SEED = 24_046;

type ConsumerType = 'residential' | 'commercial' | 'industrial';
type Profile = 'residential' | 'mixed' | 'commercial' | 'industrial';

/** The chance of each consumer type in an area of a profile. */
const PROFILES: Record<Profile, [residential: number, commercial: number]> = {
  residential: [0.92, 1],
  mixed: [0.7, 0.98],
  commercial: [0.35, 1],
  industrial: [0.2, 0.5],
};

/**
 * region → substation → feeder. The first node of each level keeps the key (and so the id) the
 * single demo branch had before the demo archive existed: journeys and user groups point at it.
 */
const GRID: [key: string, code: string, name: string, type: number, parent: string | null][] = [
  ['region', 'CR', 'Central Region', 0, null],
  ['substation', 'NS', 'North Substation', 1, 'region'],
  ['substation-south', 'SS', 'South Substation', 1, 'region'],
  ['feeder', 'F1', 'Feeder F1', 2, 'substation'],
  ['feeder-2', 'F2', 'Feeder F2', 2, 'substation'],
  ['feeder-3', 'F3', 'Feeder F3', 2, 'substation-south'],
  ['feeder-4', 'F4', 'Feeder F4', 2, 'substation-south'],
];

interface Area {
  key: string;
  code: string;
  feeder: string;
  district: string;
  capacityKva: number;
  meters: number;
  /** A DCU collects the area's meters over PLC; elsewhere meters report over their own 4G module. */
  plc: boolean;
  profile: Profile;
  /** A consumer here has life-support equipment at home. */
  protectedReason?: string;
}

const AREAS: Area[] = [
  {
    key: 'transformer',
    code: 'T1',
    feeder: 'feeder',
    district: 'Al Olaya',
    capacityKva: 800,
    meters: 24,
    plc: true,
    profile: 'commercial',
  },
  {
    key: 'transformer-2',
    code: 'T2',
    feeder: 'feeder',
    district: 'Al Sulimaniyah',
    capacityKva: 630,
    meters: 18,
    plc: false,
    profile: 'mixed',
    protectedReason: 'Home oxygen concentrator',
  },
  {
    key: 'transformer-3',
    code: 'T3',
    feeder: 'feeder',
    district: 'Al Wurud',
    capacityKva: 400,
    meters: 22,
    plc: true,
    profile: 'residential',
    protectedReason: 'Home haemodialysis',
  },
  {
    key: 'transformer-4',
    code: 'T4',
    feeder: 'feeder-2',
    district: 'Al Malaz',
    capacityKva: 630,
    meters: 16,
    plc: false,
    profile: 'residential',
  },
  {
    key: 'transformer-5',
    code: 'T5',
    feeder: 'feeder-2',
    district: 'Al Murabba',
    capacityKva: 400,
    meters: 20,
    plc: true,
    profile: 'mixed',
  },
  {
    key: 'transformer-6',
    code: 'T6',
    feeder: 'feeder-3',
    district: 'Al Shifa',
    capacityKva: 630,
    meters: 21,
    plc: true,
    profile: 'residential',
    protectedReason: 'Home ventilator',
  },
  {
    key: 'transformer-7',
    code: 'T7',
    feeder: 'feeder-3',
    district: 'Al Aziziyah',
    capacityKva: 400,
    meters: 19,
    plc: false,
    profile: 'residential',
    protectedReason: 'Home oxygen concentrator',
  },
  {
    key: 'transformer-8',
    code: 'T8',
    feeder: 'feeder-3',
    district: 'Second Industrial City',
    capacityKva: 1000,
    meters: 23,
    plc: true,
    profile: 'industrial',
  },
  {
    key: 'transformer-9',
    code: 'T9',
    feeder: 'feeder-4',
    district: 'Al Suwaidi',
    capacityKva: 630,
    meters: 17,
    plc: false,
    profile: 'residential',
    protectedReason: 'Infusion pump',
  },
  {
    key: 'transformer-10',
    code: 'T10',
    feeder: 'feeder-4',
    district: 'Dirab',
    capacityKva: 400,
    meters: 20,
    plc: false,
    profile: 'mixed',
  },
];

/** Spare meters in the central store: status warehouse, module fitted, not yet at any POC. */
const WAREHOUSE_METERS = 12;

/** A seeded supplier's row: its code and name, and how to reach it. */
export const supplierRow = (
  id: string,
  { code, name, ...reach }: { code: string; name: string; contact?: string; phone?: string; address?: string },
  remark = '',
) => ({ id, supplierCode: code, supplierName: name, contact: '', phone: '', address: '', ...reach, remark });

const SUPPLIERS = [
  {
    key: 'najd',
    code: 'NMC',
    name: 'Najd Metering Company',
    contact: 'Khalid Al-Harbi',
    phone: '+966 11 465 2201',
    address: 'Second Industrial City, Riyadh',
  },
  {
    key: 'gulf',
    code: 'GSE',
    name: 'Gulf Smart Energy',
    contact: 'Sara Al-Qahtani',
    phone: '+966 13 812 4410',
    address: 'King Saud Street, Dammam',
  },
  {
    key: 'desert',
    code: 'DIN',
    name: 'Desert Instruments',
    contact: 'Omar Haddad',
    phone: '+966 12 663 0157',
    address: 'Al Khalidiyah, Jeddah',
  },
] as const;

type MeterKind = 'plc1p' | 'plc3p' | 'g1p' | 'ct3p';

/** Serial prefixes are the makers' own; every meter type belongs to one supplier. */
const METER_TYPES: Record<
  MeterKind,
  {
    modelName: string;
    supplier: (typeof SUPPLIERS)[number]['key'];
    serialPrefix: string;
    wiring: string;
    ratedVoltage: number;
    ratedCurrent: number;
    maxCurrent: number;
    accuracyClass: string;
    commTypes: string[];
  }
> = {
  plc1p: {
    modelName: 'NM-S100 single-phase PLC',
    supplier: 'najd',
    serialPrefix: '2104',
    wiring: '1P2W',
    ratedVoltage: 230,
    ratedCurrent: 5,
    maxCurrent: 100,
    accuracyClass: '1',
    commTypes: ['PLC', 'RF'],
  },
  plc3p: {
    modelName: 'NM-T100 three-phase PLC',
    supplier: 'najd',
    serialPrefix: '2108',
    wiring: '3P4W',
    ratedVoltage: 400,
    ratedCurrent: 10,
    maxCurrent: 100,
    accuracyClass: '1',
    commTypes: ['PLC'],
  },
  g1p: {
    modelName: 'GS-S4G single-phase 4G',
    supplier: 'gulf',
    serialPrefix: '3307',
    wiring: '1P2W',
    ratedVoltage: 230,
    ratedCurrent: 5,
    maxCurrent: 80,
    accuracyClass: '1',
    commTypes: ['4G', 'NB-IoT'],
  },
  ct3p: {
    modelName: 'DI-T4G three-phase CT',
    supplier: 'desert',
    serialPrefix: '4512',
    wiring: '3P4W',
    ratedVoltage: 400,
    ratedCurrent: 1.5,
    maxCurrent: 6,
    accuracyClass: '0.5S',
    commTypes: ['4G', 'RS485'],
  },
};

export const MALE = [
  'Abdullah',
  'Mohammed',
  'Fahad',
  'Khalid',
  'Saad',
  'Faisal',
  'Turki',
  'Omar',
  'Yousef',
  'Nasser',
  'Sultan',
  'Ibrahim',
];
export const FEMALE = ['Noura', 'Sara', 'Aisha', 'Reem', 'Huda', 'Maha', 'Lama', 'Amal', 'Hessa', 'Latifa'];
export const FAMILIES = [
  'Al-Harbi',
  'Al-Qahtani',
  'Al-Otaibi',
  'Al-Dosari',
  'Al-Shehri',
  'Al-Zahrani',
  'Al-Ghamdi',
  'Al-Mutairi',
  'Al-Anazi',
  'Al-Subaie',
  'Al-Shammari',
  'Al-Rashid',
];
const SHOPS = [
  'Al Noor Pharmacy',
  'Najd Bakery',
  'Al Safwa Grocery',
  'Riyadh Dental Clinic',
  'Al Yamama Laundry',
  'Qasr Al Sharq Restaurant',
  'Al Rawda Tailoring',
  'Green Oasis Cafe',
  'Al Faisal Hardware',
  'Sahara Electronics',
  'Al Madina Supermarket',
  'Tuwaiq Office Tower',
];
const WORKS = [
  'Najd Plastics Factory',
  'Gulf Steel Works',
  'Desert Water Bottling',
  'Riyadh Print House',
  'Al Sulay Cold Store',
  'Yamama Furniture Workshop',
  'Arabian Packaging Plant',
];
const STREETS = [
  'King Fahd Road',
  'Olaya Street',
  'Tahlia Street',
  'Prince Sultan Road',
  'Al Urubah Road',
  'Imam Saud Road',
  'Makkah Road',
  'Takhassusi Street',
  'Abu Bakr Road',
  'Al Thumamah Road',
];
const ANOMALIES = [
  'Reverse energy flagged',
  'Clock drift over five minutes',
  'Terminal cover opened',
  'Voltage sag events',
];
const REPAIRS = ['Display fault reported', 'Relay replacement'];

/**
 * How a meter reached its seeded status from the warehouse, one meter/maintain step (each allowed by
 * METER_STATUS_TRANSITIONS) at a time: an anomaly or a repair befell a meter that was in service.
 */
const STATUS_STEPS: Readonly<Record<number, readonly number[]>> = {
  0: [],
  1: [1],
  2: [1, 2],
  3: [1, 2, 3],
  5: [1, 2, 5],
};
const DAY_MS = 86_400_000;
/** The demo's meters were installed this long before the first start, and put in service the day after. */
const INSTALLED_DAYS_AGO = 90;

const gridId = (key: string) => stableId(`grid:${key}`);
/** The demo grid's root (Central Region): every demo meter lies under it. */
export const DEMO_ROOT_GRID_ID = gridId('region');
const idOf = (kind: string, key: string) => stableId(`demo:${kind}:${key}`);
/** A demo meter type's id (the demo's parameter templates are for its PLC types). */
export const demoMeterTypeId = (kind: MeterKind) => idOf('meterType', kind);
const digits = (random: () => number, n: number) => Array.from({ length: n }, () => Math.floor(random() * 10)).join('');
const hex = (random: () => number, bytes: number) =>
  Array.from({ length: bytes }, () =>
    Math.floor(random() * 256)
      .toString(16)
      .padStart(2, '0'),
  ).join('');
const password = (random: () => number) =>
  Array.from({ length: 10 }, () => pick('ABCDEFGHJKMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz23456789', random)).join('');

/** The archive's tables: the demo goes only into an archive where every one is still empty. */
const ARCHIVE_TABLES: PgTable[] = [powerGrid, supplier, meterType, consumer, dcu, commModule, meter, poc];

export async function archiveIsEmpty(db: Executor): Promise<boolean> {
  for (const table of ARCHIVE_TABLES) if (await anyRow(db, table, undefined)) return false;
  return true;
}

/**
 * The demo grid alone: region, substations, feeders and transformer areas with their capacity. The
 * test template holds it too, so tests place records in a real grid.
 */
export async function seedDemoGrid(db: Executor): Promise<void> {
  await db.insert(powerGrid).values([
    ...GRID.map(([key, gridCode, gridName, gridType, parent]) => ({
      id: gridId(key),
      gridCode,
      gridName,
      gridType,
      parentId: parent ? gridId(parent) : ROOT_PARENT_ID,
    })),
    ...AREAS.map((area) => ({
      id: gridId(area.key),
      gridCode: area.code,
      gridName: `Transformer ${area.code}`,
      gridType: TRANSFORMER_AREA,
      parentId: gridId(area.feeder),
      capacity: area.capacityKva,
      remark: `${area.district} district`,
    })),
  ]);
}

/** The demo archive on top of the demo grid; every key and password sealed with `box`. */
export async function seedDemoArchive(db: Executor, box: SecretBox): Promise<void> {
  const random = seededRandom(SEED);
  await seedDemoGrid(db);

  await db.insert(supplier).values(SUPPLIERS.map(({ key, ...s }) => supplierRow(idOf('supplier', key), s)));
  // Tariffs are parameters: an archive cleared for real use may keep them, and a demo added again uses them.
  const rows = demoTariffRows((key) => idOf('tariff', key));
  await db.insert(tariff).values(rows).onConflictDoNothing();
  const tariffs = await db
    .select({ id: tariff.id, tariffName: tariff.tariffName })
    .from(tariff)
    .where(
      inArray(
        sql`lower(${tariff.tariffName})`,
        rows.map((r) => r.tariffName.toLowerCase()),
      ),
    );
  const tariffIdOf = (key: DemoTariff) => {
    const name = DEMO_TARIFFS[key].tariffName.toLowerCase();
    return tariffs.find((t) => t.tariffName.toLowerCase() === name)?.id ?? null;
  };
  const typeId = (kind: MeterKind) => idOf('meterType', kind);
  const supplierOf = (kind: MeterKind) => idOf('supplier', METER_TYPES[kind].supplier);
  await db.insert(meterType).values(
    Object.entries(METER_TYPES).map(([kind, t]) => ({
      id: typeId(kind as MeterKind),
      modelName: t.modelName,
      supplierId: supplierOf(kind as MeterKind),
      wiring: t.wiring,
      side: 'secondary',
      ratedVoltage: t.ratedVoltage,
      ratedCurrent: t.ratedCurrent,
      maxCurrent: t.maxCurrent,
      accuracyClass: t.accuracyClass,
      commTypes: t.commTypes,
      remark: '',
    })),
  );

  const serials: Record<MeterKind, number> = { plc1p: 0, plc3p: 0, g1p: 0, ct3p: 0 };
  const nextSerial = (kind: MeterKind) =>
    `${METER_TYPES[kind].serialPrefix}${String(10_001 + serials[kind]++).padStart(8, '0')}`;

  const dcus: (typeof dcu.$inferInsert)[] = [];
  const consumers: (typeof consumer.$inferInsert)[] = [];
  const modules: (typeof commModule.$inferInsert)[] = [];
  const meters: (typeof meter.$inferInsert)[] = [];
  const pocs: (typeof poc.$inferInsert)[] = [];

  /** A meter with its module; the module's number, address and SIM follow how the meter talks. */
  const addMeter = (
    kind: MeterKind,
    where: { gridId: string; plc: boolean; dcuId: string | null; position: Position | null },
    fields: { status: number; meterBoxNo: string; tariffId: string | null; remark: string },
  ) => {
    const devAddr = nextSerial(kind);
    const viaPlc = where.plc && kind !== 'ct3p';
    const moduleNo = `${viaPlc ? 'PM' : 'GM'}${devAddr.slice(2)}${digits(random, 2)}`;
    modules.push({
      id: idOf('module', moduleNo),
      moduleNo,
      commAddress: viaPlc
        ? devAddr
        : `10.${20 + Math.floor(random() * 10)}.${Math.floor(random() * 256)}.${1 + Math.floor(random() * 254)}`,
      simNo: viaPlc ? '' : `8996610${digits(random, 12)}`,
      deviceType: viaPlc ? 2 : 4,
      workingMode: viaPlc ? 'server' : 'client',
      remark: '',
      gridId: where.gridId,
    });
    const hls = !viaPlc || kind === 'plc3p';
    const id = idOf('meter', devAddr);
    meters.push({
      id,
      devAddr,
      meterTypeId: typeId(kind),
      supplierId: supplierOf(kind),
      status: fields.status,
      commType: viaPlc ? 'PLC' : '4G',
      authType: hls ? 'hls' : 'lls',
      securityType: hls ? 3 : 0,
      dataChannel: viaPlc ? 'HES-PLC-01' : 'HES-4G-01',
      interfaceType: viaPlc ? 'PLC' : 'RS485',
      virtual: false,
      meterBoxNo: fields.meterBoxNo,
      moduleId: idOf('module', moduleNo),
      dcuId: viaPlc ? where.dcuId : null,
      tariffId: fields.tariffId,
      hesPassword: box.seal(password(random)),
      longitude: where.position?.lng ?? null,
      latitude: where.position?.lat ?? null,
      remark: fields.remark,
      gridId: where.gridId,
    });
    return { id, devAddr };
  };

  let pocSeq = 0;
  let consumerSeq = 0;
  const shopsUsed = new Map<string, number>();
  AREAS.forEach((area, areaIndex) => {
    const grid = gridId(area.key);
    const centre = pointNear(DEFAULT_MAP_POSITION, 7, random);
    const dcuNo = `3100${String(101 + areaIndex).padStart(4, '0')}`;
    const dcuId = area.plc ? idOf('dcu', dcuNo) : null;
    const inMaintenance: string[] = [];

    let protectedPlaced = !area.protectedReason;
    for (let k = 0; k < area.meters; k++) {
      const [res, com] = PROFILES[area.profile];
      const draw = random();
      const type: ConsumerType = draw < res ? 'residential' : draw < com ? 'commercial' : 'industrial';
      const isProtected = !protectedPlaced && type === 'residential';
      if (isProtected) protectedPlaced = true;
      const statusDraw = random();
      // Life support gets a working meter: the demo's protected consumers must be reachable by operations.
      const status = isProtected || statusDraw < 0.84 ? 2 : statusDraw < 0.92 ? 1 : statusDraw < 0.96 ? 3 : 5;
      const position = pointNear(centre, 0.4, random);
      const consumerCode = `C10${String(++consumerSeq).padStart(7, '0')}`;

      let consumerName: string;
      let gender = '';
      let email = '';
      let identityNumber: string;
      if (type === 'residential') {
        const female = random() < 0.35;
        const first = pick(female ? FEMALE : MALE, random);
        const family = pick(FAMILIES, random);
        consumerName = `${first} ${family}`;
        gender = female ? 'female' : 'male';
        if (random() < 0.4) email = `${first}.${family.replace('Al-', '')}@example.com`.toLowerCase();
        identityNumber = `${random() < 0.8 ? 1 : 2}${digits(random, 9)}`;
      } else {
        const base = pick(type === 'commercial' ? SHOPS : WORKS, random);
        const branch = (shopsUsed.get(base) ?? 0) + 1;
        shopsUsed.set(base, branch);
        consumerName = branch === 1 ? base : `${base} (branch ${branch})`;
        email = random() < 0.7 ? `accounts${consumerSeq}@example.com` : '';
        // Riyadh commercial registrations start with 1010.
        identityNumber = `1010${digits(random, 6)}`;
      }
      const special = type === 'industrial' || (type === 'commercial' && random() < 0.2);
      const prepay = type === 'residential' ? random() < 0.75 : type === 'commercial' && random() < 0.5;
      const tariffId = tariffIdOf(type === 'residential' ? 'residential' : 'commercial');
      const consumerId = idOf('consumer', consumerCode);
      consumers.push({
        id: consumerId,
        consumerCode,
        consumerName,
        identityNumber,
        address: `Building ${1 + Math.floor(random() * 90)}, ${pick(STREETS, random)}, ${area.district}, Riyadh`,
        longitude: position.lng,
        latitude: position.lat,
        consumerType: type,
        special,
        paymentMode: prepay ? 'prepay' : 'postpay',
        label: isProtected ? 'Life support' : special ? 'Key account' : '',
        gender,
        email,
        phone: `+966 5${digits(random, 1)} ${digits(random, 3)} ${digits(random, 4)}`,
        protected: isProtected,
        remark: isProtected ? (area.protectedReason ?? '') : '',
        gridId: grid,
      });

      const kind: MeterKind = type === 'residential' ? (area.plc ? 'plc1p' : 'g1p') : area.plc ? 'plc3p' : 'ct3p';
      const m = addMeter(
        kind,
        { gridId: grid, plc: area.plc, dcuId, position },
        {
          status,
          meterBoxNo: `BX${area.code}${String(1 + Math.floor(k / 4)).padStart(3, '0')}`,
          tariffId,
          remark: status === 3 ? pick(ANOMALIES, random) : status === 5 ? pick(REPAIRS, random) : '',
        },
      );
      if (status === 5) inMaintenance.push(m.devAddr);
      const pocNo = `POC${String(++pocSeq).padStart(6, '0')}`;
      pocs.push({
        id: idOf('poc', pocNo),
        pocNo,
        nature: 1,
        ctRatio: kind === 'ct3p' ? 40 : 1,
        ptRatio: 1,
        capacity:
          type === 'residential'
            ? pick([12, 15, 20], random)
            : type === 'commercial'
              ? pick([30, 60], random)
              : pick([150, 300], random),
        syncStatus: status === 1 ? 0 : status === 3 ? 2 : 1,
        registered: status !== 1,
        tariffId,
        taskGroupId: area.plc ? 1 : null,
        dcuId,
        consumerId,
        meterId: m.id,
        remark: '',
        gridId: grid,
      });
    }

    // The area's check meter on the transformer's low-voltage side: what line-loss audits compare with.
    const check = addMeter(
      'ct3p',
      { gridId: grid, plc: area.plc, dcuId, position: centre },
      { status: 2, meterBoxNo: `TX${area.code}`, tariffId: null, remark: `Transformer ${area.code} check meter` },
    );
    pocs.push({
      id: idOf('poc', `PRI${area.code}`),
      pocNo: `PRI${area.code}`,
      nature: PRIMARY_TABLE_NATURE,
      // LV current transformers sized to the transformer: 1500/5 A for 1000 kVA, down to 600/5 A for 400 kVA.
      ctRatio: area.capacityKva >= 1000 ? 300 : area.capacityKva >= 800 ? 240 : area.capacityKva >= 630 ? 200 : 120,
      ptRatio: 1,
      capacity: area.capacityKva,
      syncStatus: 1,
      registered: true,
      tariffId: null,
      taskGroupId: area.plc ? 1 : null,
      dcuId,
      consumerId: null,
      meterId: check.id,
      remark: '',
      gridId: grid,
    });

    if (dcuId) {
      dcus.push({
        id: dcuId,
        dcuNo,
        dcuName: `${area.district} ${area.code}`,
        model: 'NM-DC300',
        supplierId: idOf('supplier', 'najd'),
        address: `Transformer ${area.code} kiosk, ${area.district}, Riyadh`,
        longitude: centre.lng,
        latitude: centre.lat,
        llsLevel: 1,
        llsKey: box.seal(password(random)),
        hlsAuthKey: box.seal(hex(random, 16)),
        hlsEncKey: box.seal(hex(random, 16)),
        hlsAuthEncKey: box.seal(hex(random, 16)),
        // A meter in maintenance gives no readings worth collecting until it is back.
        blacklist: inMaintenance,
        ...SEEDED_DCU_TASK,
        executionOffsetMinutes: 5 * (areaIndex % 3),
        remark: '',
        gridId: grid,
      });
    }
  });

  for (let k = 0; k < WAREHOUSE_METERS; k++) {
    addMeter(
      k % 4 === 3 ? 'plc3p' : k % 2 === 0 ? 'plc1p' : 'g1p',
      { gridId: gridId('region'), plc: k % 2 === 0 || k % 4 === 3, dcuId: null, position: null },
      { status: 0, meterBoxNo: '', tariffId: null, remark: `Central store, rack ${'ABC'[k % 3]}` },
    );
  }

  // Referenced rows first: a meter needs its module and DCU, a POC its consumer and meter.
  await db.insert(dcu).values(dcus);
  await db.insert(consumer).values(consumers);
  await db.insert(commModule).values(modules);
  await db.insert(meter).values(meters);
  await db.insert(poc).values(pocs);
  await db.insert(meterTariff).values(takenTariffs(pocs, tariffs, Date.now()));
  for (const area of AREAS) {
    await db
      .update(powerGrid)
      .set({ primaryPocId: idOf('poc', `PRI${area.code}`) })
      .where(eq(powerGrid.id, gridId(area.key)));
  }
  await db.insert(meterStatusHistory).values(statusHistory(meters, Date.now()));
  await seedMallRule(db, meters);
}

/**
 * A shopping mall on the first (commercial) area: the transformer's check meter is the mall's main
 * meter, two of its shops the tenants. A rule of that name kept from an earlier archive stays as it is.
 */
async function seedMallRule(db: Executor, meters: readonly (typeof meter.$inferInsert)[]) {
  const area = AREAS[0] as Area;
  const inService = meters.filter((m) => m.gridId === gridId(area.key) && m.status === 2);
  const main = inService.find((m) => m.meterBoxNo === `TX${area.code}`);
  const tenants = inService.filter((m) => m !== main).slice(0, 2);
  if (!main || tenants.length < 2) return;
  const ruleId = idOf('billingRule', 'mall');
  const [saved] = await db
    .insert(billingRule)
    .values({
      id: ruleId,
      ruleNo: 'BR001',
      ruleName: `${area.district} Mall`,
      gridId: gridId(area.key),
      handlingFee: 5,
      taxes: 15,
      roundingBase: 0.01,
      chargeMode: 'percentage',
      percentage: 10,
      remark: 'Main meter less its tenants: the common areas',
    })
    .onConflictDoNothing()
    .returning({ id: billingRule.id });
  if (!saved) return;
  await db
    .insert(billingRuleMeter)
    .values([
      { ruleId, role: 'main', position: 0, meterId: main.id as string },
      ...tenants.map((m, i) => ({ ruleId, role: 'tenant', position: i + 1, meterId: m.id as string })),
    ]);
}

/** What the meters of synchronized POCs took: their POC's tariff, pushed a month ago. */
function takenTariffs(
  pocs: readonly (typeof poc.$inferInsert)[],
  tariffs: readonly { id: string; tariffName: string }[],
  now: number,
): (typeof meterTariff.$inferInsert)[] {
  const names = new Map(tariffs.map((t) => [t.id, t.tariffName]));
  const taken = new Date(now - 30 * 24 * 3600_000);
  return pocs.flatMap((p) => {
    const name = p.tariffId ? names.get(p.tariffId) : undefined;
    if (p.syncStatus !== 1 || !p.meterId || !p.tariffId || name === undefined) return [];
    return [
      {
        meterId: p.meterId,
        tariffId: p.tariffId,
        tariffName: name,
        revision: 1,
        activationTime: taken,
        takenTime: taken,
      },
    ];
  });
}

/**
 * The history meter/maintain would have written for each seeded meter out of the warehouse: installed,
 * put in service, and for a meter in anomaly or maintenance that last step a few days ago, its remark
 * as the reason.
 */
function statusHistory(meters: (typeof meter.$inferInsert)[], now: number): (typeof meterStatusHistory.$inferInsert)[] {
  return meters.flatMap((m, index) => {
    const steps = STATUS_STEPS[m.status ?? 0] ?? [];
    return steps.map((toStatus, k) => {
      const last = k === steps.length - 1 && k >= 2;
      const daysAgo = last ? 1 + (index % 7) : INSTALLED_DAYS_AGO - k;
      return {
        id: idOf('status', `${m.devAddr}:${k}`),
        meterId: m.id as string,
        fromStatus: k === 0 ? 0 : (steps[k - 1] as number),
        toStatus,
        reason: last ? (m.remark ?? '') : '',
        username: 'admin',
        time: new Date(now - daysAgo * DAY_MS),
      };
    });
  });
}
