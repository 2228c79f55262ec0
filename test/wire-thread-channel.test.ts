// Internal: a pool thread's one channel shared by its forks (src/wire/mux.ts, src/engine/thread-channels.ts,
// src/fork-thread/thread-channel.ts), played by a real thread running the built fork end; the engine's
// forks are its public face (test/engine*.test.ts run them through it).
import { EventEmitter } from 'node:events';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createCallGate } from '../src/engine/call-gate.js';
import { openForkChannel } from '../src/engine/host-end.js';
import { linkThreads, openLink } from '../src/engine/thread-channels.js';
import { defineTool } from '../src/tools/define.js';
import { createToolHost, type ToolHost } from '../src/tools/host.js';
import { createOutbox, type ChannelMessage } from '../src/wire/mux.js';
import type { ForkLink, WorkerEvent } from '../src/wire/protocol.js';

const DIST = pathToFileURL(fileURLToPath(new URL('../dist/src/', import.meta.url))).href;

/**
 * A thread that plays forks the way a pool thread does (its channel opened at its first fork, over
 * parentPort): each fork reports 20 turns, looks its name up on the main thread, then waits for the
 * word meant for it (stop, a message or a cancel) and ends with what it got. `crash` exits the thread
 * once the fork has spoken; `unsendable` puts a function in its result; what a fork hears when its
 * channel closes goes back on parentPort.
 */
const FORK_THREAD = `
const { parentPort } = require('node:worker_threads');
(async () => {
  const { forkPortOf } = await import(${JSON.stringify(`${DIST}fork-thread/thread-channel.js`)});
  const { connectHost } = await import(${JSON.stringify(`${DIST}wire/fork-end.js`)});
  parentPort.on('message', async ({ link, name, crash, unsendable }) => {
    let word;
    const host = connectHost(forkPortOf(link), () => (word ??= 'cancel'), undefined, (why) => (word ??= 'stop ' + why));
    for (let n = 1; n <= 20; n++) host.report({ type: 'turn', turn: n, usage: { promptTokens: 1, cachedTokens: 0, outputTokens: 1 }, functionCalls: 0 });
    if (crash) process.exit(1);
    const found = await host.execTool({ name: 'lookup', args: { q: name } }, new AbortController().signal, 5000);
    if (!found.ok) return parentPort.postMessage({ name, heard: found.error.kind });
    while (word === undefined) {
      const messages = host.takeMessages();
      if (messages.length > 0) word = 'message ' + messages.join();
      else await new Promise((resolve) => setTimeout(resolve, 5));
    }
    host.end({ id: name, status: 'completed', text: found.value.response.output.found + ':' + word, turns: 20, ...(unsendable ? { output: () => 0 } : {}) });
  });
  parentPort.postMessage({ ready: true });
})();`;

const lookup = defineTool({
  name: 'lookup',
  description: 'd',
  parameters: z.object({ q: z.string() }),
  execute: ({ q }) => ({ found: q.toUpperCase() }),
});

const workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.terminate()));
});

/** A thread and a pool stand-in that passes on what the thread posts, as Piscina's 'message' event does. */
async function forkThread() {
  const worker = new Worker(FORK_THREAD, { eval: true });
  workers.push(worker);
  const pool = new EventEmitter();
  const heard: { name: string; heard: string }[] = [];
  await new Promise<void>((ready) =>
    worker.on('message', (message: { ready?: true; name?: string; heard?: string }) => {
      if (message.ready) ready();
      else if (message.name !== undefined && message.heard !== undefined) heard.push({ name: message.name, heard: message.heard });
      else pool.emit('message', message);
    }),
  );
  // The stand-in has Piscina's 'message' event, not its type: Piscina's `on` returns the Piscina itself.
  linkThreads(pool as unknown as Parameters<typeof linkThreads>[0]);
  const gate = createCallGate({ maxInFlight: 8 });
  const host = createToolHost([lookup]);
  const fork = (name: string, toolHost: ToolHost = host) => {
    const opened = openLink(pool);
    const events: number[] = [];
    // Whether the main thread's end heard its channel close (the fork's thread closed it, or the main thread did).
    let closed = false;
    const end = opened.end;
    const channel = openForkChannel({
      port: {
        postMessage: (message) => end.postMessage(message),
        on: (event, listener) => end.on(event, listener),
        once: (event, listener) =>
          end.once(event, () => {
            closed = true;
            listener();
          }),
        close: () => end.close(),
        removeAllListeners: () => end.removeAllListeners(),
      },
      host: toolHost,
      gate,
      policy: { forkId: name, declaredTools: new Set(['lookup']), spawnTools: new Set<string>() },
      onEvent: (event: WorkerEvent) => event.type === 'turn' && events.push(event.turn),
      onToolCall: () => undefined,
      admit: () => true,
    });
    const start = (crash = false, unsendable = false) =>
      worker.postMessage({ link: opened.link satisfies ForkLink, name, crash, unsendable });
    // What the fork had reported when its result arrived.
    const result = channel.result.then((r) => ({ result: r, eventsBefore: events.length }));
    return { channel, start, result, link: opened.link, closed: () => closed };
  };
  return { fork, heard };
}

