/**
 * The results as one self-contained HTML file (bench/results/<date>-<mode>.html): the markdown
 * report rendered (one source of truth: the same tables and text) with the run's charts inline as
 * SVG, each after its section. Nothing is fetched when it opens: inline CSS, no script, no image or
 * link to anywhere; raw HTML in the markdown (an error message, say) is shown as text, and a policy
 * in the file forbids anything else.
 */
import { Marked, type Tokens } from 'marked';

export interface InlineChart {
  /** Its file beside the results (chart.svg, scaling.svg): named in the caption. */
  name: string;
  svg: string;
  /** The section (a `## ` heading's text) it follows; a chart whose section is absent goes at the end. */
  section: RegExp;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

const markdown = new Marked({ gfm: true, async: false });
markdown.use({
  renderer: {
    // Raw HTML is shown as what it is: text.
    html({ text }: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(text);
    },
    // A link or an image is its text: the file opens nothing and fetches nothing.
    link({ tokens }: Tokens.Link): string {
      return this.parser.parseInline(tokens);
    },
    image({ text }: Tokens.Image): string {
      return escapeHtml(text);
    },
  },
});

function toHtml(md: string): string {
  // Wide tables scroll on their own rather than widening the page.
  return (markdown.parse(md) as string).replace(/<table>/g, '<div class="table"><table>').replace(/<\/table>/g, '</table></div>');
}

/** The chart as a figure; an SVG of bench/report/ (chart.ts, scaling.ts), which escape their text. */
function figure(chart: InlineChart): string {
  const svg = chart.svg.replace(/^<\?xml[^>]*>\s*/, '');
  if (!/^<svg[\s>]/.test(svg)) throw new Error(`html report: ${chart.name} is not an SVG`);
  return `<figure>${svg}<figcaption>${escapeHtml(chart.name)}</figcaption></figure>\n`;
}

const STYLE = `
:root { color-scheme: light; --ink: #1d2430; --muted: #5b6472; --line: #d6dbe3; --head: #f3f5f8; }
body { margin: 0 auto; max-width: 1200px; padding: 24px 32px 64px; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: var(--ink); }
h1 { font-size: 24px; margin: 0 0 12px; }
h2 { font-size: 19px; margin: 36px 0 8px; padding-top: 12px; border-top: 1px solid var(--line); }
h3 { font-size: 16px; margin: 24px 0 6px; }
h4 { font-size: 14px; margin: 18px 0 6px; }
p { margin: 8px 0; max-width: 110ch; }
code { font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--head); padding: 1px 4px; border-radius: 3px; }
pre { background: var(--head); padding: 10px 12px; overflow-x: auto; }
pre code { background: none; padding: 0; }
.table { overflow-x: auto; margin: 10px 0 14px; }
table { border-collapse: collapse; font-size: 13px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--line); padding: 4px 8px; vertical-align: top; }
th { background: var(--head); text-align: left; font-weight: 600; }
tbody tr:nth-child(even) td { background: #fafbfc; }
figure { margin: 16px 0; overflow-x: auto; }
figure svg { max-width: 100%; height: auto; }
figcaption { color: var(--muted); font-size: 12px; }
`;

/**
 * The report's markdown as HTML, with each chart after its section (a `## ` heading and what
 * follows it up to the next one).
 */
export function renderHtml(md: string, charts: readonly InlineChart[]): string {
  const title = /^# (.*)$/m.exec(md)?.[1] ?? 'forkpool benchmarks';
  // Sections start at a `## ` line; a table or paragraph line never does.
  const sections = md.split(/^(?=## )/m);
  const placed = new Set<InlineChart>();
  const body = sections
    .map((section) => {
      const heading = /^## (.*)$/m.exec(section)?.[1];
      const here = heading === undefined ? [] : charts.filter((c) => !placed.has(c) && c.section.test(heading));
      for (const c of here) placed.add(c);
      return toHtml(section) + here.map(figure).join('');
    })
    .join('\n');
  const rest = charts.filter((c) => !placed.has(c));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}${rest.length > 0 ? `<h2>Charts</h2>\n${rest.map(figure).join('')}` : ''}</body>
</html>
`;
}
