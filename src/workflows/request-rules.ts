import { mergeRules, tightenRules, type ApprovalRules } from '../common/approval-rules.js';
import type { RunInput, ToolManifest } from '../common/run-types.js';
import { isPatched } from './patch-markers.js';
import { REQUEST_TIGHTENS_PATCH } from './patch-ids.js';

/** Decided once, when a run starts (not on a continued execution, which carries the answer). */
export function withRequestRules(input: RunInput): RunInput {
  if (input.continued) return input;
  const run = { ...input };
  // Only the run says which rules it follows: whatever its starter put here is dropped.
  delete run.requestTightens;
  return isPatched(REQUEST_TIGHTENS_PATCH) ? { ...run, requestTightens: true } : run;
}

/** Whether the run's request may only tighten: a run under the patch without an override. */
export function requestOnlyTightens(input: RunInput): boolean {
  return input.requestTightens === true && input.approvalOverride === undefined;
}

/** A call's approval rules: the tool's, then the agent's, with the request's laid over them. */
export function rulesOfCall(
  input: RunInput,
  tool: ToolManifest,
  agent?: ApprovalRules,
): ApprovalRules {
  return requestOnlyTightens(input)
    ? tightenRules(mergeRules(tool.rules, agent), input.approvalRules)
    : mergeRules(tool.rules, input.approvalRules, agent);
}

/** Who may not approve the run's calls under `separateRequester`: its recorded requester. */
export function requesterOf(input: RunInput): unknown {
  return input.requester ?? input.requestContext.requester;
}
