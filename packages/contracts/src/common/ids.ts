import { z } from 'zod';

/** Record ids are 32 hexadecimal characters (spec §9). */
export const IdSchema = z.string().regex(/^[0-9a-f]{32}$/, 'invalidId');
export type Id = z.infer<typeof IdSchema>;

/** Root nodes of a tree point at this parent id. */
export const ROOT_PARENT_ID = '0';
