import { CHUNK_TIMEOUT_MS } from '@meterdesk/contracts';
import { type ComponentType, type LazyExoticComponent, lazy } from 'react';

export type LazyPage = LazyExoticComponent<ComponentType>;

class ChunkTimeoutError extends Error {
  constructor() {
    super(`A page did not load within ${CHUNK_TIMEOUT_MS / 1000} s`);
    this.name = 'ChunkTimeoutError';
  }
}

/** A page in its own chunk; a chunk that has not arrived after CHUNK_TIMEOUT_MS counts as failed (spec §8). */
export function lazyPage(load: () => Promise<ComponentType>): LazyPage {
  return lazy(async () => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ChunkTimeoutError()), CHUNK_TIMEOUT_MS);
    });
    try {
      return { default: await Promise.race([load(), timeout]) };
    } finally {
      clearTimeout(timer);
    }
  });
}
