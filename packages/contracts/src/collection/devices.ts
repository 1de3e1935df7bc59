import { z } from 'zod';
import { PlanDeviceKeySchema, PlanDevParamsSchema, PlanItemTypeSchema } from '../operations/plan.api';

/**
 * Devices a collection task may name. Unlike a one-shot plan (30 devices) a task collects from a
 * whole fleet, usually through filters; a list is still bounded so one request stays reasonable.
 */
export const MAX_TASK_DEVICES = 10_000;

/**
 * A collection task's device set (spec §3 devs): the meters named (itemType 0), every meter of the DCUs
 * named (itemType 1), narrowed by the devParams filters; an empty list with filters means every meter
 * of the caller's grid scope that the filters match.
 */
export const TaskDevsSchema = z.strictObject({
  itemType: PlanItemTypeSchema,
  devList: z.array(PlanDeviceKeySchema).max(MAX_TASK_DEVICES, 'tooLong').default([]),
  devParams: PlanDevParamsSchema.optional(),
});
export type TaskDevs = z.infer<typeof TaskDevsSchema>;
