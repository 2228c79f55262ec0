/** A rough token count (about 4 characters per token), used for cache reports before the model counts. */
export function estimateTokens(textOrByteLength: string | number): number {
  const size = typeof textOrByteLength === 'string' ? textOrByteLength.length : textOrByteLength;
  if (!Number.isFinite(size) || size <= 0) return 0;
  return Math.ceil(size / 4);
}
