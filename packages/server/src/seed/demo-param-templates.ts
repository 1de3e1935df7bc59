import { OBIS, type ParamTemplateItem } from '@meterdesk/contracts';
import type { Executor } from '../db/driver';
import { stableId } from '../db/ids';
import { paramTemplate } from '../db/schema';
import { demoMeterTypeId } from './demo-archive';

/*
 * Two parameter templates for the demo archive's PLC meter types, added with the archive itself
 * (seed/seed.ts), so the parameter template page has something to show and apply from the first day.
 */

const TEMPLATES: {
  key: string;
  name: string;
  kind: Parameters<typeof demoMeterTypeId>[0];
  items: ParamTemplateItem[];
}[] = [
  {
    key: 'household',
    name: 'Household PLC standard',
    kind: 'plc1p',
    items: [
      { obis: OBIS.demandPeriod, value: 900 },
      { obis: OBIS.capturePeriod, value: 900 },
      { obis: OBIS.voltageSagThreshold, value: 2070 },
      { obis: OBIS.voltageSwellThreshold, value: 2530 },
      { obis: OBIS.displayList, value: [OBIS.activeImport, OBIS.activePower, OBIS.voltageL1] },
    ],
  },
  {
    key: 'threePhaseLimit',
    name: 'Three-phase PLC demand limit',
    kind: 'plc3p',
    items: [
      { obis: OBIS.demandPeriod, value: 1800 },
      { obis: OBIS.limiter, value: 30_000 },
      { obis: OBIS.pushSetup, value: '00:15' },
    ],
  },
];

/** Stable ids and names: a conflict (an operator's own template of that name) leaves what is stored. */
export async function seedDemoParamTemplates(tx: Executor): Promise<void> {
  await tx
    .insert(paramTemplate)
    .values(
      TEMPLATES.map((t) => ({
        id: stableId(`demo:paramTemplate:${t.key}`),
        templateName: t.name,
        meterTypeId: demoMeterTypeId(t.kind),
        items: t.items,
        remark: 'Added with the demo archive',
        createdBy: 'admin',
      })),
    )
    .onConflictDoNothing();
}
