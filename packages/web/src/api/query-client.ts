import { RESULT } from '@meterdesk/contracts';
import { QueryClient } from '@tanstack/react-query';
import { ApiError } from './api-client';

/** Client errors (4xx) are answers, not glitches: retrying them only repeats the refusal. */
function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiError && error.code >= RESULT.badRequest && error.code < RESULT.serverError) return false;
  return failureCount < 1;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: shouldRetry, refetchOnWindowFocus: false, staleTime: 30_000 },
      mutations: { retry: false },
    },
  });
}
