/** The PostgreSQL error (its SQLSTATE `code`, `constraint`) anywhere in an error's cause chain: drivers and drizzle wrap it. */
export function databaseError(error: unknown): { code: string; constraint?: unknown } | null {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as never)
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e as { code: string };
  return null;
}
