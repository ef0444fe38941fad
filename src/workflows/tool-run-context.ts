import type { AgentManifest, RunInput } from '../common/run-types.js';
import type { RunState } from './run-state.js';

/** What every tool call of a step works with: the run's state, its agent and its input. */
export interface ToolRunContext {
  state: RunState;
  manifest: AgentManifest;
  input: RunInput;
  /** Patches a local-mode run decided before its local work (`patchesBeforeLocalWork`). */
  patches: Map<string, boolean>;
}
