// Internal: both ends of a fork's channel (src/wire/fork-end.ts, src/engine/host-end.ts) and its
// protocol (src/wire/protocol.ts); a fork's tool calls, events, cancel() and result are their public face.
import { MessageChannel, Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCallGate } from '../src/engine/call-gate.js';
import { openForkChannel } from '../src/engine/host-end.js';
import { emptyFailure } from '../src/result/results.js';
import { defineTool } from '../src/tools/define.js';
import { createToolHost, type ToolCall } from '../src/tools/host.js';
import { connectHost } from '../src/wire/fork-end.js';
import type { HostMessage, WorkerEvent } from '../src/wire/protocol.js';

const policy = { forkId: 'f', declaredTools: new Set(['lookup']), spawnTools: new Set<string>() };

function hostEnd(options: { onEvent?: (event: WorkerEvent) => void; tools?: Parameters<typeof createToolHost>[0] } = {}) {
  const gate = createCallGate({ maxInFlight: 4 });
  // The fork's end of the channel goes to the fork (a thread, or connectHost here) as a port of its own.
  const { port1, port2 } = new MessageChannel();
  const channel = openForkChannel({
    port: port1,
    host: createToolHost(options.tools ?? []),
    gate,
    policy,
    onEvent: options.onEvent ?? (() => undefined),
    onToolCall: () => undefined,
    admit: () => true,
  });
  return { gate, channel, workerPort: port2 };
}

const turn = (n: number): WorkerEvent => ({
  type: 'turn',
  turn: n,
  usage: { promptTokens: n, cachedTokens: 0, outputTokens: 1 },
  functionCalls: 0,
});

describe('the fork end of a channel', () => {
  it('settles a call in flight as host_gone when the other end closes', async () => {
    // A main thread that never answers, like a wedged or vanished host.
    const { port1, port2 } = new MessageChannel();
    const client = connectHost(port2, () => undefined);
    const pending = client.execTool({ name: 'lookup', args: {} }, new AbortController().signal, 60_000);
    setTimeout(() => port1.close(), 20);
    await expect(pending).resolves.toMatchObject({ ok: false, error: { kind: 'host_gone' } });
    client.close();
  });

  it('settles a call as rpc_timeout when the host stays silent past the bound', async () => {
    const { port1, port2 } = new MessageChannel();
    const client = connectHost(port2, () => undefined, 10);
    const result = await client.execTool({ name: 'lookup', args: {} }, new AbortController().signal, 20);
    expect(result).toMatchObject({ ok: false, error: { kind: 'rpc_timeout' } });
    client.close();
    port1.close();
  });

  it('a gate wait ends when the fork is aborted, admitting nothing', async () => {
    const { port1, port2 } = new MessageChannel();
    const client = connectHost(port2, () => undefined);
    const controller = new AbortController();
    const admitted = client.gate(controller.signal, undefined).acquire(100);
    controller.abort();
    await expect(admitted).resolves.toBe(false);
    client.close();
    port1.close();
  });

  it("hears cancel, stop and the parent's messages from the main thread, in order", async () => {
    const { port1, port2 } = new MessageChannel();
    const heard: string[] = [];
    const cancelled = new Promise<void>((resolve) =>
      connectHost(
        port2,
        () => {
          heard.push('cancel');
          resolve();
        },
        undefined,
        (reason) => heard.push(`stop:${reason}`),
      ),
    );
    for (const message of [{ type: 'stop', reason: 'cost' }, { type: 'cancel' }] satisfies HostMessage[]) port1.postMessage(message);
    await cancelled;
    expect(heard).toEqual(['stop:cost', 'cancel']);
    port1.close();
  });
});

