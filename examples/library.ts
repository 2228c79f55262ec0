import { ForkEngine, defineTool, loadSession } from 'forkpool';
import { z } from 'zod';

const notes = new Map([['cache', 'keyed by prefix']]);
const lookup = defineTool({ name: 'lookup', description: 'Look a note up', parameters: z.object({ key: z.string() }),
  execute: ({ key }) => ({ value: notes.get(key) ?? null }) });   // runs on this thread, args checked by zod
const engine = await ForkEngine.create({ provider: { kind: 'local' }, tools: [lookup] }); // or { kind: 'gemini' }
// The model can call only the tools the session declares: notes-session.json declares lookup.
const prefix = engine.freeze(await loadSession('examples/notes-session.json'));    // once: its bytes → SharedArrayBuffer
const run = engine.fanOut(prefix, [
  { id: 'a', directive: 'What does the cache note say?\nCALL lookup {"key":"cache"}' },   // CALL: what the scripted
  { id: 'b', directive: 'What does the cli note say?\nCALL lookup {"key":"cli"}' },       // model calls (a real one decides)
]);
for await (const event of run.events()) if (event.type === 'tool_call') console.log(event.forkId, event.tool, event.status);
for (const r of await run.results()) console.log(r.id, r.status, r.text);
console.log(run.report().forks);
await engine.close();
