import type { Db } from '../db/knex.js';
import type { Caller } from '../auth/api-keys.js';
import type { Embedder } from '../analysis/embedder.js';
import { wordFeatures } from '../analysis/word-features.js';
import { AppError, invalid, notFound, quotaExceeded } from '../errors.js';
import { isStorableText } from '../validation.js';
import { requireProject } from '../projects/projects.js';
import { holdQuota, labelsQuota, type Quotas } from '../quotas.js';
import { wakeRelay } from '../outbox/outbox.js';
import { isValidSlug } from '../segments/slug.js';
import { labelsNamed, type Rule } from '../segments/rules.js';
import { labelScorer, type LabelExample, type LabelModel, type LabelQuality } from './label-model.js';

/**
 * Custom labels (issue 47, docs/labels.md): a project teaches the service its own categories from
 * a few examples. Every write stores the whole example set as a new version and flags it for
 * training (the relay starts the workflow, src/labels/training-start.ts); the last version that
 * trained keeps scoring until a newer one is ready.
 */

/** At least this many examples of each side: fewer cannot be cross-validated into a threshold. */
export const MIN_EXAMPLES_PER_SIDE = 5;
export const MAX_EXAMPLE_LENGTH = 2_000;
export const MAX_DESCRIPTION_LENGTH = 500;
/** Texts one classify call scores: a try-out, not a bulk API. */
export const MAX_CLASSIFY_TEXTS = 100;
export const MAX_CLASSIFY_TEXT_LENGTH = 10_000;

export type LabelQuotas = Pick<Quotas, 'labelsPerProject' | 'examplesPerLabel'>;

export interface LabelInput {
  name?: string;
  description?: string | null;
  examples?: unknown;
}

export interface LabelBackfill {
  version: number;
  state: 'waiting' | 'running' | 'done';
  /** Users whose messages were scored, of the project's users when it began. */
  users_done: number;
  users_total: number;
  done_at: Date | null;
}

export interface LabelView {
  name: string;
  description: string;
  state: 'training' | 'ready' | 'failed';
  /** Why the latest version failed to train (state failed). */
  failure_reason: string | null;
  /** The latest example set's version (1, 2, …). */
  version: number;
  /** The version that scores messages now (null until one has trained). */
  ready_version: number | null;
  examples_count: number;
  matching_examples: number;
  /** Cross-validated on the examples of `ready_version`. */
  quality: LabelQuality | null;
  /** The ready version scoring the project's stored messages: how far it got (null before the first). */
  backfill: LabelBackfill | null;
  /** Only on GET of one label and the writes. */
  examples?: LabelExample[];
  created_at: Date;
  updated_at: Date;
  trained_at: Date | null;
}

const COLUMNS = [
  'id',
  'project_id',
  'name',
  'description',
  'examples',
  'version',
  'state',
  'failure_reason',
  'model_version',
  'quality',
  'created_at',
  'updated_at',
  'trained_at',
  'backfill_pending',
  'backfill_version',
  'backfill_total',
  'backfill_users',
  'backfill_done_at',
];

function toView(row: Record<string, any>, withExamples: boolean): LabelView {
  const examples = row.examples as LabelExample[];
  return {
    name: row.name,
    description: row.description,
    state: row.state,
    failure_reason: row.failure_reason ?? null,
    version: row.version,
    ready_version: row.model_version ?? null,
    examples_count: examples.length,
    matching_examples: examples.filter((e) => e.match).length,
    quality: row.quality ?? null,
    backfill:
      row.backfill_version === null || row.backfill_version === undefined
        ? null
        : {
            version: row.backfill_version,
            state: row.backfill_done_at ? 'done' : row.backfill_pending ? 'waiting' : 'running',
            users_done: row.backfill_users,
            users_total: row.backfill_total ?? 0,
            done_at: row.backfill_done_at ?? null,
          },
    ...(withExamples ? { examples } : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
    trained_at: row.trained_at ?? null,
  };
}

function requireLabelName(value: unknown): string {
  if (typeof value !== 'string' || !isValidSlug(value)) {
    throw invalid('name', 'name must be a slug: 1 to 64 of a-z, 0-9, _ and -');
  }
  return value;
}

function optionalDescription(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > MAX_DESCRIPTION_LENGTH || !isStorableText(value)) {
    throw invalid(
      'description',
      `description must be a string of at most ${MAX_DESCRIPTION_LENGTH} characters, without NUL or unpaired surrogates`,
    );
  }
  return value;
}

/**
 * Validates examples (`field`: where they came from, for the error's path): each `{text, match}`,
 * text 1 to MAX_EXAMPLE_LENGTH characters, no text twice (the same text on both sides would teach
 * nothing; twice on one side would count twice in the quality).
 */
