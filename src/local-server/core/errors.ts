/**
 * A request that fails: an HTTP status, a message, and for a 429 the seconds to wait. Thrown inside
 * any dialect's handlers; the server writes it in that dialect's error JSON (gemini/errors.ts,
 * openai/errors.ts, anthropic/errors.ts).
 */
export class ApiFailure extends Error {
  readonly code: number;
  readonly retryAfterSeconds: number | undefined;
  constructor(code: number, message: string, retryAfterSeconds?: number) {
    super(message);
    this.name = 'ApiFailure';
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
