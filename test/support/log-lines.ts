import { readFileSync } from 'node:fs';

/** Lines of a service's output that are not JSON objects, the startup banner's block left out. */
export function notJsonLines(file: string): string[] {
  const odd: string[] = [];
  let inBanner = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    // The banner: its title, indented lines, and the empty line that ends it.
    if (line.startsWith('Semantic profiling service (')) inBanner = true;
    else if (inBanner && line === '') inBanner = false;
    if (inBanner || line === '') continue;
    try {
      if (typeof JSON.parse(line) !== 'object') odd.push(line);
    } catch {
      odd.push(line);
    }
  }
  // A banner that never closed would have hidden everything after it.
  if (inBanner) odd.push('(the banner has no closing empty line)');
  return odd;
}
