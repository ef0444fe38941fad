/**
 * Loads the agents a `worker` or `dev` process hosts: from a user module, or the demo's
 * ops agent when none is named.
 */
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TollgateError } from '../common/errors.js';
import type { Agent } from '../definitions/agent.js';
import { UsageError } from './command-input.js';

/**
 * The agents exported by `modulePath` (relative to the working directory): its `agents` export,
 * else its default export, each a `Record<string, Agent>`.
 */
export async function loadAgents(modulePath: string): Promise<Record<string, Agent>> {
  const file = resolve(modulePath);
  try {
    await access(file);
  } catch {
    throw new UsageError(`--agents ${modulePath}: no such file (looked at ${file}).`);
  }
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new TollgateError('INVALID_AGENT', `Loading ${modulePath} failed: ${why}`, {
      cause: error,
    });
  }
  const exported = loaded.agents ?? loaded.default;
  const agents = agentRecord(exported);
  if (!agents) {
    throw new TollgateError(
      'INVALID_AGENT',
      `${modulePath} exports no agents: add \`export const agents = { myAgent }\` (or \`export default { myAgent }\`), each an Agent.`,
    );
  }
  return agents;
}

/** `value` as a non-empty record of agents, or undefined. */
function agentRecord(value: unknown): Record<string, Agent> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value);
  // Duck-typed rather than `instanceof`: the module may import its own copy of tollgate.
  const isAgent = (candidate: unknown) =>
    typeof (candidate as Agent | null)?.id === 'string' &&
    (candidate as Agent).tools instanceof Map;
  if (entries.length === 0 || !entries.every(([, agent]) => isAgent(agent))) return undefined;
  return value as Record<string, Agent>;
}

/**
 * The demo's `ops-agent` (`src/demo-agent/`) over a fresh in-memory table, answering with
 * `openai/<OPENAI_MODEL>` when `OPENAI_API_KEY` or `OPENAI_BASE_URL` is set, else with the demo's
 * scripted model. Loaded only when a command hosts it.
 */
export async function loadDemoAgents(): Promise<{ agents: Record<string, Agent>; note: string }> {
  const [ops, model] = await Promise.all([
    import('../demo-agent/ops-agent.js'),
    import('../demo-agent/demo-model.js'),
  ]);
  const { OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL } = process.env;
  const real = Boolean(OPENAI_API_KEY || OPENAI_BASE_URL);
  const agent = ops.createOpsAgent(
    real ? `openai/${OPENAI_MODEL ?? 'gpt-4o-mini'}` : model.demoModel(),
    ops.createRecordTable(),
  );
  const note = real
    ? `demo ops-agent on openai/${OPENAI_MODEL ?? 'gpt-4o-mini'}`
    : 'demo ops-agent on its scripted model (set OPENAI_API_KEY for a real one)';
  return { agents: { [agent.id]: agent }, note };
}
