const pad = (value: number) => String(value).padStart(2, '0');

/** `YYYY-MM-DD HH:mm:ss` in the browser's time zone; the API sends ISO 8601 in UTC. */
export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  return `${day} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/**
 * The zone `formatDateTime` writes in, for a heading to name it: its IANA name, because an offset
 * would be wrong for the rows on the other side of a summer-time change.
 */
export const browserTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;
