import type { JsonObject, PromptFields, WirePart } from '../core/types.js';

/** Wire shapes of the Gemini REST API v1beta's generateContent, as far as the local server reads them. */

export interface GenerateRequest extends PromptFields {
  generationConfig?: JsonObject;
  cachedContent?: string;
}

export interface UsageMetadata {
  promptTokenCount: number;
  cachedContentTokenCount?: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  promptTokensDetails: { modality: 'TEXT'; tokenCount: number }[];
  cacheTokensDetails?: { modality: 'TEXT'; tokenCount: number }[];
}

export interface GenerateResponse {
  candidates: {
    content: { role: 'model'; parts: WirePart[] };
    finishReason?: 'STOP' | 'MAX_TOKENS';
    index: 0;
  }[];
  usageMetadata: UsageMetadata;
  modelVersion: string;
  responseId: string;
}
