/**
 * `npm run bench -- --only=fairness`: the two attacks of issue 14 against a victim tenant, whose
 * "10-user batch submitted -> last profile visible" latency is measured idle and under each attack.
 *
 * 1. Semantic conditions: tenant B creates (the api embeds each rule) and deploys 2 projects x 22
 *    segments x 25 distinct semantic conditions (550 descriptions per project: the 539 of the
 *    report, split to fit the 25 semantic conditions a rule may have), then sends 16
 *    one-user batches alternating between its projects. The victim is measured while the segments
 *    are created, while the deploys run and after the batches were sent.
 * 2. Slow receivers: tenant C has a webhook to a receiver that never answers, a segment everyone
 *    enters and 100 users; then 200 webhooks (4 pipelines x 50, the default quota) to a healthy
 *    receiver and one 10-user batch: 2,000 POSTs. The victim is measured meanwhile.
 */
import { call, newTenant, waitFor, waitForBatch, withDb, type Tenant } from '../test/support/api.js';
import { startHangingReceiver, startReceiver } from '../test/support/receiver.js';

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
const stats = (xs: number[]) => ({ p50: pct(xs, 50), p99: pct(xs, 99), max: Math.max(...xs), n: xs.length });

// Descriptions as a SaaS team would write them: a need or complaint, a feature, a qualifier.
const NEEDS = ['complains about', 'asks for help with', 'praises', 'wants a refund because of', 'is confused by'];
const FEATURES = ['the billing page', 'SSO login', 'the mobile app', 'CSV export', 'the API limits'];
const QUALIFIERS = ['after the last release', 'for the whole team', 'on a trial', 'every week', 'as an admin'];
function descriptions(project: number, segment: number): string[] {
  return Array.from({ length: 25 }, (_, i) => {
    const n = project * 1_000 + segment * 25 + i;
    return `${NEEDS[n % 5]} ${FEATURES[Math.floor(n / 5) % 5]} ${QUALIFIERS[Math.floor(n / 25) % 5]} (case ${n})`;
  });
}

async function project(t: Tenant, name: string): Promise<{ projectId: number; pipelineId: number }> {
  const p = await call('POST', '/api/v1/projects', { key: t.key, body: { name } });
  const pl = await call('POST', `/projects/${p.body.id}/pipelines`, { key: t.key, body: { name: 'main' } });
  return { projectId: p.body.id, pipelineId: pl.body.id };
}

async function pipeline(t: Tenant, projectId: number): Promise<number> {
  return (await call('POST', `/projects/${projectId}/pipelines`, { key: t.key, body: { name: 'more' } })).body.id;
}

async function everyone(t: Tenant, projectId: number, pipelineId: number): Promise<void> {
  const base = `/projects/${projectId}/pipelines/${pipelineId}/segments`;
  const rule = { field: 'window_size', op: '>=', value: 1 };
  await call('POST', base, { key: t.key, body: { id: 'everyone', name: 'Everyone', rule } });
  await call('POST', `${base}/everyone/deploy`, { key: t.key });
}

