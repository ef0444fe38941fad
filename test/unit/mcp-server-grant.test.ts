import { describe, expect, it } from '@jest/globals';
import type { Grant } from '../../src/common/grant-types.js';
import type { McpPinsState } from '../../src/common/mcp-pins.js';
import {
  grantsPerTool,
  pinsDigest,
  serverGrantToolName,
  type McpToolSource,
} from '../../src/common/mcp-server-grant.js';

const pins: McpPinsState = {
  server: 'files',
  pins: {
    read_file: { fingerprint: 'f-read', pinnedAt: '2026-01-01T00:00:00.000Z' },
    delete_file: { fingerprint: 'f-delete', pinnedAt: '2026-01-01T00:00:00.000Z' },
  },
  repins: [],
};
const grant: Grant = {
  grantId: 'g1',
  agentId: 'ops',
  toolName: serverGrantToolName('files'),
  resourceId: 'acme',
  definition: pinsDigest(pins.pins),
  expiresAt: '2999-01-01T00:00:00.000Z',
  createdAt: '2026-01-01T00:00:00.000Z',
};
const sources: Record<string, McpToolSource> = {
  fs_read_file: { server: 'files', name: 'read_file' },
  fs_delete_file: { server: 'files', name: 'delete_file' },
  other_read_file: { server: 'other', name: 'read_file' },
};
const sourceOf = (key: string) => sources[key];
const keys = ['fs_read_file', 'fs_delete_file', 'other_read_file', 'local_tool'];

describe('grantsPerTool (a grant for every tool of one MCP server)', () => {
  it("turns it into one grant per tool of that server, bound to the tool's pin", () => {
    expect(grantsPerTool(grant, keys, sourceOf, pins)).toEqual([
      { ...grant, toolName: 'fs_read_file', definition: 'f-read' },
      { ...grant, toolName: 'fs_delete_file', definition: 'f-delete' },
    ]);
  });

  it('covers nothing once the pins are not those it was given for, or are gone', () => {
    const repinned = { ...pins, pins: { read_file: pins.pins.read_file! } };
    expect(grantsPerTool(grant, keys, sourceOf, repinned)).toEqual([]);
    expect(grantsPerTool(grant, keys, sourceOf, undefined)).toEqual([]);
  });

  it('leaves a grant of one tool alone', () => {
    expect(grantsPerTool({ ...grant, toolName: 'fs_read_file' }, keys, sourceOf, pins)).toEqual([]);
  });
});
