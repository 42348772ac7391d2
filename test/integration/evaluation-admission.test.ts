import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/knex.js';
import { stampEvaluation, startEvaluation } from '../../src/segments/evaluation-start.js';
import { admittedEvaluations } from '../../src/fairness/admission.js';
import { testDatabaseUrl } from '../support/database.js';

describe('segment evaluations are admitted per tenant (issue 14)', () => {
  let db: Db;
  const projects: number[] = [];
  const started: number[] = [];
  const starters = { startSegmentEvaluation: async (a: { segmentPk: number }) => void started.push(a.segmentPk) };
  const log = { warn: () => undefined } as never;

  /** A tenant with one project and `n` segments deployed at once (evaluation pending). */
  async function tenantDeploying(name: string, n: number): Promise<number[]> {
    const [tenant] = await db('tenants').insert({ name }).returning('id');
    const [project] = await db('projects').insert({ tenant_id: tenant.id, name }).returning('id');
    const [pipeline] = await db('pipelines').insert({ project_id: project.id, name }).returning('id');
    projects.push(project.id);
    const rows = await db('segments')
      .insert(
        Array.from({ length: n }, (_, i) => ({
          pipeline_id: pipeline.id,
          project_id: project.id,
          slug: `s${i}`,
          name: `S${i}`,
          rule: JSON.stringify({ field: 'window_size', op: '>=', value: 1 }),
          status: 'deployed',
          evaluation_pending: true,
        })),
      )
      .returning('pk');
    return rows.map((r) => Number(r.pk));
  }
  const mine = (pks: number[]) => async () =>
    (await admittedEvaluations(db, 100, 2)).filter((s) => pks.includes(Number(s.pk))).map((s) => Number(s.pk));

  beforeAll(() => {
    db = createDb(testDatabaseUrl(), 2);
  });
  afterAll(async () => {
    await db('projects').whereIn('id', projects).delete();
    await db.destroy();
  });

  it("starts a burst of one tenant's deploys two at a time, and another tenant's at once", async () => {
    const burst = await tenantDeploying('burst', 6);
    const other = await tenantDeploying('other', 1);
    const burstAdmitted = mine(burst);
    expect(await burstAdmitted()).toEqual(burst.slice(0, 2));
    expect(await mine(other)()).toEqual(other);

    for (const s of await admittedEvaluations(db, 100, 2)) await startEvaluation(db, { starters, log }, s);
    expect(started).toEqual(expect.arrayContaining([...burst.slice(0, 2), ...other]));
    // Two of the burst run: none more until one ends.
    expect(await burstAdmitted()).toEqual([]);

    // A page of the first one: still running. Its last page: the next one is admitted.
    const version = async (pk: number) => (await db('segments').where({ pk }).first('version')).version;
    await stampEvaluation(db, { pk: burst[0], version: await version(burst[0]) }, false);
    expect(await burstAdmitted()).toEqual([]);
    await stampEvaluation(db, { pk: burst[0], version: await version(burst[0]) }, true);
    expect(await burstAdmitted()).toEqual([burst[2]]);

    // An evaluation that stopped stamping (terminated by an operator) stops counting after 5 minutes.
    await db('segments')
      .where({ pk: burst[1] })
      .update({ evaluation_progress_at: db.raw(`now() - interval '6 minutes'`) });
    expect(await burstAdmitted()).toEqual([burst[2], burst[3]]);

    // A stamp for an older version (the rule changed since) changes nothing.
    await db('segments')
      .where({ pk: burst[1] })
      .update({ evaluation_progress_at: db.fn.now(), version: db.raw('version + 1') });
    await stampEvaluation(db, { pk: burst[1], version: 1 }, true);
    expect(
      (await db('segments').where({ pk: burst[1] }).first('evaluation_progress_at')).evaluation_progress_at,
    ).not.toBe(null);
  });
});
