import type OpenAI from 'openai';

let sdk: Promise<typeof OpenAI> | undefined;

/** The openai SDK's client class, imported once, at the first call that needs it (a thread of another provider never loads it). */
export function loadOpenAI(): Promise<typeof OpenAI> {
  sdk ??= import('openai').then((m) => m.default);
  return sdk;
}
