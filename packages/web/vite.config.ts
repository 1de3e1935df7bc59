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
    rolldownOptions: {
      treeshake: {
        // The contracts' only top-level effect is registering field metadata of the schemas they
        // export, so a module nothing imports from can go: the login page then carries the auth
        // contract, not every entity of the product.
        moduleSideEffects: (id) => (/[\\/]packages[\\/]contracts[\\/]src[\\/]/.test(id) ? false : undefined),
      },
    },
  },
  server: {
    proxy: {
      '/apis': SERVER,
      '/static-config': SERVER,
      '/mqtt': { target: SERVER, ws: true },
    },
  },
});
