/**
 * `inprocess`: every fork's loop on the main thread, all started together (bounded by the same
 * concurrency), as the reference agents run forks. Same loop (runForkLoop), same SDK client,
 * same tool host; the tool call is a direct function call instead of an RPC.
 */
import { AGENT_TOOL_NAME } from '../../dist/src/fork/index.js';
import { runForkLoop } from '../../dist/src/fork-thread/fork-loop.js';
import { createCallGate, type CallGate } from '../../dist/src/engine/call-gate.js';
import type { HostClient } from '../../dist/src/wire/fork-end.js';
import type { ForkJob } from '../../dist/src/wire/protocol.js';
import type { ForkResult } from '../../dist/src/result/fork-result.js';
import { createGenaiProvider } from '../../dist/src/model/genai.js';
import { DEFAULT_RETRY, type ProviderConfig } from '../../dist/src/model/types.js';
import type { FrozenPrefix } from '../../dist/src/prefix/index.js';
import type { ForkTask } from '../../dist/src/session/schema.js';
import type { Tool } from '../../dist/src/tools/define.js';
import { declaredToolNames } from '../../dist/src/shapes/tool-names.js';
import { createToolHost, type ForkToolPolicy } from '../../dist/src/tools/host.js';
import { schedule, type Runner, type RunnerOptions } from './common.js';
import { localPlan } from '../lib/plan.js';

/**
 * A HostClient on the main thread: the tool host and the engine's call gate are called directly,
 * no port, no channel.
 */
function mainThreadHost(tools: readonly Tool[], gate: CallGate, policy: ForkToolPolicy, onFirstResponse: () => void): HostClient {
  const host = createToolHost(tools);
  return {
    async execTool(call, signal) {
      const value = await host.execute(call, policy, signal);
      return { ok: true, value };
    },
    gate(signal) {
      let spent = 0;
      return {
        acquire: (tokens) => gate.acquire(tokens, signal),
        async release(status, wantsRetry) {
          const retry = gate.release(status, wantsRetry);
          if (retry) spent++;
          return retry;
        },
        retriesSpent: () => spent,
      };
    },
    // No parent sends these forks messages: nothing to wait for when one ends.
    takeMessages: () => [],
    async closing() {},
    reopen() {},
    report(event) {
      if (event.type === 'response_start') onFirstResponse();
    },
    end() {},
    close() {},
  };
}

export function createInprocessRunner(options: RunnerOptions, tools: readonly Tool[]): Runner {
  const provider: ProviderConfig = {
    kind: 'local',
    baseUrl: options.url,
    ...(options.maxAttempts !== undefined ? { retry: { ...DEFAULT_RETRY, maxAttempts: options.maxAttempts } } : {}),
  };
  const model = createGenaiProvider(provider);
  const gate = createCallGate({ maxInFlight: options.concurrency });
  return {
    fanOut(prefix: FrozenPrefix, tasks: readonly ForkTask[]) {
      const declaredTools = declaredToolNames(prefix.session.tools);
      const plan = localPlan(prefix);
      const spawnTools = new Set([AGENT_TOOL_NAME]);
      return schedule(prefix, tasks, options, (task, onFirstResponse): Promise<ForkResult> => {
        const job: ForkJob = {
          task,
          prefix: { id: prefix.id, buffer: prefix.buffer, byteLength: prefix.byteLength },
          prefixTokens: prefix.tokenEstimate,
          retry: undefined,
          toolTimeoutMs: Infinity, // the main-thread host is called directly: no RPC to bound
          provider,
          history: 'inherit',
          spawnTools: [AGENT_TOOL_NAME],
          maxTokensPerFork: undefined,
          maxTurns: 20,
          timeoutMs: options.timeoutMs,
          plan,
          link: { fork: 0 }, // the loop never touches it
        };
        const controller = new AbortController();
        let reason: 'timeout' | undefined;
        const timer = setTimeout(() => {
          reason = 'timeout';
          controller.abort(new Error('timeout'));
        }, options.timeoutMs);
        return runForkLoop({
          job,
          session: prefix.session,
          decodedPrefix: false,
          provider: model,
          host: mainThreadHost(tools, gate, { forkId: task.id, declaredTools, spawnTools }, onFirstResponse),
          signal: controller.signal,
          abortReason: () => reason,
          stopReason: () => undefined,
        }).finally(() => clearTimeout(timer));
      });
    },
    async close() {},
  };
}
