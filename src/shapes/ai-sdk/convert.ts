import type { ConvertFacet } from '../shape.js';
import type { AiSdkSessionLike } from './dialect.js';

/*
 * The AI SDK's ModelMessage shape does not convert yet, either way: an ai-sdk session runs as it
 * is, through an AI SDK provider (each provider package renders it for its own API), and a session
 * of another shape runs through that shape's provider.
 */
export const aiSdkConvert: ConvertFacet<AiSdkSessionLike> = {
  toHub: {
    refused:
      'is an ai-sdk session: it runs as it is, through an AI SDK provider (each provider package renders it for its own API); converting it is not supported',
  },
  fromHub: { refused: 'an ai-sdk session is not written by conversion: run the session as it is, through the provider of its own shape' },
  toolCount: (session) => Object.keys((session as { tools?: object }).tools ?? {}).length,
};
