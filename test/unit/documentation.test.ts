import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ENVIRONMENT_VARIABLES } from '../../src/config/settings';
import { buildOpenApiDocument, openApiPath } from '../../src/http/openapi';
import { ROUTES } from '../../src/http/routes';

const README = readFileSync(path.join(__dirname, '../../README.md'), 'utf8');

describe('the README', () => {
  it('keeps the start and test commands in its first lines', () => {
    const top = README.split('\n').slice(0, 10).join('\n');
    expect(top).toContain('npm ci && npm start');
    expect(top).toContain('npm ci && npm test');
  });

  it.each([
    ...Object.keys(ENVIRONMENT_VARIABLES),
    'CONFIG_FILE',
    'SANDBOX_LATENCY_MS',
    'SANDBOX_REGISTRY',
    'SANDBOX_DISABLED_CAPABILITIES',
  ])('documents the setting %s in its configuration table', (name) => {
    expect(README).toMatch(new RegExp(`^\\| [^|]*\`${name}\``, 'm'));
  });

  it.each(ROUTES.map((r) => `${r.method.toUpperCase()} ${openApiPath(r.path)}`))(
    'lists the endpoint %s',
    (endpoint) => {
      expect(README).toContain(`\`${endpoint}\``);
    },
  );
});

// ---- links and citations: the repository explains itself ----

const ROOT = path.join(__dirname, '../..');

/** The files git knows or would add (tracked, or new and not ignored), or a walk of the tree without installed and generated folders when git is absent. */
function repositoryFiles(): string[] {
  try {
    return execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\0')
      .filter((f, i, all) => f !== '' && all.indexOf(f) === i && existsSync(path.join(ROOT, f)));
  } catch {
    const skip = new Set(['node_modules', 'dist', 'data', 'coverage', '.git']);
    const walk = (dir: string): string[] =>
      readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
        if (skip.has(e.name)) return [];
        const rel = dir ? `${dir}/${e.name}` : e.name;
        return e.isDirectory() ? walk(rel) : [rel];
      });
    return walk('');
  }
}

const FILES = repositoryFiles();
const MARKDOWN = FILES.filter((f) => f.endsWith('.md'));
const SOURCES = FILES.filter((f) => /\.(ts|js|json)$/.test(f) && !f.endsWith('package-lock.json'));
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** Markdown without fenced code blocks and inline code, where links are not links. */
const prose = (markdown: string) =>
  markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, heading] of withoutFences.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const text = heading!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  for (const [, id] of markdown.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(id!);
  return anchors;
}

/**
 * Why a link from the file `from` to `target` does not resolve inside the repository, or undefined
 * when it does. With `from` undefined, `target` is a path from the repository's root.
 */
function brokenLink(from: string | undefined, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto: …
  const [rawFile, anchor] = target.split('#', 2) as [string, string | undefined];
  const file = decodeURIComponent(rawFile);
  const base = from === undefined ? ROOT : path.dirname(path.join(ROOT, from));
  const resolved = file === '' && from !== undefined ? path.join(ROOT, from) : path.resolve(base, file);
  const relative = path.relative(ROOT, resolved);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return `${target} points outside the repository`;
  if (!existsSync(resolved)) return `${target}: ${relative} does not exist`;
  if (anchor !== undefined && anchor !== '') {
    if (!resolved.endsWith('.md')) return undefined;
    if (!anchorsOf(readFileSync(resolved, 'utf8')).has(anchor))
      return `${target}: ${relative} has no heading #${anchor}`;
  }
  return undefined;
}

/** References to documents that live outside the repository: the team's contract and notes. */
const OUTSIDE = [
  { pattern: /\.\.\/shared\/(?:spec|STYLE|epp-schemas)/, what: 'a path outside the repository' },
  { pattern: /\bdecisions\.md\b/i, what: 'a decisions file the repository does not have' },
  { pattern: /reseller-api-spec/i, what: 'a contract file the repository does not have' },
  { pattern: /\bSTYLE\.md\b/, what: 'a style guide the repository does not have' },
  {
    pattern: /\bspec(?:'s)?(?: sections?)? \d+(?:\.\d+)?\b/i,
    what: 'a numbered section of a contract the repository does not have',
  },
];

/** A document cited by path in prose or comments (`docs/api.md#transfer-sync`): it and its heading must exist. */
const CITED_DOC = /(?<![\w/.-])((?:docs|examples|bench)\/[\w./-]*\.md|README\.md|CONTRIBUTING\.md)(?:#([\w-]+))?/g;

function brokenCitations(file: string, text: string): string[] {
  const problems: string[] = [];
  for (const { pattern, what } of OUTSIDE) {
    const found = new RegExp(pattern.source, `${pattern.flags}g`);
    for (const m of text.matchAll(found)) problems.push(`${file}: "${m[0]}" cites ${what}`);
  }
  for (const [, doc, anchor] of text.matchAll(CITED_DOC)) {
    const problem = brokenLink(undefined, `${doc}${anchor ? `#${anchor}` : ''}`);
    if (problem) problems.push(`${file}: cites ${problem}`);
  }
  return problems;
}

describe('links and citations', () => {
  it('finds the markdown files and the sources to check', () => {
    expect(MARKDOWN).toContain('docs/api.md');
    expect(SOURCES).toContain('src/http/openapi.ts');
  });

  it.each(MARKDOWN)('resolves every link in %s (files and #anchors)', (file) => {
    const problems: string[] = [];
    for (const [, target] of prose(read(file)).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const problem = brokenLink(file, target!);
      if (problem) problems.push(problem);
    }
    for (const [, target] of read(file).matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)) {
      const problem = brokenLink(file, target!);
      if (problem) problems.push(problem);
    }
    expect(problems).toEqual([]);
  });

  it('cites only documents inside the repository, in the docs and in source comments', () => {
    const problems = [...MARKDOWN, ...SOURCES]
      .filter((f) => f !== 'test/unit/documentation.test.ts')
      .flatMap((f) => brokenCitations(f, read(f)));
    expect(problems).toEqual([]);
  });

  it('serves an OpenAPI document that cites only documents inside the repository', () => {
    const document = JSON.stringify(buildOpenApiDocument(ROUTES, { version: '0.0.0', basePath: '/base' }));
    expect(brokenCitations('/openapi.json', document)).toEqual([]);
  });

  it('tells an anchor from a heading as the repository host does', () => {
    const anchors = anchorsOf(
      '# The `epp` registrar plugin\n## 1. What you need\n## Sync\n## Sync\n```\n# not a heading\n```\n',
    );
    expect([...anchors]).toEqual(['the-epp-registrar-plugin', '1-what-you-need', 'sync', 'sync-1']);
  });

  it('reports a link to a missing file, a missing heading and a path outside the repository', () => {
    expect(brokenLink('docs/orders.md', 'api.md#authentication')).toBeUndefined();
    expect(brokenLink('docs/orders.md', 'api.md#no-such-heading')).toMatch(/has no heading/);
    expect(brokenLink('docs/orders.md', 'missing.md')).toMatch(/does not exist/);
    expect(brokenLink('README.md', '../outside/file.md')).toMatch(/outside the repository/);
    expect(brokenCitations('x.ts', '// see docs/api.md#no-such-heading')).toHaveLength(1);
    expect(brokenCitations('x.ts', '// Spec 4.6: completed')).toHaveLength(1);
  });
});
