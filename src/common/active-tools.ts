/**
 * A request's `activeTools` (docs/run-tools.md): the tool names, keys of
 * the agent's `tools` or `agent-<key>` delegations, that one run may use. It only narrows: the
 * model is offered these tools alone, and a call of any other tool is refused before any approval
 * policy runs. Pure and sandbox-safe: the client checks a request with it, the workflow its calls.
 */

/** Most names a request may list; far more than any agent's tools, and bounds the run's input. */
export const MAX_ACTIVE_TOOLS = 256;

/** Longest tool name accepted in `activeTools`, characters. */
const MAX_TOOL_NAME = 256;

/** What is wrong with `value` as `activeTools`, or `undefined` when it is a usable list. */
export function activeToolsShapeProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) {
    return `activeTools must be an array of tool names, not ${value === null ? 'null' : typeof value}.`;
  }
  if (value.length > MAX_ACTIVE_TOOLS) {
    return `activeTools lists ${value.length} names, more than ${MAX_ACTIVE_TOOLS}; list the tools the run may use.`;
  }
  const bad = value.find(
    (name) => typeof name !== 'string' || name === '' || name.length > MAX_TOOL_NAME,
  );
  if (bad !== undefined) {
    return `activeTools holds ${JSON.stringify(bad)}, which is no tool name; use the keys of the agent's tools.`;
  }
  return undefined;
}

/**
 * What is wrong with `activeTools` for an agent offering `available`: the first name it does not
 * have, with the names it does; `undefined` when every name is one of them.
 */
export function unknownActiveTool(
  agentId: string,
  activeTools: readonly string[],
  available: readonly string[],
): string | undefined {
  const unknown = activeTools.find((name) => !available.includes(name));
  if (unknown === undefined) return undefined;
  return `activeTools names "${unknown}", which agent "${agentId}" does not have; available tools: ${available.join(', ') || 'none'}.`;
}

/** Whether a run with `activeTools` (absent: every tool) may call `toolName`. */
export function isActiveTool(
  activeTools: readonly string[] | undefined,
  toolName: string,
): boolean {
  return activeTools === undefined || activeTools.includes(toolName);
}

/** Why a call outside the run's `activeTools` was refused, as its tool result says it. */
export function notActiveMessage(toolName: string, activeTools: readonly string[]): string {
  return `Tool "${toolName}" is not among the tools this run may use (activeTools: ${activeTools.join(', ') || 'none'}); it was not run.`;
}
