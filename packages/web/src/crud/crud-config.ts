import { type EntityDefinition, type FieldMeta, fieldMeta, type Operation, type Page } from '@meterdesk/contracts';
import { z } from 'zod';

/** A field as the generic screens need it: its contracts meta plus the zod schema behind it. */
export interface FieldDescriptor extends FieldMeta {
  key: string;
}

type AnyEntity = EntityDefinition<z.ZodObject, string>;

/** Asks the server whether a name is taken; answers `{existed}`. */
export interface UniqueCheck {
  operation: Operation;
  /** Other fields the answer depends on (e.g. the parent), so changing them checks again. */
  dependsOn: readonly string[];
  /** The check's request for one field value; undefined skips the check (e.g. no parent chosen yet). */
  request(value: string, values: Record<string, unknown>, id: string | undefined): object | undefined;
}

/** What the generic list, form and detail screens run on: one entity and its operations. */
export interface CrudConfig {
  entity: AnyEntity;
  list: Operation;
  detail: Operation;
  create?: Operation;
  update?: Operation;
  uniqueChecks: Readonly<Record<string, UniqueCheck>>;
  initialValues: Readonly<Record<string, unknown>>;
  /** Presentation the contracts do not declare yet; each entry belongs in the entity's schema. */
  overrides: Readonly<Partial<Record<string, Partial<FieldMeta>>>>;
}

type Shape<S extends z.ZodObject> = z.output<S>;

export interface CrudDefinition<S extends z.ZodObject, C extends z.ZodType, U extends z.ZodType> {
  entity: EntityDefinition<S>;
  operations: {
    list: Operation<z.ZodType, z.ZodType<Page<Shape<S>>>>;
    detail: Operation<z.ZodType, S>;
    create?: Operation<C, z.ZodType>;
    update?: Operation<U, z.ZodType>;
  };
  uniqueChecks?: {
    operation: Operation<z.ZodType, z.ZodType<{ existed: boolean }>>;
    dependsOn?: readonly Extract<keyof z.input<C>, string>[];
    fields: Partial<
      Record<
        Extract<keyof z.input<C>, string>,
        (value: string, values: Partial<z.input<C>>, id: string | undefined) => object | undefined
      >
    >;
  };
  initialValues?: Partial<z.input<C>>;
  overrides?: Partial<Record<Extract<keyof S['shape'], string>, Partial<FieldMeta>>>;
}

/** Type-checks a resource file's wiring against its entity, then erases the generics for the screens. */
export function defineCrud<S extends z.ZodObject, C extends z.ZodType, U extends z.ZodType>(
  definition: CrudDefinition<S, C, U>,
): CrudConfig {
  const { operations, uniqueChecks } = definition;
  const checks: Record<string, UniqueCheck> = {};
  for (const [field, request] of Object.entries(uniqueChecks?.fields ?? {})) {
    if (uniqueChecks && typeof request === 'function') {
      checks[field] = {
        operation: uniqueChecks.operation,
        dependsOn: uniqueChecks.dependsOn ?? [],
        request: request as UniqueCheck['request'],
      };
    }
  }
  return {
    entity: definition.entity as unknown as AnyEntity,
    list: operations.list,
    detail: operations.detail,
    create: operations.create,
    update: operations.update,
    uniqueChecks: checks,
    initialValues: definition.initialValues ?? {},
    overrides: definition.overrides ?? {},
  };
}

export function describeField(config: CrudConfig, key: string): FieldDescriptor {
  const schema = config.entity.record.shape[key] as z.ZodType | undefined;
  const meta = schema ? fieldMeta(schema) : undefined;
  return {
    key,
    label: `${config.entity.name}.fields.${key}`,
    widget: 'text',
    ...meta,
    ...config.overrides[key],
  };
}

/** The object schema of an operation's request, whose keys are the only ones the server accepts. */
export function requestShape(operation: Operation | undefined): Record<string, z.ZodType> {
  return operation?.request instanceof z.ZodObject ? (operation.request.shape as Record<string, z.ZodType>) : {};
}

/** Form widgets hand back null for "empty"; the schemas expect the member to be missing. */
export function normalizeValue(value: unknown): unknown {
  return value === null ? undefined : value;
}

export function isRequired(schema: z.ZodType | undefined): boolean {
  return schema ? !schema.safeParse(undefined).success : false;
}

/** Defaults the create schema declares (e.g. orderNum 0), under the resource file's own initial values. */
export function createDefaults(config: CrudConfig, keys: readonly string[]): Record<string, unknown> {
  const shape = requestShape(config.create);
  const defaults: Record<string, unknown> = {};
  for (const key of keys) {
    const parsed = shape[key]?.safeParse(undefined);
    if (parsed?.success && parsed.data !== undefined) defaults[key] = parsed.data;
  }
  return { ...defaults, ...config.initialValues };
}
