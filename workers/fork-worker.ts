// Piscina entry point: one call runs one fork. The logic lives in src/engine.
export { runForkJob as default } from '../src/engine/worker-main.js';
