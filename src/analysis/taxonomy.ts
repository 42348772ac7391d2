import taxonomy from './taxonomy.json' with { type: 'json' };

export const TOPICS: readonly string[] = Object.keys(taxonomy.topics);
export const INTENTIONS: readonly string[] = Object.keys(taxonomy.intentions);
