import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const SERVER = 'http://127.0.0.1:8080';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  resolve: { alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // bench/bundle-size.mjs walks the manifest to weigh what each route loads.
    manifest: true,
  },
  server: {
    proxy: {
      '/apis': SERVER,
      '/static-config': SERVER,
      '/mqtt': { target: SERVER, ws: true },
    },
  },
});
