/**
 * A logger for `bundleWorkflowCode` that drops its progress lines and keeps warnings and errors,
 * so a benchmark's output is its figures.
 */
export const quietBundleLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};
