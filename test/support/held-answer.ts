import type { ScriptedModel } from '../../src/testing/scripted-model.js';

/**
 * `model`, whose answer to a tool's result (a prompt that ends with it) waits for the test's
 * `release()`; `entered` resolves once such an answer is asked for.
 */
export function holdingAnswer(model: ScriptedModel): {
  model: ScriptedModel;
  entered: Promise<void>;
  release: () => void;
} {
  let enter!: () => void;
  let release!: () => void;
  const entered = new Promise<void>((resolve) => (enter = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  return {
    model: {
      ...model,
      async doStream(options) {
        if (options.prompt.at(-1)?.role === 'tool') {
          enter();
          await released;
        }
        return model.doStream(options);
      },
    },
    entered,
    release,
  };
}
