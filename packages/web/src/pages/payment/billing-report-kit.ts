import {
  REPORT_CODED_COLUMNS,
  REPORT_SOURCES,
  type ReportBuild,
  type ReportCellSchema,
  type ReportConditions,
  type ReportKind,
  type ReportRecord,
} from '@meterdesk/contracts';
import type { TFunction } from 'i18next';
import type { z } from 'zod';

/** While a report builds the list is asked again this often (live progress reaches only who asked for it). */
export const BUILDING_POLL_MS = 2_000;

export const isBuilding = (records: readonly ReportRecord[] | undefined) =>
  records?.some((r) => r.status === 'building') ?? false;

/** The build conditions as the list says them: the rule or grid node, and the period. */
export function conditionsText(t: TFunction, kind: ReportKind, c: ReportConditions): string {
  const source = REPORT_SOURCES[kind];
  return t(`billingReport.conditions.${source}`, {
    source: (source === 'rule' ? c.ruleName : c.gridName) ?? '',
    from: c.startDay,
    to: c.endDay,
    interpolation: { escapeValue: false },
  });
}

/** What the build form holds: a name, the rule or node the kind is built from, the period. */
export interface BuildValues {
  reportName?: string;
  ruleId?: string;
  gridId?: string;
  period?: [string, string];
}

/** The build call's body: only the source the kind is built from goes out. */
export function buildRequest(kind: ReportKind, values: BuildValues): Partial<ReportBuild> {
  const [startDay, endDay] = values.period ?? [];
  const source = REPORT_SOURCES[kind] === 'rule' ? { ruleId: values.ruleId } : { gridId: values.gridId };
  return { reportName: values.reportName, ...source, startDay, endDay };
}

/** A cell as the screen shows it: a role by its label, an empty cell empty. */
export function cellText(t: TFunction, column: string, value: z.infer<typeof ReportCellSchema> | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  if ((REPORT_CODED_COLUMNS as readonly string[]).includes(column)) return t(`billingReport.roles.${value}`);
  return String(value);
}
