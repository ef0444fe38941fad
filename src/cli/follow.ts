/**
 * Prints a run's stream as it arrives: text inline, tool activity on lines of their own (or every
 * chunk as a JSON line), and the calls a run waits on, with the commands that decide them.
 */
import type { AgentStream } from '../stream/agent-stream.js';
import { toolLabel, type Chunk, type FinishReason } from '../common/chunks.js';
import type { PendingToolCall } from '../common/run-types.js';
import { inlineJson, truncate, type Output } from './output.js';

/** Longest tool result or argument list shown in human output, characters. */
const MAX_VALUE_CHARS = 200;

/** How one stretch of a run ended. */
export interface Stretch {
  finishReason: FinishReason;
  /** Offset just past the stretch: observing from here continues the run. */
  nextOffset: number;
  /** Ids of the calls this stretch asked a decision for. */
  asked: Set<string>;
  /** Chunks in the stretch; 0 when the run had already closed before its start offset. */
  chunks: number;
}

/** Prints the chunks of `stream` until it ends. */
export async function printStream(stream: AgentStream, output: Output): Promise<Stretch> {
  const asked = new Set<string>();
  const printer = new ChunkPrinter(output);
  let chunks = 0;
  for await (const chunk of stream.fullStream) {
    chunks++;
    if (chunk.type === 'tool-call-approval' || chunk.type === 'tool-call-suspended') {
      asked.add(chunk.payload.toolCallId);
    }
    if (output.json) output.document(chunk);
    else printer.print(chunk);
  }
  printer.endLine();
  return {
    finishReason: await stream.finishReason,
    nextOffset: await stream.nextOffset,
    asked,
    chunks,
  };
}

class ChunkPrinter {
  private midLine = false;

  constructor(private readonly output: Output) {}

  print(chunk: Chunk): void {
    switch (chunk.type) {
      case 'text-delta':
        this.output.text(chunk.payload.text);
        this.midLine = !chunk.payload.text.endsWith('\n');
        return;
      case 'tool-call':
        return this.line(`→ ${chunk.payload.toolName} ${value(chunk.payload.args)}`);
      case 'tool-call-approval':
        return this.line(`⏸ ${toolLabel(chunk.payload)} waits for approval`);
      case 'tool-call-suspended':
        return this.line(
          `⏸ ${toolLabel(chunk.payload)} waits for input: ${value(chunk.payload.suspendPayload)}`,
        );
      case 'tool-result':
        return this.line(`← ${chunk.payload.toolName} ${value(chunk.payload.result)}`);
      case 'tool-error':
        return this.line(`✗ ${chunk.payload.toolName} failed: ${chunk.payload.error}`);
      case 'text-withdrawn':
        return this.line(
          `↺ the model step is retried; the text above since its start is withdrawn`,
        );
      case 'error':
        return this.line(`✗ run error: ${chunk.payload.error}`);
      case 'finish':
        if (chunk.payload.finishReason === 'suspended') return;
        return this.line(
          chunk.payload.finishReason === 'error'
            ? '✗ run failed'
            : `✓ run finished (${chunk.payload.finishReason})`,
        );
      default:
        return;
    }
  }

  endLine(): void {
    if (this.midLine) this.output.line();
    this.midLine = false;
  }

  private line(text: string): void {
    this.endLine();
    this.output.line(text);
  }
}

function value(json: unknown): string {
  return truncate(inlineJson(json), MAX_VALUE_CHARS);
}

/** The calls `runId` waits on, with the commands that decide each. */
export function printWaiting(runId: string, calls: PendingToolCall[], output: Output): void {
  output.document({ type: 'waiting', from: 'CLI', runId, payload: { toolCalls: calls } });
  if (output.json) return;
  output.line(`Run ${runId} waits for a decision:`);
  const run = shellWord(runId);
  for (const call of calls) {
    const id = `--tool-call ${shellWord(call.toolCallId)}`;
    if (call.requiresApproval) {
      output.line(`  ${toolLabel(call)} ${value(call.args)}  (call ${call.toolCallId}, approval)`);
      output.line(`    tollgate approve ${run} ${id} --fingerprint ${call.fingerprint}`);
      output.line(`    tollgate decline ${run} ${id} --reason '...'`);
    } else {
      output.line(`  ${toolLabel(call)} ${value(call.args)}  (call ${call.toolCallId}, input)`);
      output.line(`    asks: ${value(call.suspendPayload ?? null)}`);
      output.line(`    resume data schema: ${call.resumeSchema}`);
      output.line(`    tollgate resume ${run} ${id} --data '<json>'`);
    }
  }
}

/** `word`, quoted for a POSIX shell when it holds anything but safe characters. */
function shellWord(word: string): string {
  return /^[\w.:@%+=,/-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
