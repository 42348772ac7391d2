import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CORPUS_DIR, loadCorpus, SARCASM_CORPUS_FILES } from './corpus.js';

describe('training corpus and sarcasm set', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  /** A corpus of one real file and a sarcasm folder holding `sarcasm` (file name → lines). */
  const tiny = (sarcasm: Record<string, string> | undefined) => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'corpus-'));
    dirs.push(root);
    mkdirSync(path.join(root, 'train'));
    copyFileSync(path.join(CORPUS_DIR, 'v4-sarcasm.jsonl'), path.join(root, 'train', 'v4-sarcasm.jsonl'));
    if (sarcasm) {
      mkdirSync(path.join(root, 'sarcasm'));
      for (const [f, raw] of Object.entries(sarcasm)) writeFileSync(path.join(root, 'sarcasm', f), raw);
    }
    return () => loadCorpus(path.join(root, 'train'), path.join(root, 'sarcasm'));
  };

  it('reads the shipped sarcasm set: fifteen writers, both sides of the line', () => {
    const corpus = loadCorpus();
    const count = (label: string) => corpus.sarcasm.filter((ex) => ex.label === label).length;
    expect(new Set(corpus.sarcasm.map((ex) => ex.writer)).size).toBe(15);
    expect(count('polite_complaint')).toBe(598);
    // The calm writers (twelfth stop): only praise that has its minimal-edit complaint on the next line.
    const calm = corpus.sarcasm.filter((ex) => ex.writer.startsWith('calm-'));
    expect(calm.filter((ex) => ex.label === 'sincere_positive')).toHaveLength(195);
    expect(calm.filter((ex) => ex.label === 'literal_negative')).toHaveLength(198);
    expect(calm.every((ex, i) => ex.label !== 'sincere_positive' || calm[i + 1]?.label === 'literal_negative')).toBe(
      true,
    );
    expect(count('sarcastic')).toBeGreaterThanOrEqual(1350);
    expect(count('sincere_positive') + count('sincere_positive_with_problem')).toBeGreaterThanOrEqual(1430);
    // The corpus' sarcastic lines: the negative lines of its sarcasm and irony files, and only those.
    const sarcastic = corpus.items.filter((it) => corpus.sarcasticIds.has(it.id));
    expect(sarcastic.length).toBeGreaterThan(100);
    expect(sarcastic.every((it) => it.sentiment < -0.2 && /^v\d(?:sar|iro)-/.test(it.id))).toBe(true);
    expect(corpus.files.filter((f) => SARCASM_CORPUS_FILES.test(f))).toEqual(['v4-sarcasm.jsonl', 'v5-irony.jsonl']);
  });

  it('names the file and line of a bad sarcasm line, and reads nothing', () => {
    const load = tiny({
      'a.jsonl':
        '{"label": "sarcastic", "text": "Oh good, the app ate my notes again."}\n{"label": "ironic", "text": "x"}\n',
    });
    expect(load).toThrow(/sarcasm\/a\.jsonl:2: label/);
    expect(tiny({ 'b.jsonl': '{"label": "neutral", "text": "hi", "extra": 1}\n' })).toThrow(/sarcasm\/b\.jsonl:1/);
  });

  it('keys the heads on the sarcasm set too: another line, another hash; no folder, an empty set', () => {
    const line = '{"label": "sincere_positive", "text": "Setup took five minutes, lovely."}\n';
    const a = tiny({ 'a.jsonl': line })();
    const b = tiny({ 'a.jsonl': line + '{"label": "sarcastic", "text": "Lovely, five hours of setup."}\n' })();
    expect(a.sarcasm).toHaveLength(1);
    expect(b.sarcasm).toHaveLength(2);
    expect(a.hash).not.toBe(b.hash);
    const none = tiny(undefined)();
    expect(none.sarcasm).toEqual([]);
    expect(none.hash).not.toBe(a.hash);
    expect(none.items).toEqual(a.items);
  });
});
