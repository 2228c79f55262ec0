export { estimateTokens } from './tokens.js';
export { deepFreeze } from './deep-freeze.js';
export { decodePrefix } from './decode.js';
export { freezePrefix, type FrozenPrefix } from './freeze.js';
