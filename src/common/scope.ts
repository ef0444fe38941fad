/**
 * What a caller may do: which agents, which resources (tenants) and which actions. Pure and
 * browser-safe; the server and `tollgate.getAgent(id, { scope })` both ask it.
 */
import { TollgateError } from './errors.js';

/** `start`: stream/generate. `read`: observe, audit, pending calls, listings. `decide`: approve, decline, resume, sendToolApproval. `admin`: all of them. */
export const SCOPE_ACTIONS = ['start', 'read', 'decide', 'admin'] as const;

export type ScopeAction = (typeof SCOPE_ACTIONS)[number];

/**
 * Limits of a caller. Every field left out is unlimited, so `{}` (like no scope at all) is an
 * operator: every agent, every resource, every action. Patterns may use `*` for any run of
 * characters (`billing-*`, `acme/*`).
 */
export interface Scope {
  /** Agent ids or patterns the caller may use. */
  agents?: string[];
  /**
   * Resources (tenants, `memory.resource`) whose runs and threads the caller may use. A caller
   * limited by resource cannot see or start runs without `memory`.
   */
  resources?: string[];
  /** What the caller may do; `admin` includes every action. */
  actions?: ScopeAction[];
}

/** Checks a scope, naming the first bad field (`where` names the scope, e.g. `tokens.1.scopes`). */
export function checkScope(raw: unknown, where = 'scope'): Scope {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw invalid(where, 'must be an object { agents?, resources?, actions? }');
  }
  const { agents, resources, actions, ...rest } = raw as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) {
    throw invalid(`${where}.${unknown}`, 'is not a scope field; use agents, resources or actions');
  }
  const scope: Scope = {};
  if (agents !== undefined) scope.agents = names(agents, `${where}.agents`);
  if (resources !== undefined) scope.resources = names(resources, `${where}.resources`);
  if (actions !== undefined) {
    const list = names(actions, `${where}.actions`);
    const bad = list.find((a) => !(SCOPE_ACTIONS as readonly string[]).includes(a));
    if (bad !== undefined) {
      throw invalid(`${where}.actions`, `holds "${bad}"; use ${SCOPE_ACTIONS.join(', ')}`);
    }
    scope.actions = list as ScopeAction[];
  }
  return scope;
}

function names(value: unknown, where: string): string[] {
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    value.some((v) => typeof v !== 'string' || v === '')
  ) {
    throw invalid(where, 'must be a non-empty array of non-empty strings');
  }
  return [...(value as string[])];
}

function invalid(where: string, problem: string): TollgateError {
  return new TollgateError('INVALID_OPTIONS', `${where} ${problem}.`);
}

/** Whether `value` matches `pattern`, where `*` stands for any run of characters. */
export function matchesPattern(pattern: string, value: string): boolean {
  if (!pattern.includes('*')) return pattern === value;
  const parts = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`, 's').test(value);
}

const inList = (list: string[] | undefined, value: string) =>
  list === undefined || list.some((pattern) => matchesPattern(pattern, value));

export function mayAct(scope: Scope | undefined, action: ScopeAction): boolean {
  const actions = scope?.actions;
  return actions === undefined || actions.includes('admin') || actions.includes(action);
}

export function mayUseAgent(scope: Scope | undefined, agentId: string): boolean {
  return inList(scope?.agents, agentId);
}

/** A run without a resource is open only to callers not limited by resource. */
export function mayUseResource(scope: Scope | undefined, resourceId: string | undefined): boolean {
  if (scope?.resources === undefined) return true;
  return resourceId !== undefined && inList(scope.resources, resourceId);
}

/** Whether the caller may see a run of `agentId` with `resourceId` at all. */
export function maySeeRun(
  scope: Scope | undefined,
  run: { agentId: string | undefined; resourceId: string | undefined },
): boolean {
  return (
    run.agentId !== undefined &&
    mayUseAgent(scope, run.agentId) &&
    mayUseResource(scope, run.resourceId)
  );
}

/** The limits a listing can ask of the visibility store directly: lists without patterns. */
export interface ExactLimits {
  /** Only these agents; undefined: any (or patterns, left to `maySeeRun`). */
  agents?: string[];
  /** Only these resources; undefined: any. */
  resources?: string[];
  /** Only runs that have a resource. */
  needsResource: boolean;
  /** Whether results must still be filtered by `maySeeRun`. */
  patterns: boolean;
}

export function exactLimits(scope: Scope | undefined): ExactLimits {
  const exact = (list: string[] | undefined) =>
    list !== undefined && !list.some((p) => p.includes('*')) ? list : undefined;
  const agents = exact(scope?.agents);
  const resources = exact(scope?.resources);
  return {
    ...(agents ? { agents } : {}),
    ...(resources ? { resources } : {}),
    needsResource: scope?.resources !== undefined,
    patterns:
      (scope?.agents !== undefined && !agents) || (scope?.resources !== undefined && !resources),
  };
}

/*
 * The 403 answers: a request outside the caller's scope, judged from what the caller sent
 * (action, agent id, resource id) without looking at any run.
 */

export function requireAction(scope: Scope | undefined, action: ScopeAction): void {
  if (!mayAct(scope, action)) throw forbidden(`${action} runs`);
}

export function requireAgent(scope: Scope | undefined, agentId: string): void {
  if (!mayUseAgent(scope, agentId)) throw forbidden(`use agent "${agentId}"`);
}

/** `undefined`: a run without a resource (no `memory`). */
export function requireResource(scope: Scope | undefined, resourceId: string | undefined): void {
  if (mayUseResource(scope, resourceId)) return;
  throw forbidden(
    resourceId === undefined
      ? 'use runs without a resource; give memory.resource'
      : `use resource "${resourceId}"`,
  );
}

function forbidden(what: string): TollgateError {
  return new TollgateError('FORBIDDEN', `This caller may not ${what}; ask for a token that may.`);
}
