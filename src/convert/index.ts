import { InputError } from '../input/errors.js';
import { parseSession } from '../session/parse.js';
import { ConversionError, type DroppedItem, Issues } from '../shapes/convert-issues.js';
import { allShapes, formatList, type ParentSession, type SessionFormat, sessionMessages, shapeNamed, shapeOf } from '../shapes/registry.js';
import type { ConvertFacet, Shape } from '../shapes/shape.js';

/*
 * Converting a session from one API shape to another, through the neutral hub form
 * (src/shapes/hub.ts): the source shape's convert facet reads the session into the hub, the
 * target's writes it out, so every pair of registered shapes converts where both directions exist.
 * Never done silently: `forkpool convert`, `convertSession` and the Qwen Code importer (a session
 * recorded through another API) are the only ways. Each shape's rules are at the top of its
 * convert.ts, and for users in docs/converting.md.
 */

export { ConversionError, type DroppedItem } from '../shapes/convert-issues.js';

export interface ConvertOptions {
  /** Leave out what the target shape cannot represent, and list it in `dropped`, instead of throwing. */
  dropUnsupported?: boolean;
  /** The file the session came from: errors then read `file: path: rule`. */
  source?: string;
}

export interface ConversionResult {
  /** A valid session of the target shape (parseSession accepts it); it shares no object with the input. */
  session: ParentSession;
  from: SessionFormat;
  to: SessionFormat;
  /** Messages in the source (history Contents, messages, or input items) and in the result. */
  messages: { from: number; to: number };
  /** Function tools declared in the result. */
  tools: number;
  /** What was left out: thought parts always, unsupported items with `dropUnsupported`. */
  dropped: DroppedItem[];
  /** Facts about the result (a required setting the source had no value for, filled in). */
  notes: string[];
}

/** The shapes a session can be converted to: every registered shape that writes from the hub. */
export function conversionTargets(): string[] {
  return allShapes()
    .filter((shape) => typeof facet(shape).fromHub === 'function')
    .map((shape) => shape.format);
}

/**
 * Converts a session to another API shape, through the hub. The input is validated first
 * (InputError); an item the target cannot represent throws a ConversionError naming its path
 * (`history[3].parts[1]: inlineData cannot be converted to openai-chat`), unless
 * `dropUnsupported` is set; a shape that does not convert one way says why (a ConversionError).
 */
export function convertSession(session: ParentSession, to: SessionFormat, options: ConvertOptions = {}): ConversionResult {
  const targets = conversionTargets();
  if (!targets.includes(to)) throw new TypeError(`convertSession: "to" must be ${formatList(targets)}, not ${JSON.stringify(to)}`);
  const file = options.source;
  const at = file === undefined ? {} : { file };
  const input = parseSession(session, file);
  const source = shapeOf(input);
  const target = shapeNamed(to);
  if (source === target) throw new ConversionError({ ...at, rule: `is already a ${to} session; nothing to convert` });
  const toHub = facet(source).toHub;
  if (typeof toHub !== 'function') throw new ConversionError({ ...at, rule: toHub.refused });
  const fromHub = facet(target).fromHub as Exclude<ConvertFacet['fromHub'], { refused: string }>;
  const issues = new Issues(to, options.dropUnsupported === true, file);
  const converted = fromHub(toHub(input, issues), issues) as ParentSession;
  // Opaque values (args, responses, schemas) were carried over by reference: the result owns its copy.
  const output = structuredClone(converted);
  checkConverted(output, to, file);
  return {
    session: output,
    from: source.format as SessionFormat,
    to,
    messages: { from: sessionMessages(input).length, to: sessionMessages(output).length },
    tools: facet(target).toolCount(output),
    dropped: issues.dropped,
    notes: issues.notes,
  };
}

function facet(shape: Shape): ConvertFacet {
  return shape.convert;
}

/** A converted session the target's validation refuses: the converter missed a rule. Say where, in the result's terms. */
function checkConverted(session: ParentSession, to: SessionFormat, file: string | undefined): void {
  try {
    parseSession(session);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    const where = err.path ? `${err.path} of the converted session` : 'the converted session';
    throw new ConversionError({ ...(file === undefined ? {} : { file }), rule: `cannot be converted to ${to}: ${where} ${err.rule}` });
  }
}
