/** The activities of the bare-Temporal workflows (load baseline and floor). */

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
  async mark(id: string): Promise<string> {
    markedStarts.set(id, performance.now());
    return `done ${id}`;
  },
};

export type BaselineActivities = typeof baselineActivities;
