/** `tollgate audit <runId>`: the run's audit trail, read from its history (SPEC §10). */
import type { AuditEntry } from '../common/run-types.js';
import type { CommandHandler } from './command-input.js';
import { agentIdOfRun, openTollgate } from './connect.js';
import { EXIT } from './exit-codes.js';
import { formatTable, inlineJson, truncate } from './output.js';
import { toolLabel } from '../common/chunks.js';

const DETAIL_CHARS = 80;

export const audit: CommandHandler = async (input) => {
  const { output } = input;
  const runId = input.args[0]!;
  const tollgate = openTollgate(input.global);
  try {
    output.progress(`Reading the audit trail of ${runId}…`);
    const agent = tollgate.getAgent(await agentIdOfRun(tollgate, runId));
    const entries = await agent.getAuditTrail(runId);
    // The back-links: the original's history is never changed, its forks are found by search.
    const forks = await agent.listForks(runId);
    output.document({ runId, entries, forks });
    const rows = entries.map((entry) => [
      entry.at,
      entry.type,
      entry.toolName === undefined ? '(run)' : `${toolLabel(entry)} ${entry.toolCallId}`,
      truncate(detail(entry), DETAIL_CHARS),
    ]);
    output.line(
      rows.length > 0
        ? formatTable(['AT', 'WHAT', 'CALL', 'DETAIL'], rows)
        : `Run ${runId} has no gated or suspended calls, no compactions, no moves and no activeTools.`,
    );
    for (const f of forks)
      output.line(`Forked at step ${f.step} into run ${f.runId} (${f.status}, ${f.startedAt})`);
    return EXIT.ok;
  } finally {
    output.stopProgress();
    await tollgate.shutdown();
  }
};

function detail(entry: AuditEntry): string {
  switch (entry.type) {
    case 'gate':
      if (entry.notActive) return "refused: not among the run's activeTools (no policy ran)";
      return `${entry.gated ? 'gated' : 'not gated'} by ${entry.source}${entry.note ? ` (${entry.note})` : ''}`;
    case 'request':
      return `${entry.kind} ${inlineJson(entry.args)} fingerprint ${entry.fingerprint.slice(0, 12)}${entry.expiresAt ? ` expires ${entry.expiresAt}` : ''}`;
    case 'decision':
      return [
        `${entry.decision} by ${entry.decidedBy?.id ?? 'unknown'} via ${entry.channel}`,
        entry.reason ? `reason: ${entry.reason}` : '',
        entry.editedArgs !== undefined ? `edited to ${inlineJson(entry.editedArgs)}` : '',
        entry.grantId ? `grant ${entry.grantId}` : '',
      ]
        .filter(Boolean)
        .join('; ');
    case 'rejected-decision':
      return `${entry.kind} refused (${entry.code}) via ${entry.channel}: ${entry.message}`;
    case 'escalation':
      return `escalated (level ${entry.level}) to ${entry.to.join(', ')} after ${Math.round(entry.waitedMs / 1000)} s`;
    case 'hand-off':
      return [
        `handed off by ${entry.decidedBy.id} via ${entry.channel} to ${entry.to.join(', ')}`,
        entry.note ? `note: ${entry.note}` : '',
      ]
        .filter(Boolean)
        .join('; ');
    case 'expiry':
      return `expired; on timeout: ${entry.onTimeout}`;
    case 'reminder':
      return `reminder after ${Math.round(entry.waitedMs / 1000)} s`;
    case 'grant-used':
      return `ran under grant ${entry.grantId} given by ${entry.grantedBy?.id ?? 'unknown'} (expires ${entry.expiresAt})`;
    case 'policy-release':
      return `released by a live rule of ${entry.changedBy?.id ?? 'an operator'}, no person approved${entry.reason ? ` (${entry.reason})` : ''}`;
    case 'policy-change': {
      const rule = { true: 'needs approval', false: 'no longer needs approval', null: 'as coded' };
      return `live rule: ${entry.toolName} ${rule[String(entry.requireApproval) as 'null']} (by ${entry.changedBy?.id ?? 'unknown'})`;
    }
    case 'active-tools':
      return `the run may use only: ${entry.tools.join(', ') || 'no tools'}`;
    case 'compaction':
      return `conversation compacted after step ${entry.step}: ${entry.bytesBefore} → ${entry.bytesAfter} bytes, ${entry.messagesDropped} of ${entry.messagesBefore} messages dropped`;
    case 'forked':
      return [
        `forked from run ${entry.from.runId} at step ${entry.from.step}`,
        entry.forkedBy ? `by ${entry.forkedBy.id}` : '',
        entry.prompt ? `prompt ${entry.prompt}` : '',
        ...entry.calls.map((call) => `${call.toolCallId} ${call.choice}`),
      ]
        .filter(Boolean)
        .join('; ');
    case 'moved':
      return [
        `from build ${entry.from.buildId} to ${entry.to.buildId} by ${entry.movedBy?.id ?? 'unknown'}`,
        entry.reason ? `reason: ${entry.reason}` : '',
      ]
        .filter(Boolean)
        .join('; ');
  }
}
