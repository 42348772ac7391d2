// `npm run build` compiles src/, workflows/ and gen/ to dist/ with tsc; the files tsc does not emit
// are copied beside them, so the same relative paths resolve under dist/ as in the checkout.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';

for (const [from, to] of [
  ['src/analysis/embed-thread.mjs', 'dist/src/analysis/embed-thread.mjs'],
  ['gen/profiling-v1.binpb', 'dist/gen/profiling-v1.binpb'],
  ['data/train', 'dist/data/train'],
  // The local model's trained heads, loaded by a fresh installation instead of training them.
  ['data/heads', 'dist/data/heads'],
  // The Go module pinning the Temporal binaries of `--temporal dev` (src/dev-hosting/temporal-binaries.ts).
  ['tools/temporal/go.mod', 'dist/tools/temporal/go.mod'],
  ['tools/temporal/go.sum', 'dist/tools/temporal/go.sum'],
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
