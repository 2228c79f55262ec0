// Internal: connectHost (src/engine/host-client.ts), CANCEL_MESSAGE and ForkHostApi (src/engine/thread-wire.ts): the worker side of the thread wire; a fork's tool calls and cancel() are their public face.
import { expose, type Endpoint } from 'comlink';
import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { createCallGate } from '../src/engine/call-gate.js';
import { openForkChannel } from '../src/engine/host-end.js';
import { connectHost } from '../src/wire/fork-end.js';
import { createToolHost } from '../src/tools/host.js';
import { CANCEL_MESSAGE, type ForkHostApi } from '../src/wire/protocol.js';

/** A main-thread side whose tool calls never answer, like a wedged or vanished host. */
function silentHost(): ForkHostApi {
  return {
    execTool: () => new Promise(() => undefined),
    report: () => undefined,
    acquireCall: () => new Promise(() => undefined),
    releaseCall: () => true,
  };
}

describe('the worker side of a fork channel', () => {
  it('settles a call in flight as host_gone when the other end closes', async () => {
    const { port1, port2 } = new MessageChannel();
    expose(silentHost(), port1 as unknown as Endpoint);
    const client = connectHost(port2, () => undefined);
    const pending = client.execTool({ name: 'lookup', args: {} }, new AbortController().signal, 60_000);
    setTimeout(() => port1.close(), 20);
    await expect(pending).resolves.toMatchObject({ ok: false, error: { kind: 'host_gone' } });
    client.close();
  });

  it('settles a call as rpc_timeout when the host stays silent past the bound', async () => {
    const { port1, port2 } = new MessageChannel();
    expose(silentHost(), port1 as unknown as Endpoint);
    const client = connectHost(port2, () => undefined, 10);
    const result = await client.execTool({ name: 'lookup', args: {} }, new AbortController().signal, 20);
    expect(result).toMatchObject({ ok: false, error: { kind: 'rpc_timeout' } });
    client.close();
    port1.close();
  });

  it('a gate wait ends when the fork is aborted, admitting nothing', async () => {
    const { port1, port2 } = new MessageChannel();
    expose(silentHost(), port1 as unknown as Endpoint);
    const client = connectHost(port2, () => undefined);
    const controller = new AbortController();
    const gate = client.gate(controller.signal, undefined);
    const admitted = gate.acquire(100);
    controller.abort();
    await expect(admitted).resolves.toBe(false);
    client.close();
    port1.close();
  });

  it('hears a cancel message from the main thread', async () => {
    const { port1, port2 } = new MessageChannel();
    expose(silentHost(), port1 as unknown as Endpoint);
    const cancelled = new Promise<boolean>((resolve) => connectHost(port2, () => resolve(true)));
    port1.postMessage({ type: CANCEL_MESSAGE });
    await expect(cancelled).resolves.toBe(true);
    port1.close();
  });

  it('a slot given back one way just before the engine closes the channel still reaches the gate', async () => {
    const gate = createCallGate({ maxInFlight: 4 });
    const channel = openForkChannel({
      host: createToolHost([]),
      gate,
      policy: { forkId: 'f', declaredTools: new Set(), spawnTools: new Set() },
      onEvent: () => undefined,
      onToolCall: () => undefined,
      admit: () => true,
    });
    const client = connectHost(channel.workerPort, () => undefined);
    const forkGate = client.gate(new AbortController().signal, undefined);
    for (let i = 0; i < 3; i++) await expect(forkGate.acquire(10)).resolves.toBe(true);
    expect(gate.stats().inFlight).toBe(3);
    // No answer is awaited for these: the worker returns its result at once, and the engine closes the channel.
    for (let i = 0; i < 3; i++) await expect(forkGate.release('ok', false)).resolves.toBe(false);
    channel.close();
    expect(gate.stats().inFlight).toBe(0);
  });
});

