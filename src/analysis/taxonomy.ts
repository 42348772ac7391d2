import taxonomy from './taxonomy.json' with { type: 'json' };

export const TOPICS: readonly string[] = Object.keys(taxonomy.topics);
export const INTENTIONS: readonly string[] = Object.keys(taxonomy.intentions);
export const LABEL_DESCRIPTIONS: Record<string, string> = { ...taxonomy.topics, ...taxonomy.intentions };
