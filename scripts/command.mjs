// `npm run admin|seed|simulator -- …`: the command's compiled bundle, built first when missing or older than
// its sources (as `npm start` builds the server), run with the arguments given; its exit code is this one's.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { buildServerIfStale, compiledEntry } from './build-server.mjs';

const root = path.resolve(import.meta.dirname, '..');
const [name, ...args] = process.argv.slice(2);
const bundle = compiledEntry(root, name);
await buildServerIfStale(root);

const command = spawn(process.execPath, ['--enable-source-maps', bundle, ...args], { stdio: 'inherit' });
// Ctrl-C reaches the command too (the terminal signals the process group); this one only waits for it.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => command.kill(signal));
command.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
