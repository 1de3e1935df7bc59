import { COMMON_OBIS, type ObisFlags } from '@meterdesk/contracts';

export interface ObisItem {
  obis: string;
  description: string;
}

/**
 * The OBIS items carrying `flag`. The OBIS catalogue (`/apis/obis/list`) is not served yet, so this
 * answers the common objects the contracts seed it with; when the catalogue lands, this one function
 * asks it instead (`readInstantly: true` and so on) and every picker follows.
 */
export async function obisItems(flag: keyof ObisFlags): Promise<ObisItem[]> {
  return COMMON_OBIS.filter((item) => item.flags[flag] === true).map(({ obis, description }) => ({
    obis,
    description,
  }));
}
