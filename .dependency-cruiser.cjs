// The import rules, checked by `npm test` (scripts/test.mjs: `npx depcruise --config .dependency-cruiser.cjs
// packages e2e bench scripts`). docs/architecture.md, "Layers", says why each layer sits where it does.

const SERVER = 'packages/server/src/';

/**
 * The server's layers, lowest first. A file may import its own layer and the layers before it in this
 * list, never one after it. Each layer is the folders and files of packages/server/src it names.
 */
const LAYERS = [
  // What every layer may use: the type shims, configuration, where the installation's files are, logging,
  // labels, the refusal (ApiError), secrets.
  { name: 'base', paths: ['types/', 'config\\.ts$', 'paths\\.ts$', 'logger\\.ts$', 'i18n/', 'errors/', 'crypto/'] },
  { name: 'db', paths: ['db/'] },
  { name: 'jobs', paths: ['jobs/'] },
  { name: 'audit', paths: ['audit/'] },
  { name: 'mail', paths: ['mail/'] },
  { name: 'rbac', paths: ['rbac/'] },
  { name: 'http', paths: ['http/'] },
  { name: 'auth', paths: ['auth/'] },
  { name: 'mqtt', paths: ['mqtt/'] },
  { name: 'headend', paths: ['headend/'] },
  { name: 'readings', paths: ['readings/'] },
  { name: 'modules', paths: ['modules/'] },
  { name: 'seed', paths: ['seed/'] },
  // The composition root: builds the services and the app, and starts them.
  { name: 'root', paths: ['app\\.ts$', 'services\\.ts$', 'main\\.ts$', 'admin-cli\\.ts$', 'seed-cli\\.ts$'] },
];

/** Test code (tests, their helpers, the test command) may import any layer; no layer may import it. */
const TESTS = ['\\.test\\.tsx?$', `^${SERVER}test/`, '-testing\\.ts$', '^scripts/test\\.mjs$'];

const under = (layer) => layer.paths.map((p) => `^${SERVER}${p}`);

const layerRules = LAYERS.slice(0, -1).map((layer, i) => {
  const above = LAYERS.slice(i + 1);
  return {
    name: `layer-${layer.name}`,
    comment: `${layer.name} imports only itself and the layers below it, never ${above.map((l) => l.name).join(', ')}`,
    severity: 'error',
    from: { path: under(layer), pathNot: TESTS },
    to: { path: above.flatMap(under) },
  };
});

/** Which of the other workspace packages each package may import. */
const PACKAGES = { contracts: [], simulator: ['contracts'], server: ['contracts', 'simulator'], web: ['contracts'] };

const packageRules = Object.entries(PACKAGES).map(([name, uses]) => {
  const others = Object.keys(PACKAGES).filter((other) => other !== name && !uses.includes(other));
  return {
    name: `package-${name}`,
    comment: `${name} imports ${uses.join(' and ') || 'no other package'}, never ${others.join(', ')}`,
    severity: 'error',
    from: { path: `^packages/${name}/` },
    to: { path: others.map((other) => `^packages/${other}/`) },
  };
});

module.exports = {
  forbidden: [
    ...layerRules,
    ...packageRules,
    {
      name: 'layer-unlisted',
      comment: `every server file belongs to a layer: add a new folder to LAYERS in .dependency-cruiser.cjs`,
      severity: 'error',
      from: { path: `^${SERVER}`, pathNot: [...LAYERS.flatMap(under), ...TESTS] },
      to: {},
    },
    {
      name: 'no-test-code',
      comment: 'code that ships never imports a test or a test helper',
      severity: 'error',
      from: { pathNot: TESTS },
      to: { path: TESTS },
    },
    {
      name: 'no-circular',
      comment: 'no file reaches itself through its imports (type-only imports included), in any package',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['node_modules', '(^|/)dist/', '^packages/server/src/db/migrations/'] },
    // Type-only imports count: a cycle or an upward import of a type is still a dependency.
    tsPreCompilationDeps: true,
    // web's `@/…` paths (the other packages declare none), with the baseUrl the resolver needs.
    tsConfig: { fileName: `${__dirname}/.dependency-cruiser.tsconfig.json` },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.mts', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
