/**
 * The shape of the agent core in figures: how big its functions are, how wide its ports and its context,
 * how many files a folder holds directly. `npm run code-shape [-- <checkout folder>]` prints them for this
 * checkout or another one (an older commit checked out elsewhere), so a renovation shows before and after.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(process.argv[2] ?? '.');
const agent = path.join(root, 'src/agent');

function walk(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const full = path.join(folder, name);
    if (statSync(full).isDirectory()) return walk(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** Lines of every function-like body (declarations, methods, arrows with a block). */
function functionSizes(source: ts.SourceFile): number[] {
  const sizes: number[] = [];
  const visit = (node: ts.Node) => {
    const body = (ts.isFunctionLike(node) && 'body' in node ? node.body : undefined) as ts.Node | undefined;
    if (body && ts.isBlock(body)) {
      const start = source.getLineAndCharacterOfPosition(body.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(body.getEnd()).line;
      sizes.push(end - start + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sizes;
}

/** Members of each interface declared in the given files. */
function interfaceWidths(files: string[]): Map<string, number> {
  const widths = new Map<string, number>();
  for (const file of files) {
    const visit = (node: ts.Node) => {
      if (ts.isInterfaceDeclaration(node)) widths.set(node.name.text, node.members.length);
      ts.forEachChild(node, visit);
    };
    visit(parse(file));
  }
  return widths;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

const files = walk(agent).filter((file) => !file.includes(`${path.sep}testing${path.sep}`));
const sizes = files.flatMap((file) => functionSizes(parse(file))).sort((a, b) => a - b);
const portFiles = files.filter((file) => file.includes(`${path.sep}ports${path.sep}`));
const ports = [...interfaceWidths(portFiles).entries()].filter(([name]) => name.endsWith('Port') || name === 'Surface' || name === 'AgentApi');
const context = interfaceWidths(files.filter((file) => /context\.ts$/.test(file))).get('AgentContext');
const takesContext = files.filter((file) => /\bAgentContext\b/.test(readFileSync(file, 'utf8'))).length;
/** The wiring performs effects; anything else that kicks a driver is a callback the import graph cannot see. */
const wiring = /src\/agent\/(agent|agent-context|effects-runner|replicas\/run-drivers)\.ts$/;
const kickCallers = files.filter((file) => !wiring.test(file) && /\.kick\(/.test(readFileSync(file, 'utf8'))).length;
const folders = [root, ...walk(root).map(path.dirname)]
  .filter((folder) => folder.startsWith(path.join(root, 'src')))
  .filter((folder, index, all) => all.indexOf(folder) === index)
  .map((folder) => ({ folder: path.relative(root, folder), files: readdirSync(folder).filter((name) => statSync(path.join(folder, name)).isFile()).length }))
  .sort((a, b) => b.files - a.files);

const rows: [string, string | number][] = [
  ['agent files', files.length],
  ['functions', sizes.length],
  ['function lines p50 / p90 / max', `${percentile(sizes, 50)} / ${percentile(sizes, 90)} / ${sizes.at(-1) ?? 0}`],
  ['functions over 40 lines', sizes.filter((size) => size > 40).length],
  ['AgentContext members', context ?? 'none'],
  ['agent files naming AgentContext', takesContext],
  ['files calling kick outside the wiring', kickCallers],
  [
    'widest port (members)',
    ports
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([name, width]) => `${name} ${width}`)
      .join(', '),
  ],
  [
    'most files in one src folder',
    folders
      .slice(0, 3)
      .map((entry) => `${entry.folder} ${entry.files}`)
      .join(', '),
  ],
  ['src folders over 20 files', folders.filter((entry) => entry.files > 20).length],
];
for (const [name, value] of rows) console.log(`${name.padEnd(38)} ${value}`);
