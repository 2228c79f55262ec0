/**
 * The content the scripted model reads: Gemini's Content and Part (REST API v1beta), into which
 * every dialect translates its request (openai/translate.ts, anthropic/translate.ts); Gemini's own
 * request and response shapes are in gemini/wire.ts.
 */

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
