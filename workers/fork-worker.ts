// Piscina entry point: one call runs one fork in this thread. The logic lives in src/fork-thread.
export { runForkJob as default } from '../src/fork-thread/run-job.js';
