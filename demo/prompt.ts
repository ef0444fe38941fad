/**
 * The demo's human in the loop: shows an approval request and gets a yes or no for it.
 */
import { createInterface } from 'node:readline/promises';
import type { SuspendPayload } from '../src/index.js';

/** How the demo decides: ask on the terminal, or answer every request the same way. */
export type ApprovalMode = 'ask' | 'approve' | 'decline';

/** Prints the request, then decides per `mode`; `true` approves. */
export async function decideApproval(
  request: SuspendPayload,
  mode: ApprovalMode,
): Promise<boolean> {
  console.log('\n⏸  Approval needed');
  console.log(`   tool:        ${request.toolName}`);
  console.log(`   args:        ${JSON.stringify(request.args)}`);
  console.log(`   fingerprint: ${request.fingerprint ?? '(none)'}`);
  if (mode !== 'ask') {
    console.log(`   → ${mode === 'approve' ? 'approved' : 'declined'} by --${mode}`);
    return mode === 'approve';
  }
  if (!process.stdin.isTTY) {
    console.log(
      '   → declined: stdin is not a terminal, so nobody can answer. Pass --approve (or --decline) to decide up front.',
    );
    return false;
  }
  return askYesNo('   Approve? [y/N] ');
}

/** Asks on the terminal; anything but y/yes is a no. */
async function askYesNo(question: string): Promise<boolean> {
  const terminal = createInterface({ input: process.stdin, output: process.stdout });
  // readline swallows Ctrl-C while it reads; hand it to the process so the demo shuts down.
  terminal.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
  try {
    const answer = await terminal.question(question);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    terminal.close();
  }
}
