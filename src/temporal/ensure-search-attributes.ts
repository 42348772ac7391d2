import { status } from '@grpc/grpc-js';
import type { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { SearchAttributeType } from './search-attributes.js';
import { grpcCause } from './grpc-cause.js';

// A CommonJS package: its namespace object is the default export under ESM.
const { IndexedValueType } = proto.temporal.api.enums.v1;

export const INDEXED_TYPE: Record<SearchAttributeType, proto.temporal.api.enums.v1.IndexedValueType> = {
  Text: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Int: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  Double: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  Bool: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  Datetime: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
};

export interface SearchAttributeCheck {
  /** What this call registered. */
  registered: string[];
  /** Why the namespace still lacks what the workflows set (naming each attribute), or undefined. */
  problem?: string;
  /** False when the server could not be reached (away, still starting, too slow): no answer yet. */
  answered: boolean;
}

/**
 * Lists the namespace's custom search attributes and registers the missing ones. A workflow start
 * that sets an attribute the namespace lacks is refused, so without them nothing ever runs.
 *
 * One attribute per call: the server refuses a request whole (the SQL visibility store has 3 Int
 * slots, 10 Keyword ones), and the others should not be held back by one. An attribute that
 * exists with another type is reported, never changed: the server answers OK to such a request
 * and keeps the old type, and removing an operator's attribute is not ours to do.
 */
export async function ensureSearchAttributes(
  connection: Pick<Connection, 'operatorService'>,
  namespace: string,
  wanted: Record<string, SearchAttributeType>,
): Promise<SearchAttributeCheck> {
  const list = async () =>
    (await connection.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};
  let existing: Record<string, proto.temporal.api.enums.v1.IndexedValueType>;
  try {
    existing = await list();
  } catch (err) {
    return {
      registered: [],
      answered: !unreachable(err),
      problem: `could not list the search attributes of namespace "${namespace}": ${why(err)}`,
    };
  }
  const registered: string[] = [];
  const refused = new Map<string, string>();
  for (const [name, type] of Object.entries(wanted)) {
    if (name in existing) continue;
    try {
      await connection.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: { [name]: INDEXED_TYPE[type] },
      });
      registered.push(name);
    } catch (err) {
      // PERMISSION_DENIED where we may not use the operator service (on Temporal Cloud: tcld, the UI).
      refused.set(name, why(err));
    }
  }
  if (registered.length) {
    try {
      existing = await list();
    } catch (err) {
      return {
        registered,
        answered: !unreachable(err),
        problem: `registered ${registered.join(', ')}, then could not list: ${why(err)}`,
      };
    }
  }
  // Grouped by cause: one refusal usually holds back several attributes (a full slot type, no rights).
  const missing = new Map<string, string[]>();
  const wrongType: string[] = [];
  for (const [name, type] of Object.entries(wanted)) {
    const has = existing[name];
    if (has === undefined) {
      const refusal = refused.get(name);
      const cause = refusal ? `registering refused (${refusal})` : 'registered, not listed yet';
      missing.set(cause, [...(missing.get(cause) ?? []), `${name} (${type})`]);
    } else if (has !== INDEXED_TYPE[type]) wrongType.push(`${name} is ${typeName(has)}, the workflows set ${type}`);
  }
  const problems = [...[...missing].map(([cause, names]) => `missing ${names.join(', ')}: ${cause}`), ...wrongType];
  return {
    registered,
    answered: true,
    ...(problems.length && {
      problem: `namespace "${namespace}" lacks search attributes the workflows set: ${problems.join('; ')}`,
    }),
  };
}

const why = (err: unknown) => grpcCause(err) ?? (err as Error).message;
const unreachable = (err: unknown) =>
  [status.UNAVAILABLE, status.DEADLINE_EXCEEDED].includes((err as { code?: number }).code ?? -1);

function typeName(t: proto.temporal.api.enums.v1.IndexedValueType): string {
  const ours = Object.entries(INDEXED_TYPE).find(([, v]) => v === t);
  return ours ? ours[0] : String(IndexedValueType[t] ?? t).replace('INDEXED_VALUE_TYPE_', '');
}
