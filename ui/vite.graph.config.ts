// The graph renderer as ONE classic script, inlined into visualize_graph()'s offline page.
import { defineConfig } from "vite";

export default defineConfig({
  build: {
    outDir: "dist/graph",
    emptyOutDir: true,
    lib: {
      entry: "src/graph/standalone.ts",
      name: "EngramGraph",
      formats: ["iife"],
      fileName: () => "graph-renderer.js",
    },
    cssCodeSplit: false,
  },
});
