/**
 * A script for test/shutdown.test.ts: a call made on a Temporal connection after it was closed
 * ends with CANCELLED, and nothing is thrown where no caller can catch it.
 */
import { Client } from '@temporalio/client';
import { connectClosable } from '../../src/temporal-client/connection.js';

process.on('uncaughtException', (error) => {
  console.log(`UNCAUGHT ${error.message}`);
  process.exit(1);
});
const closable = await connectClosable(process.env.TEMPORAL_ADDRESS ?? 'localhost:7233');
const client = new Client({ connection: closable.connection });
await client.workflow.count('');
await closable.close();
try {
  await client.workflowService.describeNamespace({ namespace: client.options.namespace });
  console.log('ANSWERED');
} catch (error) {
  console.log(`REJECTED ${(error as { code?: number }).code}`);
}
await new Promise((resolve) => setTimeout(resolve, 500));
console.log('ALIVE');
