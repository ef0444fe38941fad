/**
 * Thrown by a tool's `execute`, before it acts, when what it would run is not what the call's
 * gate saw (`context.approvedDefinition`): the call is not run, and waits for a new approval that
 * shows `note`, bound to `definition` (docs/mcp.md "Pinning").
 */
export class DefinitionChanged extends Error {
  constructor(
    readonly note: string,
    readonly definition: string,
  ) {
    super(note);
    this.name = 'DefinitionChanged';
  }
}
