import { unknownActiveTool } from '../common/active-tools.js';
import { tollgateFailure } from '../common/failure.js';
import type { AgentManifest } from '../common/run-types.js';
import type { RunState } from './run-state.js';

/**
 * A run whose request narrowed its tools (`activeTools`) checks the names against the agent its
 * worker describes, and records them as the first entry of its audit. A name the agent does not
 * have fails the run (`INVALID_OPTIONS`) before any model step: the client checks it at start
 * against the agent directory, so this catches only a worker whose agent changed since then.
 */
export function startNarrowed(
  state: RunState,
  manifest: AgentManifest,
  activeTools: string[],
): void {
  const problem = unknownActiveTool(manifest.agentId, activeTools, Object.keys(manifest.tools));
  if (problem) throw tollgateFailure('INVALID_OPTIONS', problem);
  state.audit.add({ type: 'active-tools', tools: [...activeTools] });
}
