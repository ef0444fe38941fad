import { decideMany } from '../temporal-client/decide-many.js';
import type { BatchDecision } from '../common/batch-decisions.js';
import type { DecisionsResponse } from '../common/http-api.js';
import type { DecidedBy } from '../common/run-types.js';
import type { Scope } from '../common/scope.js';
import type { Tollgate } from '../runtime.js';
import { errorAnswer, type ErrorLogger } from './errors.js';

/**
 * POST `/api/decisions`: each decision in the token's name and scope, judged alone; a result
 * carries the code and message its own request would have got (`INTERNAL` for hidden errors,
 * which are logged).
 */
export async function decideBatch(
  tollgate: Tollgate,
  decisions: BatchDecision[],
  decidedBy: DecidedBy,
  scope: Scope | undefined,
  log: ErrorLogger,
): Promise<DecisionsResponse> {
  const agentOf = (agentId: string) =>
    tollgate.getAgent(agentId, scope === undefined ? {} : { scope });
  const results = await decideMany(agentOf, decisions, { decidedBy }, (error) => {
    const { body } = errorAnswer(error, log, 'POST /api/decisions (one decision)');
    return { code: body.error.code, message: body.error.message };
  });
  return { results };
}
