import { describe, expect, test } from '@jest/globals';
import { isTollgateError } from '../../src/common/errors.js';
import { checkWorkflowSdk, SUPPORTED_WORKFLOW_SDK } from '../../src/workflow-sdk-check.js';

describe('workflow SDK check at worker start', () => {
  test('accepts the installed @temporalio/workflow, the exact pinned release', async () => {
    const installed = await checkWorkflowSdk();
    expect(installed.version).toBe(SUPPORTED_WORKFLOW_SDK);
    expect(installed.activatorSource).toContain('doUpdate');
  });

  test('refuses another release with TEMPORAL_SDK_UNSUPPORTED naming both versions', async () => {
    const error = await checkWorkflowSdk({
      version: '1.25.0',
      activatorSource: 'class Activator { blockedConditions = new Map(); doUpdate() {} }',
    }).catch((e: unknown) => e);
    expect(isTollgateError(error, 'TEMPORAL_SDK_UNSUPPORTED')).toBe(true);
    expect((error as Error).message).toContain('1.25.0');
    expect((error as Error).message).toContain(SUPPORTED_WORKFLOW_SDK);
  });

  test('refuses an activator without the internals the update ordering drives', async () => {
    const error = await checkWorkflowSdk({
      version: SUPPORTED_WORKFLOW_SDK,
      activatorSource: 'class Activator { doUpdate() {} }',
    }).catch((e: unknown) => e);
    expect(isTollgateError(error, 'TEMPORAL_SDK_UNSUPPORTED')).toBe(true);
    expect((error as Error).message).toContain('blockedConditions');
    expect((error as Error).message).toContain('nextSeqs');
  });
});