describe("a pool thread's channel, shared by its forks", () => {
  it('carries each fork its own answers and words, and each fork its events before its result', async () => {
    const { fork } = await forkThread();
    const [a, b, c] = [fork('a'), fork('b'), fork('c')];
    expect(a.link).not.toEqual(b.link);
    // Sent before the thread has opened the fork: it waits, and follows once the fork speaks.
    b.channel.send('hello b');
    for (const f of [a, b, c]) f.start();
    a.channel.stop('budget');
    c.channel.cancel();
    const results = await Promise.all([a, b, c].map((f) => f.result));
    expect(results.map(({ result }) => result?.status === 'completed' && result.text)).toEqual([
      'A:stop budget',
      'B:message hello b',
      'C:cancel',
    ]);
    expect(results.map(({ eventsBefore }) => eventsBefore)).toEqual([20, 20, 20]);
    // A fork's result closes its channel from the thread's side, in the same post: the main thread has nothing to close.
    expect([a, b, c].map((f) => f.closed())).toEqual([true, true, true]);
    for (const f of [a, b, c]) f.channel.close();
  });

  it('a fork whose channel the main thread closed before its thread opened it hears it closed', async () => {
    const { fork, heard } = await forkThread();
    const late = fork('late');
    late.channel.close();
    late.start();
    // The next fork on the thread ends normally, and by then the closed one has heard.
    const next = fork('next');
    next.start();
    next.channel.stop('cost');
    await expect(next.result).resolves.toMatchObject({ result: { text: 'NEXT:stop cost' } });
    await expect.poll(() => heard).toEqual([{ name: 'late', heard: 'host_gone' }]);
    next.channel.close();
  });

  it('an answer structured clone refuses reaches the fork as a failed call, not as silence', async () => {
    const { fork, heard } = await forkThread();
    // A host whose outcome holds a function: the answer cannot be cloned when its batch is posted.
    const unclonable: ToolHost = {
      execute: async () => ({ ok: true, response: { output: { found: () => 'x' } } }) as never,
      longestTimeoutMs: 5000,
      with: () => unclonable,
    };
    const odd = fork('odd', unclonable);
    odd.start();
    await expect.poll(() => heard).toEqual([{ name: 'odd', heard: 'host_gone' }]);
    odd.channel.close();
  });

  it("a result structured clone refuses arrives as the fork's failure saying so, and the fork's channel closes", async () => {
    const { fork } = await forkThread();
    const [odd, next] = [fork('odd'), fork('next')];
    // Ending in the same turn of their thread, their results share a post: the clonable one still arrives.
    for (const f of [odd, next]) f.channel.stop('budget');
    odd.start(false, true);
    next.start();
    const [a, b] = await Promise.all([odd.result, next.result]);
    expect(a.result).toMatchObject({ id: 'odd', status: 'failed', error: { kind: 'error' } });
    expect(a.result?.status === 'failed' && a.result.error.message).toMatch(/^the fork's result could not be sent: /);
    expect(b.result).toMatchObject({ id: 'next', status: 'completed', text: 'NEXT:stop budget' });
    // After the refusal each envelope of the batch goes in a post of its own: the closes follow.
    await expect.poll(() => [odd.closed(), next.closed()]).toEqual([true, true]);
    for (const f of [odd, next]) f.channel.close();
  });

  it("a thread that dies closes its forks' channels: their results are undefined, not awaited for ever", async () => {
    const { fork } = await forkThread();
    const doomed = fork('doomed');
    doomed.start(true);
    await expect(doomed.result.then(({ result }) => result)).resolves.toBeUndefined();
  });

  it('says when what waits has been posted', async () => {
    const posted: ChannelMessage[] = [];
    const outbox = createOutbox({ postMessage: (message) => posted.push(message) }, () => undefined);
    await outbox.posted();
    outbox.send({ fork: 1, control: 'open' });
    const after = outbox.posted().then(() => posted.length);
    expect(posted).toEqual([]);
    await expect(after).resolves.toBe(1);
  });

  it('says so even when an envelope could not be sent and its handler failed too: the rest of the batch still goes', async () => {
    const posted: ChannelMessage[] = [];
    const refuses = (message: ChannelMessage): boolean => Array.isArray(message) || (message as { fork: number }).fork === 1;
    const outbox = createOutbox(
      {
        postMessage: (message) => {
          if (refuses(message)) throw new Error('could not be cloned');
          posted.push(message);
        },
      },
      () => {
        throw new Error('the handler failed as well');
      },
    );
    outbox.send({ fork: 1, message: { type: 'result' } });
    outbox.send({ fork: 2, control: 'close' });
    await expect(outbox.posted()).resolves.toBeUndefined();
    expect(posted).toEqual([{ fork: 2, control: 'close' }]);
  });

  it('sends what a turn of the event loop sent in one post, in order, even under fake timers (they replace the global setImmediate)', async () => {
    vi.useFakeTimers();
    try {
      const posted: ChannelMessage[] = [];
      const outbox = createOutbox({ postMessage: (message) => posted.push(message) }, () => undefined);
      outbox.send({ fork: 1, control: 'open' });
      outbox.send({ fork: 1, message: { type: 'reopen' } });
      await nextTurn();
      outbox.send({ fork: 2, control: 'close' });
      await nextTurn();
      expect(posted).toEqual([
        [
          { fork: 1, control: 'open' },
          { fork: 1, message: { type: 'reopen' } },
        ],
        { fork: 2, control: 'close' },
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});
