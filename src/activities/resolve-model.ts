import type { LanguageModel } from 'ai';
import { TollgateError } from '../common/errors.js';

/**
 * Turns an agent's `model` into something `streamText` can call. `'openai/<model>'` uses the
 * OpenAI provider over the Chat Completions API, which OpenAI-compatible servers implement too
 * (`OPENAI_BASE_URL`); other strings need a model object. The provider is loaded on first use: a
 * worker whose agents pass model objects never holds it (~20 MiB).
 */
export async function resolveModel(
  model: LanguageModel,
  env: NodeJS.ProcessEnv = process.env,
): Promise<LanguageModel> {
  if (typeof model !== 'string') return model;
  const match = /^openai\/(.+)$/.exec(model);
  if (!match) {
    throw new TollgateError(
      'INVALID_AGENT',
      `Model "${model}" is not supported as a string; use "openai/<model>" or pass an AI SDK LanguageModel.`,
    );
  }
  const { createOpenAI } = await import('@ai-sdk/openai');
  const provider = createOpenAI({
    apiKey: env.OPENAI_API_KEY ?? 'not-set',
    ...(env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {}),
  });
  return provider.chat(match[1]!);
}
