import { toolLabel } from '../common/chunks.js';
import type { RunStatus } from '../common/wire.js';
import type { WaitingCall } from './waiting-call.js';

const HEADINGS: Record<RunStatus, string> = {
  running: 'Running',
  'awaiting-approval': 'Awaiting approval',
  suspended: 'Suspended: waiting for input',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** Markdown shown as the run's current details in Temporal UI: its status and what it waits on. */
export function currentDetails(status: RunStatus, waiting: WaitingCall[]): string {
  const lines = [`**${HEADINGS[status]}**`];
  if (waiting.length > 0) {
    lines.push(
      '',
      '| tool | decision | arguments | fingerprint | waiting since |',
      '|---|---|---|---|---|',
    );
    for (const call of waiting) {
      const decision = call.kind === 'approve' ? 'approve / decline' : 'resume';
      lines.push(
        `| ${cell(toolLabel(call))} | ${decision} | \`${cell(truncate(JSON.stringify(call.args), 200))}\` | \`${call.fingerprint.slice(0, 16)}…\` | ${call.requestedAt} |`,
      );
    }
    lines.push(
      '',
      `Decide with the \`approve\`, \`decline\` or \`resume\` signal: \`{"toolCallId": "${waiting[0]!.toolCallId}"}\`.`,
    );
  }
  return lines.join('\n');
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
