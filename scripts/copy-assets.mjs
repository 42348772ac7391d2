// `npm run build` compiles src/, workflows/ and gen/ to dist/ with tsc; the files tsc does not emit
// are copied beside them, so the same relative paths resolve under dist/ as in the checkout.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';

for (const [from, to] of [
  ['src/analysis/embed-thread.mjs', 'dist/src/analysis/embed-thread.mjs'],
  ['gen/profiling-v1.binpb', 'dist/gen/profiling-v1.binpb'],
  ['data/train', 'dist/data/train'],
]) {
  cpSync(from, to, { recursive: true });
}

// The console is bundled here, so the image serves built files and needs no bundler at run time
// (src/transport/http/console-bundle.ts reads dist/console/app.js when it is there).
const { bundleConsole } = await import('../dist/src/transport/http/console-bundle.js');
const files = await bundleConsole('console');
mkdirSync('dist/console', { recursive: true });
cpSync('console/index.html', 'dist/console/index.html');
for (const [name, text] of Object.entries(files)) writeFileSync(`dist/console/${name}`, text);
