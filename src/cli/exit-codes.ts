import { constants } from 'node:os';

/*
 * One table of exit codes for every command, each code meaning one thing (docs/exit-codes.md says
 * the same at length). Every command's --help ends with it.
 */

export const EXIT_CODES_HELP = `Exit codes (the same for every command; docs/exit-codes.md):
  0      every task completed with a whole answer; a command without tasks did its work
         (serve and worker: stopped when asked, by SIGINT or SIGTERM, their work in flight done)
  1      the run ended short of that: a fork or the parent failed or was cancelled, a budget or
         cost cap stopped it, an answer was cut at the output limit or refused, a bad line came
         from stdin after forks ran; or the command could not do its work (e.g. Redis unreachable)
  2      nothing ran: bad usage or bad input (the message names the flag, or the file and line)
  128+N  run or prompt stopped by signal N: 130 SIGINT, 143 SIGTERM (finished results are kept)
  For example, \`forkpool run --session s.json --tasks t.jsonl; echo $?\` prints 2 when a line of
  t.jsonl is not a task (the message names the line; no fork ran), 1 when a fork failed, 0 when
  every fork completed`;

/** The shell's exit code for a process a signal stopped: 128 + the signal's number (SIGINT 130, SIGTERM 143). */
export function exitCodeOfSignal(signal: NodeJS.Signals): number {
  return 128 + constants.signals[signal];
}
