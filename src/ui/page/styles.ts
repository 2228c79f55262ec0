/* The page's stylesheet, inlined in a <style> with the page's nonce. */

export const PAGE_CSS = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #656d76; --line: #d0d7de; --panel: #f6f8fa; --hover: #eef3fb; --sel: #dbe8fd;
  --queued: #8c959f; --running: #2f6fde; --completed: #1f883d; --failed: #cf222e; --cancelled: #bf8700;
  font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #8d96a0; --line: #30363d; --panel: #161b22; --hover: #1c2430; --sel: #1f3457;
    --queued: #8d96a0; --running: #58a6ff; --completed: #3fb950; --failed: #f85149; --cancelled: #d29922;
  }
}
* { box-sizing: border-box; }
html, body { height: 100%; margin: 0; }
body { background: var(--bg); color: var(--fg); display: flex; flex-direction: column; overflow: hidden; }
h1 { font-size: 16px; margin: 0; }
h2 { font-size: 13px; margin: 0 0 4px; }
h3 { font-size: 12px; margin: 14px 0 4px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
button { font: inherit; padding: 3px 10px; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); color: var(--fg); cursor: pointer; }
button:disabled { opacity: .5; cursor: default; }
button.danger:not(:disabled) { border-color: var(--failed); color: var(--failed); }
input[type=search] { font: inherit; padding: 3px 8px; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); min-width: 16rem; }
table { border-collapse: collapse; }
th, td { text-align: left; padding: 2px 10px 2px 0; vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: var(--muted); }
.error { color: var(--failed); }
.spacer { flex: 1; }
.answer { color: var(--muted); }
.confirm { display: inline-flex; align-items: center; gap: 8px; }
.lacks { margin: 6px 0 0; }
[hidden] { display: none !important; }

.summary { padding: 10px 16px; border-bottom: 1px solid var(--line); background: var(--panel); flex: none; }
.title-line { display: flex; align-items: center; gap: 12px; margin-bottom: 8px; }
.model { color: var(--muted); }
.connection { font-size: 11px; padding: 1px 8px; border-radius: 10px; border: 1px solid var(--line); }
.connection[data-status=live] { color: var(--completed); border-color: var(--completed); }
.connection[data-status=disconnected] { color: var(--failed); border-color: var(--failed); }
.stats { display: flex; flex-wrap: wrap; gap: 6px 28px; }
.stat-label { font-size: 11px; color: var(--muted); }
.stat-value { font-size: 14px; font-variant-numeric: tabular-nums; }
.count { margin-right: 12px; white-space: nowrap; }
.count [data-testid] { font-weight: 600; }
.state-queued { --c: var(--queued); } .state-running { --c: var(--running); } .state-completed { --c: var(--completed); }
.state-failed { --c: var(--failed); } .state-cancelled { --c: var(--cancelled); } .state-total, .state-all { --c: var(--fg); }
.count [data-testid] { color: var(--c); }

