import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleConsole, CONSOLE_DIR, loadConsole } from './console-bundle.js';

describe('the console bundle', () => {
  it('bundles console/ into one script and one stylesheet, with Preact, htm and uPlot inside', async () => {
    const out = await bundleConsole();
    // Names that survive minification: the API header, the routes the pages call, uPlot's class.
    expect(out['app.js']).toContain('X-API-Key');
    expect(out['app.js']).toContain('/api/v1/profiles');
    expect(out['app.js']).toContain('sessionStorage');
    expect(out['app.css']).toContain('.uplot');
    expect(out['app.css']).toContain('.rule-tree');
    expect(out['app.js'].length).toBeLessThan(200_000);
  });

  it('serves the files npm run build wrote beside index.html, without bundling again', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'console-dist-'));
    writeFileSync(path.join(dir, 'index.html'), '<!DOCTYPE html><title>built</title>');
    writeFileSync(path.join(dir, 'app.js'), 'console.log("built");');
    writeFileSync(path.join(dir, 'app.css'), 'body{}');
    // No main.js here: a bundling attempt would fail, so these answers come from the files.
    expect(await loadConsole(dir)).toEqual({
      'index.html': '<!DOCTYPE html><title>built</title>',
      'app.js': 'console.log("built");',
      'app.css': 'body{}',
    });
  });

  it('bundles in a checkout, where nothing built is kept', async () => {
    const files = await loadConsole(CONSOLE_DIR);
    expect(files['index.html']).toContain('<script type="module" src="/console/app.js">');
    expect(files['app.js']).toContain('X-API-Key');
  });
});
