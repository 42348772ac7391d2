import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { startStack } from '../test/support/stack.js';
import { loadCorpus } from '../src/analysis/corpus.js';
import { createLocalEmbedder } from '../src/analysis/embedder.js';
import { sentencesOf } from '../src/analysis/sentences.js';

/**
 * `npm run bench [-- --quick]`: measures the real stack (embedded PostgreSQL or DATABASE_URL, the
 * Temporal dev server or TEMPORAL_ADDRESS, api and worker processes, an HTTPS receiver) and writes
 * bench/results/<timestamp>.json plus a Markdown table. Figures are medians over repeated runs.
 */
const quick = process.argv.includes('--quick');
// `--only=embedder,idle,fairness,ingest,retries,reads,deliveries,floor,labels,rules` runs a subset (the embedder limit is
// always measured, except for deliveries alone; floor and rules run only when named).
const onlyArg = process.argv.find((a) => a.startsWith('--only='));
const only = onlyArg ? new Set(onlyArg.slice('--only='.length).split(',')) : undefined;
const runs = (name: string) => !only || only.has(name);
const results: Record<string, unknown> = {};
const rows: string[][] = [];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
const summary = (xs: number[]) => ({
  median: median(xs),
  min: Math.min(...xs),
  max: Math.max(...xs),
  p50: pct(xs, 50),
  p95: pct(xs, 95),
  p99: pct(xs, 99),
  n: xs.length,
});
const report = (name: string, value: string, note = '') => rows.push([name, value, note]);

const machine = {
  cores: os.cpus().length,
  cpu: os.cpus()[0]?.model,
  memoryGb: Math.round(os.totalmem() / 2 ** 30),
  node: process.version,
  quick,
};
const file = `bench/results/${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
/** Writes the JSON and Markdown so far: a run cut short (the full one takes most of an hour) keeps what it measured. */
function save(): string[] {
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(file, JSON.stringify({ machine, only: only ? [...only] : 'all', results }, null, 2));
  const md: string[] = [];
  md.push(
    `Machine: ${machine.cores} cores (${machine.cpu}), ${machine.memoryGb} GB, Node ${machine.node}${quick ? ', --quick' : ''}${only ? `, only ${[...only].join(',')}` : ''}`,
    '',
  );
  md.push('| scenario | value | note |', '|---|---|---|');
  for (const r of rows) md.push(`| ${r.join(' | ')} |`);
  if (results.reads) {
    md.push('', 'EXPLAIN of the one list statement (tenant check, exact total, page): the scans it uses');
    for (const [name, lines] of Object.entries((results.reads as { explain: Record<string, string[]> }).explain))
      md.push(`- ${name}: ${lines.join('; ')}`);
  }
  writeFileSync(file.replace(/\.json$/, '.md'), md.join('\n') + '\n');
  return md;
}

// The fairness scenario replays a receiver that hangs for the production timeout (10 s); the other
// scenarios keep the test stack's 3 s. A full run (no --only) uses 3 s for all.
if (only?.has('fairness')) process.env.STACK_WEBHOOK_TIMEOUT_MS ??= '10000';

// The floor under delivery capacity: the real Temporal server alone running empty workflows
// (bench/temporal-floor.ts); only when named.
if (only?.has('floor')) {
  const { temporalFloor } = await import('./temporal-floor.js');
  const floor = await temporalFloor({ n: quick ? 300 : 2_000, log: (m) => console.log(m) });
  results.floor = floor;
  for (const r of floor)
    report(
      `floor: real server (${r.shards} history shards), ${r.workflow} (${r.workflows} workflows, 50 starts at once)`,
      `${r.perSecond.toFixed(1)}/s`,
      `${r.cpuMsPerWorkflow} ms CPU per workflow (CPU s ${Object.entries(r.cpuSeconds)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}); this machine's cores would run at most ${r.ceilingPerSecond}/s with nothing else`,
    );
  save();
  if (only.size === 1) {
    console.log('\n' + save().join('\n'));
    console.log(`\nwritten: ${file}`);
    process.exit(0);
  }
}

