// From-source runs only: a plain Worker cannot start on a .ts file even with `--import tsx`
// (the entry is resolved before the hooks apply), so it starts here and imports the real entry.
import { pathToFileURL } from 'node:url';

await import(pathToFileURL(process.argv[2]).href);
