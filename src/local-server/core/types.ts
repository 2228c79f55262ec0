/** Wire shapes of the Gemini REST API v1beta, as far as the local server reads them. */

export type JsonObject = { [key: string]: unknown };

export interface WireFunctionCall {
  id?: string;
  name: string;
  args?: JsonObject;
}

export interface WireFunctionResponse {
  id?: string;
  name: string;
  response: JsonObject;
}

/** A part holds one of text / functionCall / functionResponse; other fields are kept as received. */
export interface WirePart {
  text?: string;
  functionCall?: WireFunctionCall;
  functionResponse?: WireFunctionResponse;
  [other: string]: unknown;
}

export interface WireContent {
  role?: string;
  parts: WirePart[];
}

/** The prompt-bearing fields of a request (generateContent, countTokens, cachedContents.create). */
export interface PromptFields {
  systemInstruction?: WireContent;
  tools?: JsonObject[];
  toolConfig?: JsonObject;
  contents: WireContent[];
}

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
    finishReason?: 'STOP';
    index: 0;
  }[];
  usageMetadata: UsageMetadata;
  modelVersion: string;
  responseId: string;
}
