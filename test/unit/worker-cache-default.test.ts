import { describe, expect, it } from '@jest/globals';
import { checkWorkerSettings, DEFAULT_CACHED_RUNS } from '../../src/worker-settings.js';

describe('the worker cache policy (pure, no server)', () => {
  it('caches 200 runs unless told otherwise, not Temporal’s heap-sized ~2 300', () => {
    expect(DEFAULT_CACHED_RUNS).toBe(200);
    expect(checkWorkerSettings(undefined).tuning.maxCachedWorkflows).toBe(200);
    expect(checkWorkerSettings({}).tuning.maxCachedWorkflows).toBe(200);
    expect(checkWorkerSettings({ shutdownGraceTime: 5000 }).tuning).toEqual({
      maxCachedWorkflows: 200,
      shutdownGraceTime: 5000,
    });
  });

  it('grows the default to the workflow tasks allowed at once, and keeps a chosen size', () => {
    expect(checkWorkerSettings({ maxConcurrentWorkflowTaskExecutions: 300 }).tuning).toMatchObject({
      maxCachedWorkflows: 300,
      maxConcurrentWorkflowTaskExecutions: 300,
    });
    expect(checkWorkerSettings({ maxCachedWorkflows: 0 }).tuning.maxCachedWorkflows).toBe(0);
    expect(checkWorkerSettings({ maxCachedWorkflows: 5000 }).tuning.maxCachedWorkflows).toBe(5000);
  });
});
