import { describe, expect, it } from '@jest/globals';
import {
  definitionFingerprint,
  describeDrift,
  gatedByAnnotations,
  type McpToolDefinition,
} from '../src/mcp/mcp-definition.js';
import { elicitationReply } from '../src/mcp/index.js';
import { ElicitationAnswers, elicitationFingerprint } from '../src/mcp/mcp-elicitation.js';
import type { ToolExecutionContext } from '../src/index.js';

const remove: McpToolDefinition = {
  name: 'delete_file',
  description: 'Deletes a file',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
  annotations: { destructiveHint: true },
};

describe('MCP annotations and pinning (no server)', () => {
  it('gates by the annotations, the doubtful case gated', () => {
    expect(gatedByAnnotations({ readOnlyHint: true })).toBe(false);
    expect(gatedByAnnotations({ readOnlyHint: true, openWorldHint: true })).toBe(true);
    expect(gatedByAnnotations({ destructiveHint: true })).toBe(true);
    expect(gatedByAnnotations({ openWorldHint: true, destructiveHint: false })).toBe(true);
    expect(gatedByAnnotations({ destructiveHint: false, openWorldHint: false })).toBe(false);
    expect(gatedByAnnotations({ destructiveHint: false })).toBe(true);
    expect(gatedByAnnotations(undefined)).toBe(true);
  });

  it('fingerprints name, description, schema and annotations, whatever the key order', () => {
    const reordered: McpToolDefinition = {
      annotations: { destructiveHint: true },
      inputSchema: { properties: { path: { type: 'string' } }, type: 'object' },
      description: 'Deletes a file',
      name: 'delete_file',
    };
    expect(definitionFingerprint(reordered)).toBe(definitionFingerprint(remove));
    for (const changed of [
      { ...remove, description: 'Deletes a file and uploads it' },
      { ...remove, annotations: { readOnlyHint: true } },
      { ...remove, inputSchema: { type: 'object' as const, properties: {} } },
    ]) {
      expect(definitionFingerprint(changed)).not.toBe(definitionFingerprint(remove));
    }
  });

  it('describes a drift by the parts that changed, or a tool that is gone', () => {
    const pinned = { definition: remove, fingerprint: definitionFingerprint(remove) };
    expect(describeDrift('files', pinned, remove)).toBeUndefined();
    const drift = describeDrift('files', pinned, { ...remove, description: 'Uploads it too' });
    expect(drift).toContain('description "Deletes a file" -> "Uploads it too"');
    expect(drift).not.toContain('inputSchema');
    expect(describeDrift('files', pinned, undefined)).toContain('no longer listed');
  });

  it('answers each elicitation once, matched by message and schema', () => {
    const schema = { type: 'object', properties: { account: { type: 'string' } } };
    const asked = elicitationFingerprint('Which account?', schema);
    const context = {
      agent: {
        resumeData: { account: 'B' },
        suspendPayload: {
          kind: 'mcp-elicitation',
          fingerprint: asked,
          answered: [{ fingerprint: asked, content: { account: 'A' } }],
        },
      },
    } as unknown as ToolExecutionContext;
    const answers = ElicitationAnswers.of(context);
    expect(answers.take(elicitationFingerprint('Other?', schema))).toBeUndefined();
    expect(answers.take(asked)).toEqual({ action: 'accept', content: { account: 'A' } });
    expect(answers.take(asked)).toEqual({ action: 'accept', content: { account: 'B' } });
    expect(answers.take(asked)).toBeUndefined();
  });

  it('turns a decline or cancel reply into that action, kept for later attempts', () => {
    const asked = elicitationFingerprint('Which account?', {});
    const suspendPayload = { kind: 'mcp-elicitation', fingerprint: asked, answered: [] };
    const context = {
      agent: { resumeData: elicitationReply('decline'), suspendPayload },
    } as unknown as ToolExecutionContext;
    const answers = ElicitationAnswers.of(context);
    expect(answers.all).toEqual([{ fingerprint: asked, content: {}, action: 'decline' }]);
    expect(answers.take(asked)).toEqual({ action: 'decline' });
  });
});
