/** How long a job waits when nothing woke it: the work may have been done by another instance, which wakes no one here. */
const POLL_MS = 1000;

/** What one look at a job's work found: its result, more to do at once, or nothing until a wake or the poll. */
export type Look<T> = { done: T } | 'again' | 'wait';

/**
 * Looks at a job's work until a look is done, waiting between looks until `listen` wakes it, the poll
 * interval passes or the job system stops. A stop throws, so the job runs again after the next start.
 */
export async function untilDone<T>(
  signal: AbortSignal,
  listen: (wake: () => void) => () => void,
  look: () => Promise<Look<T>>,
): Promise<T> {
  let wake: (() => void) | null = null;
  const stopListening = listen(() => wake?.());
  const onAbort = () => wake?.();
  signal.addEventListener('abort', onAbort);
  try {
    for (;;) {
      if (signal.aborted) throw new Error('the job system stopped; the run resumes at the next start');
      const found = await look();
      if (typeof found === 'object') return found.done;
      if (found === 'again') continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  } finally {
    stopListening();
    signal.removeEventListener('abort', onAbort);
  }
}