describe('both ends of a channel', () => {
  it('runs a tool call on the main thread and answers it', async () => {
    const lookup = defineTool({
      name: 'lookup',
      description: 'd',
      parameters: z.object({ q: z.string() }),
      execute: ({ q }) => ({ found: q.toUpperCase() }),
    });
    const { channel, workerPort } = hostEnd({ tools: [lookup] });
    const client = connectHost(workerPort, () => undefined);
    const call: ToolCall = { name: 'lookup', args: { q: 'x' } };
    const answer = await client.execTool(call, new AbortController().signal, 1_000);
    expect(answer).toMatchObject({ ok: true, value: { response: { output: { found: 'X' } } } });
    channel.close();
  });

  it("a fork's result arrives behind every event it reported before it, with nothing to drain", async () => {
    const seen: number[] = [];
    const { channel, workerPort } = hostEnd({ onEvent: (event) => event.type === 'turn' && seen.push(event.turn) });
    const client = connectHost(workerPort, () => undefined);
    for (let n = 1; n <= 200; n++) client.report(turn(n));
    client.end(emptyFailure('f', 'error', 'the end'));
    const result = await channel.result;
    expect(seen).toHaveLength(200);
    expect(seen.at(-1)).toBe(200);
    expect(result).toMatchObject({ id: 'f', status: 'failed', error: { message: 'the end' } });
    channel.close();
  });

  it('keeps that order across a real thread', async () => {
    const seen: number[] = [];
    const { channel, workerPort } = hostEnd({ onEvent: (event) => event.type === 'turn' && seen.push(event.turn) });
    // A thread that plays the fork's end with raw protocol messages: 500 events, then its result.
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       parentPort.once('message', (port) => {
         for (let n = 1; n <= 500; n++) port.postMessage({ type: 'event', event: { type: 'turn', turn: n, usage: { promptTokens: 1, cachedTokens: 0, outputTokens: 1 }, functionCalls: 0 } });
         port.postMessage({ type: 'end', result: { id: 'w', status: 'completed', text: 'done', turns: 500 } });
       });`,
      { eval: true },
    );
    worker.postMessage(workerPort, [workerPort]);
    const result = await channel.result;
    expect(seen).toHaveLength(500);
    expect(result).toMatchObject({ id: 'w', status: 'completed', turns: 500 });
    channel.close();
    await worker.terminate();
  });

  it("the channel's result is undefined when it closes without one (its thread died)", async () => {
    const { channel, workerPort } = hostEnd();
    const worker = new Worker(`require('node:worker_threads').parentPort.once('message', () => process.exit(1));`, { eval: true });
    worker.postMessage(workerPort, [workerPort]);
    await expect(channel.result).resolves.toBeUndefined();
    channel.close();
  });

  it('after closing, a message is refused to its sender; after reopen, it is delivered', async () => {
    const { channel, workerPort } = hostEnd();
    const client = connectHost(workerPort, () => undefined);
    expect(channel.send('first')).toBe(true);
    await client.closing();
    expect(client.takeMessages()).toEqual(['first']);
    expect(channel.send('too late')).toBe(false);
    client.reopen();
    // The reopen travels to the main thread; a round trip later it has been read.
    await client.gate(new AbortController().signal, undefined).acquire(1);
    expect(channel.send('again')).toBe(true);
    channel.close();
  });

  it('a slot given back one way just before the engine closes the channel still reaches the gate', async () => {
    const { gate, channel, workerPort } = hostEnd();
    const client = connectHost(workerPort, () => undefined);
    const forkGate = client.gate(new AbortController().signal, undefined);
    for (let i = 0; i < 3; i++) await expect(forkGate.acquire(10)).resolves.toBe(true);
    expect(gate.stats().inFlight).toBe(3);
    // No answer is awaited for these: the fork sends its result at once, and the engine closes the channel.
    for (let i = 0; i < 3; i++) await expect(forkGate.release('ok', false)).resolves.toBe(false);
    channel.close();
    expect(gate.stats().inFlight).toBe(0);
  });

  it('a retry asked of the gate is answered on the channel', async () => {
    const { channel, workerPort } = hostEnd();
    const client = connectHost(workerPort, () => undefined);
    const forkGate = client.gate(new AbortController().signal, 1);
    await expect(forkGate.acquire(10)).resolves.toBe(true);
    await expect(forkGate.release('rate_limited', true)).resolves.toBe(true);
    expect(forkGate.retriesSpent()).toBe(1);
    // Its own budget is spent: no question is asked.
    await expect(forkGate.acquire(10)).resolves.toBe(true);
    await expect(forkGate.release('rate_limited', true)).resolves.toBe(false);
    channel.close();
  });
});
