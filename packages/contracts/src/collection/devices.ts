import type { z } from 'zod';
import { PlanDevsSchema } from '../operations/plan.api';

/**
 * A collection task's device set (spec §3 devs): the meters named (itemType 0), every meter of the DCUs
 * named (itemType 1), narrowed by the devParams filters; an empty list with filters means every meter
 * of the caller's grid scope that the filters match.
 */
export const TaskDevsSchema = PlanDevsSchema;
export type TaskDevs = z.infer<typeof TaskDevsSchema>;
