import { Client, Connection } from '@temporalio/client';

export async function createTemporalClient(
  address: string,
  namespace: string,
): Promise<{ client: Client; connection: Connection }> {
  // lazy: the API must come up (and answer reads) even while Temporal is away.
  const connection = Connection.lazy({ address });
  return { client: new Client({ connection, namespace }), connection };
}
