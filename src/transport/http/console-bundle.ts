import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the console page loads besides its HTML. */
export interface ConsoleFiles {
  'index.html': string;
  'app.js': string;
  'app.css': string;
}

/**
 * The console's folder: `console/` in a checkout (sources, bundled on the first request), and
 * `dist/console/` in a built image, where `npm run build` wrote the bundle (scripts/copy-assets.mjs)
 * so that the image needs no bundler at run time. Nothing built is committed or kept in the checkout.
 */
export const CONSOLE_DIR = fileURLToPath(new URL('../../../console/', import.meta.url));

/** The page and its bundle: read when built ahead, otherwise bundled in memory with esbuild. */
export async function loadConsole(dir = CONSOLE_DIR): Promise<ConsoleFiles> {
  const html = await readFile(path.join(dir, 'index.html'), 'utf8');
  if (existsSync(path.join(dir, 'app.js'))) {
    const [js, css] = await Promise.all(['app.js', 'app.css'].map((f) => readFile(path.join(dir, f), 'utf8')));
    return { 'index.html': html, 'app.js': js, 'app.css': css };
  }
  const out = await bundleConsole(dir);
  return { 'index.html': html, ...out };
}

/** Bundles console/main.js (Preact, htm, uPlot and our files) into one script and one stylesheet. */
export async function bundleConsole(dir = CONSOLE_DIR): Promise<{ 'app.js': string; 'app.css': string }> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [path.join(dir, 'main.js')],
    entryNames: 'app',
    outdir: dir,
    bundle: true,
    format: 'esm',
    minify: true,
    target: ['es2020'],
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  const file = (ext: string) => result.outputFiles.find((f) => f.path.endsWith(ext))?.text ?? '';
  return { 'app.js': file('.js'), 'app.css': file('.css') };
}
