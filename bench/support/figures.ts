/**
 * One shape for every bench's results, so `npm run bench` can print them in one table. A bench prints its
 * own readable lines and then one `BENCH_FIGURES <json>` line that the runner collects.
 */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** The goal as a person reads it ("≤ 1.03"); absent for figures that only give context. */
  goal?: string;
  met?: boolean;
  /** What the figure is compared with, e.g. the same work run one step at a time. */
  baseline?: string;
}

export const FIGURES_PREFIX = 'BENCH_FIGURES ';

export function printFigures(bench: string, figures: Figure[]): void {
  for (const figure of figures) {
    const goal = figure.goal ? `  (goal ${figure.goal}: ${figure.met ? 'met' : 'missed'})` : '';
    console.log(`${bench}: ${figure.name} = ${formatValue(figure)}${goal}${figure.baseline ? `  [baseline: ${figure.baseline}]` : ''}`);
  }
  console.log(FIGURES_PREFIX + JSON.stringify({ bench, figures }));
}

export function formatValue(figure: Pick<Figure, 'value' | 'unit'>): string {
  const digits = Math.abs(figure.value) >= 100 ? 0 : Math.abs(figure.value) >= 10 ? 1 : 3;
  return `${figure.value.toFixed(digits)}${figure.unit ? ` ${figure.unit}` : ''}`;
}

/** A figure with its goal checked: `atMost(1.03)` for ratios and latencies, `atLeast(600)` for throughput. */
export function atMost(limit: number) {
  return (value: number) => ({ goal: `≤ ${limit}`, met: value <= limit });
}
export function atLeast(limit: number) {
  return (value: number) => ({ goal: `≥ ${limit}`, met: value >= limit });
}
export function below(limit: number) {
  return (value: number) => ({ goal: `< ${limit}`, met: value < limit });
}
