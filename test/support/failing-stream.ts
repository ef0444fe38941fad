/**
 * A model stream that fails mid-text, for the retry tests: it streams `deltas` one every
 * `deltaDelayMs`, waits for `beforeError`, then errors as a dropped provider connection would.
 */
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';

export function failingTextStream(
  deltas: readonly string[],
  deltaDelayMs: number,
  beforeError: () => Promise<unknown>,
): { stream: ReadableStream<LanguageModelV4StreamPart> } {
  return {
    stream: new ReadableStream<LanguageModelV4StreamPart>({
      async start(controller) {
        controller.enqueue({ type: 'stream-start', warnings: [] });
        controller.enqueue({ type: 'text-start', id: 'text' });
        for (const delta of deltas) {
          controller.enqueue({ type: 'text-delta', id: 'text', delta });
          await new Promise((resolve) => setTimeout(resolve, deltaDelayMs));
        }
        await beforeError();
        controller.error(new Error('the provider dropped the connection'));
      },
    }),
  };
}
