import { COMMON_OBIS, DLMS_UNITS } from '@meterdesk/contracts';
import type { ObisLookup } from '../headend/commands';

/** The seeded common objects as the catalogue answers them, for tests that build commands without a database. */
export const commonObisLookup: ObisLookup = {
  byCodes: async (codes) =>
    new Map(
      COMMON_OBIS.filter((item) => codes.includes(item.obis)).map((item) => [
        item.obis,
        {
          obis: item.obis,
          classId: item.classId,
          attribute: item.attribute,
          unit: DLMS_UNITS[item.unit],
          scaler: item.scaler,
          description: item.description,
          cgName: item.cgName,
          readInstantly: item.flags.readInstantly === true,
          channelOption: item.flags.channelOption === true,
          settingChannel: item.flags.settingChannel === true,
        },
      ]),
    ),
  channels: async () => COMMON_OBIS.filter((item) => item.flags.channelOption).map((item) => item.obis),
};
