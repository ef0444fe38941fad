import { TollgateError } from '../common/errors.js';
import type { ForkRequest } from '../common/fork-types.js';
import { checkId } from './run-options.js';

const CHOICES = ['keep', 'decline', 'ask'];

/** Checks a fork request's shape before anything is read or started (`INVALID_OPTIONS`). */
export function checkForkRequest(request: ForkRequest): ForkRequest {
  if (request === null || typeof request !== 'object') {
    throw invalid('fork needs { runId: string, step: a whole number ≥ 0 }.');
  }
  const { runId, step, prompt, promptMode, calls, forkRunId, maxSteps } = request;
  checkId(runId, 'runId');
  if (!Number.isInteger(step) || step < 0) {
    throw invalid(
      `fork's step must be a whole number ≥ 0 (0: before the first model step), not ${JSON.stringify(step)}.`,
    );
  }
  if (prompt !== undefined && (typeof prompt !== 'string' || prompt === '')) {
    throw invalid(
      "fork's prompt must be a non-empty string; leave it out to keep the conversation as it was.",
    );
  }
  if (promptMode !== undefined && promptMode !== 'replace' && promptMode !== 'append') {
    throw invalid(
      `fork's promptMode must be "replace" or "append", not ${JSON.stringify(promptMode)}.`,
    );
  }
  if (promptMode === 'replace' && step !== 0) {
    throw invalid(
      `fork's promptMode "replace" works at step 0 only (the model answered the opening prompt by step ${step}); use "append", or fork at step 0.`,
    );
  }
  if (forkRunId !== undefined) checkId(forkRunId, 'forkRunId');
  if (maxSteps !== undefined && (!Number.isInteger(maxSteps) || maxSteps < 1)) {
    throw invalid(`fork's maxSteps must be a whole number ≥ 1, not ${JSON.stringify(maxSteps)}.`);
  }
  if (calls !== undefined) checkCalls(calls);
  return request;
}

function checkCalls(calls: unknown): void {
  if (calls === null || typeof calls !== 'object' || Array.isArray(calls)) {
    throw invalid('fork\'s calls must be an object of toolCallId → "keep" | "decline" | "ask".');
  }
  for (const [id, given] of Object.entries(calls)) {
    const choice =
      typeof given === 'object' && given !== null ? (given as { choice?: unknown }).choice : given;
    const reason =
      typeof given === 'object' && given !== null
        ? (given as { reason?: unknown }).reason
        : undefined;
    const shaped = typeof given === 'string' || choice === 'decline';
    if (
      !shaped ||
      !CHOICES.includes(choice as string) ||
      (reason !== undefined && typeof reason !== 'string')
    ) {
      throw invalid(
        `fork's calls.${id} must be "keep", "decline", "ask" or { choice: "decline", reason?: string }, not ${JSON.stringify(given)}.`,
      );
    }
  }
}

function invalid(message: string): TollgateError {
  return new TollgateError('INVALID_OPTIONS', message);
}
