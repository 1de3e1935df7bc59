// The server, its two commands and the fleet simulator compiled to JavaScript, which is what `npm start`,
// `npm run admin|seed|simulator` and the journeys run: TypeScript is compiled at run time (tsx, vitest) only
// in development and tests. esbuild bundles each entry with the workspace packages it imports (they export
// their TypeScript sources); everything from node_modules stays an import, resolved at run time as before.
// `node scripts/build-server.mjs` builds; the scripts that run a bundle call buildServerIfStale first.
import { mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import esbuild from 'esbuild';

/**
 * Each bundle and its source. The server's bundles sit one folder below packages/server, as its sources
 * do, so the paths it finds from its own file (packages/server/src/paths.ts) hold for both.
 */
const ENTRIES = {
  main: { source: 'packages/server/src/main.ts', bundle: 'packages/server/dist/main.js' },
  admin: { source: 'packages/server/src/admin-cli.ts', bundle: 'packages/server/dist/admin-cli.js' },
  seed: { source: 'packages/server/src/seed-cli.ts', bundle: 'packages/server/dist/seed-cli.js' },
  simulator: { source: 'packages/simulator/src/cli.ts', bundle: 'packages/simulator/dist/cli.js' },
};

/** What the bundles are made of: a change to any of these makes them stale. */
const SOURCES = [
  'packages/contracts/src',
  'packages/contracts/package.json',
  'packages/simulator/src',
  'packages/simulator/package.json',
  'packages/server/src',
  'packages/server/package.json',
  'scripts/build-server.mjs',
];

/** The bundle of `name` (main, admin, seed, simulator) in the repository at `root`. */
export function compiledEntry(root, name) {
  const entry = ENTRIES[name];
  if (!entry) throw new Error(`No compiled entry "${name}": one of ${Object.keys(ENTRIES).join(', ')}`);
  return path.join(root, entry.bundle);
}

/** The newest modification time of a file, or of any file under a directory. */
export function newestMtime(file) {
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const name of readdirSync(file)) newest = Math.max(newest, newestMtime(path.join(file, name)));
  return newest;
}

/** Whether one of `outputs` is missing or older than the newest of `sources` (all relative to `root`). */
export function isStale(root, outputs, sources) {
  const newestSource = Math.max(...sources.map((source) => newestMtime(path.join(root, source))));
  return outputs.some((output) => {
    try {
      return statSync(path.join(root, output)).mtimeMs < newestSource;
    } catch {
      return true;
    }
  });
}

/** Imports of packages (anything not relative) stay imports, except the workspace's own, which are bundled. */
const dependenciesExternal = {
  name: 'dependencies-external',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.kind === 'entry-point' || args.path.startsWith('@meterdesk/') ? undefined : { external: true },
    );
  },
};

/** Builds every bundle. Each file is written beside and renamed, so a process starting meanwhile reads a whole one. */
export async function buildServer(root) {
  // esbuild's service process would otherwise live as long as this one (`npm start` waits on the server).
  const result = await esbuild
    .build({
      absWorkingDir: root,
      entryPoints: Object.values(ENTRIES).map(({ source, bundle }) => ({
        in: path.join(root, source),
        out: bundle.replace(/\.js$/, ''),
      })),
      outdir: root,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20.19',
      // Function and class names as written: the logs and error names show them.
      keepNames: true,
      sourcemap: 'linked',
      sourcesContent: false,
      plugins: [dependenciesExternal],
      logLevel: 'warning',
      write: false,
    })
    .finally(() => esbuild.stop());
  for (const file of result.outputFiles) {
    mkdirSync(path.dirname(file.path), { recursive: true });
    const partial = `${file.path}.${process.pid}.partial`;
    writeFileSync(partial, file.contents);
    renameSync(partial, file.path);
  }
}

/** Builds the bundles when one is missing or older than its sources; says so on stderr (a command's stdout stays its own). */
export async function buildServerIfStale(root) {
  const bundles = Object.values(ENTRIES).map((entry) => entry.bundle);
  if (!isStale(root, bundles, SOURCES)) return;
  console.error('Building the server…');
  await buildServer(root);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await buildServer(path.resolve(import.meta.dirname, '..'));
}