main { flex: 1; min-height: 0; display: flex; }
.forks { flex: 1; min-width: 0; display: flex; flex-direction: column; }
.charts { display: flex; flex-wrap: wrap; gap: 8px 24px; padding: 8px 16px; border-bottom: 1px solid var(--line); flex: none; }
.chart-panel { min-width: 0; }
.timeline-panel { flex: 3 1 480px; }
.figures-panel { flex: 2 1 320px; }
.timeline-panel.untimed { flex: 0 1 auto; }
.chart-head { display: flex; align-items: baseline; gap: 4px 12px; flex-wrap: wrap; margin-bottom: 4px; }
.chart-head h2 { margin: 0; }
.chart-box canvas { display: block; width: 100%; color: var(--muted); }
.timeline-panel canvas { cursor: pointer; }
.legend { display: flex; flex-wrap: wrap; gap: 2px 12px; font-size: 11px; color: var(--muted); }
.legend-value { color: var(--fg); font-variant-numeric: tabular-nums; }
.swatch { display: inline-block; width: 10px; height: 3px; margin-right: 4px; vertical-align: middle; border-radius: 1px; }
.note { margin: 0; }
.misses { padding: 8px 16px; border-bottom: 1px solid var(--line); flex: none; max-height: 9rem; overflow: auto; }
.misses p { margin: 0; }
.parent { padding: 8px 16px; border-bottom: 1px solid var(--line); flex: none; max-height: 14rem; overflow: auto; }
.parent p { margin: 0 0 4px; }
.parent-state[data-state=running] { color: var(--running); } .parent-state[data-state=completed] { color: var(--completed); }
.parent-state[data-state=failed] { color: var(--failed); } .parent-state[data-state=cancelled] { color: var(--cancelled); }
.parent-table { width: 100%; }
.parent-calls .call { display: inline-block; margin-right: 10px; white-space: nowrap; }
.parent-reply { white-space: pre-wrap; word-break: break-word; max-width: 60ch; }
button.link { border: none; background: none; padding: 0; color: var(--running); text-decoration: underline; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
.toolbar { display: flex; align-items: center; gap: 6px; padding: 8px 16px; flex: none; flex-wrap: wrap; }
.filter { border-left: 3px solid var(--c); }
.filter[aria-pressed=true] { background: var(--sel); font-weight: 600; }
.filter-count { font-variant-numeric: tabular-nums; color: var(--muted); }
.shown { margin-left: 8px; }

.list-section { flex: 1; min-height: 0; display: flex; }
.list { flex: 1; overflow: auto; position: relative; contain: strict; }
.list-head, .row {
  display: grid; align-items: center; min-width: 1190px;
  grid-template-columns: minmax(120px, 180px) 90px 120px 62px 62px 170px 84px 166px 120px minmax(160px, 1fr);
}
.list-head { position: sticky; top: 0; z-index: 1; background: var(--panel); border-bottom: 1px solid var(--line); height: 26px; font-weight: 600; color: var(--muted); }
.list-spacer { position: relative; min-width: 1190px; }
.row { position: absolute; top: 0; left: 0; right: 0; height: 30px; border-bottom: 1px solid var(--line); cursor: pointer; contain: layout paint; }
.row:hover { background: var(--hover); }
.row.selected { background: var(--sel); }
.row:focus-visible { outline: 2px solid var(--running); outline-offset: -2px; }
.cell { padding: 0 8px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.list-head .cell { padding-top: 4px; padding-bottom: 4px; }
.c-id { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
.c-num, .c-tokens { text-align: right; font-variant-numeric: tabular-nums; }
.row[data-state=queued] .c-state { color: var(--queued); } .row[data-state=running] .c-state { color: var(--running); }
.row[data-state=completed] .c-state { color: var(--completed); } .row[data-state=failed] .c-state { color: var(--failed); }
.row[data-state=cancelled] .c-state { color: var(--cancelled); }
.row[data-state=completed]:not([data-cut='']) .c-state, .stat.cut .stat-value { color: var(--cancelled); font-weight: 600; }
.row .c-error { color: var(--failed); }
.c-bar { display: flex; align-items: center; }
.span-bar { display: block; }
.empty { padding: 12px 16px; }

.detail { width: min(560px, 45vw); flex: none; border-left: 1px solid var(--line); overflow: auto; padding: 10px 16px; background: var(--bg); }
.detail-head { display: flex; align-items: center; gap: 8px; position: sticky; top: -10px; background: var(--bg); padding: 4px 0; }
.detail-head h2 { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 14px; margin: 0; word-break: break-all; }
.close { padding: 0 8px; font-size: 16px; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 0; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; word-break: break-word; }
pre.text { white-space: pre-wrap; word-break: break-word; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 8px; max-height: 24rem; overflow: auto; margin: 0; font-size: 12px; }
`;