// The composition rules and the intention scope on the main thread, per message and at their worst.
if (only?.has('rules')) {
  const { benchRules } = await import('./rules.js');
  const r = benchRules({ quick, log: (m) => console.log(m) });
  results.rules = r;
  report(
    'composition rules and intention scope per message (µs)',
    median(r.perMessageMicros).toFixed(1),
    '500 corpus messages, main thread',
  );
  const worst = r.hostile.reduce((a, b) => (b.ms > a.ms ? b : a));
  report('the same on hostile 10,000-character texts, worst (ms)', worst.ms.toFixed(1), worst.name);
  report('the normaliser per message (µs)', median(r.normaliseMicros).toFixed(1), 'same 500 messages, chat spelling');
  const worstSpelling = r.normaliseHostile.reduce((a, b) => (b.ms > a.ms ? b : a));
  report('the normaliser on hostile texts, worst (ms)', worstSpelling.ms.toFixed(1), worstSpelling.name);
  if (r.sarcasmMicros.length)
    report(
      'the learned sarcasm detector per message read positive (µs)',
      median(r.sarcasmMicros).toFixed(1),
      'its own work, shipped heads, same 500 messages',
    );
  save();
  if (only.size === 1) {
    console.log('\n' + save().join('\n'));
    console.log(`\nwritten: ${file}`);
    process.exit(0);
  }
}

// Custom labels: training time and the cost per message of 10 ready labels, without a stack.
if (runs('labels')) {
  const { benchLabels } = await import('./labels.js');
  const r = await benchLabels({ quick, log: (m) => console.log(m) });
  results.labels = r;
  const ms = (xs: number[]) => `${median(xs).toFixed(0)} ms`;
  report(
    'label training, 20 examples (embedding + 5 folds + final fit)',
    ms(r.training[20]),
    `min ${Math.min(...r.training[20]).toFixed(0)} ms`,
  );
  report('label training, 200 examples', ms(r.training[200]), `min ${Math.min(...r.training[200]).toFixed(0)} ms`);
  report(
    'custom labels scored per message, 10 ready labels (µs)',
    median(r.perMessageMicros).toFixed(1),
    `500 corpus messages; the word features alone ${r.wordsOnlyMicros.toFixed(1)} µs; no embedding call`,
  );
  save();
  if (only?.size === 1) {
    console.log('\n' + save().join('\n'));
    console.log(`\nwritten: ${file}`);
    process.exit(0);
  }
}

// Delivery capacity runs on stacks of its own, one per topology (bench/deliveries.ts); only when named.
if (only?.has('deliveries')) {
  const { deliveryCapacity, ROWS } = await import('./deliveries.js');
  // `--rows=1,3` runs some of the four rows (numbered from 1).
  const rowsArg = process.argv.find((a) => a.startsWith('--rows='));
  const picked = rowsArg
    ? rowsArg
        .slice('--rows='.length)
        .split(',')
        .map((i) => ROWS[Number(i) - 1])
    : ROWS;
  const n = quick ? 300 : 2_000;
  const rowsOut = await deliveryCapacity({ n, rows: picked, log: (m) => console.log(m), explainAt: 10_000 });
  results.deliveries = rowsOut;
  for (const r of rowsOut) {
    report(
      `deliveries: ${r.row} (${r.events} events)`,
      `${r.deliveriesPerSecond.toFixed(1)}/s`,
      `committed → received p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms; ` +
        (r.machineShare >= 0.8
          ? `limit: the machine (all processes ${Math.round(r.machineShare * 100)}% of its cores; most: ${r.limit.process} ${Math.round(r.limit.coreShare * 100)}% of a core)`
          : `limit: ${r.limit.process} (${Math.round(r.limit.coreShare * 100)}% of a core; all processes ${Math.round(r.machineShare * 100)}% of the machine)`) +
        `; ${r.cpuMsPerDelivery} ms CPU per delivery; CPU s ${Object.entries(r.cpuSeconds)
          .map(([k, v]) => `${k} ${v}`)
          .join(
            ', ',
          )}${r.ingestedBeside !== undefined ? `; other tenant ingested ${r.ingestedBeside} users meanwhile` : ''}`,
    );
  }
  const one = rowsOut[0]?.historyEvents;
  if (one) report('deliveries: history events of one delivery workflow', JSON.stringify(one));
  const plan = rowsOut[0]?.relayPlan;
  if (plan) {
    const time = plan.find((l) => l.startsWith('Execution Time'));
    report(
      "deliveries: the relay's claim at 10,000 pending rows (EXPLAIN ANALYZE)",
      time ?? '?',
      'plan in the JSON report',
    );
  }
  save();
  if (only.size === 1) {
    console.log('\n' + save().join('\n'));
    console.log(`\nwritten: ${file}`);
    process.exit(0);
  }
}

