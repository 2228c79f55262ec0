export { estimateTokens } from './tokens.js';
export { deepFreeze } from './deep-freeze.js';
export { decodePrefix, freezePrefix, type FrozenPrefix } from './freeze.js';
