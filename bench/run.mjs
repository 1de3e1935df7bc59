/**
 * `npm run bench` measures the bundle size, as it always has; `npm run bench -- NAME` runs another
 * benchmark by name (`field`: the collection field run).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BENCHES = {
  'bundle-size': ['bench/bundle-size.mjs'],
  field: ['--import', 'tsx', 'bench/collection-field.ts'],
};

const [name = 'bundle-size', ...rest] = process.argv.slice(2);
const args = BENCHES[name];
if (!args) {
  console.error(`unknown benchmark "${name}"; one of: ${Object.keys(BENCHES).join(', ')}`);
  process.exit(2);
}
const child = spawn(process.execPath, [...args, ...rest], {
  cwd: fileURLToPath(new URL('..', import.meta.url)),
  stdio: 'inherit',
});
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
