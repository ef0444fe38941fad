/**
 * The replay gate's recorded histories, by generation: one folder under test/fixtures/histories
 * for each version of the workflow code that recorded them, oldest first. A change that records
 * different commands for new runs (behind a patch) adds a generation; the older ones stay, because
 * runs they stand for may still be in flight.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The source tree's fixture folder, found from `dist/test/support/`. */
export const FIXTURES_ROOT = fileURLToPath(
  new URL('../../../test/fixtures/histories/', import.meta.url),
);

/** Generation folders, oldest first (their names start with their number). */
export const GENERATIONS = readdirSync(FIXTURES_ROOT, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort((a, b) => parseInt(a, 10) - parseInt(b, 10));

/** The generation the recorder writes to: the newest. */
export const NEWEST_GENERATION = GENERATIONS.at(-1)!;

export function fixtureFile(generation: string, name: string): string {
  return join(FIXTURES_ROOT, generation, `${name}.json`);
}

/** The fixture names of one generation. */
export function fixturesOf(generation: string): string[] {
  return readdirSync(join(FIXTURES_ROOT, generation))
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.slice(0, -'.json'.length))
    .sort();
}

/** One recorded history, as stored (proto JSON). */
export interface FixtureEvent {
  eventType?: string;
  workflowExecutionStartedEventAttributes?: {
    workflowType?: { name?: string };
    workflowId?: string;
    continuedExecutionRunId?: string;
  };
  markerRecordedEventAttributes?: {
    markerName?: string;
    details?: Record<string, { payloads?: Array<{ data?: string }> }>;
  };
}

export function readFixture(generation: string, name: string): { events: FixtureEvent[] } {
  return JSON.parse(readFileSync(fixtureFile(generation, name), 'utf8')) as {
    events: FixtureEvent[];
  };
}