function readExamples(raw: unknown, field: string, offset = 0, seen = new Map<string, number>()): LabelExample[] {
  if (!Array.isArray(raw)) throw invalid(field, `${field} must be an array of {"text": "…", "match": true|false}`);
  return raw.map((e, i) => {
    const path = `${field}[${i + offset}]`;
    if (typeof e !== 'object' || e === null || Array.isArray(e)) {
      throw invalid(path, 'each example must be an object {"text": "…", "match": true|false}');
    }
    const extra = Object.keys(e).find((k) => k !== 'text' && k !== 'match');
    if (extra !== undefined) throw invalid(`${path}.${extra}`, 'unknown key; an example has only text and match');
    const { text, match } = e as Record<string, unknown>;
    if (typeof text !== 'string' || text.trim() === '' || text.length > MAX_EXAMPLE_LENGTH || !isStorableText(text)) {
      throw invalid(
        `${path}.text`,
        `text must be 1 to ${MAX_EXAMPLE_LENGTH} characters, without NUL or unpaired surrogates`,
      );
    }
    if (typeof match !== 'boolean') throw invalid(`${path}.match`, 'match must be true or false');
    const key = text.trim().toLowerCase();
    const earlier = seen.get(key);
    if (earlier !== undefined) throw invalid(`${path}.text`, `the same text as ${field}[${earlier}]`);
    seen.set(key, i + offset);
    return { text, match };
  });
}

/** A version's examples: enough of each side to cross-validate, and within the quota. */
function checkExampleSet(examples: LabelExample[], quotas: LabelQuotas, field = 'examples'): void {
  const matching = examples.filter((e) => e.match).length;
  const other = examples.length - matching;
  if (matching < MIN_EXAMPLES_PER_SIDE || other < MIN_EXAMPLES_PER_SIDE) {
    throw invalid(
      field,
      `a label needs at least ${MIN_EXAMPLES_PER_SIDE} matching and ${MIN_EXAMPLES_PER_SIDE} non-matching examples ` +
        `(has ${matching} and ${other}); 20 of each give quality figures worth trusting`,
    );
  }
  if (examples.length > quotas.examplesPerLabel) {
    throw quotaExceeded(
      field,
      `a label may have at most ${quotas.examplesPerLabel} examples (would have ${examples.length}); ` +
        'remove some first, or raise TENANT_EXAMPLES_PER_LABEL',
    );
  }
}

async function requireLabel(db: Db, caller: Caller, projectId: number, name: string) {
  await requireProject(db, caller, projectId);
  if (!isValidSlug(name)) throw notFound('label');
  const row = await db('labels').where({ project_id: projectId, name }).first(COLUMNS);
  if (!row) throw notFound('label');
  return row;
}

/** POST …/labels: version 1, to be trained. */
export async function createLabel(
  db: Db,
  caller: Caller,
  projectId: number,
  input: LabelInput,
  quotas: LabelQuotas,
): Promise<LabelView> {
  const name = requireLabelName(input.name);
  const description = optionalDescription(input.description) ?? '';
  const examples = readExamples(input.examples, 'examples');
  checkExampleSet(examples, quotas);
  await requireProject(db, caller, projectId);
  return db.transaction(async (trx) => {
    await holdQuota(trx, labelsQuota(projectId, quotas.labelsPerProject));
    const [row] = await trx('labels')
      .insert({
        project_id: projectId,
        name,
        description,
        examples: JSON.stringify(examples),
        created_by: caller.keyPrefix ?? null,
      })
      .onConflict(['project_id', 'name'])
      .ignore()
      .returning(COLUMNS);
    if (!row) throw new AppError('already_exists', `a label named "${name}" already exists in this project`, 'name');
    await wakeRelay(trx);
    return toView(row, true);
  });
}

export async function listLabels(db: Db, caller: Caller, projectId: number): Promise<LabelView[]> {
  await requireProject(db, caller, projectId);
  const rows = await db('labels').where({ project_id: projectId }).orderBy('name').select(COLUMNS);
  return rows.map((r) => toView(r, false));
}

export async function getLabel(db: Db, caller: Caller, projectId: number, name: string): Promise<LabelView> {
  return toView(await requireLabel(db, caller, projectId, name), true);
}

/**
 * A new example set (and description), computed from the label as it is under its row lock (two
 * concurrent additions both land): version + 1, flagged for training.
 */
async function writeVersion(
  db: Db,
  caller: Caller,
  projectId: number,
  name: string,
  next: (current: LabelExample[]) => { examples: LabelExample[]; description?: string },
): Promise<LabelView> {
  await requireLabel(db, caller, projectId, name);
  return db.transaction(async (trx) => {
    const locked = await trx('labels').where({ project_id: projectId, name }).forUpdate().first('id', 'examples');
    if (!locked) throw notFound('label');
    const changes = next(locked.examples as LabelExample[]);
    const [row] = await trx('labels')
      .where({ id: locked.id })
      .update({
        examples: JSON.stringify(changes.examples),
        ...(changes.description !== undefined ? { description: changes.description } : {}),
        version: trx.raw('version + 1'),
        version_uid: trx.raw('gen_random_uuid()'),
        state: 'training',
        failure_reason: null,
        training_pending: true,
        updated_at: trx.fn.now(),
      })
      .returning(COLUMNS);
    await wakeRelay(trx);
    return toView(row, true);
  });
}

