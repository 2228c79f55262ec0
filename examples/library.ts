import { ForkEngine, defineTool, type GeminiSession } from 'forkpool';
import { z } from 'zod';

const notes = new Map([['cache', 'keyed by prefix']]);
const lookup = defineTool({ name: 'lookup', description: 'Look a note up', parameters: z.object({ key: z.string() }),
  execute: ({ key }) => ({ value: notes.get(key) ?? null }) });   // runs on this thread, args checked by zod
const engine = await ForkEngine.create({ provider: { kind: 'local' }, tools: [lookup] }); // or { kind: 'gemini' }
// A session in Gemini's shape (or loadSession(path): a file in any shape). The model can call only
// the tools the session declares, so it declares lookup.
const session = {
  model: 'gemini-2.5-flash',
  systemInstruction: { parts: [{ text: 'Look a note up with the lookup tool before you answer; never guess.' }] },
  tools: [{ functionDeclarations: [lookup.declaration] }],
  history: [{ role: 'user', parts: [{ text: 'We keep short notes on forkpool, each under a one-word key.' }] },
    { role: 'model', parts: [{ text: 'Understood: I will look each note up by its key.' }] }],
} satisfies GeminiSession;
const prefix = engine.freeze(session);    // once: its bytes → SharedArrayBuffer
const run = engine.fanOut(prefix, [
  { id: 'a', directive: 'What does the cache note say?\nCALL lookup {"key":"cache"}' },   // CALL: what the scripted
  { id: 'b', directive: 'What does the cli note say?\nCALL lookup {"key":"cli"}' },       // model calls (a real one decides)
]);
for await (const event of run.events()) if (event.type === 'tool_call') console.log(event.forkId, event.tool, event.status);
for (const r of await run.results()) console.log(r.id, r.status, r.text);
console.log(run.report().forks);
await engine.close();
