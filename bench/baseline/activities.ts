/** The activities of the bare-Temporal workflows (load baseline and floor). */

import { Context } from '@temporalio/activity';

/** `performance.now()` when `mark` started, by id: the floor's "tool starts" moment. */
export const markedStarts = new Map<string, number>();

export const baselineActivities = {
  async act(id: string): Promise<string> {
    return `done ${id}`;
  },
  /** Stands in for a model step or a tool call: returns at once. */
  async step(id: string): Promise<string> {
    return id;
  },
  /**
   * A tool call with what Tollgate's `executeTool` sends before `execute` begins: one heartbeat
   * whose details mark the attempt as executing (docs/durability.md "What once means").
   */
  async markedStep(id: string): Promise<string> {
    Context.current().heartbeat({ executing: true });
    return id;
  },
  /** `mark` with the same heartbeat: the gated tool call of the same-work floor. */
  async markedMark(id: string): Promise<string> {
    markedStarts.set(id, performance.now());
    Context.current().heartbeat({ executing: true });
    return `done ${id}`;
  },
  async mark(id: string): Promise<string> {
    markedStarts.set(id, performance.now());
    return `done ${id}`;
  },
};

export type BaselineActivities = typeof baselineActivities;
