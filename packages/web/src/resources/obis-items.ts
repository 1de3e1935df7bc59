import { MAX_PAGE_SIZE, type ObisFlags, obisApi } from '@meterdesk/contracts';
import { callApi } from '@/api/api-client';

export interface ObisItem {
  obis: string;
  description: string;
}

/**
 * The OBIS catalogue's items carrying `flag` (read instantly for a real-time read, the channels of a
 * parameter sync). The catalogue is small: one page holds it, filtered here for the flags the list
 * call does not filter by.
 */
export async function obisItems(flag: keyof ObisFlags, signal?: AbortSignal): Promise<ObisItem[]> {
  const { list } = await callApi(obisApi.list, { curPage: 1, pageSize: MAX_PAGE_SIZE }, { signal });
  return list
    .filter((item) => item[flag] === true)
    .map((item) => ({ obis: String(item.obis), description: String(item.description ?? '') }));
}
