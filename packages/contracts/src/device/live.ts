import { z } from 'zod';
import { IdSchema } from '../common/ids';

/**
 * What a device's live change says: its link went online or offline (the head-end's `device_link`),
 * or its supply went down (a power-down "last gasp") or came back (power-up), as the outage state
 * records it (`device_power`). A repeated or older event that changes nothing is not announced.
 */
export const LIVE_DEVICE_CHANGES = ['online', 'offline', 'powerDown', 'powerUp'] as const;
export type LiveDeviceChangeKind = (typeof LIVE_DEVICE_CHANGES)[number];

export const LiveDeviceChangeSchema = z.object({
  kind: z.enum(['meter', 'dcu']),
  /** The device's archive id. */
  id: IdSchema,
  /** Its business key: a meter's serial (`devAddr`), a DCU's number. */
  key: z.string(),
  /** The grid node the device is placed in (the topic's node or one below it). */
  gridId: IdSchema,
  change: z.enum(LIVE_DEVICE_CHANGES),
  /** When it happened: the link's change time, the power event's time. */
  at: z.iso.datetime({ offset: true }),
});
export type LiveDeviceChange = z.infer<typeof LiveDeviceChangeSchema>;

/**
 * Changes listed per message at most. A storm (a feeder losing supply) says how many it left out
 * (`omitted`): a listener that keeps per-device state then reads again what it shows.
 */
export const MAX_LIVE_CHANGES = 500;

/** One message on `live/grid/{gridId}/devices`: changes of devices in that node's subtree. */
export const LiveDeviceMessageSchema = z.object({
  /** The node of the topic. */
  gridId: IdSchema,
  changes: z.array(LiveDeviceChangeSchema).max(MAX_LIVE_CHANGES),
  omitted: z.number().int().min(0),
});
export type LiveDeviceMessage = z.infer<typeof LiveDeviceMessageSchema>;
