/**
 * The sweep's plain-client ideal (issue 24): what a plain node:http client (keep-alive agent), in a
 * process of its own, needs for the same requests as the sweep's forks, against the same local
 * server process at the same latency. `chains` concurrent chains of `callsPerChain` sequential
 * Gemini streamGenerateContent POSTs, each response read to its end before the chain's next call.
 * The bodies approximate the forks' own: the session's JSON as Gemini's request body (`contents`
 * = the history, then `systemInstruction`, `tools`, `generationConfig`, in the order the SDK
 * writes them) with the fork's child message (forkpool's wording of the directive of
 * bench/lib/session.ts makeTasks) after the history, and on calls 2 and 3 the model's functionCall
 * turn and the tool's functionResponse turn of each earlier call. The history's bytes are
 * serialized once, before the measured part, into one Buffer that every request writes as it is;
 * each call serializes only its own suffix (a few KiB). The answers are checked: a functionCall on
 * calls 1 and 2, the fork's `done i` on call 3, as the scripted model gives the forks.
 * Run by bench/run.ts (section `sweep`, 8 MiB, full run), or alone:
 *   node --import tsx bench/plain-client.ts '{"url":"http://127.0.0.1:PORT","prefixBytes":8388608,"chains":32,"callsPerChain":3}'
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { buildChildMessage } from '../dist/src/wording/child-message.js';
import type { GeminiSession } from '../dist/src/index.js';
import { postBuffers } from './floor.js';
import { runIfMain } from './lib/script.js';
import { makeSession, makeTasks } from './lib/session.js';

export interface PlainClientJob {
  /** The local server's base URL. */
  url: string;
  prefixBytes: number;
  chains: number;
  callsPerChain: number;
}

export interface PlainClientResult {
  prefixBytes: number;
  requests: number;
  /** First request sent → last response read to its end. */
  makespanMs: number;
  /** Client process CPU (user + system) over the measured part, ms. */
  cpuMs: number;
  /** Serializing the shared history once into its Buffer (before the measured part), ms. */
  prepareMs: number;
  /** Mean request body bytes, and the shared part's. */
  requestBytes: number;
  sharedBytes: number;
}

type Turn = { role: 'user' | 'model'; parts: unknown[] };

/** The model's call on turn `k` (1-based) and the tool's answer, as bench/lib/session.ts's tool gives it. */
function toolTurns(i: number, k: number): Turn[] {
  const args = k === 1 ? { i } : { i, step: k };
  return [
    { role: 'model', parts: [{ functionCall: { name: 't', args } }] },
    { role: 'user', parts: [{ functionResponse: { name: 't', response: { ok: true, fork: i, step: k } } }] },
  ];
}

export async function measurePlainClient(job: PlainClientJob): Promise<PlainClientResult> {
  const session = makeSession(job.prefixBytes) as GeminiSession;
  const directives = makeTasks(job.chains).map((t) => t.directive);
  const target = new URL(`${job.url}/v1beta/models/${session.model}:streamGenerateContent?alt=sse`);
  const headers = { 'content-type': 'application/json', 'x-goog-api-key': 'bench' };
  const agent = new http.Agent({ keepAlive: true });

  const p0 = performance.now();
  const shared = Buffer.from(`{"contents":[${session.history.map((turn) => JSON.stringify(turn)).join(',')}`);
  const tail = `],"systemInstruction":${JSON.stringify(session.systemInstruction)},"tools":${JSON.stringify(session.tools)},"generationConfig":${JSON.stringify(session.generationConfig)}}`;
  const prepareMs = performance.now() - p0;

  let bodyBytes = 0;
  const call = async (i: number, k: number): Promise<void> => {
    const turns: Turn[] = [{ role: 'user', parts: [{ text: buildChildMessage(directives[i] ?? '') }] }];
    for (let done = 1; done < k; done++) turns.push(...toolTurns(i, done));
    const suffix = Buffer.from(`,${turns.map((turn) => JSON.stringify(turn)).join(',')}${tail}`);
    bodyBytes += shared.length + suffix.length;
    let text = '';
    await postBuffers(agent, target, headers, [shared, suffix], (chunk) => (text += chunk.toString()));
    const expected = k < job.callsPerChain ? '"functionCall"' : `done ${i}`;
    if (!text.includes(expected)) throw new Error(`plain client: chain ${i}, call ${k}: no ${expected} in ${text.slice(0, 200)}`);
  };
  const chain = async (i: number): Promise<void> => {
    for (let k = 1; k <= job.callsPerChain; k++) await call(i, k);
  };

  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  try {
    await Promise.all(Array.from({ length: job.chains }, (_, i) => chain(i)));
  } finally {
    agent.destroy();
  }
  const makespanMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const requests = job.chains * job.callsPerChain;
  return {
    prefixBytes: job.prefixBytes,
    requests,
    makespanMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    prepareMs,
    requestBytes: bodyBytes / requests,
    sharedBytes: shared.length,
  };
}

runIfMain('plain-client.ts', measurePlainClient);
