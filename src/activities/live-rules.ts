import type { Client } from '@temporalio/client';
import { rulesOfAgent } from '../common/live-policy.js';
import { readLivePolicies } from '../temporal-client/live-policies.js';

/**
 * The live rules of `agentId` a new run starts with (docs/live-policies.md), for its manifest;
 * nothing when there are none, so manifests without rules stay as they were.
 */
export async function liveRulesManifest(
  client: Client,
  taskQueue: string | undefined,
  agentId: string,
): Promise<{ livePolicy?: Record<string, boolean> }> {
  if (taskQueue === undefined) return {};
  const rules = rulesOfAgent(await readLivePolicies(client, taskQueue), agentId);
  return Object.keys(rules).length > 0 ? { livePolicy: rules } : {};
}
