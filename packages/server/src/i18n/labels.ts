import { type EntityDefinition, fieldMeta } from '@meterdesk/contracts';
import { enCore } from '@meterdesk/contracts/locales/en';
import { enScreens } from '@meterdesk/contracts/locales/en/screens';
import { zhCore } from '@meterdesk/contracts/locales/zh';
import { zhScreens } from '@meterdesk/contracts/locales/zh/screens';
import dayjs from 'dayjs';
import type { z } from 'zod';

/** The user's language as stored (spec: 1 English, 2 Chinese). */
export type LanguageCode = 1 | 2;

const TEXTS: Record<LanguageCode, object> = { 1: { ...enCore, ...enScreens }, 2: { ...zhCore, ...zhScreens } };

/**
 * The screen's texts on the server, so an export, an import template, a PDF or an e-mail shows
 * the same column titles, values and times as the screen, in the user's language.
 */
export function translator(language: number): (key: string) => string {
  const texts = TEXTS[language === 2 ? 2 : 1];
  return (key) => {
    let node: unknown = texts;
    for (const part of key.split('.')) {
      if (typeof node !== 'object' || node === null) return key;
      node = (node as Record<string, unknown>)[part];
    }
    return typeof node === 'string' ? node : key;
  };
}

/** The screen's date-time format (local time of the server). */
export const formatMoment = (iso: string) => (iso ? dayjs(iso).format('YYYY-MM-DD HH:mm:ss') : '');

export interface ColumnText<R> {
  key: string;
  title: string;
  text(row: R): string | number;
}

/** The columns of `fields` as the screen labels and renders them: option labels, formatted times. */
export function entityColumns<R extends Record<string, unknown>>(
  entity: Pick<EntityDefinition<z.ZodObject>, 'name' | 'record'>,
  fields: readonly string[],
  language: number,
): ColumnText<R>[] {
  const t = translator(language);
  return fields.map((key) => {
    const meta = fieldMeta(entity.record.shape[key] as z.ZodType);
    const options = new Map(meta?.options?.map((o) => [o.value, t(o.label)]));
    // A code under the first prefix that names it (collection items), else as stored, as the screen shows it.
    const prefixes = meta?.valueLabels ?? [];
    const labelOf = (item: unknown) => {
      if (options.has(item as string | number)) return options.get(item as string | number) ?? '';
      for (const prefix of prefixes) {
        const key = `${prefix}.${String(item)}`;
        const label = t(key);
        if (label !== key) return label;
      }
      return String(item);
    };
    const datetime = meta?.widget === 'datetime';
    return {
      key,
      title: t(meta?.label ?? `${entity.name}.fields.${key}`),
      text: (row) => {
        const value = row[key];
        if (Array.isArray(value)) return value.map(labelOf).join(', ');
        if (options.has(value as string | number)) return options.get(value as string | number) ?? '';
        if (prefixes.length && (typeof value === 'string' || typeof value === 'number')) return labelOf(value);
        if (datetime) return formatMoment(String(value ?? ''));
        if (typeof value === 'boolean') return t(value ? 'common.yes' : 'common.no');
        return typeof value === 'number' ? value : String(value ?? '');
      },
    };
  });
}
