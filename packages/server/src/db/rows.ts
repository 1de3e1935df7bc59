import { sql } from 'drizzle-orm';

/** `count(*)` as a JavaScript number on both drivers (pg returns bigint as a string). */
export const countAll = () => sql<number>`count(*)`.mapWith(Number);

export const iso = (d: Date | null | undefined): string => (d ? d.toISOString() : '');

/** Escapes LIKE wildcards so a filter matches what the user typed. */
export const likeContains = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
