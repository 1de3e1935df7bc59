import { OPERATIONS, type OperationDefinition, type OperationName } from '@meterdesk/contracts';
import { Form, type FormInstance } from 'antd';
import type { TFunction } from 'i18next';
import { useMemo } from 'react';
import { z } from 'zod';
import { usePermissions } from '@/app/permissions/permission-context';
import { describeSchemaField, type FieldDescriptor, normalizeValue, objectShape } from '@/crud/crud-config';
import { showFieldErrors, zodIssuesToFieldErrors } from '@/crud/form-errors';
import { FormFields } from '@/crud/form-fields';

const LABELS = 'operations.params';

/** Where the option texts of a parameter that chooses among values (an enum, a few numbers) are. */
const OPTION_LABELS: Readonly<Record<string, string>> = {
  mode: 'operations.paramSyncModes',
  source: 'operations.clockSources',
  freezePeriodMinutes: 'operations.freezePeriods',
};
/** OBIS lists are picked from the catalogue items the operation may use. */
const OBIS_LOOKUPS: Readonly<Record<string, string>> = { obis: 'readInstantlyObis', channels: 'channelObis' };
const HELP: Readonly<Record<string, string>> = {
  meters: `${LABELS}.blacklistHelp`,
  channels: `${LABELS}.channelsHelp`,
};
/** A parameter asked only when the others call for it: a custom time only for a custom clock. */
const SHOWN_WHEN: Readonly<Record<string, (values: Record<string, unknown>) => boolean>> = {
  time: (values) => values.source === 'custom',
};

/** spec §5: blacklist numbers are separated by Chinese or English commas or line breaks. */
export function splitList(text: string): string[] {
  return text
    .split(/[,，\r\n]+/)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

type Def = {
  type?: string;
  innerType?: z.ZodType;
  format?: string;
  entries?: Record<string, string>;
  options?: z.ZodType[];
  values?: unknown[];
  element?: z.ZodType;
};
const defOf = (schema: z.ZodType | undefined) => (schema as unknown as { def?: Def } | undefined)?.def;

/** The schema inside default/optional wrappers. */
function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema;
  while (defOf(current)?.innerType) current = defOf(current)?.innerType;
  return current;
}

/** The parameter typed as text although the operation takes a list (a blacklist's serials). */
function isTypedList(key: string, schema: z.ZodType | undefined): boolean {
  return defOf(unwrap(schema))?.type === 'array' && !(key in OBIS_LOOKUPS);
}

/** A parameter as a form field: its widget from the schema's type, its label `operations.params.<key>`. */
function paramField(key: string, schema: z.ZodType | undefined): FieldDescriptor {
  const field = describeSchemaField(key, schema, LABELS);
  const inner = unwrap(schema);
  const def = defOf(inner);
  if (HELP[key]) field.help = HELP[key];
  const labels = OPTION_LABELS[key] ?? LABELS;
  const choice = (values: readonly (string | number)[]): FieldDescriptor => ({
    ...field,
    widget: 'select',
    options: values.map((value) => ({ value, label: `${labels}.${value}` })),
  });
  if (def?.type === 'enum' && def.entries) return choice(Object.values(def.entries));
  if (def?.type === 'union' && def.options?.every((option) => defOf(option)?.type === 'literal'))
    return choice(def.options.flatMap((option) => (defOf(option)?.values ?? []) as (string | number)[]));
  if (def?.type === 'array') {
    const lookup = OBIS_LOOKUPS[key];
    return lookup ? { ...field, widget: 'select', lookup, multiple: true } : { ...field, widget: 'textarea' };
  }
  if (def?.type === 'string' && def.format === 'datetime') return { ...field, widget: 'datetime' };
  return field;
}

/** The parameters' schemas as the form checks them: a typed list is split first. */
function formShape(operation: OperationName): Record<string, z.ZodType> {
  const shape = objectShape(OPERATIONS[operation].params) ?? {};
  return Object.fromEntries(
    Object.entries(shape).map(([key, schema]) => [
      key,
      isTypedList(key, schema)
        ? z.preprocess((value) => (typeof value === 'string' ? splitList(value) : (value ?? [])), schema)
        : schema,
    ]),
  );
}

/** The form fields of an operation's parameters (none for a command that takes none). */
export function paramFields(operation: OperationName): FieldDescriptor[] {
  return Object.entries(objectShape(OPERATIONS[operation].params) ?? {}).map(([key, schema]) =>
    paramField(key, schema),
  );
}

/** The operations of `operations` whose button the user holds, in the order OPERATIONS declares them. */
export function useGrantedOperations(operations: readonly OperationName[]): OperationName[] {
  const permissions = usePermissions();
  return operations.filter((operation) => permissions.buttons.has(OPERATIONS[operation].resource));
}

/** Destructive operations (disconnects, prepayment off, a parameter sync, a reboot) are confirmed first. */
export const needsConfirm = (operation: OperationName) =>
  (OPERATIONS[operation] as OperationDefinition).confirm === true;

export const hasParams = (operation: OperationName) => paramFields(operation).length > 0;

/** The defaults the parameters declare (a system clock, a 15-minute freeze period…). */
export function paramDefaults(operation: OperationName): Record<string, unknown> {
  const shape = objectShape(OPERATIONS[operation].params) ?? {};
  const defaults: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(shape)) {
    const parsed = schema.safeParse(undefined);
    if (parsed.success && parsed.data !== undefined)
      defaults[key] = Array.isArray(parsed.data) && isTypedList(key, schema) ? '' : parsed.data;
  }
  return defaults;
}

/** The parameter inputs of `operation`, each checked by its contracts schema as it is typed. */
export function ParamsFields({ operation, form }: { operation: OperationName; form: FormInstance }) {
  const fields = useMemo(() => paramFields(operation), [operation]);
  const shape = useMemo(() => formShape(operation), [operation]);
  const values = (Form.useWatch([], form) ?? {}) as Record<string, unknown>;
  const shown = fields.filter((field) => SHOWN_WHEN[field.key]?.(values) ?? true);
  return <FormFields fields={shown} shape={shape} form={form} />;
}

/**
 * The parameters the form holds, checked by the operation's schema as the server will check them; on
 * a refusal the messages land on their fields and the answer is undefined.
 */
export async function readParams(
  operation: OperationName,
  form: FormInstance,
  t: TFunction,
): Promise<Record<string, unknown> | undefined> {
  try {
    await form.validateFields();
  } catch {
    return undefined;
  }
  const declared = objectShape(OPERATIONS[operation].params) ?? {};
  const all = form.getFieldsValue() as Record<string, unknown>;
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(all)) {
    const normal = normalizeValue(value);
    if (normal === undefined || !(key in declared) || SHOWN_WHEN[key]?.(all) === false) continue;
    values[key] = typeof normal === 'string' && isTypedList(key, declared[key]) ? splitList(normal) : normal;
  }
  const parsed = OPERATIONS[operation].params.safeParse(values);
  if (parsed.success) return parsed.data as Record<string, unknown>;
  // An item of a list (one serial of a blacklist) is reported on the list's own input.
  const issues = parsed.error.issues.map((issue) => ({ ...issue, path: issue.path.slice(0, 1) }));
  showFieldErrors(form, zodIssuesToFieldErrors(issues, t, formShape(operation)));
  return undefined;
}
