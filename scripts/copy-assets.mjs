// `npm run build` compiles src/, workflows/ and gen/ to dist/ with tsc; the files tsc does not emit
// are copied beside them, so the same relative paths resolve under dist/ as in the checkout.
import { cpSync } from 'node:fs';

for (const [from, to] of [
  ['src/analysis/embed-thread.mjs', 'dist/src/analysis/embed-thread.mjs'],
  ['gen/profiling-v1.binpb', 'dist/gen/profiling-v1.binpb'],
  ['data/train', 'dist/data/train'],
]) {
  cpSync(from, to, { recursive: true });
}
