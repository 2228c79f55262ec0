import { z } from 'zod';

/** What the docs say of an option beside its type, default and range (which the schema gives). */
interface OptionDoc {
  /** What it does, for its row in docs/options.md. */
  description: string;
  /** Who decides when it is absent, where no fixed default applies ("the number of cores"). */
  defaultText?: string;
  /** What its value is, where the schema cannot say it (a function, an object of another module's). */
  valueText?: string;
}

/** Each option's doc, by its schema as declared. */
export const optionDocs = z.registry<OptionDoc>();

/** An option with its doc: the schema as given, registered where the docs, help and messages find it. */
export function option<S extends z.ZodType>(schema: S, doc: OptionDoc): S {
  optionDocs.add(schema as z.ZodType, doc);
  return schema;
}
