import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL_ACCESS } from '../../src/auth/api-keys.js';
import { createLocalEmbedder } from '../../src/analysis/embedder.js';
import { createDb, type Db } from '../../src/db/knex.js';
import { createConditionVectors, type VectorSegment } from '../../src/segments/condition-vectors.js';
import { createSegment, updateSegment } from '../../src/segments/manage-segments.js';
import { AppError } from '../../src/errors.js';
import type { Rule } from '../../src/segments/rules.js';
import { counting } from '../support/counting-embedder.js';
import { testDatabaseUrl } from '../support/database.js';

const any = (...texts: string[]): Rule => ({ any: texts.map((t) => ({ semantic: t, min_similarity: 0.5 })) });

describe('semantic condition vectors: embedded once per segment and embedder, stored, served from an LRU', () => {
  let db: Db;
  let pipelineId: number;
  let projectId: number;
  let tenantId: number;
  const local = createLocalEmbedder({ threads: 2 });

  async function segment(slug: string, rule: Rule): Promise<VectorSegment> {
    const [row] = await db('segments')
      .insert({ pipeline_id: pipelineId, project_id: projectId, slug, name: slug, rule: JSON.stringify(rule) })
      .returning(['pk', 'version']);
    return { pk: Number(row.pk), version: row.version, rule };
  }

  beforeAll(async () => {
    db = createDb(testDatabaseUrl(), 2);
    const [tenant] = await db('tenants').insert({ name: 'vectors' }).returning('id');
    const [project] = await db('projects').insert({ tenant_id: tenant.id, name: 'p' }).returning('id');
    const [pipeline] = await db('pipelines').insert({ project_id: project.id, name: 'p' }).returning('id');
    [projectId, pipelineId, tenantId] = [project.id, pipeline.id, tenant.id];
  });
  afterAll(async () => {
    await db('projects').where({ id: projectId }).delete();
    await db.destroy();
  });

  it(
    'embeds a rule once; another worker, a full LRU and an unchanged rule never embed it again',
    { timeout: 120_000 },
    async () => {
      const a = await segment('a', any('wants to cancel the subscription', 'asks for a refund', 'too expensive'));
      const b = await segment('b', any('loves the new dashboard', 'the mobile app crashes', 'asks for an invoice'));
      const first = counting(local);
      // Room for 3 vectors: serving a and b in turn evicts one segment each time.
      const vectors = createConditionVectors(first.embedder, { maxVectors: 3 });
      const got = await vectors.forSegments(db, [a, b]);
      expect(first.texts).toHaveLength(6);
      expect([...got.keys()].sort()).toEqual([...first.texts].sort());
      const stored = await db('segment_condition_vectors').whereIn('segment_pk', [a.pk, b.pk]).count({ n: '*' });
      expect(Number(stored[0].n)).toBe(6);
      for (let i = 0; i < 6; i++) await vectors.forSegments(db, [i % 2 ? a : b]);
      expect(first.texts).toHaveLength(6); // evictions read the rows again; nothing is embedded again

      const second = counting(local); // a new worker process: an empty LRU
      const fresh = await createConditionVectors(second.embedder).forSegments(db, [a, b]);
      expect(second.texts).toEqual([]);
      // The stored vectors are the embedder's, to float32 precision, and the same as the first worker served.
      const direct = await local.embed(['asks for a refund']);
      const v = fresh.get('asks for a refund')!;
      expect(v).toEqual(got.get('asks for a refund'));
      expect(Math.max(...v.map((x, i) => Math.abs(x - direct[0][i])))).toBeLessThan(1e-6);
    },
  );

  it(
    'a changed rule embeds only its new descriptions; another embedder has rows of its own',
    { timeout: 120_000 },
    async () => {
      const c = await segment('c', any('slow support answers', 'billing is confusing'));
      const w = counting(local);
      const vectors = createConditionVectors(w.embedder);
      await vectors.forSegments(db, [c]);
      expect(w.texts).toHaveLength(2);
      const changed = { ...c, version: c.version + 1, rule: any('slow support answers', 'wants SSO') };
      const got = await vectors.forSegments(db, [changed]);
      expect(w.texts).toEqual(['slow support answers', 'billing is confusing', 'wants SSO']);
      expect([...got.keys()].sort()).toEqual(['slow support answers', 'wants SSO']); // only this version's

      const other = counting({ ...local, name: 'test:another-embedder', embed: (t) => local.embed(t) });
      await createConditionVectors(other.embedder).forSegments(db, [changed]);
      expect(other.texts).toHaveLength(2);
      const embedders = await db('segment_condition_vectors').where({ segment_pk: c.pk }).distinct('embedder');
      expect(embedders.map((r) => r.embedder).sort()).toEqual([local.name, 'test:another-embedder'].sort());
    },
  );

  describe('written with the rule: the api embeds a rule when a segment is created or its rule changes', () => {
    const quotas = { segmentsPerPipeline: 100, ruleNodes: 50, semanticConditionsPerSegment: 25 };
    const ref = () => ({ projectId, pipelineId });

    it(
      'stores the vectors in the transaction that stores the rule; evaluations and folds then embed nothing',
      { timeout: 120_000 },
      async () => {
        const api = counting(local);
        const rule = {
          all: [
            { field: 'window_size', op: '>=', value: 1 },
            any('wants a discount on the yearly plan', 'asks about data export'),
          ],
        };
        await createSegment(
          db,
          { tenantId, ...FULL_ACCESS },
          ref(),
          { id: 'written', name: 'Written', rule },
          {
            quotas,
            embedder: api.embedder,
          },
        );
        expect(api.texts.sort()).toEqual(['asks about data export', 'wants a discount on the yearly plan']);
        const row = await db('segments').where({ pipeline_id: pipelineId, slug: 'written' }).first('pk', 'version');
        const stored = await db('segment_condition_vectors').where({ segment_pk: row.pk }).pluck('description');
        expect(stored.sort()).toEqual(['asks about data export', 'wants a discount on the yearly plan']);
        // The api's vectors are the model's, to float32 precision: what a worker would have stored.
        const [direct] = await local.embed(['asks about data export']);
        const row0 = await db('segment_condition_vectors')
          .where({ segment_pk: row.pk, description: 'asks about data export' })
          .first('vector');
        expect(Math.max(...row0.vector.map((x: number, i: number) => Math.abs(x - direct[i])))).toBeLessThan(1e-6);

        const worker = counting(local); // a worker: its evaluation pages and folds read, never embed
        const got = await createConditionVectors(worker.embedder).forSegments(db, [
          { pk: row.pk, version: row.version, rule: rule as Rule },
        ]);
        expect(worker.texts).toEqual([]);
        expect(got.size).toBe(2);

        // A rule change embeds only the description that is new to this segment.
        await updateSegment(
          db,
          { tenantId, ...FULL_ACCESS },
          { ...ref(), segmentId: 'written' },
          { rule: any('asks about data export', 'reports a broken invoice') },
          { quotas, embedder: api.embedder },
        );
        expect(api.texts.slice(2)).toEqual(['reports a broken invoice']);
        const after = await db('segment_condition_vectors').where({ segment_pk: row.pk }).count({ n: '*' });
        expect(Number(after[0].n)).toBe(3);
      },
    );

    it('a full pipeline or a taken id is refused before the rule is embedded', async () => {
      const api = counting(local);
      await segment('taken', any('already here'));
      const n = Number((await db('segments').where({ pipeline_id: pipelineId }).count({ n: '*' }))[0].n);
      const write = (id: string, max: number) =>
        createSegment(
          db,
          { tenantId, ...FULL_ACCESS },
          ref(),
          { id, name: id, rule: any('asks for a bigger plan') },
          { quotas: { ...quotas, segmentsPerPipeline: max }, embedder: api.embedder },
        );
      await expect(write('one-too-many', n)).rejects.toMatchObject({ code: 'quota_exceeded' });
      await expect(write('taken', n + 10)).rejects.toMatchObject({ code: 'already_exists' });
      expect(api.texts).toEqual([]);
    });

    it('a model that cannot answer refuses the write with 503 (unavailable) and stores nothing', async () => {
      const down = { ...local, embed: async () => Promise.reject(new Error('connect ECONNREFUSED')) };
      const write = createSegment(
        db,
        { tenantId, ...FULL_ACCESS },
        ref(),
        { id: 'unembedded', name: 'Unembedded', rule: any('churn talk') },
        { quotas, embedder: down },
      );
      await expect(write).rejects.toThrow(AppError);
      await expect(write).rejects.toMatchObject({ code: 'unavailable' });
      expect(await db('segments').where({ pipeline_id: pipelineId, slug: 'unembedded' }).first()).toBeUndefined();
      // A rule without semantic conditions needs no model.
      await createSegment(
        db,
        { tenantId, ...FULL_ACCESS },
        ref(),
        { id: 'plain', name: 'Plain', rule: { field: 'window_size', op: '>=', value: 1 } },
        { quotas, embedder: down },
      );
    });
  });
});
