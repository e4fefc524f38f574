import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { createTemplates, renderInLayout, TEMPLATES_DIR } from '../../../src/web/templates';
import { toCsv } from '../../../src/web/csv';

function templates(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? templates(full) : full.endsWith('.eta') ? [full] : [];
  });
}

/**
 * The only raw (unescaped) outputs: the layout writes the page's body, and a template includes a
 * partial; both were rendered (and escaped) by their own templates.
 */
const RAW_ALLOWED = new Map([['layout.eta', ['<%~ it.renderedPage %>']]]);
const isInclude = (raw: string) => /^<%~ include\('\.\/[\w-]+', [^%]*\) %>$/.test(raw);

describe('templates', () => {
  it('escape every value: raw output appears only where it is listed', () => {
    for (const file of templates(TEMPLATES_DIR)) {
      const name = path.relative(TEMPLATES_DIR, file);
      const raw = (readFileSync(file, 'utf8').match(/<%~[^%]*%>/g) ?? []).filter((r) => !isInclude(r));
      expect([name, raw]).toEqual([name, RAW_ALLOWED.get(name) ?? []]);
    }
  });

  it('hold no inline script, event handler or style attribute (the Content-Security-Policy would block them)', () => {
    for (const file of templates(TEMPLATES_DIR)) {
      const text = readFileSync(file, 'utf8');
      expect([file, /<script(?![^>]*\bsrc=)[^>]*>/.test(text)]).toEqual([file, false]);
      expect([file, /\son[a-z]+=/.test(text)]).toEqual([file, false]);
      expect([file, /\sstyle=/.test(text)]).toEqual([file, false]);
    }
  });

  it("writes only the page's own rendered template raw in the layout, never a value of the page's, whatever its name", () => {
    const eta = createTemplates({ cache: false });
    const hostile = '<script>alert(1)</script>';
    const html = renderInLayout(
      eta,
      {
        url: (p: string) => p,
        htmx: '/static/htmx.js',
        csrf: 'token',
        title: hostile,
        nav: [{ path: '/', label: hostile }],
        // A page's values named like the layout's raw slot (or its old name) do not reach it.
        renderedPage: hostile,
        body: hostile,
      },
      '<p id="page">the page</p>',
    );
    expect(html).toContain('<main id="main">\n<p id="page">the page</p>');
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('has the layout rendered only through renderInLayout', () => {
    const sources = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const full = path.join(dir, name);
        return statSync(full).isDirectory() ? sources(full) : full.endsWith('.ts') ? [full] : [];
      });
    const direct = sources(path.join(TEMPLATES_DIR, '..', '..'))
      .filter((file) => !file.endsWith(path.join('web', 'templates.ts')))
      .filter((file) => /render\(\s*['"`]layout['"`]/.test(readFileSync(file, 'utf8')));
    expect(direct).toEqual([]);
  });

  it('renders a value with markup as text', () => {
    const eta = createTemplates({ cache: false });
    const html = eta.renderString('<p><%= it.v %></p><a title="<%= it.v %>">', {
      v: '"><img src=x onerror=alert(1)><script>x</script>',
    });
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    expect(html).toContain('&quot;&gt;&lt;img');
  });
});

describe('CSV', () => {
  it('quotes fields and defuses spreadsheet formulas', () => {
    expect(toCsv([['a,b', 'say "hi"', '=HYPERLINK("x")', '-12.50', '@cmd', null]])).toBe(
      '"a,b","say ""hi""","\'=HYPERLINK(""x"")",-12.50,\'@cmd,\r\n',
    );
  });
});
