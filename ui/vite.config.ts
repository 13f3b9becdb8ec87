// The web UI served at /ui: minified assets, copied into the Python package by scripts/build-ui.sh.
import preact from "@preact/preset-vite";
import { defineConfig } from "vite";

export default defineConfig({
  root: "src/app",
  base: "./",
  plugins: [preact()],
  build: {
    outDir: "../../dist/ui",
    emptyOutDir: true,
    chunkSizeWarningLimit: 1024,
  },
});