/** PUT …/labels/{name}: the whole example set (and the description) replaced. */
export async function updateLabel(
  db: Db,
  caller: Caller,
  projectId: number,
  name: string,
  input: LabelInput,
  quotas: LabelQuotas,
): Promise<LabelView> {
  if (input.name !== undefined && input.name !== name) {
    throw invalid('name', 'a label cannot be renamed (rules name it); create a new one');
  }
  const description = optionalDescription(input.description);
  if (input.examples === undefined) throw invalid('examples', 'examples is required: the whole example set');
  const examples = readExamples(input.examples, 'examples');
  checkExampleSet(examples, quotas);
  return writeVersion(db, caller, projectId, name, () => ({ examples, description }));
}

/** POST …/labels/{name}/examples: examples added to the set (how a mistake is corrected). */
export async function addExamples(
  db: Db,
  caller: Caller,
  projectId: number,
  name: string,
  input: { examples?: unknown },
  quotas: LabelQuotas,
): Promise<LabelView> {
  if (Array.isArray(input.examples) && input.examples.length === 0) {
    throw invalid('examples', 'examples must name at least one example to add');
  }
  const added = readExamples(input.examples, 'examples');
  return writeVersion(db, caller, projectId, name, (current) => {
    const seen = new Map(current.map((e, i) => [e.text.trim().toLowerCase(), i]));
    added.forEach((e, i) => {
      const earlier = seen.get(e.text.trim().toLowerCase());
      if (earlier !== undefined) {
        throw invalid(`examples[${i}].text`, `the label already has this text (its example ${earlier})`);
      }
    });
    const examples = [...current, ...added];
    checkExampleSet(examples, quotas);
    return { examples };
  });
}

/**
 * DELETE …/labels/{name}: refused (409) while a segment's rule names the label, which would then
 * match no one without anybody having said so. The row is held FOR UPDATE while the rules are read,
 * so a segment written meanwhile either sees it gone or is seen here (label-names.ts).
 */
export async function deleteLabel(db: Db, caller: Caller, projectId: number, name: string): Promise<void> {
  const label = await requireLabel(db, caller, projectId, name);
  await db.transaction(async (trx) => {
    const held = await trx('labels').where({ id: label.id }).forUpdate().first('id');
    if (!held) throw notFound('label');
    const rules: { slug: string; rule: Rule }[] = await trx('segments')
      .where({ project_id: projectId })
      .select('slug', 'rule');
    const using = rules.filter((s) => labelsNamed(s.rule).includes(name)).map((s) => s.slug);
    if (using.length > 0) {
      throw new AppError(
        'conflict',
        `label "${name}" is named by the rules of segment${using.length > 1 ? 's' : ''} ${using.join(', ')}: change those rules first`,
      );
    }
    await trx('labels').where({ id: label.id }).delete();
  });
}

export interface Classification {
  label: string;
  /** The version that scored the texts. */
  version: number;
  threshold: number;
  results: { score: number; match: boolean }[];
}

/**
 * POST …/labels/{name}/classify: each text's score and match under the version that scores
 * messages now, storing nothing: how a user tries a label before relying on it.
 */
export async function classifyTexts(
  db: Db,
  caller: Caller,
  projectId: number,
  name: string,
  input: { texts?: unknown },
  embedder: Embedder,
): Promise<Classification> {
  const texts = input.texts;
  if (!Array.isArray(texts) || texts.length === 0 || texts.length > MAX_CLASSIFY_TEXTS) {
    throw invalid('texts', `texts must be an array of 1 to ${MAX_CLASSIFY_TEXTS} strings`);
  }
  texts.forEach((t, i) => {
    if (typeof t !== 'string' || t.trim() === '' || t.length > MAX_CLASSIFY_TEXT_LENGTH || !isStorableText(t)) {
      throw invalid(
        `texts[${i}]`,
        `each text must be 1 to ${MAX_CLASSIFY_TEXT_LENGTH} characters, without NUL or unpaired surrogates`,
      );
    }
  });
  const label = await requireLabel(db, caller, projectId, name);
  const row = await db('labels').where({ id: label.id }).first('model', 'model_version');
  const model = row?.model as LabelModel | null;
  if (!model) {
    throw new AppError(
      'conflict',
      `label "${name}" has no trained version yet (state ${label.state}${label.failure_reason ? `: ${label.failure_reason}` : ''})`,
    );
  }
  if (model.embedder !== embedder.name) {
    throw new AppError(
      'conflict',
      `label "${name}" was trained with ${model.embedder}, and messages are now embedded with ${embedder.name}: ` +
        'update the label (PUT) to train it again',
    );
  }
  const vectors = await embedder.embed(texts as string[]);
  const score = labelScorer(model);
  return {
    label: name,
    version: row.model_version,
    threshold: model.threshold,
    results: (texts as string[]).map((t, i) => {
      const s = score(vectors[i], wordFeatures(t));
      return { score: Math.round(s * 10_000) / 10_000, match: s >= model.threshold };
    }),
  };
}
