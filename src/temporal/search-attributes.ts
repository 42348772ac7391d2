import * as keys from '../../workflows/search-attributes.js';

export type SearchAttributeType = 'Int' | 'Keyword' | 'Text' | 'Double' | 'Bool' | 'Datetime';

// The SDK's value types, as the CLI's `--search-attribute Name=Type` spells them.
const CLI_TYPE: Record<string, SearchAttributeType> = {
  KEYWORD: 'Keyword',
  INT: 'Int',
  TEXT: 'Text',
  DOUBLE: 'Double',
  BOOL: 'Bool',
  DATETIME: 'Datetime',
};

/**
 * The custom search attributes the workflows set (defined once, in workflows/search-attributes.ts),
 * as the embedded dev server registers them at start. Ids are Keywords: the SQL visibility store
 * allows only 3 Int attributes, and ids are matched by equality anyway (`ProjectId = "12"` in the
 * Temporal UI).
 */
export const SEARCH_ATTRIBUTES: Record<string, SearchAttributeType> = Object.fromEntries(
  Object.values(keys).map((key) => [key.name, CLI_TYPE[key.type]]),
);
