import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** Span names of queries, on the client (`QueryWorkflow:`) and in the workflow (`HandleQuery:`). */
function isQuery(span: ReadableSpan): boolean {
  return span.name.startsWith('QueryWorkflow:') || span.name.startsWith('HandleQuery:');
}

/**
 * Passes every span except queries to `inner`. Streams and listings read runs by query many times
 * a second, so query spans would outnumber everything a run does.
 */
export class WithoutQuerySpans implements SpanProcessor {
  constructor(private readonly inner: SpanProcessor) {}

  onStart(span: Span, parentContext: Context): void {
    this.inner.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    if (!isQuery(span)) this.inner.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}
