import { useMemo } from 'react';
import type { FieldDescriptor } from '@/crud/crud-config';
import { useLookup } from '@/fields/use-lookup';

/** The existing DCU picker (`dcus`), choosing many: DCU operating and a concentrator's firmware campaign. */
export const DCU_FIELD: FieldDescriptor = {
  key: 'dcuIds',
  label: 'operations.screen.dcus',
  widget: 'select',
  lookup: 'dcus',
  multiple: true,
};

/** The numbers of the DCUs picked: commands and campaigns address DCUs by number, which the options carry. */
export function useDcuNumbers(dcuIds: readonly string[]): string[] {
  const search = useMemo(() => ({ keyword: '', values: [...dcuIds], context: {} }), [dcuIds]);
  const picked = useLookup(DCU_FIELD.lookup, search, dcuIds.length > 0);
  return dcuIds
    .map((id) => picked.options.find((option) => option.value === id)?.record?.dcuNo)
    .filter((dcuNo): dcuNo is string => typeof dcuNo === 'string');
}
