import * as contracts from '@meterdesk/contracts';
import { type EntityDefinition, fieldMeta, MESSAGES, resourceEntity } from '@meterdesk/contracts';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { en } from './en';
import { zh } from './zh';

function keysOf(tree: object, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) =>
    typeof value === 'object' && value !== null ? keysOf(value, `${prefix}${key}.`) : [`${prefix}${key}`],
  );
}

function has(tree: object, key: string): boolean {
  let node: unknown = tree;
  for (const part of key.split('.')) {
    if (typeof node !== 'object' || node === null || !(part in node)) return false;
    node = (node as Record<string, unknown>)[part];
  }
  return typeof node === 'string' && node.length > 0;
}

const isEntity = (value: unknown): value is EntityDefinition<z.ZodObject, string> =>
  typeof value === 'object' && value !== null && 'record' in value && 'pagePath' in value && 'columns' in value;

/** Every i18n key a contracts entity reaches: labels (declared or by convention), options and help. */
function entityKeys(entity: EntityDefinition<z.ZodObject, string>): string[] {
  const fields = new Set([...entity.columns.map((c) => c.field), ...entity.filters, ...entity.form, ...entity.detail]);
  return [...fields].flatMap((key) => {
    const schema = entity.record.shape[key] as z.ZodType | undefined;
    const meta = schema ? fieldMeta(schema) : undefined;
    return [
      meta?.label ?? `${entity.name}.fields.${key}`,
      ...(meta?.options?.map((option) => option.label) ?? []),
      ...(meta?.help ? [meta.help] : []),
    ];
  });
}

describe('locales', () => {
  it('English and Chinese have the same keys', () => {
    expect(keysOf(zh).sort()).toEqual(keysOf(en).sort());
  });

  it('translate every message key of the contracts in both languages', () => {
    for (const key of Object.keys(MESSAGES)) {
      expect(has(en, `errors.${key}`), `en errors.${key}`).toBe(true);
      expect(has(zh, `errors.${key}`), `zh errors.${key}`).toBe(true);
    }
  });

  it('have every label, option and help key the entity declarations reach', () => {
    const entities = Object.values(contracts as Record<string, unknown>).filter(isEntity);
    expect(entities).toContain(resourceEntity);
    for (const key of entities.flatMap(entityKeys)) {
      expect(has(en, key), `en ${key}`).toBe(true);
      expect(has(zh, key), `zh ${key}`).toBe(true);
    }
  });

  it('leave no text empty', () => {
    for (const key of keysOf(zh)) expect(has(zh, key), key).toBe(true);
    for (const key of keysOf(en)) expect(has(en, key), key).toBe(true);
  });
});
