/** The one activity of the baseline workflow. */
export const baselineActivities = {
  async act(id: string): Promise<string> {
    return `done ${id}`;
  },
};

export type BaselineActivities = typeof baselineActivities;
