import path from 'node:path';

// Where the installation's files lie, from the TypeScript sources (development, tests) and from the
// compiled bundles `npm start` runs (scripts/build-server.mjs) alike: this file and the bundles both
// sit one folder below packages/server (`src/paths.ts`, `dist/main.js`), so the same way up reaches
// the repository from either.

/** The repository root (the workspace that holds `packages/`). */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');

/** Whether this code runs as the compiled bundle rather than from its sources under tsx or vitest. */
export const COMPILED = !import.meta.filename.endsWith('.ts');

/** The SQL migrations, read at run time: the bundles read them where the sources keep them. */
export const MIGRATIONS_DIR = path.join(REPO_ROOT, 'packages/server/src/db/migrations');

/** The built web app (`npm run build`), served unless WEB_DIST says otherwise. */
export const WEB_DIST = path.join(REPO_ROOT, 'packages/web/dist');

/** The simulator's entry point: its bundle beside the server's, or its source where the server runs from source. */
export const SIMULATOR_CLI = COMPILED
  ? path.join(REPO_ROOT, 'packages/simulator/dist/cli.js')
  : path.join(REPO_ROOT, 'packages/simulator/src/cli.ts');
