export { canonicalJson, estimateTokens } from './canonical.js';
export { deepFreeze } from './deep-freeze.js';
export { decodePrefix, freezePrefix, type FrozenPrefix } from './freeze.js';
