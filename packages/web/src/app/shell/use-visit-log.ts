import { syslogApi } from '@meterdesk/contracts';
import { useEffect, useRef } from 'react';
import { callApi } from '@/api/api-client';

/**
 * Records a visit each time the shell opens a page (`pageName` undefined: not a page, nothing to
 * record). Paging or filtering within a page changes only the query and is not a visit; a failed
 * record never bothers the user.
 */
export function useVisitLog(path: string, pageName: string | undefined): void {
  const logged = useRef<string | null>(null);
  useEffect(() => {
    if (pageName === undefined || logged.current === path) return;
    logged.current = path;
    callApi(syslogApi.savevisitlog, { pageUri: path, pageName }).catch(() => undefined);
  }, [path, pageName]);
}
