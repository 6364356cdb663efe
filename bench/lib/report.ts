// Prints a benchmark report and writes it to bench/reports/<name>.md.
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpus, release } from 'node:os';

export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(resolve(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** A markdown table from a header row and data rows. */
export function table(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

// A suite that re-runs itself in another namespace hands the harness's target on through the environment.
let target: { dir: string; quiet: boolean } | undefined = process.env.CAPSTAN_BENCH_REPORT_DIR ? { dir: process.env.CAPSTAN_BENCH_REPORT_DIR, quiet: true } : undefined;

/** Where reports go instead of bench/reports (the harness: <out>/reports for --quick runs), and no echo. */
export function setReportTarget(dir: string, quiet: boolean): void {
  target = { dir, quiet };
  process.env.CAPSTAN_BENCH_REPORT_DIR = dir;
}

export function writeReport(name: string, title: string, body: string): string {
  const text = `# ${title}\n\nRun ${new Date().toISOString()} on ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, kernel ${release()}, Node ${process.version}.\n\n${body.trim()}\n`;
  const file = resolve(target?.dir ?? resolve(repoRoot(), 'bench', 'reports'), `${name}.md`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  if (!target?.quiet) {
    console.log(text);
    console.log(`(written to ${file})`);
  }
  return file;
}
