import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalEmbedder } from '../../src/analysis/embedder.js';
import { createDb, type Db } from '../../src/db/knex.js';
import { createConditionVectors, type VectorSegment } from '../../src/segments/condition-vectors.js';
import type { Rule } from '../../src/segments/rules.js';
import { counting } from '../support/counting-embedder.js';
import { testDatabaseUrl } from '../support/database.js';

const any = (...texts: string[]): Rule => ({ any: texts.map((t) => ({ semantic: t, min_similarity: 0.5 })) });

describe('semantic condition vectors: embedded once per segment and embedder, stored, served from an LRU', () => {
  let db: Db;
  let pipelineId: number;
  let projectId: number;
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
    [projectId, pipelineId] = [project.id, pipeline.id];
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
});
