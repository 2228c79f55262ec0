/*
 * The header: the run's figures, its connection and the "Stop run" button, which asks first (in
 * the page: "Stop all" or "Keep running"). Built once; render() only rewrites the texts that changed.
 */
import type { ConnectionStatus } from './connection.js';
import { h, setAttr, setText } from './dom.js';
import { DASH, duration, int, pct, usd } from './format.js';
import { STATES, type RunStore } from './store.js';

export interface SummaryView {
  element: HTMLElement;
  render(store: RunStore): void;
  /** Shown at the next render. */
  setStatus(status: ConnectionStatus): void;
}

function stat(label: string, ...value: (Node | string)[]): { box: HTMLElement; value: HTMLElement } {
  const v = h('div', { class: 'stat-value' }, ...value);
  return { box: h('div', { class: 'stat' }, h('div', { class: 'stat-label' }, label), v), value: v };
}

export function createSummary(title: string, onStopRun: () => Promise<boolean>): SummaryView {
  const model = h('span', { class: 'model' });
  const connection = h('span', { class: 'connection', 'data-testid': 'connection' }, 'connecting');
  const stopRun = h('button', { type: 'button', class: 'danger', 'data-testid': 'stop-run' }, 'Stop run');
  const stopAnswer = h('span', { class: 'answer', 'data-testid': 'stop-run-answer' });
  const confirmStop = h('button', { type: 'button', class: 'danger', 'data-testid': 'stop-run-confirm' }, 'Stop all');
  const keepRunning = h('button', { type: 'button', 'data-testid': 'stop-run-keep' }, 'Keep running');
  const confirmQuestion = h('span', { 'data-testid': 'stop-run-question' });
  const confirm = h(
    'span',
    { class: 'confirm', role: 'alertdialog', 'data-testid': 'stop-run-ask' },
    confirmQuestion,
    confirmStop,
    keepRunning,
  );
  confirm.hidden = true;
  stopRun.hidden = true;
  let stopAsked = false;
  let confirming = false;
  let unended = 0;
  let status: ConnectionStatus | 'connecting' = 'connecting';
  stopRun.addEventListener('click', () => {
    confirming = true;
    setText(confirmQuestion, `Stop every fork of the run (${unended} not ended)?`);
    confirm.hidden = false;
    stopRun.hidden = true;
    confirmStop.focus();
  });
  keepRunning.addEventListener('click', () => {
    confirming = false;
    confirm.hidden = true;
    stopRun.hidden = false;
  });
  confirmStop.addEventListener('click', () => {
    confirming = false;
    confirm.hidden = true;
    stopRun.hidden = false;
    stopAsked = true;
    stopRun.disabled = true;
    setText(stopAnswer, 'stopping…');
    onStopRun().then(
      (stopped) => setText(stopAnswer, stopped ? 'stop requested' : 'nothing to stop'),
      (err: unknown) => {
        stopAsked = false;
        stopRun.disabled = false;
        setText(stopAnswer, `stop failed: ${String(err)}`);
      },
    );
  });

  const elapsed = stat('Elapsed');
  const counts = new Map<string, HTMLElement>();
  const forkParts: Node[] = [];
  for (const state of [...STATES, 'total'] as const) {
    const n = h('span', { 'data-testid': `state-count-${state}` }, '0');
    counts.set(state, n);
    forkParts.push(h('span', { class: `count state-${state}` }, n, ` ${state}`));
  }
  const forks = stat('Forks', ...forkParts);
  forks.box.classList.add('wide');
  const tokens = stat('Tokens (prompt · cached · output)');
  const hit = stat('Hit rate');
  const efficiency = stat('Efficiency vs max');
  efficiency.value.dataset.testid = 'efficiency';
  tokens.value.dataset.testid = 'tokens';
  hit.value.dataset.testid = 'hit-rate';
  // What a report's result lines do not carry, said plainly.
  const lacks = h('p', { class: 'muted lacks', 'data-testid': 'lacks' });
  // Shown only where the provider reports them, and when an answer was not whole.
  const written = stat('Written to cache');
  written.value.dataset.testid = 'cache-writes';
  const reasoning = stat('Reasoning (of output)');
  reasoning.value.dataset.testid = 'reasoning';
  const cut = stat('Answers not whole');
  cut.box.classList.add('wide', 'cut');
  cut.value.dataset.testid = 'cut-answers';
  const cost = stat('Cost');
  const gate = stat('Call gate');
  const workers = stat('Workers');
  workers.box.classList.add('wide');
  workers.value.dataset.testid = 'workers';

  const element = h(
    'header',
    { class: 'summary', 'data-testid': 'summary' },
    h('div', { class: 'title-line' }, h('h1', {}, title), model, connection, h('span', { class: 'spacer' }), stopAnswer, stopRun, confirm),
    h(
      'div',
      { class: 'stats' },
      elapsed.box,
      forks.box,
      tokens.box,
      written.box,
      reasoning.box,
      hit.box,
      efficiency.box,
      cost.box,
      cut.box,
      gate.box,
      workers.box,
    ),
    lacks,
  );

  return {
    element,
    render(store) {
      // Written here, with the figures: the page never shows a status of one moment over the figures of another.
      setText(connection, status);
      setAttr(connection, 'data-status', status);
      const s = store.summary;
      setText(model, [s.provider, s.model].filter((x) => x !== '').join(' · '));
      setText(elapsed.value, duration(store.elapsedNow()));
      for (const state of [...STATES, 'total'] as const) {
        const el = counts.get(state);
        if (el) setText(el, state === 'total' && !s.forks.totalKnown ? `${s.forks.total}+` : String(s.forks[state]));
      }
      unended = s.forks.queued + s.forks.running;
      setText(tokens.value, `${int(s.promptTokens)} · ${s.cachedTokens === null ? 'n/a' : int(s.cachedTokens)} · ${int(s.outputTokens)}`);
      written.box.hidden = s.cacheWriteTokens === undefined;
      setText(written.value, s.cacheWriteTokens === undefined ? DASH : int(s.cacheWriteTokens));
      reasoning.box.hidden = s.reasoningTokens === undefined;
      setText(reasoning.value, s.reasoningTokens === undefined ? DASH : int(s.reasoningTokens));
      cut.box.hidden = s.cutAnswers.length === 0;
      setText(cut.value, s.cutAnswers.map((c) => `${c.words} (${c.raw.join(', ')})`).join(' · '));
      setText(hit.value, pct(s.hitRate));
      // Each fork's maximum is known when it ends: while some run, the figure is the ended forks'.
      const ended = s.forks.completed + s.forks.failed + s.forks.cancelled;
      setText(
        efficiency.value,
        `${pct(s.efficiency)} (max ${int(s.theoreticalCachedTokens)} cached${!s.ended && ended < s.forks.total ? `, of the ${ended} ended forks` : ''})`,
      );
      lacks.hidden = s.lacks === undefined;
      setText(lacks, s.lacks ? `These result lines do not carry ${s.lacks.join('; ')}.` : '');
      cost.box.hidden = s.costUsd === undefined;
      setText(cost.value, usd(s.costUsd));
      gate.box.hidden = s.gate === undefined;
      if (s.gate) {
        const g = s.gate;
        setText(gate.value, `${g.inFlight} / ${g.limit} in flight · ${g.waiting} waiting · ${g.rateLimited} 429s · ${g.retries} retries`);
      }
      workers.box.hidden = s.workers === undefined;
      if (s.workers) {
        setText(workers.value, s.workers.length === 0 ? DASH : s.workers.map(workerText).join(' · '));
      }
      if (s.ended) {
        confirming = false;
        confirm.hidden = true;
      }
      stopRun.hidden = !store.live || confirming;
      stopRun.disabled = s.ended || stopAsked;
    },
    setStatus(next) {
      status = next;
    },
  };
}

/** `host:1: 12 done, runs a, b`: a worker's finished forks and those it runs now (the first few named). */
function workerText(w: NonNullable<RunStore['summary']['workers']>[number]): string {
  const shown = w.running.slice(0, 3).join(', ');
  const more = w.running.length > 3 ? ` +${w.running.length - 3}` : '';
  return `${w.id}: ${w.forks} done${w.running.length > 0 ? `, runs ${shown}${more}` : ''}`;
}
