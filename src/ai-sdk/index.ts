/* forkpool/ai-sdk: forkpool inside Vercel AI SDK agents. */
export { forkTool, type ForkToolOptions } from './fork-tool.js';
