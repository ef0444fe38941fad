/** Pure parts of the agent directory: entry ids and the entry's state after a publication. */
import { describe, expect, it } from '@jest/globals';
import type { AgentDescription, DirectoryEntryState } from '../../src/common/directory-types.js';
import { agentDirectoryId } from '../../src/common/wire.js';
import { published } from '../../src/workflows/agent-directory.js';

const agent = (name: string): AgentDescription => ({
  agentId: 'ops',
  name,
  tools: [],
  subAgents: [],
});

describe('agent directory entry ids', () => {
  it('never give two (task queue, agent) pairs the same id, slashes included', () => {
    expect(agentDirectoryId('a/b', 'c')).not.toBe(agentDirectoryId('a', 'b/c'));
    expect(agentDirectoryId('tollgate', 'ops-agent')).toBe('tollgate-agent/tollgate/ops-agent');
  });
});

describe('a publication', () => {
  const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();

  it('replaces the description, keeps the other workers and records when', () => {
    const before: DirectoryEntryState = {
      agent: agent('Old'),
      publishedAt: at(1),
      workers: { w1: at(1) },
    };
    expect(published(before, { agent: agent('New'), worker: 'w2', at: at(2) })).toEqual({
      agent: agent('New'),
      publishedAt: at(2),
      workers: { w1: at(1), w2: at(2) },
    });
  });

  it('forgets the workers that published longest ago once 50 are remembered', () => {
    let state: DirectoryEntryState = { agent: agent('A'), publishedAt: at(0), workers: {} };
    for (let i = 0; i < 55; i++) {
      state = published(state, { agent: agent('A'), worker: `w${i}`, at: at(i) });
    }
    expect(Object.keys(state.workers)).toHaveLength(50);
    expect(state.workers).not.toHaveProperty('w4');
    expect(state.workers).toHaveProperty('w5');
    expect(state.workers).toHaveProperty('w54');
  });
});
