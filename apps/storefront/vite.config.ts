import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  server: { host: '127.0.0.1', port: 5173, strictPort: false },
  preview: { host: '127.0.0.1', port: 4173 },
  // Scan every page up front so that the dev server never reloads a page to add a dependency.
  optimizeDeps: { entries: ['index.html', 'src/**/*.tsx'] },
  build: { sourcemap: false },
});