const { info: stack, stop: teardown } = await startStack();
process.env.BENCH_STACK = JSON.stringify(stack);
const { call, newTenant, waitForBatch, waitFor, withDb } = await import('../test/support/api.js');
const { startReceiver } = await import('../test/support/receiver.js');

try {
  // A new database's worker first embeds the training corpus and trains its heads (about 11 s, see
  // docs/analysis.md): measure once it is done, so that start-up cost is not read as throughput.
  await waitFor(
    "the worker's analysis heads",
    async () => withDb(async (db) => (await db.query('SELECT 1 FROM analysis_heads LIMIT 1')).rowCount === 1),
    300_000,
    500,
  );
  // 1. Embedder limit: the physical ceiling of analysis throughput here.
  // The pool as the worker runs it (EMBEDDER_THREADS), and the old single thread with one call per chunk for the ratio.
  const embedder = createLocalEmbedder({
    threads: process.env.EMBEDDER_THREADS ? Number(process.env.EMBEDDER_THREADS) : undefined,
  });
  const singleThread = createLocalEmbedder({ threads: 1, callSize: 50 });
  // The labelled dev set lives beside the checkout (../shared/eval/dev.jsonl); BENCH_TEXTS names another JSON-lines file with a "text" per line.
  const textsFile = process.env.BENCH_TEXTS ?? fileURLToPath(new URL('../../shared/eval/dev.jsonl', import.meta.url));
  if (!existsSync(textsFile))
    throw new Error(`bench texts not found at ${textsFile}: check out beside ../shared or set BENCH_TEXTS`);
  const texts = readFileSync(textsFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l).text as string);
  const batch = Array.from({ length: 50 }, (_, i) => texts[i % texts.length]);
  await embedder.embed(batch);
  const rates: number[] = [];
  for (let r = 0; r < (quick ? 3 : 5); r++) {
    const t = performance.now();
    await embedder.embed(batch);
    rates.push(50 / ((performance.now() - t) / 1000));
  }
  results.embedderLimit = summary(rates);
  report(
    "embedder limit (msgs/s, chunks of 50, the worker's thread pool)",
    median(rates).toFixed(1),
    `min ${Math.min(...rates).toFixed(1)}, max ${Math.max(...rates).toFixed(1)}`,
  );
  await singleThread.embed(batch);
  const singleRates: number[] = [];
  for (let r = 0; r < (quick ? 3 : 5); r++) {
    const t = performance.now();
    await singleThread.embed(batch);
    singleRates.push(50 / ((performance.now() - t) / 1000));
  }
  results.embedderSingleThread = summary(singleRates);
  // The analysis as the worker runs it (analyze.ts: the embedding call, then both readers and the
  // stack), on these texts and on the corpus's lengths (a 50-message sample of data/train, which
  // reads like customer feedback: about 22 words a message). The heads are the machine's cached
  // ones for this corpus (trained here first if absent).
  const { createAnalyzer } = await import('../src/analysis/analyze.js');
  const { defaultHeadsCacheDir } = await import('../src/config.js');
  const analyzer = await createAnalyzer(embedder, { cacheDir: defaultHeadsCacheDir() });
  const corpusTexts = loadCorpus().items.map((it) => it.text);
  const corpusBatch = Array.from({ length: 50 }, (_, i) => corpusTexts[(i * 71) % corpusTexts.length]);
  for (const [name, sample] of [
    ['analysisEmbedding', batch],
    ['analysisEmbeddingCorpus', corpusBatch],
  ] as const) {
    await analyzer.analyzeBatch(sample);
    const analysisRates: number[] = [];
    for (let r = 0; r < (quick ? 3 : 5); r++) {
      const t = performance.now();
      await analyzer.analyzeBatch(sample);
      analysisRates.push(50 / ((performance.now() - t) / 1000));
    }
    results[name] = summary(analysisRates);
    const pieces = analyzer.heads.options.stackPieces ? sample.reduce((n, x) => n + sentencesOf(x).length, 0) : 0;
    const words = sample.reduce((n, x) => n + x.split(/\s+/).filter(Boolean).length, 0) / sample.length;
    report(
      `analysis, embedding and both readers (msgs/s, ${name === 'analysisEmbedding' ? 'these texts' : 'corpus texts'})`,
      median(analysisRates).toFixed(1),
      `${words.toFixed(1)} words a message; ${pieces} sentence pieces embedded for 50 messages; min ${Math.min(...analysisRates).toFixed(1)}`,
    );
  }
  report(
    'embedder, old way (one thread, one call of 50)',
    median(singleRates).toFixed(1),
    `pool / old = ${(median(rates) / median(singleRates)).toFixed(2)}x`,
  );

  const t = await newTenant('bench');
  const rx = await startReceiver();
  const base = `/projects/${t.projectId}/pipelines/${t.pipelineId}`;
  await call('POST', `${base}/webhooks`, { key: t.key, body: { url: rx.url } });
  await call('POST', `${base}/segments`, {
    key: t.key,
    body: { id: 'all', name: 'All', rule: { field: 'window_size', op: '>=', value: 1 } },
  });
  await call('POST', `${base}/segments/all/deploy`, { key: t.key });

  // 2a. Submission -> profile visible for a 10-user batch on an idle system.
  const visible: number[] = [];
  const toReceiver: number[] = [];
  const changeToReceiver: number[] = [];
  for (let r = 0; r < (runs('idle') ? 20 : 1); r++) {
    const users = Array.from({ length: 10 }, (_, i) => ({
      user_id: `idle-${r}-${i}`,
      text: texts[(r * 10 + i) % texts.length],
    }));
    const start = performance.now();
    const res = await call('POST', '/api/v1/users', { key: t.key, body: { project_id: t.projectId, users } });
    await waitFor(
      'profile',
      async () =>
        (await call('GET', `/api/v1/profiles/idle-${r}-9?project_id=${t.projectId}`, { key: t.key })).status === 200,
      60_000,
      20,
    );
    visible.push(performance.now() - start);
    // Idle system: wait for all ten deliveries before the next run, and time the first of this batch.
    const mine = () => rx.received.filter((x) => x.body.includes(`"idle-${r}-`));
    await waitFor('ten user_added', async () => mine().length >= 10, 60_000, 10);
    toReceiver.push(Math.min(...mine().map((x) => x.at)) - (start + performance.timeOrigin));
    // Membership change (the event row, committed with the fold) -> the receiver has it.
    const created = await withDb(
      async (db) => (await db.query(`SELECT id, created_at FROM events WHERE user_id LIKE $1`, [`idle-${r}-%`])).rows,
    );
    for (const e of created as { id: string; created_at: Date }[]) {
      const got = mine().find((x) => x.headers['x-event-id'] === String(e.id));
      if (got) changeToReceiver.push(got.at - e.created_at.getTime());
    }
    await waitForBatch(res.body.source_id);
  }
  results.tenUserVisibleMs = summary(visible);
  results.submissionToReceiverMs = summary(toReceiver);
  report(
    '10-user batch: submission -> profile visible (ms)',
    `p50 ${pct(visible, 50).toFixed(0)}`,
    `p95 ${pct(visible, 95).toFixed(0)}, p99 ${pct(visible, 99).toFixed(0)}`,
  );
  report(
    'submission -> receiver gets user_added (ms)',
    `p50 ${pct(toReceiver, 50).toFixed(0)}`,
    `p99 ${pct(toReceiver, 99).toFixed(0)}, n=${toReceiver.length}`,
  );
  results.membershipChangeToReceiverMs = summary(changeToReceiver);
  report(
    'membership change (event committed) -> receiver (ms)',
    `p50 ${pct(changeToReceiver, 50).toFixed(0)}`,
    `p99 ${pct(changeToReceiver, 99).toFixed(0)}, n=${changeToReceiver.length}`,
  );
  save();

  // 2c. Fairness: a victim tenant's latency, idle and under the two attacks of issue 14.
  if (runs('fairness')) {
    const { fairness } = await import('./fairness.js');
    const { cpuSeconds } = await import('./procs.js');
    const fairnessPids = (await (await fetch(`${stack.controlUrl}/pids`, { method: 'POST' })).json()) as {
      api: number;
      worker: number;
    };
    const attacks = new Set((process.env.BENCH_FAIRNESS ?? 'semantic,slow,failing').split(',')) as Set<
      'semantic' | 'slow' | 'failing'
    >;
    const f = await fairness(texts, (line) => console.log(`[fairness] ${line}`), {
      cpu: () => cpuSeconds(fairnessPids),
      attacks,
    });
    results.fairness = f;
    if (attacks.has('failing')) {
      const { failingEndpoints } = await import('./failing-endpoints.js');
      const x = await failingEndpoints((line) => console.log(`[fairness] ${line}`));
      results.failingEndpoints = x;
      report(
        'fairness: fan-out beside 4 endpoints failing fast (deliveries/s)',
        `${x.shared.toFixed(1)} (${x.ratio.toFixed(2)}x alone)`,
        `${x.fanOut} events: ${x.solo.toFixed(1)}/s alone, ${x.shared.toFixed(1)}/s beside 4 endpoints answering 503 at once on the 1s,2s,2s,2s,2s schedule (${x.failedPerSecond.toFixed(1)} failed attempts/s meanwhile)`,
      );
    }
    const ratio = (x: { p99: number }) => `${(x.p99 / f.idle.p99).toFixed(2)}x idle p99`;
    report(
      'fairness: victim 10-user batch -> visible, idle (ms)',
      `p50 ${f.idle.p50.toFixed(0)}`,
      `p99 ${f.idle.p99.toFixed(0)}, n=${f.idle.n}`,
    );
    if (f.semantic)
      report(
        'fairness: victim under the semantic-conditions attack (ms)',
        `p50 ${f.semantic.p50.toFixed(0)}`,
        `p99 ${f.semantic.p99.toFixed(0)} (${ratio(f.semantic)}); 2 projects x 22 segments x 25 semantic conditions created and deployed, 16 one-user batches (${f.semantic.duringCreate.n} samples while creating, ${f.semantic.duringDeploy.n} deploying, ${f.semantic.afterBatches.n} after the batches)`,
      );
    if (f.slowReceivers) {
      const s = f.slowReceivers;
      report(
        'fairness: victim under the slow-receivers attack (ms)',
        `p50 ${s.p50.toFixed(0)}`,
        `p99 ${s.p99.toFixed(0)} (${ratio(s)}); ${s.hangingAttempts} hanging attempts (max ${s.maxOpenOnHangingWebhook} open), ${s.posts} POSTs in ${s.postsSeconds.toFixed(1)} s (${s.duringHang.n} samples with the hanging receiver, ${s.duringPosts.n} until the last POST; p50 then ${s.duringPosts.p50.toFixed(0)})`,
      );
      const { wall: _wall, ...cpu } = s.cpuDuringPosts;
      report(
        'fairness: CPU s while the 2,000 POSTs ran',
        Object.values(cpu)
          .reduce((a, b) => a + b, 0)
          .toFixed(1),
        Object.entries(cpu)
          .map(([k, v]) => `${k} ${v}`)
          .join(', '),
      );
    }
    save();
  }

  // 2b. Ingest N users in batches of 500 through the gateway, with CPU per process and peak RSS.
  // Scenario 2 measures the analysis pipeline alone (a tenant with no segment, so no events);
  // scenario 3 ingests into the tenant whose segment every user enters and times the deliveries.
  const { cpuSeconds, rssMb } = await import('./procs.js');
  const pids = (await (await fetch(`${stack.controlUrl}/pids`, { method: 'POST' })).json()) as {
    api: number;
    worker: number;
  };
  const ingest = async (
    n: number,
    tenant: { key: string; projectId: number },
    prefix: string,
    withDeliveries: boolean,
    pool: string[] = texts,
  ) => {
    const cpuBefore = cpuSeconds(pids);
    const peak = { api: 0, worker: 0 };
    const sampler = setInterval(() => {
      const r = rssMb(pids);
      peak.api = Math.max(peak.api, r.api);
      peak.worker = Math.max(peak.worker, r.worker);
    }, 500);
    const accept: number[] = [];
    const logBefore = readFileSync(stack.logs.worker, 'utf8').split('chunk analysed').length;
    const start = performance.now();
    const sources: number[] = [];
    const size = Math.min(500, n);
    for (let b = 0; b < n / size; b++) {
      const users = Array.from({ length: size }, (_, i) => ({
        user_id: `${prefix}-${b * size + i}`,
        text: pool[(b * size + i) % pool.length],
      }));
      const s = performance.now();
      const res = await call('POST', '/api/v1/users', {
        key: tenant.key,
        body: { project_id: tenant.projectId, users },
      });
      accept.push(performance.now() - s);
      sources.push(res.body.source_id);
    }
    for (const id of sources) await waitForBatch(id, 3_600_000);
    const seconds = (performance.now() - start) / 1000;
    const calls = readFileSync(stack.logs.worker, 'utf8').split('chunk analysed').length - logBefore;
    const out: Record<string, unknown> = {
      users: n,
      usersPerSecond: n / seconds,
      accept202Ms: summary(accept),
      embeddingCallsPer1000: (calls / n) * 1000,
    };
    if (withDeliveries) {
      const mine = () => rx.received.filter((x) => x.body.includes(`"${prefix}-`));
      await waitFor('all deliveries', async () => mine().length >= n, 1_800_000, 1_000);
      const delivered = mine().map((x) => x.at);
      out.deliveriesPerSecond = delivered.length / ((Math.max(...delivered) - Math.min(...delivered)) / 1000);
      // One workflow per batch and one per delivered event, from the first submission to the last delivery.
      out.workflowsPerSecond =
        (n / size + delivered.length) / ((Math.max(...delivered) - (start + performance.timeOrigin)) / 1000);
    }
    clearInterval(sampler);
    const elapsed = (performance.now() - start) / 1000;
    const cpuAfter = cpuSeconds(pids);
    out.cpuPercent = Object.fromEntries(
      Object.keys(cpuAfter).map((k) => [k, +(((cpuAfter[k] - (cpuBefore[k] ?? 0)) / elapsed) * 100).toFixed(0)]),
    );
    out.peakRssMb = peak;
    await new Promise((r) => setTimeout(r, quick ? 3_000 : 10_000));
    out.rssAfterMb = rssMb(pids);
    return out as {
      usersPerSecond: number;
      accept202Ms: ReturnType<typeof summary>;
      embeddingCallsPer1000: number;
      cpuPercent: Record<string, number>;
      peakRssMb: typeof peak;
      rssAfterMb: typeof peak;
      deliveriesPerSecond?: number;
      workflowsPerSecond?: number;
    };
  };
  // `--sizes=5000` picks the ingest sizes (multiples of 500).
  const sizesArg = process.argv.find((a) => a.startsWith('--sizes='));
  const sizes = !runs('ingest')
    ? []
    : sizesArg
      ? sizesArg.slice(8).split(',').map(Number)
      : quick
        ? [1_000]
        : [1_000, 5_000, 20_000];
  const ingestTenant = sizes.length ? await newTenant('ingest') : undefined;
  for (const n of sizes) {
    const r = await ingest(n, ingestTenant!, `ingest-${n}`, false);
    results[`ingest${n}`] = r;
    report(
      `ingest ${n} users: end-to-end (users/s)`,
      r.usersPerSecond.toFixed(1),
      `${((r.usersPerSecond / median(rates)) * 100).toFixed(0)}% of the embedder limit`,
    );
    report(
      `ingest ${n} users: 202 for a 500-user batch (ms)`,
      `p50 ${r.accept202Ms.p50.toFixed(0)}`,
      `p99 ${r.accept202Ms.p99.toFixed(0)}`,
    );
    report(`ingest ${n} users: embedding calls per 1,000 users`, r.embeddingCallsPer1000.toFixed(1), 'chunks of 50');
    report(
      `ingest ${n} users: CPU % of one core`,
      Object.entries(r.cpuPercent)
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
      'the busiest process is the bottleneck',
    );
    report(
      `ingest ${n} users: peak RSS (MB)`,
      `api ${r.peakRssMb.api}, worker ${r.peakRssMb.worker}`,
      `${quick ? 3 : 10} s after: api ${r.rssAfterMb.api}, worker ${r.rssAfterMb.worker}`,
    );
    save();
  }
  // The same through the API on corpus texts (about 22 words a message, the length customers'
  // feedback has), for the first size: the pace bar of issue 35 is on such text.
  if (sizes.length) {
    const n = sizes[0];
    const texts = loadCorpus().items.map((it) => it.text);
    const pool = Array.from({ length: n }, (_, i) => texts[(i * 71) % texts.length]);
    const r = await ingest(n, ingestTenant!, `ingest-corpus-${n}`, false, pool);
    results[`ingestCorpus${n}`] = r;
    report(
      `ingest ${n} users on corpus texts: end-to-end (messages/s)`,
      r.usersPerSecond.toFixed(1),
      `${(pool.reduce((w, x) => w + x.split(/\s+/).filter(Boolean).length, 0) / n).toFixed(1)} words a message; CPU % of one core: ${Object.entries(
        r.cpuPercent,
      )
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
    save();
  }
  if (sizes.length > 1) {
    const first = results[`ingest${sizes[0]}`] as {
      usersPerSecond: number;
      rssAfterMb: { worker: number; api: number };
    };
    const last = results[`ingest${sizes[sizes.length - 1]}`] as typeof first;
    report(
      `linearity: throughput at ${sizes[sizes.length - 1]} vs ${sizes[0]} users`,
      `${((last.usersPerSecond / first.usersPerSecond - 1) * 100).toFixed(0)}%`,
      'target: within 15%',
    );
    report(
      `memory: RSS after ${sizes[0]} vs after ${sizes[sizes.length - 1]} users (MB)`,
      `worker ${first.rssAfterMb.worker} -> ${last.rssAfterMb.worker}`,
      `api ${first.rssAfterMb.api} -> ${last.rssAfterMb.api}`,
    );
  }

  // 3a. Webhooks: users that all enter the deployed segment, one delivery workflow per event.
  if (runs('webhooks')) {
    const n = quick ? 200 : 2_000;
    const r = await ingest(n, t, `hooks-${n}`, true);
    results[`webhooks${n}`] = r;
    report(
      `webhooks: ${n} users entering a segment, deliveries/s (sustained)`,
      r.deliveriesPerSecond!.toFixed(1),
      `Temporal workflows/s (batches + deliveries) ${r.workflowsPerSecond!.toFixed(1)}`,
    );
    report(
      `webhooks: ${n} users with deliveries, end-to-end (users/s)`,
      r.usersPerSecond.toFixed(1),
      `${((r.usersPerSecond / median(rates)) * 100).toFixed(0)}% of the embedder limit`,
    );
    report(
      `webhooks: ${n} users, CPU % of one core`,
      Object.entries(r.cpuPercent)
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
      'analysis and deliveries together',
    );
    save();
  }
  await rx.close();

  // 3b. Cost of a retry: the same 200 users delivered to a receiver answering 200, then to one that
  // fails every event's first attempt (503) and accepts the retry (the test schedule waits 1 s).
  if (runs('retries')) {
    const { retryCost } = await import('./retries.js');
    const r = await retryCost({ texts, users: quick ? 50 : 200, pids });
    results.retries = r;
    report(
      'retry: extra CPU per retried delivery (ms, all processes)',
      r.extraCpuMsPerRetry.toFixed(1),
      `ok run ${r.ok.cpuMsPerDelivery.toFixed(1)} ms/delivery, failing-first run ${r.failingFirst.cpuMsPerDelivery.toFixed(1)}`,
    );
    report(
      'retry: first attempt -> successful retry (ms)',
      `p50 ${r.retryLatencyMs.p50.toFixed(0)}`,
      `p99 ${r.retryLatencyMs.p99.toFixed(0)}; the schedule's first delay is 1,000 ms`,
    );
    save();
  }

  // 4. Reads at scale.
  if (runs('reads')) {
    const { readsAtScale } = await import('./reads.js');
    const big = await newTenant('reads');
    const n = quick ? 50_000 : 1_000_000;
    const reads = await withDb((db) =>
      readsAtScale({
        db,
        gatewayUrl: stack.gatewayUrl,
        key: big.key,
        projectId: big.projectId,
        sampleUserId: 'idle-0-0',
        sampleProjectId: t.projectId,
        sampleKey: t.key,
        n,
        durationSec: quick ? 1 : 10,
      }),
    );
    results.reads = reads;
    report(`reads: seeded ${n} profiles with SQL (s)`, reads.seedSeconds.toFixed(1));
    for (const [name, r] of Object.entries(reads.load)) {
      report(
        `reads at ${n}: ${name}`,
        `c1 p50 ${r.c1.p50} ms / p99 ${r.c1.p99} ms`,
        `c50 ${r.c50.rps.toFixed(0)} req/s (p99 ${r.c50.p99} ms)${r.c1.non2xx + r.c50.non2xx ? `, non-2xx ${r.c1.non2xx + r.c50.non2xx}` : ''}`,
      );
    }
  }
} finally {
  await teardown();
}

const md = save();
console.log('\n' + md.join('\n'));
console.log(`\nwritten: ${file}`);
process.exit(0);
