import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { INTENTIONS, TOPICS } from './taxonomy.js';

/** The training corpus: data/train/*.jsonl, written for this service (see data/train/README.md). */
export const CORPUS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../data/train');

/** The kinds of writing the corpus holds (data/train/README.md), for figures per register. */
export const REGISTERS = [
  'short',
  'long',
  'multi',
  'foreign',
  'casual',
  'notice',
  'question',
  'effect',
  'review',
  'chat',
  'email',
  'post',
  'ticket',
] as const;

export interface LabelledText {
  id: string;
  text: string;
  sentiment: number;
  topics: string[];
  intentions: string[];
  /** Corpus lines only (evaluation sets have none). */
  register?: string;
}

const Row = z.object({
  id: z.string().min(1),
  text: z.string(),
  sentiment: z.number().min(-1).max(1),
  polarity: z.enum(['negative', 'neutral', 'positive']).optional(),
  topics: z.array(z.string().refine((t) => TOPICS.includes(t), 'unknown topic')),
  intentions: z.array(z.string().refine((t) => INTENTIONS.includes(t), 'unknown intention')),
  register: z.enum(REGISTERS).optional(),
});

/** Parses JSON lines by a schema; a bad line is an error naming the file and line (a corpus is never half-read). */
function parseLines<T>(raw: string, source: string, schema: z.ZodType<T>): T[] {
  const out: T[] = [];
  raw.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new Error(`${source}:${i + 1}: not JSON`);
    }
    const r = schema.safeParse(json);
    if (!r.success)
      throw new Error(
        `${source}:${i + 1}: ${r.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`,
      );
    out.push(r.data);
  });
  return out;
}

export function parseLabelled(raw: string, source: string): LabelledText[] {
  return parseLines(raw, source, Row).map(({ id, text, sentiment, topics, intentions, register }) => ({
    id,
    text,
    sentiment,
    topics: [...new Set(topics)],
    intentions: [...new Set(intentions)],
    register,
  }));
}

/**
 * The sarcasm set: data/sarcasm/*.jsonl (data/sarcasm/README.md), lines labelled `sarcastic`,
 * `polite_complaint`, `sincere_positive`, `sincere_positive_with_problem`, `literal_negative` or
 * `neutral`. It trains the learned sarcasm detector (sarcasm-detector.ts): praise or courtesy that
 * means a complaint against praise and courtesy that mean it; and the readers' polarity
 * (train-heads.ts sarcasmSetPolarityRows). Its lines carry no topics or intentions.
 */
export const SARCASM_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../data/sarcasm');
export const SARCASM_LABELS = [
  'sarcastic',
  'polite_complaint',
  'sincere_positive',
  'sincere_positive_with_problem',
  'literal_negative',
  'neutral',
] as const;
export interface SarcasmExample {
  text: string;
  label: (typeof SARCASM_LABELS)[number];
  /** Its file's name without `.jsonl`: one writer each (leave-one-writer-out, sarcasm-writers.ts). */
  writer: string;
}
const SarcasmRow = z.object({ label: z.enum(SARCASM_LABELS), text: z.string().min(1) }).strict();

/**
 * The corpus files whose negative lines are sarcasm (their positive lines are its sincere
 * counterparts, minimal edits of the same message): they join the sarcasm set's sarcastic lines
 * for the detector. In the experiment that chose the detector's inputs (leave-one-writer-out on
 * data/sarcasm, threshold 0.7), 116 of the 285 sarcastic lines the heads read positive were caught
 * with them and 103 without, with 6 and 7 of 799 sincere lines turned (docs/analysis.md).
 */
export const SARCASM_CORPUS_FILES = /^v\d+-(?:sarcasm|irony)\.jsonl$/;

export interface Corpus {
  items: LabelledText[];
  /**
   * sha256 of the files' names and contents, in name order, the sarcasm set's after the corpus':
   * the heads cache key's corpus part.
   */
  hash: string;
  files: string[];
  /** The sarcasm set (empty when its folder is missing). */
  sarcasm: SarcasmExample[];
  /** Ids of the corpus lines that are sarcasm (negative lines of SARCASM_CORPUS_FILES). */
  sarcasticIds: Set<string>;
}

export function parseSarcasm(raw: string, source: string, writer: string): SarcasmExample[] {
  return parseLines(raw, source, SarcasmRow).map((ex) => ({ ...ex, writer }));
}

export function loadCorpus(dir = CORPUS_DIR, sarcasmDir = SARCASM_DIR): Corpus {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort();
  if (files.length === 0) throw new Error(`no training corpus in ${dir} (*.jsonl)`);
  const hash = createHash('sha256');
  const items: LabelledText[] = [];
  const sarcasticIds = new Set<string>();
  for (const f of files) {
    const raw = readFileSync(path.join(dir, f), 'utf8');
    hash.update(`${f}\n${raw}\n`);
    const lines = parseLabelled(raw, f);
    const untagged = lines.findIndex((it) => it.register === undefined);
    if (untagged >= 0) throw new Error(`${f}: line ${lines[untagged].id} has no register (data/train/README.md)`);
    items.push(...lines);
    if (SARCASM_CORPUS_FILES.test(f)) for (const it of lines) if (it.sentiment < -0.2) sarcasticIds.add(it.id);
  }
  const sarcasm: SarcasmExample[] = [];
  const sarcasmFiles = existsSync(sarcasmDir)
    ? readdirSync(sarcasmDir)
        .filter((f) => f.endsWith('.jsonl'))
        .sort()
    : [];
  for (const f of sarcasmFiles) {
    const raw = readFileSync(path.join(sarcasmDir, f), 'utf8');
    hash.update(`sarcasm/${f}\n${raw}\n`);
    sarcasm.push(...parseSarcasm(raw, `sarcasm/${f}`, f.replace(/\.jsonl$/, '')));
  }
  const ids = new Set<string>();
  for (const it of items) {
    if (ids.has(it.id)) throw new Error(`training corpus: id ${it.id} appears twice`);
    ids.add(it.id);
  }
  return { items, hash: hash.digest('hex'), files, sarcasm, sarcasticIds };
}
