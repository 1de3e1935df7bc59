import type { archiveApi, EntityDefinition, importApi, Operation } from '@meterdesk/contracts';
import type { z } from 'zod';
import { type CrudConfig, type CrudDefinition, defineCrud } from './crud-config';

type ArchiveApi = ReturnType<typeof archiveApi>;

/**
 * The crud wiring of an archive entity from its contracts calls: list, detail, save, update, delete
 * (one row, or a selection), export and the 'existed' checks of its business keys. An entity shown as
 * a tree (the power grid) names its `tree` call, which the list page then reads instead of the list.
 */
export function defineArchiveCrud<S extends z.ZodObject, C extends z.ZodType>(
  definition: Omit<
    CrudDefinition<S, C, z.ZodType>,
    'operations' | 'uniqueChecks' | 'remove' | 'entity' | 'exportDialog'
  > & {
    /** Its business keys (`unique`) are checked as the user types. */
    entity: EntityDefinition<S>;
    /** Its `save` tells which fields `createFields` and `secretFields` may name. */
    api: ArchiveApi & { save: Operation<C> };
    imports?: ReturnType<typeof importApi>;
    tree?: Operation<z.ZodType, z.ZodType<z.output<S>[]>>;
  },
): CrudConfig {
  const { api, imports, tree, ...rest } = definition;
  return defineCrud<S, C, z.ZodType>({
    ...rest,
    ...(imports ? { importCalls: imports } : {}),
    operations: {
      list: api.list as never,
      tree,
      detail: api.detail as never,
      create: api.save,
      update: api.update,
      remove: api.delete,
      ...(api.export ? { exportFile: api.export } : {}),
    },
    remove: { request: (row) => ({ ids: [row.id] }), batch: true },
    exportDialog: true,
    uniqueChecks: {
      operation: api.check,
      fields: Object.fromEntries(
        definition.entity.unique.map((field) => [
          field,
          (value: string, _values: unknown, id: string | undefined) => ({ field, value, id }),
        ]),
      ) as never,
    },
  });
}
