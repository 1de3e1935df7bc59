// How the server process starts, for `npm start`, the journeys and the benchmarks alike: the compiled bundle
// (scripts/build-server.mjs builds it), with a heap limit.
import { compiledEntry } from './build-server.mjs';

/**
 * V8 lets the heap grow to a multiple of what survived its last full collection before it collects
 * again, and the multiple shrinks with the heap limit. Under the default limit (4 GB on a 24 GB
 * machine) a 100,000-row import grew the heap to about 250 MB around 70 MB of live objects; under
 * 1 GB it stayed near 130 MB, the import taking about a sixth longer (docs/scaling.md). 1 GB is
 * still fifteen times what the running server holds. An operator's own `--max-old-space-size` in
 * NODE_OPTIONS wins.
 */
const HEAP_LIMIT_MB = 1024;

/**
 * The node arguments that run the server from the repository at `root`. Stack traces name the TypeScript
 * sources (the bundle's source map).
 */
export function serverArgs(root) {
  const ownLimit = /--max-old-space-size/.test(process.env.NODE_OPTIONS ?? '');
  return [
    ...(ownLimit ? [] : [`--max-old-space-size=${HEAP_LIMIT_MB}`]),
    '--enable-source-maps',
    compiledEntry(root, 'main'),
  ];
}
