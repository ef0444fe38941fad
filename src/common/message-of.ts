/** The message of a thrown value, for a sentence that names the cause. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
