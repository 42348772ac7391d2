import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SEARCH_ATTRIBUTES } from './search-attributes.js';

describe('the search attributes an external Temporal server needs', () => {
  it('are listed in docs/operations.md with their types, as the workflows set them', () => {
    const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const section = doc.split('\n## An external Temporal server\n')[1]?.split('\n## ')[0] ?? '';
    const rows = [...section.matchAll(/^\| `(\w+)` \| (\w+) \|$/gm)].map((m) => [m[1], m[2]]);
    // Printed as the rows to paste when it fails, in the doc's order (by name).
    const expected = Object.entries(SEARCH_ATTRIBUTES)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, type]) => `| \`${name}\` | ${type} |`);
    expect(rows.map(([name, type]) => `| \`${name}\` | ${type} |`)).toEqual(expected);
  });
});
