/**
 * Loaded into the benchmarked server (`node --import`): on the bench's word over IPC it records the
 * statements the server sends through `pg` until told to stop, so the bench can run the very same
 * SQL bare. Nothing else changes in the server.
 */
import { createRequire } from 'node:module';

const require = createRequire(new URL('../../packages/server/package.json', import.meta.url));
const { Client } = require('pg');

const query = Client.prototype.query;
let captured = null;

Client.prototype.query = function capture(config, values, callback) {
  if (captured && config && typeof config !== 'function') {
    const text = typeof config === 'string' ? config : config.text;
    if (typeof text === 'string') {
      captured.push({
        text,
        values: (Array.isArray(values) ? values : config.values) ?? [],
        rowMode: typeof config === 'object' ? config.rowMode : undefined,
      });
    }
  }
  return query.call(this, config, values, callback);
};

process.on('message', (message) => {
  if (message === 'capture') captured = [];
  else if (message === 'release') {
    process.send?.({ statements: captured ?? [] });
    captured = null;
  }
});
