/**
 * Tollgate benchmark: prints per-step overhead against the AI SDK in-process, approve-to-tool-start
 * latency, and history size by step count. Starts its own dev server and worker; takes ~1-3 min.
 * Run with `npm run bench`.
 */
import './quiet-runtime.js';
import { approvalAgent, measureApprovalLatency } from './approval-latency.js';
import { environmentFacts, startEnvironment } from './environment.js';
import { historyAgent, measureHistorySizes, MESSAGE_CHARS } from './history-size.js';
import { measurePerStep, perStepAgent } from './per-step.js';
import { approvalLines, historyLines, perStepLines } from './report.js';
import { progress } from './stats.js';

const PER_STEP = { steps: 10, runs: 10, warmups: 1 };
const APPROVAL = { samples: 50, warmups: 2 };
const HISTORY_STEPS = [10, 20, 40];

async function main(): Promise<void> {
  const started = performance.now();
  progress('starting the Temporal dev server and a Tollgate worker');
  const env = await startEnvironment([perStepAgent(), approvalAgent(), historyAgent()]);
  try {
    const facts = await environmentFacts(env.cliPath);
    progress(`server ${env.server.address}, task queue ${env.taskQueue}`);
    const perStep = perStepLines(await measurePerStep(env.tollgate, env.server.pid, PER_STEP));
    const approval = approvalLines(
      await measureApprovalLatency(env.tollgate, APPROVAL),
      APPROVAL.warmups,
    );
    const history = historyLines(
      await measureHistorySizes(env.tollgate, HISTORY_STEPS),
      MESSAGE_CHARS,
    );

    const lines = [
      'Tollgate benchmark',
      ...facts.map((fact) => `environment: ${fact}`),
      '',
      ...perStep.detail,
      '',
      ...approval.detail,
      '',
      ...history.detail,
      '',
      'Summary',
      `  ${perStep.summary}`,
      `  ${approval.summary}`,
      `  ${history.summary}`,
    ];
    console.log(lines.join('\n'));
  } finally {
    progress('shutting down');
    await env.close();
  }
  progress(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