export async function fairness(
  texts: string[],
  log: (line: string) => void,
  opts: {
    /** CPU seconds so far per process (bench/procs.ts): where each attack's CPU went. */
    cpu: () => Record<string, number>;
    /** Attacks to replay (BENCH_FAIRNESS=slow for the slow receivers alone, while iterating). */
    attacks: Set<'semantic' | 'slow' | 'failing'>;
  },
) {
  const cpuDuring = async <T>(work: () => Promise<T>): Promise<[T, Record<string, number>]> => {
    const before = opts.cpu();
    const wall = performance.now();
    const out = await work();
    const after = opts.cpu();
    const used: Record<string, number> = { wall: (performance.now() - wall) / 1000 };
    for (const k of Object.keys(after)) used[k] = Math.round((after[k] - before[k]) * 10) / 10;
    return [out, used];
  };
  const victim = await newTenant('victim');
  let run = 0;
  /** One victim measurement: 10 users submitted -> the last one's profile readable. */
  const measure = async (): Promise<number> => {
    const r = run++;
    const users = Array.from({ length: 10 }, (_, i) => ({
      user_id: `v${r}-${i}`,
      text: texts[(r * 10 + i) % texts.length],
    }));
    const start = performance.now();
    const res = await call('POST', '/api/v1/users', { key: victim.key, body: { project_id: victim.projectId, users } });
    if (res.status !== 202) throw new Error(`victim batch: ${res.status} ${JSON.stringify(res.body)}`);
    await waitFor(
      'victim profile',
      async () =>
        (await call('GET', `/api/v1/profiles/v${r}-9?project_id=${victim.projectId}`, { key: victim.key })).status ===
        200,
      900_000,
      20,
    );
    const total = performance.now() - start;
    // Where the time went (ms after the submission): stored, workflow started, first and last fold.
    const [row] = await withDb(
      async (db) =>
        (
          await db.query(
            `SELECT extract(epoch FROM s.created_at) * 1000 AS stored, extract(epoch FROM s.workflow_started_at) * 1000 AS started,
                    extract(epoch FROM min(m.created_at)) * 1000 AS first, extract(epoch FROM max(m.created_at)) * 1000 AS last
               FROM sources s LEFT JOIN messages m ON m.source_id = s.id WHERE s.id = $1 GROUP BY s.id`,
            [res.body.source_id],
          )
        ).rows,
    );
    const t0 = start + performance.timeOrigin;
    phases.push({
      total: Math.round(total),
      stored: Math.round(row.stored - t0),
      started: Math.round(row.started - t0),
      firstFold: Math.round(row.first - t0),
      lastFold: Math.round(row.last - t0),
    });
    return total;
  };
  const phases: Record<string, number>[] = [];
  const series = async (n: number) => {
    const xs: number[] = [];
    for (let i = 0; i < n; i++) xs.push(await measure());
    return xs;
  };

  // The p99 of fewer than 100 samples is their slowest one, and the slowest of more samples tends
  // to be slower: idle gets about as many samples as the semantic attack (about 50), so that the
  // ratio compares like with like instead of the slowest of 50 with the slowest of 10.
  const idle = await series(40);
  log(`idle: ${JSON.stringify(stats(idle))}`);

  /** Victim samples one after another until `work` is done (at least one). */
  const seriesDuring = async (work: Promise<unknown>) => {
    let done = false;
    void work.then(
      () => (done = true),
      () => (done = true),
    );
    const xs: number[] = [];
    do xs.push(await measure());
    while (!done);
    await work;
    return xs;
  };

  // Attack 1: semantic conditions. Creating the segments embeds their 1,100 descriptions (the api
  // stores the vectors with each rule): the victim is measured meanwhile too.
  const semanticAttack = async () => {
    const b = await newTenant('semantic-attacker');
    const bProjects = [await project(b, 'b1'), await project(b, 'b2')];
    const createStart = performance.now();
    const duringCreate = await seriesDuring(
      (async () => {
        for (const [pi, p] of bProjects.entries()) {
          for (let s = 0; s < 22; s++) {
            const rule = { any: descriptions(pi, s).map((d) => ({ semantic: d, min_similarity: 0.9 })) };
            const res = await call('POST', `/projects/${p.projectId}/pipelines/${p.pipelineId}/segments`, {
              key: b.key,
              body: { id: `s${s}`, name: `S${s}`, rule },
            });
            if (res.status !== 201) throw new Error(`attacker segment: ${res.status} ${JSON.stringify(res.body)}`);
          }
        }
      })(),
    );
    const createSeconds = (performance.now() - createStart) / 1000;
    // Users first, so that the evaluations have profiles to go through.
    for (const p of bProjects) {
      const users = Array.from({ length: 20 }, (_, i) => ({ user_id: `b${i}`, text: texts[i % texts.length] }));
      await waitForBatch(
        (await call('POST', '/api/v1/users', { key: b.key, body: { project_id: p.projectId, users } })).body.source_id,
      );
    }
    const deployStart = performance.now();
    const deploys = Promise.all(
      bProjects.flatMap((p) =>
        Array.from({ length: 22 }, (_, s) =>
          call('POST', `/projects/${p.projectId}/pipelines/${p.pipelineId}/segments/s${s}/deploy`, { key: b.key }),
        ),
      ),
    );
    const duringDeploy = await series(5);
    await deploys;
    const deployAnswered = (performance.now() - deployStart) / 1000;
    const sends = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        call('POST', '/api/v1/users', {
          key: b.key,
          body: {
            project_id: bProjects[i % 2].projectId,
            users: [{ user_id: `b-extra-${i}`, text: texts[i % texts.length] }],
          },
        }),
      ),
    );
    const afterBatches = await series(5);
    for (const s of sends) if (s.status === 202) await waitForBatch(s.body.source_id, 900_000);
    const all = [...duringCreate, ...duringDeploy, ...afterBatches];
    log(
      `semantic attack: 44 segments created in ${createSeconds.toFixed(1)} s, deploys answered in ${deployAnswered.toFixed(1)} s; victim ${JSON.stringify(stats(all))}`,
    );
    return {
      ...stats(all),
      duringCreate: stats(duringCreate),
      createSeconds,
      duringDeploy: stats(duringDeploy),
      afterBatches: stats(afterBatches),
    };
  };

  // Attack 2: slow receivers, then many webhooks. The victim is measured until the last of the
  // 2,000 POSTs has arrived, so the whole fan-out is sampled, not only its first seconds.
  const slowAttack = async () => {
    const hanging = await startHangingReceiver();
    const healthy = await startReceiver();
    const c = await newTenant('slow-attacker');
    const cBase = `/projects/${c.projectId}/pipelines/${c.pipelineId}`;
    await call('POST', `${cBase}/webhooks`, { key: c.key, body: { url: hanging.url } });
    await everyone(c, c.projectId, c.pipelineId);
    const slowUsers = Array.from({ length: 100 }, (_, i) => ({ user_id: `c${i}`, text: texts[i % texts.length] }));
    await call('POST', '/api/v1/users', { key: c.key, body: { project_id: c.projectId, users: slowUsers } });
    const duringHang = await series(5);
    const many = await project(c, 'c-many');
    const pipelines = [many.pipelineId, ...(await Promise.all([1, 2, 3].map(() => pipeline(c, many.projectId))))];
    const created = await Promise.all(
      pipelines.flatMap((pl) =>
        Array.from({ length: 50 }, () =>
          call('POST', `/projects/${many.projectId}/pipelines/${pl}/webhooks`, {
            key: c.key,
            body: { url: healthy.url },
          }),
        ),
      ),
    );
    for (const pl of pipelines) await everyone(c, many.projectId, pl);
    const tenUsers = Array.from({ length: 10 }, (_, i) => ({ user_id: `m${i}`, text: texts[i % texts.length] }));
    const expected = created.filter((r) => r.status === 201).length * 10;
    const [duringPosts, cpu] = await cpuDuring(async () => {
      await call('POST', '/api/v1/users', { key: c.key, body: { project_id: many.projectId, users: tenUsers } });
      return seriesDuring(waitFor('the 2,000 POSTs', async () => healthy.received.length >= expected, 900_000, 500));
    });
    const postsSeconds = cpu.wall;
    const all = [...duringHang, ...duringPosts];
    log(
      `slow-receiver attack: ${hanging.spans.length} hanging attempts (max ${hanging.maxOpen()} open); ${expected} POSTs in ${postsSeconds.toFixed(1)} s; victim ${JSON.stringify(stats(all))}; CPU s during the POSTs ${JSON.stringify(cpu)}`,
    );
    await Promise.all([hanging.close(), healthy.close()]);
    return {
      ...stats(all),
      duringHang: stats(duringHang),
      duringPosts: stats(duringPosts),
      hangingAttempts: hanging.spans.length,
      maxOpenOnHangingWebhook: hanging.maxOpen(),
      posts: expected,
      postsSeconds,
      cpuDuringPosts: cpu,
    };
  };

  const semantic = opts.attacks.has('semantic') ? await semanticAttack() : undefined;
  const slowReceivers = opts.attacks.has('slow') ? await slowAttack() : undefined;
  log(`victim phases (ms after submission): ${JSON.stringify(phases)}`);
  return { phases, idle: stats(idle), semantic, slowReceivers };
}
