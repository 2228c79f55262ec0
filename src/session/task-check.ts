import { InputError, type InputErrorInit } from '../input/errors.js';
import { firstIssue, plainWords } from '../input/issues.js';
import { ForkTaskSchema, type ForkTask } from './schema.js';

/** How a checker names where a task is: by index in code (`tasks[3]`), by line in a file (`tasks.jsonl:3`). */
export interface TaskPlaces {
  /** Where the task at `position` is, for its error. */
  at(position: number): Pick<InputErrorInit, 'file' | 'line' | 'path'>;
  /** An earlier position as a rule names it (`tasks[3]`, `line 3`). */
  name(position: number): string;
  /** The rule for a value that is not an object. */
  notObject: string;
}

/** Tasks given in code: `tasks[3].directive: …`. */
export const INDEX_PLACES: TaskPlaces = {
  at: (index) => ({ path: `tasks[${index}]` }),
  name: (index) => `tasks[${index}]`,
  notObject: 'a task must be a JSON object ({ "id", "directive", … })',
};

/** Tasks read from a JSONL file: `tasks.jsonl:7: directive: …`. */
export function linePlaces(file: string | undefined): TaskPlaces {
  return {
    at: (line) => ({ ...(file === undefined ? {} : { file }), line }),
    name: (line) => `line ${line}`,
    notObject: 'each line must be a JSON object ({ "id", "directive", … })',
  };
}

/**
 * Checks tasks one at a time, as they are taken: the schema, and an id no earlier task has. The
 * index of ids (id → position) is the one thing kept per task, so that a repeat names both places.
 * Returns the caller's own object: a copy per task would cost memory per fork.
 */
export function createTaskChecker(places: TaskPlaces): (value: unknown, position: number) => ForkTask {
  const positionOfId = new Map<string, number>();
  return (value, position) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new InputError({ ...places.at(position), rule: places.notObject });
    const result = isPlainTask(value) ? undefined : ForkTaskSchema.safeParse(value, { error: plainWords });
    if (result !== undefined && !result.success) {
      const at = places.at(position);
      const { path, rule } = firstIssue(result.error);
      throw new InputError({ ...at, path: joinPath(at.path, path), rule });
    }
    const task = value as ForkTask;
    const earlier = positionOfId.get(task.id);
    if (earlier !== undefined) {
      const at = places.at(position);
      throw new InputError({
        ...at,
        path: joinPath(at.path, 'id'),
        rule: `${JSON.stringify(task.id)} repeats ${places.name(earlier)}; task ids must be unique`,
      });
    }
    positionOfId.set(task.id, position);
    return task;
  };
}

/**
 * The common task, `{ id, directive }` and nothing else, valid: what the schema would accept, known
 * without it (the schema's parse costs more than the rest of a fork's start on the main thread
 * while its code is cold, as it is in a process's first fan-out). Anything else goes to the schema.
 */
function isPlainTask(value: object): boolean {
  const task = value as { id?: unknown; directive?: unknown };
  return (
    Object.keys(value).length === 2 &&
    Object.hasOwn(value, 'id') &&
    Object.hasOwn(value, 'directive') &&
    typeof task.id === 'string' &&
    task.id.length > 0 &&
    typeof task.directive === 'string' &&
    task.directive.trim().length > 0
  );
}

function joinPath(prefix: string | undefined, path: string | undefined): string {
  if (!prefix) return path ?? '';
  if (!path) return prefix;
  return path.startsWith('[') ? `${prefix}${path}` : `${prefix}.${path}`;
}
