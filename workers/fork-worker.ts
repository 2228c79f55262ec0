// Piscina entry point: one call runs one fork. The logic lives in src/engine.
export { runForkJob as default } from '../src/fork-thread/run-job.js';
