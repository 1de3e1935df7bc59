import { z } from 'zod';

/**
 * A fleet for the simulator: the devices it plays and how each logs in to the broker. The server
 * writes it from the archive (DATA_DIR/run/fleet.json, mode 600: it holds device passwords); the
 * simulator can also make one from flags. Meters under a DCU speak through the DCU's connection;
 * `direct` meters (4G/NB-IoT) have their own.
 */
export const FleetMeterSchema = z.object({
  devAddr: z.string(),
  /** Meter type wiring decides the load curve's size: 1P2W households, 3P4W commerce. */
  wiring: z.enum(['1P2W', '3P3W', '3P4W']).default('1P2W'),
  /** Prepaid consumers start in prepayment mode. */
  prepaid: z.boolean().default(false),
  /**
   * The meter's STS decoder key (16 hexadecimal digits), as the vending side derives it (payment/sts.ts
   * `deriveDecoderKey`); without it the meter holds the one DEMO_VENDING_KEY and `meterKeyDataOf` give.
   */
  decoderKey: z
    .string()
    .regex(/^[0-9A-Fa-f]{16}$/)
    .optional(),
  /**
   * Credit (cents) a prepaid meter holds when the simulator starts: the server's balance for it, so a
   * restarted simulator goes on from there. Without it, an amount the seed draws (20.00–200.00).
   */
  credit: z.number().int().min(-100_000_000).max(100_000_000).optional(),
  /** The TIDs of the tokens the meter took (the newest TOKEN_TID_MEMORY are kept), so a restart refuses them still. */
  tids: z.array(z.number().int().min(0).max(0xffffff)).max(1000).optional(),
});
export type FleetMeter = z.infer<typeof FleetMeterSchema>;

export const FleetCredentialsSchema = z.object({ username: z.string(), password: z.string() });
export type FleetCredentials = z.infer<typeof FleetCredentialsSchema>;

export const FleetDcuSchema = z.object({
  dcuNo: z.string(),
  credentials: FleetCredentialsSchema.optional(),
  meters: z.array(FleetMeterSchema),
});
export type FleetDcu = z.infer<typeof FleetDcuSchema>;

export const FleetDirectMeterSchema = FleetMeterSchema.extend({ credentials: FleetCredentialsSchema.optional() });

export const FleetSchema = z.object({
  version: z.literal(1),
  dcus: z.array(FleetDcuSchema),
  direct: z.array(FleetDirectMeterSchema).default([]),
});
export type Fleet = z.infer<typeof FleetSchema>;

/**
 * A line on the simulator's standard input, one JSON object per line: the server (or someone at a
 * terminal) changes the running fleet. `power`: black out the named devices (`powered: false`:
 * meters send their last gasp, everything goes offline) or restore them.
 */
export const SimulatorControlSchema = z.object({
  op: z.literal('power'),
  powered: z.boolean(),
  /** Meter serials and DCU numbers, as in the fleet. */
  devices: z.array(z.string()).max(100_000),
});
export type SimulatorControl = z.infer<typeof SimulatorControlSchema>;
