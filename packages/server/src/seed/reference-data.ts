import { sql } from 'drizzle-orm';
import type { Tx } from '../db/driver';
import { stableId } from '../db/ids';
import { rowsOf } from '../db/rows';
import { sysDataItem, sysNoticeTemplate, sysTariffConfig } from '../db/schema';

/** DOMAIN.md's common COSEM objects: what the collection and display settings start from. */
const DATA_ITEMS: [obis: string, classId: number, zh: string, en: string][] = [
  ['0.0.1.0.0.255', 8, '时钟', 'Clock'],
  ['0.0.96.1.0.255', 1, '表号', 'Meter serial number'],
  ['1.0.0.2.0.255', 1, '固件版本', 'Active firmware identifier'],
  ['1.0.1.8.0.255', 3, '正向有功总电能', 'Active energy import (+A) total'],
  ['1.0.1.8.1.255', 3, '正向有功费率1电能', 'Active energy import (+A) rate 1'],
  ['1.0.1.8.2.255', 3, '正向有功费率2电能', 'Active energy import (+A) rate 2'],
  ['1.0.1.8.3.255', 3, '正向有功费率3电能', 'Active energy import (+A) rate 3'],
  ['1.0.1.8.4.255', 3, '正向有功费率4电能', 'Active energy import (+A) rate 4'],
  ['1.0.2.8.0.255', 3, '反向有功总电能', 'Active energy export (-A) total'],
  ['1.0.3.8.0.255', 3, '正向无功总电能', 'Reactive energy import (+R) total'],
  ['1.0.4.8.0.255', 3, '反向无功总电能', 'Reactive energy export (-R) total'],
  ['1.0.32.7.0.255', 3, 'A相电压', 'Voltage L1'],
  ['1.0.31.7.0.255', 3, 'A相电流', 'Current L1'],
  ['1.0.1.7.0.255', 3, '有功功率', 'Active power'],
  ['1.0.99.1.0.255', 7, '负荷曲线1（15分钟）', 'Load profile 1 (interval)'],
  ['1.0.99.2.0.255', 7, '负荷曲线2（日冻结）', 'Load profile 2 (daily)'],
  ['1.0.98.1.0.255', 7, '月结算数据', 'Monthly billing values'],
  ['0.0.99.98.0.255', 7, '标准事件记录', 'Standard event log'],
  ['0.0.96.3.10.255', 70, '继电器控制', 'Disconnect control (relay)'],
];

const TEMPLATES: [name: string, type: number, title: string, content: string][] = [
  [
    'Planned maintenance',
    0,
    'Planned system maintenance',
    'Meterdesk will be unavailable on {date} from {start} to {end}.',
  ],
  [
    'Collection alarm',
    1,
    'Collection success rate below target',
    'The daily read success rate of {area} fell to {rate}.',
  ],
  ['Meter event', 2, 'Meter event needs attention', 'Meter {meter} reported {event} at {time}.'],
];

/** Each set is added once; what an administrator changed afterwards is kept. */
export async function seedReferenceData(tx: Tx): Promise<void> {
  await tx
    .insert(sysDataItem)
    .values(
      DATA_ITEMS.map(([obis, classId, zh, en], orderNum) => ({
        id: stableId(`dataItem:${obis}`),
        obis,
        classId,
        itemName: zh,
        itemNameEn: en,
        orderNum,
      })),
    )
    .onConflictDoNothing();

  const empty = async (table: string) => (await rowsOf(tx, sql.raw(`select 1 from ${table} limit 1`))).length === 0;
  if (await empty('sys_notice_template')) {
    await tx.insert(sysNoticeTemplate).values(
      TEMPLATES.map(([templateName, noticeType, noticeTitle, noticeContent], orderNum) => ({
        id: stableId(`noticeTemplate:${templateName}`),
        templateName,
        noticeType,
        noticeTitle,
        noticeContent,
        orderNum,
      })),
    );
  }
  if (await empty('sys_tariff_config')) {
    await tx.insert(sysTariffConfig).values({
      id: stableId('tariffConfig'),
      tariffValidCount: 8,
      tariffDays: 16,
      tariffWeeks: 8,
      tariffSeasons: 8,
      tariffSpecialDays: 64,
    });
  }
}
