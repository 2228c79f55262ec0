export { createGenaiProvider } from './genai.js';
export { backoffDelay, sleep } from './retry.js';
export * from './types.js';
