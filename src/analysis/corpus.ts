import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
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

/** Parses JSON lines; a bad line is an error naming the file and line (a corpus is never half-read). */
export function parseLabelled(raw: string, source: string): LabelledText[] {
  const out: LabelledText[] = [];
  raw.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new Error(`${source}:${i + 1}: not JSON`);
    }
    const r = Row.safeParse(json);
    if (!r.success)
      throw new Error(
        `${source}:${i + 1}: ${r.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`,
      );
    const { id, text, sentiment, topics, intentions, register } = r.data;
    out.push({ id, text, sentiment, topics: [...new Set(topics)], intentions: [...new Set(intentions)], register });
  });
  return out;
}

export interface Corpus {
  items: LabelledText[];
  /** sha256 of the files' names and contents, in name order: the heads cache key's corpus part. */
  hash: string;
  files: string[];
}

export function loadCorpus(dir = CORPUS_DIR): Corpus {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort();
  if (files.length === 0) throw new Error(`no training corpus in ${dir} (*.jsonl)`);
  const hash = createHash('sha256');
  const items: LabelledText[] = [];
  for (const f of files) {
    const raw = readFileSync(path.join(dir, f), 'utf8');
    hash.update(`${f}\n${raw}\n`);
    const lines = parseLabelled(raw, f);
    const untagged = lines.findIndex((it) => it.register === undefined);
    if (untagged >= 0) throw new Error(`${f}: line ${lines[untagged].id} has no register (data/train/README.md)`);
    items.push(...lines);
  }
  const ids = new Set<string>();
  for (const it of items) {
    if (ids.has(it.id)) throw new Error(`training corpus: id ${it.id} appears twice`);
    ids.add(it.id);
  }
  return { items, hash: hash.digest('hex'), files };
}
